#!/usr/bin/env python3
"""h12-fwd90d: how far the D = 128 N = 512 causal grid is from balance, with the measured CTA
tile periods by key steps (tiles-d128-n512-causal.txt, instrumented clocks). 512 (batch, head)
pairs x query tiles of 1 / 2 / 3 / 4 key steps = 2,048 tiles on 132 CTAs; the snake gives 68 CTAs
16 tiles (4 of each length, 40 steps) and 64 CTAs 15 tiles (36-39 steps). Static costs only: no
L2 / DRAM timing, no kernel start; a bound on what a different order could give.
"""
import heapq

PERIOD = {1: 6148, 2: 9312, 3: 12909, 4: 16321}  # CTA tile period by key steps (measured)
CTAS, PAIRS = 132, 512
tiles = [k for k in (1, 2, 3, 4) for _ in range(PAIRS)]
total = sum(PERIOD[k] for k in tiles)
snake_max = 4 * sum(PERIOD.values())            # the 16-tile CTAs: 4 tiles of each length
print(f"mean CTA cost {total / CTAS:.0f}; snake: max {snake_max} (balance "
      f"{total / CTAS / snake_max:.3f})")
# Longest-processing-time first, no tile-count limit: the best a free order reaches statically.
heap = [(0, c) for c in range(CTAS)]
for k in sorted(tiles, reverse=True):
    load, c = heapq.heappop(heap)
    heapq.heappush(heap, (load + PERIOD[k], c))
lpt = max(load for load, _ in heap)
print(f"LPT (heaviest first to the least loaded CTA): max {lpt} (balance {total / CTAS / lpt:.3f}); "
      f"critical CTA {100 * (1 - lpt / snake_max):.1f} % shorter than the snake's")
