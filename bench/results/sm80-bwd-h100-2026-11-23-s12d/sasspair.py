# The renamed deterministic 256 kernels, paired by mask / deterministic-unmasked wrapper: HEAD's
# (UnmaskedStagedEpilogue) against this tree's (MaskedPerItemPhaseBAddresses<StagedEpilogue>).
import sys
# kernels() is bench/sass_compare.py's.
sys.path.insert(0,__file__.rsplit('/',1)[0]+'/../..')
from sass_compare import kernels
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
