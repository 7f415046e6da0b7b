// Storage element types of the CUDA kernels and their conversions to and from fp32 arithmetic.
// fp32 = float, fp16 = __half, bf16 = __nv_bfloat16 (the types the generated instantiations use).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "fattn/types.hpp"

namespace fattn::detail {

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class Element>
__device__ __forceinline__ Element from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// The fattn::DType of a storage element type (host and device).
template <class Element>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::float32;
};
template <>
struct DTypeOf<__half> {
  static constexpr DType value = DType::float16;
};
template <>
struct DTypeOf<__nv_bfloat16> {
  static constexpr DType value = DType::bfloat16;
};

}  // namespace fattn::detail
