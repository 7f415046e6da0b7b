// h16-odd90: what TMA (sm_90a) accepts for the sector-aligned boxes, one case per process
// (an illegal instruction poisons the context). A [rows = 64][heads = 2][D = 72] fp16 tensor
// (head 1 starts 144 bytes in: 16 bytes into a 32-byte sector), 128-byte swizzle as the forward
// kernel's maps. Each element's bits are (head << 13) | (row << 7) | column.
//   case 0: load box (64 cols x 64 rows) at column 0 of head 1 (the kernel's current boxes)
//   case 1: load at column -8 (negative innermost coordinate)
//   case 2: store at column -8
//   case 3: load with a 56-column box (112 bytes) at column 0: where do rows land in smem?
//   case 4: rank-5 map (8 elements, 9 words, rows, heads, 1), box (8, 8, 64, 1, 1), word -1
// Prints, per case, the launch status and the shared-memory tile de-swizzled (mismatch count
// against the expected layout).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/common/ptx_sm90.cuh"

using fattn::detail::sm90::mbarrier_init;

constexpr int kRows = 64, kHeads = 2, kD = 72;

__device__ void tma_load_5d(const CUtensorMap* map, std::uint64_t* bar, void* dst, int c0, int c1,
                            int c2, int c3, int c4) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6, %7}], [%2];\n" ::"r"(fattn::detail::sm90::smem_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(fattn::detail::sm90::smem_address(bar)),
      "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
      : "memory");
}

__global__ void probe(const __grid_constant__ CUtensorMap map, int mode, int col,
                      std::uint16_t* dump) {
  __shared__ alignas(1024) std::uint16_t tile[64 * 64];
  __shared__ alignas(8) std::uint64_t bar;
  namespace p = fattn::detail::sm90;
  if (mode == 2) {  // store: fill the tile (swizzled positions) with a pattern, store it
    for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
      const int r = i / 64, c = i % 64;
      const int phys = r * 64 + (((c / 8) ^ (r % 8)) * 8) + c % 8;
      tile[phys] = static_cast<std::uint16_t>(0x4000 | (r << 7) | c);
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      p::tma_store_4d(&map, tile, col, 0, 1, 0);
      p::bulk_commit_group();
      p::bulk_wait_group<0>();
    }
    __syncthreads();
    return;
  }
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) tile[i] = 0xEEEE;
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  if (threadIdx.x == 0) {
    mbarrier_init(&bar, 1);
    p::fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    p::mbarrier_arrive_expect_tx(&bar, mode == 3 ? 64 * 112 : 64 * 128);
    if (mode == 4) {
      tma_load_5d(&map, &bar, tile, 0, col, 0, 1, 0);
    } else {
      p::tma_load_4d(&map, &bar, tile, col, 0, 1, 0);
    }
  }
  p::mbarrier_wait(&bar, 0);
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) dump[i] = tile[i];
}

int main(int argc, char** argv) {
  const int mode = argc > 1 ? atoi(argv[1]) : 0;
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode),
                                   12000, cudaEnableDefault, &q);
  std::vector<std::uint16_t> host(kRows * kHeads * kD);
  for (int r = 0; r < kRows; ++r)
    for (int h = 0; h < kHeads; ++h)
      for (int c = 0; c < kD; ++c)
        host[(r * kHeads + h) * kD + c] =
            mode == 2 ? 0xFFFF : static_cast<std::uint16_t>((h << 13) | (r << 7) | c);
  std::uint16_t *data, *dump;
  cudaMalloc(&data, host.size() * 2);
  cudaMalloc(&dump, 64 * 64 * 2);
  cudaMemcpy(data, host.data(), host.size() * 2, cudaMemcpyHostToDevice);
  CUtensorMap map;
  CUresult res;
  const cuuint32_t es[5] = {1, 1, 1, 1, 1};
  if (mode == 4) {
    const cuuint64_t dims[5] = {8, kD / 8, kRows, kHeads, 1};
    const cuuint64_t strides[4] = {16, kHeads * kD * 2, kD * 2, kRows * kHeads * kD * 2};
    const cuuint32_t box[5] = {8, 8, 64, 1, 1};
    res = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 5, data, dims, strides, box, es,
                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  } else {
    const cuuint64_t dims[4] = {kD, kRows, kHeads, 1};
    const cuuint64_t strides[3] = {kHeads * kD * 2, kD * 2, kRows * kHeads * kD * 2};
    const cuuint32_t box[4] = {static_cast<cuuint32_t>(mode == 3 ? 56 : 64), 64, 1, 1};
    res = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, data, dims, strides, box, es,
                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  }
  const int col = (mode == 1 || mode == 2) ? -8 : (mode == 4 ? -1 : 0);
  printf("case %d: encode %d", mode, static_cast<int>(res));
  probe<<<1, 128>>>(map, mode, col, dump);
  const cudaError_t e = cudaDeviceSynchronize();
  printf(", launch %s\n", cudaGetErrorName(e));
  if (e != cudaSuccess) return 1;
  if (mode == 2) {
    cudaMemcpy(host.data(), data, host.size() * 2, cudaMemcpyDeviceToHost);
    int bad = 0, written = 0;
    for (int r = 0; r < kRows; ++r)
      for (int h = 0; h < kHeads; ++h)
        for (int c = 0; c < kD; ++c) {
          const std::uint16_t got = host[(r * kHeads + h) * kD + c];
          const bool in_box = h == 1 && c < 56;
          const std::uint16_t want = in_box ? (0x4000 | (r << 7) | (c + 8)) : 0xFFFF;
          written += got != 0xFFFF;
          if (got != want && bad++ < 5) printf("  r %d h %d c %d: got %04x want %04x\n", r, h, c, got, want);
        }
    printf("  store at -8: %d mismatches, %d elements written (expect %d)\n", bad, written, 64 * 56);
    return 0;
  }
  std::vector<std::uint16_t> t(64 * 64);
  cudaMemcpy(t.data(), dump, t.size() * 2, cudaMemcpyDeviceToHost);
  // Expected logical tile: element (r, c) of a 64-column box starting at column `first`.
  const int first = mode == 4 ? -8 : col;
  const int width = mode == 3 ? 56 : 64;
  int bad = 0;
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < width; ++c) {
      const int src = first + c;
      const std::uint16_t want =
          src >= 0 && src < kD ? static_cast<std::uint16_t>((1 << 13) | (r << 7) | src) : 0;
      // 128-byte rows, 16-byte chunks XOR-swizzled by the row (mod 8).
      const int phys = r * 64 + (((c / 8) ^ (r % 8)) * 8) + c % 8;
      if (t[phys] != want && bad++ < 5)
        printf("  r %d c %d: smem %04x want %04x\n", r, c, t[phys], want);
    }
  printf("  %d mismatches against 128-byte swizzled rows\n", bad);
  if (mode == 3 && bad) {  // dense 112-byte rows, swizzled by address?
    int bad2 = 0;
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < 56; ++c) {
        const int linear = r * 56 + c;  // element index
        const int byte = linear * 2;
        const int row128 = byte / 128, chunk = (byte % 128) / 16;
        const int phys = (row128 * 128 + ((chunk ^ (row128 % 8)) * 16) + byte % 16) / 2;
        const std::uint16_t want = static_cast<std::uint16_t>((1 << 13) | (r << 7) | c);
        if (t[phys] != want) ++bad2;
      }
    printf("  %d mismatches against dense 112-byte rows swizzled by address\n", bad2);
  }
  return 0;
}
