// Alternative forward tile configurations of the sm80 family, bf16 only, for measuring the
// choices of src/cuda/sm80/tile_config.hpp against their neighbours in one run
// (bench/sm80_vs_torch.py --variants). Not part of the library.
#include <cuda_bf16.h>

#include "cuda/sm80/forward.cuh"

namespace fattn_sm80_bench {

using fattn::detail::AttentionArgs;
using fattn::detail::sm80::ForwardTile;
using fattn::detail::sm80::launch_forward_with;

// (width, keys per tile, warps, 16-row tiles per warp, full-width walk); variant numbers as
// listed by the script.
fattn::Status forward_variant(const AttentionArgs& args, int bucket, int variant) {
  using E = __nv_bfloat16;
  switch (bucket * 10 + variant) {
    case 641: return launch_forward_with<ForwardTile<64, 64, 4, 2, true>, E>(args);
    case 1281: return launch_forward_with<ForwardTile<128, 128, 4, 1, true>, E>(args);
    default: return fattn::Status::Unsupported("no such forward variant");
  }
}

}  // namespace fattn_sm80_bench
