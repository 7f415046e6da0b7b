// h15-mufu: the candidate forms of ExponentsUnderPv (mufu_candidates.hpp) instantiated alone for
// ptxas -v (sm_80 and sm_90a) and their SASS (bench/sm80_sass_loops.py --mufu-runs):
//   nvcc -std=c++20 -O3 -Isrc -Iinclude --expt-relaxed-constexpr -DSURVEY_TILE=128 [-DSURVEY_BF16] \
//     -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -cubin -o x.cubin <this file>
// SURVEY_TILE: 64, 128 (ForwardConfig), 73 (UnmaskedNarrowForwardConfig<128>), 96
// (NarrowForwardConfig<128>'s masked kernel); bf16 with SURVEY_BF16, else fp16.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "mufu_candidates.hpp"

namespace sm80 = fattn::detail::sm80;
namespace c = fattn_mufu;
using M = fattn::detail::NoMask;
using W = fattn::detail::WindowMask;
#ifdef SURVEY_BF16
using E = __nv_bfloat16;
#else
using E = __half;
#endif
#define K(CFG, MASK) \
  template __global__ void sm80::forward_kernel<CFG, E, MASK>(const sm80::ForwardParams, const MASK);
#if SURVEY_TILE == 64
using A = c::UnderPv<c::Table64Lean>;
K(A, M) K(A, W)
#elif SURVEY_TILE == 128
using A = c::Table128Candidate;  // its WindowMask kernel: EpilogueWarpRowAfresh alone
using B = c::UnderPv<c::Table128Afresh>;
K(A, M) K(A, W) K(B, W)
#elif SURVEY_TILE == 73
using A = c::UnderPv<c::Unmasked128Afresh>;
K(A, M)
#elif SURVEY_TILE == 96
using A = c::UnderPv<c::Narrow128Afresh>;
K(A, W)
#endif
