// h15-eupv: stubs that let bench/sm80_shim.cu link with the sm80 forward instances of the 128,
// 192 and 256 buckets alone (the old / new shims of bench/sm80_fwd_turns.py --old/--new): the 64
// bucket, every backward and the variants answer Unsupported.
#include "cuda/sm80/launch.hpp"

namespace fattn::detail::sm80 {
template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs&) {
  return Status::Unsupported("this shim has the 128, 192 and 256 buckets' forward only");
}
template <int kHeadDim, class Element>
Status launch_backward(const AttentionArgs&) {
  return Status::Unsupported("this shim has no backward");
}
}  // namespace fattn::detail::sm80

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define FATTN_STUB(kind, bucket)                                                              \
  template fattn::Status fattn::detail::sm80::kind<bucket, __half>(                           \
      const fattn::detail::AttentionArgs&);                                                    \
  template fattn::Status fattn::detail::sm80::kind<bucket, __nv_bfloat16>(                    \
      const fattn::detail::AttentionArgs&);
FATTN_STUB(launch_forward, 64)
FATTN_STUB(launch_backward, 64)
FATTN_STUB(launch_backward, 128)
FATTN_STUB(launch_backward, 192)
FATTN_STUB(launch_backward, 256)

namespace fattn_sm80_bench {
fattn::Status forward_variant(const fattn::detail::AttentionArgs&, int, int) {
  return fattn::Status::Unsupported("no variants in this shim");
}
fattn::Status backward_variant(const fattn::detail::AttentionArgs&, int, int) {
  return fattn::Status::Unsupported("no variants in this shim");
}
}  // namespace fattn_sm80_bench
