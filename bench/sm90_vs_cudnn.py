#!/usr/bin/env python3
"""The Hopper forward kernels (cuda_sm90) checked and timed beside PyTorch's SDPA in one process.

  python3 bench/sm90_vs_cudnn.py --lib [NAME=]build-sm90sa/libsm90shim.so [--lib ...] [--check]
                                 [--bench] [--small]

Several --lib (builds of different kernel variants) are checked and timed side by side; the
first one is "ours" in the summary.

--check  odd shapes, masks, GQA, strided layouts and padded head dims against an fp32 reference
         computed by torch on the GPU (relative error; outputs poisoned with NaN first; the padding
         of a row-padded output must stay untouched).
--bench  the TARGETS.md sweep: bf16, B*N = 16384, H*D = 2048, D in {64, 128, 256},
         N in {512 .. 16k}, causal and not; TFLOP/s of ours, SDPA cudnn and SDPA flash, timed with
         CUDA events (median; the order of the contestants rotates from point to point), plus the
         bf16 GEMM ceiling (8192^3) measured in the same run.
--small  only a few tiny shapes (for compute-sanitizer runs).
--window=LEFT,RIGHT  with --bench: every point with that sliding window (flash_attn's
         bottom-right-aligned (left, right); -1 = unbounded side; a causal point forces right = 0).
         TFLOP/s count the visible scores only. SDPA's cuDNN and flash backends take no sliding
         window, so only the --lib builds are timed (the cudnn and flash columns read nan).
The kernels are called through bench/sm90_shim.cu (ctypes), i.e. exactly the launch templates the
library's cuda_sm90 backend runs.
"""

import argparse
import ctypes
import functools
import contextlib
import math
import sys

import torch

import kernel_bench_common as common
from kernel_bench_common import (DTYPES, ERROR_BYTES, LSE_TOLERANCE, TOLERANCE,
                                 int_list, make, mask_name, mask_of)

time_ms = functools.partial(common.time_ms, reps=10, inner=10, warmup=3)
# GPU cycles of torch.cuda._sleep queued before each timed batch (--prefill): while the GPU sleeps
# the host enqueues the whole batch, so no contestant's first launch latency is timed.
PREFILL_CYCLES = 4_000_000


def power_probe(lib, point, seconds):
    """Runs ours, then SDPA's cuDNN backend, back to back for `seconds` each at one sweep point
    while nvidia-smi samples the SM clock and the board power every 50 ms; prints each phase's
    mean clock, power and TFLOP/s (is one kernel held at lower clocks by the power limit?)."""
    import subprocess
    import time
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    D, N, causal = point
    B, H = 16384 // N, 2048 // D
    q, k, v = make_qkv("bf16", B, N, N, H, H, D, "bshd", torch.Generator(device="cuda"))
    out, lse = torch.empty_like(q), torch.empty(B, H, N, device="cuda", dtype=torch.float32)
    qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
    flops = 4 * B * H * N * N * D / (2 if causal else 1)
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw",
                            "--format=csv,noheader,nounits", "-lms", "50"],
                           stdout=subprocess.PIPE, text=True)
    phases = []

    def run(name, fn):
        fn()
        torch.cuda.synchronize()
        start = time.time()
        calls = 0
        while time.time() - start < seconds:
            for _ in range(20):
                fn()
            torch.cuda.synchronize()
            calls += 20
        end = time.time()
        phases.append((name, start, end, flops * calls / (end - start) / 1e12))
        time.sleep(0.5)

    time.sleep(0.5)
    run("ours", lambda: lib.forward(q, k, v, out, lse, "bf16", 1.0 / math.sqrt(D), bool(causal)))
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        run("cudnn", lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=bool(causal)))
    smi.terminate()
    from datetime import datetime
    samples = []
    for line in smi.stdout.read().splitlines():
        try:
            stamp, clock, power = (x.strip() for x in line.split(","))
            when = datetime.strptime(stamp, "%Y/%m/%d %H:%M:%S.%f").timestamp()
            samples.append((when, float(clock), float(power)))
        except ValueError:
            continue
    for name, start, end, tflops in phases:
        inside = [(c, p) for t, c, p in samples if start + 0.3 < t < end]
        if inside:
            clock = sum(c for c, _ in inside) / len(inside)
            power = sum(p for _, p in inside) / len(inside)
            print(f"power {name} D={D} N={N} causal={causal}: {tflops:.0f} TFLOP/s, SM clock "
                  f"{clock:.0f} MHz, board power {power:.0f} W ({len(inside)} samples)")
        else:
            print(f"power {name}: no nvidia-smi sample inside the phase ({len(samples)} in all)")


class Sm90:
    def __init__(self, path):
        self.lib = common.load_forward_shim(path)
        self.fn = self.lib.fattn_sm90_forward
        self.error = ctypes.create_string_buffer(ERROR_BYTES)

    def forward(self, q, k, v, out, lse, dtype, scale, causal=False, left=-1, right=-1):
        common.call_forward(self.fn, self.error, q, k, v, out, lse, dtype, scale, causal, left,
                            right)


def reference(q, k, v, scale, causal, left, right):
    """fp32 attention with flash_attn's bottom-right-aligned masks; fully masked rows give 0, -inf."""
    B, Nq, Hq, D = q.shape
    Nk, Hkv = k.shape[1], k.shape[2]
    group = Hq // Hkv
    qf = q.float().permute(0, 2, 1, 3)
    kf = k.float().permute(0, 2, 1, 3).repeat_interleave(group, dim=1)
    vf = v.float().permute(0, 2, 1, 3).repeat_interleave(group, dim=1)
    s = torch.matmul(qf, kf.transpose(-1, -2)) * scale
    masked = mask_of(Nq, Nk, causal, left, right, q.device)
    s = s.masked_fill(masked, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None].where(torch.isfinite(lse[..., None]), torch.zeros_like(lse[..., None])))
    p = p.masked_fill(masked, 0.0)
    out = torch.matmul(p, vf).permute(0, 2, 1, 3)
    return out, lse


def make_qkv(dtype, B, Nq, Nk, Hq, Hkv, D, layout, gen):
    """Random q, k, v in one layout (see kernel_bench_common.make)."""
    return (make(dtype, B, Nq, Hq, D, layout, gen), make(dtype, B, Nk, Hkv, D, layout, gen),
            make(dtype, B, Nk, Hkv, D, layout, gen))


def rel_err(a, b):
    a, b = a.double(), b.double()
    if not torch.isfinite(a).all():
        return float("inf")
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


CHECK_CASES = [
    # dtype, B, Nq, Nk, Hq, Hkv, D, causal, left, right, layout
    ("bf16", 2, 256, 256, 4, 4, 64, False, -1, -1, "bshd"),
    ("fp16", 2, 256, 256, 4, 4, 128, False, -1, -1, "bshd"),
    ("bf16", 2, 256, 256, 4, 4, 128, True, -1, -1, "bshd"),
    ("fp16", 1, 1013, 1013, 2, 2, 128, True, -1, -1, "bshd"),
    ("bf16", 1, 17, 1013, 4, 2, 64, True, -1, -1, "bshd"),
    ("bf16", 1, 1013, 17, 4, 4, 128, True, -1, -1, "bshd"),
    ("fp16", 1, 300, 500, 2, 1, 256, False, 32, 8, "bshd"),
    ("bf16", 1, 1, 1013, 2, 2, 192, False, -1, -1, "bshd"),
    ("bf16", 1, 1013, 1, 2, 2, 64, False, -1, -1, "bshd"),
    ("bf16", 2, 4096, 4096, 2, 2, 128, True, -1, -1, "bshd"),
    ("fp16", 1, 1000, 1000, 2, 2, 72, False, -1, -1, "bshd"),
    ("bf16", 1, 512, 512, 2, 2, 96, True, -1, -1, "bshd"),
    ("bf16", 1, 257, 257, 2, 2, 200, True, -1, -1, "bshd"),
    ("bf16", 1, 333, 333, 2, 2, 256, True, -1, -1, "bshd"),
    ("fp16", 2, 700, 900, 4, 2, 128, False, -1, -1, "bhsd"),
    ("bf16", 1, 700, 700, 2, 2, 129, True, -1, -1, "pad"),
    ("bf16", 1, 640, 640, 2, 2, 8, False, -1, -1, "bshd"),
    ("fp16", 1, 512, 512, 2, 2, 64, False, 0, 0, "bshd"),
    ("bf16", 1, 1000, 600, 8, 1, 64, False, 100, -1, "bshd"),
    ("fp16", 2, 100, 0, 2, 2, 64, False, -1, -1, "bshd"),
    ("bf16", 1, 2048, 2048, 2, 2, 256, False, -1, -1, "bshd"),
    ("fp16", 1, 2048, 2048, 2, 2, 64, True, -1, -1, "bshd"),
    # The first key tile's coverage (tile_config.hpp, first_tile_coverage): windows whose right
    # edge cuts the first tile, and more queries than keys (consumers that see nothing of it).
    ("bf16", 1, 300, 500, 2, 2, 128, False, 48, 16, "bshd"),
    ("bf16", 1, 333, 77, 2, 1, 112, True, -1, -1, "bshd"),
    ("fp16", 1, 450, 450, 2, 2, 64, False, 70, 20, "bshd"),
]
SMALL_CASES = [CHECK_CASES[i] for i in (0, 2, 4, 5, 6, 7, 15, 19)]


def check(sm90, cases):
    gen = torch.Generator(device="cuda")
    failures = 0
    rows = []
    for n, (dtype, B, Nq, Nk, Hq, Hkv, D, causal, left, right, layout) in enumerate(cases):
        gen.manual_seed(1000 + n)
        q, k, v = make_qkv(dtype, B, Nq, Nk, Hq, Hkv, D, layout, gen)
        # Padded output rows stay 16-byte aligned (the selector sends only such outputs to
        # cuda_sm90: its epilogue stores O by TMA), with at least 8 padding elements.
        out_storage = torch.full((B, Nq, Hq, (D + 7) // 8 * 8 + 8), float("nan"), device="cuda",
                                 dtype=DTYPES[dtype][0])
        out = out_storage[..., :D] if layout == "pad" else torch.full(
            (B, Nq, Hq, D), float("nan"), device="cuda", dtype=DTYPES[dtype][0])
        lse = torch.full((B, Hq, Nq), float("nan"), device="cuda", dtype=torch.float32)
        scale = 1.0 / math.sqrt(D)
        sm90.forward(q, k, v, out, lse, dtype, scale, causal, left, right)
        torch.cuda.synchronize()
        ref_out, ref_lse = reference(q, k, v, scale, causal, left, right)
        err = rel_err(out, ref_out) if ref_out.numel() and ref_out.norm() > 0 else (
            0.0 if (out == 0).all() else float("inf"))
        finite = torch.isfinite(ref_lse)
        lse_ok = bool((lse[~finite] == float("-inf")).all()) and not torch.isnan(lse).any()
        lse_err = rel_err(lse[finite], ref_lse[finite]) if finite.any() else 0.0
        pad_ok = layout != "pad" or bool(torch.isnan(out_storage[..., D:]).all())
        ok = err < TOLERANCE[dtype] and lse_ok and lse_err < LSE_TOLERANCE and pad_ok
        failures += not ok
        mask = mask_name(causal, left, right)
        rows.append(dict(dtype=dtype, B=B, Nq=Nq, Nk=Nk, Hq=Hq, Hkv=Hkv, D=D, mask=mask,
                         layout=layout, out_rel_err=err, lse_rel_err=lse_err, ok=ok))
        print(f"{'PASS' if ok else 'FAIL'} {dtype} B={B} Nq={Nq} Nk={Nk} Hq={Hq} Hkv={Hkv} D={D} "
              f"{mask} {layout}: out err {err:.2e}, lse err {lse_err:.2e}"
              f"{'' if lse_ok else ', lse -inf/NaN wrong'}{'' if pad_ok else ', padding written'}",
              flush=True)
    print(f"check: {len(cases) - failures}/{len(cases)} passed", flush=True)
    return failures, rows


def gemm_ceiling():
    return common.gemm_ceiling(time_ms, reps=20)


def outputs_equal_to_first(libs, names, q, k, v, dtype, scale, causal, left=-1, right=-1):
    """{name: whether its out and lse are bitwise equal to the first lib's} at one sweep point,
    each into fresh NaN-filled buffers: builds that differ only in which CTA takes which tile
    (scheduler groups) must agree bit for bit."""
    results = []
    for name in names:
        out = torch.full(q.shape, float("nan"), device="cuda", dtype=q.dtype)
        lse = torch.full((q.shape[0], q.shape[2], q.shape[1]), float("nan"), device="cuda",
                         dtype=torch.float32)
        libs[name].forward(q, k, v, out, lse, dtype, scale, causal, left, right)
        results.append((out, lse))
    torch.cuda.synchronize()
    first_out, first_lse = results[0]
    return {name: bool(torch.equal(out, first_out) and torch.equal(lse, first_lse))
            for name, (out, lse) in zip(names[1:], results[1:])}


def bench(libs, dims, seqlens, dtype="bf16", shape=None, causals=(False, True), layout="bshd",
          prefill=False, flash=True, rounds=10, points=None, same_outputs=False, window=None):
    """The sweep: B·N = 16384 and H·D = 2048 (TARGETS.md), or a fixed (B, H) from `shape` (the
    odd-head-dim comparison: every D at the same B, H, N). `points` [(D, N, causal)] replaces
    dims x seqlens x causals; `same_outputs` also checks every lib's outputs against the first
    lib's, bit for bit (outputs_equal_to_first). `window` (left, right): every point with that
    sliding window; the SDPA contestants are left out (they take no sliding window)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    results = []
    ceiling = gemm_ceiling()
    print(f"bf16 GEMM 8192^3: {ceiling:.0f} TFLOP/s", flush=True)
    names = list(libs)
    if points is None:
        points = [(D, N, causal) for D in dims for N in seqlens for causal in causals]
    for D, N, causal in points:
        B, H = shape if shape else (16384 // N, 2048 // D)
        gen = torch.Generator(device="cuda")
        gen.manual_seed(N + D)
        q, k, v = make_qkv(dtype, B, N, N, H, H, D, layout, gen)
        out = torch.empty(B, N, H, D, device="cuda", dtype=q.dtype)
        lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
        scale = 1.0 / math.sqrt(D)
        qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
        flops = 4 * B * H * N * N * D / (2 if causal else 1)
        left, right = window if window else (-1, -1)
        row = dict(D=D, N=N, B=B, H=H, causal=causal, dtype=dtype, layout=layout)
        if window:
            visible = N * N - int(mask_of(N, N, causal, left, right, "cuda").sum())
            flops = 4 * B * H * visible * D
            row.update(left=left, right=right)

        def ours(lib):
            return lambda: lib.forward(q, k, v, out, lse, dtype, scale, causal, left, right)

        def sdpa():
            F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)

        # (name, call, SDPA backend to force or None)
        contestants = [(name, ours(libs[name]), None) for name in names] + [
            ("cudnn", sdpa, SDPBackend.CUDNN_ATTENTION),
            ("flash", sdpa, SDPBackend.FLASH_ATTENTION)][:None if flash else -1]
        if window:
            contestants = contestants[:len(names)]
            row["cudnn"] = float("nan")
        if not flash or window:
            row["flash"] = float("nan")
        runnable = []
        for name, fn, backend in contestants:
            context = (lambda b=backend: sdpa_kernel(b)) if backend is not None else None
            try:
                with (context() if context else contextlib.nullcontext()):
                    fn()
                runnable.append((name, fn, context))
            except RuntimeError as e:
                row[name] = float("nan")
                print(f"  {name} failed: {e}", flush=True)
        if not runnable:
            # Every contestant refused the point (e.g. D = 249 packed: its phases need more
            # than the 256 bucket's columns, and cuDNN wants aligned head dims): nothing to time.
            print(f"D={D:3d} N={N:5d} causal={int(causal)}: no contestant runs it", flush=True)
            continue
        # All contestants in turns, the order rotating from round to round
        # (common.time_in_turns: timed one after the other, the contestant timed first at
        # a point ran measurably faster).
        medians = common.time_in_turns(runnable, reps=rounds, inner=10, warmup=3,
                                       prefill_cycles=PREFILL_CYCLES if prefill else 0)
        for name, ms in medians.items():
            row[name] = flops / ms / 1e9
        row["vs_cudnn"] = row[names[0]] / row["cudnn"]
        same = ""
        if same_outputs and len(names) > 1:
            row["same_outputs"] = outputs_equal_to_first(libs, names, q, k, v, dtype, scale,
                                                         causal, left, right)
            same = "  same outputs as " + names[0] + ": " + " ".join(
                f"{n} {'yes' if ok else 'NO'}" for n, ok in row["same_outputs"].items())
        results.append(row)
        where = f" window({left},{right})" if window else ""
        print(f"D={D:3d} N={N:5d} causal={int(causal)}{where}: " +
              "  ".join(f"{n} {row[n]:6.1f}" for n in names + ["cudnn", "flash"]) +
              f"  x{row['vs_cudnn']:.3f}{same}", flush=True)
    print("\n| D | N | causal | " + " | ".join(names) + " | cudnn | flash | "
          f"{names[0]}/cudnn | {names[0]}/GEMM |")
    print("|---" * (len(names) + 7) + "|")
    for r in results:
        print(f"| {r['D']} | {r['N']} | {'yes' if r['causal'] else 'no'} | " +
              " | ".join(f"{r[n]:.0f}" for n in names) +
              f" | {r['cudnn']:.0f} | {r['flash']:.0f} | {r['vs_cudnn']:.2f} | "
              f"{r[names[0]] / ceiling:.2f} |")
    summary = {}
    for n in names:
        ratios = [r[n] / r["cudnn"] for r in results if math.isfinite(r["cudnn"])]
        if not ratios:
            # cuDNN refused every point (packed odd head dims: its SDPA wants 8-element-aligned
            # head dims), so there is no ratio to summarise; the libs' own columns still stand.
            summary[n] = dict(geomean_vs_cudnn=float("nan"), min_vs_cudnn=float("nan"))
            print(f"{n}: no point that cudnn ran")
            continue
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        summary[n] = dict(geomean_vs_cudnn=geo, min_vs_cudnn=min(ratios))
        print(f"{n}: geometric mean vs cudnn {geo:.3f}, min {min(ratios):.3f}")
    print(f"GEMM ceiling {ceiling:.0f} TFLOP/s")
    return dict(gemm_tflops=ceiling, rows=results, summary=summary)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", action="append", required=True, help="[NAME=]path, repeatable")
    p.add_argument("--check", action="store_true")
    p.add_argument("--bench", action="store_true")
    p.add_argument("--small", action="store_true")
    p.add_argument("--dims", default="64,128,256")
    p.add_argument("--seqlens", default="512,1024,2048,4096,8192,16384")
    p.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    p.add_argument("--shape", help="B,H: fixed batch and heads instead of B*N=16k, H*D=2048")
    p.add_argument("--causal", default="0,1", help="which of non-causal (0) / causal (1) to time")
    p.add_argument("--layout", default="bshd", choices=("bshd", "pad"),
                   help="q, k, v packed or with padded rows (kernel_bench_common.make)")
    p.add_argument("--prefill", action="store_true",
                   help="fill the GPU queue before each timed batch (no launch latency timed)")
    p.add_argument("--power", help="D,N,causal,seconds: clock and power of ours vs cuDNN "
                   "(power_probe), nothing else")
    p.add_argument("--no-flash", action="store_true",
                   help="leave SDPA's flash backend out of the timing (device time)")
    p.add_argument("--rounds", type=int, default=10,
                   help="rounds of the sweep's timing: each times every contestant once, in turns")
    p.add_argument("--points", help="D,N,causal;...: these sweep points instead of "
                   "--dims x --seqlens x --causal")
    p.add_argument("--same-outputs", action="store_true",
                   help="with --bench: check each lib's outputs against the first lib's, bit "
                   "for bit, at every point (builds that differ only in tile order)")
    p.add_argument("--window", help="LEFT,RIGHT: with --bench, every point with this sliding "
                   "window (-1 = unbounded side); the libs alone are timed (SDPA takes no window)")
    p.add_argument("--json")
    p.add_argument("--profile", help="D,N,causal: run the first --lib 3 times on that sweep point "
                   "(for ncu), nothing else")
    p.add_argument("--profile-cudnn", action="store_true",
                   help="with --profile: run SDPA's cuDNN backend instead, inside the NVTX range "
                   "'cudnn_sdpa' (ncu --nvtx --nvtx-include cudnn_sdpa/)")
    a = p.parse_args()
    libs = {}
    for i, spec in enumerate(a.lib):
        name, _, path = spec.rpartition("=")
        libs[name or f"ours{i}"] = Sm90(path)
    if a.power:
        D, N, causal, seconds = int_list(a.power)
        power_probe(next(iter(libs.values())), (D, N, causal), seconds)
        return 0
    if a.profile:
        D, N, causal = int_list(a.profile)
        lib = next(iter(libs.values()))
        B, H = 16384 // N, 2048 // D
        q, k, v = make_qkv("bf16", B, N, N, H, H, D, "bshd", torch.Generator(device="cuda"))
        out, lse = torch.empty_like(q), torch.empty(B, H, N, device="cuda", dtype=torch.float32)
        if a.profile_cudnn:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            import torch.nn.functional as F
            qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
            torch.cuda.synchronize()
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                torch.cuda.nvtx.range_push("cudnn_sdpa")
                for _ in range(3):
                    F.scaled_dot_product_attention(qt, kt, vt, is_causal=bool(causal))
                torch.cuda.nvtx.range_pop()
            torch.cuda.synchronize()
            return 0
        for _ in range(3):
            lib.forward(q, k, v, out, lse, "bf16", 1.0 / math.sqrt(D), bool(causal))
        torch.cuda.synchronize()
        return 0
    report = {"device": torch.cuda.get_device_name()}
    failures = 0
    if a.check or a.small:
        report["check"] = {}
        for name, lib in libs.items():
            print(f"== {name}", flush=True)
            f, report["check"][name] = check(lib, SMALL_CASES if a.small else CHECK_CASES)
            failures += f
    if a.bench:
        report["bench"] = bench(libs, int_list(a.dims),
                                int_list(a.seqlens), a.dtype,
                                tuple(int_list(a.shape)) if a.shape else None,
                                tuple(bool(int(x)) for x in a.causal.split(",")), a.layout,
                                a.prefill, not a.no_flash, a.rounds,
                                [(D, N, bool(c)) for D, N, c in map(int_list, a.points.split(";"))]
                                if a.points else None, a.same_outputs,
                                tuple(int_list(a.window)) if a.window else None)
    return common.finish(report, a.json, failures)


if __name__ == "__main__":
    sys.exit(main())
