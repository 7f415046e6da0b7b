#!/usr/bin/env python3
"""h17-odd80: the sm80 forward of the shim's table (variant 0) and variants 31..35 (bench/
sm80_odd_variants.cu) against a float32 torch reference (output and LSE) at D = 193..208, fp16 and
bf16: non-causal and causal (bottom-right aligned), GQA, partial key tiles, fully masked rows
(Nq > Nk causal), a negative scale.

  PYTHONPATH=bench python3 check_s17.py --lib SHIM [--variants 0,31,32,33,34,35] [--cases 2]
"""
import argparse, math, os, sys
import torch
import kernel_bench_common as common
from kernel_bench_common import DTYPES, TOLERANCE, LSE_TOLERANCE, mask_of
from sm80_vs_torch import Sm80, rel_err

# (D, B, Nq, Nk, Hq, Hkv, causal, scale sign)
CASES = [
    (200, 2, 1024, 1024, 4, 4, False, 1),
    (200, 2, 1024, 1024, 4, 4, True, 1),
    (200, 1, 777, 777, 8, 2, True, 1),      # GQA, partial last key tile
    (200, 1, 17, 1013, 6, 3, True, 1),      # GQA, one query tile, causal with Nk > Nq
    (200, 1, 1013, 17, 4, 1, True, 1),      # fully masked rows (Nq > Nk, bottom-right causal)
    (200, 1, 300, 300, 4, 4, False, -1),    # negative scale
    (193, 1, 300, 333, 4, 2, False, 1),     # halved class, GQA
    (201, 1, 515, 515, 4, 4, True, 1),      # whole 13th step
    (208, 2, 640, 640, 2, 2, False, 1),     # the class's last head dim
]


def reference(q, k, v, scale, causal):
    B, Nq, Hq, D = q.shape
    Nk, Hkv = k.shape[1], k.shape[2]
    g = Hq // Hkv
    qf = q.float().transpose(1, 2)
    kf = k.float().repeat_interleave(g, dim=2).transpose(1, 2)
    vf = v.float().repeat_interleave(g, dim=2).transpose(1, 2)
    s = torch.matmul(qf, kf.transpose(-1, -2)) * scale
    if causal:
        s = s.masked_fill(mask_of(Nq, Nk, True, -1, -1, q.device), float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None].clamp(min=-1e30))
    p = torch.nan_to_num(p, nan=0.0)
    o = torch.matmul(p, vf).transpose(1, 2)
    return o, lse


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--variants", default="0,31,32,33,34,35")
    ap.add_argument("--dtypes", default="fp16,bf16")
    ap.add_argument("--cases", default="", help="indices into CASES (default all; memcheck: one)")
    a = ap.parse_args()
    sm80 = Sm80(a.lib)
    fails = 0
    indices = [int(x) for x in a.cases.split(",")] if a.cases else range(len(CASES))
    for ci in indices:
        D, B, Nq, Nk, Hq, Hkv, causal, sign = CASES[ci]
        for dtype in a.dtypes.split(","):
            gen = torch.Generator(device="cuda")
            gen.manual_seed(1234 + ci)
            t = DTYPES[dtype][0]
            q = torch.randn(B, Nq, Hq, D, device="cuda", generator=gen).to(t)
            k = torch.randn(B, Nk, Hkv, D, device="cuda", generator=gen).to(t)
            v = torch.randn(B, Nk, Hkv, D, device="cuda", generator=gen).to(t)
            scale = sign * D ** -0.5
            ro, rl = reference(q, k, v, scale, causal)
            for var in [int(x) for x in a.variants.split(",")]:
                o = torch.full_like(q, float("nan"))
                lse = torch.full((B, Hq, Nq), float("nan"), device="cuda")
                sm80.lib.fattn_sm80_set_forward_variant(var)
                try:
                    sm80.forward(q, k, v, o, lse, dtype, scale, causal)
                except RuntimeError as e:
                    print(f"FAIL D={D} {dtype} v{var} case {ci}: {e}")
                    fails += 1
                    continue
                torch.cuda.synchronize()
                err = rel_err(o.float(), ro)
                finite = torch.isfinite(rl)
                same_inf = bool((torch.isfinite(lse) == finite).all())
                lerr = (lse[finite] - rl[finite]).abs().max().item() if finite.any() else 0.0
                lse_scale = max(1.0, rl[finite].abs().max().item()) if finite.any() else 1.0
                ok = err <= TOLERANCE[dtype] and lerr <= LSE_TOLERANCE * lse_scale and same_inf
                fails += not ok
                print(f"{'ok  ' if ok else 'FAIL'} D={D} B={B} Nq={Nq} Nk={Nk} Hq={Hq} Hkv={Hkv} "
                      f"causal={int(causal)} scale={'-' if sign < 0 else '+'} {dtype} v{var}: "
                      f"out rel err {err:.2e}, lse max abs err {lerr:.2e}, -inf rows match {same_inf}",
                      flush=True)
    sm80.lib.fattn_sm80_set_forward_variant(0)
    print(f"check: {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
