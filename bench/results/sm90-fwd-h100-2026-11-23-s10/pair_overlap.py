#!/usr/bin/env python3
"""Do the two co-resident CTAs of an SM reach their tile boundaries together?

  python3 pair_overlap.py RECORDS_DIR [POINT_NAME]

Reads records-<point>.{json,bin} of bench/sm90_timeline.py --ctas-per-sm 2 (every CTA records;
the two CTAs of an SM share its %clock). A consumer's *boundary* runs from its tile's last P·V
waited (event 17 with the tile's last step as argument) to the next tile's first step end (event
18, argument 0): the last P·V, the epilogue, the loop-top decode, Q wait, first Q·Kᵀ and first
softmax. Prints, over the SMs, the share of one CTA's boundary time during which its partner is
in its own boundary too (lock-step: near 1; independent phases: near the partner's boundary duty
cycle), plus the steady key step (step end to step end inside a tile) and the tile period.
"""
import glob
import json
import os
import statistics
import struct
import sys

TRACK_START, SM_ID, TILE_START, PV_WAITED, STEP_END, EPILOGUE_DONE = 1, 2, 10, 17, 18, 19
SOFTMAX_AND_PV = 20


def unwrap(clocks):
    out, base, prev = [], 0, None
    for c in clocks:
        if prev is not None and c < prev:
            base += 1 << 32
        out.append(c + base)
        prev = c
    return out


def load(path_json):
    meta = json.load(open(path_json))
    blob = open(path_json[:-5] + ".bin", "rb").read()
    tracks = {}
    for cta, track, offset, count in meta["tracks"]:
        recs = [struct.unpack_from("<IIII", blob, 16 * (offset + i))[:3] for i in range(count)]
        clocks = unwrap([r[0] for r in recs])
        tracks[(cta, track)] = [(c, e, a) for c, (_, e, a) in zip(clocks, recs)]
    return meta, tracks


def intervals(records):
    """Boundary intervals, steady steps and tile periods of one consumer track."""
    tiles, current = [], None
    for clock, event, arg in records:
        if event == TILE_START:
            current = []
            tiles.append(current)
        elif current is not None:
            current.append((clock, event, arg))
    bounds, steps, periods = [], [], []
    starts = [t[0][0] for t in tiles if t]
    periods = [b - a for a, b in zip(starts, starts[1:])]
    for tile, nxt in zip(tiles, tiles[1:]):
        last = max((a for _, e, a in tile if e == STEP_END), default=None)
        if last is None:
            continue
        pv_done = [c for c, e, a in tile if e in (PV_WAITED, SOFTMAX_AND_PV) and a == last + 1]
        first_end = [c for c, e, a in nxt if e == STEP_END and a == 0]
        if pv_done and first_end:
            bounds.append((pv_done[0], first_end[0]))
    for tile in tiles:
        ends = sorted((a, c) for c, e, a in tile if e == STEP_END)
        steps += [c2 - c1 for (a1, c1), (a2, c2) in zip(ends, ends[1:]) if a2 == a1 + 1]
    return bounds, steps, periods


def overlap(a, b):
    total = 0
    for s1, e1 in a:
        for s2, e2 in b:
            total += max(0, min(e1, e2) - max(s1, s2))
    return total


def main():
    folder = sys.argv[1]
    paths = sorted(glob.glob(os.path.join(folder, "records-*.json")))
    if len(sys.argv) > 2:
        paths = [p for p in paths if sys.argv[2] in p]
    for path in paths:
        meta, tracks = load(path)
        sm_of = {cta: next(a for _, e, a in recs if e == SM_ID)
                 for (cta, track), recs in tracks.items() if track == 0}
        consumer = {cta: intervals(recs) for (cta, track), recs in tracks.items() if track == 1}
        by_sm = {}
        for cta, sm in sm_of.items():
            by_sm.setdefault(sm, []).append(cta)
        shares, duty, steps, periods, pairs = [], [], [], [], []
        for sm, ctas in sorted(by_sm.items()):
            for cta in ctas:
                steps += consumer[cta][1]
                periods += consumer[cta][2]
            if len(ctas) != 2:
                continue
            pairs.append(tuple(sorted(ctas)))
            (ba, _, pa), (bb, _, pb) = consumer[ctas[0]][:3], consumer[ctas[1]][:3]
            own = sum(e - s for s, e in ba)
            if own and ba and bb:
                shares.append(overlap(ba, bb) / own)
                span = max(e for _, e in bb) - min(s for s, _ in bb)
                duty.append(sum(e - s for s, e in bb) / span if span else 0)
        print(f"{os.path.basename(path)}: {len(by_sm)} SMs, {len(pairs)} with two CTAs "
              f"(CTA pairs e.g. {pairs[:4]})")
        if shares:
            spread = (statistics.quantiles(shares, n=4) if len(shares) > 1
                      else [shares[0]] * 3)
            print(f"  boundary overlap with the partner: median {statistics.median(shares):.2f} "
                  f"(quartiles {spread[0]:.2f}-{spread[2]:.2f}); partner's boundary duty cycle "
                  f"median {statistics.median(duty):.2f} (independent phases would give ~that)")
        if steps:
            print(f"  steady key step median {statistics.median(steps):.0f} clocks; tile period "
                  f"median {statistics.median(periods):.0f}")
        bounds = [e - s for cta in consumer for s, e in consumer[cta][0]]
        if bounds:
            print(f"  boundary (last P·V waited -> next tile's first step end) median "
                  f"{statistics.median(bounds):.0f} clocks")


if __name__ == "__main__":
    main()
