// Does compute-sanitizer's racecheck model a named barrier that one warp arrives on (bar.arrive)
// while the others wait on it (bar.sync), as the sm80 backward's DqTurnBeforeDqProduct does
// (backward_cta_order.cuh)? This kernel is race-free by construction: every shared-memory read
// of a slot another thread wrote is separated from that write by a __syncthreads, in both
// directions, whatever the named barrier does. Mode 0 leaves the named barrier out (control),
// mode 1 has warp 0 arrive on barrier 1 and warps 1-7 wait on it between two __syncthreads,
// mode 2 the same with every warp waiting (bar.sync 1 everywhere). A hazard report in mode 1 but
// not in modes 0 and 2 is the tool's, not the kernel's.
//   nvcc -arch=sm_90a -o racecheck_named_barrier bench/racecheck_named_barrier.cu
//   compute-sanitizer --tool racecheck ./racecheck_named_barrier <mode>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kIterations = 4;

__global__ void named_barrier_pattern(int mode, int* out) {
  __shared__ int slots[kThreads];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  int sum = 0;
  for (int it = 0; it < kIterations; ++it) {
    slots[threadIdx.x] = it + static_cast<int>(threadIdx.x);
    __syncthreads();
    if (mode == 1 && warp == 0) {
      asm volatile("bar.arrive 1, %0;\n" ::"n"(kThreads) : "memory");
    } else if (mode != 0) {
      asm volatile("bar.sync 1, %0;\n" ::"n"(kThreads) : "memory");
    }
    sum += slots[(threadIdx.x + 32) % kThreads];
    __syncthreads();
  }
  out[blockIdx.x * kThreads + threadIdx.x] = sum;
}

int main(int argc, char** argv) {
  const int mode = argc > 1 ? std::atoi(argv[1]) : 1;
  constexpr int kBlocks = 4;
  int* out = nullptr;
  if (cudaMalloc(&out, kBlocks * kThreads * sizeof(int)) != cudaSuccess) return 2;
  named_barrier_pattern<<<kBlocks, kThreads>>>(mode, out);
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("mode %d: %s\n", mode, cudaGetErrorString(status));
  cudaFree(out);
  return status == cudaSuccess ? 0 : 1;
}
