#!/usr/bin/env python3
"""h13-fwd90b: where the masked D = 256 kernel's O -> V0 chain spends its clocks (no GPU), from
bench/sm90_timeline.py records (s12b call 2, k1f = HEAD's masked kernels). The timeline thread of a
consumer is its store thread, so its marks bracket the store issue and the read wait. Per tile
after a CTA's first, medians of (clocks):
  staged->issued   OUTPUT_STAGED -> STORE_ISSUED of the previous tile (barrier + store issue)
  issued->gemms    STORE_ISSUED (prev tile) -> GEMMS_ISSUED(0) (tile decode, Q/K0 waits, Q·Kᵀ
                   issue): where confirm_output_read starts waiting for the read
  gemms->scores    GEMMS_ISSUED(0) -> SCORES_WAITED(0): read wait + o_stored arrive + Q·Kᵀ wait
                   (tiles j >= 1) against the CTA's first tile (no read wait)
  lastgemms->v0    the later consumer's GEMMS_ISSUED(0) -> producer V_EMPTY_WAITED(0) (V0 issue)
  issued->v0       the later consumer's STORE_ISSUED (prev) -> V0 issue
  python3 analyze_chain.py RESULTS_DIR POINT...
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import sm90_timeline as tl  # noqa: E402
import sm90_timeline_tiles as tt  # noqa: E402


def med(v):
    return f"{statistics.median(v):.0f}" if v else "-"


def pct(v, q):
    v = sorted(v)
    return f"{v[int(q * (len(v) - 1))]:.0f}" if v else "-"


def main():
    for name in sys.argv[2:]:
        meta, tracks = tt.load(sys.argv[1], name)
        consumers = meta["consumers"]
        rows = {k: [] for k in ("staged->issued", "issued->gemms", "gemms->scores",
                                "gemms->scores first tile", "lastgemms->v0", "issued->v0",
                                "staged->v0")}
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
            for ct in ctiles:
                if ct:
                    g = tt.first(ct[0]["events"], tl.GEMMS_ISSUED, 0)
                    s = tt.first(ct[0]["events"], tl.SCORES_WAITED, 0)
                    if None not in (g, s):
                        rows["gemms->scores first tile"].append(s - g)
            count = min(len(ptiles), *(len(t) for t in ctiles))
            for j in range(1, count):
                v0 = tt.first(ptiles[j]["ev"], tl.V_EMPTY_WAITED, 0)
                staged = [tt.first(ct[j - 1]["events"], tl.OUTPUT_STAGED) for ct in ctiles]
                issued = [tt.first(ct[j - 1]["events"], tl.STORE_ISSUED) for ct in ctiles]
                gemms = [tt.first(ct[j]["events"], tl.GEMMS_ISSUED, 0) for ct in ctiles]
                scores = [tt.first(ct[j]["events"], tl.SCORES_WAITED, 0) for ct in ctiles]
                if None in staged or None in issued or None in gemms or None in scores or v0 is None:
                    continue
                rows["staged->issued"] += [i - s for s, i in zip(staged, issued)]
                rows["issued->gemms"] += [g - i for i, g in zip(issued, gemms)]
                rows["gemms->scores"] += [s - g for g, s in zip(gemms, scores)]
                rows["lastgemms->v0"].append(v0 - max(gemms))
                rows["issued->v0"].append(v0 - max(issued))
                rows["staged->v0"].append(v0 - max(staged))
        print(f"{name}:")
        for k, v in rows.items():
            print(f"  {k:26s} median {med(v):>6s}  p25 {pct(v, 0.25):>6s}  p75 {pct(v, 0.75):>6s}"
                  f"  (n={len(v)})")


if __name__ == "__main__":
    main()
