// Stubs that let bench/sm80_shim.cu link with the sm80 forward d192 instances alone (a shim for
// bench/sm80_fwd_turns.py --old/--new built in a minute instead of every bucket's forward and
// backward): the other buckets and the variants answer Unsupported.
#include "cuda/sm80/launch.hpp"

namespace fattn::detail::sm80 {
template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs&) {
  return Status::Unsupported("this shim has the 192 bucket's forward only");
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
FATTN_STUB(launch_forward, 128)
FATTN_STUB(launch_forward, 256)
FATTN_STUB(launch_backward, 64)
FATTN_STUB(launch_backward, 128)
FATTN_STUB(launch_backward, 192)
FATTN_STUB(launch_backward, 256)

namespace fattn_sm80_bench {
fattn::Status backward_variant(const fattn::detail::AttentionArgs&, int, int) {
  return fattn::Status::Unsupported("no variants in this shim");
}
}  // namespace fattn_sm80_bench
