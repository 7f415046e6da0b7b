#!/usr/bin/env python3
"""Forward + backward of fattn's cuda_sm90 (the Hopper backward) and cuda_sm80 beside PyTorch's
SDPA cuDNN and flash (FlashAttention-2) backends, in one run on one GPU.

  python3 bench/sm90_bwd_vs_cudnn.py --bench-binary build/tests/cuda/fattn_cuda_bench \
      [--head-dims 64,128] [--seqlens 1024,4096,16384] [--json out.json]

TARGETS.md's conventions: bf16, batch·seqlen = 16384, heads·head_dim = 2048; FLOPs forward =
4·B·H·N²·D (halved for causal), forward+backward = 3.5 × forward. fattn's times come from
fattn_cuda_bench (median of CUDA-event-timed runs, forward and backward timed separately and
added); SDPA's from CUDA events around forward and forward+backward (median of repeats; its backward
alone is their difference).
A contestant that refuses a shape is printed as n/a with its reason.
"""

import argparse
import json
import re
import statistics
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

TOKENS = 16384
WIDTH = 2048
BACKWARD_FACTOR = 2.5
FWD_BWD_FACTOR = 3.5
REPEATS = 10
WARMUP = 3
FATTN_BACKENDS = ["cuda_sm90", "cuda_sm80"]
SDPA = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}


def forward_flops(batch, heads, seqlen, head_dim, causal):
    flops = 4.0 * batch * heads * seqlen * seqlen * head_dim
    return flops / 2 if causal else flops


def fattn_times(binary, batch, heads, seqlen, head_dim, causal):
    """{backend: (fwd_ms, bwd_ms) or reason} from two fattn_cuda_bench runs."""
    times = {b: [None, None] for b in FATTN_BACKENDS}
    for slot, direction in enumerate(["fwd", "bwd"]):
        command = [binary, "--backends", ",".join(FATTN_BACKENDS), "--dtype", "bf16",
                   "--batch", str(batch), "--heads", str(heads), "--seqlen", str(seqlen),
                   "--head-dim", str(head_dim), "--direction", direction]
        if causal:
            command.append("--causal")
        text = subprocess.run(command, capture_output=True, text=True, timeout=120).stdout
        for backend in FATTN_BACKENDS:
            match = re.search(rf"^{backend}\s+([0-9.]+)\s", text, re.MULTILINE)
            refused = re.search(rf"^{backend}\s+n/a: (.*)$", text, re.MULTILINE)
            times[backend][slot] = float(match.group(1)) if match else (
                refused.group(1) if refused else "no output")
    return times


def sdpa_times(name, batch, heads, seqlen, head_dim, causal):
    """(fwd_ms, fwd+bwd_ms) of one SDPA backend, or the reason it refused."""
    shape = (batch, heads, seqlen, head_dim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    grad = torch.randn(shape, device="cuda", dtype=torch.bfloat16)

    def run(backward):
        with sdpa_kernel(SDPA[name]):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            if backward:
                out.backward(grad)

    def median_ms(backward):
        for _ in range(WARMUP):
            run(backward)
        samples = []
        for _ in range(REPEATS):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run(backward)
            end.record()
            torch.cuda.synchronize()
            samples.append(start.elapsed_time(end))
        return statistics.median(samples)

    try:
        return median_ms(False), median_ms(True)
    except RuntimeError as error:
        return str(error).splitlines()[0][:80]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-binary", required=True)
    parser.add_argument("--head-dims", default="64,128")
    parser.add_argument("--seqlens", default="1024,4096,16384")
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    print(f"{torch.cuda.get_device_name()}; bf16, B*N={TOKENS}, H*D={WIDTH}; TFLOP/s fwd+bwd "
          "(fwd / bwd alone for fattn)")
    print("| D | N | causal | sm90 fwd+bwd | sm90 bwd | sm80 fwd+bwd | sm80 bwd | cudnn fwd+bwd "
          "| cudnn bwd | flash fwd+bwd | sm90 / cudnn |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for head_dim in map(int, args.head_dims.split(",")):
        for seqlen in map(int, args.seqlens.split(",")):
            for causal in (False, True):
                batch, heads = TOKENS // seqlen, WIDTH // head_dim
                fwd = forward_flops(batch, heads, seqlen, head_dim, causal)
                row = {"head_dim": head_dim, "seqlen": seqlen, "causal": causal}
                ours = fattn_times(args.bench_binary, batch, heads, seqlen, head_dim, causal)
                for backend, (fwd_ms, bwd_ms) in ours.items():
                    if isinstance(fwd_ms, float) and isinstance(bwd_ms, float):
                        row[backend] = FWD_BWD_FACTOR * fwd / ((fwd_ms + bwd_ms) * 1e-3) / 1e12
                        row[backend + "_bwd"] = BACKWARD_FACTOR * fwd / (bwd_ms * 1e-3) / 1e12
                    else:
                        row[backend] = f"n/a ({bwd_ms if isinstance(fwd_ms, float) else fwd_ms})"
                for name in SDPA:
                    result = sdpa_times(name, batch, heads, seqlen, head_dim, causal)
                    row[name] = (FWD_BWD_FACTOR * fwd / (result[1] * 1e-3) / 1e12
                                 if isinstance(result, tuple) else f"n/a ({result})")
                    # The backward alone, as the difference of the two timed medians.
                    if isinstance(result, tuple) and result[1] > result[0]:
                        row[name + "_bwd"] = (BACKWARD_FACTOR * fwd /
                                              ((result[1] - result[0]) * 1e-3) / 1e12)
                rows.append(row)

                def cell(key):
                    value = row.get(key, "n/a")
                    return f"{value:.0f}" if isinstance(value, float) else str(value)

                ratio = (f"{row['cuda_sm90'] / row['cudnn']:.2f}"
                         if isinstance(row["cuda_sm90"], float) and isinstance(row["cudnn"], float)
                         else "n/a")
                print(f"| {head_dim} | {seqlen} | {int(causal)} | {cell('cuda_sm90')} | "
                      f"{cell('cuda_sm90_bwd')} | {cell('cuda_sm80')} | {cell('cuda_sm80_bwd')} | "
                      f"{cell('cudnn')} | {cell('cudnn_bwd')} | {cell('flash')} | {ratio} |",
                      flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
