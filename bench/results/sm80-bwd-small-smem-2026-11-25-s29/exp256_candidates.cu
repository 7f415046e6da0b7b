#include "cuda/sm80/backward.cuh"
namespace fattn::detail::sm80 {
struct V2 : BackwardTile<256, 64, 16, 4, 4, 4, 1, 1, false, 2> {};
struct V4 : BackwardTile<256, 64, 16, 4, 4, 4, 1, 1, false, 4> {};
#define INST(C, E, M) template __global__ void backward_kernel<C, E, M, false, false, 0>(const BackwardParams, const M);
INST(V2, __nv_bfloat16, WindowMask)

INST(V2, __half, WindowMask)
INST(V2, __half, NoMask)
INST(V2, __nv_bfloat16, NoMask)

}
