#!/usr/bin/env python3
"""h13-fwd90b: the consumers' O store issue (OUTPUT_STAGED_BARRIER -> STORE_ISSUED) and the barrier before it, by
consumer and by the ring stage of the next tile's first V (the running key-step count's parity), at
D = 256 N = 512 causal (bench/sm90_timeline.py records, no GPU).
  python3 analyze_store_issue.py RESULTS_DIR
"""
import sys, statistics
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import sm90_timeline as tl, sm90_timeline_tiles as tt
meta, tracks = tt.load(sys.argv[1], "d256-n512-causal")
C = meta["consumers"]
res = {}
for cta in sorted({c for c,_ in tracks}):
    ct=[tl.consumer_tiles(tracks.get((cta,c),[])) for c in range(1,C+1)]
    for ci, tiles in enumerate(ct):
        kv = 0
        for t in tiles:
            kv += t["steps"]
            ns = kv % 2
            a = tt.first(t["events"], tl.OUTPUT_STAGED_BARRIER); b = tt.first(t["events"], tl.STORE_ISSUED)
            s = tt.first(t["events"], tl.OUTPUT_STAGED)
            if None in (a,b,s): continue
            res.setdefault((ci, ns), []).append((b-a, a-s))
for k in sorted(res):
    v=res[k]; print(sys.argv[1].split('/')[-1], "consumer", k[0], "next stage", k[1], "issue median", statistics.median(x for x,_ in v), "barrier median", statistics.median(y for _,y in v), "n", len(v))
