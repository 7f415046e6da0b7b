#!/usr/bin/env python3
"""Tile-shape variants of the Hopper backward (bench/sm90_bwd_variants.cu) checked and timed side
by side with the committed shape, SDPA cuDNN and SDPA flash, in one process on one GPU.

  python3 bench/sm90_bwd_variants.py --lib DIR/libsm90bwdvariants.so --check
  python3 bench/sm90_bwd_variants.py --lib ... --small            # sanitizer-sized checks
  python3 bench/sm90_bwd_variants.py --lib ... --bench [--head-dims 64,128] [--json out.json]
      [--forward-binary build/tests/cuda/fattn_cuda_bench] [--peers cudnn]
  python3 bench/sm90_bwd_variants.py --lib ... --profile 64,4096,0   # one run per variant (ncu)

Checks: dQ/dK/dV of every variant against an fp32 autograd reference on upcast inputs (bottom-right
causal mask, GQA by repeating K/V), outputs poisoned with NaN first, fresh random inputs per case,
odd sizes. Timing: bf16, B·N = 16384, H·D = 2048 (TARGETS.md); backward FLOPs = 2.5 × the forward's
4·B·H·N²·D (halved for causal); the median of CUDA-event-timed backward calls (fattn: preprocess,
main kernel, postprocess; SDPA: torch.autograd.grad of a saved forward). With --forward-binary,
also forward+backward TFLOP/s (3.5 × the forward's FLOPs): fattn's forward (cuda_sm90, timed by
fattn_cuda_bench in a child process, the same for every variant) plus each variant's backward,
and SDPA's forward+backward timed as one (bench/sm90_bwd_vs_cudnn.py's sdpa_times).

The variants are whatever the shim lists (its table in bench/sm90_bwd_variants.cu): each
bucket's committed row first, then any candidate shapes; --bench prints each candidate's ratio to
its bucket's first row under the table.
"""

import argparse
import ctypes
import json
import math
import re
import statistics
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from sm90_bwd_vs_cudnn import sdpa_times

TOKENS = 16384
WIDTH = 2048
BACKWARD_FACTOR = 2.5
FWD_BWD_FACTOR = 3.5
REPEATS = 15
WARMUP = 3
TOLERANCE = 2e-2  # bf16 gradients against the fp32 reference (as the other bench scripts)
ERROR_BYTES = 512
SDPA = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}

# (batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim, causal) per bucket: several query and
# key tiles, ragged ends, GQA, a single query row, head dims padded inside the bucket.
CHECK_CASES = {
    64: [(1, 1013, 1013, 2, 2, 64, False), (1, 1013, 1013, 2, 2, 64, True),
         (2, 300, 517, 4, 2, 40, True), (1, 1, 300, 2, 1, 64, False),
         (1, 17, 130, 6, 2, 64, False), (1, 17, 130, 6, 2, 64, True),
         (2, 1013, 1013, 4, 1, 64, False)],
    128: [(1, 1013, 1013, 2, 2, 128, True), (2, 300, 517, 4, 2, 96, False),
          (1, 1, 300, 2, 1, 128, False), (1, 700, 700, 2, 2, 128, False),
          (1, 17, 130, 6, 2, 128, True), (2, 1013, 1013, 4, 1, 128, False)],
    256: [(1, 1013, 1013, 2, 2, 256, True), (2, 300, 517, 4, 2, 192, False),
          (1, 1, 300, 2, 1, 256, False), (1, 17, 17, 2, 2, 256, False),
          (1, 700, 300, 4, 2, 256, True), (1, 700, 700, 2, 2, 256, False)],
}
SMALL_CASES = {64: [(1, 257, 300, 4, 2, 64, True)], 128: [(1, 257, 300, 4, 2, 128, True)],
               256: [(1, 257, 300, 4, 2, 256, True)]}


def load(path):
    lib = ctypes.CDLL(path)
    lib.fattn_sm90_bwd_variant_name.restype = ctypes.c_char_p
    lib.fattn_sm90_bwd_variant_run.argtypes = (
        [ctypes.c_int] + [ctypes.c_void_p] * 9 + [ctypes.c_int64] * 6 +
        [ctypes.POINTER(ctypes.c_int64)] * 8 +
        [ctypes.c_float, ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int])
    variants = [(i, lib.fattn_sm90_bwd_variant_name(i).decode(),
                 lib.fattn_sm90_bwd_variant_bucket(i))
                for i in range(lib.fattn_sm90_bwd_variant_count())]
    return lib, variants


def run_variant(lib, index, q, k, v, out, dout, lse, dq, dk, dv, scale, causal):
    def st(t):
        s = t.stride()
        return (ctypes.c_int64 * 3)(s[0], s[1], s[2])
    error = ctypes.create_string_buffer(ERROR_BYTES)
    B, Nq, Hq, D = q.shape
    rc = lib.fattn_sm90_bwd_variant_run(
        index, q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), dout.data_ptr(),
        lse.data_ptr(), dq.data_ptr(), dk.data_ptr(), dv.data_ptr(), B, Nq, k.shape[1], Hq,
        k.shape[2], D, st(q), st(k), st(v), st(out), st(dout), st(dq), st(dk), st(dv), scale,
        int(causal), ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), error, ERROR_BYTES)
    if rc != 0:
        raise RuntimeError(error.value.decode())


def reference(q, k, v, dout, scale, causal):
    """fp32 forward (out, lse) and gradients, bottom-right-aligned causal mask, GQA."""
    group = q.shape[2] // k.shape[2]
    q32, k32, v32 = (t.float().requires_grad_() for t in (q, k, v))
    kx, vx = (t.repeat_interleave(group, dim=2) for t in (k32, v32))
    s = torch.einsum("bqhd,bkhd->bhqk", q32, kx) * scale
    Nq, Nk = q.shape[1], k.shape[1]
    if causal:
        rows = torch.arange(Nq, device=q.device)[:, None] + (Nk - Nq)
        s = s.masked_fill(torch.arange(Nk, device=q.device)[None, :] > rows, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    # Fully masked rows (causal, Nq > Nk): softmax of all -inf is NaN; fattn's semantics are
    # out = 0 and zero gradients there.
    probabilities = torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0)
    out = torch.einsum("bhqk,bkhd->bqhd", probabilities, vx)
    out.backward(dout.float())
    return out.detach(), lse.detach().contiguous(), q32.grad, k32.grad, v32.grad


def relative_error(got, ref):
    got = got.float()
    if not torch.isfinite(got).all():
        return math.inf
    return ((got - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def check(lib, variants, cases):
    failures = 0
    for index, name, bucket in variants:
        worst = 0.0
        for case in cases[bucket]:
            B, Nq, Nk, Hq, Hkv, D, causal = case
            q = torch.randn(B, Nq, Hq, D, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(B, Nk, Hkv, D, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(B, Nk, Hkv, D, device="cuda", dtype=torch.bfloat16)
            dout = torch.randn_like(q)
            scale = 1.0 / math.sqrt(D)
            out, lse, rdq, rdk, rdv = reference(q, k, v, dout, scale, causal)
            dq, dk, dv = (torch.full_like(t, float("nan")) for t in (q, k, v))
            run_variant(lib, index, q, k, v, out.bfloat16(), dout, lse, dq, dk, dv, scale, causal)
            torch.cuda.synchronize()
            errors = [relative_error(g, r) for g, r in ((dq, rdq), (dk, rdk), (dv, rdv))]
            worst = max(worst, *errors)
            if max(errors) > TOLERANCE:
                failures += 1
                print(f"FAIL {name} {case}: dq {errors[0]:.2e} dk {errors[1]:.2e} "
                      f"dv {errors[2]:.2e}")
        print(f"check: {name}: worst relative error {worst:.2e}", flush=True)
    print(f"check: {failures} failures")
    return failures


def median_ms(fn):
    for _ in range(WARMUP):
        fn()
    samples = []
    for _ in range(REPEATS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end))
    return statistics.median(samples)


def sdpa_backward_ms(name, B, N, H, D, causal):
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    grad = torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16)
    try:
        with sdpa_kernel(SDPA[name]):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return median_ms(lambda: torch.autograd.grad(out, (q, k, v), grad, retain_graph=True))
    except RuntimeError as error:
        return str(error).splitlines()[0][:80]


def problem(B, N, H, D, causal):
    """Inputs in fattn's (B, N, H, D) layout with out/lse from SDPA flash's forward."""
    q, k, v = (torch.randn(B, N, H, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    dout = torch.randn_like(q)
    scale = 1.0 / math.sqrt(D)
    result = torch.ops.aten._scaled_dot_product_flash_attention(
        q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), 0.0, causal, False, scale=scale)
    out = result[0].transpose(1, 2)
    lse = result[1].contiguous()
    grads = tuple(torch.empty_like(t) for t in (q, k, v))
    return q, k, v, out, dout, lse, grads, scale


def fattn_forward_ms(binary, B, N, H, D, causal):
    """fattn's cuda_sm90 forward (median ms, fattn_cuda_bench), or the reason it has none."""
    command = [binary, "--backends", "cuda_sm90", "--dtype", "bf16", "--batch", str(B), "--heads",
               str(H), "--seqlen", str(N), "--head-dim", str(D), "--direction", "fwd"]
    if causal:
        command.append("--causal")
    text = subprocess.run(command, capture_output=True, text=True, timeout=120).stdout
    match = re.search(r"^cuda_sm90\s+([0-9.]+)\s", text, re.MULTILINE)
    return float(match.group(1)) if match else "no forward time"


def bench(lib, variants, head_dims, seqlens, json_path, peers, forward_binary=None, rounds=1,
          reverse=False):
    rows = []
    print(f"{torch.cuda.get_device_name()}; bf16, B*N={TOKENS}, H*D={WIDTH}; backward TFLOP/s" +
          (" (fwd+bwd TFLOP/s after the slash)" if forward_binary else ""))
    for D in head_dims:
        mine = [(i, n) for i, n, b in variants if b == D]
        print("| D | N | causal | " + " | ".join(n for _, n in mine + [(0, p) for p in peers]) +
              " |")
        print("|---" * (3 + len(mine) + len(peers)) + "|")
        for N in seqlens:
            for causal in (False, True):
                B, H = TOKENS // N, WIDTH // D
                forward = 4.0 * B * H * N * N * D / (2 if causal else 1)
                flops = BACKWARD_FACTOR * forward
                row = {"head_dim": D, "seqlen": N, "causal": causal}
                forward_ms = (fattn_forward_ms(forward_binary, B, N, H, D, causal)
                              if forward_binary else None)
                row["fattn_forward_ms"] = forward_ms
                q, k, v, out, dout, lse, (dq, dk, dv), scale = problem(B, N, H, D, causal)
                # The variants take turns, `rounds` times, so that a drift of the clocks or
                # the temperature reaches each of them alike; each keeps the median of its
                # rounds' medians.
                round_ms = {name: [] for _, name in mine}
                for _ in range(rounds):
                    for index, name in (mine[::-1] if reverse else mine):
                        if not isinstance(row.get(name, 0.0), float):
                            continue
                        try:
                            round_ms[name].append(median_ms(
                                lambda: run_variant(lib, index, q, k, v, out, dout, lse, dq, dk,
                                                    dv, scale, causal)))
                            row[name] = 0.0
                        except RuntimeError as error:
                            row[name] = f"n/a ({error})"
                for name, samples in round_ms.items():
                    if not samples or not isinstance(row[name], float):
                        continue
                    ms = statistics.median(samples)
                    row[name + " rounds_ms"] = samples
                    row[name] = flops / (ms * 1e-3) / 1e12
                    if isinstance(forward_ms, float):
                        row[name + " fwd+bwd"] = (FWD_BWD_FACTOR * forward /
                                                  ((forward_ms + ms) * 1e-3) / 1e12)
                del q, k, v, out, dout, lse, dq, dk, dv
                for name in peers:
                    ms = sdpa_backward_ms(name, B, N, H, D, causal)
                    row[name] = flops / (ms * 1e-3) / 1e12 if isinstance(ms, float) else ms
                    if forward_binary:
                        both = sdpa_times(name, B, H, N, D, causal)  # (batch, heads, seqlen, ...)
                        if isinstance(both, tuple):
                            row[name + " fwd+bwd"] = (FWD_BWD_FACTOR * forward /
                                                      (both[1] * 1e-3) / 1e12)
                rows.append(row)

                def cell(name):
                    value = row[name]
                    text = f"{value:.0f}" if isinstance(value, float) else str(value)
                    both = row.get(name + " fwd+bwd")
                    return text + (f" / {both:.0f}" if isinstance(both, float) else "")

                cells = [cell(n) for n in [n for _, n in mine] + peers]
                print(f"| {D} | {N} | {int(causal)} | " + " | ".join(cells) + " |", flush=True)
                if json_path:  # after every row: a run cut off at its limit keeps what it timed
                    with open(json_path, "w") as f:
                        json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f,
                                  indent=1)
        print_ratios_to_first([r for r in rows if r["head_dim"] == D], [n for _, n in mine])


def print_ratios_to_first(rows, names):
    """Each candidate's backward over the bucket's first variant's (the committed row), per
    shape; nothing when the bucket has one variant."""
    if len(names) < 2:
        return
    first, others = names[0], names[1:]
    print("ratio to " + first + ": " + ", ".join(others))
    for row in rows:
        base = row.get(first)
        ratios = [f"{row[n] / base:.3f}" if isinstance(row.get(n), float) and
                  isinstance(base, float) and base > 0 else "n/a" for n in others]
        print(f"  N={row['seqlen']} causal={int(row['causal'])}: " + " ".join(ratios),
              flush=True)


def profile(lib, variants, spec):
    """One backward per variant of the bucket (for ncu -k regex:backward_kernel)."""
    D, N, causal = (int(x) for x in spec.split(","))
    B, H = TOKENS // N, WIDTH // D
    q, k, v, out, dout, lse, (dq, dk, dv), scale = problem(B, N, H, D, bool(causal))
    for index, name, bucket in variants:
        if bucket == D:
            print(f"profile: variant {index} = {name}", flush=True)
            run_variant(lib, index, q, k, v, out, dout, lse, dq, dk, dv, scale, bool(causal))
    torch.cuda.synchronize()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lib", required=True)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--bench", action="store_true")
    parser.add_argument("--profile")
    parser.add_argument("--variants", help="comma-separated indices (default: all)")
    parser.add_argument("--head-dims", default="64,128")
    parser.add_argument("--seqlens", default="1024,4096,16384")
    parser.add_argument("--json")
    parser.add_argument("--no-sdpa", action="store_true", help="time fattn's variants only")
    parser.add_argument("--peers", default=",".join(SDPA),
                        help="SDPA backends to time beside the variants (cudnn,flash)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="timings per variant and shape, the variants taking turns")
    parser.add_argument("--reverse", action="store_true",
                        help="each round times the variants in reverse table order")
    parser.add_argument("--forward-binary",
                        help="fattn_cuda_bench: adds forward+backward TFLOP/s (fattn's forward)")
    args = parser.parse_args()
    torch.manual_seed(0)
    lib, variants = load(args.lib)
    if args.variants:
        keep = {int(x) for x in args.variants.split(",")}
        variants = [v for v in variants if v[0] in keep]
    failures = 0
    if args.check:
        failures += check(lib, variants, CHECK_CASES)
    if args.small:
        failures += check(lib, variants, SMALL_CASES)
    if args.bench:
        peers = [] if args.no_sdpa else [p for p in args.peers.split(",") if p]
        bench(lib, variants, [int(x) for x in args.head_dims.split(",")],
              [int(x) for x in args.seqlens.split(",")], args.json, peers, args.forward_binary,
              args.rounds, args.reverse)
    if args.profile:
        profile(lib, variants, args.profile)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
