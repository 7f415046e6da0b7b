#include "cuda/sm80/forward_kernel.cuh"
namespace fattn::detail::sm80 {
template __global__ void forward_kernel<LargeSharedMemoryNarrowForwardConfig<256>, __half, NoMask>(const ForwardParams, const NoMask);
template __global__ void forward_kernel<LargeSharedMemoryNarrowForwardConfig<256>, __nv_bfloat16, NoMask>(const ForwardParams, const NoMask);
template __global__ void forward_kernel<LargeSharedMemoryNarrowForwardConfig<256>, __half, WindowMask>(const ForwardParams, const WindowMask);
template __global__ void forward_kernel<LargeSharedMemoryNarrowForwardConfig<256>, __nv_bfloat16, WindowMask>(const ForwardParams, const WindowMask);
template __global__ void forward_kernel_shifted_windows<LargeSharedMemoryNarrowForwardConfig<256>, __half, NoMask>(const ForwardParams, const NoMask);
template __global__ void forward_kernel_shifted_windows<LargeSharedMemoryNarrowForwardConfig<256>, __half, WindowMask>(const ForwardParams, const WindowMask);
}
