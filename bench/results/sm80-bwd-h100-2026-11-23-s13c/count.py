# h13-bwd80c: instructions of the strided copy path (fall-through from the loop-top BAR.SYNC to
# the LSE / D_i LDGSTS, [..+0x34000]) in a segs.py full listing; LDS/LDGSTS counted too.
import sys,re
for path in sys.argv[1:]:
    L=[l.split(None,1)[1].strip() for l in open(path) if l.startswith('   ')]
    end=[i for i,t in enumerate(L) if t.startswith('LDGSTS') and '0x34000]' in t][0]
    seg=L[:end+1]
    first=[i for i,t in enumerate(seg) if t.startswith('LDGSTS')][0]
    print(f'{path}: barrier..stat LDGSTS {len(seg)}; before first LDGSTS {first}; LDGSTS {sum(t.startswith("LDGSTS") for t in seg)}; LDS {sum(t.startswith("LDS.") for t in seg)}; @!PT LDS {sum("@!PT LDS" in t for t in seg)}')
