// Does compute-sanitizer's racecheck model a named barrier that one warp arrives on (bar.arrive)
// while the others wait on it (bar.sync), as the sm80 backward's DqTurnBeforeDqProduct does
// (backward_cta_order.cuh)? This kernel is race-free by construction: every shared-memory read
// of a slot another thread wrote is separated from that write by a __syncthreads, in both
// directions, whatever the named barrier does. Mode 0 leaves the named barrier out (control),
// mode 1 has warp 0 arrive on barrier 1 and warps 1-7 wait on it between two __syncthreads,
// mode 2 the same with every warp waiting (bar.sync 1 everywhere). A hazard report in mode 1 but
// not in modes 0 and 2 is the tool's, not the kernel's. Mode 3: the mbarrier form that replaces
// the named barrier (backward_cta_order.cuh, DqTurnBeforeDqProduct): warp 0's lane 0 arrives, the
// other warps wait on the phase's parity; racecheck reports nothing (twenty-seventh session, call
// 1). Mode 4, the library's form since call 2: warp 0 waits on the phase's parity too (at once:
// its arrival completes the phase). synccheck reports nothing in either mode here (call 2); in
// the library it reported "Missing wait" at warp 0's arrival until warp 0 waited, because there
// the phases of turn-0 items had no waiter.
//   nvcc -arch=sm_90a -o racecheck_named_barrier bench/racecheck_named_barrier.cu
//   compute-sanitizer --tool racecheck ./racecheck_named_barrier <mode>
//   compute-sanitizer --tool synccheck ./racecheck_named_barrier <3|4>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kIterations = 4;

__device__ unsigned shared_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

__global__ void named_barrier_pattern(int mode, int* out) {
  __shared__ int slots[kThreads];
  __shared__ unsigned long long phase_barrier;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  if (mode >= 3 && threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;\n" ::"r"(shared_address(&phase_barrier))
                 : "memory");
  }
  int sum = 0;
  for (int it = 0; it < kIterations; ++it) {
    slots[threadIdx.x] = it + static_cast<int>(threadIdx.x);
    __syncthreads();
    if (mode >= 3) {
      if (threadIdx.x == 0) {
        asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.shared.b64 state, [%0];\n}\n" ::"r"(
                         shared_address(&phase_barrier))
                     : "memory");
      }
      __syncwarp();
      if (warp != 0 || mode == 4) {
        asm volatile(
            "{\n .reg .pred done;\nWAIT_%=:\n"
            " mbarrier.test_wait.parity.shared.b64 done, [%0], %1;\n @!done bra WAIT_%=;\n}\n" ::"r"(
                shared_address(&phase_barrier)),
            "r"(static_cast<unsigned>(it) & 1u)
            : "memory");
      }
    } else if (mode == 1 && warp == 0) {
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
