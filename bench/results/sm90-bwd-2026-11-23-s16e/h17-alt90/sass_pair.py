#!/usr/bin/env python3
"""Compare the SASS of kernels from two objects whose names differ only in the tile-config type:
   sass_pair.py A.o 'substr-in-A' B.o 'substr-in-B' (each substring must select exactly one kernel)."""
import sys
sys.path.insert(0, "bench")
from sass_compare import kernels, readable
a, sa, b, sb = sys.argv[1:5]
ka, kb = kernels(a), kernels(b)
def pick(k, s):
    hits = [n for n in k if s in readable(n)]
    assert len(hits) == 1, (s, [readable(h) for h in hits])
    return hits[0]
na, nb = pick(ka, sa), pick(kb, sb)
ia, ib = ka[na], kb[nb]
print(("same" if ia == ib else "DIFF"), len(ia), len(ib), "|", readable(na)[:90], "<->", readable(nb)[:90])
if ia != ib:
    import difflib
    for l in list(difflib.unified_diff(ia, ib, lineterm=""))[:40]: print(l)
