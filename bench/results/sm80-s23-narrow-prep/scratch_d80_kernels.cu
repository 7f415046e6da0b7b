#include "cuda/sm80/forward_kernel.cuh"
namespace fattn::detail::sm80 {
template __global__ void forward_kernel<UnmaskedNarrowForwardConfig<128>, __half, NoMask>(const ForwardParams, const NoMask);
template __global__ void forward_kernel<UnmaskedNarrowForwardConfig<128>, __nv_bfloat16, NoMask>(const ForwardParams, const NoMask);
template __global__ void forward_kernel<HalvedUnmaskedNarrowForwardConfig<128>, __half, NoMask>(const ForwardParams, const NoMask);
template __global__ void forward_kernel<HalvedUnmaskedNarrowForwardConfig<128>, __nv_bfloat16, NoMask>(const ForwardParams, const NoMask);
}
