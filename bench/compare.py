#!/usr/bin/env python3
"""fattn's backends against PyTorch's attention backends, on the same inputs, in one process.

Sections (each can be switched off):
  ceilings  the GPU's own limits measured in this run: device copy (TB/s), bf16 GEMM 8192³
  sweep     D × N × causal × {fwd, fwd+bwd}, bf16, batch·seqlen = 16384, heads·head_dim = 2048
            (TARGETS.md's conventions); fattn's CUDA backends vs SDPA flash/efficient/cudnn/math
  head-dim  the alignment trap: D 64..256 including 72, 80, 96, 129, 136, 200 at a fixed N
            (forward; --sweep-modes fwd,fwd+bwd adds the backward)
  simt      fp32 on CUDA cores: fattn's cuda_simt and cuda_standard vs SDPA efficient/math, D 64/128,
            with cuda_simt's share of the fp32 FMA peak (SMs × max SM clock × lanes × 2, via NVML)
  cpu       fattn's CPU flash vs PyTorch's CPU SDPA, fp32, B=1, H=16, D=128, at 2 and 16 threads

TFLOP/s follow FlashAttention's convention: forward = 4·B·H·Nq·Nk·D (halved for causal),
forward+backward = 3.5 × forward. GPU times are medians from triton.testing.do_bench (CUDA
events, L2 flushed between runs) or, without triton, CUDA events around each call, taken in
rounds: each round times every implementation of a problem once (order rotated), and the
reported time is the median over the rounds (--rounds, default 3); rounds that disagree by more
than 15 % are listed under the tables with the SM clock NVML read after each.
An implementation that is not compiled, refuses a shape or fails is recorded as "n/a" with
the reason, never dropped. Each fattn result is also checked against SDPA's output on the same
inputs (relative error), so a fast but wrong kernel shows.

  python bench/compare.py --quick            # ~3 minutes on an H100/H200
  python bench/compare.py                    # the full sweep
  python bench/compare.py --sections cpu     # only the CPU comparison
Writes <prefix>.json, <prefix>.md (the tables) and <prefix>-{sweep,headdim,cpu}.png; the prefix
is bench/results/compare-<device>-<date>[-quick] unless --out-dir or --out says otherwise.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import statistics
import sys
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import fattn
# sweep_ratios lives beside this script; a caller that loads compare.py by path (the tests do)
# does not put bench/ on sys.path, so the script puts it there itself.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from sweep_ratios import geometric_mean, paired_ratios  # noqa: E402

RESULTS_DIR = Path(__file__).resolve().parent / "results"

# TARGETS.md's sweep: batch·seqlen and heads·head_dim held fixed, so every point moves the
# same number of bytes and FLOPs scale with N.
TOKENS = 16384
WIDTH = 2048
SWEEP_HEAD_DIMS = [64, 128, 256]
SWEEP_SEQLENS = [512, 1024, 2048, 4096, 8192, 16384]
QUICK_SEQLENS = [1024, 4096, 16384]
# The alignment trap of TARGETS.md: fp16, B=16, H=16, N=2048, forward.
HEAD_DIM_SWEEP = [64, 72, 80, 96, 128, 129, 136, 192, 200, 256]
HEAD_DIM_SWEEP_SHAPE = {"batch": 16, "heads": 16, "seqlen": 2048}
# CPU comparison (TARGETS.md): fp32, B=1, H=16, D=128.
CPU_SHAPE = {"batch": 1, "heads": 16, "head_dim": 128}
CPU_CASES = [(1024, False), (1024, True), (4096, False), (4096, True)]
QUICK_CPU_CASES = [(1024, False), (4096, False), (4096, True)]
CPU_THREADS = [2, 16]
# Issue #4's table: the CUDA-core kernel in fp32 beside the standard path and PyTorch's fp32
# backends (flash and cuDNN take 16-bit only), D 64/128, the sweep's shapes, causal and not.
SIMT_HEAD_DIMS = [64, 128]
SIMT_SEQLENS = [1024, 4096, 16384]
SIMT_IMPLS = {"fattn": ["cuda_simt", "cuda_standard"], "sdpa": ["efficient", "math"]}
# fp32 FMA lanes per SM by compute capability (CUDA C Programming Guide, arithmetic throughput
# table): the peak is SMs × max SM clock × lanes × 2 FLOPs.
FP32_LANES_PER_SM = {(7, 0): 64, (8, 0): 64, (8, 6): 128, (8, 7): 128, (8, 9): 128, (9, 0): 128,
                     (10, 0): 128, (12, 0): 128}

FORWARD_FLOPS_PER_MAC = 4  # two GEMMs (QKᵀ and PV), 2 FLOPs per multiply-add each
FWD_BWD_FLOP_FACTOR = 3.5  # backward = 2.5 × forward (FlashAttention's convention)
COPY_BYTES = 2 << 30  # 2 GiB: far past any L2, so the copy runs at memory speed
GEMM_SIZE = 8192
# The math backend materializes S and P (N² per head): past this N it is slow and huge.
MATH_MAX_SEQLEN = 4096
SDPA_BACKENDS = {
    "flash": SDPBackend.FLASH_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "math": SDPBackend.MATH,
}
# fattn's materializing and CUDA-core backends are for other comparisons (fattn bench); they
# join here only when named with --fattn-backends.
DEFAULT_FATTN_BACKENDS = ["auto", "cuda_sm90", "cuda_sm80"]
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
MODES = ["fwd", "fwd+bwd"]
# Three rounds: the median drops one round spoiled by a transient slow-down (time_in_rounds).
DEFAULT_ROUNDS = 3


@dataclass
class Result:
    """One implementation on one problem."""

    impl: str
    mode: str
    batch: int
    seqlen: int
    heads: int
    head_dim: int
    causal: bool
    dtype: str
    ms: Optional[float] = None
    tflops: Optional[float] = None
    status: str = "ok"  # "ok" or "n/a"
    reason: str = ""
    rel_err_vs_sdpa: Optional[float] = None
    extra: Dict[str, object] = field(default_factory=dict)


def attention_flops(batch, heads, seqlen_q, seqlen_k, head_dim, causal, mode):
    flops = FORWARD_FLOPS_PER_MAC * batch * heads * seqlen_q * seqlen_k * head_dim
    if causal:
        flops /= 2
    return flops * (FWD_BWD_FLOP_FACTOR if mode == "fwd+bwd" else 1.0)


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


# ---- timing ------------------------------------------------------------------------------


class Timer:
    """Median wall time of a callable, in ms, on the device its tensors live on."""

    def __init__(self, device: torch.device, warmup_ms: float, rep_ms: float, cpu_reps: int,
                 rounds: int = 1):
        self.device = device
        self.rounds = rounds
        self.warmup_ms = warmup_ms
        self.rep_ms = rep_ms
        self.cpu_reps = cpu_reps
        self._do_bench = None
        if device.type == "cuda":
            try:
                from triton.testing import do_bench

                self._do_bench = do_bench
            except ImportError:
                self._do_bench = None

    def median_ms(self, fn: Callable[[], object], grads: Optional[list] = None,
                  warmup_ms: Optional[float] = None, rep_ms: Optional[float] = None) -> float:
        warmup_ms = self.warmup_ms if warmup_ms is None else warmup_ms
        rep_ms = self.rep_ms if rep_ms is None else rep_ms
        if self.device.type != "cuda":
            return self._cpu_median_ms(fn, grads)
        if self._do_bench is not None:
            return float(self._do_bench(fn, warmup=warmup_ms, rep=rep_ms,
                                        grad_to_none=grads, return_mode="median"))
        return self._events_median_ms(fn, grads, rep_ms)

    def _events_median_ms(self, fn, grads, rep_ms):
        fn()
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        estimate = max(start.elapsed_time(stop), 1e-3)
        times = []
        for _ in range(max(3, int(rep_ms / estimate))):
            _clear(grads)
            start.record()
            fn()
            stop.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(stop))
        return statistics.median(times)

    def _cpu_median_ms(self, fn, grads):
        fn()  # warm-up: first-touch page faults and thread-pool start stay out of the numbers
        times = []
        for _ in range(self.cpu_reps):
            _clear(grads)
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1e3)
        return statistics.median(times)


def _clear(grads):
    for t in grads or ():
        t.grad = None


# ---- implementations ----------------------------------------------------------------------


# A fattn contestant named "<backend>+deterministic" runs its backward in the deterministic
# mode (issue #5 asks it to stay >= 0.85x the default); its forward is the default's.
DETERMINISTIC_SUFFIX = "+deterministic"


def fattn_backend_and_mode(spec: str) -> tuple:
    """(backend, deterministic) of a --fattn-backends entry."""
    if spec.endswith(DETERMINISTIC_SUFFIX):
        return spec[:-len(DETERMINISTIC_SUFFIX)], True
    return spec, False


def fattn_runner(spec: str, num_threads: int = 0):
    backend, deterministic = fattn_backend_and_mode(spec)

    def run(q, k, v, causal):
        return fattn.attention(q, k, v, causal=causal, backend=backend,
                               deterministic=deterministic, num_threads=num_threads)[0]

    return run


def sdpa_runner(backend: SDPBackend):
    # SDPA takes (batch, heads, seqlen, head_dim): the same memory, viewed transposed.
    def run(q, k, v, causal):
        with sdpa_kernel(backend):
            out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                                 v.transpose(1, 2), is_causal=causal)
        return out.transpose(1, 2)

    return run


def runner_for(impl: str):
    """The runner of a contestant named fattn:<backend> or sdpa:<backend> (for the scripts that
    time or profile one point: bench/profile_point.py, bench/host_overhead.py)."""
    family, _, name = impl.partition(":")
    return fattn_runner(name) if family == "fattn" else sdpa_runner(SDPA_BACKENDS[name])


def repeatable_call(run, q, k, v, causal, mode):
    """One call of `run` in `mode` ("fwd" or "fwd+bwd") that can be repeated as it is: the
    forward without autograd, or the forward and backward on leaves of q, k, v whose gradients
    are dropped after each backward."""
    if mode == "fwd":
        def call():
            with torch.no_grad():
                run(q, k, v, causal)
        return call
    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    dout = torch.randn_like(q)

    def call():
        run(*leaves, causal).backward(dout)
        _clear(leaves)
    return call


def why_sdpa_refuses(run, q, k, v, causal) -> Optional[str]:
    """None if the SDPA backend runs these inputs, else PyTorch's reason (its warnings)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run(q, k, v, causal)
            return None
        except RuntimeError as error:
            hints = [str(w.message).strip().splitlines()[0] for w in caught]
            return "; ".join([first_line(error)] + hints[:2])


def why_fattn_refuses(spec, q, k, causal, mode) -> Optional[str]:
    backend, deterministic = fattn_backend_and_mode(spec)
    for backward in ([False, True] if mode == "fwd+bwd" else [False]):
        selection = fattn.supports(q, k, causal=causal, backend=backend,
                                   deterministic=deterministic, backward=backward)
        if not selection:
            return selection.reason
    return None


def relative_error(actual: torch.Tensor, expected: torch.Tensor) -> float:
    a, e = actual.double(), expected.double()
    return float(torch.linalg.vector_norm(a - e) / torch.linalg.vector_norm(e).clamp_min(1e-300))


@dataclass
class Contestant:
    """One implementation on one problem and mode, ready to time: its result so far, the call
    that is timed and the leaves whose gradients are dropped between calls."""

    result: Result
    call: Optional[Callable[[], object]] = None
    grads: Optional[list] = None
    round_ms: List[float] = field(default_factory=list)
    round_sm_mhz: List[Optional[int]] = field(default_factory=list)


def prepare(name, run, refusal, q, k, v, causal, mode, base: "Shape",
            reference: Optional[torch.Tensor]) -> Contestant:
    """Runs the implementation once (its output checked against `reference`) and returns what
    the rounds time; a refusal or an error leaves it "n/a" with the reason and nothing to time."""
    contestant = Contestant(Result(impl=name, mode=mode, **asdict(base)))
    result = contestant.result
    if refusal is not None:
        result.status, result.reason = "n/a", refusal
        return contestant
    try:
        if mode == "fwd":
            def call():
                with torch.no_grad():
                    return run(q, k, v, causal)

            out = call()
            contestant.call = call
        else:
            leaves = [t.detach().requires_grad_() for t in (q, k, v)]
            out = run(*leaves, causal)
            dout = torch.randn_like(out)
            contestant.call = lambda: run(*leaves, causal).backward(dout)
            contestant.grads = leaves
        if reference is not None:
            result.rel_err_vs_sdpa = relative_error(out.detach(), reference)
    except (RuntimeError, ValueError, NotImplementedError) as error:
        result.status, result.reason = "n/a", first_line(error)
        contestant.call = None
    return contestant


def current_sm_clock_mhz(device) -> Optional[int]:
    """The SM clock NVML reports now, or None without NVML: recorded beside each round so that a
    slow round can be told apart from a slow clock."""
    if device.type != "cuda":
        return None
    try:
        return int(torch.cuda.clock_rate(device))
    except Exception:  # no pynvml / NVML: the rounds' times are still recorded
        return None


def time_in_rounds(contestants: List[Contestant], timer):
    """Times every contestant in timer.rounds rounds, the order rotated by one each round, each round
    a median over rep_ms / rounds: a transient slow-down (clock, power or host) then hits one
    round of one contestant instead of its whole result, and the median over the rounds drops
    it. (Timed once each, one after the other, 4 of ~2,000 points in the eighth session's runs
    read 1.7-2.4x slow and normal when re-timed.)"""
    live = [c for c in contestants if c.call is not None]
    rounds = timer.rounds
    for round_index in range(rounds):
        shift = round_index % max(1, len(live))
        # The first round warms each contestant fully; later rounds only re-warm after the
        # others ran.
        warmup_ms = timer.warmup_ms if round_index == 0 else timer.warmup_ms / rounds
        for contestant in live[shift:] + live[:shift]:
            if contestant.call is None:
                continue
            try:
                contestant.round_ms.append(timer.median_ms(
                    contestant.call, contestant.grads, warmup_ms=warmup_ms,
                    rep_ms=timer.rep_ms / rounds))
                contestant.round_sm_mhz.append(current_sm_clock_mhz(timer.device))
            except (RuntimeError, ValueError, NotImplementedError) as error:
                contestant.result.status = "n/a"
                contestant.result.reason = first_line(error)
                contestant.call = None
            if timer.device.type == "cuda":
                torch.cuda.empty_cache()


def finish(contestant: Contestant, base: "Shape") -> Result:
    result = contestant.result
    if result.status != "ok" or not contestant.round_ms:
        result.ms = result.tflops = None
        return result
    result.ms = statistics.median(contestant.round_ms)
    if len(contestant.round_ms) > 1:
        result.extra["round_ms"] = [round(ms, 5) for ms in contestant.round_ms]
        if any(mhz is not None for mhz in contestant.round_sm_mhz):
            result.extra["round_sm_mhz"] = contestant.round_sm_mhz
    flops = attention_flops(base.batch, base.heads, base.seqlen, base.seqlen, base.head_dim,
                            base.causal, result.mode)
    result.tflops = flops / (result.ms * 1e-3) / 1e12
    return result


@dataclass
class Shape:
    batch: int
    seqlen: int
    heads: int
    head_dim: int
    causal: bool
    dtype: str


def run_problem(shape: Shape, impls: Dict[str, tuple], modes, timer, device, seed) -> List[Result]:
    """Every implementation on one problem (same q, k, v), in every mode, timed in rounds."""
    gen = torch.Generator(device=device).manual_seed(seed)
    dtype = DTYPES[shape.dtype]
    q, k, v = (torch.randn(shape.batch, shape.seqlen, shape.heads, shape.head_dim,
                           generator=gen, device=device, dtype=dtype) for _ in range(3))
    results = []

    def sdpa_refusal(name, run):
        if name == "sdpa:math" and shape.seqlen > MATH_MAX_SEQLEN:
            return f"skipped past N={MATH_MAX_SEQLEN}: math materializes the N² scores"
        return why_sdpa_refuses(run, q, k, v, shape.causal)

    # fattn's outputs are checked against the first SDPA backend that runs these inputs.
    reference = None
    for name, (kind, run) in impls.items():
        if kind == "sdpa" and sdpa_refusal(name, run) is None:
            with torch.no_grad():
                reference = run(q, k, v, shape.causal).detach()
            break
    for mode in modes:
        contestants = []
        for name, (kind, run) in impls.items():
            if kind == "fattn":
                spec = name.split(":", 1)[1]
                if mode == "fwd" and fattn_backend_and_mode(spec)[1]:
                    continue  # the forward has one mode: its row would repeat the default's
                refusal = why_fattn_refuses(spec, q, k, shape.causal, mode)
                ref = reference
            else:
                refusal = sdpa_refusal(name, run)
                ref = None
            contestants.append(prepare(name, run, refusal, q, k, v, shape.causal, mode, shape,
                                       ref))
        time_in_rounds(contestants, timer)
        results += [finish(c, shape) for c in contestants]
    return results


def gpu_impls(args) -> Dict[str, tuple]:
    impls = {}
    # A backend missing from this build stays in the table: fattn.supports() then gives
    # "not compiled into this build" as its n/a reason, a result worth seeing.
    for backend in args.fattn_backends:
        impls[f"fattn:{backend}"] = ("fattn", fattn_runner(backend))
    for name in args.sdpa_backends:
        impls[f"sdpa:{name}"] = ("sdpa", sdpa_runner(SDPA_BACKENDS[name]))
    return impls


# ---- sections -----------------------------------------------------------------------------


def _copy_ms(timer) -> float:
    source = torch.empty(COPY_BYTES, dtype=torch.uint8, device=timer.device)
    target = torch.empty_like(source)
    return timer.median_ms(lambda: target.copy_(source))


def _gemm_ms(timer) -> float:
    a = torch.randn(GEMM_SIZE, GEMM_SIZE, device=timer.device, dtype=torch.bfloat16)
    b = torch.randn(GEMM_SIZE, GEMM_SIZE, device=timer.device, dtype=torch.bfloat16)
    return timer.median_ms(lambda: a @ b)


def measure_ceilings(timer) -> Dict[str, float]:
    copy_ms = _copy_ms(timer)  # its 4 GiB are freed before the GEMM allocates
    gemm_ms = _gemm_ms(timer)
    return {
        "copy_TBps": 2 * COPY_BYTES / (copy_ms * 1e-3) / 1e12,  # bytes read + written
        "bf16_gemm_8192_TFLOPs": 2 * GEMM_SIZE**3 / (gemm_ms * 1e-3) / 1e12,
    }


def gpu_sweep(args, timer, device) -> List[Result]:
    impls = gpu_impls(args)
    results = []
    for head_dim in args.head_dims:
        for seqlen in args.seqlens:
            for causal in args.causal:
                shape = Shape(batch=max(1, args.tokens // seqlen), seqlen=seqlen,
                              heads=max(1, args.width // head_dim), head_dim=head_dim,
                              causal=causal, dtype=args.dtype)
                problem = run_problem(shape, impls, args.modes, timer, device, seed=seqlen)
                _progress(problem)
                results += problem
    return results


def head_dim_sweep(args, timer, device) -> List[Result]:
    impls = gpu_impls(args)
    impls.pop("sdpa:math", None)  # its time does not depend on alignment; it only slows the run
    results = []
    for head_dim in args.sweep_head_dims:
        shape = Shape(batch=HEAD_DIM_SWEEP_SHAPE["batch"], seqlen=args.sweep_seqlen,
                      heads=HEAD_DIM_SWEEP_SHAPE["heads"], head_dim=head_dim, causal=False,
                      dtype=args.sweep_dtype)
        problem = run_problem(shape, impls, args.sweep_modes, timer, device, seed=head_dim)
        _progress(problem)
        results += problem
    return results


def fp32_fma_peak_tflops(device) -> tuple:
    """(peak TFLOP/s, how it was obtained) or (None, why not): SMs × max SM clock × lanes × 2."""
    props = torch.cuda.get_device_properties(device)
    lanes = FP32_LANES_PER_SM.get((props.major, props.minor))
    if lanes is None:
        return None, f"fp32 lanes per SM unknown for sm_{props.major}{props.minor}"
    try:
        import pynvml  # nvidia-ml-py: the maximum SM clock (torch exposes only the current one)
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(device.index or 0)
        mhz = pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM)
    except Exception as error:  # no NVML: say so rather than guess a clock
        return None, f"max SM clock unavailable ({first_line(error)})"
    peak = props.multi_processor_count * mhz * 1e6 * lanes * 2 / 1e12
    return peak, f"{props.multi_processor_count} SMs × {mhz} MHz × {lanes} lanes × 2"


def simt_comparison(args, timer, device) -> List[Result]:
    impls = {f"fattn:{b}": ("fattn", fattn_runner(b)) for b in SIMT_IMPLS["fattn"]}
    impls.update({f"sdpa:{b}": ("sdpa", sdpa_runner(SDPA_BACKENDS[b])) for b in SIMT_IMPLS["sdpa"]})
    results = []
    for head_dim in SIMT_HEAD_DIMS:
        for seqlen in SIMT_SEQLENS:
            for causal in (False, True):
                shape = Shape(batch=max(1, args.tokens // seqlen), seqlen=seqlen,
                              heads=max(1, args.width // head_dim), head_dim=head_dim,
                              causal=causal, dtype="fp32")
                problem = run_problem(shape, impls, ["fwd"], timer, device, seed=seqlen)
                _progress(problem)
                results += problem
    return results


def simt_peak_lines(results: List[Result], peak, how) -> List[str]:
    if peak is None:
        return [f"fp32 FMA peak: not known ({how}), so no share of it is given.", ""]
    lines = [f"cuda_simt share of the fp32 FMA peak ({peak:.1f} TFLOP/s = {how}):", ""]
    for r in results:
        if r.impl == "fattn:cuda_simt" and r.status == "ok":
            lines.append(f"- D={r.head_dim} N={r.seqlen}{' causal' if r.causal else ''}: "
                         f"{r.tflops:.1f} TFLOP/s = {100 * r.tflops / peak:.1f} %")
    return lines + [""]


def cpu_comparison(args) -> List[Result]:
    timer = Timer(torch.device("cpu"), 0, 0, cpu_reps=args.cpu_reps)
    results = []
    saved_threads = torch.get_num_threads()
    try:
        for threads in args.cpu_threads:
            torch.set_num_threads(threads)
            impls = {
                "fattn:cpu_flash": ("fattn", fattn_runner("cpu_flash", num_threads=threads)),
                "sdpa:cpu": ("sdpa", sdpa_runner_cpu()),
            }
            for seqlen, causal in args.cpu_cases:
                shape = Shape(batch=CPU_SHAPE["batch"], seqlen=seqlen, heads=CPU_SHAPE["heads"],
                              head_dim=CPU_SHAPE["head_dim"], causal=causal, dtype="fp32")
                problem = run_problem(shape, impls, ["fwd"], timer, torch.device("cpu"),
                                      seed=seqlen)
                for r in problem:
                    r.extra["threads"] = threads
                _progress(problem)
                results += problem
    finally:
        torch.set_num_threads(saved_threads)
    return results


def sdpa_runner_cpu():
    # PyTorch picks its CPU flash kernel for these shapes on its own (no sdpa_kernel needed).
    def run(q, k, v, causal):
        return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                              v.transpose(1, 2),
                                              is_causal=causal).transpose(1, 2)

    return run


def _progress(problem_results: List[Result]):
    """One line per problem and mode on stderr, so a long run shows where it is."""
    for mode in dict.fromkeys(r.mode for r in problem_results):
        first = problem_results[0]
        cells = ", ".join(f"{r.impl} {_cell(r)}" for r in problem_results if r.mode == mode)
        print(f"  D={first.head_dim} N={first.seqlen} B={first.batch} H={first.heads}"
              f"{' causal' if first.causal else ''} {first.dtype} {mode}: {cells}",
              file=sys.stderr, flush=True)


# ---- reporting ----------------------------------------------------------------------------


def _cell(r: Result, unit_scale=1.0) -> str:
    if r.status != "ok":
        return "n/a"
    value = r.tflops * unit_scale
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def table(results: List[Result], row_keys, title, unit_scale=1.0, unit="TFLOP/s") -> str:
    impls = list(dict.fromkeys(r.impl for r in results))
    rows: Dict[tuple, Dict[str, Result]] = {}
    for r in results:
        rows.setdefault(tuple(getattr(r, k) if hasattr(r, k) else r.extra[k] for k in row_keys),
                        {})[r.impl] = r
    lines = [f"### {title} ({unit})", "",
             "| " + " | ".join(list(row_keys) + impls) + " |",
             "| " + " | ".join(["---"] * (len(row_keys) + len(impls))) + " |"]
    reasons = {}
    for key, by_impl in rows.items():
        cells = []
        for impl in impls:
            r = by_impl.get(impl)
            cells.append(_cell(r, unit_scale) if r else "")
            if r and r.status != "ok":
                reasons.setdefault((impl, r.reason), None)
        lines.append("| " + " | ".join([str(x) for x in key] + cells) + " |")
    if reasons:
        lines += ["", "n/a reasons:"] + [f"- {impl}: {reason}" for impl, reason in reasons]
    errors = [r.rel_err_vs_sdpa for r in results if r.rel_err_vs_sdpa is not None]
    if errors:
        lines += ["", f"largest relative error of a fattn output vs SDPA's: {max(errors):.2e}"]
    return "\n".join(lines) + "\n"


# Rounds of one implementation that disagree by more than this are worth a second look.
ROUND_SPREAD_NOTE = 1.15


def round_spread_lines(results: List[Result]) -> List[str]:
    """The points whose rounds disagree (slowest / fastest round above ROUND_SPREAD_NOTE), so a
    transient that the median dropped still shows in the report."""
    lines = []
    for r in results:
        rounds = r.extra.get("round_ms")
        if not rounds or max(rounds) <= ROUND_SPREAD_NOTE * min(rounds):
            continue
        clocks = r.extra.get("round_sm_mhz")
        clock_text = f"; SM MHz {clocks}" if clocks else ""
        lines.append(f"- {r.impl} {r.mode} D={r.head_dim} N={r.seqlen}"
                     f"{' causal' if r.causal else ''}: rounds "
                     f"{', '.join(f'{ms:.3f}' for ms in rounds)} ms{clock_text}")
    if not lines:
        return []
    return ([f"Rounds more than {100 * (ROUND_SPREAD_NOTE - 1):.0f} % apart (the median is "
             "reported):", ""] + lines + [""])


def ratio_summary(results: List[Result], ours="fattn:auto", peer="sdpa:cudnn") -> str:
    rows = [asdict(r) for r in results]
    lines = []
    for mode in MODES:
        ratios = list(paired_ratios(rows, ours, peer, mode).values())
        if ratios:
            lines.append(f"- {mode}: {ours} / {peer} geometric mean {geometric_mean(ratios):.2f}× "
                         f"over {len(ratios)} points, lowest {min(ratios):.2f}×")
    return "\n".join(lines)


def plot_sweep(results: List[Result], path: Path, title: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    head_dims = sorted({r.head_dim for r in results})
    panels = [(mode, causal) for mode in MODES for causal in (False, True)
              if any(r.mode == mode and r.causal == causal for r in results)]
    impls = list(dict.fromkeys(r.impl for r in results))
    fig, axes = plt.subplots(len(panels), len(head_dims), squeeze=False,
                             figsize=(4.2 * len(head_dims), 3.2 * len(panels)))
    for row, (mode, causal) in enumerate(panels):
        for col, head_dim in enumerate(head_dims):
            ax = axes[row][col]
            for impl in impls:
                points = sorted((r.seqlen, r.tflops) for r in results
                                if r.impl == impl and r.mode == mode and r.causal == causal
                                and r.head_dim == head_dim and r.status == "ok")
                if points:
                    style = "-o" if impl.startswith("fattn") else "--s"
                    ax.plot(*zip(*points), style, label=impl, markersize=3)
            ax.set_xscale("log", base=2)
            seqlens = sorted({r.seqlen for r in results})
            ax.set_xticks(seqlens, [str(n) for n in seqlens], fontsize=7)
            ax.minorticks_off()
            ax.set_ylim(bottom=0)
            ax.set_title(f"D={head_dim}, {mode}{', causal' if causal else ''}", fontsize=9)
            ax.set_xlabel("seqlen N")
            ax.set_ylabel("TFLOP/s")
            ax.grid(alpha=0.3)
    handles, labels = [], []
    for ax in axes.flat:  # the union of the lines: a panel may lack an implementation
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    fig.suptitle(title, y=0.995, fontsize=10)
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.975),
               ncol=min(len(labels), 5), fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def plot_bars(results: List[Result], path: Path, title: str, group_keys, unit_scale, unit):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = list(dict.fromkeys(
        tuple(getattr(r, k) if hasattr(r, k) else r.extra[k] for k in group_keys)
        for r in results))
    impls = list(dict.fromkeys(r.impl for r in results))
    width = 0.8 / max(1, len(impls))
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(groups) * max(1, len(impls)) / 2), 4))
    for i, impl in enumerate(impls):
        heights = []
        for g in groups:
            match = [r for r in results if r.impl == impl and r.status == "ok" and tuple(
                getattr(r, k) if hasattr(r, k) else r.extra[k] for k in group_keys) == g]
            heights.append(match[0].tflops * unit_scale if match else 0.0)
        positions = [x + i * width for x in range(len(groups))]
        ax.bar(positions, heights, width, label=impl)
        for x, height in zip(positions, heights):
            if height == 0.0:  # not run: say so rather than draw an empty slot
                ax.text(x, 0, "n/a", ha="center", va="bottom", rotation=90, fontsize=7)
    ax.set_xticks([x + width * (len(impls) - 1) / 2 for x in range(len(groups))])
    ax.set_xticklabels([", ".join(f"{k}={v}" for k, v in zip(group_keys, g)) for g in groups],
                       rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(unit)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---- main ---------------------------------------------------------------------------------


def device_description(device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return platform.processor() or platform.machine()


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def parse_args(argv=None):
    def ints(text):
        return [int(x) for x in text.split(",") if x]

    def names(text):
        return [x for x in text.split(",") if x]

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="N in {1024, 4096, 16384}, short timing windows, fewer CPU points")
    parser.add_argument("--sections", type=names,
                        default=["ceilings", "sweep", "head-dim", "simt", "cpu"],
                        help="comma-separated: ceilings, sweep, head-dim, simt, cpu")
    parser.add_argument("--out", type=Path, help="path prefix of the JSON/markdown/PNG outputs")
    parser.add_argument("--out-dir", type=Path, default=RESULTS_DIR,
                        help="folder for the default prefix compare-<device>-<date>[-quick]")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                        help="device of the GPU sections (cpu only for smoke runs)")
    parser.add_argument("--dtype", choices=list(DTYPES), default="bf16")
    parser.add_argument("--head-dims", type=ints, default=SWEEP_HEAD_DIMS)
    parser.add_argument("--seqlens", type=ints)
    parser.add_argument("--causal", type=lambda t: [x == "1" for x in t.split(",")],
                        default=[False, True], help="0,1 (default), 0 or 1")
    parser.add_argument("--modes", type=names, default=MODES)
    parser.add_argument("--tokens", type=int, default=TOKENS, help="batch × seqlen")
    parser.add_argument("--width", type=int, default=WIDTH, help="heads × head_dim")
    parser.add_argument("--fattn-backends", type=names, default=DEFAULT_FATTN_BACKENDS,
                        help="fattn backends to time (auto, cuda_sm90, ...); a name ending in "
                             f"'{DETERMINISTIC_SUFFIX}' times that backend's deterministic "
                             "backward (fwd+bwd only)")
    parser.add_argument("--sdpa-backends", type=names, default=list(SDPA_BACKENDS))
    parser.add_argument("--sweep-head-dims", type=ints, default=HEAD_DIM_SWEEP)
    parser.add_argument("--sweep-seqlen", type=int, default=HEAD_DIM_SWEEP_SHAPE["seqlen"])
    parser.add_argument("--sweep-dtype", choices=list(DTYPES), default="fp16")
    parser.add_argument("--sweep-modes", type=names, default=["fwd"],
                        help="modes of the head-dim sweep: fwd (default), fwd+bwd or both")
    parser.add_argument("--cpu-threads", type=ints, default=CPU_THREADS)
    parser.add_argument("--cpu-seqlens", type=ints,
                        help="CPU sequence lengths (each causal and not); default TARGETS.md's")
    parser.add_argument("--cpu-reps", type=int)
    parser.add_argument("--warmup-ms", type=float)
    parser.add_argument("--rep-ms", type=float)
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                        help="rounds per problem and mode: every implementation is timed once per "
                             "round (order rotated), and its median over the rounds reported")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    args.seqlens = args.seqlens or (QUICK_SEQLENS if args.quick else SWEEP_SEQLENS)
    args.cpu_cases = ([(n, c) for n in args.cpu_seqlens for c in (False, True)]
                      if args.cpu_seqlens else (QUICK_CPU_CASES if args.quick else CPU_CASES))
    args.cpu_reps = args.cpu_reps or (3 if args.quick else 5)
    args.warmup_ms = args.warmup_ms or (10 if args.quick else 25)
    args.rep_ms = args.rep_ms or (40 if args.quick else 100)
    unknown = set(args.sdpa_backends) - set(SDPA_BACKENDS)
    if unknown:
        parser.error(f"unknown SDPA backends {sorted(unknown)}; known: {list(SDPA_BACKENDS)}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    device = torch.device(args.device)
    description = device_description(device)
    date = datetime.datetime.now(datetime.timezone.utc)
    default_name = f"compare-{slug(description)}-{date:%Y-%m-%d}{'-quick' if args.quick else ''}"
    prefix = args.out or args.out_dir / default_name
    prefix.parent.mkdir(parents=True, exist_ok=True)
    timer = Timer(device, args.warmup_ms, args.rep_ms, cpu_reps=args.cpu_reps,
                  rounds=args.rounds)
    report = {
        "meta": {
            "date_utc": date.isoformat(timespec="seconds"),
            "device": description,
            "torch": torch.__version__,
            "cudnn": torch.backends.cudnn.version() if device.type == "cuda" else None,
            "fattn": fattn.__version__,
            "fattn_backends_compiled": fattn.backends(),
            "cpu_count": os.cpu_count(),
            "argv": sys.argv[1:] if argv is None else argv,
            "conventions": "TFLOP/s with FA's FLOP count (fwd 4·B·H·N²·D, halved when causal; "
                           "fwd+bwd 3.5×); GPU: median over rounds of do_bench medians "
                           "(or CUDA events)",
        },
    }
    versions = (f"torch {torch.__version__}, fattn {fattn.__version__} "
                f"(backends: {', '.join(fattn.backends())})")
    markdown: List[str] = []

    def emit(lines: List[str]):
        # Print and save after every section: a run cut short keeps what it measured.
        text = "\n".join(lines)
        print(text, flush=True)
        markdown.append(text)
        Path(f"{prefix}.md").write_text("\n".join(markdown) + "\n")
        Path(f"{prefix}.json").write_text(json.dumps(report, indent=1))

    emit([f"# fattn vs PyTorch SDPA — {description}, {date:%Y-%m-%d %H:%M} UTC", "", versions,
          ""])
    gpu = device.type == "cuda"
    if "ceilings" in args.sections and gpu:
        ceilings = measure_ceilings(timer)
        report["ceilings"] = ceilings
        emit(["### Ceilings measured in this run", "",
              f"- device copy: {ceilings['copy_TBps']:.2f} TB/s (read + written)",
              f"- bf16 GEMM 8192³: {ceilings['bf16_gemm_8192_TFLOPs']:.0f} TFLOP/s", ""])
    # The CPU comparison is short and comes first, so a GPU sweep cut short cannot lose it.
    if "cpu" in args.sections:
        cpu = cpu_comparison(args)
        report["cpu"] = [asdict(r) for r in cpu]
        emit([table(cpu, ("threads", "seqlen", "causal"), "CPU fp32 fwd, B=1, H=16, D=128",
                    unit_scale=1e3, unit="GFLOP/s")])
        if not args.no_plot:
            plot_bars(cpu, Path(f"{prefix}-cpu.png"),
                      f"CPU ({platform.machine()}, {os.cpu_count()} cores): fp32 fwd, "
                      f"B=1, H=16, D=128", ("threads", "seqlen", "causal"), 1e3, "GFLOP/s")
    if "sweep" in args.sections:
        sweep = gpu_sweep(args, timer, device)
        report["sweep"] = [asdict(r) for r in sweep]
        tables = [table([r for r in sweep if r.mode == mode and r.causal == causal],
                        ("head_dim", "seqlen"),
                        f"{args.dtype} {mode}{', causal' if causal else ''}, "
                        f"B·N={args.tokens}, H·D={args.width}")
                  for mode in args.modes for causal in args.causal]
        summary = ratio_summary(sweep)
        if summary:
            tables += ["### fattn (auto) vs cuDNN, same run", "", summary, ""]
        emit(tables + round_spread_lines(sweep))
        if not args.no_plot:
            plot_sweep(sweep, Path(f"{prefix}-sweep.png"),
                       f"{description}: {args.dtype}, B·N={args.tokens}, H·D={args.width}")
    if "head-dim" in args.sections:
        sweep = head_dim_sweep(args, timer, device)
        report["head_dim_sweep"] = [asdict(r) for r in sweep]
        sweep_keys = ("head_dim",) if len(args.sweep_modes) == 1 else ("head_dim", "mode")
        sweep_modes = ", ".join(args.sweep_modes)
        emit([table(sweep, sweep_keys,
                    f"head-dim sweep, {args.sweep_dtype} {sweep_modes}, B=16, H=16, "
                    f"N={args.sweep_seqlen} (FLOPs counted with the real D)")]
             + round_spread_lines(sweep))
        if not args.no_plot:
            plot_bars(sweep, Path(f"{prefix}-headdim.png"),
                      f"{description}: head-dim sweep, {args.sweep_dtype} {sweep_modes}",
                      sweep_keys, 1.0, "TFLOP/s")
    if "simt" in args.sections and gpu:
        simt = simt_comparison(args, timer, device)
        peak, how = fp32_fma_peak_tflops(device)
        report["simt"] = [asdict(r) for r in simt]
        report["fp32_fma_peak_TFLOPs"] = peak
        emit([table(simt, ("head_dim", "seqlen", "causal"),
                    f"fp32 fwd (CUDA cores), B·N={args.tokens}, H·D={args.width}")]
             + simt_peak_lines(simt, peak, how) + round_spread_lines(simt))
    print(f"wrote {prefix}.json, {prefix}.md" + ("" if args.no_plot else " and PNG plots"),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
