#!/usr/bin/env python3
"""Where one benchmark point's time goes: torch.profiler over a few timed calls of one
implementation, as bench/compare.py times them (same shapes, same call), printing the wall time
per call beside the sum of the GPU activities it launched, then the activities themselves.

Written for the ninth session's open question: fattn auto's forward+backward at D = 256,
N = 512 causal read ~0.2 ms more in compare.py than its kernels summed in a CUPTI trace.
Example (GPU machine, package installed):
    python3 bench/profile_point.py --head-dim 256 --seqlen 512 --causal --mode fwd+bwd
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402  (bench/compare.py: the runners and the shape convention)

def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--head-dim", type=int, default=256)
    parser.add_argument("--seqlen", type=int, default=512)
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--mode", choices=["fwd", "fwd+bwd"], default="fwd+bwd")
    parser.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    parser.add_argument("--impl", default="fattn:auto",
                        help="fattn:<backend> or sdpa:<flash|cudnn|efficient>")
    parser.add_argument("--calls", type=int, default=10, help="profiled calls after warm-up")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--json", type=Path, help="also write the summary here")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if not torch.cuda.is_available():
        print("profile_point: no CUDA device; nothing to profile")
        return 0
    dtype = compare.DTYPES[args.dtype]
    batch = max(1, compare.TOKENS // args.seqlen)  # the sweep's convention
    heads = max(1, compare.WIDTH // args.head_dim)
    shape = (batch, args.seqlen, heads, args.head_dim)
    torch.manual_seed(0)
    q, k, v = (torch.randn(shape, device="cuda", dtype=dtype) for _ in range(3))
    call = compare.repeatable_call(compare.runner_for(args.impl), q, k, v, args.causal,
                                   args.mode)
    for _ in range(args.warmup):
        call()
    torch.cuda.synchronize()

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        start.record()
        for _ in range(args.calls):
            call()
        end.record()
        torch.cuda.synchronize()
    wall_ms = start.elapsed_time(end) / args.calls

    device_events = [e for e in prof.key_averages()
                     if getattr(e, "device_time_total", 0) > 0 and e.device_type.name == "CUDA"]
    device_events.sort(key=lambda e: e.device_time_total, reverse=True)
    device_ms = sum(e.device_time_total for e in device_events) / 1000.0 / args.calls
    print(f"{args.impl} {args.mode} B={batch} N={args.seqlen} H={heads} D={args.head_dim} "
          f"causal={args.causal} {args.dtype}")
    print(f"  wall per call (CUDA events around {args.calls} calls): {wall_ms:.3f} ms")
    print(f"  GPU activities per call (profiler sum):              {device_ms:.3f} ms")
    print(f"  not GPU activity (launch gaps, host waits):          {wall_ms - device_ms:.3f} ms")
    rows = []
    for e in device_events:
        per_call_us = e.device_time_total / args.calls
        rows.append({"name": e.key, "count_per_call": e.count / args.calls, "us_per_call": per_call_us})
        print(f"  {per_call_us:9.1f} us  x{e.count / args.calls:4.1f}  {e.key[:110]}")
    host_rows = sorted((e for e in prof.key_averages() if e.device_type.name == "CPU"),
                       key=lambda e: e.cpu_time_total, reverse=True)[:12]
    print("  host operators (CPU time per call):")
    for e in host_rows:
        print(f"  {e.cpu_time_total / args.calls:9.1f} us  x{e.count / args.calls:4.1f}  {e.key[:110]}")
    if args.json:
        args.json.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                         "wall_ms": wall_ms, "device_ms": device_ms,
                                         "device": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
