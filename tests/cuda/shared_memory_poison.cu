#include "shared_memory_poison.hpp"

#include <cuda_runtime.h>

#include <cstdint>

#include "device_buffer.hpp"

namespace fattn::testing {
namespace {

constexpr int kThreads = 1024;
constexpr std::uint32_t kNaNWord = 0x01010101u * kNaNByte;

__global__ void fill_shared_memory(int words) {
  extern __shared__ std::uint32_t shared[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) shared[i] = kNaNWord;
}

// Adds the number of words that do not hold the pattern to `mismatches`.
__global__ void count_unpoisoned_words(int words, unsigned long long* mismatches) {
  extern __shared__ std::uint32_t shared[];
  unsigned long long count = 0;
  for (int i = threadIdx.x; i < words; i += blockDim.x) count += shared[i] != kNaNWord;
  if (count > 0) atomicAdd(mismatches, count);
}

}  // namespace

bool poison_shared_memory() {
  int device = 0;
  int sm_count = 0;
  int shared_bytes = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&shared_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
          cudaSuccess) {
    return false;
  }
  const int words = shared_bytes / static_cast<int>(sizeof(std::uint32_t));
  for (const void* kernel : {reinterpret_cast<const void*>(&fill_shared_memory),
                             reinterpret_cast<const void*>(&count_unpoisoned_words)}) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes) !=
        cudaSuccess) {
      return false;
    }
  }
  unsigned long long* mismatches = nullptr;
  if (cudaMalloc(&mismatches, sizeof(*mismatches)) != cudaSuccess) return false;
  unsigned long long found = 1;
  if (cudaMemset(mismatches, 0, sizeof(*mismatches)) == cudaSuccess) {
    fill_shared_memory<<<sm_count, kThreads, shared_bytes>>>(words);
    count_unpoisoned_words<<<sm_count, kThreads, shared_bytes>>>(words, mismatches);
    if (cudaGetLastError() != cudaSuccess ||
        cudaMemcpy(&found, mismatches, sizeof(found), cudaMemcpyDeviceToHost) != cudaSuccess) {
      found = 1;
    }
  }
  cudaFree(mismatches);
  if (found != 0) return false;
  // The check read the pattern without changing it; fill once more so that the caller's next
  // launch follows a fill directly, and wait for it: the caller's stream may be another one.
  fill_shared_memory<<<sm_count, kThreads, shared_bytes>>>(words);
  return cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
}

}  // namespace fattn::testing
