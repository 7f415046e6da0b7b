// h13-fwd80b: forward variants of the 256 bucket (bf16) for the v14 A/B, in the shim's
// forward_variant (the candidate tree's bench/sm80_shim.cu).
#include <cuda_bf16.h>

#include "cuda/sm80/forward.cuh"

namespace fattn_sm80_bench {
namespace sm80 = fattn::detail::sm80;
using fattn::detail::AttentionArgs;
using E = __nv_bfloat16;
// The v13 table at 256 (before v14) and its large-shared-memory narrow tile (D = 193..208).
using V13Tile256 = sm80::QueryTilesSlowestInHeadGroups<
    sm80::WholePrologueCopies<sm80::ForwardTile<256, 64, 4, 1, true>>, sm80::kForwardGroupHeads256>;
using V13LargeNarrow256 =
    sm80::HalfLastStep<sm80::StepClassesOnly<sm80::ForwardTile<256, 128, 8, 1, false, 13>>>;
// 61: v14's loop copies alone (prologue copies one chunk per lane, as v13).
using LoopOnlyTile256 = sm80::QueryTilesSlowestInHeadGroups<
    sm80::WholeChunkKvCopies<sm80::WholePrologueCopies<sm80::ForwardTile<256, 64, 4, 1, true>>, 2>,
    sm80::kForwardGroupHeads256>;
// 63: v14's large narrow tile with WholePrologueCopies.
using LargeNarrow256WholePrologue =
    sm80::WholePrologueCopies<sm80::LargeSharedMemoryNarrowForwardConfig<256>>;

template <class Table, class LargeNarrow>
fattn::Status launch256(const AttentionArgs& args) {
  constexpr int kLargeNarrowSteps = 13;
  if ((args.problem.head_dim + sm80::kMmaK - 1) / sm80::kMmaK <= kLargeNarrowSteps) {
    bool fits = false;
    FATTN_RETURN_IF_ERROR(sm80::device_fits_shared_bytes(args, LargeNarrow::kSharedBytes, &fits));
    if (fits) {
      return sm80::launch_forward_with<Table, E, sm80::StagedForwardConfig<256>, LargeNarrow>(args);
    }
  }
  return sm80::launch_forward_with<Table, E, sm80::StagedForwardConfig<256>,
                                   sm80::NarrowForwardConfig<256>>(args);
}

fattn::Status forward_variant(const AttentionArgs& args, int bucket, int variant) {
  if (bucket != 256) return fattn::Status::Unsupported("256 only");
  switch (variant) {
    case 60: return launch256<V13Tile256, V13LargeNarrow256>(args);
    case 61: return launch256<LoopOnlyTile256, sm80::LargeSharedMemoryNarrowForwardConfig<256>>(args);
    case 63: return launch256<sm80::ForwardConfig<256>, LargeNarrow256WholePrologue>(args);
    default: return fattn::Status::Unsupported("no such forward variant");
  }
}
}  // namespace fattn_sm80_bench
