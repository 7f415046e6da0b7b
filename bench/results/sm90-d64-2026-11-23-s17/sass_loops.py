#!/usr/bin/env python3
"""Static SASS of each kernel's loops that issue wgmmas (HGMMA), innermost first: instructions,
HGMMA, MUFU, BAR, SHFL, SYNCS (mbarrier), WARPGROUP/WARPSYNC. The innermost is the key loop.
  cuobjdump -sass X.o > X.sass; python3 sass_loops.py X.sass"""
import re
import sys

txt = open(sys.argv[1]).read()
for f in re.split(r'\n\s+Function : ', txt)[1:]:
    name = f.split('\n')[0]
    kind = re.search(r'(NoMask|CausalMask|WindowMask)', name).group(1)
    ins = re.findall(r'/\*([0-9a-f]{4,})\*/\s+([^;]*);', f)
    ops = [t.split()[1] if t.startswith('@') else t.split()[0] for _, t in ins]
    addr = [int(a, 16) for a, _ in ins]
    loops = []
    for k, (_, t) in enumerate(ins):
        m = re.search(r'BRA [^0-9]*0x([0-9a-f]+)', t)
        if m and int(m.group(1), 16) < addr[k]:
            lo = next(j for j in range(len(addr)) if addr[j] >= int(m.group(1), 16))
            body = ops[lo:k + 1]
            count = lambda *p: sum(o.startswith(p) for o in body)  # noqa: E731
            if count('HGMMA'):
                loops.append((len(body), count('HGMMA'), count('MUFU'), count('BAR'),
                              count('SHFL'), count('SYNCS'), count('WARPGROUP', 'WARPSYNC')))
    loops.sort()
    print(f"{kind:10s} {len(ins)} instructions; loops (len, hgmma, mufu, bar, shfl, syncs, wg): "
          f"{loops[:3]}")
