#!/usr/bin/env python3
"""h13-fwd80b: the sm80 forward timed in turns, two shims side by side (--old: the committed
table, --new: the candidate, with its bf16 variants) and PyTorch's flash, as turns13.py
(bench/results/sm80-fwd-h100-2026-11-23-s13/) does for one shim. A point is 'D,N,causal' (bf16,
B·N = 16384, H·D = 2048, the sweep's shape) or 'D,N,causal,B,H,dtype' (the odd-head-dim table:
fp16, B = 16, H = 16, N = 2048). Per-run ratios new/old are printed: the GPU sits at its power
limit at large N, so the runs' clocks differ and only ratios within a run compare.
  python3 turns14.py --old OLD.so --new NEW.so --points '256,512,0;...' --variants 60,61
--profile old,v62: each named contestant once per point after the checks (ncu -k ... -c)."""
import argparse, json, os, statistics, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import torch
import kernel_bench_common as common
from kernel_bench_common import make
from sm80_vs_torch import Sm80, rel_err
from torch.nn.attention import SDPBackend, sdpa_kernel
import torch.nn.functional as F


def contestants_for(libs, point, variants, seed):
    f = point.split(",")
    D, N, causal = int(f[0]), int(f[1]), f[2] in ("1", "c")
    if len(f) > 3:
        B, H, dtype = int(f[3]), int(f[4]), f[5]
    else:
        B, H, dtype = 16384 // N, 2048 // D, "bf16"
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    q, k, v = (make(dtype, B, N, H, D, "bshd", gen) for _ in range(3))
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)

    def flash():
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
    ref = flash().transpose(1, 2).float()
    out, errs = [], {}
    runs = [("old", libs["old"], 0), ("new", libs["new"], 0)]
    if dtype == "bf16":
        runs += [(f"v{x}", libs["new"], x) for x in variants]
    for name, lib, var in runs:
        o = torch.full_like(q, float("nan"))

        def call(lib=lib, var=var, o=o):
            lib.lib.fattn_sm80_set_forward_variant(var)
            lib.forward(q, k, v, o, lse, dtype, D ** -0.5, causal)
        try:
            call()
        except RuntimeError:
            continue
        torch.cuda.synchronize()
        errs[name] = rel_err(o.float(), ref)
        out.append((name, call, None))
    out.append(("flash", flash, None))
    flops = 4 * B * H * N * N * D / (2 if causal else 1)
    return out, errs, flops, f"D={D} N={N} {'causal' if causal else 'nomask'} B={B} H={H} {dtype}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--old", required=True)
    p.add_argument("--new", required=True)
    p.add_argument("--points", required=True)
    p.add_argument("--variants", default="")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--reps", type=int, default=8)
    p.add_argument("--json")
    p.add_argument("--profile", default="",
                   help="names of contestants to run once each per point (under ncu), no timing")
    a = p.parse_args()
    libs = {"old": Sm80(a.old), "new": Sm80(a.new)}
    variants = [int(x) for x in a.variants.split(",") if x]
    rows = []
    for i, point in enumerate(a.points.split(";")):
        cont, errs, flops, tag = contestants_for(libs, point, variants, 1000 + i)
        if a.profile:
            torch.cuda.synchronize()
            for name in a.profile.split(","):
                dict((n, f) for n, f, _ in cont)[name]()
                torch.cuda.synchronize()
            print(f"{tag}: profiled {a.profile}", flush=True)
            continue
        tf, per_run = common.tflops_in_turns(cont, flops, a.runs, a.reps,
                                             prefill_cycles=4_000_000)
        rows.append(dict(point=point, tag=tag, tflops=tf, runs=per_run, checks=errs))
        base = tf["old"]
        ratios = " ".join(f"{r['new'] / r['old']:.3f}" for r in per_run)
        print(f"{tag}: " + ", ".join(f"{n} {x:.1f} ({x / base:.3f})" for n, x in tf.items()) +
              f"; new/old per run {ratios}; new/flash {tf['new'] / tf['flash']:.3f} old/flash "
              f"{base / tf['flash']:.3f}; max rel err {max(errs.values()):.1e}", flush=True)
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
