// Alternative backward tile configurations of the sm80 family, bf16 only, for measuring the
// choices of src/cuda/sm80/tile_config.hpp (BackwardConfig) against their neighbours in one run
// (bench/sm80_vs_torch.py --bwd-variants). Not part of the library.
#include <cuda_bf16.h>

#include "cuda/sm80/backward.cuh"

namespace fattn_sm80_bench {

using fattn::detail::AttentionArgs;
using fattn::detail::sm80::BackwardTile;
using fattn::detail::sm80::launch_backward_with;

// BackwardTile<width, query rows, keys, warps, query warps (phase A), dim warps (phase B),
// Q/dO stages, phase-A query passes>; variant numbers as listed by the script.
fattn::Status backward_variant(const AttentionArgs& args, int bucket, int variant) {
  using E = __nv_bfloat16;
  switch (bucket * 10 + variant) {
    case 641: return launch_backward_with<BackwardTile<64, 64, 128, 8, 1, 1, 2>, E>(args);
    case 642: return launch_backward_with<BackwardTile<64, 64, 128, 8, 2, 2, 2>, E>(args);
    case 1281: return launch_backward_with<BackwardTile<128, 64, 64, 8, 2, 2, 2>, E>(args);
    case 1282: return launch_backward_with<BackwardTile<128, 64, 128, 8, 1, 2, 2, 2>, E>(args);
    case 1283: return launch_backward_with<BackwardTile<128, 64, 128, 8, 2, 2, 2, 2>, E>(args);
    // Two Q/dO stages at 256 need 209 KB of shared memory: Hopper only (sm_80 has 163 KB).
    case 2561: return launch_backward_with<BackwardTile<256, 64, 64, 8, 2, 2, 2>, E>(args);
    case 2562: return launch_backward_with<BackwardTile<256, 64, 64, 8, 2, 2, 1>, E>(args);
    default: return fattn::Status::Unsupported("no such backward variant");
  }
}

}  // namespace fattn_sm80_bench
