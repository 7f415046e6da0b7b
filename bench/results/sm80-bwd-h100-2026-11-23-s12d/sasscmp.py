# Per-kernel SASS (addresses and encodings dropped) of two objects: same / different / only-in.
import re,subprocess,sys
def kernels(path):
    out=subprocess.run(['cuobjdump','-sass',path],capture_output=True,text=True).stdout
    ks={};cur=None
    for line in out.splitlines():
        m=re.search(r'Function : (\S+)',line)
        if m: cur=m.group(1); ks[cur]=[]; continue
        m=re.match(r'\s*/\*[0-9a-f]+\*/\s*(.*?)\s*;?\s*/\*',line)
        if cur and m: ks[cur].append(m.group(1))
    return ks
a,b=kernels(sys.argv[1]),kernels(sys.argv[2])
for k in sorted(set(a)|set(b)):
    name=subprocess.run(['c++filt'],input=k,capture_output=True,text=True).stdout.strip().replace('fattn::detail::sm80::','')[:150]
    if k not in a: print('only new:',name)
    elif k not in b: print('only old:',name)
    else: print('same' if a[k]==b[k] else 'DIFF', len(a[k]), name)
