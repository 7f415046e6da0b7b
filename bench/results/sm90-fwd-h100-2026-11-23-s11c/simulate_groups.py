#!/usr/bin/env python3
"""Host simulation of the Hopper forward's persistent tile scheduler
(src/cuda/sm90/tile_scheduler.hpp) for the benchmark sweep (bf16, B·N = 16k, H·D = 2048): which scheduler group size balances the
CTAs' work and how many bytes of K/V an L2 of a given size would read from DRAM more than once.

  python3 simulate_groups.py [--dims 64,128,256] [--seqlens ...] [--l2-mb 40] [--penalty 0.0]
                             [--scan]          every group size 1..64 at each point
  python3 simulate_groups.py --calibrate       the L2 model against ncu's bytes (calibrate.txt)
  python3 simulate_groups.py --prepared        cur / m / r3 at D = 64 causal (prepared-*.txt)
  python3 simulate_groups.py --ratios          their simulated speed-ups (ratios.txt)

Model (the same as h11-fwd90b's NOTES, "what remains"):
- 132 CTAs take positions round by round in snake order (TileScheduler::position); a position is
  decoded into (query block, pair) as TileScheduler::decode does (groups of `heads_per_group`
  pairs, query blocks from the last, the group's pairs fastest).
- A tile costs its key steps plus `overhead` steps (tile boundary, epilogue); the static
  balance is total work / (CTAs · busiest CTA's work).
- DRAM: one LRU cache of `l2_mb` MB at the grain of one key tile's K and V of one pair (and one
  query tile's Q and O). Each CTA walks its tiles in time (key tiles from the last, one step
  each, as the kernel does), the accesses of all CTAs merged by time; a K/V miss costs `penalty`
  extra steps (0: time independent of the cache). Reported: K/V bytes read beyond the first
  read of each byte ("extra", MB), which ncu measured directly (h11-fwd90b call 1, D = 64 / 128
  / 256 N = 512 causal: 38 / 58 / 40 MB with the rule's groups, 18 / 0 / 8 MB with one-pair
  groups).
"""

import argparse
import collections
import heapq
import math

CTAS = 132
L2_BYTES = 50 << 20  # what cudaDevAttrL2CacheSize reports on an H100 (the rule's input)
ELEMENT_BYTES = 2
# (block_m, block_n) of each bucket's TileConfig (tile_config.hpp).
SHAPES = {64: (192, 128), 128: (128, 128), 256: (128, 80)}
# The kernels that move the last query tile's padding before row 0 (forward_kernel.cuh,
# causal_padding_first: three consumers, i.e. 192-row tiles).
PADDING_FIRST = {64}
K_BALANCE_ROUNDS = 8
K_MIN_CTAS_PER_HEAD = 4
# one_pair_groups_max_m_blocks of D = 64 in the candidate patches
M_MAX_M_BLOCKS = 6
R3_MAX_M_BLOCKS = 8


def rule_heads_per_group(l2_bytes, kv_bytes_per_pair, total_pairs, m_blocks, ctas):
    """tile_scheduler.hpp's heads_per_group for a masked launch (uneven costs)."""
    fits_l2 = max(1, l2_bytes // 2 // max(kv_bytes_per_pair, 1))
    balanced = (K_BALANCE_ROUNDS * ctas + m_blocks - 1) // max(m_blocks, 1)
    pairs = max(fits_l2, min(balanced, ctas // K_MIN_CTAS_PER_HEAD))
    whole = ctas // math.gcd(m_blocks, ctas)
    pairs = (pairs + whole - 1) // whole * whole
    return min(max(pairs, 1), max(total_pairs, 1))


def candidate_heads_per_group(name, l2_bytes, kv_bytes_per_pair, total_pairs, m_blocks, ctas):
    """The group size of a masked D = 64 launch under each prepared rule: cur = HEAD (the rule),
    m = candidate-m.patch (small_n_pairs_per_query_tile 1 up to 6 query tiles per pair), r3 =
    candidate-r3.patch (small_n_group_rounds 3 up to 8 query tiles per pair)."""
    rule = rule_heads_per_group(l2_bytes, kv_bytes_per_pair, total_pairs, m_blocks, ctas)
    if name == "m" and m_blocks <= M_MAX_M_BLOCKS:
        return min(m_blocks, max(total_pairs, 1))
    if name == "r3" and m_blocks <= R3_MAX_M_BLOCKS:
        return min(rule, 3 * (ctas // math.gcd(m_blocks, ctas)))
    return rule


def point(D, N, causal):
    """(m_blocks, pairs, steps per query block, kv bytes per pair) of one sweep point."""
    bm, bn = SHAPES[D]
    B, H = 16384 // N, 2048 // D
    m_blocks = (N + bm - 1) // bm
    offset = (m_blocks * bm - N) // 64 * 64 if (causal and D in PADDING_FIRST) else 0
    steps = []
    for m in range(m_blocks):
        row_end = min(m * bm - offset + bm, N)
        steps.append((row_end + bn - 1) // bn if causal else (N + bn - 1) // bn)
    return m_blocks, B * H, steps, 2 * N * D * ELEMENT_BYTES


def decode(position, hpg, m_blocks, total_pairs):
    group = position // (hpg * m_blocks)
    within = position - group * hpg * m_blocks
    in_group = min(hpg, total_pairs - group * hpg)
    return m_blocks - 1 - within // in_group, group * hpg + within % in_group


def cta_tiles(hpg, m_blocks, total_pairs):
    total = m_blocks * total_pairs
    tiles = [[] for _ in range(CTAS)]
    for r in range((total + CTAS - 1) // CTAS):
        for c in range(CTAS):
            p = r * CTAS + (CTAS - 1 - c if r & 1 else c)
            if p < total:
                tiles[c].append(decode(p, hpg, m_blocks, total_pairs))
    return tiles


def balance(tiles, steps, overhead):
    work = [sum(steps[m] + overhead for m, _ in t) for t in tiles]
    return sum(work) / (CTAS * max(work))


class LruL2:
    """L2 as `capacity` bytes evicted least recently used first, by key (the later models in
    ../sm90-fwd-h100-2026-11-23-s11d and -s12* use it too)."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.lines = collections.OrderedDict()
        self.used = 0

    def touch(self, key, size):
        """Records a use of `key` (`size` bytes); True if L2 still held it."""
        if key in self.lines:
            self.lines.move_to_end(key)
            return True
        self.lines[key] = size
        self.used += size
        while self.used > self.capacity:
            _, evicted = self.lines.popitem(last=False)
            self.used -= evicted
        return False


def dram(D, N, tiles, steps, l2_bytes, overhead, penalty):
    """(extra K/V MB read, span in steps) of an LRU L2 walked by the CTAs in time order."""
    bm, bn = SHAPES[D]
    kv_chunk = 2 * bn * D * ELEMENT_BYTES
    q_chunk = bm * D * ELEMENT_BYTES
    touch = LruL2(l2_bytes).touch
    read_kv = 0
    seen = set()
    first_kv = 0

    # Per CTA: (tile index, step index); step -1 = Q load, steps[m] = O store + overhead.
    heap = [(0.0, c, 0, -1) for c in range(CTAS) if tiles[c]]
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
            hit = touch(key, kv_chunk)
            if not hit:
                read_kv += kv_chunk
                if key not in seen:
                    seen.add(key)
                    first_kv += kv_chunk
            heapq.heappush(heap, (t + 1 + (0 if hit else penalty), c, i, s + 1))
        else:
            touch((pair, "o", m), q_chunk)
            t += overhead
            end = max(end, t)
            if i + 1 < len(tiles[c]):
                heapq.heappush(heap, (t, c, i + 1, -1))
    return (read_kv - first_kv) / 1e6, end


def candidates(D, N, causal):
    m_blocks, pairs, steps, kv = point(D, N, causal)
    rule = rule_heads_per_group(L2_BYTES, kv, pairs, m_blocks, CTAS) if causal else 1
    whole = CTAS // math.gcd(m_blocks, CTAS)
    named = [("rule", rule), ("1", 1), ("m", m_blocks), ("2m", 2 * m_blocks), ("4m", 4 * m_blocks),
             ("whole round", whole), ("2 whole rounds", 2 * whole)]
    seen = set()
    out = []
    for name, hpg in named:
        hpg = min(max(hpg, 1), pairs)
        if hpg not in seen:
            seen.add(hpg)
            out.append((name, hpg))
    return m_blocks, pairs, steps, kv, out


# ncu, h11-fwd90b call 1 (one launch each, N = 512 causal): K/V MB read beyond Q + K + V's
# 201 MB, with the rule's groups and with one pair per group.
MEASURED_EXTRA_MB = {(64, "rule"): 38, (64, "1"): 18, (128, "rule"): 58, (128, "1"): 0,
                     (256, "rule"): 40, (256, "1"): 8}


def calibrate(overhead):
    """The L2 model's extra K/V against the measured at N = 512 causal, for a few cache sizes and
    miss penalties: which model sizes reproduce what ncu saw."""
    print("| penalty | L2 MB | " + " | ".join(f"D={D} {g}" for D, g in MEASURED_EXTRA_MB) + " |")
    print("|---" * (len(MEASURED_EXTRA_MB) + 2) + "|")
    print("| measured | | " + " | ".join(str(v) for v in MEASURED_EXTRA_MB.values()) + " |")
    for penalty in (0.0, 0.5):
        for cap in (20, 24, 28, 32, 40):
            cells = []
            for D, group in MEASURED_EXTRA_MB:
                m_blocks, pairs, steps, kv = point(D, 512, True)
                hpg = (rule_heads_per_group(L2_BYTES, kv, pairs, m_blocks, CTAS)
                       if group == "rule" else 1)
                tiles = cta_tiles(hpg, m_blocks, pairs)
                cells.append(f"{dram(D, 512, tiles, steps, cap << 20, overhead, penalty)[0]:.0f}")
            print(f"| {penalty} | {cap} | " + " | ".join(cells) + " |", flush=True)


def predicted_ratios(seqlens, overhead):
    """Span ratios cur / rule (the simulated speed-up of each rule over HEAD) at D = 64 causal,
    for miss penalties around the one (0.2) at which one-pair groups come out even with the
    rule at N = 512, as measured (h11-fwd90b call 1: 1.000 / 0.994)."""
    print("| N | penalty | L2 MB | one pair / cur | m / cur | r3 / cur |")
    print("|---" * 6 + "|")
    for N in seqlens:
        m_blocks, pairs, steps, kv = point(64, N, True)
        groups = {name: candidate_heads_per_group(name, L2_BYTES, kv, pairs, m_blocks, CTAS)
                  for name in ("cur", "m", "r3")}
        groups["one"] = 1
        for penalty in (0.2, 0.25, 0.3):
            for cap in (24, 28, 32):
                span = {name: dram(64, N, cta_tiles(hpg, m_blocks, pairs), steps, cap << 20,
                                   overhead, penalty)[1] for name, hpg in groups.items()}
                print(f"| {N} | {penalty} | {cap} | " + " | ".join(
                    f"{span['cur'] / span[n]:.3f}" for n in ("one", "m", "r3")) + " |", flush=True)


def prepared(seqlens, overhead, penalty):
    caps = (24, 28, 32)
    print(f"D = 64 causal, overhead {overhead} steps per tile, miss penalty {penalty} steps; "
          f"extra K/V MB at an LRU L2 of {' / '.join(map(str, caps))} MB")
    print("| N | m blocks | pairs | rule | pairs/group | balance | extra K/V MB | span (steps) |")
    print("|---" * 8 + "|")
    for N in seqlens:
        m_blocks, pairs, steps, kv = point(64, N, True)
        for name in ("cur", "m", "r3"):
            hpg = candidate_heads_per_group(name, L2_BYTES, kv, pairs, m_blocks, CTAS)
            tiles = cta_tiles(hpg, m_blocks, pairs)
            runs = [dram(64, N, tiles, steps, c << 20, overhead, penalty) for c in caps]
            print(f"| {N} | {m_blocks} | {pairs} | {name} | {hpg} | "
                  f"{balance(tiles, steps, overhead):.3f} | "
                  f"{' / '.join(f'{e:.0f}' for e, _ in runs)} | "
                  f"{' / '.join(f'{t:.0f}' for _, t in runs)} |", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--l2-mb", type=float, default=40.0)
    p.add_argument("--overhead", type=float, default=1.3)
    p.add_argument("--penalty", type=float, default=0.0)
    p.add_argument("--dims", default="64,128,256")
    p.add_argument("--seqlens", default="512,1024,2048,4096")
    p.add_argument("--causal", default="1")
    p.add_argument("--scan", action="store_true", help="every group size 1..64 at each point")
    p.add_argument("--prepared", action="store_true",
                   help="the prepared rules (cur, m, r3) at D = 64 causal over --seqlens, "
                        "extra K/V at L2 models of 24 / 28 / 32 MB")
    p.add_argument("--calibrate", action="store_true",
                   help="the L2 model against ncu's extra K/V bytes at N = 512 causal")
    p.add_argument("--ratios", action="store_true",
                   help="simulated speed-ups over HEAD at D = 64 causal over --seqlens")
    a = p.parse_args()
    l2 = int(a.l2_mb * (1 << 20))
    if a.ratios:
        predicted_ratios(list(map(int, a.seqlens.split(","))), a.overhead)
        return
    if a.calibrate:
        calibrate(a.overhead)
        return
    if a.prepared:
        prepared(list(map(int, a.seqlens.split(","))), a.overhead, a.penalty)
        return
    print(f"L2 model {a.l2_mb} MiB LRU, overhead {a.overhead} steps per tile, miss penalty "
          f"{a.penalty} steps")
    print("| D | N | causal | m blocks | pairs | steps | group | pairs/group | balance | "
          "extra K/V MB | span (steps) |")
    print("|---" * 11 + "|")
    for D in map(int, a.dims.split(",")):
        for N in map(int, a.seqlens.split(",")):
            for causal in map(int, a.causal.split(",")):
                m_blocks, pairs, steps, kv, cands = candidates(D, N, bool(causal))
                if a.scan:
                    cands = [(str(h), h) for h in range(1, 65)]
                for name, hpg in cands:
                    tiles = cta_tiles(hpg, m_blocks, pairs)
                    bal = balance(tiles, steps, a.overhead)
                    extra, span = dram(D, N, tiles, steps, l2, a.overhead, a.penalty)
                    print(f"| {D} | {N} | {'yes' if causal else 'no'} | {m_blocks} | {pairs} | "
                          f"{'/'.join(map(str, steps))} | {name} | {hpg} | {bal:.3f} | "
                          f"{extra:.1f} | {span:.1f} |", flush=True)


if __name__ == "__main__":
    main()
