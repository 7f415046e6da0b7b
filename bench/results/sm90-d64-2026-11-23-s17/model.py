#!/usr/bin/env python3
"""Desk model of the D = 64 tile shapes at the sweep's small N (bf16, B*N = 16k, H = 32):
tile counts, padding, and the critical CTA's span from v24's per-step and per-tile clocks.
  python3 model.py > model.txt
cur = 192 x 128 (three consumers, causal padding first), m128 = 128 x 128 (two consumers),
m256 = 256 x 64 (four consumers, 120 registers). Per-step cost of a candidate = cur's step
(v24: 3,049 clocks non-causal, 3,123 causal at N = 512) x (its scores / cur's scores) x e,
e = its cost per score relative to cur's. m128: e from v7 (192 over 128 at N = 16k, same code
otherwise: 1.20 non-causal, 1.10 causal). m256: unknown, swept. Fixed cost per tile: cur 2,505
/ 2,352 (v24), the others assumed (m128 2,300: a two-consumer D = 128 tile costs 2,692 / 2,823
with twice O; m256 2,800: one more consumer's epilogue in the chain). Greedy heaviest-first
deal over 132 CTAs (the snake's balance is within ~1-3 % of it, v24), plus 7,000 clocks of
launch burst on every CTA."""
import heapq

CTAS, FIRST = 132, 7000
STEP = {False: 3049, True: 3123}      # cur, 192 x 128 (v24, N = 512)
FIXED = {False: 2505, True: 2352}


def tiles(N, bm, bn, causal, padding_first):
    ntiles = -(-N // bm)
    pad = ntiles * bm - N
    off = (pad // 64 * 64) if (causal and padding_first) else 0
    out = []
    for m in range(ntiles):
        r1 = min((m + 1) * bm - off, N)
        out.append(-(-r1 // bn) if causal else -(-N // bn))
    return out, ntiles * bm


def span(N, causal, bm, bn, e, fixed, padding_first):
    steps, rows = tiles(N, bm, bn, causal, padding_first)
    heads = (16384 // N) * 32
    s = STEP[causal] * (bm * bn) / (192 * 128) * e
    costs = sorted((k * s + fixed for k in steps), reverse=True) * heads
    costs.sort(reverse=True)
    h = [0.0] * CTAS
    for c in costs:
        heapq.heapreplace(h, h[0] + c)
    busy = sum(costs) / (CTAS * max(h))
    return max(h) + FIRST, steps, rows, len(steps) * heads, busy


print("N causal | shape: tiles/head, key steps per tile, rows computed per head (padding), "
      "tiles, balance, span (Mclk), cur/shape")
for N in (512, 1024, 2048):
    for causal in (False, True):
        base = span(N, causal, 192, 128, 1.0, FIXED[causal], True)
        print(f"{N} {int(causal)} | cur: {len(base[1])} {base[1]} {base[2]} "
              f"({base[2] - N}), {base[3]}, {base[4]:.3f}, {base[0] / 1e6:.3f}")
        e128 = 1.10 if causal else 1.20
        for name, bm, bn, es, fx, pf in (("m128", 128, 128, (e128 - 0.05, e128, e128 + 0.05), 2300, False),
                                         ("m256", 256, 64, (0.9, 1.0, 1.1, 1.2), 2800, True)):
            r = [span(N, causal, bm, bn, e, fx, pf) for e in es]
            print(f"   {name}: {len(r[0][1])} {r[0][1]} {r[0][2]} ({r[0][2] - N}), {r[0][3]}, "
                  f"{r[0][4]:.3f}, " + ", ".join(f"e={e:.2f}: {x[0] / 1e6:.3f} -> {base[0] / x[0]:.3f}"
                                                 for e, x in zip(es, r)))
