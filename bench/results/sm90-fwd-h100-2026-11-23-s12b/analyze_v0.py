#!/usr/bin/env python3
"""h12-fwd90b: the chain behind a D = 256 tile's second key step (bench/sm90_timeline.py records,
no GPU). Where O is staged in the V ring (D = 256, producer_stores), the producer issues a tile's
first V only after the previous tile's O has been staged by both consumers, stored by TMA and
read out of shared memory. Per tile (after a CTA's first), median clocks of:
  staged   last consumer's O staged (OUTPUT_STAGED of the previous tile) -> producer's V0 issue
           (the V_EMPTY_WAITED(0) stamp: o_stored wait + store issue + read wait + V slot)
  k0->v0   producer K0 issued -> V0 issued
  v0->use  V0 issued -> the consumers' step-1 loads ready (K1 and V0 landed; last consumer)
  need     the consumer's own view: its step-0 softmax end -> step-1 loads ready (the stall)
  ep->ready last consumer's epilogue done (previous tile) -> step-1 loads ready
  python3 analyze_v0.py RESULTS_DIR POINT...
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import sm90_timeline as tl  # noqa: E402
import sm90_timeline_tiles as tt  # noqa: E402


def med(v):
    return f"{statistics.median(v):.0f}" if v else "-"


def main():
    for name in sys.argv[2:]:
        meta, tracks = tt.load(sys.argv[1], name)
        consumers = meta["consumers"]
        rows = {k: [] for k in ("staged", "k0->v0", "v0->use", "need", "ep->ready", "k1 issued->use")}
        for cta in sorted({c for c, _ in tracks}):
            prod = tracks.get((cta, 0), [])
            ptiles, cur = [], None
            for clock, e, a in prod:
                if e == tl.P_TILE_START:
                    cur = {"tile": a, "ev": []}
                    ptiles.append(cur)
                elif cur is not None:
                    cur["ev"].append((clock, e, a))
            ctiles = [tl.consumer_tiles(tracks.get((cta, c), [])) for c in range(1, consumers + 1)]
            count = min(len(ptiles), *(len(t) for t in ctiles))
            for j in range(1, count):
                ev = ptiles[j]["ev"]
                k0 = tt.first(ev, tl.K_ISSUED, 0)
                v0 = tt.first(ev, tl.V_EMPTY_WAITED, 0)
                k1 = tt.first(ev, tl.K_ISSUED, 1)
                staged = [tt.first(ct[j - 1]["events"], tl.OUTPUT_STAGED) for ct in ctiles]
                ep = [tt.first(ct[j - 1]["events"], tl.EPILOGUE_DONE) for ct in ctiles]
                ready = [tt.first(ct[j]["events"], tl.LOADS_READY, 1) for ct in ctiles]
                sm0 = [tl.softmax_end(ct[j]["events"], 0) for ct in ctiles]
                if None in (k0, v0) or None in staged or None in ready:
                    continue
                rows["staged"].append(v0 - max(staged))
                rows["k0->v0"].append(v0 - k0)
                rows["v0->use"].append(max(ready) - v0)
                if k1 is not None:
                    rows["k1 issued->use"].append(max(ready) - k1)
                if None not in ep:
                    rows["ep->ready"].append(max(ready) - max(ep))
                rows["need"] += [r - s for r, s in zip(ready, sm0) if s is not None]
        print(f"{name}: " + "; ".join(f"{k} {med(v)} (n={len(v)})" for k, v in rows.items()))


if __name__ == "__main__":
    main()
