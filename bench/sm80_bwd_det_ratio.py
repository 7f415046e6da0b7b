#!/usr/bin/env python3
"""The sm80 backward's deterministic mode against its default mode, in turns, with the plain
shim of bench/sm80_bwd_timeline_build.sh (the library's table, both modes of the same kernels).

  python3 bench/sm80_bwd_det_ratio.py --plain DIR/plain/libsm80bwdtimeline.so
      [--points "128,4096,1;128,16384,1;256,4096,1;256,16384,1"] [--reps 6] [--json out.json]
      [--variant 202]   (also the shim's candidate in both modes, in the same turns)
      [--default-only]  (the default mode alone: table, variant and FA2 in turns; h13-bwd80)

Per point (bf16, B·N = 16384, H·D = 2048): FA2's forward (aten's flash op) gives out and LSE;
then FA2's forward, our backward in the default mode, ours deterministic and FA2's backward are
timed in turns (kernel_bench_common.tflops_in_turns). The deterministic backward runs twice
first and its dQ, dK, dV must be bitwise equal between the runs. Reported: backward TFLOP/s
(2.5 x forward FLOPs over the backward's time, pre/postprocess included), det / default of the
backward, and of forward + backward with FA2's forward standing in for ours (the sm80 forward
measured at parity with it: docs/perf-notes.md "Forward v8").
"""

import argparse
import ctypes
import json
import os
import sys

import sm80_bwd_timeline as timeline_script

DEFAULT_POINTS = "128,4096,1;128,16384,1;256,4096,1;256,16384,1"
TIMING_RUNS = 2
PREFILL_CYCLES = 4_000_000


def run_point(torch, common, plain, D, N, causal, reps, variant=0, default_only=False):
    q, k, v, dout, scale, error = timeline_script.point_inputs(torch, common, D, N, causal)
    B, H = q.shape[0], q.shape[2]
    qt, kt, vt, dot = (x.transpose(1, 2) for x in (q, k, v, dout))

    def flash_forward():
        return torch.ops.aten._scaled_dot_product_flash_attention(qt, kt, vt, 0.0, causal, False,
                                                                  scale=scale)
    fwd = flash_forward()
    out = fwd[0].transpose(1, 2)
    lse = fwd[1].float().contiguous()

    def flash_backward():
        return torch.ops.aten._scaled_dot_product_flash_attention_backward(
            dot, qt, kt, vt, fwd[0], fwd[1], fwd[2], fwd[3], fwd[4], fwd[5], 0.0, causal, fwd[6],
            fwd[7], scale=scale)

    def selecting(selected, run):
        # The shim's variant is a global of the library: set before every call.
        def call():
            plain.fattn_sm80_bwd_timeline_variant(selected)
            run()
        return call

    runs = {}
    grads = {}
    modes = [("default", False, 0)]
    if not default_only:
        modes += [("deterministic", True, 0)]
    if variant:
        modes += [(f"v{variant} default", False, variant)]
        if not default_only:
            modes += [(f"v{variant} deterministic", True, variant)]
    for mode, deterministic, selected in modes:
        grads[mode] = tuple(torch.full_like(x, float("nan")) for x in (q, k, v))
        runs[mode] = selecting(selected, timeline_script.backward_call(
            torch, common, plain, error, q, k, v, out, dout, lse, *grads[mode], scale, causal,
            deterministic))
    bitwise = True
    for mode, deterministic, _ in modes:
        if deterministic:
            runs[mode]()
            first = tuple(x.clone() for x in grads[mode])
            runs[mode]()
            torch.cuda.synchronize()
            bitwise &= all(torch.equal(a, b) for a, b in zip(first, grads[mode]))
        else:
            runs[mode]()
    torch.cuda.synchronize()
    flash_grads = tuple(x.transpose(1, 2) for x in flash_backward()[:3])
    rel = {mode: [timeline_script.rel_error(x, y) for x, y in zip(g, flash_grads)]
           for mode, g in grads.items()}
    ok = bitwise and all(max(r) < common.TOLERANCE["bf16"] for r in rel.values())
    # A variant that changes only how the same partials travel (h17-bwd256): its deterministic
    # gradients bitwise the table's, and its default mode's dK, dV too (dQ: atomics' order).
    same_as_table = {}
    if variant:
        if not default_only:
            same_as_table["deterministic dq dk dv"] = all(
                torch.equal(a, b) for a, b in zip(grads["deterministic"],
                                                  grads[f"v{variant} deterministic"]))
        same_as_table["default dk dv"] = all(
            torch.equal(a, b) for a, b in zip(grads["default"][1:],
                                              grads[f"v{variant} default"][1:]))

    # Every contestant's rate is taken against the backward's FLOPs; the forward's time is
    # recovered from its rate below.
    bwd_flops = 2.5 * 4 * B * H * N * N * D / (2 if causal else 1)
    contestants = [("flash fwd", flash_forward, None)]
    contestants += [(mode, runs[mode], None) for mode, _, _ in modes]
    contestants += [("flash bwd", flash_backward, None)]
    tflops, per_run = common.tflops_in_turns(contestants, bwd_flops, TIMING_RUNS, reps,
                                             prefill_cycles=PREFILL_CYCLES)
    ms = {name: bwd_flops / rate / 1e9 for name, rate in tflops.items()}
    result = {
        "D": D, "N": N, "causal": causal, "B": B, "H": H,
        "bwd_tflops": {name: tflops[name] for name in tflops if name != "flash fwd"},
        "ms": ms, "runs": per_run, "deterministic_bitwise_repeatable": bitwise,
        "rel_vs_flash": rel,
        "default_over_flash_bwd": ms["flash bwd"] / ms["default"],
        "variant_bitwise_table": same_as_table,
    }
    if default_only:
        # --default-only: the table and the variant in the default mode, FA2 beside them.
        line = (f"D {D} N {N} {'causal' if causal else 'full'}: bwd TFLOP/s default "
                f"{tflops['default']:.1f}, flash {tflops['flash bwd']:.1f} "
                f"(default / flash {result['default_over_flash_bwd']:.3f})")
        if variant:
            name = f"v{variant} default"
            result["variant_over_default_bwd"] = tflops[name] / tflops["default"]
            result["variant_over_flash_bwd"] = ms["flash bwd"] / ms[name]
            line += (f"; variant {variant} {tflops[name]:.1f} "
                     f"({result['variant_over_default_bwd']:.3f} of the table's, "
                     f"{result['variant_over_flash_bwd']:.3f} of flash's)")
        print(line + f"; rel vs flash {json.dumps(rel)}; bitwise the table's "
              f"{json.dumps(same_as_table)}", flush=True)
        return ok, result
    result["det_over_default_bwd"] = ms["default"] / ms["deterministic"]
    result["det_over_default_fwd_bwd"] = ((ms["flash fwd"] + ms["default"]) /
                                          (ms["flash fwd"] + ms["deterministic"]))
    print(f"D {D} N {N} {'causal' if causal else 'full'}: bwd TFLOP/s default "
          f"{tflops['default']:.1f}, deterministic {tflops['deterministic']:.1f}, flash "
          f"{tflops['flash bwd']:.1f}; det/default bwd {result['det_over_default_bwd']:.3f}, "
          f"fwd+bwd (FA2's fwd {ms['flash fwd']:.3f} ms) {result['det_over_default_fwd_bwd']:.3f}; "
          f"bitwise repeatable {bitwise}; rel vs flash {json.dumps(rel)}", flush=True)
    if variant:
        name = f"v{variant}"
        print(f"  variant {variant}: bwd TFLOP/s default {tflops[name + ' default']:.1f} "
              f"({tflops[name + ' default'] / tflops['default']:.3f} of the table's), "
              f"deterministic {tflops[name + ' deterministic']:.1f} "
              f"({tflops[name + ' deterministic'] / tflops['deterministic']:.3f}); its det / "
              f"default bwd {tflops[name + ' deterministic'] / tflops[name + ' default']:.3f}; "
              f"bitwise the table's {json.dumps(same_as_table)}", flush=True)
    return ok, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plain", required=True, help="the uninstrumented timeline shim")
    parser.add_argument("--points", default=DEFAULT_POINTS, help="D,N,causal;...")
    parser.add_argument("--reps", type=int, default=6, help="timing rounds (in turns)")
    parser.add_argument("--json")
    parser.add_argument("--variant", type=int, default=0,
                        help="also this candidate of the shim (both modes), in the same turns")
    parser.add_argument("--default-only", action="store_true",
                        help="the default mode alone (table and variant; no deterministic runs)")
    args = parser.parse_args()
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import kernel_bench_common as common
    plain = ctypes.CDLL(os.path.abspath(args.plain))
    plain.fattn_sm80_backward.argtypes = common.SM80_BACKWARD_ARGTYPES
    plain.fattn_sm80_backward.restype = ctypes.c_int
    plain.fattn_sm80_bwd_timeline_variant.argtypes = [ctypes.c_int]
    ok, results = True, []
    for point in args.points.split(";"):
        D, N, causal = (int(x) for x in point.split(","))
        point_ok, result = run_point(torch, common, plain, D, N, bool(causal), args.reps,
                                     args.variant, args.default_only)
        ok &= point_ok
        results.append(result)
    return common.finish(results, args.json, not ok)


if __name__ == "__main__":
    sys.exit(main())
