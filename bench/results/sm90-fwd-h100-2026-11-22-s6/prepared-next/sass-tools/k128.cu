// SASS probe: the D = 128 bf16 width-128 forward kernels, unmasked and causal (TMA-store epilogue).
#include <cuda_bf16.h>
#include "cuda/sm90/forward_kernel.cuh"
namespace s = fattn::detail::sm90;
template __global__ void s::forward_kernel<128, 128, __nv_bfloat16, fattn::detail::NoMask, false>(
    const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,
    const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,
    const fattn::detail::NoMask, const s::ForwardParams);
template __global__ void s::forward_kernel<128, 128, __nv_bfloat16, fattn::detail::CausalMask, false>(
    const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,
    const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,
    const fattn::detail::CausalMask, const s::ForwardParams);
