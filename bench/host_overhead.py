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
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("host_overhead: no CUDA device; nothing to measure")
        return 0
    dtype = compare.DTYPES[args.dtype]
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
