K=8; CF=4; DT=4; RPL=32//K; LPR=8//RPL
def sts(lane, dt, sw):
    g,q=lane//4,lane%4; chunk=(dt*8+2*q)//4; return (g*K + (chunk ^ sw(g)))*CF + (q%2)*2
def lds(lane,j,sw):
    lr,lc=lane//K,lane%K; row=j*RPL+lr; return (row*K + (lc ^ sw(row)))*CF
def wf(addrs,width):
    lp=128//width; tot=0
    for ph in range(0,32,lp):
        banks={}
        for l in range(ph,ph+lp):
            for w in range(width//4):
                a=addrs[l]//4+w; banks.setdefault(a%32,set()).add(a)
        tot+=max(len(v) for v in banks.values())
    return tot
for name,sw in [('row%8',lambda r:r%8),('2row%8',lambda r:(2*r)%8)]:
    loc={}
    for l in range(32):
        for dt in range(DT):
            o=sts(l,dt,sw)
            for e in range(2): loc[o+e]=(l//4, dt*8+2*(l%4)+e)
    ok=all(loc.get(lds(l,j,sw)+e)==(j*RPL+l//K,(l%K)*4+e) for l in range(32) for j in range(LPR) for e in range(4))
    print(name,'ok',ok,'STS wf',sum(wf([4*sts(l,dt,sw) for l in range(32)],8) for dt in range(DT)),'LDS wf',sum(wf([4*lds(l,j,sw) for l in range(32)],16) for j in range(LPR)))
