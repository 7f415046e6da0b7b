// ScorePassesByQueryTile at 128 and 256 beside the table (lead, ninth session).
#include <cuda_bf16.h>
#include "cuda/sm80/backward.cuh"
extern template fattn::Status fattn::detail::sm80::launch_backward<128, __nv_bfloat16>(
    const fattn::detail::AttentionArgs&);
extern template fattn::Status fattn::detail::sm80::launch_backward<256, __nv_bfloat16>(
    const fattn::detail::AttentionArgs&);
namespace fattn_sm80_bench {
fattn::Status score_passes_128(const fattn::detail::AttentionArgs& args);
fattn::Status score_passes_256(const fattn::detail::AttentionArgs& args);
fattn::Status backward_variant(const fattn::detail::AttentionArgs& args, int bucket, int variant) {
  using E = __nv_bfloat16;
  switch (bucket * 100 + variant) {
    case 12864: return fattn::detail::sm80::launch_backward<128, E>(args);
    case 25664: return fattn::detail::sm80::launch_backward<256, E>(args);
    case 12870: return score_passes_128(args);
    case 25670: return score_passes_256(args);
    default: return fattn::Status::Unsupported("no such backward variant");
  }
}
}  // namespace fattn_sm80_bench
