#!/usr/bin/env python3
"""Where the sm80 backward's causal gap to FA2 comes from, timed in turns on one shim.

  python3 bench/sm80_bwd_causal_probe.py --shim DIR/libsm80bwdtimeline.so
      [--points D,N;...]   (default 128,4096;128,16384)

The shim is bench/sm80_bwd_timeline_shim.cu built without FATTN_SM80_BWD_TIMELINE. "table" is
--table-variant: 0 (the shim's table) or 14 (the v13 tiles; call 2 of
bench/results/sm80-bwd-causal-h100-2026-11-22-s8 ran before v15, with the v13 table as 0); 15:
WarpSearchedQueryRange, 16: KeyTilesSlowestInHeadGroups, 17: both, on the v13 tiles
(backward_tile_config.hpp; v15's table is 17 at 128, 15 at 256).
Per point (bf16, B·N = 16384, H·D = 2048), after FA2's forward (its out and LSE), in turns
(kernel_bench_common.tflops_in_turns):
  - non-causal: the table's NoMask kernel, the table's WindowMask kernel on a window that masks
    nothing (left = right = N: the causal kernel's code on the non-causal work), the same with
    variant 15, and FA2's backward;
  - causal: the table, variants 15, 16, 17, FA2's backward.
The WindowMask-on-nothing row separates the kernel's code (vs NoMask) from the causal geometry.
Backward TFLOP/s = 2.5 x the forward's FLOPs (halved under the causal mask) / backward time.
"""

import argparse
import ctypes
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_bench_common as common  # noqa: E402

# bench/sm80_bwd_timeline_shim.cu
WARP_SEARCHED_RANGE_VARIANT = 15
HEAD_GROUP_ORDER_VARIANT = 16
BOTH_CAUSAL_VARIANTS = 17
TIMING_RUNS = 3
PREFILL_CYCLES = 4_000_000
NO_WINDOW = -1


def load(path):
    lib = ctypes.CDLL(os.path.abspath(path))
    lib.fattn_sm80_backward.argtypes = common.SM80_BACKWARD_ARGTYPES
    lib.fattn_sm80_backward.restype = ctypes.c_int
    lib.fattn_sm80_bwd_timeline_variant.argtypes = [ctypes.c_int]
    return lib


def rel_error(a, b):
    return float((a.float() - b.float()).norm() / b.float().norm())


def run_point(lib, D, N, reps, table_variant):
    B, H = 16384 // N, 2048 // D
    gen = torch.Generator(device="cuda")
    gen.manual_seed(D * 7 + N + 1)
    q, k, v, dout = (common.make("bf16", B, N, H, D, "bshd", gen) for _ in range(4))
    scale = D ** -0.5
    error = ctypes.create_string_buffer(common.ERROR_BYTES)
    results = {}
    for causal in (False, True):
        qt, kt, vt, dot = (x.transpose(1, 2) for x in (q, k, v, dout))
        fwd = torch.ops.aten._scaled_dot_product_flash_attention(qt, kt, vt, 0.0, causal, False,
                                                                 scale=scale)
        out = fwd[0].transpose(1, 2)
        lse = fwd[1].float().contiguous()

        def flash():
            return torch.ops.aten._scaled_dot_product_flash_attention_backward(
                dot, qt, kt, vt, fwd[0], fwd[1], fwd[2], fwd[3], fwd[4], fwd[5], 0.0, causal,
                fwd[6], fwd[7], scale=scale)

        flash_grads = tuple(x.transpose(1, 2) for x in flash()[:3])

        def ours(variant, left, right):
            grads = tuple(torch.full_like(x, float("nan")) for x in (q, k, v))
            strides = []
            for t in (q, k, v, out, dout, *grads):
                strides += common.strides3(t)
            stride_array = (ctypes.c_int64 * 24)(*strides)

            def call():
                lib.fattn_sm80_bwd_timeline_variant(variant)
                rc = lib.fattn_sm80_backward(
                    q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), dout.data_ptr(),
                    lse.data_ptr(), *(g.data_ptr() for g in grads), 1, B, N, N, H, H, D,
                    stride_array, scale, int(causal), left, right, 0,
                    ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), error,
                    common.ERROR_BYTES)
                if rc:
                    raise RuntimeError(error.value.decode())
            return call, grads

        if causal:
            runs = {"table causal": ours(table_variant, NO_WINDOW, NO_WINDOW),
                    "v15 causal": ours(WARP_SEARCHED_RANGE_VARIANT, NO_WINDOW, NO_WINDOW),
                    "v16 causal": ours(HEAD_GROUP_ORDER_VARIANT, NO_WINDOW, NO_WINDOW),
                    "v17 causal": ours(BOTH_CAUSAL_VARIANTS, NO_WINDOW, NO_WINDOW)}
        else:
            runs = {"table nomask": ours(table_variant, NO_WINDOW, NO_WINDOW),
                    "table window-nothing": ours(table_variant, N, N),
                    "v15 window-nothing": ours(WARP_SEARCHED_RANGE_VARIANT, N, N)}
        checks = {}
        for name, (call, grads) in runs.items():
            call()
            torch.cuda.synchronize()
            checks[name] = [rel_error(x, y) for x, y in zip(grads, flash_grads)]
        contestants = [(name, call, None) for name, (call, _) in runs.items()]
        contestants.append(("flash " + ("causal" if causal else "nomask"), flash, None))
        flops = 2.5 * 4 * B * H * N * N * D / (2 if causal else 1)
        tflops, per_run = common.tflops_in_turns(contestants, flops, TIMING_RUNS, reps,
                                                 prefill_cycles=PREFILL_CYCLES)
        ok = all(max(c) < common.TOLERANCE["bf16"] for c in checks.values())
        print(f"D={D} N={N} {'causal' if causal else 'non-causal'}: " +
              ", ".join(f"{k2} {v2:.1f}" for k2, v2 in tflops.items()) +
              f" TFLOP/s; runs {json.dumps(per_run)}; rel vs flash {json.dumps(checks)}; "
              f"{'ok' if ok else 'CHECK FAILED'}", flush=True)
        results["causal" if causal else "nomask"] = {"tflops": tflops, "runs": per_run,
                                                     "checks": checks, "ok": ok}
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shim", required=True)
    parser.add_argument("--points", default="128,4096;128,16384", help="D,N;...")
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--json")
    parser.add_argument("--table-variant", type=int, default=14,
                        help="the shim variant timed as 'table' (0: the shim's table)")
    args = parser.parse_args()
    lib = load(args.shim)
    report = {}
    for point in args.points.split(";"):
        D, N = (int(x) for x in point.split(","))
        report[f"d{D}-n{N}"] = run_point(lib, D, N, args.reps, args.table_variant)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    failed = any(not r["ok"] for point in report.values() for r in point.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
