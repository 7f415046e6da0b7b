"""What bench/sm80_vs_torch.py and bench/sm90_vs_cudnn.py share: the ctypes signature of the
shims' forward entry point, random inputs in the tested layouts, the bottom-right-aligned mask,
CUDA-event timing and the bf16 GEMM ceiling. Imported by those scripts from their own folder."""

import contextlib
import ctypes
import json
import os
import statistics

import torch

# name -> (torch dtype, the shims' dtype code)
DTYPES = {"fp16": (torch.float16, 0), "bf16": (torch.bfloat16, 1)}
# Relative error bounds against the fp32 reference (16-bit storage of inputs and outputs).
TOLERANCE = {"fp16": 4e-3, "bf16": 2e-2}
LSE_TOLERANCE = 1e-3
ERROR_BYTES = 512  # the message buffer handed to the shims
GEMM_SIZE = 8192  # the square bf16 GEMM whose throughput is reported as the ceiling

# fattn_sm80_forward and fattn_sm90_forward: q, k, v, out, lse, dtype, B, Nq, Nk, Hq, Hkv, D,
# four stride triples, scale, causal, window left/right, stream, error buffer and its size.
FORWARD_ARGTYPES = ([ctypes.c_void_p] * 5 + [ctypes.c_int] + [ctypes.c_int64] * 6 +
                    [ctypes.POINTER(ctypes.c_int64)] * 4 +
                    [ctypes.c_float, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                     ctypes.c_char_p, ctypes.c_int])
# fattn_sm80_backward (bench/sm80_shim.cu and the timeline shim): q, k, v, out, dout, lse, dq, dk,
# dv, dtype, B, Nq, Nk, Hq, Hkv, D, the stride triples (one array), scale, causal, window
# left/right, deterministic, stream, error buffer and its size.
SM80_BACKWARD_ARGTYPES = ([ctypes.c_void_p] * 9 + [ctypes.c_int] + [ctypes.c_int64] * 6 +
                          [ctypes.POINTER(ctypes.c_int64)] +
                          [ctypes.c_float, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                           ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int])


def load_forward_shim(path, symbol="fattn_sm90_forward"):
    """A bench shim (ctypes library) with its forward entry point typed (FORWARD_ARGTYPES)."""
    lib = ctypes.CDLL(os.path.abspath(path))
    entry = getattr(lib, symbol)
    entry.argtypes = FORWARD_ARGTYPES
    entry.restype = ctypes.c_int
    return lib


def int_list(text):
    """'1024,4096' -> [1024, 4096] (the scripts' comma-separated options)."""
    return [int(x) for x in text.split(",") if x]


def strides3(t):
    s = t.stride()
    return [s[0], s[1], s[2]]


def call_forward(fn, error, q, k, v, out, lse, dtype, scale, causal, left, right):
    """Calls a shim's forward entry point; raises with the shim's message on failure."""
    def st(t):
        return (ctypes.c_int64 * 3)(*strides3(t))
    B, Nq, Hq, D = q.shape
    rc = fn(q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), lse.data_ptr(),
            DTYPES[dtype][1], B, Nq, k.shape[1], Hq, k.shape[2], D, st(q), st(k), st(v), st(out),
            scale, int(causal), left, right,
            ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), error, ERROR_BYTES)
    if rc != 0:
        raise RuntimeError(error.value.decode())


def mask_of(Nq, Nk, causal, left, right, device):
    """True where flash_attn's bottom-right-aligned causal/window mask hides a key."""
    rows = torch.arange(Nq, device=device)[:, None]
    cols = torch.arange(Nk, device=device)[None, :]
    diagonal = rows + (Nk - Nq)
    if causal:
        right = 0
    masked = torch.zeros(Nq, Nk, dtype=torch.bool, device=device)
    if right >= 0:
        masked |= cols > diagonal + right
    if left >= 0:
        masked |= cols < diagonal - left
    return masked


def mask_name(causal, left, right):
    return "causal" if causal else (f"window({left},{right})" if left >= 0 or right >= 0 else "none")


def make(dtype, B, S, H, D, layout, gen):
    """Random tensor. layout: 'bshd' packed, 'bhsd' (a transposed view), 'pad' (rows padded)."""
    t = DTYPES[dtype][0]
    if layout == "bhsd":
        return torch.randn(B, H, S, D, device="cuda", generator=gen).to(t).transpose(1, 2)
    if layout == "pad":
        pad = (-D) % 8 + 8
        return torch.randn(B, S, H, D + pad, device="cuda", generator=gen).to(t)[..., :D]
    return torch.randn(B, S, H, D, device="cuda", generator=gen).to(t)


def time_ms(fn, reps, inner, warmup, prefill_cycles=0):
    """Median over `reps` of the mean time of `inner` back-to-back calls (CUDA events). Batching
    keeps the GPU queue full, so host launch latency (ctypes, Python) is not counted as GPU time.
    prefill_cycles > 0: a sleep kernel of that many cycles runs before each start event, so that
    the first timed launches are queued behind it too (no launch gap inside the timed span)."""
    return time_in_turns([("fn", fn, None)], reps, inner, warmup, prefill_cycles)["fn"]


def time_in_turns(contestants, reps, inner, warmup, prefill_cycles=0):
    """Like time_ms, for several contestants at once: each of the `reps` rounds times every
    contestant's batch of `inner` calls, in an order that rotates by one from round to round, and
    each contestant's median over the rounds is returned ({name: ms}). Timed one after the other
    (a whole contestant, then the next), byte-identical kernels read up to 10 % apart on an H100
    (clock and power drift over the seconds a sweep point takes, and the first contestant after
    a pause running cooler; docs/perf-notes.md "v13"); in turns every contestant sees the same
    drift. contestants: [(name, fn, context)] where context() returns a context manager entered
    around that contestant's batches (e.g. an SDPA backend), or None."""
    for _, fn, context in contestants:
        with (context() if context else contextlib.nullcontext()):
            for _ in range(warmup):
                fn()
    times = {name: [] for name, _, _ in contestants}
    for round_index in range(reps):
        shift = round_index % len(contestants)
        spans = []
        for name, fn, context in contestants[shift:] + contestants[:shift]:
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            with (context() if context else contextlib.nullcontext()):
                if prefill_cycles:
                    torch.cuda._sleep(prefill_cycles)
                a.record()
                for _ in range(inner):
                    fn()
                b.record()
            spans.append((name, a, b))
        spans[-1][2].synchronize()
        for name, a, b in spans:
            times[name].append(a.elapsed_time(b) / inner)
    return {name: statistics.median(t) for name, t in times.items()}


def tflops_in_turns(contestants, flops, runs, reps, inner=10, warmup=3, prefill_cycles=0):
    """`runs` whole time_in_turns sweeps of the contestants: ({name: median TFLOP/s over the
    runs}, [per-run {name: TFLOP/s}]). The runs' spread is the timing noise a report shows."""
    per_run = []
    for _ in range(runs):
        ms = time_in_turns(contestants, reps=reps, inner=inner, warmup=warmup,
                           prefill_cycles=prefill_cycles)
        per_run.append({name: flops / t / 1e9 for name, t in ms.items()})
    return {name: statistics.median(r[name] for r in per_run) for name in per_run[0]}, per_run


def gemm_ceiling(time_fn, reps):
    """bf16 GEMM TFLOP/s, timed with the caller's `time_fn` (its own inner/warmup counts)."""
    a = torch.randn(GEMM_SIZE, GEMM_SIZE, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(GEMM_SIZE, GEMM_SIZE, device="cuda", dtype=torch.bfloat16)
    ms = time_fn(lambda: torch.matmul(a, b), reps=reps)
    return 2 * GEMM_SIZE ** 3 / ms / 1e9


def finish(report, json_path, failures):
    """Writes the report (if a path was given) and returns the script's exit status."""
    if json_path:
        with open(json_path, "w") as f:
            json.dump(report, f, indent=1)
    return 1 if failures else 0
