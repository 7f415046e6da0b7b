#!/usr/bin/env python3
"""h11-fwd90d: the host simulation of the Hopper forward's scheduler groups
(bench/results/sm90-fwd-h100-2026-11-23-s11c/simulate_groups.py, imported from there),
extended for the D = 256 bucket (128-row query tiles, 80-key tiles, K/V of 2 · N · 256 · 2
bytes per pair):

- a tile costs its key steps + `overhead` (2.8 steps at D = 256: h11-fwd90b's timeline, the
  non-causal 7-step tile 30,678 clocks against a steady step of 3,139);
- the last key tile's K/V is charged by the keys it holds (N = 512: 32 of 80), not a whole tile;
- optional jitter: every key step costs 1 + jitter · N(0, 1) steps (clipped at 0.5), several
  seeds, so that CTAs drift apart as on the device instead of meeting in lock step;
- the grid (`--ctas`) as a host lever as well as the group size.

  python3 simulate_groups.py --scan [--seqlens 512] [--l2-mb 24] [--jitter 0.1] [--seeds 8]
  python3 simulate_groups.py --groups 1,33 --ctas 132,128 --penalty 0.25   (candidates.txt)
  python3 simulate_groups.py --why            where one-pair groups re-read K/V at N = 512
"""

import argparse
import heapq
import importlib.util
import os
import random
import statistics

_S11C = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                     "sm90-fwd-h100-2026-11-23-s11c", "simulate_groups.py")
_spec = importlib.util.spec_from_file_location("s11c_sim", _S11C)
s11c = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(s11c)

D = 256
BLOCK_M, BLOCK_N = s11c.SHAPES[D]
ELEMENT_BYTES = 2
OVERHEAD = 2.8
L2_BYTES = 50 << 20


def point(N, causal=True):
    m_blocks, pairs, steps, _ = s11c.point(D, N, causal)
    return m_blocks, pairs, steps


def kv_chunk_bytes(N, key_tile):
    keys = min(BLOCK_N, N - key_tile * BLOCK_N)
    return 2 * keys * D * ELEMENT_BYTES


def cta_tiles(hpg, m_blocks, pairs, ctas):
    total = m_blocks * pairs
    tiles = [[] for _ in range(ctas)]
    for r in range((total + ctas - 1) // ctas):
        for c in range(ctas):
            p = r * ctas + (ctas - 1 - c if r & 1 else c)
            if p < total:
                tiles[c].append(s11c.decode(p, hpg, m_blocks, pairs))
    return tiles


def balance(tiles, steps, overhead):
    work = [sum(steps[m] + overhead for m, _ in t) for t in tiles if t]
    return sum(work) / (len(tiles) * max(work))


def simulate(N, tiles, steps, l2_bytes, overhead, penalty, jitter, seed, trace=None):
    """(extra K/V MB, span in steps) of an LRU L2 walked by the CTAs in time order; `trace`
    (a dict) collects, per re-read, the round of the tile that re-read it and the gap since the
    chunk's previous use."""
    rng = random.Random(seed)
    q_chunk = BLOCK_M * D * ELEMENT_BYTES
    touch = s11c.LruL2(l2_bytes).touch
    read_kv = first_kv = 0
    seen = set()
    last_use = {}

    heap = [(0.0, c, 0, -1) for c in range(len(tiles)) if tiles[c]]
    heapq.heapify(heap)
    end = 0.0
    while heap:
        t, c, i, s = heapq.heappop(heap)
        m, pair = tiles[c][i]
        if s == -1:
            touch((pair, "q", m), q_chunk)
            heapq.heappush(heap, (t, c, i, 0))
        elif s < steps[m]:
            key_tile = steps[m] - 1 - s
            key = (pair, "kv", key_tile)
            size = kv_chunk_bytes(N, key_tile)
            hit = touch(key, size)
            if not hit:
                read_kv += size
                if key in seen:
                    if trace is not None:
                        trace.setdefault(i, []).append(t - last_use[key])
                else:
                    seen.add(key)
                    first_kv += size
            last_use[key] = t
            cost = max(0.5, 1 + jitter * rng.gauss(0, 1)) if jitter else 1.0
            heapq.heappush(heap, (t + cost + (0 if hit else penalty), c, i, s + 1))
        else:
            touch((pair, "o", m), q_chunk)
            t += overhead
            end = max(end, t)
            if i + 1 < len(tiles[c]):
                heapq.heappush(heap, (t, c, i + 1, -1))
    return (read_kv - first_kv) / 1e6, end


def evaluate(N, hpg, ctas, args, l2_mb):
    m_blocks, pairs, steps = point(N)
    hpg = min(max(hpg, 1), pairs)
    tiles = cta_tiles(hpg, m_blocks, pairs, ctas)
    runs = [simulate(N, tiles, steps, int(l2_mb * (1 << 20)), args.overhead, args.penalty,
                     args.jitter, seed) for seed in range(args.seeds if args.jitter else 1)]
    extra = statistics.mean(e for e, _ in runs)
    span = statistics.mean(s for _, s in runs)
    return balance(tiles, steps, args.overhead), extra, max(e for e, _ in runs), span


def rule(N, ctas):
    m_blocks, pairs, _ = point(N)
    return s11c.rule_heads_per_group(L2_BYTES, 2 * N * D * ELEMENT_BYTES, pairs, m_blocks, ctas)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seqlens", default="512")
    p.add_argument("--l2-mb", default="20,24,28")
    p.add_argument("--overhead", type=float, default=OVERHEAD)
    p.add_argument("--penalty", type=float, default=0.0)
    p.add_argument("--jitter", type=float, default=0.0)
    p.add_argument("--seeds", type=int, default=8)
    p.add_argument("--ctas", default="132")
    p.add_argument("--groups", default="", help="group sizes (default: 1..66 and the rule)")
    p.add_argument("--why", action="store_true")
    a = p.parse_args()
    caps = [float(x) for x in a.l2_mb.split(",")]
    if a.why:
        for N in map(int, a.seqlens.split(",")):
            m_blocks, pairs, steps = point(N)
            for hpg in map(int, (a.groups or "1").split(",")):
                tiles = cta_tiles(hpg, m_blocks, pairs, 132)
                for cap in caps:
                    trace = {}
                    extra, span = simulate(N, tiles, steps, int(cap * (1 << 20)), a.overhead,
                                           a.penalty, a.jitter, 0, trace)
                    by_round = {r: (len(g), statistics.median(g)) for r, g in sorted(trace.items())}
                    print(f"N={N} group={hpg} L2={cap} MB: extra {extra:.1f} MB; re-reads by the "
                          f"re-reading tile's round (count, median gap in steps): {by_round}")
        return
    print(f"D = 256 causal, overhead {a.overhead} steps per tile, miss penalty {a.penalty}, "
          f"jitter {a.jitter} ({a.seeds if a.jitter else 1} seeds); extra K/V MB mean (max) at "
          f"LRU {' / '.join(map(str, caps))} MB")
    print("| N | CTAs | pairs/group | balance | extra K/V MB | span (steps) |")
    print("|---" * 6 + "|")
    for N in map(int, a.seqlens.split(",")):
        for ctas in map(int, a.ctas.split(",")):
            groups = (list(map(int, a.groups.split(","))) if a.groups
                      else sorted(set(range(1, 67)) | {rule(N, ctas)}))
            for hpg in groups:
                cells = [evaluate(N, hpg, ctas, a, cap) for cap in caps]
                bal = cells[0][0]
                print(f"| {N} | {ctas} | {hpg} | {bal:.3f} | "
                      f"{' / '.join(f'{e:.0f} ({x:.0f})' for _, e, x, _ in cells)} | "
                      f"{' / '.join(f'{s:.1f}' for *_, s in cells)} |", flush=True)


if __name__ == "__main__":
    main()
