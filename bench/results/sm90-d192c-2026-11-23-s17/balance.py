# static balance of the snake for D=192 causal (128-row tiles, 96-key tiles), rule groups vs one-pair groups
import math,sys
def hpg(l2, kvpp, pairs, mb, ctas, opg_max):
    if mb <= opg_max: return 1
    fits = max(1, l2//2//kvpp)
    bal = (8*ctas+mb-1)//mb
    p = max(fits, min(bal, ctas//4))
    w = ctas//math.gcd(mb,ctas)
    p = (p+w-1)//w*w
    return max(1,min(p,pairs))
def decode(pos, mb, hpg_, pairs):
    g = pos//(hpg_*mb); within = pos-g*hpg_*mb
    left = pairs-g*hpg_; pig = min(left,hpg_)
    m = mb-1-within//pig; pair = g*hpg_+within%pig
    return m, pair
def sim(N, B, H, bn=96, bm=128, ctas=132, opg_max=0, c=1.0, D=192):
    mb = (N+bm-1)//bm; pairs=B*H
    h = hpg(50*2**20, 2*N*D*2, pairs, mb, ctas, opg_max)
    total = mb*pairs
    load=[0.0]*ctas; maxsteps=[0]*ctas
    r=0
    while r*ctas<total:
        for k in range(ctas):
            pos = r*ctas + (ctas-1-k if r&1 else k)
            if pos>=total: continue
            m,_=decode(pos,mb,h,pairs)
            steps = math.ceil(min(N,(m+1)*bm)/bn)
            load[k]+=steps+c
        r+=1
    return h, sum(load)/(ctas*max(load)), max(load)
for N,B in ((512,32),(1024,16),(2048,8)):
    for opg in (0,8):
        h,b,mx=sim(N,B,10,opg_max=opg)
        print(f"N={N} opg_max={opg}: pairs/group {h}, balance {b:.3f}, busiest {mx:.1f}")
print("groups of k pairs (heads_per_group forced):")
def sim2(N,B,H,h,bn=96,bm=128,ctas=132,c=1.0):
    mb=(N+bm-1)//bm; pairs=B*H; total=mb*pairs
    load=[0.0]*ctas; r=0
    while r*ctas<total:
        for k in range(ctas):
            pos=r*ctas+(ctas-1-k if r&1 else k)
            if pos>=total: continue
            m,_=decode(pos,mb,h,pairs)
            load[k]+=math.ceil(min(N,(m+1)*bm)/bn)+c
        r+=1
    return sum(load)/(ctas*max(load)), max(load)
for N,B in ((512,32),(1024,16)):
    for h in (1,2,4,8,16,33,66):
        b,mx=sim2(N,B,10,h); print(f"  N={N} pairs/group {h}: balance {b:.3f} busiest {mx:.1f}")
