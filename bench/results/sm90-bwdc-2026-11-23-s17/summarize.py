#!/usr/bin/env python3
"""Per point: each row's backward TFLOP/s over d128's, the geomean of the passes given (JSON of
bench/sm90_bwd_variants.py --bench), and d128 / row / cuDNN against cuDNN.
  summarize.py benchA.json [benchB.json]"""
import json, math, os, sys
passes = [json.load(open(p))["rows"] for p in sys.argv[1:] if os.path.exists(p) and os.path.getsize(p)]
passes = [rows for rows in passes if rows]
if not passes:
    sys.exit("no timing")
keys = [(r["seqlen"], r["causal"]) for r in passes[0]] if passes else []
names = ["d128"] + sorted(k for k in passes[0][0] if k.startswith("d128_") and " " not in k)
print("point | " + " | ".join(f"{n}/d128 (passes; geomean)" for n in names[1:]) + " | " +
      " | ".join(f"{n}/cudnn" for n in names))
logs = {n: [] for n in names[1:]}
for key in keys:
    rows = [next(r for r in rows if (r["seqlen"], r["causal"]) == key) for rows in passes
            if any((r["seqlen"], r["causal"]) == key for r in rows)]
    cells = []
    for n in names[1:]:
        ratios = [r[n] / r["d128"] for r in rows
                  if isinstance(r.get(n), float) and isinstance(r.get("d128"), float)]
        g = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
        if ratios: logs[n].append(math.log(g))
        cells.append(" / ".join(f"{x:.3f}" for x in ratios) + f"; {g:.3f}")
    vs = []
    for n in names:
        rs = [r[n] / r["cudnn"] for r in rows
              if isinstance(r.get(n), float) and isinstance(r.get("cudnn"), float)]
        vs.append(" / ".join(f"{x:.2f}" for x in rs))
    print(f"N={key[0]} causal={int(key[1])} | " + " | ".join(cells) + " | " + " | ".join(vs))
for n, l in logs.items():
    if l: print(f"{n}/d128 geomean over the points: {math.exp(sum(l) / len(l)):.3f}")
