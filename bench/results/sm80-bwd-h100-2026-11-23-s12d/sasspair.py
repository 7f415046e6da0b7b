# The renamed deterministic 256 kernels, paired by mask / deterministic-unmasked wrapper: HEAD's
# (UnmaskedStagedEpilogue) against this tree's (MaskedPerItemPhaseBAddresses<StagedEpilogue>).
import re,subprocess,sys
sys.path.insert(0,__file__.rsplit('/',1)[0])
def kernels(path):
    out=subprocess.run(['cuobjdump','-sass',path],capture_output=True,text=True).stdout
    ks={};cur=None
    for line in out.splitlines():
        m=re.search(r'Function : (\S+)',line)
        if m: cur=m.group(1); ks[cur]=[]; continue
        m=re.match(r'\s*/\*[0-9a-f]+\*/\s*(.*?)\s*;?\s*/\*',line)
        if cur and m: ks[cur].append(m.group(1))
    return ks
def key(k):
    if 'StagedEpilogue' not in k or 'QueryTilesDescending' not in k: return None
    return ('Unmasked' if 'DeterministicUnmaskedHeadGroups' in k else 'table',
            'WindowMask' if 'WindowMask' in k else 'NoMask')
a,b=kernels(sys.argv[1]),kernels(sys.argv[2])
ka={key(k):k for k in a if key(k)}; kb={key(k):k for k in b if key(k)}
for k in sorted(ka):
    x,y=a[ka[k]],b[kb[k]]
    print(k, 'same' if x==y else 'DIFF', len(x), len(y),
          'STL/LDL old %d new %d'%(sum('STL' in i or 'LDL' in i for i in x),sum('STL' in i or 'LDL' in i for i in y)))
