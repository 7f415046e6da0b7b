// Tile shapes of the Hopper backward kernel, one row per head-dim bucket (64, 128 and 256; head
// dims 129..192 run the 256 row: see the D = 192 note below). Measured on an H100 (2026-11-22,
// bench/results/sm90-bwd-h100-2026-11-22-variants/ and ...-s6/, docs/design/sm90-backward.md
// "Measured"): every row was timed beside its neighbours in one binary
// (bench/sm90_bwd_variants.cu).
//
// Why these numbers (H100/H200: 227 KB shared memory per block, 64K registers, one CTA per SM):
// - kBlockN = 128 keys per CTA: two consumer warpgroups of 64 keys (wgmma's M), each holding
//   dK and dV of its keys in fp32: 2 · D/2 registers per thread (128 at D = 128), plus Sᵀ and
//   dPᵀ of one query tile (2 · kBlockM/2) and their 16-bit fragments (2 · kBlockM/4)
//   in the 240 registers setmaxnreg gives a consumer.
// - D = 64: kBlockM = 128 queries per step with DqSplit::queries. Consumer c computes dQ of
//   queries [64c, 64c + 64) over all 128 keys and all 64 columns, so each dQ element gets one
//   fp32 reduction per CTA step for twice the FLOPs of a kBlockM = 64 step (320 FLOP per reduced
//   byte instead of the key split's 160), Sᵀ/dPᵀ are m64n128 wgmmas and the fixed per-step
//   costs (barrier waits, the serial wgmma chain) are paid half as often. Measured against
//   kBlockM = 64 with the key split: +22–40 % backward TFLOP/s (N = 16k: 279 → 356 non-causal,
//   235 → 330 causal); ncu (N = 4096): L2 red sectors halved, L2 crossbar busy 72 % → 50 %, tensor pipe
//   29 % → 36 % active. Registers: dK, dV 32 + 32, Sᵀ, dPᵀ 64 + 64, dQ 32: 0 spills.
//   Two Q/dO stages: a third was worth 0–4 % with atomics, but the dQ staging tiles of
//   DqReduce::bulk_tensor leave no room for it (196 + 32 > 227 KB), and those win far more.
// - D = 128: kBlockM = 64 (kBlockM = 128 would double Sᵀ/dPᵀ to 128 registers next to dK/dV's
//   128), DqSplit::head_dim: each warpgroup takes 64 of the head-dim columns over all 128 keys
//   (both warpgroups' dS needed: one 256-thread barrier per step; one reduction per dQ element
//   and CTA step). Two stages: a third measured within ±1 % (340 → 342, 392 → 393 TFLOP/s).
// - dQ reduction, both buckets: DqReduce::bulk_tensor (a swizzled shared tile per consumer and
//   TMA reductions) instead of 16 red.global.add.v2.f32 per thread and step. Measured in one run
//   (bench/results/sm90-bwd-h100-2026-11-22-bulk/): D = 64 +7–14 % over the atomics default
//   (N = 16k: 377 → 430 non-causal), D = 128 +11–26 % (N = 16k: 403 → 487, 380 → 447); ncu
//   (N = 4096): 4.53 → 3.86 ms and 4.04 → 3.38 ms, L2 crossbar 51 → 41 % and 58 → 46 %, tensor
//   pipe 39 → 45 % and 42 → 52 %, long-scoreboard stalls 2.1 → 1.4 and 2.4 → 1.5 per issue.
// - D = 128 issues dV and dK around the dQ product (GradIssue::around_dq): dV as soon as Pᵀ is in
//   registers (under dPᵀ − D_i, the packs and the dSᵀ stores), dK after dQ, whose staging and TMA
//   reduction then run under dK. Measured on an H100 (session 16, bench/results/
//   sm90-bwd-h100-2026-11-23-s16/): backward ×1.016–1.041 (geomean of three runs in turns per
//   point, N = 1k–16k, causal and not); ncu at N = 4k 3.40 → 3.29 ms non-causal, 1.97 → 1.90 ms
//   causal, tensor pipe 51.5 → 53.1 %. 0 spills. D = 64 (kBlockM = 128) cannot take it: Pᵀ's 32
//   fragment registers live beside Sᵀ/dPᵀ's 128 spill 48 bytes and serialize the wgmmas (C7512).
// - D = 128 stages and reduces the dQ partial in register order (DqReduce::bulk_register_order:
//   8 STS.128 and one 1-D bulk reduction per consumer step instead of 16 STS.64 into swizzled
//   boxes and two TMA tensor reductions; its own postprocess, backward.cuh). Measured in one call
//   (session 16, bench/results/sm90-bwd-h100-2026-11-23-s16c/, an H200, two passes in opposite
//   orders, 5 rounds each): backward ×1.016–1.060 over bulk_tensor (geomean 1.037 over N = 1k /
//   4k / 16k causal and not). D = 64 (DqSplit::queries: consumer c of a 128-query step reduces
//   64-query block 2·tile + c) takes it too: session 17, H100, two passes in opposite orders
//   (bench/results/sm90-bwd-h100-2026-11-23-s16d/call-h100-s17/): non-causal ×1.014–1.026 at
//   N = 1k / 4k / 16k, causal ×0.999–1.006 (geomean 1.010), 0 spills.
// - D = 128 without a mask computes dQ in turns (DqSplit::alternate): +1–4 % non-causal, not
//   taken by the causal/windowed kernels (BackwardTileConfig128Unmasked below).
// - DqSplit::keys (each warpgroup: all columns over its own 64 keys; no cross-warpgroup wait,
//   twice the reductions) was the first D = 64 row; it stays available for kBlockM = 64 shapes.
// - dS is stored for dQ = dS·K as the registers hold it, transposed (key rows, 64-query column
//   blocks), and read by wgmma as an MN-major A operand ("tnspA", verified on the GPU); the
//   query-row fallback written before that check was never needed and is gone.
// - D = 256: GradSplit::head_dim (backward_kernel_wide.cuh; docs/design/sm90-backward.md "D = 192
//   and 256"). With 64 keys per warpgroup, dK and dV alone would take 2 · 64 · 256 / 128 = 256
//   registers per thread, past the 240 a consumer gets; so the CTA owns 64 keys, both
//   consumers share them and each keeps dK/dV of one half of the head dim (64 + 64 registers),
//   computes Sᵀ/dPᵀ of one half of the 64 queries and exchanges Pᵀ/dSᵀ through shared memory.
//   Shared memory allows one Q/dO stage with the dQ staging tiles of the TMA reductions (K, V 64
//   KB, Q/dO 64 KB, Pᵀ/dSᵀ 2 · 16 KB, staging 64 KB: 226 KB) or two stages with atomics (226 KB).
//   Measured on an H100 in one run each (bench/results/sm90-bwd-h100-2026-11-22-s6/, backward
//   alone, bf16, N = 1k / 4k / 16k non-causal): one stage + TMA reductions 216 / 342 / 386
//   TFLOP/s, two stages + atomics 172 / 244 / 273 (the atomics cost more than the exposed load);
//   two stages with dQ staged in the consumed Q/dO column blocks
//   217 / 293 / 324 against 238 / 342 / 384 for one stage (rejected; both rejected forms are in
//   git history, the kernel now has only the one-stage TMA-reduction form). Releasing the stage
//   before the dQ product (what the kernel does): ncu at N = 4k 4.44 → 4.17 ms under locked clocks, the
//   bench +3 % at N >= 4k and within the ±10 % run-to-run spread at 1k; kept. The sm80 backward
//   at 256 measured 153–209 TFLOP/s in the same run, cuDNN's 186–367: the row is the default
//   for D 129..256.
// - D = 192 has no row of its own: its head-dim halves (96 columns) would start the second
//   consumer's MN-major operands 64 bytes into a 128-byte swizzle row, which a wgmma descriptor
//   cannot express across the next column block. Head dims 129..192 run the 256 row with the
//   columns past D zero-filled (a third more tensor work at 192), still 1.4–1.7× the sm80
//   backward's 192 bucket (same run).
#pragma once

namespace fattn::detail::sm90 {

// alternate (D = 128, kBlockM = 64, two consumers, register-order reduction, dV/dK around dQ;
// the unmasked D = 128 row, BackwardTileConfig128Unmasked below): the consumer with
// step % 2 == consumer computes the whole 64 × 128 dQ of the step over all 128 keys (m64n128
// wgmmas: dS is read from shared memory once per CTA step), the other only signals its half of
// dS (bar.arrive) and runs on, so one warpgroup's dQ runs under the other's next Sᵀ/dPᵀ
// (backward_kernel.cuh).
enum class DqSplit { keys, head_dim, queries, alternate };
// How a consumer adds its 64 × 64 fp32 dQ partial into the accumulator: atomics = 16
// red.global.add.v2.f32 per thread from the registers (through the LSU); bulk_tensor = stored to
// a 128-byte-swizzled shared tile, then one thread issues TMA reductions
// (cp.reduce.async.bulk.tensor ... add) of two 64-row × 32-column boxes (16 KB more shared
// memory per consumer). The head-dim split (GradSplit::head_dim) takes bulk_tensor only.
// bulk_register_order (key-split kernel, backward_kernel.cuh): the partial is stored in register
// order (float4 j of consumer thread t at (j·128 + t)·16 bytes: 8 STS.128 per thread, no
// swizzle) and one thread adds the 16 KB with one 1-D cp.reduce.async.bulk ... add.f32 into an
// accumulator laid out per (batch, head, 64-query tile, 64-column block) in that same order; the
// sm90 postprocess (backward.cuh) undoes the order.
enum class DqReduce { atomics, bulk_tensor, bulk_register_order };
// Who owns dK/dV: keys = each consumer warpgroup 64 of the CTA's keys over the whole head dim
// (backward_kernel.cuh, D <= 128); head_dim = every consumer all 64 keys of the CTA over its
// share of the head-dim columns (backward_kernel_wide.cuh, D = 256).
enum class GradSplit { keys, head_dim };
// When a consumer of the key-split kernel (backward_kernel.cuh) issues its dV += Pᵀ·dO and
// dK += dSᵀ·Q products within a step: with_ds = both once dSᵀ is in registers, then the dQ product,
// one wait for all three; around_dq = dV as soon as Pᵀ is (it runs while dPᵀ − D_i, dSᵀ's
// fragments and its stores are computed), dK after the dQ product, and a wait for dV and dQ only
// (the dQ partial is staged and reduced while dK runs; the stage is released after dK).
enum class GradIssue { with_ds, around_dq };

// One row of the table; the kernel takes the type holding it (BackwardTileConfig<D>, or a
// bench's own type, so that several shapes of one bucket build side by side:
// bench/sm90_bwd_variants.cu).
struct BackwardTileShape {
  int block_m;
  int block_n;
  int stages;
  DqSplit dq_split;
  DqReduce dq_reduce;
  GradSplit grad_split = GradSplit::keys;
  GradIssue grad_issue = GradIssue::with_ds;
};

template <int kHeadDimBucket>
struct BackwardTileConfig;

template <>
struct BackwardTileConfig<64> {
  static constexpr BackwardTileShape kShape{128, 128, 2, DqSplit::queries,
                                            DqReduce::bulk_register_order};
};
template <>
struct BackwardTileConfig<128> {
  static constexpr BackwardTileShape kShape{64, 128, 2, DqSplit::head_dim,
                                            DqReduce::bulk_register_order, GradSplit::keys,
                                            GradIssue::around_dq};
};
template <>
struct BackwardTileConfig<256> {
  static constexpr BackwardTileShape kShape{64, 64, 1, DqSplit::head_dim, DqReduce::bulk_tensor,
                                            GradSplit::head_dim};
};

// D = 128 without a mask (NoMask) computes dQ in turns (DqSplit::alternate, see the enum);
// causal and windowed problems keep BackwardTileConfig<128> (DqSplit::head_dim). Measured on an
// H100 (session 17, bench/results/sm90-bwd-2026-11-23-s16e/call-h100-s17/: shim rows d128_alt
// against d128, two passes in opposite orders, bf16, B·N = 16k, H·D = 2048, geomean of the
// passes): backward ×1.009 / ×1.036 / ×1.021 at N = 1k / 4k / 16k non-causal (N = 16k: 501 →
// 511 TFLOP/s), but ×1.015 / ×0.999 / ×0.990 causal: the masked kernels gain nothing at
// N >= 4k, so only the unmasked kernel takes it (windowed, not measured, stays with causal).
// 0 spills, no C75xx (dK is waited before the m64n128 dQ is issued: with both in flight ptxas
// serialized the wgmmas).
// Same blocks, threads, shared memory (one 32 KB dQ staging tile instead of two of 16 KB), dQ
// accumulator layout (a step's two register-order blocks are adjacent: one 32 KB reduction) and
// postprocess as the masked row (backward.cuh asserts the blocks and the reduction form).
struct BackwardTileConfig128Unmasked {
  static constexpr BackwardTileShape kShape{64, 128, 2, DqSplit::alternate,
                                            DqReduce::bulk_register_order, GradSplit::keys,
                                            GradIssue::around_dq};
};

// The row type of a bucket's unmasked (NoMask) kernel: the bucket's row itself except where
// one is specialized, so that the other kernels keep their names (and their SASS).
template <int kHeadDimBucket>
struct UnmaskedBackwardTileConfig {
  using type = BackwardTileConfig<kHeadDimBucket>;
};
template <>
struct UnmaskedBackwardTileConfig<128> {
  using type = BackwardTileConfig128Unmasked;
};

}  // namespace fattn::detail::sm90
