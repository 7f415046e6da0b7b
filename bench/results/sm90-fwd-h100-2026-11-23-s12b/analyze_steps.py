#!/usr/bin/env python3
"""h12-fwd90b: the key steps of a tile one by one, from bench/sm90_timeline.py's saved records
(no GPU). For each point: per consumer, the period softmax(i) -> softmax(i + 1) of the walk's
step i and its phases, grouped by the tile's round parity (even rounds walk ascending at small-N
causal since v21), the tile's key steps and i; and the tile period by parity.

  python3 analyze_steps.py RESULTS_DIR POINT...   (POINT e.g. d256-n512-causal)
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import sm90_timeline as tl  # noqa: E402
import sm90_timeline_tiles as tt  # noqa: E402

PHASES = ("wait K/V", "wait turn", "issue GEMMs", "wait QK", "softmax", "wait PV",
          "softmax+wait PV", "rescale+convert")


def med(v):
    return statistics.median(v) if v else float("nan")


def main():
    out_dir = sys.argv[1]
    for name in sys.argv[2:]:
        meta, tracks = tt.load(out_dir, name)
        consumers = meta["consumers"]
        periods, phases, tile_period = {}, {}, {}
        for (cta, track), rows in tracks.items():
            if track == 0:
                continue
            tiles = tl.consumer_tiles(rows)
            for r, t in enumerate(tiles):
                ev, n = t["events"], t["steps"]
                if r + 1 < len(tiles):
                    tile_period.setdefault((r & 1, n), []).append(tiles[r + 1]["start"] - t["start"])
                for i in range(n - 1):
                    a, b = tl.softmax_end(ev, i), tl.softmax_end(ev, i + 1)
                    if a is None or b is None:
                        continue
                    key = (track - 1, r & 1, n, i + 1)
                    periods.setdefault(key, []).append(b - a)
                    for p, c in tl.phases_between(ev, a, b):
                        phases.setdefault(key, {}).setdefault(p, []).append(c)
        print(f"== {name}: step i = softmax(i-1) -> softmax(i) of the walk (i >= 1), median clocks; "
              f"parity 0 = even rounds")
        print("| consumer | parity | key steps | i | n | period | " + " | ".join(PHASES) + " |")
        print("|---" * (6 + len(PHASES)) + "|")
        for key in sorted(periods):
            c, par, n, i = key
            v = periods[key]
            ph = phases.get(key, {})
            print(f"| {c} | {par} | {n} | {i} | {len(v)} | {med(v):.0f} | " +
                  " | ".join(f"{med(ph.get(p, [])):.0f}" if p in ph else "-" for p in PHASES) + " |")
        print("tile period (tile start -> next tile start, all consumers) by parity, key steps: " +
              ", ".join(f"p{par} {n}: {med(v):.0f} (n={len(v)})"
                        for (par, n), v in sorted(tile_period.items())))
        print()


if __name__ == "__main__":
    main()
