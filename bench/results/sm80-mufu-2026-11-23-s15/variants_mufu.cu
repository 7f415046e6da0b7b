// h15-mufu: forward variants of the 128 bucket (bf16) for the prepared A/B in turns, in the
// shim's forward_variant (bench/sm80_shim.cu, linked with bench/sm80_forward_shim_stubs.cu
// -DFATTN_SHIM_FORWARD_128 and main's sm80_fwd_d128 instances; call_next.sh). Each differs from
// the table only in ForwardConfig<128> (D = 97..128; the option acts in its full-width walk,
// D = 128):
//   90: + EpilogueWarpRowAfresh (the register change alone: both kernels)
//   91: 90 + ExponentsUnderPv in the unmasked kernel (the candidate; masked kernel = 90's)
#include <cuda_bf16.h>

#include "mufu_candidates.hpp"

namespace fattn_sm80_bench {
namespace sm80 = fattn::detail::sm80;
using fattn::detail::AttentionArgs;
using E = __nv_bfloat16;

template <class Table>
fattn::Status launch(const AttentionArgs& args) {
  return sm80::launch_forward_with<Table, E, sm80::StagedForwardConfig<128>,
                                   sm80::NarrowForwardConfig<128>,
                                   sm80::UnmaskedNarrowForwardConfig<128>,
                                   sm80::HalvedUnmaskedNarrowForwardConfig<128>>(args);
}

fattn::Status forward_variant(const AttentionArgs& args, int bucket, int variant) {
  if (bucket != 128) return fattn::Status::Unsupported("128 only");
  switch (variant) {
    case 90: return launch<fattn_mufu::Table128Afresh>(args);
    case 91: return launch<fattn_mufu::Table128Candidate>(args);
    default: return fattn::Status::Unsupported("no such forward variant");
  }
}
}  // namespace fattn_sm80_bench
