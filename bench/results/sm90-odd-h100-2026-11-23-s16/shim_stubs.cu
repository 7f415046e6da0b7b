// h16-odd90: the launch templates a partial shim (fp16 buckets 128/192/256 only) leaves out,
// so that the shim loads; they refuse the problem.
#include "cuda/sm90/launch.hpp"

namespace fattn::detail::sm90 {
#define FATTN_STUB(D, E)                                                          \
  template <>                                                                     \
  Status launch_forward<D, E>(const AttentionArgs&) {                             \
    return Status::Unsupported("h16-odd90 shim: bucket " #D " " #E " not built"); \
  }
FATTN_STUB(64, __half)
FATTN_STUB(64, __nv_bfloat16)
FATTN_STUB(128, __nv_bfloat16)
FATTN_STUB(192, __nv_bfloat16)
FATTN_STUB(256, __nv_bfloat16)
}  // namespace fattn::detail::sm90
