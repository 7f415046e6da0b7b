// The deterministic mode's tile configurations (launch_backward, backward.cuh): the tables of
// backward_tile_config.hpp with the ordered dQ chain's options, per head-dim bucket, for the
// devices whose blocks hold the large tables, and for NoMask / masked launches of their own.
#pragma once

#include "cuda/sm80/backward_tile_config.hpp"

namespace fattn::detail::sm80 {

// The deterministic mode's configuration on the same devices (launch_backward picks it when the
// problem asks for deterministic gradients; the mode is a run-time flag of the same kernels, so
// a configuration of its own is what lets it run different code). Where `type` is
// LargeSharedMemoryBackwardConfig no other kernel is compiled.
// v8 (sixth session) ran the dQ product and its ordered atomics before phase B at 256
// (DqProductBeforePhaseB: +3 to +6 % deterministic over the v7 kernel, "Backward v8"). With v13's
// line reductions the table's own kernel in the deterministic mode measured 216 / 190 TFLOP/s
// fwd+bwd at N = 4k (non-causal / causal) against that kernel's 200 / 179 in the same call, so
// every bucket now runs the table's kernel in both modes.
template <int kHeadDimBucket>
struct LargeSharedMemoryDeterministicBackward {
  using type = LargeSharedMemoryBackwardConfig<kHeadDimBucket>;
};
// v16 (ninth session, h9-bwd80; bench/results/sm80-bwd-h100-2026-11-22-s9/NOTES.md): at 128 and
// 256 the masked kernels walk their query tiles from the last down (QueryTilesDescending), at 256
// with the head groups that 128's table already has. H100, two runs in turns beside the v15 table
// (bf16, B·N = 16384, H·D = 2048, deterministic fwd+bwd, N = 4k / 16k causal): 128 +4.9 / +6.2 %
// (deterministic / default 0.85 -> 0.89, 0.84 -> 0.89), 256 +2.5 / +3.8 % (0.88 -> 0.90, 0.83 ->
// 0.86); non-causal unchanged (NoMask kernels: the option does not change their code). At 64 it
// measured -0.5 / +1.3 % with head groups and -10 / +1 % without: not taken.
// v23 (twelfth session, h12-bwd80b; bench/results/sm80-bwd-h100-2026-11-23-s12b/NOTES.md): the
// staged epilogue in the NoMask kernels (UnmaskedStagedEpilogue: with StagedEpilogue the
// WindowMask kernels spilled on sm_90a), at 128 with ZeroStartAccumulators as the default table
// (the NoMask kernels are then SASS-identical to the default table's). H100, bf16, B·N = 16384,
// H·D = 2048, deterministic bwd in turns beside HEAD's deterministic table, the default mode and
// FA2 (bench/sm80_bwd_det_ratio.py --variant 231, 2 rounds; the timeline shim's variants 231
// and 251 are retired since, commit 62e6a58 has them): non-causal N = 1k / 4k / 16k
// +3.2 / +1.3 / +0.5 % at 128 and +2.1 / +0.4 / +0.6 % at 256 (fwd+bwd det / default 0.841 ->
// 0.863 and 0.815 -> 0.829 at 1k); causal 0.997-1.004 (the 256 WindowMask kernel is HEAD's
// code, 128's adds ZeroStartAccumulators: neutral).
// v25 (twelfth session, h12-bwd80d; bench/results/sm80-bwd-h100-2026-11-23-s12d/NOTES.md): at 256
// StagedEpilogue in every kernel, the masked kernels free of spills by their phase-B address per
// item (MaskedPerItemPhaseBAddresses). H100, same setup (--variant 251, 2 rounds), deterministic
// bwd causal N = 1k / 4k / 16k +3.7 / +3.4 / +3.0 % (fwd+bwd det / default 0.848 -> 0.874,
// 0.888 -> 0.912, 0.856 -> 0.876); the NoMask kernels are v23's code. 128 keeps v23's form: with
// StagedEpilogue its WindowMask kernel spills 20 bytes, 24-32 with the per-item address.
// v27 (h13-bwd80b): at 256 MaskedStridedItemLoads with both sources rebuilt per item (H100, bf16,
// in turns beside the table before it, bench/sm80_bwd_det_ratio.py --variant 271, 2 rounds):
// deterministic bwd 106.8 / 136.9 / 185.2 / 196.9 against 105.4 / 134.2 /
// 181.3 / 193.1 TFLOP/s at N = 512 / 1k / 4k / 16k causal (+1.4 / +2.0 / +2.2 / +2.0 %), bitwise
// repeatable; 4k non-causal 1.000.
// v47d (twenty-fourth session, s24-bwd80b): v47's step classes here too (v47 left this
// configuration at the bucket's kernel for D = 65..96). The deterministic mode is a run-time flag
// of the same class kernels: their dQ partials (zeros past the class) go out through the same
// ordered chain, and a head dim always gets the same kernel, so the gradients stay bitwise
// repeatable. The option adds kernels and leaves the bucket's own unchanged. Measured (H100,
// deterministic backward in turns beside the table before it and FA2, 3 runs; bench/results/
// gpu-check-h100-2026-11-24-session24/final/turns_det.txt): fp16 N = 2k D = 72 / 80 / 96
// x1.075 / 1.074 / 1.032, 80 causal x1.054, D = 128 1.00-1.005 (control).
// Class 7 (D = 97..112, phase B 3 + 4) was tried with it and dropped: wrong dK / dV in its
// kernels (relative error 0.89-0.93 at D = 104 / 112) and 0.988-0.993x in time.
// s26-det (twenty-sixth session; bench/results/sm80-s26-det/NOTES.md): DeferredDqHandOver (above)
// in every kernel of this table (NoMask, WindowMask, the step classes): per item 3 CTA barriers
// instead of 4, the release's MEMBAR off the other warps' path. Measured (perf-notes "Backward
// v50", call 5): deterministic backward x1.038-1.045 at N = 2k-16k and 4k causal; the default
// mode's kernels are SASS-identical. s27-mbar (twenty-seventh session): DqTurnBeforeDqProduct on
// an mbarrier, in the bucket's own kernels (not the step classes), x1.05-1.08 more: see that
// option.
using DeterministicTile128 = NarrowClassDq128<NarrowClassWork<NarrowStepClasses<
    ScoreStatisticsAhead<QueryTilesDescending<ZeroStartAccumulators<
                             UnmaskedStagedEpilogue<ScorePassesTile128>>>,
                         kStatisticsAheadAt128>,
    kFirstStepClassAt128, kLastStepClassAt128, true>>>;
template <>
struct LargeSharedMemoryDeterministicBackward<128> {
  using type = DeferredDqHandOver<DqTurnBeforeDqProduct<DeterministicTile128>>;
};
// v44d (twenty-fourth session): v44's GroupedPhaseATests here too (v44 left this configuration
// at 1.000). 0 spills on sm_80 and sm_90a. H100, deterministic backward in turns beside v44 and
// FA2 (bench/results/s24-h100-call3/turns_det.txt): bf16 N = 4k x1.028, causal x1.009, 1k x1.014,
// fp16 2k x1.025, 16k x1.029; deterministic / default backward at 4k 0.84.
// s26-det: DeferredDqHandOver (above) in the NoMask kernels; DeterministicUnmaskedBackward<256>
// (below) keeps DeterministicTile256's code. s26-det256 (bench/results/sm80-s26-det256/
// NOTES.md): the hand-over in the WindowMask kernel too (causal and window launches) through
// MaskedDqTurnSlot, 3 CTA barriers per item instead of 4 and the release's MEMBAR off the other
// warps' path. Measured (perf-notes "Backward v52"; H100, bf16, deterministic backward in turns
// beside the table with the hand-over in NoMask only and FA2, two runs, bench/results/
// gpu-check-h100-2026-11-24-session26/call7): causal N = 1k / 2k / 4k / 8k / 16k x1.034 / 1.057 /
// 1.075 / 1.088 / 1.104; default mode 1.000. (The same call's non-causal 4k x1.034 was
// UnmaskedDqTurnBeforeDqProduct's named-barrier form, left out with DqTurnBeforeDqProduct.)
// s27-det256: UnmaskedDqTurnBeforeDqProduct on the mbarrier in the NoMask kernel (sm_90a), 0
// spills; MaskedDqTurnBeforeDqProduct the same in the WindowMask kernel.
// s28-bwd128mask: DiagonalBandMaskPass instead of BranchedMaskPass (kept here because
// is_masked_unbranched spilled 8 bytes): the WindowMask kernel's pass branch-free, 0 spills
// (sm_90a: BSSY 125 -> 113, BRA 469 -> 397, 7,440 -> 7,088 instructions); NoMask SASS-identical.
// Measured neutral (0.997-1.003 at 256 causal 512 / 1k / 2k, "Backward v57"), kept: one pass form
// in both tables.
using DeterministicTile256 = DiagonalBandMaskPass<StatisticsAhead256<QueryTilesDescending<
    KeyTilesSlowestInHeadGroups<
        MaskedStridedItemLoads<MaskedPerItemPhaseBAddresses<StagedEpilogue<GroupedPhaseATests<
                                   RangeSearchTile256, kPhaseATestGroupAt256,
                                   kNarrowestHeadDimAt256>>>,
                               true>,
        kCausalHeadGroupPairs>>>>;
template <>
struct LargeSharedMemoryDeterministicBackward<256> {
  using type =
      DeferredDqHandOver<MaskedDqTurnBeforeDqProduct<
          UnmaskedDqTurnBeforeDqProduct<MaskedDqTurnSlot<DeterministicTile256>>>>;
};

// v24 (twelfth session, h12-bwd80c; bench/results/sm80-bwd-h100-2026-11-23-s12c/NOTES.md): the
// deterministic NoMask launches of at most kMaxKeys keys run `type`, the deterministic table
// with DeterministicUnmaskedHeadGroups of 16 pairs (launch_backward picks it; its NoMask kernel
// alone is compiled), the others the tables. H100, bf16, B·N = 16384, H·D = 2048, non-causal, in
// turns beside the tables (bench/sm80_bwd_det_ratio.py --variant 241, 2 rounds): deterministic
// bwd at 64 +7.4 / +2.9 / -1.7 % (N = 1k / 4k / 16k), at 256 +9.4 / -2.8 % (1k / 4k); at 128
// +1.5 / -0.3 / -2.0 % with 8 bytes of spills on sm_90a: not taken. The gain is the chain's ramp
// (a head's key tiles starting together); at large N the spread start costs more than the ramp
// (with 32 pairs, 256 at 4k lost 15 %; the pairs' Q / dO reads spread over time, not measured).
// Model for 16: at 1k about 16.5 pairs' CTAs leave the 132 SMs per hop (8 key tiles a pair), so
// key tile j starts about one hop after j - 1. Own configuration, not a flag of the table's
// kernel at 64: with the option that kernel ran 2.2 % slower in the default mode.
inline constexpr int kUnmaskedHeadGroupPairs = 16;
template <int kHeadDimBucket>
struct DeterministicUnmaskedBackward {
  using type = void;
  static constexpr std::int64_t kMaxKeys = 0;
};
// v33 (seventeenth session, h17-det64; bench/results/sm80-det-h100-2026-11-23-s17/NOTES.md): at
// 64 with OrderedDqAtomicsInPhaseB (the spread dQ reductions inside the ordered chain), up to 16k
// keys. H100, bf16, B·N = 16384, H·D = 2048, deterministic bwd in turns beside v24's kernel (N <=
// 4k) or the table (8k, 16k) and the default mode (bench/sm80_bwd_det_ratio.py, 2 x 5 rounds):
// +9.1 / +10.9 / +10.3 / +7.7 / +5.5 % at N = 1k / 2k / 4k / 8k / 16k; fwd+bwd det / default
// (FA2's forward) 0.860 / 0.848 / 0.847 / 0.863 / 0.871 -> 0.920 / 0.918 / 0.913 / 0.913 / 0.907.
// Groups of 8 pairs measured +0.8 % over 16 at 4k and 8k, of 4 +0.2 % at 4k: 16 kept (the
// kernel measured at every N).
template <>
struct DeterministicUnmaskedBackward<64> {
  using type = OrderedDqAtomicsInPhaseB<
      DeterministicUnmaskedHeadGroups<BackwardConfig<64>, kUnmaskedHeadGroupPairs>>;
  static constexpr std::int64_t kMaxKeys = 16384;  // measured: 1k to 16k gain (v24's: to 4k)
};
// v34 (seventeenth session, h17-detmask64; bench/results/sm80-det-h100-2026-11-23-s17b/NOTES.md):
// the deterministic masked launches (causal, window) of `type` where it is not void
// (launch_backward picks it; its masked kernels alone are compiled), at 64 the table's tile with
// OrderedDqAtomicsInPhaseB (the table runs the deterministic mode as a flag of its own kernels,
// v8's order: ordered burst, release, then phase B). Its general kernel (head dims short of 64)
// is the table's. H100, bf16, B·N = 16384, H·D = 2048, deterministic bwd in turns beside the
// table's kernel and the default mode (bench/sm80_bwd_det_ratio.py --variant 330, 2 x 5 rounds):
// causal N = 1k / 4k / 16k +5.1 / +8.7 / +9.3 %, bitwise the table's gradients; fwd+bwd
// det / default (FA2's forward) 0.898 / 0.868 / 0.844 -> 0.934 / 0.925 / 0.903.
template <int kHeadDimBucket>
struct DeterministicMaskedBackward {
  using type = void;
};
template <>
struct DeterministicMaskedBackward<64> {
  using type = OrderedDqAtomicsInPhaseB<BackwardConfig<64>>;
};
template <>
struct DeterministicUnmaskedBackward<256> {
  using type = DeterministicUnmaskedHeadGroups<DeterministicTile256, kUnmaskedHeadGroupPairs>;
  static constexpr std::int64_t kMaxKeys = 1024;  // measured: 1k gains, 4k loses
};

}  // namespace fattn::detail::sm80
