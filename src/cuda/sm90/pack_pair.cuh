// Two floats as one 32-bit word of 16-bit elements (round to nearest), the first in the low half:
// the Hopper kernels' register fragments and stores (the forward's P fragments and staged O pairs,
// the backward's dS / P fragments and dK / dV pairs). The element type is picked by the dummy
// pointer's type, so templated callers pass static_cast<Element*>(nullptr).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "cuda/common/ptx_sm90.cuh"

namespace fattn::detail::sm90 {

FATTN_DEVICE std::uint32_t pack_pair(float lo, float hi, __nv_bfloat16*) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<std::uint32_t*>(&v);
}
FATTN_DEVICE std::uint32_t pack_pair(float lo, float hi, __half*) {
  __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<std::uint32_t*>(&v);
}

}  // namespace fattn::detail::sm90
