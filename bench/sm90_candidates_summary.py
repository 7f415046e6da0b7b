#!/usr/bin/env python3
"""Summary of a Hopper-forward candidate call (the results folders' call.sh, with shims from
bench/sm90_candidates_build.sh timed by bench/sm90_vs_cudnn.py): per (dtype, N, causal) TFLOP/s
of cur / candidates / cuDNN in each run (run 2 in reverse order), each candidate's ratio to cur and
to cuDNN, the bitwise comparison of --same-outputs where the run made one, geometric means, and
per point the geomean of the two runs. Reads <dir>/<run>-<dtype>.json (bench rows as a list or
under "rows") or, where a run was cut off, its .log lines.
  python3 bench/sm90_candidates_summary.py <work dir> cur,<candidate>,... > summary.md"""
import json
import math
import os
import re
import sys

W, names = sys.argv[1], sys.argv[2].split(",")


def rows(run, dtype):
    path = os.path.join(W, f"{run}-{dtype}")
    try:
        with open(path + ".json") as f:
            bench = json.load(f)["bench"]
            return bench["rows"] if isinstance(bench, dict) else bench
    except (OSError, KeyError, ValueError):
        pass
    out = []
    try:
        with open(path + ".log") as f:
            for line in f:
                m = re.match(r"D=\s*(\d+) N=\s*(\d+) causal=(\d): (.*?)  x[\d.]+", line)
                if m:
                    v = m.group(4).split()
                    r = dict(D=int(m.group(1)), N=int(m.group(2)), causal=m.group(3) == "1")
                    r.update((a, float(b)) for a, b in zip(v[::2], v[1::2]) if a != "same")
                    out.append(r)
    except OSError:
        pass
    return out


def gmean(xs):
    xs = [x for x in xs if x and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


ratios = {n: {"all": [], "nc": [], "c": []} for n in names[1:]}
per_point = {}
cur_cudnn = []
print("| dtype | N | causal | run | " + " | ".join(names) + " | cudnn | " +
      " | ".join(f"{n}/cur" for n in names[1:]) + " | " +
      " | ".join(f"{n}/cudnn" for n in names) + " | bitwise = cur (run 1) |")
print("|---" * (5 + 3 * len(names)) + "|")
for dtype in ("bf16", "fp16"):
    for run in ("run1", "run2"):
        for r in rows(run, dtype):
            cu = r.get("cudnn", float("nan"))
            cur = r.get(names[0], float("nan"))
            rel = [r.get(n, float("nan")) / cur for n in names[1:]]
            for n, x in zip(names[1:], rel):
                ratios[n]["all"].append(x)
                ratios[n]["c" if r["causal"] else "nc"].append(x)
            cur_cudnn.append(cur / cu)
            key = (dtype, r["N"], int(r["causal"]))
            per_point.setdefault(key, {n: [] for n in names + ["cudnn"]})
            for n in names + ["cudnn"]:
                per_point[key][n].append(r.get(n, float("nan")))
            same = r.get("same_outputs", {})
            print(f"| {dtype} | {r['N']} | {int(r['causal'])} | {run} | " +
                  " | ".join(f"{r.get(n, float('nan')):.1f}" for n in names) + f" | {cu:.1f} | " +
                  " | ".join(f"{x:.3f}" for x in rel) + " | " +
                  " | ".join(f"{r.get(n, float('nan')) / cu:.3f}" for n in names) + " | " +
                  " ".join(f"{n}:{'=' if ok else 'x'}" for n, ok in same.items()) + " |")
print()
for n, d in ratios.items():
    print(f"- {n}/cur geomean: all {gmean(d['all']):.3f}, non-causal {gmean(d['nc']):.3f}, "
          f"causal {gmean(d['c']):.3f} ({len(d['all'])} samples; min {min(d['all'], default=0):.3f},"
          f" max {max(d['all'], default=0):.3f})")
print(f"- cur/cudnn geomean {gmean(cur_cudnn):.3f}")
print()
print("Per point, geomean of the two runs: ratio to cur (and to cuDNN)")
print()
print("| dtype | N | causal | " + " | ".join(f"{n}/cur" for n in names[1:]) + " | " +
      " | ".join(f"{n}/cudnn" for n in names) + " |")
print("|---" * (3 + 2 * len(names) - 1) + "|")
for (dtype, N, causal), d in per_point.items():
    cur = gmean(d[names[0]])
    cu = gmean(d["cudnn"])
    print(f"| {dtype} | {N} | {causal} | " +
          " | ".join(f"{gmean(d[n]) / cur:.3f}" for n in names[1:]) + " | " +
          " | ".join(f"{gmean(d[n]) / cu:.3f}" for n in names) + " |")
