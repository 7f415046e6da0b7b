// PTX wrappers for the Hopper (sm_90a) kernels: mbarriers, TMA bulk tensor copies, wgmma,
// setmaxnreg, named barriers and proxy fences. Thin on purpose: each function is one or two
// PTX instructions, named after what it does, so the kernels read like the algorithm.
//
// Compile only for sm_90a (-gencode=arch=compute_90a,code=sm_90a): wgmma and setmaxnreg do not
// exist in plain sm_90 PTX.
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: nothing here links against the driver)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#define FATTN_DEVICE __device__ __forceinline__

namespace fattn::detail::sm90 {

FATTN_DEVICE std::uint32_t smem_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// ---- mbarrier: completion of TMA transactions and producer/consumer hand-offs -------------

FATTN_DEVICE void mbarrier_init(std::uint64_t* barrier, std::uint32_t arrival_count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(barrier)),
               "r"(arrival_count));
}

// Makes initialized barriers visible to the async proxy (TMA) and to the other threads.
FATTN_DEVICE void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// One arrival that also announces `bytes` of TMA transactions the phase must wait for.
FATTN_DEVICE void mbarrier_arrive_expect_tx(std::uint64_t* barrier, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                   smem_address(barrier)),
               "r"(bytes)
               : "memory");
}

FATTN_DEVICE void mbarrier_arrive(std::uint64_t* barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(barrier))
               : "memory");
}

// Blocks until the barrier's phase with parity `phase` has completed.
FATTN_DEVICE void mbarrier_wait(std::uint64_t* barrier, std::uint32_t phase) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_loop:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_loop;\n"
      "}\n" ::"r"(smem_address(barrier)),
      "r"(phase)
      : "memory");
}

// ---- TMA (cp.async.bulk.tensor) -----------------------------------------------------------

FATTN_DEVICE void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map))
               : "memory");
}

// Loads the box at coordinates (c0 innermost .. c3) of a 4-D tensor map into shared memory;
// completion is signalled on `barrier` as transaction bytes. Out-of-bounds elements are zeros.
FATTN_DEVICE void tma_load_4d(const CUtensorMap* map, std::uint64_t* barrier, void* smem_dst,
                              int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(smem_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_address(barrier)), "r"(c0), "r"(c1),
      "r"(c2), "r"(c3)
      : "memory");
}

// Stores a box of shared memory at coordinates (c0 innermost .. c3) of a 4-D tensor map (layout
// and swizzle from the map; elements outside the tensor are skipped). Tracked by the issuing
// thread's bulk group: commit it, then wait for its reads before the shared memory is written
// again and for its completion before the CTA exits (bulk_commit_group, bulk_wait_group_read,
// bulk_wait_group below).
FATTN_DEVICE void tma_store_4d(const CUtensorMap* map, const void* smem_src, int c0, int c1,
                               int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
          reinterpret_cast<std::uint64_t>(map)),
      "r"(smem_address(smem_src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

// The issuing thread's bulk groups (TMA stores and reductions): close the current group; wait
// until at most kPending groups still read their shared memory (..._read) or are incomplete.
FATTN_DEVICE void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
// Waits until at most kPending of this thread's bulk groups still read their shared memory.
template <int kPending>
FATTN_DEVICE void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}
// Waits until at most kPending of this thread's bulk groups are still incomplete.
template <int kPending>
FATTN_DEVICE void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Makes this thread's shared-memory stores visible to the async proxy (wgmma operand reads,
// TMA stores).
FATTN_DEVICE void fence_view_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Four 8x8 matrices of 16-bit elements from registers to shared memory (one warp): register i
// holds row lane/4, columns 2·(lane%4) and +1 of matrix i (the mma accumulator layout); lane l
// gives the address of row l%8 of matrix l/8.
FATTN_DEVICE void stmatrix_x4(std::uint32_t smem_row_address, std::uint32_t r0, std::uint32_t r1,
                              std::uint32_t r2, std::uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(
                   smem_row_address),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// ---- arithmetic ---------------------------------------------------------------------------

// 2^x on the special-function unit, flushing subnormals: exp2f's subnormal range handling costs
// three extra instructions per call, and softmax probabilities that small are zeros anyway.
// fast_exp2(-inf) = 0.
FATTN_DEVICE float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// ---- warp-specialization helpers ----------------------------------------------------------

// Register reallocation between warpgroups (sm_90a). Takes effect only when the kernel has a
// register cap at entry (__launch_bounds__(threads, 1)); ptxas warns C7508 otherwise.
template <int kRegisters>
FATTN_DEVICE void release_registers() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
template <int kRegisters>
FATTN_DEVICE void claim_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}

// Named barriers (ids 1..15; 0 is __syncthreads) over `threads` threads.
FATTN_DEVICE void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
FATTN_DEVICE void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- wgmma --------------------------------------------------------------------------------

// Shared-memory matrix descriptor for a tile written by TMA with 128-byte swizzle: rows of
// 128 bytes (64 16-bit elements), 8-row swizzle atoms of 1024 bytes. `leading_bytes` is the
// distance between 64-element column blocks (used by MN-major operands only; K-major operands
// with 128-byte swizzle ignore it). Tile bases must be 1024-byte aligned so that the hardware's
// swizzle phase matches TMA's.
constexpr std::uint32_t kSwizzleRowBytes = 128;
constexpr std::uint32_t kSwizzleAtomBytes = 8 * kSwizzleRowBytes;
constexpr std::uint64_t kDescriptorSwizzle128B = 1;

FATTN_DEVICE std::uint64_t make_smem_descriptor(std::uint32_t smem_byte_address,
                                                std::uint32_t leading_bytes) {
  std::uint64_t desc = 0;
  desc |= static_cast<std::uint64_t>((smem_byte_address & 0x3FFFF) >> 4);
  desc |= static_cast<std::uint64_t>((leading_bytes & 0x3FFFF) >> 4) << 16;
  desc |= static_cast<std::uint64_t>(kSwizzleAtomBytes >> 4) << 32;
  desc |= kDescriptorSwizzle128B << 62;
  return desc;
}

// Orders register accesses to wgmma accumulators: the compiler must not move reads or writes
// of `value` across an asynchronous wgmma that uses it.
FATTN_DEVICE void fence_operand(float& value) { asm volatile("" : "+f"(value)::"memory"); }
FATTN_DEVICE void fence_operand(std::uint32_t& value) {
  asm volatile("" : "+r"(value)::"memory");
}
// fence_operand over a whole accumulator or fragment array (after a wgmma_wait, before use).
template <class Register, int kCount>
FATTN_DEVICE void fence_operands(Register (&values)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) fence_operand(values[i]);
}

FATTN_DEVICE void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
FATTN_DEVICE void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Waits until at most `kPending` committed wgmma groups are still running.
template <int kPending>
FATTN_DEVICE void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

// One wgmma macro pair per instruction width N (inline PTX needs one operand per accumulator
// register, N/2 of them): generated by tools/codegen/generate_wgmma_operands.py.
#include "cuda/common/wgmma_operands.generated.cuh"

template <class Element>
constexpr bool kIsBf16 = std::is_same_v<Element, __nv_bfloat16>;

// D[64 x N] (+)= A[64 x 16] · B[16 x N], A and B both K-major in shared memory.
template <int N, class Element>
FATTN_DEVICE void wgmma_ss(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                           int accumulate) {
#define FATTN_WGMMA_SS_CASE(n)                                   \
  if constexpr (N == n) {                                        \
    if constexpr (kIsBf16<Element>) FATTN_WGMMA_SS_##n("bf16"); \
    else FATTN_WGMMA_SS_##n("f16");                             \
  }
  FATTN_WGMMA_SS_CASE(64)
  FATTN_WGMMA_SS_CASE(80)
  FATTN_WGMMA_SS_CASE(96)
  FATTN_WGMMA_SS_CASE(112)
  FATTN_WGMMA_SS_CASE(128)
  FATTN_WGMMA_SS_CASE(144)
  FATTN_WGMMA_SS_CASE(160)
  FATTN_WGMMA_SS_CASE(176)
  FATTN_WGMMA_SS_CASE(192)
  FATTN_WGMMA_SS_CASE(208)
  FATTN_WGMMA_SS_CASE(224)
  FATTN_WGMMA_SS_CASE(240)
  FATTN_WGMMA_SS_CASE(256)
#undef FATTN_WGMMA_SS_CASE
  static_assert(N == 64 || (N % 16 == 0 && N >= 80 && N <= 256),
                "no wgmma wrapper for this N");
}

// D[64 x N] (+)= A[64 x 16] · B[16 x N], A from registers (the mma.sync m16n8k16 A-fragment
// layout, per warp), B MN-major ("transposed") in shared memory.
template <int N, class Element>
FATTN_DEVICE void wgmma_rs(float (&d)[N / 2], const std::uint32_t (&a)[4], std::uint64_t desc_b,
                           int accumulate) {
#define FATTN_WGMMA_RS_CASE(n)                                   \
  if constexpr (N == n) {                                        \
    if constexpr (kIsBf16<Element>) FATTN_WGMMA_RS_##n("bf16"); \
    else FATTN_WGMMA_RS_##n("f16");                             \
  }
  FATTN_WGMMA_RS_CASE(64)
  FATTN_WGMMA_RS_CASE(80)
  FATTN_WGMMA_RS_CASE(96)
  FATTN_WGMMA_RS_CASE(112)
  FATTN_WGMMA_RS_CASE(128)
  FATTN_WGMMA_RS_CASE(144)
  FATTN_WGMMA_RS_CASE(160)
  FATTN_WGMMA_RS_CASE(176)
  FATTN_WGMMA_RS_CASE(192)
  FATTN_WGMMA_RS_CASE(208)
  FATTN_WGMMA_RS_CASE(224)
  FATTN_WGMMA_RS_CASE(240)
  FATTN_WGMMA_RS_CASE(256)
#undef FATTN_WGMMA_RS_CASE
}

}  // namespace fattn::detail::sm90
