// h15-d72: forward variants of the 128 bucket (bf16) for the A/B in turns, in the shim's
// forward_variant (bench/sm80_shim.cu, linked with fwd128_shim_stubs.cu; build.sh). Every
// variant differs from the table only in the D = 65..72 unmasked tile (UnmaskedHalvedConfig).
#include <cuda_bf16.h>

#include "cuda/sm80/forward.cuh"

namespace fattn_sm80_bench {
namespace sm80 = fattn::detail::sm80;
using fattn::detail::AttentionArgs;
using E = __nv_bfloat16;
using Table = sm80::ForwardConfig<128>;
using Staged = sm80::StagedForwardConfig<128>;
using Narrow = sm80::NarrowForwardConfig<128>;
using Unmasked = sm80::UnmaskedNarrowForwardConfig<128>;
// 80: main's D = 65..72 unmasked tile (v10 + v15): 128 keys x 4 warps x 2 row tiles, halved walk.
using MainHalved = sm80::HalvedWalkOnly<sm80::EpilogueWarpRowAfresh<Unmasked>>;
// 81: + the row max as a tree of pairs; 82: + the exponentials under P·V; 83: both.
using PairsHalved = sm80::RowMaxByPairs<MainHalved>;
using UnderPvHalved = sm80::ExponentsUnderPv<MainHalved>;
using BothHalved = sm80::ExponentsUnderPv<PairsHalved>;
#ifdef FATTN_D72_SPLIT_VARIANT
// 84: both, with one row tile's Q·Kᵀ before the other's and its max right after
// (RowMaxUnderScores: row_max_under_scores.patch in this folder, on the candidate f8f67d8).
using SplitHalved = sm80::RowMaxUnderScores<BothHalved>;
#endif

template <class Halved>
fattn::Status launch(const AttentionArgs& args) {
  return sm80::launch_forward_with<Table, E, Staged, Narrow, Unmasked, Halved>(args);
}

fattn::Status forward_variant(const AttentionArgs& args, int bucket, int variant) {
  if (bucket != 128) return fattn::Status::Unsupported("128 only");
  switch (variant) {
    case 80: return launch<MainHalved>(args);
    case 81: return launch<PairsHalved>(args);
    case 82: return launch<UnderPvHalved>(args);
    case 83: return launch<BothHalved>(args);
#ifdef FATTN_D72_SPLIT_VARIANT
    case 84: return launch<SplitHalved>(args);
#endif
    default: return fattn::Status::Unsupported("no such forward variant");
  }
}
}  // namespace fattn_sm80_bench
