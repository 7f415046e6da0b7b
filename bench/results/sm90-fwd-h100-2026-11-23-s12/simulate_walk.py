#!/usr/bin/env python3
"""h12-fwd90: the host model of h11-fwd90d (../sm90-fwd-h100-2026-11-23-s11d/simulate_groups.py,
imported from there) with the key walk's direction per round: `walk` = "down" (HEAD: every tile
walks its key tiles from the last, the diagonal first) or "even-up" (the tiles of even rounds walk
them from the first, the diagonal last; odd rounds as HEAD). D = 128 (128 x 128 tiles) or 256
(128 x 80). One-pair groups (v19's rule at N <= 1k), 132 CTAs, LRU L2, optional per-step jitter.

  python3 simulate_walk.py [--dims 256,128] [--seqlens 512,1024] [--l2-mb 20,24,28]
                           [--jitter 0.15] [--seeds 8] [--penalty 0.25]
"""

import argparse
import heapq
import importlib.util
import os
import random
import statistics

_S11D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                     "sm90-fwd-h100-2026-11-23-s11d", "simulate_groups.py")
_spec = importlib.util.spec_from_file_location("s11d_sim", _S11D)
s11d = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(s11d)
s11c = s11d.s11c

ELEMENT_BYTES = 2
CTAS = 132


def simulate(D, N, tiles, steps, l2_bytes, overhead, penalty, jitter, seed, walk):
    """(K/V MB read, extra K/V MB, span in steps)."""
    block_m, block_n = s11c.SHAPES[D]
    rng = random.Random(seed)
    q_chunk = block_m * D * ELEMENT_BYTES
    touch = s11c.LruL2(l2_bytes).touch
    read_kv = first_kv = 0
    seen = set()

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
            # A CTA's i-th tile is in round i (every CTA takes one tile per round).
            up = walk == "even-up" and i % 2 == 0
            key_tile = s if up else steps[m] - 1 - s
            key = (pair, "kv", key_tile)
            keys = min(block_n, N - key_tile * block_n)
            size = 2 * keys * D * ELEMENT_BYTES
            hit = touch(key, size)
            if not hit:
                read_kv += size
                if key not in seen:
                    seen.add(key)
                    first_kv += size
            cost = max(0.5, 1 + jitter * rng.gauss(0, 1)) if jitter else 1.0
            heapq.heappush(heap, (t + cost + (0 if hit else penalty), c, i, s + 1))
        else:
            touch((pair, "o", m), q_chunk)
            t += overhead
            end = max(end, t)
            if i + 1 < len(tiles[c]):
                heapq.heappush(heap, (t, c, i + 1, -1))
    return read_kv / 1e6, (read_kv - first_kv) / 1e6, end


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dims", default="256,128")
    p.add_argument("--seqlens", default="512,1024")
    p.add_argument("--l2-mb", default="20,24,28")
    p.add_argument("--overhead", type=float, default=s11d.OVERHEAD)
    p.add_argument("--penalty", type=float, default=0.25)
    p.add_argument("--jitter", type=float, default=0.15)
    p.add_argument("--seeds", type=int, default=8)
    a = p.parse_args()
    caps = [float(x) for x in a.l2_mb.split(",")]
    print(f"causal, one-pair groups, {CTAS} CTAs, overhead {a.overhead} steps per tile, miss "
          f"penalty {a.penalty} step, jitter {a.jitter} ({a.seeds} seeds); values at LRU "
          f"{' / '.join(map(str, caps))} MB")
    print("| D | N | walk | K/V MB read (once: MB) | extra K/V MB | span (steps) | span / down |")
    print("|---" * 7 + "|")
    for D in map(int, a.dims.split(",")):
        for N in map(int, a.seqlens.split(",")):
            m_blocks, pairs, steps, _ = s11c.point(D, N, True)
            tiles = s11d.cta_tiles(1, m_blocks, pairs, CTAS)
            base = None
            for walk in ("down", "even-up"):
                cells = []
                for cap in caps:
                    runs = [simulate(D, N, tiles, steps, int(cap * (1 << 20)), a.overhead,
                                     a.penalty, a.jitter, seed, walk)
                            for seed in range(a.seeds if a.jitter else 1)]
                    cells.append(tuple(statistics.mean(r[k] for r in runs) for k in range(3)))
                once = cells[0][0] - cells[0][1]
                spans = [c[2] for c in cells]
                base = base or spans
                print(f"| {D} | {N} | {walk} | {' / '.join(f'{c[0]:.0f}' for c in cells)} "
                      f"({once:.0f}) | {' / '.join(f'{c[1]:.1f}' for c in cells)} | "
                      f"{' / '.join(f'{s:.1f}' for s in spans)} | "
                      f"{' / '.join(f'{b / s:.3f}' for b, s in zip(base, spans))} |", flush=True)


if __name__ == "__main__":
    main()
