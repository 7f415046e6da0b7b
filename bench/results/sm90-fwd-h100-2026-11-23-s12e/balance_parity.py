#!/usr/bin/env python3
"""h12-fwd90e (v25), after the call: balance_tail.py's D = 128 N = 512 causal model with v24's
even-round penalty (even rounds walk up, the diagonal last: their tile periods exceed the odd
rounds' by 252 / 686 / 1,312 / 1,311 clocks for 1-4 key steps; steps-n512-causal.txt), each
period split as mean +- half the difference. Prints the busiest CTAs of HEAD's order and of the
tail group.
"""
from balance_tail import MEASURED, decode, tail_first
EVEN_EXTRA = {1: 252, 2: 686, 3: 1312, 4: 1311}
G, M, P = 132, 4, 512
T = M * P
def loads(tfp):
    out = []
    for k in range(G):
        load = steps = 0
        rnd = 0
        while rnd * G < T:
            pos = rnd * G + (G - 1 - k if rnd & 1 else k)
            if pos < T:
                _, m = decode(pos, M, P, tfp)
                s = m + 1
                load += MEASURED[s] + (EVEN_EXTRA[s] if rnd % 2 == 0 else -EVEN_EXTRA[s]) / 2
                steps += s
            rnd += 1
        out.append((load, steps, k))
    return sorted(out, reverse=True)
head, tail = loads(P), loads(tail_first(T, G, M, P))
mean = sum(l for l, _, _ in head) / G
for name, ls in (("HEAD", head), ("tail", tail)):
    top = ", ".join(f"CTA {k}: {l:.0f} ({s} steps)" for l, s, k in ls[:4])
    print(f"{name}: balance {mean / ls[0][0]:.3f}; busiest {top}")
print(f"tail group's busiest CTA {100 * (1 - tail[0][0] / head[0][0]):+.1f} % shorter")
