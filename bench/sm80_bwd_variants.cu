// Alternative backward tile configurations of the sm80 family, bf16 only, for measuring the
// choices of src/cuda/sm80/backward_tile_config.hpp (BackwardConfig) against their neighbours in one run
// (bench/sm80_vs_torch.py --bwd-variants). Not part of the library.
#include <cuda_bf16.h>

#include "cuda/sm80/backward.cuh"

namespace fattn_sm80_bench {

using fattn::detail::AttentionArgs;
using fattn::detail::sm80::BackwardTile;
using fattn::detail::sm80::LightDqRelease;
using fattn::detail::sm80::StridedItemLoads;
using fattn::detail::sm80::BackwardConfig;
using fattn::detail::sm80::DqAtomicsFromOneAddress;
using fattn::detail::sm80::DqProductBeforePhaseB;
using fattn::detail::sm80::DqReductionsByLine;
using fattn::detail::sm80::TwoStageBackwardTile256;
using fattn::detail::sm80::ZeroStartAccumulators;
using fattn::detail::sm80::UnmaskedStridedItemLoads;
using fattn::detail::sm80::launch_backward_with;
using fattn::detail::sm80::PackedProbabilities;
using fattn::detail::sm80::LeanTileLoop;
using fattn::detail::sm80::PipelinedQueryFragments;
using fattn::detail::sm80::RolledProductB;
using fattn::detail::sm80::LargeSharedMemoryBackwardConfig;
using fattn::detail::sm80::QueryTilesDescending;
using fattn::detail::sm80::KeyTilesSlowestInHeadGroups;
using fattn::detail::sm80::kCausalHeadGroupPairs;
using fattn::detail::sm80::WarpSearchedQueryRange;
using fattn::detail::sm80::LineReductionsTile128;

// The table's tiles at 64 and 128 (packed Pᵀ, one phase-A pass).
using Table64 = PackedProbabilities<BackwardTile<64, 128, 128, 8, 2, 2, 2, 1, true, 4>>;
using Table128 = PackedProbabilities<BackwardTile<128, 64, 128, 8, 2, 2, 2, 1, true, 2>>;
// 256 with packed Pᵀ and the full-width kernel (the table runs the general one: the unpacked
// full-width kernel spilled 4-16 bytes).
using Packed256 = PackedProbabilities<BackwardTile<256, 64, 64, 8, 2, 4, 1, 1, true, 2>>;

// BackwardTile<width, query rows, keys, warps, query warps (phase A), dim warps (phase B),
// Q/dO stages, phase-A query passes, full-width kernel, query warps (dQ product)>; variant
// numbers as listed by the scripts (bench/sm80_vs_torch.py 1-3, bench/sm80_bwd_compare.py the
// rest: the fourth session's candidates, docs/perf-notes.md "Backward v3").
fattn::Status backward_variant(const AttentionArgs& args, int bucket, int variant) {
  using E = __nv_bfloat16;
  // Two-digit variants (bucket · 100 + variant): LeanTileLoop with the rolled loops (fifth
  // session, second call). 6410, 12810 and 25610 are the v4 table's tiles (taken in call 3).
  switch (bucket * 100 + variant) {
    // Sixth session (docs/perf-notes.md "Backward v7"): the dQ atomics from one address per
    // query tile (at 64 and 128 now the table's); at 256 on the two-stage tile that the H100 runs
    // (40) and on the one-stage tile of sm_80-sized shared memory (41: the deterministic mode's
    // alternative). 42 (the dQ product before phase B) was measured from a patch
    // (bench/results/sm80-bwd-h100-2026-11-22-s6-call2/dq_before_phase_b.patch).
    case 25640:
      return launch_backward_with<DqAtomicsFromOneAddress<TwoStageBackwardTile256>,
                                  E>(args);
    case 25641:
      return launch_backward_with<DqAtomicsFromOneAddress<BackwardConfig<256>>, E>(args);
    // Sixth session, second round ("Backward v8"): the deterministic mode of the table before
    // LargeSharedMemoryDeterministicBackward (phase B before the dQ product): the v7 tile itself,
    // which the table runs in the default mode, so 50's default-mode numbers are a rerun of the
    // table's (the run's spread) and its deterministic ones the committed deterministic kernel.
    case 25650: return launch_backward_with<TwoStageBackwardTile256, E>(args);
    // 51: the deterministic mode's alternative with the dQ atomics from one address as well (the
    // first round's 42 at 256: 40 with the dQ product before phase B).
    case 25651:
      return launch_backward_with<
          DqProductBeforePhaseB<DqAtomicsFromOneAddress<TwoStageBackwardTile256>>,
          E>(args);
    // Eighth session ("Backward v13"): the dQ reductions by whole accumulator lines through a
    // staging tile per warp (DqReductionsByLine): at 128 the whole warp slice staged at once (90,
    // 32 KB more shared memory: 193 KB, Hopper only) or 8 rows at a time (91, 8 KB more: now the
    // LargeSharedMemoryBackwardConfig<128>); at 256 on the two-stage tile, 8 rows at a time (90,
    // 16 KB more: 224 KB; now the LargeSharedMemoryBackwardConfig<256>). The two-stage tile
    // without them is TwoStageBackwardTile256 (the table before, and in 40, 50, 51 above).
    case 12890: return launch_backward_with<DqReductionsByLine<BackwardConfig<128>, 32>, E>(args);
    case 12891: return launch_backward_with<DqReductionsByLine<BackwardConfig<128>, 8>, E>(args);
    case 25690:
      return launch_backward_with<DqReductionsByLine<TwoStageBackwardTile256, 8>, E>(args);
    // Eighth session, second round ("Backward v14"): the staged lines sent during the next query
    // tile's phase A (12892/12893, 25691-25693 on a one-stage 256 tile) and the line reductions
    // at 64 (6490/6491) were measured from commit c5021c6 and rejected; they are in this file's
    // history.
    // Ninth session (h9-bwd80, "Backward v16"): the items that the mask does not cut through a
    // copy of the loop body without the mask pass (UnmaskedItemsApart, 60, rejected; in this
    // file's history, commit 6b02446) and the table's tile itself built from that tree (61: the
    // loop body a generic lambda there; now the table's tile as it is); 64: the table as the
    // library launches it (launch_backward: since v16 its deterministic mode at 128 and 256
    // runs QueryTilesDescending, 62 below).
    case 6461: return launch_backward_with<BackwardConfig<64>, E>(args);
    case 12861: return launch_backward_with<LargeSharedMemoryBackwardConfig<128>, E>(args);
    case 25661: return launch_backward_with<LargeSharedMemoryBackwardConfig<256>, E>(args);
    case 6464: return fattn::detail::sm80::launch_backward<64, E>(args);
    case 12864: return fattn::detail::sm80::launch_backward<128, E>(args);
    case 25664: return fattn::detail::sm80::launch_backward<256, E>(args);
    // The deterministic mode's query tiles walked from the last down, so its ordered dQ chain adds
    // in ascending key-tile order and the heavy key tiles start first (QueryTilesDescending, 62),
    // with the head groups of KeyTilesSlowestInHeadGroups (63 at 64 and 256; 62 at 128, whose
    // table has them) or without (63 at 128). Since v16 the deterministic table at 128 is 62's
    // tile, at 256 63's.
    case 6462: return launch_backward_with<QueryTilesDescending<BackwardConfig<64>>, E>(args);
    case 6463:
      return launch_backward_with<QueryTilesDescending<KeyTilesSlowestInHeadGroups<
                                      BackwardConfig<64>, kCausalHeadGroupPairs>>,
                                  E>(args);
    // 62 at 128: the deterministic table's tile (v21: without the default table's StagedEpilogue).
    case 12862: return launch_backward_with<QueryTilesDescending<ScorePassesTile128>, E>(args);
    case 12863:
      return launch_backward_with<
          QueryTilesDescending<WarpSearchedQueryRange<LineReductionsTile128>>, E>(args);
    case 25662:
      return launch_backward_with<QueryTilesDescending<LargeSharedMemoryBackwardConfig<256>>, E>(
          args);
    case 25663:
      return launch_backward_with<QueryTilesDescending<KeyTilesSlowestInHeadGroups<
                                      LargeSharedMemoryBackwardConfig<256>, kCausalHeadGroupPairs>>,
                                  E>(args);
#ifdef FATTN_BENCH_EARLIER_BWD_VARIANTS
    // Earlier sessions' candidates, all measured (compiled only with SM80_NVCC_FLAGS=
    // -DFATTN_BENCH_EARLIER_BWD_VARIANTS: they multiply the shim's build time).
    // Fifth session, second round (docs/perf-notes.md "Backward v5"): the v4 table's tiles with
    // strided item copies (20), the same with the deterministic chain's one-thread release (21),
    // the v4 tiles themselves (22). bf16 Pᵀ is widened by shift and mask in all of them (then the
    // BitUnpackedProbabilities option of 20-22, now unpack_pair's: the same kernels).
    case 6420:
      return launch_backward_with<StridedItemLoads<LeanTileLoop<RolledProductB<Table64>>>, E>(
          args);
    case 6421:
      return launch_backward_with<
          LightDqRelease<StridedItemLoads<LeanTileLoop<RolledProductB<Table64>>>>, E>(args);
    case 6422: return launch_backward_with<LeanTileLoop<RolledProductB<Table64>>, E>(args);
    case 12820:
      return launch_backward_with<StridedItemLoads<LeanTileLoop<RolledProductB<Table128>>>, E>(
          args);
    case 12821:
      return launch_backward_with<
          LightDqRelease<StridedItemLoads<LeanTileLoop<RolledProductB<Table128>>>>, E>(args);
    case 12822: return launch_backward_with<LeanTileLoop<RolledProductB<Table128>>, E>(args);
    // 256: the v4 tile (20) and the release (21) only; strided item copies spilled there.
    case 25620: return launch_backward_with<LeanTileLoop<RolledProductB<Packed256>>, E>(args);
    case 25621:
      return launch_backward_with<LightDqRelease<LeanTileLoop<RolledProductB<Packed256>>>, E>(
          args);
    // Fifth session, third round (docs/perf-notes.md "Backward v6"): the v5 table with each
    // product's first k-step writing its accumulators (C = 0) instead of zeroing moves.
    case 6430: return launch_backward_with<ZeroStartAccumulators<BackwardConfig<64>>, E>(args);
    case 12830: return launch_backward_with<ZeroStartAccumulators<BackwardConfig<128>>, E>(args);
    case 25630: return launch_backward_with<ZeroStartAccumulators<BackwardConfig<256>>, E>(args);
    // 256: 30 with the strided item copies in the NoMask kernels only (the WindowMask full-width
    // kernel spilled 8 bytes with them on sm_90a).
    case 25631:
      return launch_backward_with<
          UnmaskedStridedItemLoads<ZeroStartAccumulators<BackwardConfig<256>>>, E>(args);
    // 256: 31 with two Q/dO stages (209 KB: Hopper only), the LargeSharedMemoryBackwardConfig.
    case 25632:
      return launch_backward_with<
          UnmaskedStridedItemLoads<ZeroStartAccumulators<LightDqRelease<LeanTileLoop<RolledProductB<
              PackedProbabilities<BackwardTile<256, 64, 64, 8, 2, 4, 2, 1, true, 2>>>>>>>,
          E>(args);
#endif
    default: break;
  }
  switch (bucket * 10 + variant) {
#ifdef FATTN_BENCH_EARLIER_BWD_VARIANTS
    // Fifth session (docs/perf-notes.md "Backward v4"): the rolled phase B of the full-width
    // kernel (RolledProductB: one query step per iteration, no head-dim tests). The rolled phase
    // A measured beside it (646, 648, 1287, 1289) was rejected and removed (sixth session).
    case 647: return launch_backward_with<RolledProductB<Table64>, E>(args);
    case 1288: return launch_backward_with<RolledProductB<Table128>, E>(args);
    case 2566: return launch_backward_with<Packed256, E>(args);
    case 2567: return launch_backward_with<RolledProductB<Packed256>, E>(args);
    // The fourth session's candidates and bench/sm80_vs_torch.py --bwd-variants' 641-643,
    // 1281-1283, 2561-2562.
    case 641: return launch_backward_with<BackwardTile<64, 64, 128, 8, 1, 1, 2>, E>(args);
    case 642: return launch_backward_with<BackwardTile<64, 64, 128, 8, 2, 2, 2>, E>(args);
    // 128 query rows per step (FA2's D = 64 tile): packed Pᵀ, one pass (the table's now); or
    // two passes.
    case 643:
      return launch_backward_with<
          PackedProbabilities<BackwardTile<64, 128, 128, 8, 2, 2, 2, 1, true, 4>>, E>(args);
    case 644:
      return launch_backward_with<BackwardTile<64, 128, 128, 8, 2, 2, 2, 2, true, 4>, E>(args);
    case 1281: return launch_backward_with<BackwardTile<128, 64, 64, 8, 2, 2, 2>, E>(args);
    case 1282: return launch_backward_with<BackwardTile<128, 64, 128, 8, 1, 2, 2, 2>, E>(args);
    case 1283: return launch_backward_with<BackwardTile<128, 64, 128, 8, 2, 2, 2, 2>, E>(args);
    // Packed Pᵀ with one phase-A pass and 32 x 32 dQ warp tiles (the table's now); the dQ tiles
    // alone.
    case 1284:
      return launch_backward_with<
          PackedProbabilities<BackwardTile<128, 64, 128, 8, 2, 2, 2, 1, true, 2>>, E>(args);
    case 1285:
      return launch_backward_with<BackwardTile<128, 64, 128, 8, 2, 2, 2, 2, true, 2>, E>(args);
    // The table's tiles with phase A's Q/dO fragments loaded one k-step ahead
    // (PipelinedQueryFragments; the same at 192 and 256 below): measured and rejected, bwd
    // 0.95-1.00x the table at 128, 0.99-1.02x at 192 and 256 (docs/perf-notes.md "Backward v3").
    // Not at 64: 24 bytes of spills (bf16, sm_90a).
    case 1286:
      return launch_backward_with<
          PipelinedQueryFragments<
              PackedProbabilities<BackwardTile<128, 64, 128, 8, 2, 2, 2, 1, true, 2>>>,
          E>(args);
    case 1921:
      return launch_backward_with<PipelinedQueryFragments<BackwardTile<192, 64, 64, 8, 2, 2, 2>>,
                                  E>(args);
    // Two Q/dO stages at 256 need 209 KB of shared memory: Hopper only (sm_80 has 163 KB).
    case 2561: return launch_backward_with<BackwardTile<256, 64, 64, 8, 2, 2, 2>, E>(args);
    case 2562: return launch_backward_with<BackwardTile<256, 64, 64, 8, 2, 2, 1>, E>(args);
    // Phase B as 2 key x 4 head-dim warps (32 x 64 per warp) and 32 x 64 dQ warp tiles (the
    // table's now); the same with two Q/dO stages (Hopper only).
    case 2563:
      return launch_backward_with<BackwardTile<256, 64, 64, 8, 2, 4, 1, 1, false, 2>, E>(args);
    case 2564:
      return launch_backward_with<BackwardTile<256, 64, 64, 8, 2, 4, 2, 1, false, 2>, E>(args);
    case 2565:
      return launch_backward_with<
          PipelinedQueryFragments<BackwardTile<256, 64, 64, 8, 2, 4, 1, 1, false, 2>>, E>(args);
#endif
    default: return fattn::Status::Unsupported("no such backward variant");
  }
}

}  // namespace fattn_sm80_bench
