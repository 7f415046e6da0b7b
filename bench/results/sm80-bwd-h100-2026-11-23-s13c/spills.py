# per-kernel registers and spill bytes from a ptxas -v log; short names
import re,sys
cur=None
for line in open(sys.argv[1]):
    m=re.search(r'Function properties for (\S+)',line)
    if m: cur=m.group(1); continue
    m=re.search(r'(\d+) bytes spill stores',line)
    if m and cur: sp=m.group(1)
    m=re.search(r'Used (\d+) registers',line)
    if m and cur and 'backward_kernel' in cur:
        n=cur
        tag=('SHARED ' if 'MaskedItemSources' in n else '')+('DET ' if 'QueryTilesDescending' in n else '')+('LSM ' if 'LargeShared' in n else '')+('WM' if 'WindowMask' in n else 'NM')+(' full' if n.endswith('Lb1EEEvNS1_14BackwardParamsET1_') else ' gen')
        print(f'{tag:28s} regs {m.group(1)} spill {sp}')
        cur=None
