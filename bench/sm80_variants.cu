// Alternative forward tile configurations of the sm80 family, bf16 only, for measuring the
// choices of src/cuda/sm80/tile_config.hpp against their neighbours in one run
// (bench/sm80_vs_torch.py --variants). Not part of the library.
#include <cuda_bf16.h>

#include "cuda/sm80/forward.cuh"

namespace fattn_sm80_bench {

using fattn::detail::AttentionArgs;
using fattn::detail::sm80::DirectOutputStores;
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
using fattn::detail::sm80::launch_forward_with;

template <int kBucket, int kPairs>
using HeadGroups = QueryTilesSlowestInHeadGroups<ForwardConfig<kBucket>, kPairs>;

// (width, keys per tile, warps, 16-row tiles per warp, full-width walk); variant numbers as
// listed by the script. The 2-byte-row kernel keeps the table's tile (StagedForwardConfig).
fattn::Status forward_variant(const AttentionArgs& args, int bucket, int variant) {
  using E = __nv_bfloat16;
  switch (bucket * 10 + variant) {
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
    case 644:
      return launch_forward_with<KvSourcesInSharedMemory<ForwardConfig<64>>, E,
                                 StagedForwardConfig<64>>(args);
    case 2564:
      return launch_forward_with<KvSourcesInSharedMemory<ForwardConfig<256>>, E,
                                 StagedForwardConfig<256>,
                                 KvSourcesInSharedMemory<NarrowForwardConfig<256>>>(args);
    // Variant 5 at every bucket: the table before v6 (v5), spelled out, to time the table against
    // it in the same rows (bench/sm80_vs_torch.py --base-variant 5). At 64 and 256 v6 changed
    // nothing: those rows time one kernel twice (the run-to-run spread).
    case 645:
      return launch_forward_with<ForwardConfig<64>, E, StagedForwardConfig<64>>(args);
    case 1285:
      return launch_forward_with<
          FewerLiveRegisters<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, true>>>, E,
          StagedForwardConfig<128>,
          StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, 5, 6>>>>(args);
    case 1925:
      return launch_forward_with<ForwardTile<192, 64, 8, 1, true, 9>, E,
                                 StagedForwardConfig<192>>(args);
    case 2565:
      return launch_forward_with<ForwardConfig<256>, E, StagedForwardConfig<256>,
                                 NarrowForwardConfig<256>>(args);
    // Variants 6, 7, 8 (ninth session): the table's tile with QueryTilesSlowestInHeadGroups of
    // 2, 4, 8 (query head, batch) pairs (the masked kernels' grid order; NoMask unchanged).
    case 646: return launch_forward_with<HeadGroups<64, 2>, E, StagedForwardConfig<64>>(args);
    case 647: return launch_forward_with<HeadGroups<64, 4>, E, StagedForwardConfig<64>>(args);
    case 648: return launch_forward_with<HeadGroups<64, 8>, E, StagedForwardConfig<64>>(args);
    case 1286: return launch_forward_with<HeadGroups<128, 2>, E, StagedForwardConfig<128>>(args);
    case 1287: return launch_forward_with<HeadGroups<128, 4>, E, StagedForwardConfig<128>>(args);
    case 1288: return launch_forward_with<HeadGroups<128, 8>, E, StagedForwardConfig<128>>(args);
    case 2566: return launch_forward_with<HeadGroups<256, 2>, E, StagedForwardConfig<256>>(args);
    case 2567: return launch_forward_with<HeadGroups<256, 4>, E, StagedForwardConfig<256>>(args);
    case 2568: return launch_forward_with<HeadGroups<256, 8>, E, StagedForwardConfig<256>>(args);
    // Variant 9 (ninth session): HalfLastStep on the tile that runs D = 72 (the narrow 128 tile),
    // 136 (the table's 192 tile, class 9) and 200 (the narrow 256 tile).
    case 1289:
      return launch_forward_with<ForwardConfig<128>, E, StagedForwardConfig<128>,
                                 HalfLastStep<NarrowForwardConfig<128>>>(args);
    case 1929:
      return launch_forward_with<HalfLastStep<ForwardConfig<192>>, E, StagedForwardConfig<192>>(
          args);
    case 2569:
      return launch_forward_with<ForwardConfig<256>, E, StagedForwardConfig<256>,
                                 HalfLastStep<NarrowForwardConfig<256>>>(args);
    default: return fattn::Status::Unsupported("no such forward variant");
  }
}

}  // namespace fattn_sm80_bench
