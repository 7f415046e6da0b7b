#!/usr/bin/env python3
"""The FA2-class tensor-core kernels (cuda_sm80) checked and timed beside PyTorch's SDPA in one
process on the GPU machine.

  bench/sm80_build.sh build-sm80shim            # compiles the instances + bench/sm80_shim.cu
  python3 bench/sm80_vs_torch.py --lib build-sm80shim/libsm80shim.so --check --bench

--check  forward and backward over the head dims of issue 5 (1 .. 256, odd ones included), fp16
         and bf16, no mask / causal with Nq <, =, > Nk / window, GQA, packed (2-byte-aligned rows
         for odd D), transposed and row-padded layouts, N in {1, 17, 1013, 4096}; against an fp32
         reference computed by torch on the GPU (relative error; outputs poisoned with NaN
         first); deterministic backward run twice and compared bitwise.
--bench  bf16, B*N = 16384, H*D = 2048, D in {64, 128, 256}, N in {512 .. 16k}, causal and not:
         forward and forward+backward TFLOP/s of ours, SDPA flash (FA2) and SDPA cuDNN (CUDA
         events, median); the odd-head-dim table (fp16, B=16, H=16, N=2048) forward and
         backward; deterministic backward vs default; the bf16 GEMM ceiling in the same run.
--small  a few tiny shapes only (for compute-sanitizer runs).
--fwd-only     checks and times the forward only (no backward calls).
--turns POINTS  D,N,causal[,dtype[,B,H]];... timed in turns (kernel_bench_common.tflops_in_turns):
               the table, each --turn-variants alternative and PyTorch's flash; at non-causal
               points also the table's WindowMask kernel on a window that masks nothing beside
               its NoMask kernel (the masked kernel's code cost). Outputs checked against
               flash's (odd head dims: the table's).
--baseline LIB a second shim (e.g. built from the committed kernel) whose forward is timed beside
               --lib's in the same rows ("base_fwd"), so a kernel change is measured side by
               side with what it replaces, in one process.
The kernels are called through bench/sm80_shim.cu (ctypes), i.e. exactly the launch templates
the library's cuda_sm80 backend runs.
"""

import argparse
import ctypes
import functools
import itertools
import json
import math
import sys

import torch

import kernel_bench_common as common
from kernel_bench_common import (DTYPES, ERROR_BYTES, FORWARD_ARGTYPES, LSE_TOLERANCE,
                                 SM80_BACKWARD_ARGTYPES, TOLERANCE,
                                 int_list, make, mask_name, mask_of, strides3)

GRAD_TOLERANCE = {"fp16": 1e-2, "bf16": 4e-2}
# Fewer, shorter repetitions than sm90_vs_cudnn.py: this sweep also times forward+backward and
# the odd head dims.
time_ms = functools.partial(common.time_ms, reps=7, inner=5, warmup=2)


class Sm80:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        f = self.lib.fattn_sm80_forward
        f.argtypes = FORWARD_ARGTYPES
        f.restype = ctypes.c_int
        b = self.lib.fattn_sm80_backward
        b.argtypes = SM80_BACKWARD_ARGTYPES
        b.restype = ctypes.c_int
        self.lib.fattn_sm80_set_forward_variant.argtypes = [ctypes.c_int]
        self.lib.fattn_sm80_set_backward_variant.argtypes = [ctypes.c_int]
        self.error = ctypes.create_string_buffer(ERROR_BYTES)

    def forward(self, q, k, v, out, lse, dtype, scale, causal=False, left=-1, right=-1):
        common.call_forward(self.lib.fattn_sm80_forward, self.error, q, k, v, out, lse, dtype,
                            scale, causal, left, right)

    def backward(self, q, k, v, out, dout, lse, dq, dk, dv, dtype, scale, causal=False, left=-1,
                 right=-1, deterministic=False):
        B, Nq, Hq, D = q.shape
        strides = []
        for t in (q, k, v, out, dout, dq, dk, dv):
            strides += strides3(t)
        rc = self.lib.fattn_sm80_backward(
            q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), dout.data_ptr(),
            lse.data_ptr(), dq.data_ptr(), dk.data_ptr(), dv.data_ptr(), DTYPES[dtype][1], B, Nq,
            k.shape[1], Hq, k.shape[2], D, (ctypes.c_int64 * 24)(*strides), scale, int(causal),
            left, right, int(deterministic), torch.cuda.current_stream().cuda_stream,
            self.error, ERROR_BYTES)
        if rc:
            raise RuntimeError(self.error.value.decode())


def reference(q, k, v, dout, scale, causal, left, right):
    """fp32 attention with autograd; fully masked rows give out 0, lse -inf, zero gradients."""
    Nq, Hq = q.shape[1], q.shape[2]
    Nk, Hkv = k.shape[1], k.shape[2]
    group = Hq // Hkv
    qf = q.float().permute(0, 2, 1, 3).detach().requires_grad_()
    kf = k.float().permute(0, 2, 1, 3).detach().requires_grad_()
    vf = v.float().permute(0, 2, 1, 3).detach().requires_grad_()
    kr = kf.repeat_interleave(group, dim=1)
    vr = vf.repeat_interleave(group, dim=1)
    s = torch.matmul(qf, kr.transpose(-1, -2)) * scale
    masked = mask_of(Nq, Nk, causal, left, right, q.device)
    s = s.masked_fill(masked, float("-inf"))
    row_visible = (~masked).any(-1)[:, None]
    p = torch.softmax(torch.where(row_visible, s, torch.zeros_like(s)), dim=-1) * row_visible
    out = torch.matmul(p, vr)
    lse = torch.logsumexp(s.detach(), dim=-1)
    grads = (None, None, None)
    if dout is not None and Nq > 0 and Nk > 0:
        grads = torch.autograd.grad(out, (qf, kf, vf), dout.float().permute(0, 2, 1, 3))
        grads = tuple(g.permute(0, 2, 1, 3) for g in grads)
    return out.detach().permute(0, 2, 1, 3), lse, grads


def poisoned_like(x, layout):
    B, S, H, D = x.shape
    if layout == "pad":
        return torch.full((B, S, H, D + 8), float("nan"), device="cuda", dtype=x.dtype)[..., :D]
    return torch.full((B, S, H, D), float("nan"), device="cuda", dtype=x.dtype)


def rel_err(a, b):
    a, b = a.double(), b.double()
    if not torch.isfinite(a).all():
        return float("inf")
    if b.numel() == 0:
        return 0.0
    norm = b.norm()
    if norm == 0:
        return 0.0 if (a == 0).all() else float("inf")
    return ((a - b).norm() / norm).item()


# 100 and 208 besides issue 5's list: the 128 tile's full-width walk over zero-filled columns and
# the 256 bucket's 13-step kernel at its widest head dim.
HEAD_DIMS = [1, 8, 32, 64, 72, 80, 96, 100, 128, 129, 136, 192, 200, 208, 256]
# (B, Nq, Nk, Hq, Hkv, causal, left, right, layout): cycled over the head dims and dtypes so that
# every head dim meets several masks, shapes and layouts.
SHAPES = [
    (2, 1013, 1013, 4, 2, False, -1, -1, "bshd"),
    (1, 1013, 1013, 2, 2, True, -1, -1, "pad"),
    (1, 17, 1013, 4, 1, True, -1, -1, "bshd"),      # causal, Nq < Nk
    (1, 1013, 17, 2, 2, True, -1, -1, "bhsd"),      # causal, Nq > Nk: fully masked rows
    (1, 777, 901, 4, 2, False, 64, 16, "bshd"),     # window
    (1, 1, 1013, 2, 2, False, -1, -1, "pad"),       # N = 1 queries
    (2, 4096, 4096, 2, 2, True, -1, -1, "bshd"),
    (1, 600, 1000, 8, 1, False, 100, -1, "bhsd"),   # left window only, MQA
]


def check_cases(small):
    if small:
        return [("bf16", 64, (1, 70, 90, 2, 1, True, -1, -1, "bshd")),
                ("fp16", 72, (1, 33, 130, 2, 2, False, 16, 4, "pad")),
                ("bf16", 129, (1, 65, 65, 2, 2, False, -1, -1, "bshd")),
                ("fp16", 256, (1, 80, 50, 2, 2, True, -1, -1, "bhsd")),
                # Nk past one K/V tile: whole tiles (the short copy) before the last one.
                ("bf16", 128, (1, 130, 300, 2, 2, True, -1, -1, "bshd")),
                ("fp16", 64, (1, 200, 333, 2, 1, False, -1, -1, "bshd")),
                ("bf16", 192, (1, 64, 200, 2, 2, False, -1, -1, "bhsd")),
                ("bf16", 256, (1, 100, 200, 2, 1, False, -1, -1, "bshd")),
                # The narrow tiles (D <= 96 at 128, D <= 208 at 256) and a window at 128.
                ("fp16", 96, (1, 150, 140, 2, 1, True, -1, -1, "bshd")),
                ("bf16", 200, (1, 90, 150, 2, 2, False, -1, -1, "bshd")),
                ("fp16", 112, (1, 70, 150, 2, 1, False, 20, 8, "bshd")),
                # Fully masked rows with a partial K/V tile only (the CTA without a walk); GQA
                # over whole K/V tiles (per-(batch, KV head) copy sources); 16-byte-aligned rows
                # whose head dim is not whole chunks (D = 100 padded: the general tile copy).
                ("bf16", 128, (1, 1013, 17, 2, 2, True, -1, -1, "bshd")),
                ("bf16", 256, (1, 1013, 17, 2, 1, True, -1, -1, "bshd")),
                ("bf16", 128, (2, 130, 300, 4, 2, False, -1, -1, "bshd")),
                ("bf16", 256, (2, 70, 200, 4, 2, True, -1, -1, "bhsd")),
                ("bf16", 100, (1, 90, 200, 2, 1, False, -1, -1, "pad")),
                # Causal over 6 (head, batch) pairs: a last head group of fewer pairs than the
                # group (QueryTilesSlowestInHeadGroups of 4 or 8), with GQA at 128.
                ("bf16", 128, (3, 300, 300, 2, 1, True, -1, -1, "bshd")),
                ("bf16", 256, (3, 140, 200, 2, 2, True, -1, -1, "bshd"))]
    cases = []
    i = 0
    for D in HEAD_DIMS:
        for dtype in ("fp16", "bf16"):
            for _ in range(2):
                cases.append((dtype, D, SHAPES[i % len(SHAPES)]))
                i += 1
    return cases


def check(sm80, small, fwd_only=False, dims=None, dtypes=None):
    """dims / dtypes: only the cases with these head dims / dtypes (None: all)."""
    gen = torch.Generator(device="cuda")
    failures = 0
    rows = []
    for n, (dtype, D, (B, Nq, Nk, Hq, Hkv, causal, left, right, layout)) in enumerate(
            check_cases(small)):
        if (dims is not None and D not in dims) or (dtypes is not None and dtype not in dtypes):
            continue
        gen.manual_seed(1000 + n)
        q = make(dtype, B, Nq, Hq, D, layout, gen)
        k = make(dtype, B, Nk, Hkv, D, layout, gen)
        v = make(dtype, B, Nk, Hkv, D, layout, gen)
        dout = make(dtype, B, Nq, Hq, D, layout, gen)
        scale = 1.0 / math.sqrt(D)
        out = poisoned_like(q, layout)
        lse = torch.full((B, Hq, Nq), float("nan"), device="cuda", dtype=torch.float32)
        if fwd_only and n % 4 == 3:
            scale = -scale  # a negative scale now and then (the forward negates Q for it)
        sm80.forward(q, k, v, out, lse, dtype, scale, causal, left, right)
        dq, dk, dv = poisoned_like(q, layout), poisoned_like(k, layout), poisoned_like(v, layout)
        det = [tuple(poisoned_like(x, layout) for x in (q, k, v)) for _ in range(2)]
        if not fwd_only:
            sm80.backward(q, k, v, out, dout, lse, dq, dk, dv, dtype, scale, causal, left, right)
            for grads in det:
                sm80.backward(q, k, v, out, dout, lse, *grads, dtype, scale, causal, left, right,
                              deterministic=True)
        torch.cuda.synchronize()
        ref_out, ref_lse, ref_grads = reference(q, k, v, None if fwd_only else dout, scale,
                                                causal, left, right)
        err = rel_err(out, ref_out)
        finite = torch.isfinite(ref_lse)
        lse_ok = bool((lse[~finite] == float("-inf")).all()) and not torch.isnan(lse).any()
        lse_err = rel_err(lse[finite], ref_lse[finite]) if finite.any() else 0.0
        if fwd_only:  # no backward ran: nothing to compare
            grad_errs, det_errs, bitwise = [0.0] * 3, [0.0] * 3, True
        else:
            grad_errs = [rel_err(g, r) for g, r in zip((dq, dk, dv), ref_grads)]
            det_errs = [rel_err(g, r) for g, r in zip(det[0], ref_grads)]
            bitwise = all(torch.equal(a.view(torch.int16), b.view(torch.int16))
                          for a, b in zip(det[0], det[1]))
        pad_ok = layout != "pad" or all(bool(torch.isnan(x._base[..., D:]).all())
                                        for x in ((out,) if fwd_only else (out, dq, dk, dv))
                                        if x._base is not None)
        ok = (err < TOLERANCE[dtype] and lse_ok and lse_err < LSE_TOLERANCE and pad_ok and bitwise
              and max(grad_errs + det_errs) < GRAD_TOLERANCE[dtype])
        failures += not ok
        mask = mask_name(causal, left, right)
        rows.append(dict(dtype=dtype, B=B, Nq=Nq, Nk=Nk, Hq=Hq, Hkv=Hkv, D=D, mask=mask,
                         layout=layout, out_err=err, lse_err=lse_err, dq_err=grad_errs[0],
                         dk_err=grad_errs[1], dv_err=grad_errs[2], bitwise=bitwise, ok=ok))
        print(f"{'PASS' if ok else 'FAIL'} {dtype} D={D} B={B} Nq={Nq} Nk={Nk} Hq={Hq} Hkv={Hkv} "
              f"{mask} {layout}: out {err:.1e} lse {lse_err:.1e} dq {grad_errs[0]:.1e} "
              f"dk {grad_errs[1]:.1e} dv {grad_errs[2]:.1e} det-dq {det_errs[0]:.1e}"
              f"{'' if lse_ok else ' LSE-INF/NAN-WRONG'}{'' if pad_ok else ' PADDING-WRITTEN'}"
              f"{'' if bitwise else ' NOT-BITWISE'}", flush=True)
    print(f"check: {len(rows) - failures}/{len(rows)} passed", flush=True)
    return failures, rows


def gemm_ceiling():
    return common.gemm_ceiling(time_ms, reps=10)


def measure(sm80, dtype, B, N, H, D, causal, torch_backends=True, deterministic=False,
            fwd_only=False, baseline=None):
    """TFLOP/s of forward and forward+backward: ours, and SDPA flash / cudnn; with a baseline
    shim also its forward ("base_fwd"), timed right after ours on the same tensors."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    gen = torch.Generator(device="cuda")
    gen.manual_seed(N + D)
    q, k, v, dout = (make(dtype, B, N, H, D, "bshd", gen) for _ in range(4))
    out = torch.empty_like(q)
    lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    scale = 1.0 / math.sqrt(D)
    fwd_flops = 4 * B * H * N * N * D / (2 if causal else 1)
    row = dict(D=D, N=N, B=B, H=H, causal=causal, dtype=dtype)
    def ours():
        sm80.forward(q, k, v, out, lse, dtype, scale, causal)
    if baseline is None:
        row["ours_fwd"] = fwd_flops / time_ms(ours) / 1e9
    else:
        # Ours and the baseline alternately, twice, the best of each: neither is favoured by
        # coming first (clocks, caches).
        def base():
            baseline.forward(q, k, v, out, lse, dtype, scale, causal)
        best = {"ours_fwd": 0.0, "base_fwd": 0.0}
        for _ in range(2):
            for key, fn in (("ours_fwd", ours), ("base_fwd", base)):
                best[key] = max(best[key], fwd_flops / time_ms(fn) / 1e9)
        row.update(best)
    if fwd_only:
        if torch_backends:
            qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
            for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                  ("flash", SDPBackend.FLASH_ATTENTION)):
                def sdpa():
                    return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
                try:
                    with sdpa_kernel(backend):
                        row[f"{name}_fwd"] = fwd_flops / time_ms(sdpa) / 1e9
                except RuntimeError:
                    row[f"{name}_fwd"] = float("nan")
        return row

    def ours_fwd_bwd(det):
        sm80.forward(q, k, v, out, lse, dtype, scale, causal)
        sm80.backward(q, k, v, out, dout, lse, dq, dk, dv, dtype, scale, causal,
                      deterministic=det)
    row["ours_fwdbwd"] = 3.5 * fwd_flops / time_ms(lambda: ours_fwd_bwd(False)) / 1e9
    if deterministic:
        row["ours_fwdbwd_det"] = 3.5 * fwd_flops / time_ms(lambda: ours_fwd_bwd(True)) / 1e9
    if torch_backends:
        qt, kt, vt, dt = (x.transpose(1, 2).contiguous() for x in (q, k, v, dout))
        qg, kg, vg = (x.detach().requires_grad_() for x in (qt, kt, vt))
        for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                              ("flash", SDPBackend.FLASH_ATTENTION)):
            try:
                with sdpa_kernel(backend):
                    row[f"{name}_fwd"] = fwd_flops / time_ms(
                        lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)) / 1e9

                    def fb():
                        o = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)
                        torch.autograd.grad(o, (qg, kg, vg), dt)
                    row[f"{name}_fwdbwd"] = 3.5 * fwd_flops / time_ms(fb) / 1e9
            except RuntimeError:
                row[f"{name}_fwd"] = row[f"{name}_fwdbwd"] = float("nan")
    return row


class VariantOf:
    """Forward variant `variant` of a shim (0: its tile table) as a --baseline, the shim's
    selection `restore` put back after each call: two tile choices of one shim timed in the same
    rows of one process."""

    def __init__(self, sm80, variant, restore):
        self.sm80, self.variant, self.restore = sm80, variant, restore

    def forward(self, *args, **kwargs):
        self.sm80.lib.fattn_sm80_set_forward_variant(self.variant)
        try:
            self.sm80.forward(*args, **kwargs)
        finally:
            self.sm80.lib.fattn_sm80_set_forward_variant(self.restore)


def bench(sm80, dims, seqlens, odd, fwd_only=False, baseline=None, odd_dtype="fp16"):
    results = {"gemm_tflops": gemm_ceiling(), "sweep": [], "odd": []}
    print(f"bf16 GEMM 8192^3: {results['gemm_tflops']:.0f} TFLOP/s", flush=True)
    for D in dims:
        for N in seqlens:
            for causal in (False, True):
                row = measure(sm80, "bf16", 16384 // N, N, 2048 // D, D, causal,
                              deterministic=(N == 4096), fwd_only=fwd_only, baseline=baseline)
                results["sweep"].append(row)
                print(json.dumps(row), flush=True)
    if fwd_only:
        print_forward_table(results["sweep"])
        if odd:
            for D in (64, 72, 80, 96, 128, 129, 136, 192, 200, 256):
                row = measure(sm80, odd_dtype, 16, 2048, 16, D, False,
                              torch_backends=D % 8 == 0, fwd_only=True, baseline=baseline)
                results["odd"].append(row)
                print(json.dumps(row), flush=True)
            print_odd_forward_table(results["odd"])
        return results
    if odd:
        for D in (64, 72, 80, 96, 128, 129, 136, 192, 200, 256):
            row = measure(sm80, "fp16", 16, 2048, 16, D, False, torch_backends=D % 8 == 0)
            results["odd"].append(row)
            print(json.dumps(row), flush=True)
    print("\n| D | N | causal | fwd ours | fwd flash | fwd cudnn | ours/flash | fwd+bwd ours | "
          "flash | cudnn | ours/flash | det/default |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results["sweep"]:
        det = r.get("ours_fwdbwd_det")
        det_ratio = "" if det is None else f"{det / r['ours_fwdbwd']:.2f}"
        print(f"| {r['D']} | {r['N']} | {'yes' if r['causal'] else 'no'} | {r['ours_fwd']:.0f} | "
              f"{r['flash_fwd']:.0f} | {r['cudnn_fwd']:.0f} | {r['ours_fwd'] / r['flash_fwd']:.2f} | "
              f"{r['ours_fwdbwd']:.0f} | {r['flash_fwdbwd']:.0f} | {r['cudnn_fwdbwd']:.0f} | "
              f"{r['ours_fwdbwd'] / r['flash_fwdbwd']:.2f} | "
              f"{det_ratio} |")
    if odd:
        base = {r["D"]: r for r in results["odd"]}
        print("\n| D | fwd ours | fwd flash | fwd vs next x64 | fwd+bwd ours | fwd+bwd vs next x64 |")
        print("|---|---|---|---|---|---|")
        for r in results["odd"]:
            nxt = base[min(d for d in (64, 128, 192, 256) if d >= r["D"])]
            print(f"| {r['D']} | {r['ours_fwd']:.0f} | {r.get('flash_fwd', float('nan')):.0f} | "
                  f"{r['ours_fwd'] / nxt['ours_fwd']:.2f} | {r['ours_fwdbwd']:.0f} | "
                  f"{r['ours_fwdbwd'] / nxt['ours_fwdbwd']:.2f} |")
    return results


def print_forward_table(rows):
    print("\n| D | N | causal | fwd ours | fwd base | ours/base | fwd flash | fwd cudnn | "
          "ours/flash | base/flash |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for r in rows:
        base = r.get("base_fwd", float("nan"))
        ratios.append((r["ours_fwd"] / r["flash_fwd"], base / r["flash_fwd"]))
        print(f"| {r['D']} | {r['N']} | {'yes' if r['causal'] else 'no'} | {r['ours_fwd']:.0f} | "
              f"{base:.0f} | {r['ours_fwd'] / base:.2f} | {r['flash_fwd']:.0f} | "
              f"{r['cudnn_fwd']:.0f} | {ratios[-1][0]:.2f} | {ratios[-1][1]:.2f} |")
    geo = [math.exp(sum(math.log(x[i]) for x in ratios) / len(ratios)) for i in range(2)]
    print(f"geomean ours/flash {geo[0]:.3f}, base/flash {geo[1]:.3f}")


def print_odd_forward_table(rows):
    base = {r["D"]: r for r in rows}
    print("\n| D | fwd ours | fwd base | ours/base | fwd flash | ours vs next x64 | "
          "base vs next x64 |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        nxt = base[min(d for d in (64, 128, 192, 256) if d >= r["D"])]
        b = r.get("base_fwd", float("nan"))
        print(f"| {r['D']} | {r['ours_fwd']:.0f} | {b:.0f} | {r['ours_fwd'] / b:.2f} | "
              f"{r.get('flash_fwd', float('nan')):.0f} | {r['ours_fwd'] / nxt['ours_fwd']:.2f} | "
              f"{b / nxt.get('base_fwd', float('nan')):.2f} |")


# Forward tile alternatives compiled into bench/sm80_variants.cu: (width, keys/tile, warps, row
# tiles per warp); variant 0 is the table of src/cuda/sm80/tile_config.hpp.
# Variant 4: KvSourcesInSharedMemory where the table does not take it (64, 256); variant 5 exists
# at every bucket (the table before v6: --base-variant 5 covers every head dim); 6, 7, 8 (64,
# 128, 256): head groups of 2, 4, 8; 10 (every bucket): the table before v7.
KV_SOURCES = ("the table's tiles (and narrow tiles) with KvSourcesInSharedMemory: per-thread K/V "
              "copy sources in shared memory, predicate-form cp.async")
BEFORE_V6 = "the table before v6 (v5): no KvSourcesInSharedMemory"
HEAD_GROUPS = "the v6 tile with QueryTilesSlowestInHeadGroups of {} heads"
BEFORE_V7 = "the table before v7 (v6): grid order, no HalfLastStep"
HEAD_GROUP_VARIANTS = {6: HEAD_GROUPS.format(2), 7: HEAD_GROUPS.format(4),
                       8: HEAD_GROUPS.format(8), 10: BEFORE_V7}
VARIANTS = {64: {1: "64x64 w4 mt2 full-width path (v4's table)",
                 2: "the table's tile, O stored through shared memory (v5's epilogue)",
                 4: KV_SOURCES,
                 5: BEFORE_V6, **HEAD_GROUP_VARIANTS},
            128: {1: "128x128 w4 mt1 full-width path (64-row CTAs, 2 per SM)",
                  2: "128x128 w8 mt1 full-width path (v4's table)",
                  3: "the table's tile, O stored from registers (before v5)",
                  5: BEFORE_V6, **HEAD_GROUP_VARIANTS},
            192: {5: BEFORE_V6, 10: BEFORE_V7},
            256: {1: "256x64 w8 mt1 full-width path (128-row CTAs: the table before session 4)",
                  2: "the table's tile without the general walk (dead code: the full-width class "
                     "covers every head dim of its kernel)",
                  3: "the table's tile, O stored from registers (before v5)",
                  4: KV_SOURCES,
                  5: BEFORE_V6, **HEAD_GROUP_VARIANTS}}


def sweep_variants(sm80, table_by_dim, select_variant, column, result_key, seqlens=(4096,),
                   fwd_only=False, dims=None):
    """Times every compiled tile alternative (0 = the table) at bf16, B·N = 16384, H·D = 2048,
    causal and not."""
    rows = []
    for D, table in table_by_dim.items():
        if dims is not None and D not in dims:
            continue
        for N, causal in itertools.product(seqlens, (False, True)):
            B, H = 16384 // N, 2048 // D
            for variant in [0] + list(table):
                select_variant(variant)
                r = measure(sm80, "bf16", B, N, H, D, causal, torch_backends=False,
                            fwd_only=fwd_only)
                row = dict(D=D, N=N, causal=causal, variant=variant,
                           config=table.get(variant, "table"), **{column: r[result_key]})
                rows.append(row)
                print(json.dumps(row), flush=True)
    select_variant(0)
    return rows


def variants(sm80, seqlens, dims):
    return sweep_variants(sm80, VARIANTS, sm80.lib.fattn_sm80_set_forward_variant, "fwd",
                          "ours_fwd", seqlens, fwd_only=True, dims=dims)


# Backward tile alternatives compiled into bench/sm80_bwd_variants.cu: BackwardTile<width, query
# rows, keys, warps, query warps A, dim warps B, stages, query passes A>; 0 is the table.
BWD_VARIANTS = {64: {1: "64,64,128,8,1,1,2", 2: "64,64,128,8,2,2,2"},
                128: {1: "128,64,64,8,2,2,2", 2: "128,64,128,8,1,2,2,2",
                      3: "128,64,128,8,2,2,2,2"},
                256: {1: "256,64,64,8,2,2,2 (Hopper only)", 2: "256,64,64,8,2,2,1"}}


def bwd_variants(sm80):
    return sweep_variants(sm80, BWD_VARIANTS, sm80.lib.fattn_sm80_set_backward_variant, "fwdbwd",
                          "ours_fwdbwd")


def profile(sm80, dims=(128,), fwd_only=False, seqlen=4096, with_flash=False):
    """One forward and one backward (bf16, B·N = 16384, H = 2048/D; N = 4096 unless told) per
    head dim, for ncu; with_flash: also one SDPA flash forward on the same tensors."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    B = 16384 // seqlen
    for D in dims:
        H = 2048 // D
        q, k, v, dout = (make("bf16", B, seqlen, H, D, "bshd", gen) for _ in range(4))
        out, lse = torch.empty_like(q), torch.empty(B, H, seqlen, device="cuda")
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
        sm80.forward(q, k, v, out, lse, "bf16", D ** -0.5)
        if with_flash:
            qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                F.scaled_dot_product_attention(qt, kt, vt)
        if not fwd_only:
            sm80.backward(q, k, v, out, dout, lse, dq, dk, dv, "bf16", D ** -0.5)
    torch.cuda.synchronize()


TURN_RUNS = 3
TURN_REPS = 8
TURN_PREFILL_CYCLES = 4_000_000
NO_WINDOW = -1


def turns(sm80, points, variant_list):
    """--turns. Default B·N = 16384, H·D = 2048 (bf16); TFLOP/s counted with the real head dim,
    halved for causal."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    rows = []
    for point in points.split(";"):
        fields = point.split(",")
        D, N, causal = int(fields[0]), int(fields[1]), fields[2] in ("1", "c", "causal")
        dtype = fields[3] if len(fields) > 3 else "bf16"
        B, H = (int(fields[4]), int(fields[5])) if len(fields) > 5 else (16384 // N, 2048 // D)
        gen = torch.Generator(device="cuda")
        gen.manual_seed(N * 3 + D)
        q, k, v = (make(dtype, B, N, H, D, "bshd", gen) for _ in range(3))
        scale = D ** -0.5
        qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))

        def flash():
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
        contestants, checks = [], {}
        if D % 8 == 0:
            reference_out = flash().transpose(1, 2).float()
            contestants.append(("flash", flash, None))
        else:
            reference_out = None
        lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)

        def ours(variant, left=NO_WINDOW, right=NO_WINDOW):
            out = torch.full_like(q, float("nan"))

            def call():
                sm80.lib.fattn_sm80_set_forward_variant(variant)
                sm80.forward(q, k, v, out, lse, dtype, scale, causal, left, right)
            return call, out
        runs = {"table": ours(0)}
        for variant in variant_list:
            runs[f"v{variant}"] = ours(variant)
        for name, (call, out) in runs.items():
            call()
            torch.cuda.synchronize()
            base = reference_out if reference_out is not None else runs["table"][1].float()
            checks[name] = rel_err(out.float(), base)
            contestants.append((name, call, None))
        sm80.lib.fattn_sm80_set_forward_variant(0)
        flops = 4 * B * H * N * N * D / (2 if causal else 1)
        tflops, per_run = common.tflops_in_turns(contestants, flops, TURN_RUNS, TURN_REPS,
                                                 prefill_cycles=TURN_PREFILL_CYCLES)
        row = dict(D=D, N=N, B=B, H=H, causal=causal, dtype=dtype, tflops=tflops, runs=per_run,
                   checks=checks)
        if not causal and D % 8 == 0:
            # The WindowMask kernel on a window that masks nothing, beside the NoMask table.
            call_window, out_window = ours(0, N, N)
            call_table, _ = runs["table"]
            call_window()
            torch.cuda.synchronize()
            row["checks"]["table window-nothing"] = rel_err(out_window.float(), reference_out)
            wt, wruns = common.tflops_in_turns(
                [("table", call_table, None), ("table window-nothing", call_window, None)],
                flops, TURN_RUNS, TURN_REPS, prefill_cycles=TURN_PREFILL_CYCLES)
            row["window_nothing"] = dict(tflops=wt, runs=wruns)
        rows.append(row)
        base = tflops["table"]
        print(f"D={D} N={N} {'causal' if causal else 'nomask'} {dtype} B={B} H={H}: " +
              ", ".join(f"{name} {value:.1f} ({value / base:.3f})" for name, value in tflops.items()) +
              ("" if "window_nothing" not in row else
               f"; window-nothing/nomask {row['window_nothing']['tflops']['table window-nothing'] / row['window_nothing']['tflops']['table']:.3f}") +
              f"; spread {min(r['table'] for r in per_run):.1f}-{max(r['table'] for r in per_run):.1f}"
              f"; max rel err {max(checks.values()):.2e}", flush=True)
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", required=True)
    p.add_argument("--check", action="store_true")
    p.add_argument("--bench", action="store_true")
    p.add_argument("--small", action="store_true")
    p.add_argument("--no-odd", action="store_true")
    p.add_argument("--variants", action="store_true")
    p.add_argument("--bwd-variants", action="store_true")
    p.add_argument("--profile", action="store_true")
    p.add_argument("--dims", default="64,128,256")
    p.add_argument("--seqlens", default="512,1024,2048,4096,8192,16384")
    p.add_argument("--variant-seqlens", default="4096")
    p.add_argument("--profile-dims", default="128")
    p.add_argument("--profile-seqlen", type=int, default=4096)
    p.add_argument("--profile-flash", action="store_true")
    p.add_argument("--fwd-only", action="store_true")
    p.add_argument("--forward-variant", type=int, default=0,
                   help="check/bench with this bench/sm80_variants.cu alternative instead of the "
                        "tile table (variants are built for bf16 only: the check keeps bf16 cases)")
    p.add_argument("--check-dims", help="check only these head dims (comma list)")
    p.add_argument("--base-variant", type=int, default=0,
                   help="bench: time this bench/sm80_variants.cu alternative as the baseline "
                        "(same shim, same rows; the odd head dims then run in bf16)")
    p.add_argument("--baseline")
    p.add_argument("--turns", help="D,N,causal[,dtype[,B,H]];... (see the docstring)")
    p.add_argument("--turn-variants", default="", help="comma list of forward variants")
    p.add_argument("--json")
    a = p.parse_args()
    sm80 = Sm80(a.lib)
    report = {"device": torch.cuda.get_device_name()}
    failures = 0
    if a.forward_variant:
        sm80.lib.fattn_sm80_set_forward_variant(a.forward_variant)
        report["forward_variant"] = a.forward_variant
    if a.check or a.small:
        failures, report["check"] = check(
            sm80, a.small, a.fwd_only, int_list(a.check_dims) if a.check_dims else None,
            ("bf16",) if a.forward_variant else None)
    if a.profile:
        profile(sm80, int_list(a.profile_dims), a.fwd_only, a.profile_seqlen, a.profile_flash)
    if a.variants:
        report["variants"] = variants(sm80, int_list(a.variant_seqlens), int_list(a.dims))
    if a.turns:
        report["turns"] = turns(sm80, a.turns, int_list(a.turn_variants) if a.turn_variants
                                else [])
    if a.bwd_variants:
        report["bwd_variants"] = bwd_variants(sm80)
    if a.bench:
        # With --forward-variant and no --baseline: "ours" is the variant, "base" the same shim's
        # tile table, and the odd head dims run in bf16 (variants are built for bf16 only).
        # With --base-variant N: "ours" is the table (or --forward-variant), "base" variant N of
        # the same shim.
        baseline = Sm80(a.baseline) if a.baseline else None
        if a.base_variant:
            baseline = VariantOf(sm80, a.base_variant, a.forward_variant)
        elif baseline is None and a.forward_variant:
            baseline = VariantOf(sm80, 0, a.forward_variant)
        report["bench"] = bench(sm80, int_list(a.dims), int_list(a.seqlens), not a.no_odd,
                                a.fwd_only, baseline,
                                "bf16" if a.forward_variant or a.base_variant else "fp16")
    return common.finish(report, a.json, failures)


if __name__ == "__main__":
    sys.exit(main())
