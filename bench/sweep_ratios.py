#!/usr/bin/env python3
"""Ratios of fattn to PyTorch's SDPA backends from one bench/compare.py JSON (one call, so both
sides saw the same board and clocks): the geometric mean and range of each ratio, the points below
a threshold, and per-(D, N, causal) tables in the Markdown docs/perf-notes.md uses.

    python3 bench/sweep_ratios.py bench/results/<dir>/compare.json [--below 1.0] [--tables]

Ratios printed (only those whose two sides are in the file):
  fwd auto / cuDNN, fwd cuda_sm80 / FA2 (sdpa:flash), fwd+bwd auto / cuDNN,
  fwd+bwd cuda_sm80 / FA2, and deterministic / default fwd+bwd for cuda_sm80; and the backward
  alone (mode "bwd": the fwd+bwd time less the same backend's forward time, the deterministic
  mode's forward being the default's) for cuda_sm80 / FA2 and deterministic / default, the ratio
  issue #5's 0.85 target names.
"""
import argparse
import json
import math
from collections import defaultdict

RATIOS = [
    ("fwd", "fattn:auto", "sdpa:cudnn", "fwd auto / cuDNN"),
    ("fwd", "fattn:cuda_sm80", "sdpa:flash", "fwd cuda_sm80 / FA2"),
    ("fwd+bwd", "fattn:auto", "sdpa:cudnn", "fwd+bwd auto / cuDNN"),
    ("fwd+bwd", "fattn:cuda_sm80", "sdpa:flash", "fwd+bwd cuda_sm80 / FA2"),
    ("fwd+bwd", "fattn:cuda_sm80+deterministic", "fattn:cuda_sm80",
     "deterministic / default fwd+bwd, cuda_sm80"),
    ("bwd", "fattn:cuda_sm80", "sdpa:flash", "bwd cuda_sm80 / FA2"),
    ("bwd", "fattn:cuda_sm80+deterministic", "fattn:cuda_sm80",
     "deterministic / default bwd, cuda_sm80"),
]
DETERMINISTIC_SUFFIX = "+deterministic"  # a backend mode sharing the default's forward


def seqlen_label(n):
    return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else str(n)


def index_rows(rows):
    """(impl, mode) -> {(dtype, head_dim, seqlen, causal): tflops} over the rows that ran."""
    table = defaultdict(dict)
    for row in rows:
        if row.get("status") != "ok" or not row.get("tflops"):
            continue
        key = (row["dtype"], row["head_dim"], row["seqlen"], row["causal"])
        table[(row["impl"], row["mode"])][key] = row["tflops"]
    return table


def backward_speeds(rows):
    """(impl, "bwd") -> {point: 1 / backward ms}, the backward's time being the fwd+bwd time less
    the forward's (the deterministic mode's forward is the default's: it has no fwd rows)."""
    times = defaultdict(dict)
    for row in rows:
        if row.get("status") == "ok" and row.get("ms"):
            key = (row["dtype"], row["head_dim"], row["seqlen"], row["causal"])
            times[(row["impl"], row["mode"])][key] = row["ms"]
    speeds = defaultdict(dict)
    for (impl, mode), points in times.items():
        if mode != "fwd+bwd":
            continue
        forward = times.get((impl.removesuffix(DETERMINISTIC_SUFFIX), "fwd"), {})
        for key, ms in points.items():
            if key in forward and ms > forward[key]:
                speeds[(impl, "bwd")][key] = 1.0 / (ms - forward[key])
    return speeds


def paired_ratios(rows, ours, peer, mode):
    """{(dtype, head_dim, seqlen, causal): ours' TFLOP/s / peer's} over the points both ran in
    `mode` ("bwd": backward speeds, backward_speeds). bench/compare.py's summary uses it too."""
    table = backward_speeds(rows) if mode == "bwd" else index_rows(rows)
    mine, theirs = table.get((ours, mode), {}), table.get((peer, mode), {})
    return {key: mine[key] / theirs[key] for key in mine if key in theirs}


def geometric_mean(values):
    return math.exp(sum(math.log(value) for value in values) / len(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("compare_json")
    parser.add_argument("--below", type=float, default=1.0,
                        help="list the points whose ratio is below this (default 1.0)")
    parser.add_argument("--tables", action="store_true",
                        help="print a D x (N, causal) Markdown table per ratio and dtype")
    args = parser.parse_args()

    with open(args.compare_json) as handle:
        data = json.load(handle)
    ceilings = data.get("ceilings", {})
    if ceilings:
        print("ceilings: " + ", ".join(f"{k} {v:.3g}" for k, v in ceilings.items()))
    rows = data.get("sweep", [])

    for mode, ours, peer, title in RATIOS:
        ratios = paired_ratios(rows, ours, peer, mode)
        if not ratios:
            continue
        values = list(ratios.values())
        geomean = geometric_mean(values)
        below = sorted((v, k) for k, v in ratios.items() if v < args.below)
        print(f"\n{title}: geomean {geomean:.3f} ({min(values):.3f}-{max(values):.3f}), "
              f"{len(values)} points, {len(below)} below {args.below}")
        for value, (dtype, dim, seqlen, causal) in below:
            print(f"  {dtype} D={dim} N={seqlen}{' causal' if causal else ''}: {value:.3f}")
        if not args.tables:
            continue
        for dtype in sorted({k[0] for k in ratios}):
            columns = sorted({(k[2], k[3]) for k in ratios if k[0] == dtype})
            dims = sorted({k[1] for k in ratios if k[0] == dtype})
            labels = [seqlen_label(n) + (" c" if c else "") for n, c in columns]
            print(f"\n{title}, {dtype}:\n\n| D | " + " | ".join(labels) + " |")
            print("| --- " * (len(labels) + 1) + "|")
            for dim in dims:
                cells = []
                for seqlen, causal in columns:
                    value = ratios.get((dtype, dim, seqlen, causal))
                    cells.append("" if value is None else
                                 (f"**{value:.2f}**" if value < args.below else f"{value:.2f}"))
                print(f"| {dim} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
