#!/usr/bin/env python3
"""Per-tile facts from the records of bench/sm90_timeline.py (no GPU): which consumer ends a tile
last, the Q load's exposure after short tiles, the producer's waits, the tile period by key
steps, the epilogue's parts per consumer, the persistent scheduler's order and the grid's tail.

  python3 bench/sm90_timeline_tiles.py RESULTS_DIR [POINT ...]   (POINT e.g. d128-n512-causal)

Written for the eleventh session's small-N causal question (D = 128 / 256, N = 512 causal: our
causal kernel as slow as our non-causal one, cuDNN's 0.79 of its own): which chain does a tile
wait for, and how much of the kernel is the tail.
"""

import json
import lzma
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sm90_timeline as tl  # noqa: E402

EPILOGUE_EVENTS = (tl.LSE_STORED, tl.OUTPUT_BUFFER_FREE, tl.OUTPUT_STAGED,
                   tl.OUTPUT_STAGED_BARRIER, tl.STORE_ISSUED, tl.EPILOGUE_DONE)
# Tiles listed per CTA in the scheduler's order (the first CTAs only).
ORDER_CTAS = 3


def median(values):
    return statistics.median(values) if values else float("nan")


def load(out_dir, name):
    with open(os.path.join(out_dir, f"records-{name}.json")) as f:
        meta = json.load(f)
    path = os.path.join(out_dir, f"records-{name}.bin")
    if os.path.exists(path):
        with open(path, "rb") as f:
            blob = f.read()
    else:
        with lzma.open(path + ".xz") as f:
            blob = f.read()
    return meta, tl.parse_tracks(meta, blob)


def first(events, event, arg=None):
    for clock, e, a in events:
        if e == event and (arg is None or a == arg):
            return clock
    return None


def by_steps(pairs):
    """{steps: median} of (steps, value) pairs, as text."""
    groups = {}
    for steps, value in pairs:
        groups.setdefault(steps, []).append(value)
    return ", ".join(f"{s} steps: {median(v):.0f} (n={len(v)})" for s, v in sorted(groups.items()))


def analyze(meta, tracks):
    consumers = meta["consumers"]
    ctas = sorted({cta for cta, _ in tracks})
    lines = [f"{meta['name']}: {len(ctas)} CTAs, {consumers} consumers"]
    tiles = {(cta, c): tl.consumer_tiles(tracks.get((cta, c), []))
             for cta in ctas for c in range(1, consumers + 1)}

    # Per tile of a CTA (the consumers walk the same tiles in the same order).
    last_ender, end_gap, last_pv_last, first_softmax_last = {}, [], {}, {}
    period_by_steps, q_wait_after, tile_start_by_prev = [], [], []
    epilogue_parts = {c: {} for c in range(consumers)}
    first_softmax = {c: [] for c in range(consumers)}
    for cta in ctas:
        per_consumer = [tiles[(cta, c)] for c in range(1, consumers + 1)]
        count = min(len(t) for t in per_consumer)
        for i in range(count):
            group = [per_consumer[c][i] for c in range(consumers)]
            steps = group[0]["steps"]
            ends = [first(t["events"], tl.EPILOGUE_DONE) for t in group]
            if all(e is not None for e in ends):
                order = sorted(range(consumers), key=lambda c: ends[c])
                last_ender[order[-1]] = last_ender.get(order[-1], 0) + 1
                end_gap.append((steps, ends[order[-1]] - ends[order[-2]]))
            pv = [first(t["events"], tl.PV_WAITED, steps) for t in group]
            if steps > 0 and all(p is not None for p in pv):
                c_last = max(range(consumers), key=lambda c: pv[c])
                last_pv_last[c_last] = last_pv_last.get(c_last, 0) + 1
            sm = [tl.softmax_end(t["events"], 0) for t in group]
            if steps > 0 and all(x is not None for x in sm):
                c_last = max(range(consumers), key=lambda c: sm[c])
                first_softmax_last[c_last] = first_softmax_last.get(c_last, 0) + 1
            for c, t in enumerate(group):
                ev = t["events"]
                # The first softmax: from the scores' wait to the softmax stamp.
                s0, w0 = tl.softmax_end(ev, 0), first(ev, tl.SCORES_WAITED, 0)
                if s0 is not None and w0 is not None:
                    first_softmax[c].append((steps, s0 - w0))
                # Epilogue parts: from the last P·V wait through each epilogue stamp.
                previous = first(ev, tl.PV_WAITED, steps)
                for clock, e, a in ev:
                    if e in EPILOGUE_EVENTS and previous is not None and clock >= previous:
                        epilogue_parts[c].setdefault(tl.CONSUMER_PHASES[e], []).append(
                            clock - previous)
                        previous = clock
            if i + 1 < count:
                nxt = [per_consumer[c][i + 1] for c in range(consumers)]
                # The CTA's tile period: the last consumer's tile start to its next tile start.
                period_by_steps.append((steps, max(u["start"] for u in nxt) -
                                        max(t["start"] for t in group)))
                for c in range(consumers):
                    u = nxt[c]
                    q = first(u["events"], tl.Q_READY)
                    if q is not None:
                        q_wait_after.append((steps, q - u["start"]))
                    end = first(group[c]["events"], tl.EPILOGUE_DONE)
                    if end is not None:
                        tile_start_by_prev.append((steps, u["start"] - end))

    lines.append("consumer ending a tile last (epilogue done): " +
                 ", ".join(f"consumer {c}: {n}" for c, n in sorted(last_ender.items())) +
                 f"; its lead over the next, median by key steps: {by_steps(end_gap)}")
    lines.append("consumer whose last P·V wait ends last: " +
                 ", ".join(f"consumer {c}: {n}" for c, n in sorted(last_pv_last.items())))
    lines.append("consumer whose first softmax ends last: " +
                 ", ".join(f"consumer {c}: {n}" for c, n in sorted(first_softmax_last.items())))
    for c in range(consumers):
        lines.append(f"first softmax, consumer {c} (scores waited -> softmax stamp), by the tile's "
                     f"key steps: {by_steps(first_softmax[c])}")
    lines.append(f"CTA tile period (clocks) by key steps: {by_steps(period_by_steps)}")
    lines.append(f"next tile's Q wait (tile start -> Q ready) by the previous tile's key steps: "
                 f"{by_steps(q_wait_after)}")
    lines.append(f"tile start (epilogue done -> next tile start, the loop top) by key steps: "
                 f"{by_steps(tile_start_by_prev)}")
    for c in range(consumers):
        lines.append(f"epilogue parts, consumer {c} (median clocks): " +
                     ", ".join(f"{p.replace('epilogue: ', '')} {median(v):.0f}"
                               for p, v in epilogue_parts[c].items()))

    # Producer waits, by kind.
    waits = {"Q free": [], "K slot": [], "V slot": [], "next tile (after last V)": []}
    for cta in ctas:
        rows = tracks.get((cta, 0), [])
        for (c0, _, _), (c1, e1, _) in zip(rows, rows[1:]):
            if e1 == tl.Q_EMPTY_WAITED:
                waits["Q free"].append(c1 - c0)
            elif e1 == tl.K_EMPTY_WAITED:
                waits["K slot"].append(c1 - c0)
            elif e1 == tl.V_EMPTY_WAITED:
                waits["V slot"].append(c1 - c0)
            elif e1 == tl.P_TILE_START:
                waits["next tile (after last V)"].append(c1 - c0)
    lines.append("producer waits (median / mean / max clocks): " + "; ".join(
        f"{k} {median(v):.0f} / {statistics.mean(v):.0f} / {max(v)}" for k, v in waits.items() if v))

    # The scheduler's order and the grid's tail (globaltimer, ns).
    for cta in ctas[:ORDER_CTAS]:
        lines.append(f"CTA {cta} tiles (index:key steps): " +
                     " ".join(f"{t['tile']}:{t['steps']}" for t in tiles[(cta, 1)]))
    totals = [sum(t["steps"] for t in tiles[(cta, 1)]) for cta in ctas]
    counts = [len(tiles[(cta, 1)]) for cta in ctas]
    lines.append(f"key steps per CTA: min {min(totals)}, median {median(totals)}, max {max(totals)};"
                 f" tiles per CTA: min {min(counts)}, max {max(counts)}")
    ends = []
    for cta in ctas:
        rows = tracks.get((cta, 1), [])
        s0 = [a for _, e, a in rows if e == tl.TRACK_START]
        e0 = [a for _, e, a in rows if e == tl.TRACK_END]
        if s0 and e0:
            ends.append((s0[0], s0[0] + ((e0[0] - s0[0]) & 0xFFFFFFFF), totals[ctas.index(cta)]))
    if ends:
        start = min(s for s, _, _ in ends)
        stop = max(e for _, e, _ in ends)
        span = stop - start
        idle = sum(stop - e for _, e, _ in ends) / (len(ends) * span)
        late_start = sum(s - start for s, _, _ in ends) / (len(ends) * span)
        lines.append(f"grid: span {span / 1000:.1f} us; CTAs start within "
                     f"{(max(s for s, _, _ in ends) - start) / 1000:.1f} us, end within "
                     f"{(stop - min(e for _, e, _ in ends)) / 1000:.1f} us; idle SM share at the "
                     f"end {100 * idle:.1f} %, at the start {100 * late_start:.1f} %")
        deciles = sorted((e - start) / span for _, e, _ in ends)
        lines.append("CTA end times (share of the span), deciles: " + " ".join(
            f"{deciles[int(q * (len(deciles) - 1))]:.3f}" for q in (0, .1, .25, .5, .75, .9, 1)))
        by_total = {}
        for _, e, total in ends:
            by_total.setdefault(total, []).append((e - start) / span)
        lines.append("CTA end (share of span) by its key steps: " + ", ".join(
            f"{t}: {median(v):.3f} (n={len(v)})" for t, v in sorted(by_total.items())))
    return "\n".join(lines) + "\n"


def main():
    out_dir = sys.argv[1]
    names = sys.argv[2:] or sorted(
        e[len("records-"):-len(".json")] for e in os.listdir(out_dir)
        if e.startswith("records-") and e.endswith(".json"))
    for name in names:
        meta, tracks = load(out_dir, name)
        text = analyze(meta, tracks)
        with open(os.path.join(out_dir, f"tiles-{name}.txt"), "w") as f:
            f.write(text)
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
