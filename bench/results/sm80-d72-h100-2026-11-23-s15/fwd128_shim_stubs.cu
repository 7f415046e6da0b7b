// h15-d72: stubs that let bench/sm80_shim.cu link with the sm80 forward d128 instances alone (the
// old / new shims of bench/sm80_fwd_turns.py --old/--new, built in minutes instead of every
// bucket's forward and backward): the other buckets answer Unsupported, and the variants too
// where no variants file is linked (-DFATTN_STUB_FORWARD_VARIANTS).
#include "cuda/sm80/launch.hpp"

namespace fattn::detail::sm80 {
template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs&) {
  return Status::Unsupported("this shim has the 128 bucket's forward only");
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
FATTN_STUB(launch_forward, 192)
FATTN_STUB(launch_forward, 256)
FATTN_STUB(launch_backward, 64)
FATTN_STUB(launch_backward, 128)
FATTN_STUB(launch_backward, 192)
FATTN_STUB(launch_backward, 256)

namespace fattn_sm80_bench {
#ifdef FATTN_STUB_FORWARD_VARIANTS
fattn::Status forward_variant(const fattn::detail::AttentionArgs&, int, int) {
  return fattn::Status::Unsupported("no variants in this shim");
}
#endif
fattn::Status backward_variant(const fattn::detail::AttentionArgs&, int, int) {
  return fattn::Status::Unsupported("no variants in this shim");
}
}  // namespace fattn_sm80_bench
