#include "cuda/sm80/backward.cuh"
namespace fattn::detail::sm80 {
struct V1 : BackwardTile<256, 64, 16, 4, 4, 4, 1, 1, false, 1> {};
struct V4 : BackwardTile<256, 64, 16, 4, 4, 4, 1, 1, false, 4> {};
#define INST(C, E, M) template __global__ void backward_kernel<C, E, M, false, false, 0>(const BackwardParams, const M);
INST(V1, __nv_bfloat16, WindowMask)
INST(V4, __nv_bfloat16, WindowMask)
INST(V1, __nv_bfloat16, NoMask)
INST(V4, __nv_bfloat16, NoMask)
}
