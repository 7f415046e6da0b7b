// h15-odd80 call 2: forward variant 1 = the candidate with the K masks held through a shuffle
// (held-masks.patch on the candidate, call 1's `new`), compiled with -Dsm80=sm80_c2 so that its
// d192 forward lives beside the table's in one shim. bf16 only (bench/sm80_fwd_turns.py runs
// variants on bf16 points). stubs_novariant.cu: fwd192_shim_stubs.cu less its forward_variant.
#include "cuda/sm80/launch.hpp"
#include <cuda_bf16.h>
namespace fattn_sm80_bench {
fattn::Status forward_variant(const fattn::detail::AttentionArgs& args, int bucket, int variant) {
  if (bucket == 192 && variant == 1) {
    return fattn::detail::sm80::launch_forward<192, __nv_bfloat16>(args);
  }
  return fattn::Status::Unsupported("no such variant in this shim");
}
}  // namespace fattn_sm80_bench
