#!/usr/bin/env python3
"""h13-fwd80b: the 256 bucket's forward against the fp32 reference (bench/sm80_vs_torch.py's
reference and error bounds) at the head dims whose copies v14 changes: 200 and 208 (the 13-step
kernel), 216-256 (the table's tile; 216, 232 and 248 leave a zero chunk inside the walk's
columns, which v14 zeroes once per CTA instead of per tile), and 250 in a padded layout (16-byte-
aligned rows, head dim not whole chunks: the general copy). Whole and partial K/V tiles, causal,
window, fully masked rows, GQA, both dtypes, for each shim given.
  python3 check14.py --libs OLD.so,NEW.so"""
import argparse, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import torch
import kernel_bench_common as common
from kernel_bench_common import make
from sm80_vs_torch import Sm80, reference, poisoned_like, rel_err

DIMS = [200, 208, 216, 224, 232, 240, 248, 250, 256]
# (B, Nq, Nk, Hq, Hkv, causal, left, right, layout)
SHAPES = [
    (2, 1013, 1013, 4, 2, False, -1, -1, "bshd"),
    (1, 1013, 1013, 2, 2, True, -1, -1, "pad"),
    (1, 777, 901, 4, 2, False, 64, 16, "bshd"),
    (1, 1013, 17, 2, 2, True, -1, -1, "bhsd"),
    (2, 300, 640, 4, 2, False, -1, -1, "bshd"),  # whole K/V tiles only (64 and 128 keys)
    (1, 640, 640, 2, 1, True, -1, -1, "pad"),
]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--libs", required=True)
    a = p.parse_args()
    libs = [Sm80(x) for x in a.libs.split(",")]
    failures, worst = 0, [0.0] * len(libs)
    gen = torch.Generator(device="cuda")
    n = 0
    for D in DIMS:
        for dtype in ("fp16", "bf16"):
            for B, Nq, Nk, Hq, Hkv, causal, left, right, layout in SHAPES:
                if D == 250 and layout != "pad":
                    continue
                gen.manual_seed(n)
                n += 1
                q = make(dtype, B, Nq, Hq, D, layout, gen)
                k = make(dtype, B, Nk, Hkv, D, layout, gen)
                v = make(dtype, B, Nk, Hkv, D, layout, gen)
                scale = D ** -0.5
                ref, ref_lse, _ = reference(q, k, v, None, scale, causal, left, right)
                for i, lib in enumerate(libs):
                    lib.lib.fattn_sm80_set_forward_variant(0)
                    o = poisoned_like(q, layout)
                    lse = torch.empty(B, Hq, Nq, device="cuda", dtype=torch.float32)
                    lib.forward(q, k, v, o, lse, dtype, scale, causal, left, right)
                    torch.cuda.synchronize()
                    err = rel_err(o.float(), ref)
                    fin = torch.isfinite(ref_lse)
                    lse_err = (lse[fin] - ref_lse[fin]).abs().max().item() if fin.any() else 0.0
                    worst[i] = max(worst[i], err)
                    ok = err <= common.TOLERANCE[dtype] and lse_err <= common.LSE_TOLERANCE
                    if not ok:
                        failures += 1
                        print(f"FAIL lib {i} D={D} {dtype} {(B, Nq, Nk, Hq, Hkv, causal, left, right, layout)}"
                              f": err {err:.2e} lse {lse_err:.2e}", flush=True)
    print(f"check: {n} cases x {len(libs)} libs, {failures} failures; max rel err per lib "
          + " ".join(f"{w:.2e}" for w in worst))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
