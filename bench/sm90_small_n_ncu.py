#!/usr/bin/env python3
"""One launch per contestant and point, for Nsight Compute: the sm90 forward kernels of one or
more shims (bench/sm90_timeline_build.sh or bench/sm90_build.sh) and SDPA's cuDNN kernel.

Written for the eleventh session's small-N causal question (D = 128 / 256, N = 512: our causal
kernel takes as long as our non-causal one, cuDNN's causal kernel 0.79 of its non-causal): per
kernel its grid, duration and DRAM / L2 traffic, to tell a tile-boundary cost (ours longer with
the same bytes) from a memory cost (more DRAM bytes: K/V re-read from HBM instead of L2).

  ncu --metrics <list> -k regex:'forward_kernel|fprop|sdpa|flash' --csv \\
      python3 bench/sm90_small_n_ncu.py --lib cur=LIB [--lib ...] --points "128,512,1;..."

Each contestant runs twice per point (the first launch warms up; both appear in ncu's report,
in the order this script prints).
"""

import argparse
import ctypes
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_bench_common as common  # noqa: E402

LAUNCHES_PER_CONTESTANT = 2


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lib", action="append", default=[], help="NAME=shim")
    parser.add_argument("--points", default="128,512,1;128,512,0;256,512,1;256,512,0",
                        help="D,N,causal;... (bf16, B·N = 16384, H·D = 2048)")
    parser.add_argument("--list-kernels", action="store_true",
                        help="no ncu: print the names and GPU times of the kernels each "
                             "contestant launches (torch.profiler), to pick ncu's -k filter")
    args = parser.parse_args()
    libs = {}
    for item in args.lib:
        name, path = item.split("=", 1)
        libs[name] = common.load_forward_shim(path)
    error = ctypes.create_string_buffer(common.ERROR_BYTES)
    for point in args.points.split(";"):
        D, N, causal = (int(x) for x in point.split(","))
        B, H = 16384 // N, 2048 // D
        gen = torch.Generator(device="cuda")
        gen.manual_seed(D + N)
        q, k, v = (common.make("bf16", B, N, H, D, "bshd", gen) for _ in range(3))
        out = torch.empty_like(q)
        lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
        qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
        torch.cuda.synchronize()
        contestants = [(name, lambda lib=lib: common.call_forward(
            lib.fattn_sm90_forward, error, q, k, v, out, lse, "bf16", D ** -0.5, bool(causal),
            -1, -1)) for name, lib in libs.items()]

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                F.scaled_dot_product_attention(qt, kt, vt, is_causal=bool(causal), scale=D ** -0.5)
        contestants.append(("cudnn", cudnn))
        for name, run in contestants:
            if args.list_kernels:
                run()
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    run()
                    torch.cuda.synchronize()
                for event in prof.events():
                    if event.device_type == torch.autograd.DeviceType.CUDA:
                        print(f"kernel: D={D} N={N} causal={causal} {name}: "
                              f"{event.time_range.elapsed_us():.1f} us {event.name}", flush=True)
                continue
            for launch in range(LAUNCHES_PER_CONTESTANT):
                print(f"launch: D={D} N={N} causal={causal} {name} #{launch}", flush=True)
                run()
                torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
