#!/usr/bin/env python3
"""The Hopper forward at several scheduler group sizes, timed in turns beside cuDNN in one process.

  python3 bench/sm90_group_scan.py --lib DIR/libsm90shim.so --points 'D,N,causal[,B,H];...'
                                   [--groups 0,1,2,4,8] [--runs 2] [--rounds 10] [--dtype bf16]
  python3 bench/sm90_group_scan.py --lib ... --profile D,N,causal,GROUP[,B,H]   (under ncu: one
                                   NVTX range 'ours' around two launches at that group size)

The shim comes from bench/sm90_group_scan_build.sh: a copy of the library whose launch takes its
(batch, head) pairs per group (params.heads_per_group, tile_scheduler.hpp) from
fattn_bench_set_heads_per_group; group 0 is the library's own rule. Shape per point as the
TARGETS.md sweep: B·N = 16384, H·D = 2048 (H rounded down for head dims that do not divide 2048),
unless the point names B and H. Causal points only where groups other than 0 are asked for: the
unmasked kernels decode their tiles as one-pair groups.
Every group size's out and lse must equal the rule's bit for bit (only which CTA takes which tile
changes); a point where one does not is reported and the script exits with status 1.
"""

import argparse
import ctypes
import math
import sys

import torch

import kernel_bench_common as common
from sm90_vs_cudnn import PREFILL_CYCLES, Sm90, make_qkv


def parse_points(text):
    """'D,N,causal[,B,H];...' -> [(D, N, causal, B or None, H or None)]."""
    points = []
    for item in text.split(";"):
        if item.strip():
            values = [int(x) for x in item.split(",")]
            D, N, causal = values[:3]
            B, H = values[3:5] if len(values) == 5 else (None, None)
            points.append((D, N, bool(causal), B, H))
    return points


def problem(D, N, causal, dtype, seed, B=None, H=None):
    if B is None:
        B, H = 16384 // N, max(1, 2048 // D)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    q, k, v = make_qkv(dtype, B, N, N, H, H, D, "bshd", gen)
    flops = 4 * B * H * N * N * D / (2 if causal else 1)
    return B, H, q, k, v, flops


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--lib", required=True)
    p.add_argument("--points", default="")
    p.add_argument("--groups", default="0,1,2,4,8")
    p.add_argument("--dtype", default="bf16")
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--profile", default="")
    a = p.parse_args()
    lib = Sm90(a.lib)
    set_group = lib.lib.fattn_bench_set_heads_per_group
    set_group.argtypes = [ctypes.c_int]

    if a.profile:
        values = [int(x) for x in a.profile.split(",")]
        D, N, causal, group = values[:4]
        B, H, q, k, v, _ = problem(D, N, bool(causal), a.dtype, N + D, *values[4:6])
        out = torch.empty_like(q)
        lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
        set_group(group)
        lib.forward(q, k, v, out, lse, a.dtype, 1.0 / math.sqrt(D), bool(causal))
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("ours")
        for _ in range(2):
            lib.forward(q, k, v, out, lse, a.dtype, 1.0 / math.sqrt(D), bool(causal))
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        return 0

    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    groups = common.int_list(a.groups)
    failures = 0
    rows = []
    for D, N, causal, B, H in parse_points(a.points):
        if not causal and groups != [0]:
            # Unmasked launches decode tiles as one-pair groups (forward_kernel.cuh decode_tile):
            # an override there would decode wrong tiles.
            print(f"D={D} N={N}: non-causal points take group 0 (the rule) only", flush=True)
            continue
        B, H, q, k, v, flops = problem(D, N, causal, a.dtype, N + D, B, H)
        scale = 1.0 / math.sqrt(D)
        outs = {}
        for g in groups:
            out = torch.full(q.shape, float("nan"), device="cuda", dtype=q.dtype)
            lse = torch.full((B, H, N), float("nan"), device="cuda", dtype=torch.float32)
            set_group(g)
            lib.forward(q, k, v, out, lse, a.dtype, scale, causal)
            outs[g] = (out, lse)
        torch.cuda.synchronize()
        same = {g: bool(torch.equal(outs[g][0], outs[groups[0]][0]) and
                        torch.equal(outs[g][1], outs[groups[0]][1])) for g in groups}
        if not all(same.values()):
            failures += 1
        out, lse = outs[groups[0]]

        def ours(g):
            def call():
                set_group(g)
                lib.forward(q, k, v, out, lse, a.dtype, scale, causal)
            return call

        qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
        contestants = [(f"g{g}", ours(g), None) for g in groups]
        try:
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
            contestants.append(("cudnn", lambda: F.scaled_dot_product_attention(
                qt, kt, vt, is_causal=causal), lambda: sdpa_kernel(SDPBackend.CUDNN_ATTENTION)))
        except RuntimeError:
            pass
        tflops, per_run = common.tflops_in_turns(contestants, flops, a.runs, a.rounds,
                                                 prefill_cycles=PREFILL_CYCLES)
        spread = {n: (max(r[n] for r in per_run) - min(r[n] for r in per_run)) / tflops[n]
                  for n in tflops}
        rows.append((D, N, causal, B, H, tflops, same, spread))
        best = max((n for n in tflops if n != "cudnn"), key=lambda n: tflops[n])
        print(f"D={D} N={N} causal={int(causal)} B={B} H={H}: " +
              "  ".join(f"{n} {t:.0f}" for n, t in tflops.items()) +
              f"  best {best}" + ("" if all(same.values()) else
                                  "  OUTPUTS DIFFER: " + str(same)), flush=True)
    names = [f"g{g}" for g in groups]
    print("\n| D | N | causal | " + " | ".join(names) + " | cudnn | best / g0 | max spread |")
    print("| --- " * (len(names) + 6) + "|")
    for D, N, causal, B, H, tflops, same, spread in rows:
        best = max(tflops[n] for n in names)
        print(f"| {D} | {N} | {'yes' if causal else 'no'} | " +
              " | ".join(f"{tflops[n]:.0f}" for n in names) +
              f" | {tflops.get('cudnn', float('nan')):.0f} | {best / tflops[names[0]]:.3f} | "
              f"{max(spread.values()):.3f} |")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
