#!/usr/bin/env python3
"""Host time per call beside wall time per call, for fattn and PyTorch's SDPA backends, as
bench/compare.py calls them (same runners). A call whose host time (issuing it, no sync) comes
close to its wall time (issue + run, synced once at the end) is host-bound: the GPU waits on
the launches, and a faster kernel would not show.

Why: the tenth session's profile of fattn auto fwd+bwd at D = 256 N = 512 causal summed the GPU
activities to 0.705 ms per call against ~0.9 ms in compare.py (docs/perf-notes.md, "Tenth
integrated run"). Example (GPU machine, package installed):
    python3 bench/host_overhead.py
"""
from __future__ import annotations

import argparse
import cProfile
import ctypes
import pstats
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402  (bench/compare.py: the runners, the dtype names)

# (batch, seqlen, heads, head_dim, causal): a problem whose kernels take microseconds (host time
# alone), and the sweep's D = 256 N = 512 points.
DEFAULT_SHAPES = [(1, 128, 1, 64, False), (32, 512, 8, 256, True), (32, 512, 8, 256, False),
                  (32, 512, 16, 128, True)]
# fattn-op: the same library calls through the torch.library custom op.
DEFAULT_IMPLS = ["fattn:auto", "fattn-op:auto", "sdpa:flash", "sdpa:cudnn"]
# Few enough calls that the launch queue never fills (which would make issuing wait on the GPU).
CALLS = 40
WARMUP_CALLS = 10


# CU_MEMPOOL_ATTR_RELEASE_THRESHOLD (cuda.h): bytes the pool keeps cached across
# synchronizations; the default pool's is 0, so memory freed with cudaFreeAsync goes back to the
# device at the next synchronization and the next cudaMallocAsync maps it again.
CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4
# CU_POINTER_ATTRIBUTE_MEMORY_TYPE (cuda.h), for --breakdown's pointer query.
CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2
# The backward's workspace at the smallest shape is far below this; the size only has to be
# one the pool serves without growing.
WORKSPACE_BYTES = 1 << 20


def keep_default_pool_cached() -> str:
    """Sets the current device's default memory pool to keep what it frees (the pool fattn's
    Workspace allocates from); returns what was done, for the report."""
    driver = ctypes.CDLL("libcuda.so.1")
    device = ctypes.c_int()
    pool = ctypes.c_void_p()
    threshold = ctypes.c_uint64(2**64 - 1)
    for result in (driver.cuDeviceGet(ctypes.byref(device), torch.cuda.current_device()),
                   driver.cuDeviceGetDefaultMemPool(ctypes.byref(pool), device),
                   driver.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                                ctypes.byref(threshold))):
        if result != 0:
            return f"could not set the pool's release threshold (CUresult {result})"
    return "default memory pool: release threshold set to the maximum"


def custom_op_runner(backend: str):
    """fattn through its torch.library custom op (the path torch.compile traces), for the
    eager path's comparison."""
    def run(q, k, v, causal):
        return torch.ops.fattn.fwd(q, k, v, None, causal, -1, -1, backend, False, 0)[0]
    return run


def runner(impl: str):
    family, _, name = impl.partition(":")
    if family == "fattn-op":
        return custom_op_runner(name)
    return compare.runner_for(impl)


def make_call(run, shape, mode, dtype):
    batch, seqlen, heads, head_dim, causal = shape
    q, k, v = (torch.randn(batch, seqlen, heads, head_dim, device="cuda", dtype=dtype)
               for _ in range(3))
    return compare.repeatable_call(run, q, k, v, causal, mode)


def measure(call):
    """(host ms per call, wall ms per call)."""
    for _ in range(WARMUP_CALLS):
        call()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(CALLS):
        call()
    issued = time.perf_counter()
    torch.cuda.synchronize()
    done = time.perf_counter()
    return (issued - start) * 1e3 / CALLS, (done - start) * 1e3 / CALLS


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--impls", default=",".join(DEFAULT_IMPLS))
    parser.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    parser.add_argument("--cprofile", action="store_true",
                        help="instead: cProfile of fattn auto's fwd+bwd on the smallest shape "
                             "(where a call is all host time), top functions by own time")
    parser.add_argument("--breakdown", action="store_true",
                        help="instead: host microseconds of each step of fattn's torch path "
                             "(exports, stream query, allocations, the library calls alone), "
                             "on the smallest shape")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("host_overhead: no CUDA device; nothing to measure")
        return 0
    dtype = compare.DTYPES[args.dtype]
    if args.breakdown:
        breakdown(dtype)
        return 0
    if args.cprofile:
        call = make_call(runner("fattn:auto"), DEFAULT_SHAPES[0], "fwd+bwd", dtype)
        measure(call)
        profiler = cProfile.Profile()
        profiler.runcall(lambda: [call() for _ in range(CALLS)])
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return 0
    for round_name in ("as is", "pool kept"):
        if round_name == "pool kept":
            print(f"\n{keep_default_pool_cached()}\n")
        table(args, dtype)
    return 0


# Calls per timed batch and batches per step of --breakdown (the median batch is reported).
BREAKDOWN_CALLS = 200
BREAKDOWN_BATCHES = 7


def host_us(step) -> float:
    """Median host microseconds per call of `step` (issued without a sync; synced per batch)."""
    for _ in range(WARMUP_CALLS):
        step()
    torch.cuda.synchronize()
    batches = []
    for _ in range(BREAKDOWN_BATCHES):
        start = time.perf_counter()
        for _ in range(BREAKDOWN_CALLS):
            step()
        batches.append((time.perf_counter() - start) * 1e6 / BREAKDOWN_CALLS)
        torch.cuda.synchronize()
    return sorted(batches)[len(batches) // 2]


def _autograd_shell(run_forward, run_backward):
    """An autograd.Function with fattn's signature and saved tensors (q, k, v and 7 options;
    saves q, k, v, out, lse; lse non-differentiable), whose forward and backward either run
    the library (fattn._torch_ops' _run_forward / _run_backward) or only allocate their
    outputs: which half of a fwd+bwd costs what under autograd."""

    def allocate_forward(q, k, v, *options):
        return torch.empty_like(q), q.new_empty((q.shape[0], q.shape[2], q.shape[1]),
                                                dtype=torch.float32)

    def allocate_backward(dout, q, k, v, out, lse, *options):
        return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)

    class Shell(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q, k, v, *options):
            out, lse = (run_forward or allocate_forward)(q, k, v, *options)
            ctx.save_for_backward(q, k, v, out, lse)
            ctx.options = options
            ctx.mark_non_differentiable(lse)
            return out, lse

        @staticmethod
        def backward(ctx, dout, _dlse):
            q, k, v, out, lse = ctx.saved_tensors
            grads = (run_backward or allocate_backward)(dout, q, k, v, out, lse, *ctx.options)
            return tuple(grads) + (None,) * len(ctx.options)

    return Shell


def breakdown(dtype):
    """Host cost of each step of a fwd+bwd on the smallest shape, for the list of host costs
    (bench/results/host-overhead-h100-2026-11-23-s11/NOTES.md). Runs on the package found
    first on the path: the eleventh session's (torch tensors read through their attributes)
    and the tenth's (DLPack exports) report the same rows where both have the step."""
    import fattn
    from fattn import _fattn, _torch_ops

    batch, seqlen, heads, head_dim, _ = DEFAULT_SHAPES[0]
    q, k, v, dout = (torch.randn(batch, seqlen, heads, head_dim, device="cuda", dtype=dtype)
                     for _ in range(4))
    out, lse = fattn.attention(q, k, v)
    dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
    device = q.device
    stream = torch.cuda.current_stream(device).cuda_stream
    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    options = (None, False, -1, -1, "auto", False, 0)

    def device_context():
        with torch.cuda.device(device):
            pass

    def fwd_with_grad():
        fattn.attention(*leaves)

    def shell_call(run_forward, run_backward):
        shell = _autograd_shell(run_forward, run_backward)

        def call():
            shell.apply(*leaves, *options)[0].backward(dout)
            compare._clear(leaves)
        return call

    # Two driver calls the library makes per call, timed through ctypes (whose own call cost,
    # ~0.3 us, is included): the validation's pointer query (14 per fwd+bwd) and the
    # backward's stream-ordered workspace (one allocation and one free per backward).
    driver = ctypes.CDLL("libcuda.so.1")
    memory_type = ctypes.c_uint()
    workspace = ctypes.c_void_p()
    pointer = ctypes.c_void_p(q.data_ptr())
    raw_stream = ctypes.c_void_p(stream)

    def pointer_query():
        driver.cuPointerGetAttribute(ctypes.byref(memory_type),
                                     CU_POINTER_ATTRIBUTE_MEMORY_TYPE, pointer)

    def workspace_round_trip():
        driver.cuMemAllocAsync(ctypes.byref(workspace), ctypes.c_size_t(WORKSPACE_BYTES),
                               raw_stream)
        driver.cuMemFreeAsync(workspace, raw_stream)

    library_call_args = (None, False, (-1, -1), "auto", False, stream, 0)
    sdpa = compare.runner_for("sdpa:flash")
    steps = {
        "q.detach()": lambda: q.detach(),
        "q.__dlpack__() (detached)": lambda: q.__dlpack__(),
        "torch.cuda.current_stream(device).cuda_stream":
            lambda: torch.cuda.current_stream(device).cuda_stream,
        "torch._C._cuda_getCurrentRawStream(index)":
            lambda: torch._C._cuda_getCurrentRawStream(device.index),
        "with torch.cuda.device(device): pass": device_context,
        "torch.empty(q.shape, dtype, device)":
            lambda: torch.empty(q.shape, dtype=q.dtype, device=q.device),
        "torch.empty_like(q, memory_format=contiguous)":
            lambda: torch.empty_like(q, memory_format=torch.contiguous_format),
        "cuPointerGetAttribute (ctypes)": pointer_query,
        "cuMemAllocAsync + cuMemFreeAsync, 1 MiB (ctypes)": workspace_round_trip,
        "_fattn.forward (5 DLPack exports + library)":
            lambda: _fattn.forward(q, k, v, out, lse, *library_call_args),
        "_fattn.backward (9 DLPack exports + library)":
            lambda: _fattn.backward(q, k, v, out, dout, lse, dq, dk, dv, *library_call_args),
        "_fattn.forward_torch (attributes + library)":
            lambda: _fattn.forward_torch(q, k, v, out, lse, *library_call_args),
        "_fattn.backward_torch (attributes + library)":
            lambda: _fattn.backward_torch(q, k, v, out, dout, lse, dq, dk, dv,
                                          *library_call_args),
        "_torch_ops._run_forward, no autograd": lambda: _torch_ops._run_forward(q, k, v, *options),
        "_torch_ops._run_backward, no autograd":
            lambda: _torch_ops._run_backward(dout, q, k, v, out, lse, *options),
        "fattn.attention, no_grad": compare.repeatable_call(
            compare.runner_for("fattn:auto"), q, k, v, False, "fwd"),
        "fattn.attention, grad mode, no backward": fwd_with_grad,
        "fattn.attention fwd+bwd": compare.repeatable_call(
            compare.runner_for("fattn:auto"), q, k, v, False, "fwd+bwd"),
        "autograd shell fwd+bwd, allocations only": shell_call(None, None),
        "autograd shell, library forward only": shell_call(_torch_ops._run_forward, None),
        "autograd shell, library backward only": shell_call(None, _torch_ops._run_backward),
        "autograd shell, library both": shell_call(_torch_ops._run_forward,
                                                   _torch_ops._run_backward),
        "SDPA flash fwd+bwd": compare.repeatable_call(sdpa, q, k, v, False, "fwd+bwd"),
    }
    print(f"package: {fattn.__file__}")
    print(f"| step (B={batch} N={seqlen} H={heads} D={head_dim}) | host us/call |")
    print("| --- | --- |")
    for name, step in steps.items():
        try:
            print(f"| {name} | {host_us(step):.1f} |", flush=True)
        except (RuntimeError, AttributeError, TypeError) as error:
            print(f"| {name} | n/a: {compare.first_line(error)} |", flush=True)
    print(f"\n{keep_default_pool_cached()}\n")
    for name in ("_fattn.backward (9 DLPack exports + library)", "fattn.attention fwd+bwd"):
        print(f"| {name}, pool kept | {host_us(steps[name]):.1f} |", flush=True)


def table(args, dtype):
    print("| impl | B | N | H | D | causal | mode | host ms/call | wall ms/call | host/wall |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for impl in args.impls.split(","):
        run = runner(impl)
        for shape in DEFAULT_SHAPES:
            for mode in ("fwd", "fwd+bwd"):
                try:
                    host, wall = measure(make_call(run, shape, mode, dtype))
                except RuntimeError as error:
                    print(f"| {impl} | {' | '.join(map(str, shape))} | {mode} | n/a: "
                          f"{compare.first_line(error)} | | |")
                    continue
                print(f"| {impl} | {' | '.join(map(str, shape))} | {mode} | {host:.3f} | "
                      f"{wall:.3f} | {host / wall:.2f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
