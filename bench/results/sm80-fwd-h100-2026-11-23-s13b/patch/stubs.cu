// Link stubs for a forward-only shim (h13-fwd80b): the instances not built here.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "api/attention_args.hpp"
#include "cuda/sm80/launch.hpp"

namespace fattn::detail::sm80 {
template <int kHeadDim, class Element>
Status launch_backward(const AttentionArgs&) { return Status::Unsupported("stub"); }
template Status launch_backward<64, __half>(const AttentionArgs&);
template Status launch_backward<128, __half>(const AttentionArgs&);
template Status launch_backward<192, __half>(const AttentionArgs&);
template Status launch_backward<256, __half>(const AttentionArgs&);
template Status launch_backward<64, __nv_bfloat16>(const AttentionArgs&);
template Status launch_backward<128, __nv_bfloat16>(const AttentionArgs&);
template Status launch_backward<192, __nv_bfloat16>(const AttentionArgs&);
template Status launch_backward<256, __nv_bfloat16>(const AttentionArgs&);
template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs&) { return Status::Unsupported("stub"); }
template Status launch_forward<64, __half>(const AttentionArgs&);
template Status launch_forward<128, __half>(const AttentionArgs&);
template Status launch_forward<64, __nv_bfloat16>(const AttentionArgs&);
template Status launch_forward<128, __nv_bfloat16>(const AttentionArgs&);
}  // namespace fattn::detail::sm80
namespace fattn_sm80_bench {
fattn::Status backward_variant(const fattn::detail::AttentionArgs&, int, int) {
  return fattn::Status::Unsupported("stub");
}
#ifdef NO_FORWARD_VARIANTS
fattn::Status forward_variant(const fattn::detail::AttentionArgs&, int, int) {
  return fattn::Status::Unsupported("stub");
}
#endif
}  // namespace fattn_sm80_bench
