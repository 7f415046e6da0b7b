#!/usr/bin/env python3
"""h12-fwd90b: the small-N causal walk with DRAM *bandwidth* as well as L2 capacity.

s12's simulate_walk.py (LRU L2, a fixed miss penalty) got v21's bytes right but not its time:
it charged nothing for *when* the misses come. This model adds, per CTA, the producer's ring
(`stages` key tiles ahead of the consumer, the next tile's Q at the previous tile's last step),
one DRAM server of `bw` MB per step (FIFO; K/V, Q and the O stores share it), a miss latency and
a hit latency, and in-flight sharing (a second request for a key tile being fetched waits for the
same fetch). A key step computes for 1 step (+ jitter) once its K/V has landed; a tile costs
`overhead` steps of boundary (epilogue, decode). Scheduler: the real snake over 132 CTAs with
the bucket's groups (s11c / s11d's cta_tiles: D = 64 groups of m_blocks pairs (v20), D = 128 /
256 one pair (v19)). Walk rules, per tile (i = the CTA's tile index = the kernel's round):
  down     every tile from the diagonal down (HEAD at D = 64)
  even-up  even rounds ascending (v21 at D = 128 / 256)
  odd-up   odd rounds ascending
  all-up   every tile ascending

  python3 simulate_bw.py [--dims 64] [--seqlens 512,1024] [--bw 3.5,4.5] [--l2-mb 30]
"""

import argparse
import heapq
import importlib.util
import os
import random
import statistics

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "s11d_sim", os.path.join(_HERE, "..", "sm90-fwd-h100-2026-11-23-s11d", "simulate_groups.py"))
s11d = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(s11d)
s11c = s11d.s11c

ELEMENT_BYTES = 2
CTAS = 132
STAGES = {64: 3, 128: 2, 256: 2}
# Tile boundary in steps: the seventh session's timeline (D = 64 N = 1k causal 1.34-1.46 steps,
# D = 128 1.08), h11-fwd90b's for D = 256 (2.8).
OVERHEAD = {64: 1.4, 128: 1.1, 256: 2.8}
# groups of pairs per scheduler group at N <= 1k (v19 / v20)
def hpg(D, m_blocks):
    return m_blocks if D == 64 else 1


def simulate(D, N, walk, bw_mb, l2_mb, lat_miss, lat_hit, jitter, seed):
    block_m, block_n = s11c.SHAPES[D]
    m_blocks, pairs, steps, _ = s11c.point(D, N, True)
    tiles = s11d.cta_tiles(hpg(D, m_blocks), m_blocks, pairs, CTAS)
    rng = random.Random(seed)
    bw = bw_mb * 1e6
    l2 = l2_mb * (1 << 20)
    q_bytes = block_m * D * ELEMENT_BYTES
    l2_cache = s11c.LruL2(l2)
    state = {"free": 0.0, "read": 0.0, "first": 0.0, "stall": 0.0}
    seen = set()
    ready = {}  # key -> time its fetch lands

    def fetch(key, size, t):
        """Time the data of `key`, requested at t, is on chip."""
        if l2_cache.touch(key, size):
            return max(t + lat_hit, ready.get(key, 0.0))
        start = max(t, state["free"])
        state["free"] = start + size / bw
        ready[key] = state["free"] + lat_miss
        state["read"] += size
        if key not in seen:
            seen.add(key)
            state["first"] += size
        return ready[key]

    def write(size, t):
        start = max(t, state["free"])
        state["free"] = start + size / bw

    # Event-driven per CTA: events are (time, cta, kind); each CTA runs its tiles in order. The
    # producer issues key step k of the CTA's global sequence when the consumer ended step
    # k - stages; requests are processed in time order across CTAs (one heap).
    seqs = []
    for c in range(CTAS):
        seq = []
        for i, (m, pair) in enumerate(tiles[c]):
            up = (walk == "all-up" or (walk == "even-up" and i % 2 == 0)
                  or (walk == "odd-up" and i % 2 == 1))
            n = steps[m]
            for s in range(n):
                kt = s if up else n - 1 - s
                seq.append((i, m, pair, kt, s == n - 1))
        seqs.append(seq)
    # per CTA state
    data_t = [[None] * len(seqs[c]) for c in range(CTAS)]
    heap = []
    # Producer requests: (time, order, cta, index). The first `stages` go at 0; Q of tile 0 at 0.
    q_ready = [dict() for _ in range(CTAS)]
    order = 0
    for c in range(CTAS):
        if tiles[c]:
            heapq.heappush(heap, (0.0, order, "q", c, 0)); order += 1
        for k in range(min(STAGES[D], len(seqs[c]))):
            heapq.heappush(heap, (0.0, order, "kv", c, k)); order += 1
    # Consumer progress per CTA: next step index, time free.
    nxt = [0] * CTAS
    cfree = [0.0] * CTAS
    end = 0.0

    now = [0.0]

    def push(t, kind, c, k):
        nonlocal order
        heapq.heappush(heap, (max(t, now[0]), order, kind, c, k))
        order += 1

    def try_consume(c):
        nonlocal end
        while nxt[c] < len(seqs[c]) and data_t[c][nxt[c]] is not None:
            k = nxt[c]
            i, m, pair, kt, last = seqs[c][k]
            first = k == 0 or seqs[c][k - 1][0] != i
            if first and i not in q_ready[c]:
                return
            t0 = cfree[c]
            if first:
                t0 = max(t0, q_ready[c][i])
            t0b = max(t0, data_t[c][k])
            state["stall"] += t0b - t0
            cost = max(0.5, 1 + jitter * rng.gauss(0, 1)) if jitter else 1.0
            t1 = t0b + cost
            if last:
                push(t1, "w", c, 0)
                t1 += OVERHEAD[D]
                # the next tile's Q: requested at this tile's last step
                if i + 1 < len(tiles[c]):
                    push(t0b, "q", c, i + 1)
            cfree[c] = t1
            end = max(end, t1)
            nxt[c] = k + 1
            if k + STAGES[D] < len(seqs[c]):
                push(t1 - (OVERHEAD[D] if last else 0), "kv", c, k + STAGES[D])

    while heap:
        t, _, kind, c, k = heapq.heappop(heap)
        now[0] = t
        if kind == "w":
            write(q_bytes, t)
            continue
        if kind == "q":
            m, pair = tiles[c][k]
            q_ready[c][k] = fetch((pair, "q", m), q_bytes, t)
        else:
            i, m, pair, kt, last = seqs[c][k]
            keys = min(block_n, N - kt * block_n)
            data_t[c][k] = fetch((pair, "kv", kt), 2 * keys * D * ELEMENT_BYTES, t)
        try_consume(c)
    for c in range(CTAS):
        try_consume(c)
        assert nxt[c] == len(seqs[c]), (c, nxt[c], len(seqs[c]))
    return end, (state["read"] - state["first"]) / 1e6, state["stall"] / CTAS


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dims", default="64")
    p.add_argument("--seqlens", default="512,1024")
    p.add_argument("--walks", default="down,even-up,odd-up,all-up")
    p.add_argument("--bw", default="3.5,4.5", help="DRAM MB per step (3 TB/s x 1.2-1.5 us)")
    p.add_argument("--l2-mb", default="30")
    p.add_argument("--lat-miss", type=float, default=0.5)
    p.add_argument("--lat-hit", type=float, default=0.15)
    p.add_argument("--jitter", type=float, default=0.15)
    p.add_argument("--seeds", type=int, default=6)
    a = p.parse_args()
    print(f"bandwidth model: 132 CTAs, miss latency {a.lat_miss} / hit {a.lat_hit} step, jitter "
          f"{a.jitter} ({a.seeds} seeds); cells per (bw MB/step, L2 MB)")
    print("| D | N | walk | bw | L2 | span (steps) | down / walk | extra K/V MB | load stall / CTA |")
    print("|---" * 9 + "|")
    for D in map(int, a.dims.split(",")):
        for N in map(int, a.seqlens.split(",")):
            for bw in map(float, a.bw.split(",")):
                for l2 in map(float, a.l2_mb.split(",")):
                    base = None
                    for walk in a.walks.split(","):
                        runs = [simulate(D, N, walk, bw, l2, a.lat_miss, a.lat_hit, a.jitter, s)
                                for s in range(a.seeds)]
                        span, extra, stall = (statistics.mean(r[j] for r in runs) for j in range(3))
                        base = base or span
                        print(f"| {D} | {N} | {walk} | {bw} | {l2:.0f} | {span:.1f} | "
                              f"{base / span:.3f} | {extra:.1f} | {stall:.1f} |", flush=True)


if __name__ == "__main__":
    main()
