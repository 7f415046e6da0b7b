#!/usr/bin/env python3
"""Summary of a Hopper-forward candidate call (the results folders' call.sh, with shims from
bench/sm90_candidates_build.sh timed by bench/sm90_vs_cudnn.py): per (dtype, N, causal) TFLOP/s
of cur / candidates / cuDNN in each run (run 2 in reverse order), each candidate's ratio to cur and
to cuDNN, the bitwise comparison of --same-outputs where the run made one, geometric means, and
per point the geomean of the two runs. Reads <dir>/<run>-<dtype>.json (bench rows as a list or
under "rows") or, where a run was cut off, its .log lines.
  python3 bench/sm90_candidates_summary.py <work dir> cur,<candidate>,... > summary.md"""
import csv
import json
import math
import os
import re
import sys

NCU_METRICS = {"gpu__time_duration.sum": "duration", "dram__bytes_read.sum": "DRAM read",
               "dram__bytes_write.sum": "DRAM write", "lts__t_sector_hit_rate.pct": "L2 hit %",
               "launch__grid_size": "grid"}
# The call scripts' ncu -k filter; torch's other kernels (random numbers, copies) are left out
# here too, so that the kernels line up with bench/sm90_small_n_ncu.py's launch lines.
ATTENTION_KERNELS = "forward_kernel|fprop"


def rows(W, run, dtype):
    return rows_of(os.path.join(W, f"{run}-{dtype}"))


def rows_of(path):
    """The bench rows of <path>.json, or of <path>.log's per-point lines where the run was cut
    off before its JSON was written."""
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


def summarize(W, names):
    """The per-run and per-point tables and the geomeans."""
    ratios = {n: {"all": [], "nc": [], "c": []} for n in names[1:]}
    per_point = {}
    cur_cudnn = []
    print("| dtype | N | causal | run | " + " | ".join(names) + " | cudnn | " +
          " | ".join(f"{n}/cur" for n in names[1:]) + " | " +
          " | ".join(f"{n}/cudnn" for n in names) + " | bitwise = cur (run 1) |")
    print("|---" * (5 + 3 * len(names)) + "|")
    for dtype in ("bf16", "fp16"):
        for run in ("run1", "run2"):
            for r in rows(W, run, dtype):
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


def ncu_section(work):
    """The table of <work>/ncu.csv (ncu --csv over bench/sm90_small_n_ncu.py), one row per
    attention kernel launch, labelled by the launch lines the script printed in the same order."""
    path = os.path.join(work, "ncu.csv")
    if not os.path.exists(path):
        print("\nncu: no ncu.csv")
        return
    with open(path, errors="replace") as f:
        text = f.read()
    launches = re.findall(r"^launch: (D=\d+ N=\d+ causal=\d \S+ #\d)", text, re.M)
    kernels = {}
    order = []
    for row in csv.reader(line for line in text.splitlines() if line.startswith('"')):
        if (len(row) < 15 or row[0] == "ID" or row[12] not in NCU_METRICS
                or not re.search(ATTENTION_KERNELS, row[4])):
            continue
        if row[0] not in kernels:
            kernels[row[0]] = {"name": row[4]}
            order.append(row[0])
        kernels[row[0]][NCU_METRICS[row[12]]] = f"{row[14]} {row[13]}".strip()
    print(f"\nncu ({len(order)} kernels, {len(launches)} launches printed; labels by launch "
          "order):\n")
    print("| launch | kernel | " + " | ".join(NCU_METRICS.values()) + " |")
    print("|---" * (len(NCU_METRICS) + 2) + "|")
    for i, kernel_id in enumerate(order):
        k = kernels[kernel_id]
        label = launches[i] if i < len(launches) else "?"
        short = "ours" if "forward_kernel" in k["name"] else k["name"][:60]
        print(f"| {label} | {short} | " + " | ".join(k.get(v, "-") for v in NCU_METRICS.values())
              + " |")


if __name__ == "__main__":
    summarize(sys.argv[1], sys.argv[2].split(","))
