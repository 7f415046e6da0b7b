#!/usr/bin/env python3
"""The short summary of bench/sm90_candidates_call.sh: bench/sm90_vs_cudnn.py's two JSON reports
(run 2 with the contestants in reverse order) and, where it came back, the ncu CSV of
bench/sm90_small_n_ncu.py, as one markdown page. "cur" is the baseline; every candidate is
reported against it and against cuDNN.

  python3 bench/sm90_candidates_summary.py --candidates m,r3 --title "..." <work dir> > summary.md
"""

import argparse
import csv
import json
import math
import os
import re

NCU_METRICS = {"gpu__time_duration.sum": "duration", "dram__bytes_read.sum": "DRAM read",
               "dram__bytes_write.sum": "DRAM write", "lts__t_sector_hit_rate.pct": "L2 hit %",
               "launch__grid_size": "grid"}
# ncu's -k filter in call-command.sh; the rest of the process's kernels (torch's random
# numbers, copies) are left out here too, so that the kernels line up with the launch lines.
ATTENTION_KERNELS = "forward_kernel|fprop"


def rows_from_log(path):
    """The per-point lines bench/sm90_vs_cudnn.py prints as it goes, for a run cut off before its
    JSON was written: 'D= 64 N=  512 causal=1: cur  245.1  m  250.0 ...  x0.914  same ...'."""
    rows = []
    with open(path) as f:
        for line in f:
            match = re.match(r"D=\s*(\d+) N=\s*(\d+) causal=(\d): (.*?)  x[\d.]+", line)
            if not match:
                continue
            values = match.group(4).split()
            row = dict(D=int(match.group(1)), N=int(match.group(2)), causal=match.group(3) == "1")
            row.update((name, float(value)) for name, value in zip(values[::2], values[1::2]))
            rows.append(row)
    return rows


def load_rows(path):
    try:
        with open(path) as f:
            return json.load(f)["bench"]["rows"], None
    except (OSError, KeyError, ValueError) as e:
        log = path[:-len(".json")] + ".log"
        rows = rows_from_log(log) if os.path.exists(log) else []
        return rows, f"{path}: {e}; {len(rows)} points read from its log instead"


def key(row):
    return row["D"], row["N"], bool(row["causal"])


def geomean(values):
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def bench_section(work, candidates):
    ours = ("cur", *candidates)
    runs = []
    for name in ("ab1.json", "ab2.json"):
        rows, error = load_rows(os.path.join(work, name))
        if error:
            print(f"- {error}")
        runs.append({key(r): r for r in rows})
    points = sorted(set().union(*[set(r) for r in runs]), key=lambda p: (not p[2], p[1], p[0]))
    ratio_cols = [f"{c}/cur" for c in candidates] + [f"{n}/cuDNN" for n in ours]
    print("\n| D | N | causal | " + " | ".join(ratio_cols) + " | cur TFLOP/s | same outputs |")
    print("|---" * (len(ratio_cols) + 5) + "|")
    ratios = {f"{c}/cur": [] for c in candidates}
    for point in points:
        cells = {c: [] for c in ratio_cols + ["cur", "same"]}
        for run in runs:
            row = run.get(point)
            if not row:
                for c in cells:
                    cells[c].append("-")
                continue
            for c in candidates:
                cells[f"{c}/cur"].append(f"{row[c] / row['cur']:.3f}")
            for name in ours:
                cells[f"{name}/cuDNN"].append(f"{row[name] / row['cudnn']:.3f}")
            cells["cur"].append(f"{row['cur']:.1f}")
            same = row.get("same_outputs", {})
            cells["same"].append(" ".join(f"{n} {'yes' if ok else 'NO'}" for n, ok in same.items())
                                 or "-")
            if point[2] and point[1] <= 1024:
                for c in candidates:
                    ratios[f"{c}/cur"].append(row[c] / row["cur"])
        D, N, causal = point
        print(f"| {D} | {N} | {'yes' if causal else 'no'} | " +
              " | ".join(" / ".join(cells[c]) for c in cells) + " |")
    print("\nGeomeans over the causal N <= 1k rows of both runs: " +
          ", ".join(f"{name} {geomean(v):.3f}" for name, v in ratios.items()))


def ncu_section(work):
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", help="folder with ab1.json, ab2.json and ncu.csv")
    parser.add_argument("--candidates", required=True, help="comma-separated contestant names")
    parser.add_argument("--title", required=True, help="the page's heading")
    args = parser.parse_args()
    print(f"# {args.title}\n")
    print("Ratios run 1 / run 2 (run 2: contestants in reverse order); bench/sm90_vs_cudnn.py "
          "in turns, bf16, B·N = 16k, H·D = 2048.")
    bench_section(args.work, args.candidates.split(","))
    ncu_section(args.work)


if __name__ == "__main__":
    main()
