#!/usr/bin/env python3
"""The sm80 backward's candidate tiles beside the committed kernel and PyTorch's flash backend
(FA2), in one process on the GPU machine.

  bench/sm80_build.sh build-x/shim 90a            # the working tree (candidates compiled into
                                                  # bench/sm80_bwd_variants.cu)
  (a copy of HEAD) bench/sm80_build.sh build-x/shim_head 90a
  python3 bench/sm80_bwd_compare.py --lib build-x/shim/libsm80shim.so \
      --baseline build-x/shim_head/libsm80shim.so --check --bench --json out.json

--check  bench/sm80_vs_torch.py's checks (bf16 cases, every head dim of the candidate's bucket;
         fp32 torch reference; deterministic run twice, compared bitwise) with each candidate
         selected; with --small only the sanitizer shapes.
--bench  bf16, B·N = 16384, H·D = 2048, D 64 / 128 / 256, N 1k / 4k / 16k, causal and not:
         forward+backward TFLOP/s (3.5 × forward FLOPs) of the committed kernel (--baseline, its
         table), each candidate and SDPA flash; every one of ours runs after the SAME forward
         (the baseline's), so the differences are the backward's. "bwd" columns: 2.5 × forward
         FLOPs over (forward+backward time - forward time). At N = 4096 also the deterministic
         backward
         (--det-seqlens for others). --in-turns: a point's contestants (the forward, every one of
         ours, flash forward and forward + backward) are timed round by round in rotating order
         (kernel_bench_common.time_in_turns) instead of one after the other.
Candidates: CANDIDATES below, variant numbers of bench/sm80_bwd_variants.cu (bf16 only there).
"""

import argparse
import contextlib
import json
import math
import sys

import torch

import kernel_bench_common as common
import sm80_vs_torch as base_script
from kernel_bench_common import finish, make

# --in-turns: rounds, batch size and warm-up calls of time_in_turns (bench/sm80_vs_torch.py's
# time_ms takes 7 rounds of 5 calls).
TURNS_REPS, TURNS_INNER, TURNS_WARMUP = 9, 5, 2

# bucket -> {variant: description}; 0 is the working tree's table. Measured so far
# (bench/results/sm80-bwd-h100-2026-11-22-s4-call1 and -call2, docs/perf-notes.md "Backward
# v3"): 64: 3 (now the table), 4; 128: 4 (now the table), 5; 256: 3 (now the table), 4; and the
# fragment prefetch of phase B and the dQ product (rejected, no longer compiled); -call4: phase
# A's Q/dO fragments one k-step ahead (variants 1286, 1921, 2565; rejected, measured as the
# table of a shim built with them, against the HEAD shim).
# Fifth session (-s5-call*, "Backward v4"): the rolled k-step loops of the full-width kernel
# (variants 646-648, 1287-1289; the rolled phase A, 646/648/1287/1289, was removed in the sixth
# session) and packed Pᵀ with the full-width kernel at 256 (2566, 2567).
# Call 1 measured 646 (A + B), 647 (B), 1287 (A), 1288 (B), 1289 (A + B), 2566, 2567; call 2
# the lean loop (LeanTileLoop) with them: 6410, 6411, 12810-12812, 25610. Call 3: the table
# (now LeanTileLoop<RolledProductB<...>> at 64, 128 and 256) against the committed one.
# Fifth session, second round (-s5b-call*, "Backward v5"): strided item copies + bit-unpacked
# Pᵀ (20), the same with the one-thread release of the deterministic chain (21; its default
# backward is 20's kernel code, so 20 vs 21 there is the run-to-run spread). The baseline is the
# same library's table (--baseline = --lib), so variant 0 is not run again. Variant 22 (the
# unpacking alone) is compiled, not measured.
# Fifth session, third round (-s5c-call1, "Backward v6"): the v5 table with each product's
# first k-step writing its accumulators (ZeroStartAccumulators, 30), at 256 also 30 with the
# strided item copies in the NoMask kernels (31); baseline = the same library's table (v5).
# Sixth session ("Backward v7"): the v6 table with the dQ atomics from one address per query tile
# (40; at 256 the two-stage tile the H100 runs), and at 256 the one-stage tile with it (41).
# The second call ran 40 and 42 = 40 with the dQ product and its atomics before phase B (from a
# patch, s6-call2/dq_before_phase_b.patch; rejected), N = 4k / 16k. 40 is the v7 table at 64 and
# 128 now (variant 0 runs it there).
# Sixth session, second round ("Backward v8"): the table's deterministic mode at 256 runs the
# dQ product before phase B (LargeSharedMemoryDeterministicBackward); 50 is the v7 tile in both
# modes (the deterministic kernel before), 51 the v8 deterministic tile with the dQ atomics from
# one address (DqAtomicsFromOneAddress) too; run with --det-seqlens 4096,16384. 40 and 41 at 256
# were the first round's (still compiled).
# Seventh session (bench/results/sm80-bwd-h100-2026-11-22-s7/, -s7b/, -s7c/; "Backward v9-v11"):
# the dQ reductions spread over phase B (DqAtomicsInPhaseB; the table at 64), where they go
# inside a query step, and a bulk reduction through shared memory at 128 (rejected); those
# variants are in this file's history.
# Sixth session, second round: 50 / 51 at 256 (the v8 deterministic tile's alternatives; still
# compiled). Eighth session ("Backward v13", bench/results/sm80-bwd-h100-2026-11-22-s8/): the dQ
# reductions by whole accumulator lines through a staging tile per warp (DqReductionsByLine):
# 128 90 (whole slice staged, rejected) and 91 (8 rows per round), 256 90 — 91 and 256's 90 are
# the table now (LargeSharedMemoryBackwardConfig).
# Eighth session, second round ("Backward v14", bench/results/sm80-bwd-h100-2026-11-22-s8b/): the
# staged lines of a query tile sent during the next tile's phase A (DqReductionsBehindNextItem:
# 128 92 / 93, 256 91-93 on a one-stage tile) and the line reductions at 64 (90 / 91), all
# rejected; the option and its variants are in the history (commit c5021c6).
# Ninth session (h9-bwd80, "Backward v16", bench/results/sm80-bwd-h100-2026-11-22-s9/): the items
# that the mask does not cut through a loop body without the mask pass (60), and the table's
# tile built from that tree (61: the loop body a generic lambda there; against the committed
# table, what that costs), run against a shim of the table before (--baseline).
# Call 1 measured 60 (UnmaskedItemsApart, rejected: causal bwd 0.97x 61 at 64 and 128, 1.00x at
# 256; removed, commit 6b02446 has it); call 2 the deterministic mode's descending query walk (62,
# 63: the deterministic table at 128 and 256 since); call 3 the table as launched (64).
# Ninth session, lead (bench/results/sm80-bwd-sp-h100-2026-11-22-s9/): ScorePassesByQueryTile
# on the 128 and 256 tables (70), from a shim whose variants file is that folder's spmain.cu,
# sp128.cu and sp256.cu (the table's own objects for 64).
CANDIDATES = {
    64: {},
    128: {64: "the table (launch_backward)", 70: "ScorePassesByQueryTile on the table"},
    192: {},
    256: {64: "the table (launch_backward)", 70: "ScorePassesByQueryTile on the table"},
}
BUCKETS = (64, 128, 192, 256)


def bucket_of(head_dim):
    return next(b for b in BUCKETS if b >= head_dim)


def check_candidates(sm80, small, buckets):
    """bench/sm80_vs_torch.py's check, bf16 cases of the bucket only, per candidate."""
    all_cases = base_script.check_cases
    failures, report = 0, {}
    try:
        for bucket, table in CANDIDATES.items():
            if bucket not in buckets:
                continue
            for variant, description in table.items():
                base_script.check_cases = lambda s, b=bucket: [
                    c for c in all_cases(s) if c[0] == "bf16" and bucket_of(c[1]) == b]
                sm80.lib.fattn_sm80_set_backward_variant(variant)
                print(f"== check D bucket {bucket} variant {variant}: {description}", flush=True)
                f, rows = base_script.check(sm80, small)
                failures += f
                report[f"{bucket}/{variant}"] = rows
    finally:
        base_script.check_cases = all_cases
        sm80.lib.fattn_sm80_set_backward_variant(0)
    return failures, report


def bench(new, baseline, dims, seqlens, det_seqlens=(4096,), in_turns=False):
    """in_turns: every contestant of a point (the forward, ours, flash forward and forward +
    backward) timed round by round in rotating order (kernel_bench_common.time_in_turns), so that
    clock and power drift over the point's seconds hits all of them alike; else one after the
    other (bench/sm80_vs_torch.py's time_ms)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    time_ms = base_script.time_ms
    rows = []
    for D in dims:
        for N in seqlens:
            for causal in (False, True):
                B, H = 16384 // N, 2048 // D
                gen = torch.Generator(device="cuda")
                gen.manual_seed(N + D)
                q, k, v, dout = (make("bf16", B, N, H, D, "bshd", gen) for _ in range(4))
                out = torch.empty_like(q)
                lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
                dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
                scale = 1.0 / math.sqrt(D)
                fwd_flops = 4 * B * H * N * N * D / (2 if causal else 1)
                row = dict(D=D, N=N, B=B, H=H, causal=causal)

                def forward():
                    baseline.forward(q, k, v, out, lse, "bf16", scale, causal)

                def fwd_bwd(lib, variant, det):
                    def run():
                        lib.lib.fattn_sm80_set_backward_variant(variant)
                        forward()
                        lib.backward(q, k, v, out, dout, lse, dq, dk, dv, "bf16", scale, causal,
                                     deterministic=det)
                    return run

                runs = {"committed": (baseline, 0)}
                runs.update({f"v{var}": (new, var) for var in CANDIDATES.get(D, {})})
                qt, kt, vt, dt = (x.transpose(1, 2).contiguous() for x in (q, k, v, dout))
                qg, kg, vg = (x.detach().requires_grad_() for x in (qt, kt, vt))

                def flash_fwd():
                    F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)

                def flash():
                    o = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)
                    torch.autograd.grad(o, (qg, kg, vg), dt)
                flash_context = lambda: sdpa_kernel(SDPBackend.FLASH_ATTENTION)
                contestants = [("fwd", forward, None)]
                for name, (lib, variant) in runs.items():
                    contestants.append((name, fwd_bwd(lib, variant, False), None))
                    if N in det_seqlens:
                        contestants.append((f"{name}_det", fwd_bwd(lib, variant, True), None))
                contestants += [("flash_fwd", flash_fwd, flash_context),
                                ("flash", flash, flash_context)]
                if in_turns:
                    ms = common.time_in_turns(contestants, reps=TURNS_REPS, inner=TURNS_INNER,
                                              warmup=TURNS_WARMUP)
                else:
                    ms = {}
                    for name, fn, context in contestants:
                        with (context() if context else contextlib.nullcontext()):
                            ms[name] = time_ms(fn)
                for lib, _ in runs.values():
                    lib.lib.fattn_sm80_set_backward_variant(0)
                t_fwd = ms["fwd"]
                row["fwd"] = fwd_flops / t_fwd / 1e9
                for name in runs:
                    row[name] = 3.5 * fwd_flops / ms[name] / 1e9
                    row[f"{name}_bwd"] = 2.5 * fwd_flops / (ms[name] - t_fwd) / 1e9
                    if f"{name}_det" in ms:
                        row[f"{name}_det"] = 3.5 * fwd_flops / ms[f"{name}_det"] / 1e9
                t_flash_fwd, t_flash = ms["flash_fwd"], ms["flash"]
                row["flash_fwd"] = fwd_flops / t_flash_fwd / 1e9
                row["flash"] = 3.5 * fwd_flops / t_flash / 1e9
                row["flash_bwd"] = 2.5 * fwd_flops / (t_flash - t_flash_fwd) / 1e9
                rows.append(row)
                print(json.dumps({k: round(v, 1) if isinstance(v, float) else v
                                  for k, v in row.items()}), flush=True)
    print_table(rows)
    return rows


def profile(new, variants, head_dim, seqlen, batch=None):
    """For ncu: one forward, then one backward per variant of ours and one SDPA flash forward +
    backward (FA2's kernels), bf16, B·N = 16384 (or `batch` sequences), H·D = 2048, non-causal."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    B, H, D = batch or 16384 // seqlen, 2048 // head_dim, head_dim
    q, k, v, dout = (make("bf16", B, seqlen, H, D, "bshd", gen) for _ in range(4))
    out, lse = torch.empty_like(q), torch.empty(B, H, seqlen, device="cuda")
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    new.forward(q, k, v, out, lse, "bf16", D ** -0.5, False)
    for variant in variants:
        new.lib.fattn_sm80_set_backward_variant(variant)
        new.backward(q, k, v, out, dout, lse, dq, dk, dv, "bf16", D ** -0.5, False)
    new.lib.fattn_sm80_set_backward_variant(0)
    qt, kt, vt, dt = (x.transpose(1, 2).contiguous() for x in (q, k, v, dout))
    qg, kg, vg = (x.detach().requires_grad_() for x in (qt, kt, vt))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        o = F.scaled_dot_product_attention(qg, kg, vg)
        torch.autograd.grad(o, (qg, kg, vg), dt)
    torch.cuda.synchronize()


def print_table(rows):
    names = ["committed"] + sorted({k for r in rows for k in r
                                    if k.startswith("v") and k[1:].isdigit()})
    print("| D | N | causal | " + " | ".join(names) + " | flash | best/flash | "
          "bwd committed | bwd best | bwd flash |")
    print("|" + " --- |" * (len(names) + 8))
    for r in rows:
        present = [n for n in names if n in r]
        best = max(present, key=lambda n: r[n])
        cells = [f"{r[n]:.0f}" if n in r else "" for n in names]
        print(f"| {r['D']} | {r['N']} | {'yes' if r['causal'] else 'no'} | " + " | ".join(cells) +
              f" | {r['flash']:.0f} | {r[best] / r['flash']:.2f} ({best}) | "
              f"{r['committed_bwd']:.0f} | {r[best + '_bwd']:.0f} | {r['flash_bwd']:.0f} |")
    det = [r for r in rows if "committed_det" in r]
    if det:
        print("deterministic / default (fwd+bwd):")
        for r in det:
            parts = [f"{n} {r[n + '_det'] / r[n]:.2f}" for n in names if n + "_det" in r]
            print(f"  D={r['D']} N={r['N']} {'causal' if r['causal'] else 'non-causal'}: " +
                  ", ".join(parts))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", required=True)
    p.add_argument("--baseline")
    p.add_argument("--check", action="store_true")
    p.add_argument("--small", action="store_true")
    p.add_argument("--bench", action="store_true")
    p.add_argument("--dims", default="64,128,256")
    p.add_argument("--seqlens", default="1024,4096,16384")
    p.add_argument("--det-seqlens", default="4096",
                   help="sequence lengths at which the deterministic backward is timed too")
    p.add_argument("--in-turns", action="store_true",
                   help="time each point's contestants in rotating turns (time_in_turns)")
    p.add_argument("--json")
    p.add_argument("--profile", help="variants of ours to run once for ncu, e.g. 0,9 "
                   "(with one SDPA flash backward)")
    p.add_argument("--profile-dim", type=int, default=128)
    p.add_argument("--profile-seqlen", type=int, default=4096)
    p.add_argument("--profile-batch", type=int, help="sequences for --profile (default: "
                   "16384 / seqlen); fewer make ncu's instruction-level passes shorter")
    a = p.parse_args()
    new = base_script.Sm80(a.lib)
    if a.profile:
        profile(new, base_script.int_list(a.profile), a.profile_dim, a.profile_seqlen,
                a.profile_batch)
        return 0
    dims = base_script.int_list(a.dims)
    report = {"device": torch.cuda.get_device_name(), "candidates": CANDIDATES}
    failures = 0
    if a.check or a.small:
        failures, report["check"] = check_candidates(new, a.small, dims)
        print(f"candidate checks: {failures} failures", flush=True)
    if a.bench:
        report["bench"] = bench(new, base_script.Sm80(a.baseline), dims,
                                base_script.int_list(a.seqlens),
                                base_script.int_list(a.det_seqlens), a.in_turns)
    return finish(report, a.json, failures)


if __name__ == "__main__":
    sys.exit(main())
