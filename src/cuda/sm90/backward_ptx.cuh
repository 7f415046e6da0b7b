// PTX wrappers that only the Hopper backward needs, beside the shared ones of ptx_sm90.cuh:
// a 1-D bulk copy (the per-row LSE and D_i vectors have no tensor map), the TMA reduction and a
// fp32 pair reduction into global memory (the dQ accumulator), the wgmma form with both
// operands "MN-major" in shared memory (dQ = dS·K reads dSᵀ and K as they lie), and two forms the
// D = 256 kernel adds (m64n32 SS, and SS with only B MN-major).
//
// The first four verified on an H100 (docs/design/sm90-backward.md, "Open questions", answered).
#pragma once

#include <cstdint>

#include "cuda/common/ptx_sm90.cuh"

namespace fattn::detail::sm90 {

// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from global to shared
// memory; completion is counted on `barrier` as transaction bytes, like a TMA tile.
FATTN_DEVICE void bulk_load(void* smem_dst, const void* global_src, std::uint32_t bytes,
                            std::uint64_t* barrier) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
          smem_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(global_src)), "r"(bytes), "r"(smem_address(barrier))
      : "memory");
}

// Adds a box of shared memory into global memory through `map` (TMA's reduction; element type,
// box and swizzle come from the map; elements outside the tensor are skipped). Tracked by the
// issuing thread's bulk group (ptx_sm90.cuh: bulk_commit_group, then bulk_wait_group_read before
// the shared memory is written again and bulk_wait_group before the CTA exits).
FATTN_DEVICE void tma_reduce_add_4d(const CUtensorMap* map, const void* smem_src, int c0, int c1,
                                    int c2, int c3) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group"
      " [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)),
      "r"(smem_address(smem_src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

// Adds `bytes` of fp32 values from shared memory into global memory elementwise (a 1-D bulk
// reduction; both addresses 16-byte aligned, `bytes` a multiple of 16). Tracked by the issuing
// thread's bulk group, as tma_reduce_add_4d.
FATTN_DEVICE void bulk_reduce_add_f32(float* global_dst, const void* smem_src,
                                      std::uint32_t bytes) {
  asm volatile(
      "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n" ::"l"(
          reinterpret_cast<std::uint64_t>(global_dst)),
      "r"(smem_address(smem_src)), "r"(bytes)
      : "memory");
}

// D[64 x 64] (+)= A[64 x 16] · B[16 x 64] with A and B both MN-major ("transposed") in shared
// memory: imm-trans-a = imm-trans-b = 1. Operand numbering follows the generated m64n64k16
// macros (32 accumulators, then desc_a %32, desc_b %33, accumulate %34). Only N = 64 exists: it
// is the one width the backward's dQ product uses (backward_kernel.cuh, "dQ split").
template <class Element>
FATTN_DEVICE void wgmma_ss_transposed_n64(float (&d)[32], std::uint64_t desc_a,
                                          std::uint64_t desc_b, int accumulate) {
#define FATTN_WGMMA_SS_TT_64(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                 \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_64 \
               ", %32, %33, p, 1, 1, 1, 1;\n}\n"                                             \
               : FATTN_WGMMA_ACC_64                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
  if constexpr (kIsBf16<Element>) {
    FATTN_WGMMA_SS_TT_64("bf16");
  } else {
    FATTN_WGMMA_SS_TT_64("f16");
  }
#undef FATTN_WGMMA_SS_TT_64
}

// D[64 x 32] (+)= A[64 x 16] · B[16 x 32], A and B K-major in shared memory: the D = 256
// kernel's Sᵀ and dPᵀ of one half of the step's 64 queries (backward_kernel_wide.cuh). The
// generated macros start at N = 64, so this width is spelled out here.
template <class Element>
FATTN_DEVICE void wgmma_ss_n32(float (&d)[16], std::uint64_t desc_a, std::uint64_t desc_b,
                               int accumulate) {
#define FATTN_WGMMA_SS_32(TYPE)                                                             \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"                                 \
               "wgmma.mma_async.sync.aligned.m64n32k16.f32." TYPE "." TYPE                  \
               " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15},"   \
               " %16, %17, p, 1, 1, 0, 0;\n}\n"                                             \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),    \
                 "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),  \
                 "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
  if constexpr (kIsBf16<Element>) {
    FATTN_WGMMA_SS_32("bf16");
  } else {
    FATTN_WGMMA_SS_32("f16");
  }
#undef FATTN_WGMMA_SS_32
}

// D[64 x 128] (+)= A[64 x 16] · B[16 x 128] in shared memory, B MN-major ("transposed",
// imm-trans-b = 1), A MN-major where kTransposeA (imm-trans-a = 1) and K-major otherwise. Operand
// numbering follows the generated m64n128k16 macros (64 accumulators, desc_a %64, desc_b %65,
// accumulate %66). Users: the dQ product of DqSplit::alternate (kTransposeA: dSᵀ as stored; one
// warpgroup, all 128 head-dim columns, B spanning two 64-column blocks of K the descriptor's
// leading byte offset apart), and the D = 256 kernel's dV += Pᵀ·dO and dK += dSᵀ·Q over one
// head-dim half, with Pᵀ and dSᵀ read from the tiles the two consumers exchange.
template <class Element, bool kTransposeA>
FATTN_DEVICE void wgmma_ss_n128(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                int accumulate) {
#define FATTN_WGMMA_SS_N128(TYPE, TRANS_A)                                                  \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                 \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " "             \
               FATTN_WGMMA_REGS_128 ", %64, %65, p, 1, 1, " TRANS_A ", 1;\n}\n"             \
               : FATTN_WGMMA_ACC_128                                                        \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
  if constexpr (kIsBf16<Element> && kTransposeA) {
    FATTN_WGMMA_SS_N128("bf16", "1");
  } else if constexpr (kIsBf16<Element>) {
    FATTN_WGMMA_SS_N128("bf16", "0");
  } else if constexpr (kTransposeA) {
    FATTN_WGMMA_SS_N128("f16", "1");
  } else {
    FATTN_WGMMA_SS_N128("f16", "0");
  }
#undef FATTN_WGMMA_SS_N128
}

}  // namespace fattn::detail::sm90
