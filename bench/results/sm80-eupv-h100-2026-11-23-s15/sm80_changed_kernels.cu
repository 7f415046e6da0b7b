// h15-eupv: the forward kernels ExponentsUnderPv changes (ptxas -v on sm_80), fp16 and bf16.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "cuda/sm80/forward_kernel.cuh"
namespace sm80 = fattn::detail::sm80;
using M = fattn::detail::NoMask;
using W = fattn::detail::WindowMask;
#define K(CFG, E, MASK) template __global__ void sm80::forward_kernel<CFG, E, MASK>(const sm80::ForwardParams, const MASK);
#define S(CFG, E, MASK) template __global__ void sm80::forward_kernel_shifted_windows<CFG, E, MASK>(const sm80::ForwardParams, const MASK);
#define ALL(E) \
  K(sm80::NarrowForwardConfig<128>, E, M) K(sm80::NarrowForwardConfig<128>, E, W) \
  K(sm80::ForwardConfig<192>, E, M) K(sm80::ForwardConfig<192>, E, W) \
  K(sm80::NarrowForwardConfig<192>, E, M) K(sm80::NarrowForwardConfig<192>, E, W) \
  S(sm80::NarrowForwardConfig<192>, E, M) S(sm80::NarrowForwardConfig<192>, E, W) \
  K(sm80::ForwardConfig<256>, E, M) K(sm80::ForwardConfig<256>, E, W) \
  K(sm80::LargeSharedMemoryNarrowForwardConfig<256>, E, M) K(sm80::LargeSharedMemoryNarrowForwardConfig<256>, E, W)
ALL(__half)
ALL(__nv_bfloat16)
