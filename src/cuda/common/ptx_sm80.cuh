// Thin wrappers over the sm_80 PTX the FlashAttention-2-class kernels are built from:
// mma.sync m16n8k16 (fp16/bf16 in, fp32 accumulate), ldmatrix (.x4 and .x4.trans), cp.async with
// commit/wait groups, the ex2 special function, the XOR swizzle of shared-memory tiles, and the
// vector reductions (red.global.add.v2/.v4) that accumulate dQ.
// Every wrapper is one instruction (or a fixed short sequence) so that the kernels read like the
// math and the SASS audit can find HMMA, LDSM and LDGSTS where the source says they are.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace fattn::detail::sm80 {

// ---- element traits ------------------------------------------------------------------------
// The two 16-bit storage types differ only in the mma type suffix and in float conversion.
template <class Element>
struct ElementTraits;

template <>
struct ElementTraits<__half> {
  __device__ __forceinline__ static std::uint32_t pack(float lo, float hi) {
    __half2 pair = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<std::uint32_t*>(&pair);
  }
  __device__ __forceinline__ static float to_float(__half value) { return __half2float(value); }
  __device__ __forceinline__ static __half from_float(float value) { return __float2half_rn(value); }
  // D = A·B + C for one m16n8k16 tile: A 4 registers, B 2, C/D 4 floats.
  __device__ __forceinline__ static void mma(float (&d)[4], const std::uint32_t (&a)[4],
                                             std::uint32_t b0, std::uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
  // D = A·B (C = 0): the first k-step of a product, so the accumulator needs no zeroing moves
  // (the zero C operands become RZ in the HMMA).
  __device__ __forceinline__ static void mma_from_zero(float (&d)[4], const std::uint32_t (&a)[4],
                                                       std::uint32_t b0, std::uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f), "f"(0.0f),
          "f"(0.0f), "f"(0.0f));
  }
  // D = A·B + C for one m16n8k8 tile (A 2 registers, B 1): a head dim's last 8 columns alone.
  __device__ __forceinline__ static void mma_k8(float (&d)[4], const std::uint32_t (&a)[2],
                                                std::uint32_t b) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b));
  }
};

template <>
struct ElementTraits<__nv_bfloat16> {
  __device__ __forceinline__ static std::uint32_t pack(float lo, float hi) {
    __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<std::uint32_t*>(&pair);
  }
  __device__ __forceinline__ static float to_float(__nv_bfloat16 value) {
    return __bfloat162float(value);
  }
  __device__ __forceinline__ static __nv_bfloat16 from_float(float value) {
    return __float2bfloat16_rn(value);
  }
  __device__ __forceinline__ static void mma(float (&d)[4], const std::uint32_t (&a)[4],
                                             std::uint32_t b0, std::uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
  // D = A·B (C = 0): the first k-step of a product, so the accumulator needs no zeroing moves
  // (the zero C operands become RZ in the HMMA).
  __device__ __forceinline__ static void mma_from_zero(float (&d)[4], const std::uint32_t (&a)[4],
                                                       std::uint32_t b0, std::uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f), "f"(0.0f),
          "f"(0.0f), "f"(0.0f));
  }
  // D = A·B + C for one m16n8k8 tile (A 2 registers, B 1): a head dim's last 8 columns alone.
  __device__ __forceinline__ static void mma_k8(float (&d)[4], const std::uint32_t (&a)[2],
                                                std::uint32_t b) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b));
  }
};

// One 16-column B block (an ldmatrix_x4: b[0..1] and b[2..3] are its two 8-column halves)
// against each of kTiles A fragments: acc[t][2·pair] and acc[t][2·pair + 1] += a[t] · B.
template <class Element, int kTiles, int kColumnTiles>
__device__ __forceinline__ void mma_column_pair(float (&acc)[kTiles][kColumnTiles][4],
                                                const std::uint32_t (&a)[kTiles][4],
                                                const std::uint32_t (&b)[4], int pair) {
#pragma unroll
  for (int t = 0; t < kTiles; ++t) {
    ElementTraits<Element>::mma(acc[t][2 * pair], a[t], b[0], b[1]);
    ElementTraits<Element>::mma(acc[t][2 * pair + 1], a[t], b[2], b[3]);
  }
}

// mma_column_pair's first k-step: acc[t][2·pair] and acc[t][2·pair + 1] = a[t] · B (C = 0).
template <class Element, int kTiles, int kColumnTiles>
__device__ __forceinline__ void mma_column_pair_from_zero(float (&acc)[kTiles][kColumnTiles][4],
                                                          const std::uint32_t (&a)[kTiles][4],
                                                          const std::uint32_t (&b)[4], int pair) {
#pragma unroll
  for (int t = 0; t < kTiles; ++t) {
    ElementTraits<Element>::mma_from_zero(acc[t][2 * pair], a[t], b[0], b[1]);
    ElementTraits<Element>::mma_from_zero(acc[t][2 * pair + 1], a[t], b[2], b[3]);
  }
}

// Clears a grid of mma accumulator fragments (rows x columns of m16n8 tiles, 4 floats each).
template <int kRows, int kColumns>
__device__ __forceinline__ void zero_fill(float (&tiles)[kRows][kColumns][4]) {
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int c = 0; c < kColumns; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) tiles[r][c][e] = 0.0f;
}

// ---- shared memory addressing --------------------------------------------------------------
__device__ __forceinline__ std::uint32_t smem_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// 16-bit elements per 16-byte chunk: the unit of cp.async, ldmatrix rows and the swizzle.
inline constexpr int kChunkElements = 8;
// The swizzle permutes chunks within each group of 8 (128 bytes = all 32 banks).
inline constexpr int kSwizzleChunks = 8;

// Element offset of (row, chunk) in a row-major tile of `kWidth` 16-bit elements per row whose
// chunks are XOR-swizzled with the row index. ldmatrix reads the same logical chunk from 8
// consecutive rows; the XOR sends them to 8 different 16-byte bank groups, so neither the
// ldmatrix reads nor the cp.async writes conflict. kWidth must be a multiple of 64 elements.
template <int kWidth>
__device__ __forceinline__ int swizzled_offset(int row, int chunk) {
  static_assert(kWidth % (kChunkElements * kSwizzleChunks) == 0,
                "swizzled tiles need rows of whole 128-byte groups");
  return row * kWidth + ((chunk ^ (row % kSwizzleChunks)) * kChunkElements);
}

// ---- ldmatrix ------------------------------------------------------------------------------
// Four 8x8 matrices; lane i supplies the row address for matrix i/8, row i%8.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// The same, each 8x8 matrix transposed on the way (B operands stored k-major, e.g. V in P·V).
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// Two 8x8 matrices (lanes 0-15 supply the row addresses), plain and transposed: the operands of
// an m16n8k8 step (the sm80 forward's HalfLastStep tiles).
__device__ __forceinline__ void ldmatrix_x2(std::uint32_t (&r)[2], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(address));
}
__device__ __forceinline__ void ldmatrix_x2_trans(std::uint32_t (&r)[2], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(address));
}

// ---- cp.async ------------------------------------------------------------------------------
// 16 bytes global -> shared, bypassing L1 (.cg); only `source_bytes` (0..16) are read, the rest
// of the 16 destination bytes are zero-filled. That zero fill pads partial rows (head dims that
// are not a multiple of 8) and rows past the sequence end without any extra store.
__device__ __forceinline__ void cp_async_16(std::uint32_t smem, const void* global,
                                            int source_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem), "l"(global),
               "r"(source_bytes));
}

// cp_async_16_whole_or_zero (below) issued only where `issue` holds, as a predicated
// instruction (no branch: a copy placed between other work leaves that work one basic block for
// ptxas to schedule).
__device__ __forceinline__ void cp_async_16_whole_or_zero_if(bool issue, std::uint32_t smem,
                                                             const void* global, bool zero) {
  asm volatile(
      "{\n.reg .pred issue, ignore;\nsetp.ne.b32 issue, %3, 0;\nsetp.ne.b32 ignore, %2, 0;\n"
      "@issue cp.async.cg.shared.global [%0], [%1], 16, ignore;\n}\n" ::"r"(smem),
      "l"(global), "r"(static_cast<int>(zero)), "r"(static_cast<int>(issue)));
}

// As cp_async_16 for a chunk that is either whole (16 bytes read) or all zeros (`zero`: nothing
// read): the predicate form (ignore-src) leaves the address as given, where the src-size form
// makes ptxas add the zero-fill count to the 64-bit address of every copy (LDGSTS.ZFILL takes
// it in the address's low bits: two more instructions per copy).
__device__ __forceinline__ void cp_async_16_whole_or_zero(std::uint32_t smem, const void* global,
                                                          bool zero) {
  asm volatile(
      "{\n.reg .pred ignore;\nsetp.ne.b32 ignore, %2, 0;\n"
      "cp.async.cg.shared.global [%0], [%1], 16, ignore;\n}\n" ::"r"(smem),
      "l"(global), "r"(static_cast<int>(zero)));
}

// 8- and 4-byte variants for rows that are only 8- or 4-byte aligned (.ca: the only cache
// mode those sizes allow).
__device__ __forceinline__ void cp_async_8(std::uint32_t smem, const void* global,
                                           int source_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem), "l"(global),
               "r"(source_bytes));
}

__device__ __forceinline__ void cp_async_4(std::uint32_t smem, const void* global,
                                           int source_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem), "l"(global),
               "r"(source_bytes));
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}

// Wait until at most `kPending` of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// ---- special functions ---------------------------------------------------------------------
// 2^x on the SFU (MUFU.EX2). ex2(-inf) = +0, which is what masked scores need.
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// ---- global reductions ----------------------------------------------------------------------
// The dQ accumulation of the backward kernels (sm80 and sm90 families).
// accumulator[0..1] += (lo, hi). sm_90 has a two-float vector reduction (PTX ISA 8.1): one
// L2 request per pair instead of two, and the dQ atomics are what the L2 of this kernel spends
// most of its time on. `accumulator` must be 8-byte aligned.
__device__ __forceinline__ void reduce_add_pair(float* accumulator, float lo, float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(accumulator), "f"(lo), "f"(hi)
               : "memory");
#else
  atomicAdd(accumulator, lo);
  atomicAdd(accumulator + 1, hi);
#endif
}

// accumulator[0..3] += v. sm_90 has a four-float vector reduction (PTX ISA 8.1); elsewhere four
// scalar atomics. `accumulator` must be 16-byte aligned.
__device__ __forceinline__ void reduce_add_quad(float* accumulator, float4 v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(accumulator), "f"(v.x),
               "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
#else
  atomicAdd(accumulator, v.x);
  atomicAdd(accumulator + 1, v.y);
  atomicAdd(accumulator + 2, v.z);
  atomicAdd(accumulator + 3, v.w);
#endif
}

}  // namespace fattn::detail::sm80
