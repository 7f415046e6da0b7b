#!/usr/bin/env python3
"""Summarizes an ncu source-page CSV (SourceCounters, `--page source --csv --print-source sass`)
of one kernel: stall samples by reason, by SASS opcode, and the instructions with the most
samples with their neighbours, so that two kernels (ours and cuDNN's at one sweep point) can be
compared where their warps wait.

  python3 bench/sm90_ncu_source_summary.py FILE.csv[.xz] [--top 25] [--context 2]
"""

import argparse
import collections
import csv
import io
import lzma
import re

STALL_PREFIX = "stall_"
NOT_ISSUED = " (Not Issued)"


def read_rows(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        text = f.read()
    lines = text.splitlines()
    # The first line names the kernel; the header follows.
    kernel = lines[0]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[1:]))))
    return kernel, rows


def number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def opcode(source):
    text = source.strip()
    text = re.sub(r"^@!?U?P[T0-9]+\s+", "", text)
    return text.split(" ")[0].rstrip(";") if text else "?"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("csv")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--context", type=int, default=2)
    args = p.parse_args()
    kernel, rows = read_rows(args.csv)
    reasons = [k for k in rows[0] if k.startswith(STALL_PREFIX) and not k.endswith(NOT_ISSUED)]
    samples = [number(r["Warp Stall Sampling (All Samples)"]) for r in rows]
    executed = [number(r["Instructions Executed"]) for r in rows]
    total = sum(samples)
    print(kernel[:200])
    print(f"{len(rows)} SASS instructions, {total:.0f} samples, "
          f"{sum(executed):.0f} warp instructions executed")

    by_reason = collections.Counter()
    for r in rows:
        for k in reasons:
            by_reason[k] += number(r[k])
    print("\nby stall reason (share of samples):")
    for k, v in by_reason.most_common(12):
        print(f"  {k[len(STALL_PREFIX):]:18s} {v / total:6.1%}")

    by_op = collections.defaultdict(lambda: [0.0, 0.0, collections.Counter()])
    for r, s, e in zip(rows, samples, executed):
        entry = by_op[opcode(r["Source"])]
        entry[0] += s
        entry[1] += e
        for k in reasons:
            entry[2][k] += number(r[k])
    print("\nby opcode (samples share, executed share, top reasons):")
    total_exec = sum(executed) or 1.0
    for op, (s, e, c) in sorted(by_op.items(), key=lambda x: -x[1][0])[:18]:
        top = ", ".join(f"{k[len(STALL_PREFIX):]} {v / max(s, 1):.0%}" for k, v in c.most_common(3))
        print(f"  {op:24s} {s / total:6.1%} {e / total_exec:6.1%}  {top}")

    print(f"\ntop {args.top} instructions (samples share; +/- {args.context} neighbours):")
    order = sorted(range(len(rows)), key=lambda i: -samples[i])[:args.top]
    for i in sorted(order):
        reason = max(reasons, key=lambda k: number(rows[i][k]))
        print(f"  [{i:5d}] {samples[i] / total:5.1%} {reason[len(STALL_PREFIX):]:10s} "
              f"{rows[i]['Source'].strip()[:90]}")
        for j in range(max(0, i - args.context), min(len(rows), i + args.context + 1)):
            if j != i and j not in order:
                print(f"          {samples[j] / total:5.1%}            "
                      f"{rows[j]['Source'].strip()[:90]}")


if __name__ == "__main__":
    main()
