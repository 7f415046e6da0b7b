#include <cuda_bf16.h>
#include "cuda/sm80/backward.cuh"
namespace fattn_sm80_bench {
fattn::Status score_passes_256(const fattn::detail::AttentionArgs& args) {
  namespace s = fattn::detail::sm80;
  return s::launch_backward_with<s::ScorePassesByQueryTile<s::LargeSharedMemoryBackwardConfig<256>>,
                                 __nv_bfloat16>(args);
}
}  // namespace fattn_sm80_bench
