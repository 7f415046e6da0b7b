#!/usr/bin/env python3
"""One sm90 forward launch per (point, lib), for Nsight Compute (h16-odd90): fp16 B=16 H=16
N=2048, q/k/v/out packed ("bshd") or with rows padded to D + 8 elements ("pad": q, k, v and out
views of [B, N, H, D + 8]). Prints the launch order (ncu's report lists the kernels in it).

  ncu ... python3 odd_probe.py --lib old=... --lib new=... --points "72,bshd,0,old;..."
"""
import argparse, ctypes, math, os, sys
import torch
sys.path.insert(0, os.environ.get("BENCH_DIR", "bench"))
import kernel_bench_common as common

p = argparse.ArgumentParser()
p.add_argument("--lib", action="append", default=[])
p.add_argument("--points", required=True, help="D,layout,causal,lib;...")
p.add_argument("--n", type=int, default=2048)
p.add_argument("--dtype", default="fp16")
a = p.parse_args()
libs = {}
for item in a.lib:
    name, path = item.split("=", 1)
    libs[name] = common.load_forward_shim(path)
error = ctypes.create_string_buffer(common.ERROR_BYTES)
B, H, N = 16, 16, a.n
for i, point in enumerate(a.points.split(";")):
    D, layout, causal, lib = point.split(",")
    D, causal = int(D), bool(int(causal))
    gen = torch.Generator(device="cuda"); gen.manual_seed(D)
    t = common.DTYPES[a.dtype][0]
    def make():
        if layout == "pad":
            return torch.randn(B, N, H, D + 8, device="cuda", generator=gen).to(t)[..., :D]
        return torch.randn(B, N, H, D, device="cuda", generator=gen).to(t)
    q, k, v, out = make(), make(), make(), make()
    lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
    torch.cuda.synchronize()
    common.call_forward(libs[lib].fattn_sm90_forward, error, q, k, v, out, lse, a.dtype,
                        1.0 / math.sqrt(D), causal, -1, -1)
    torch.cuda.synchronize()
    print(f"launch {i}: lib={lib} D={D} layout={layout} causal={int(causal)}", flush=True)
