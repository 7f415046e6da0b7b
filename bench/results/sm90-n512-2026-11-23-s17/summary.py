#!/usr/bin/env python3
"""h17-n512: summary of call.sh (h17-d192c's summary.py, by D instead of dtype, up to four
runs: run 1 / 3 in the order cur, candidates..., run 2 / 4 reversed). Every row: TFLOP/s per
contestant and cuDNN, each candidate / cur and each contestant / cuDNN in that run; then per
point the median of the per-run ratios and the geomeans. Reads <dir>/run<i>.json or, where a run
was cut off, its .log lines.
  python3 summary.py <work dir> cur,pf,pfs > summary.md"""
import os
import statistics
import sys

sys.path.insert(0, "bench")
import sm90_candidates_summary as shared  # noqa: E402

W, names = sys.argv[1], sys.argv[2].split(",")
RUNS = ("run1", "run2", "run3", "run4")


def rows(run):
    return shared.rows_of(os.path.join(W, run))


gmean = shared.gmean


per_point = {}
print("| D | N | causal | run | " + " | ".join(names) + " | cudnn | " +
      " | ".join(f"{n}/cur" for n in names[1:]) + " | " +
      " | ".join(f"{n}/cudnn" for n in names) + " | bitwise = first lib (run 1) |")
print("|---" * (5 + 3 * len(names)) + "|")
for run in RUNS:
    for r in rows(run):
        cu = r.get("cudnn", float("nan"))
        cur = r.get(names[0], float("nan"))
        key = (r["D"], r["N"], int(r["causal"]))
        d = per_point.setdefault(key, {"rel": {n: [] for n in names[1:]},
                                       "cudnn": {n: [] for n in names}})
        for n in names[1:]:
            d["rel"][n].append(r.get(n, float("nan")) / cur)
        for n in names:
            d["cudnn"][n].append(r.get(n, float("nan")) / cu)
        same = r.get("same_outputs", {})
        print(f"| {r['D']} | {r['N']} | {int(r['causal'])} | {run} | " +
              " | ".join(f"{r.get(n, float('nan')):.1f}" for n in names) + f" | {cu:.1f} | " +
              " | ".join(f"{r.get(n, float('nan')) / cur:.3f}" for n in names[1:]) + " | " +
              " | ".join(f"{r.get(n, float('nan')) / cu:.3f}" for n in names) + " | " +
              " ".join(f"{n}:{'=' if ok else 'x'}" for n, ok in same.items()) + " |")
print()
print("Per point: candidate / cur, every run and the median; contestant / cuDNN, median")
print()
print("| D | N | causal | " + " | ".join(f"{n}/cur (runs; median)" for n in names[1:]) + " | " +
      " | ".join(f"{n}/cudnn" for n in names) + " |")
print("|---" * (3 + 2 * len(names) - 1) + "|")
for (D, N, causal), d in sorted(per_point.items()):
    rel = [" / ".join(f"{x:.3f}" for x in d["rel"][n]) + f" ({statistics.median(d['rel'][n]):.3f})"
           for n in names[1:]]
    print(f"| {D} | {N} | {causal} | " + " | ".join(rel) + " | " +
          " | ".join(f"{statistics.median(d['cudnn'][n]):.3f}" for n in names) + " |")
print()
for n in names[1:]:
    for label, sel in (("causal N <= 1k, D 128/256 (changed)",
                        lambda k: k[2] == 1 and k[1] <= 1024 and k[0] in (128, 256)),
                       ("controls (same kernels or prefetch off)",
                        lambda k: not (k[2] == 1 and k[1] <= 1024 and k[0] in (128, 256)))):
        xs = [x for k, d in per_point.items() if sel(k) for x in d["rel"][n]]
        print(f"- {n}/cur geomean, {label}: {gmean(xs):.3f} ({len(xs)} samples; "
              f"min {min(xs, default=float('nan')):.3f}, max {max(xs, default=float('nan')):.3f})")
