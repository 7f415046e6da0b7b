#!/usr/bin/env python3
"""h13-fwd90b: per consumer tile after the first, median clocks from the previous tile's STORE_ISSUED to this
tile's first GEMMS_ISSUED, by segment (bench/sm90_timeline.py records, no GPU).
  python3 analyze_boundary.py RESULTS_DIR POINT...
"""
import sys, statistics, os
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import sm90_timeline as tl, sm90_timeline_tiles as tt
for name in sys.argv[2:]:
    meta, tracks = tt.load(sys.argv[1], name)
    C = meta["consumers"]
    segs = {}
    order = [("issued","ep_done"),("ep_done","tile_start"),("tile_start","q_ready"),("q_ready","loads0"),("loads0","turn0"),("turn0","gemms0")]
    for cta in sorted({c for c,_ in tracks}):
        ctiles=[tl.consumer_tiles(tracks.get((cta,c),[])) for c in range(1,C+1)]
        for ct in ctiles:
            for j in range(1,len(ct)):
                p=ct[j-1]["events"]; e=ct[j]["events"]
                d=dict(issued=tt.first(p,tl.STORE_ISSUED), ep_done=tt.first(p,tl.EPILOGUE_DONE),
                  tile_start=tt.first(e,tl.TILE_START), q_ready=tt.first(e,tl.Q_READY),
                  loads0=tt.first(e,tl.LOADS_READY,0), turn0=tt.first(e,tl.TURN_TAKEN,0), gemms0=tt.first(e,tl.GEMMS_ISSUED,0))
                if None in d.values(): continue
                for a,b in order: segs.setdefault(a+"->"+b,[]).append(d[b]-d[a])
    print(name)
    for k,v in segs.items(): print(f"  {k:22s} {statistics.median(v):7.0f}  mean {statistics.mean(v):7.0f}")
