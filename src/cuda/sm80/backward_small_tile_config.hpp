// The sm80 backward's third table: tiles for devices whose blocks may take 99 KB of shared
// memory (sm_86 / sm_89: RTX 30xx / 40xx, A10, L4, L40), where every tile of
// BackwardConfig (148-166 KB) and of the Hopper tables is refused. Host-compilable (no CUDA
// includes): the selector reads smallest_backward_shared_bytes.
#pragma once

#include "api/device_query.hpp"
#include "cuda/sm80/backward_tile_config.hpp"

namespace fattn::detail::sm80 {

// Shapes (twenty-ninth session, s29-bwdsmall; bench/results/sm80-bwd-small-smem-2026-11-25-s29/
// NOTES.md). The kernel's Pᵀ / dSᵀ rows are kBlockM queries wide in the 128-byte swizzle
// (swizzled_offset, fragment_address), so kBlockM stays 64; what gives is keys per CTA and
// Q / dO stages. Modelled on FA2's backward below 144 KB per block (hdim64: 64 x 128, 8 warps;
// hdim128: 64 x 64, 8 warps; hdim192 and, on sm86, hdim256: 64 x 64 / 64 x 32 with V in
// registers and no double buffer, which this kernel, with V in shared memory, cannot hold in
// 99 KB: 64 x 64 / 64 x 32 with one stage take 115,200 / 107,008 bytes at 192 / 256).
// 64: 64 x 128, two Q / dO stages, 8 warps, phase A and B as 4 key x 2 query / head-dim
// warps (32 x 32 warp tiles, as the 128 table's), 16 x 32 dQ warp tiles: 99,328 bytes.
// 128: 64 x 64, one stage (two take 115,712 bytes), 8 warps: phase A 16 keys x 32 queries per
// warp, phase B 16 keys x 64 dims, 32 x 32 dQ warp tiles (the 128 table's): 82,432 bytes.
// 192: 64 x 32, one stage, 8 warps: phase A 2 key x 4 query warps (16 x 16), phase B 2 key x 4
// head-dim warps (16 x 48), 32 x 48 dQ warp tiles (the 192 table's): 82,432 bytes.
// 256: no small table. Eight warps need 16 x 16 phase-A warp tiles at least (64 x 32: 107,008
// bytes with one stage); four warps over 64 x 16 (86,528 bytes) hold a 128-float dQ tile per
// thread beside 64 of dK + dV, and the general kernel spilled on sm_80 with every dQ warp
// layout (bf16, NoMask / WindowMask: 64 x 64 24 / 48 bytes, 32 x 128 8 / 48, 16 x 256 8 / 28;
// sm_90a 0-12), sm_80's SASS being what the 99 KB cards run. The bucket keeps the base table's
// bytes as its least (smallest_backward_shared_bytes), so the selector leaves those problems to
// another backend.
// Kernels (s29-bwdsmall): the general one only at first, no lean-loop options. Measured (H100
// capped to 99 KB, bench/results/gpu-check-h100-2026-11-25-session29/call2/capped_ratios.md;
// bf16, B = 16, H = 16, N = 2048): backward 0.69 / 0.55 / 0.53 / 0.52 / 0.48 of the H100 table's
// at D = 64 / 96 / 128 / 160 / 192 (causal 0.70 / 0.56 / 0.50 at 64 / 128 / 192); the lean
// full-width kernels measured x1.1-1.3 over the general one in the base tables (perf-notes
// "Backward v4", "v5", "v37").
// s29-bwdlean (bench/results/sm80-bwd-small-lean-2026-11-25-s29/NOTES.md): each small tile also
// runs a lean full-width kernel, for the head dims that fill the bucket and, at 64 with 16-byte
// rows, from min_head_dim_over_zeros on (launch_backward_with; FillingHeadDimsOnly at the
// one-stage 128 and 192 tiles, measured below), with its bucket's base-table options
// (BackwardConfig<64 / 128 / 192>) less those that do not apply. The general kernel stays the
// bare tile (GeneralKernelConfig: the same kernels as before), for rows off 16-byte words (packed
// odd head dims, GQA or not) and D <= 32 at 64. Not taken:
// - FusedDqConversion (the Large table's at 128): launch_backward takes no tickets on this path.
// - Shifted windows: launch_backward runs none here (rows off 16-byte words take load_tile's
//   4- / 8-byte or 16-bit copies in the general kernel, as GQA does everywhere).
// - DqReductionsByLine at 64 (kWarps x 8 rows x kDimPerWarpQ floats of staging): its 8 KB would
//   take the tile to 107,520 bytes. At 128 / 192 it is taken (below).
// - DqAtomicsInPhaseB (64's table): with 64-row query tiles phase B has 4 query steps, where every
//   placement of the spread reductions measured 0.95-1.00 of the burst at 128 ("Backward v10").
// - BranchedMaskPass<..., true> (64's table): it applies to the general kernel only, which is
//   the bare tile's here.
// Measured (H100 capped to 99 KB, bf16, B = 16, H = 16, N = 2048, backward, two rounds in turns
// beside the general-kernel-only table; bench/results/gpu-check-h100-2026-11-25-session29/
// call4/lean_turns.md): D = 64 / 128 / 192 x1.21 / 1.06 / 1.09, causal x1.22 / 1.07 / 1.16;
// over zero-filled columns D = 96 / 160 x0.966 / 0.978, hence FillingHeadDimsOnly at 128 / 192.
// Variant B (same session, call 6; call6/variantB_turns.md): at 128 / 192 the Large tables' dQ
// line reductions (DqReductionsByLine, 8 staging rows: 90,624 / 94,720 bytes; at 128 with its
// conflict-free staging swizzle) and statistics passes (ScorePassesByQueryTile, one tile ahead),
// which the bare one-stage tiles had been left without. Same conditions, in turns beside the
// lean tables: D = 128 / 192 x1.117 / 1.170, causal x1.134 / 1.183. 0 spills (168-199
// registers), the small-table tests and racecheck clean on the window cases.
// StagedEpilogue reuses the K / V / Q region (2 x kBlockN x (kWidth + 8) elements: 36,864 /
// 34,816 / 25,600 bytes), no shared memory added. The deterministic mode is the kernels'
// run-time flag (params.semaphores).
template <int kHeadDimBucket>
struct SmallSharedMemoryBackwardConfig;
using SmallBareBackwardTile64 = BackwardTile<64, 64, 128, 8, 2, 2, 2, 1, false>;
using SmallBareBackwardTile128 = BackwardTile<128, 64, 64, 8, 2, 2, 1, 1, false, 2>;
using SmallBareBackwardTile192 = BackwardTile<192, 64, 32, 8, 4, 4, 1, 1, false, 2>;
// The bare tile with the full-width kernel, under the lean options every bucket's base table has.
template <int kWidth, int kBlockN, int kWarpsQueriesA, int kWarpsDimB, int kStages,
          int kWarpsQueriesQ>
using SmallLeanCore = ZeroStartAccumulators<DqAtomicsFromOneAddress<StridedItemLoads<
    LightDqRelease<LeanTileLoop<RolledProductB<PackedProbabilities<BackwardTile<
        kWidth, 64, kBlockN, 8, kWarpsQueriesA, kWarpsDimB, kStages, 1, true,
        kWarpsQueriesQ>>>>>>>>;
// 64: BackwardConfig<64>'s statistics passes (ScorePassesByQueryTile, two tiles ahead) and
// staged epilogue.
inline constexpr int kSmallStatisticsAheadAt64 = kStatisticsAheadAt64;
template <>
struct SmallSharedMemoryBackwardConfig<64>
    : StagedEpilogue<ScoreStatisticsAhead<
          ScorePassesByQueryTile<SmallLeanCore<64, 128, 2, 2, 2, 0>>, kSmallStatisticsAheadAt64>> {
  using GeneralKernelConfig = SmallBareBackwardTile64;
};
// 128 and 192 (variant B above): dQ reduced by lines through 8 staging rows per warp, as in the
// Large tables (v13), and the score statistics read one query tile ahead (v29).
inline constexpr int kSmallDqStagingRows = 8;
inline constexpr int kSmallStatisticsAhead = 1;
// 128: BackwardConfig<128>'s options, with ZeroStartAccumulators and the staged epilogue of the
// 64 / 192 tables, and the Large table's conflict-free staging (v32 / v35).
template <>
struct SmallSharedMemoryBackwardConfig<128>
    : FillingHeadDimsOnly<StagedEpilogue<LineStagingSwizzleSplit<DqStagingPairSwizzle<
          DqReductionsByLine<
              ScoreStatisticsAhead<ScorePassesByQueryTile<SmallLeanCore<128, 64, 2, 2, 1, 2>>,
                                   kSmallStatisticsAhead>,
              kSmallDqStagingRows>>>>> {
  using GeneralKernelConfig = SmallBareBackwardTile128;
};
// 192: BackwardConfig<192>'s (LeanBackwardTile192's options, UntestedPackedPhaseA: phase A's
// first 9 k-steps, every head dim from 129 has them, untested; StagedEpilogue).
template <>
struct SmallSharedMemoryBackwardConfig<192>
    : FillingHeadDimsOnly<StagedEpilogue<DqReductionsByLine<
          ScoreStatisticsAhead<
              ScorePassesByQueryTile<UntestedPackedPhaseA<SmallLeanCore<192, 32, 4, 4, 1, 2>>>,
              kSmallStatisticsAhead>,
          kSmallDqStagingRows>>> {
  using GeneralKernelConfig = SmallBareBackwardTile192;
};

// The bucket's small table, or void where it has none (256, above).
template <int kHeadDimBucket>
struct SmallSharedMemoryBackward {
  using type = SmallSharedMemoryBackwardConfig<kHeadDimBucket>;
};
template <>
struct SmallSharedMemoryBackward<256> {
  using type = void;
};

static_assert(SmallSharedMemoryBackwardConfig<64>::kSharedBytes <=
              kConsumerAmpereSharedBytesPerBlock);
static_assert(SmallSharedMemoryBackwardConfig<128>::kSharedBytes <=
              kConsumerAmpereSharedBytesPerBlock);
static_assert(SmallSharedMemoryBackwardConfig<192>::kSharedBytes <=
              kConsumerAmpereSharedBytesPerBlock);

// The least shared memory per block that the sm80 backward of bucket `head_dim_bucket` runs in
// (its small table's; at 256 the base table's), or 0 for a bucket it has no table for: the
// selector refuses cuda_sm80's backward on devices below it.
constexpr int smallest_backward_shared_bytes(int head_dim_bucket) {
  switch (head_dim_bucket) {
    case 64:
      return SmallSharedMemoryBackwardConfig<64>::kSharedBytes;
    case 128:
      return SmallSharedMemoryBackwardConfig<128>::kSharedBytes;
    case 192:
      return SmallSharedMemoryBackwardConfig<192>::kSharedBytes;
    case 256:
      return BackwardConfig<256>::kSharedBytes;
    default:
      return 0;
  }
}

}  // namespace fattn::detail::sm80
