// Addressing rows of the (batch, seqlen, heads, head_dim) views on the CPU.
#pragma once

#include <cstdint>

#include "fattn/types.hpp"

namespace fattn::detail {

// Offset, in elements, of the first element of row (b, s, h).
inline std::int64_t row_offset(const TensorView& t, std::int64_t b, std::int64_t s,
                               std::int64_t h) {
  return b * t.stride[0] + s * t.stride[1] + h * t.stride[2];
}

// Offset of lse[b, h, 0] in the contiguous (batch, heads_q, seqlen_q) log-sum-exp tensor.
inline std::int64_t lse_offset(const TensorView& lse, std::int64_t b, std::int64_t h) {
  return (b * lse.shape[1] + h) * lse.shape[2];
}

}  // namespace fattn::detail
