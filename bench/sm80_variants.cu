// Alternative forward tile configurations of the sm80 family, bf16 only, for measuring the
// choices of src/cuda/sm80/tile_config.hpp against their neighbours in one run
// (bench/sm80_vs_torch.py --variants). Not part of the library.
#include <cuda_bf16.h>

#include "cuda/sm80/forward.cuh"

namespace fattn_sm80_bench {

using fattn::detail::AttentionArgs;
using fattn::detail::sm80::DirectOutputStores;
using fattn::detail::sm80::EpilogueWarpRowAfresh;
using fattn::detail::sm80::FewerLiveRegisters;
using fattn::detail::sm80::HalfLastStep;
using fattn::detail::sm80::ForwardConfig;
using fattn::detail::sm80::ForwardTile;
using fattn::detail::sm80::KvSourcesInSharedMemory;
using fattn::detail::sm80::NarrowForwardConfig;
using fattn::detail::sm80::QueryTilesSlowestInHeadGroups;
using fattn::detail::sm80::RowStatsInSharedMemory;
using fattn::detail::sm80::StagedForwardConfig;
using fattn::detail::sm80::StepClassesOnly;
using fattn::detail::sm80::WholePrologueCopies;
using fattn::detail::sm80::launch_forward_with;

// The v6 table's tiles (before the ninth session's QueryTilesSlowestInHeadGroups and
// HalfLastStep), spelled out.
using V6Tile64 = DirectOutputStores<RowStatsInSharedMemory<ForwardTile<64, 128, 4, 2, true>>>;
using V6Tile128 = KvSourcesInSharedMemory<
    FewerLiveRegisters<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, true>>>>;
using V6NarrowTile128 = KvSourcesInSharedMemory<
    FewerLiveRegisters<StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, 5, 6>>>>>;
using V6Tile192 = KvSourcesInSharedMemory<ForwardTile<192, 64, 8, 1, true, 9>>;
using V6Tile256 = ForwardTile<256, 64, 4, 1, true>;
using V6NarrowTile256 = StepClassesOnly<ForwardTile<256, 64, 8, 1, false, 13>>;
template <int kBucket>
struct V6TileOf;
template <>
struct V6TileOf<64> : V6Tile64 {};
template <>
struct V6TileOf<128> : V6Tile128 {};
template <>
struct V6TileOf<256> : V6Tile256 {};
template <int kBucket, int kHeads>
using HeadGroups = QueryTilesSlowestInHeadGroups<V6TileOf<kBucket>, kHeads>;
// The v12 table's tiles at 64, 128 and 256 (before the thirteenth session), spelled out.
using V12Tile64 = QueryTilesSlowestInHeadGroups<V6Tile64, fattn::detail::sm80::kForwardGroupHeads>;
using V12Tile128 =
    QueryTilesSlowestInHeadGroups<V6Tile128, fattn::detail::sm80::kForwardGroupHeads>;
using V12Tile256 =
    QueryTilesSlowestInHeadGroups<V6Tile256, fattn::detail::sm80::kForwardGroupHeads256>;
// Variants 20..30 (tenth session): the odd head dims' narrow tiles, bench/sm80_odd_variants.cu.
inline constexpr int kFirstOddDimVariant = 20;
inline constexpr int kLastOddDimVariant = 30;
fattn::Status odd_dim_forward_variant(const AttentionArgs& args, int bucket, int variant);

// (width, keys per tile, warps, 16-row tiles per warp, full-width walk); variant numbers as
// listed by the script. The 2-byte-row kernel keeps the table's tile (StagedForwardConfig).
fattn::Status forward_variant(const AttentionArgs& args, int bucket, int variant) {
  using E = __nv_bfloat16;
  if (variant >= kFirstOddDimVariant && variant <= kLastOddDimVariant) {
    return odd_dim_forward_variant(args, bucket, variant);
  }
  switch (bucket * (variant < 10 ? 10 : 100) + variant) {
    case 641:
      return launch_forward_with<ForwardTile<64, 64, 4, 2, true>, E, StagedForwardConfig<64>>(args);
    case 1281:
      return launch_forward_with<ForwardTile<128, 128, 4, 1, true>, E,
                                 StagedForwardConfig<128>>(args);
    case 1282:
      return launch_forward_with<ForwardTile<128, 128, 8, 1, true>, E,
                                 StagedForwardConfig<128>>(args);
    // The table's tiles with the epilogue before v5 (O stored from registers, 4 bytes a store);
    // at 64 the other way round: the table's tile with v5's epilogue through shared memory
    // (spills 8 bytes on sm_80, not in the table).
    case 642:
      return launch_forward_with<RowStatsInSharedMemory<ForwardTile<64, 128, 4, 2, true>>, E,
                                 StagedForwardConfig<64>>(args);
    case 1283:
      return launch_forward_with<DirectOutputStores<ForwardConfig<128>>, E,
                                 StagedForwardConfig<128>>(args);
    case 2561:
      return launch_forward_with<ForwardTile<256, 64, 8, 1, true>, E,
                                 StagedForwardConfig<256>>(args);
    case 2562:
      return launch_forward_with<StepClassesOnly<ForwardConfig<256>>, E,
                                 StagedForwardConfig<256>>(args);
    case 2563:
      return launch_forward_with<DirectOutputStores<ForwardConfig<256>>, E,
                                 StagedForwardConfig<256>>(args);
    // Variant 4: KvSourcesInSharedMemory (fifth session; docs/perf-notes.md "Forward v6") where
    // the table does not take it: at 64 (12 bytes of spills in its sm_80 WindowMask kernel) and
    // 256 (measured 0.96-1.01x the table in the first call).
    // At 64 on the v12 tile: on v13's table (O through shared memory) it spills 44 bytes (sm_90a).
    case 644:
      return launch_forward_with<KvSourcesInSharedMemory<V12Tile64>, E, StagedForwardConfig<64>>(
          args);
    case 2564:
      return launch_forward_with<KvSourcesInSharedMemory<ForwardConfig<256>>, E,
                                 StagedForwardConfig<256>,
                                 KvSourcesInSharedMemory<NarrowForwardConfig<256>>>(args);
    // Variant 5 at every bucket: the table before v6 (v5), spelled out, to time the table against
    // it in the same rows (bench/sm80_vs_torch.py --base-variant 5). At 64 and 256 v6 changed
    // nothing: those rows time one kernel twice (the run-to-run spread).
    case 645:
      return launch_forward_with<V6Tile64, E, StagedForwardConfig<64>>(args);
    case 1285:
      return launch_forward_with<
          FewerLiveRegisters<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, true>>>, E,
          StagedForwardConfig<128>,
          StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, 5, 6>>>>(args);
    case 1925:
      return launch_forward_with<ForwardTile<192, 64, 8, 1, true, 9>, E,
                                 StagedForwardConfig<192>>(args);
    case 2565:
      return launch_forward_with<V6Tile256, E, StagedForwardConfig<256>, V6NarrowTile256>(args);
    // Variants 6, 7, 8 (ninth session): the v6 tile with QueryTilesSlowestInHeadGroups of 2, 4, 8
    // heads (the masked kernels' grid; NoMask unchanged). The table takes 8 at 64 and 128, 4 at
    // 256; variant 10 is the v6 table (the grid order, and no HalfLastStep).
    case 646: return launch_forward_with<HeadGroups<64, 2>, E, StagedForwardConfig<64>>(args);
    case 647: return launch_forward_with<HeadGroups<64, 4>, E, StagedForwardConfig<64>>(args);
    case 648: return launch_forward_with<HeadGroups<64, 8>, E, StagedForwardConfig<64>>(args);
    case 1286: return launch_forward_with<HeadGroups<128, 2>, E, StagedForwardConfig<128>>(args);
    case 1287: return launch_forward_with<HeadGroups<128, 4>, E, StagedForwardConfig<128>>(args);
    case 1288: return launch_forward_with<HeadGroups<128, 8>, E, StagedForwardConfig<128>>(args);
    case 2566: return launch_forward_with<HeadGroups<256, 2>, E, StagedForwardConfig<256>>(args);
    case 2567: return launch_forward_with<HeadGroups<256, 4>, E, StagedForwardConfig<256>>(args);
    case 2568: return launch_forward_with<HeadGroups<256, 8>, E, StagedForwardConfig<256>>(args);
    // Variants 11, 12, 13 (ninth session, second round: the group size chosen at launch) were
    // removed after measurement (bench/results/sm80-fwd-h100-2026-11-22-s9b/variants/).
    // Variant 14 (same round): HalfLastStep in the 2-byte-row kernel's 9-step class at 192
    // (D = 129 in packed tensors: rows only 2-byte aligned); the table's since v8, so this now
    // times the table twice.
    case 19214:
      return launch_forward_with<ForwardConfig<192>, E, HalfLastStep<StagedForwardConfig<192>>>(
          args);
    case 6410:
      return launch_forward_with<V6Tile64, E, StagedForwardConfig<64>>(args);
    case 12810:
      return launch_forward_with<V6Tile128, E, StagedForwardConfig<128>, V6NarrowTile128>(args);
    case 19210:
      return launch_forward_with<V6Tile192, E, StagedForwardConfig<192>>(args);
    case 25610:
      return launch_forward_with<V6Tile256, E, StagedForwardConfig<256>, V6NarrowTile256>(args);
    // Variant 50 (thirteenth session, h13-fwd80): the v12 table (before WholePrologueCopies, and
    // at 64 O stored from the registers), spelled out, to time the table against it in turns;
    // 51 and 52 at 64: the v13 table's two parts alone (whole prologue copies; O through shared
    // memory with EpilogueWarpRowAfresh).
    case 6450: return launch_forward_with<V12Tile64, E, StagedForwardConfig<64>>(args);
    case 12850: return launch_forward_with<V12Tile128, E, StagedForwardConfig<128>>(args);
    case 25650: return launch_forward_with<V12Tile256, E, StagedForwardConfig<256>>(args);
    case 6451:
      return launch_forward_with<WholePrologueCopies<V12Tile64>, E, StagedForwardConfig<64>>(args);
    case 6452:
      return launch_forward_with<
          QueryTilesSlowestInHeadGroups<
              EpilogueWarpRowAfresh<RowStatsInSharedMemory<ForwardTile<64, 128, 4, 2, true>>>,
              fattn::detail::sm80::kForwardGroupHeads>,
          E, StagedForwardConfig<64>>(args);
    default: return fattn::Status::Unsupported("no such forward variant");
  }
}

}  // namespace fattn_sm80_bench
