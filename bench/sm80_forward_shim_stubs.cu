// Stubs that let bench/sm80_shim.cu link with some buckets' sm80 instances of one direction
// alone: the old / new shims of bench/sm80_fwd_turns.py and bench/sm80_bwd_turns.py --old/--new
// (bench/sm80_old_new_build.sh) then build in a minute or two instead of every bucket's forward
// and backward. Every bucket's forward and backward not named answers Unsupported; so do the
// variant hooks (the forward's unless a variants file is linked).
//
//   nvcc ... -DFATTN_SHIM_FORWARD_128 [-DFATTN_SHIM_BACKWARD_192 ...] [-DFATTN_STUB_FORWARD_VARIANTS] \
//       bench/sm80_shim.cu bench/sm80_forward_shim_stubs.cu <those buckets' sm80_{fwd,bwd}_d*_*.cu>
//
// (The fourteenth and fifteenth sessions' calls linked per-bucket copies of this file from their
// results folders: fwd192_shim_stubs.cu, fwd128_shim_stubs.cu, stubs_novariant.cu, fwd_shim_stubs.cu.)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda/sm80/launch.hpp"

#if !defined(FATTN_SHIM_FORWARD_64) && !defined(FATTN_SHIM_FORWARD_128) && \
    !defined(FATTN_SHIM_FORWARD_192) && !defined(FATTN_SHIM_FORWARD_256) && \
    !defined(FATTN_SHIM_BACKWARD_64) && !defined(FATTN_SHIM_BACKWARD_128) && \
    !defined(FATTN_SHIM_BACKWARD_192) && !defined(FATTN_SHIM_BACKWARD_256)
#error "define FATTN_SHIM_FORWARD_<bucket> or FATTN_SHIM_BACKWARD_<bucket> for each head-dim bucket whose instances are linked"
#endif

namespace fattn::detail::sm80 {
template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs&) {
  return Status::Unsupported("this shim has not this bucket's sm80 forward");
}
template <int kHeadDim, class Element>
Status launch_backward(const AttentionArgs&) {
  return Status::Unsupported("this shim has not this bucket's sm80 backward");
}
}  // namespace fattn::detail::sm80

#define FATTN_STUB(kind, bucket)                                                              \
  template fattn::Status fattn::detail::sm80::kind<bucket, __half>(                           \
      const fattn::detail::AttentionArgs&);                                                    \
  template fattn::Status fattn::detail::sm80::kind<bucket, __nv_bfloat16>(                    \
      const fattn::detail::AttentionArgs&);
#ifndef FATTN_SHIM_FORWARD_64
FATTN_STUB(launch_forward, 64)
#endif
#ifndef FATTN_SHIM_FORWARD_128
FATTN_STUB(launch_forward, 128)
#endif
#ifndef FATTN_SHIM_FORWARD_192
FATTN_STUB(launch_forward, 192)
#endif
#ifndef FATTN_SHIM_FORWARD_256
FATTN_STUB(launch_forward, 256)
#endif
#ifndef FATTN_SHIM_BACKWARD_64
FATTN_STUB(launch_backward, 64)
#endif
#ifndef FATTN_SHIM_BACKWARD_128
FATTN_STUB(launch_backward, 128)
#endif
#ifndef FATTN_SHIM_BACKWARD_192
FATTN_STUB(launch_backward, 192)
#endif
#ifndef FATTN_SHIM_BACKWARD_256
FATTN_STUB(launch_backward, 256)
#endif

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
