// h14-fwd80: forward variants of the 128 bucket (bf16) for the A/B in turns, in the shim's
// forward_variant (the candidate tree's bench/sm80_shim.cu; linked by build-h14fwd80/build.sh).
#include <cuda_bf16.h>

#include "cuda/sm80/forward.cuh"

namespace fattn_sm80_bench {
namespace sm80 = fattn::detail::sm80;
using fattn::detail::AttentionArgs;
using E = __nv_bfloat16;
using Staged = sm80::StagedForwardConfig<128>;
using Narrow = sm80::NarrowForwardConfig<128>;
using Unmasked = sm80::UnmaskedNarrowForwardConfig<128>;
// 70: HEAD's D = 65..72 unmasked tile (v10): 128 keys x 4 warps x 2 row tiles, halved walk.
using HeadHalved = sm80::HalvedWalkOnly<sm80::EpilogueWarpRowAfresh<Unmasked>>;
// 71: that with RescalePastThreshold (the candidate table's).
using RescaleHalved = sm80::RescalePastThreshold<HeadHalved>;
// 72: the same walk on 8 warps (256 query rows per CTA, one CTA per SM: 140 KB): half the K/V
// copies per warp; 73: 72 with RescalePastThreshold.
using Warps8Halved = sm80::HalvedWalkOnly<sm80::EpilogueWarpRowAfresh<
    sm80::KvSourcesInSharedMemory<sm80::FewerLiveRegisters<sm80::StepClassesOnly<
        sm80::RowStatsInSharedMemory<sm80::ForwardTile<128, 128, 8, 2, false, 5>>>>>>>;
using Warps8RescaleHalved = sm80::RescalePastThreshold<Warps8Halved>;
// 74: the D = 128 table tile with RescalePastThreshold (both masks); 75: D = 73..80 unmasked
// (Unmasked) with it.
using RescaleTable = sm80::RescalePastThreshold<sm80::ForwardConfig<128>>;
using RescaleUnmasked = sm80::RescalePastThreshold<Unmasked>;

fattn::Status forward_variant(const AttentionArgs& args, int bucket, int variant) {
  if (bucket != 128) return fattn::Status::Unsupported("128 only");
  using Table = sm80::ForwardConfig<128>;
  switch (variant) {
    case 70: return sm80::launch_forward_with<Table, E, Staged, Narrow, Unmasked, HeadHalved>(args);
    case 71:
      return sm80::launch_forward_with<Table, E, Staged, Narrow, Unmasked, RescaleHalved>(args);
    case 72:
      return sm80::launch_forward_with<Table, E, Staged, Narrow, Unmasked, Warps8Halved>(args);
    case 73:
      return sm80::launch_forward_with<Table, E, Staged, Narrow, Unmasked, Warps8RescaleHalved>(
          args);
    case 74:
      return sm80::launch_forward_with<RescaleTable, E, Staged, Narrow, Unmasked, HeadHalved>(
          args);
    case 75:
      return sm80::launch_forward_with<Table, E, Staged, Narrow, RescaleUnmasked, HeadHalved>(
          args);
    default: return fattn::Status::Unsupported("no such forward variant");
  }
}
}  // namespace fattn_sm80_bench
