# Static balance of the persistent snake schedule (tile_scheduler.hpp) for packed D = 136
# causal, N = 2048, B = 16, H = 16, 128 x 96 tiles, 132 CTAs: cost of a tile = its key steps
# + 0.5 (tile overhead). Balance = total / (CTAs * busiest CTA).
import math
def run(n, hpg, ctas=132, block_m=128, block_n=96, pairs=256):
    mb = math.ceil(n / block_m)
    total = mb * pairs
    cost = [0.0] * ctas
    for r in range(math.ceil(total / ctas)):
        for k in range(ctas):
            pos = r * ctas + (ctas - 1 - k if r & 1 else k)
            if pos >= total: continue
            g = pos // (hpg * mb); within = pos - g * hpg * mb
            left = pairs - g * hpg; pig = min(left, hpg)
            m = mb - 1 - within // pig
            keys = min((m + 1) * block_m, n)
            cost[k] += math.ceil(keys / block_n) + 0.5
    return sum(cost) / (ctas * max(cost))
for n in (2048, 4096):
    print(n, "groups of 33: %.3f" % run(n, 33), " one pair: %.3f" % run(n, 1))
