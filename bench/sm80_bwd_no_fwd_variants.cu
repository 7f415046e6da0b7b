// Stands in for bench/sm80_variants.cu (the forward's alternative tiles) in the backward's shim
// (bench/sm80_bwd_build.sh): that file takes minutes to compile and the backward comparisons
// (bench/sm80_bwd_compare.py) run the table's forward only. Not part of the library.
#include "api/attention_args.hpp"
#include "fattn/types.hpp"

namespace fattn_sm80_bench {

fattn::Status forward_variant(const fattn::detail::AttentionArgs&, int, int) {
  return fattn::Status::Unsupported("forward variants are not built into this shim");
}

}  // namespace fattn_sm80_bench
