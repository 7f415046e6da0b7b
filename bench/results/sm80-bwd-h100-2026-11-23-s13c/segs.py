# h13-bwd80b: the loop top of one kernel in a cuobjdump -sass listing, from the BAR.SYNC after
# the copies wait (DEPBAR.LE) to the next LDGDEPBAR: its length and branches (the copy paths).
import re,sys
def kern(path, want):
    out=[];cur=None
    for line in open(path):
        m=re.search(r'Function : (\S+)',line)
        if m: cur=m.group(1); continue
        if cur and want(cur):
            mm=re.match(r'\s*/\*([0-9a-f]+)\*/\s*(.*?)\s*;?\s*/\*',line)
            if mm: out.append((int(mm.group(1),16),mm.group(2)))
    return out
def show(path, want, lo=None, hi=None, full=False):
    k=kern(path,want)
    idx=[i for i,(a,t) in enumerate(k) if t.startswith('BAR.SYNC') and any('DEPBAR.LE' in k[j][1] for j in range(i-6,i))]
    b=idx[0]
    e=[i for i in range(b,len(k)) if k[i][1].startswith('LDGDEPBAR')][0]
    seg=k[b:e+1]
    print('kernel instrs',len(k),'barrier@%x'%k[b][0],'ldgdepbar@%x'%k[e][0],'span',len(seg))
    for a,t in seg:
        if full or 'BRA' in t or 'CALL' in t: print('   %x %s'%(a,t))
    return k
if __name__=='__main__':
    path=sys.argv[1]; pat=sys.argv[2]  # a cuobjdump -sass listing, a regex of the kernel name
    show(path, lambda n: re.search(pat,n) is not None, full=len(sys.argv)>3)
