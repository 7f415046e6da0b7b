#!/usr/bin/env python3
"""h12-fwd90d: a CTA's span from bench/sm90_timeline.py's saved records (no GPU), split into
the kernel start (launch to the first tile's first softmax), the key steps at the point's steady
step, each tile's fixed cost (tile period minus key steps x steady step) and the last tile's
drain (last softmax to the track's end). clock64 is per SM, so every span is within one CTA
(from its own first track start); the grid's tail is the summary's CTA-busy share. Medians over
CTAs, and the CTA with the longest span.

  python3 analyze_span.py RESULTS_DIR POINT...   (POINT e.g. d128-n512-full)
"""

import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import sm90_timeline as tl  # noqa: E402
import sm90_timeline_tiles as tt  # noqa: E402


def main():
    out_dir = sys.argv[1]
    for name in sys.argv[2:]:
        meta, tracks = tt.load(out_dir, name)
        with open(os.path.join(out_dir, f"summary-{name}.json")) as f:
            summary = json.load(f)
        steady = summary.get("steady_step") or summary.get("steady_step_clocks")
        starts, ends = {}, {}
        for (cta, track), rows in tracks.items():
            for clock, event, _ in rows:
                if event == tl.TRACK_START:
                    starts[(cta, track)] = clock
                elif event == tl.TRACK_END:
                    ends[(cta, track)] = clock
        per_cta = {}
        for (cta, track), rows in tracks.items():
            if track == 0:
                continue
            tiles = tl.consumer_tiles(rows)
            if not tiles:
                continue
            ev0 = tiles[0]["events"]
            first_sm = tl.softmax_end(ev0, 0)
            q_ready = next((c for c, e, _ in ev0 if e == tl.Q_READY), None)
            loads0 = next((c for c, e, a in ev0 if e == tl.LOADS_READY and a == 0), None)
            last = tiles[-1]
            last_sm = tl.softmax_end(last["events"], last["steps"] - 1)
            steps = sum(t["steps"] for t in tiles)
            periods = [tiles[r + 1]["start"] - tiles[r]["start"] for r in range(len(tiles) - 1)]
            fixed = [p - t["steps"] * steady for p, t in zip(periods, tiles)]
            k0 = min(v for (c, _), v in starts.items() if c == cta)
            rec = {
                "CTA start->tile0": tiles[0]["start"] - k0,
                "tile0->Q ready": q_ready - tiles[0]["start"],
                "Q ready->K0 ready": loads0 - q_ready,
                "K0 ready->softmax0": first_sm - loads0,
                "tiles": len(tiles), "steps": steps,
                "steps x steady": steps * steady,
                "fixed, first tile": fixed[0] if fixed else 0,
                "fixed, later tiles (median)": statistics.median(fixed[1:]) if len(fixed) > 1 else 0,
                "fixed, all boundaries": sum(fixed),
                "last softmax->track end": ends[(cta, track)] - last_sm,
                "span": ends[(cta, track)] - k0,
            }
            # The CTA's span = launch->tile0 + (tiles but last: periods) + last tile + idle.
            rec["last tile start->track end"] = ends[(cta, track)] - last["start"]
            per_cta.setdefault(cta, []).append(rec)
        # The consumer that ends last in each CTA.
        recs = [max(v, key=lambda r: r["span"]) for v in per_cta.values()]
        last_cta = max(recs, key=lambda r: r["span"])
        print(f"== {name}: steady step {steady:.0f} clocks, {summary['clock_ghz']:.3f} GHz, "
              f"{len(recs)} CTAs, CTAs busy {100 * summary['mean_cta_busy_share']:.1f} % of the "
              f"span; median over CTAs | the CTA with the longest span")
        for key in recs[0]:
            med = statistics.median(r[key] for r in recs)
            mean = statistics.mean(r[key] for r in recs)
            print(f"  {key:28s} {med:10.0f} (mean {mean:8.0f}) | {last_cta[key]:10.0f}")


if __name__ == "__main__":
    main()
