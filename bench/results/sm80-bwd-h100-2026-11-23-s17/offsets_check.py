# simulate DqLineRounds offsets at 256: kChunks=16, kRowsPerRound=8, kRowTilesQ=2, kDimTilesQ=8
K=16; CF=4; RPP=8; RPL=32//K; LPR=8//RPL
def sts(lane, dt, p, form):
    g, q = lane//4, lane%4
    if form=='old':
        chunk=(dt*8+2*q)//4; return ((p*8+g)*K + (chunk ^ g))*CF + (q%2)*2
    if form=='pair':
        chunk=(dt*8+2*q)//4; return ((p*8+g)*K + (chunk ^ (2*g)))*CF + (q%2)*2
    if form=='pairsplit':
        base=g*(K*CF+2*CF)+2*q; return (base ^ (2*CF*dt)) + p*RPP*K*CF
def lds(lane, j, form):
    lr, lc = lane//K, lane%K
    row=j*RPL+lr
    if form=='old': return (row*K + (lc ^ (row%8)))*CF
    if form=='pair': return (row*K + (lc ^ (2*(row%8))))*CF
    if form=='pairsplit':
        base=lr*K*CF + ((lc ^ (2*lr))*CF); return (base ^ (2*CF*((j*RPL)%8))) + j*RPL*K*CF
def wavefronts(addrs_bytes, width):
    # addrs: list of (lane, byteaddr); width bytes per lane. split in phases of 128B per wavefront ideal
    lanes_per_phase = 128//width
    total=0
    for ph in range(0,32,lanes_per_phase):
        banks={}
        for l in range(ph, ph+lanes_per_phase):
            a=addrs_bytes[l]
            for w in range(width//4):
                b=((a+4*w)//4)%32; banks.setdefault(b,set()).add((a+4*w)//4)
        total+=max(len(v) for v in banks.values())
    return total
for form in ['old','pair','pairsplit']:
    # consistency: sts writes (row, col) of dq to location; lds reads location -> should give row-major
    loc={}
    for p in range(1):
        for lane in range(32):
            g,q=lane//4,lane%4
            for dt in range(8):
                o=sts(lane,dt,p,form)
                for e in range(2):
                    loc[o+e]=(p*8+g, dt*8+2*q+e)
    ok=True
    for lane in range(32):
        for j in range(LPR):
            o=lds(lane,j,form)
            row=j*RPL+lane//K; col=(lane%K)*4
            for e in range(4):
                if loc.get(o+e)!=(row,col+e): ok=False
    assert len(loc)==8*64
    swf=sum(wavefronts([4*sts(l,dt,0,form) for l in range(32)],8) for dt in range(8))
    lwf=sum(wavefronts([4*lds(l,j,form) for l in range(32)],16) for j in range(LPR))
    print(form,'consistent',ok,'STS wavefronts/round',swf,'LDS',lwf, 'max offset', max(loc))
print([sts(l,3,0,'pair')==sts(l,3,0,'pairsplit') for l in range(32)].count(True))
