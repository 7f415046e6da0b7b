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

FATTN_DEVICE void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
FATTN_DEVICE void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Waits until at most `kPending` committed wgmma groups are still running.
template <int kPending>
FATTN_DEVICE void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

// The operand lists below are spelled out register by register because inline PTX needs one
// operand per accumulator register; they were written by a one-off script.
// m64n64k16: 32 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_64 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define FATTN_WGMMA_REGS_64 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" "}"
#define FATTN_WGMMA_SS_64(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_64 \
               ", %32, %33, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_64                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_64(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_64 \
               ", {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_64                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n80k16: 40 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_80 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
#define FATTN_WGMMA_REGS_80 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39" "}"
#define FATTN_WGMMA_SS_80(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %42, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n80k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_80 \
               ", %40, %41, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_80                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_80(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %45, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n80k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_80 \
               ", {%40, %41, %42, %43}, %44, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_80                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n96k16: 48 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_96 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
#define FATTN_WGMMA_REGS_96 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" "}"
#define FATTN_WGMMA_SS_96(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n96k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_96 \
               ", %48, %49, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_96                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_96(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %53, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n96k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_96 \
               ", {%48, %49, %50, %51}, %52, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_96                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n112k16: 56 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_112 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
#define FATTN_WGMMA_REGS_112 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55" "}"
#define FATTN_WGMMA_SS_112(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %58, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n112k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_112 \
               ", %56, %57, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_112                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_112(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %61, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n112k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_112 \
               ", {%56, %57, %58, %59}, %60, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_112                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n128k16: 64 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_128 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define FATTN_WGMMA_REGS_128 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" "}"
#define FATTN_WGMMA_SS_128(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_128 \
               ", %64, %65, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_128                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_128(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_128 \
               ", {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_128                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n144k16: 72 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_144 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
#define FATTN_WGMMA_REGS_144 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71" "}"
#define FATTN_WGMMA_SS_144(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %74, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n144k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_144 \
               ", %72, %73, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_144                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_144(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %77, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n144k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_144 \
               ", {%72, %73, %74, %75}, %76, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_144                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n160k16: 80 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_160 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
#define FATTN_WGMMA_REGS_160 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79" "}"
#define FATTN_WGMMA_SS_160(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %82, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n160k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_160 \
               ", %80, %81, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_160                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_160(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %85, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n160k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_160 \
               ", {%80, %81, %82, %83}, %84, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_160                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n176k16: 88 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_176 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
#define FATTN_WGMMA_REGS_176 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87" "}"
#define FATTN_WGMMA_SS_176(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %90, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n176k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_176 \
               ", %88, %89, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_176                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_176(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %93, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n176k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_176 \
               ", {%88, %89, %90, %91}, %92, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_176                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n192k16: 96 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_192 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#define FATTN_WGMMA_REGS_192 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" "}"
#define FATTN_WGMMA_SS_192(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n192k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_192 \
               ", %96, %97, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_192                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_192(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %101, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n192k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_192 \
               ", {%96, %97, %98, %99}, %100, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_192                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n208k16: 104 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_208 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103])
#define FATTN_WGMMA_REGS_208 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103" "}"
#define FATTN_WGMMA_SS_208(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %106, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n208k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_208 \
               ", %104, %105, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_208                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_208(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %109, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n208k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_208 \
               ", {%104, %105, %106, %107}, %108, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_208                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n224k16: 112 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_224 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111])
#define FATTN_WGMMA_REGS_224 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111" "}"
#define FATTN_WGMMA_SS_224(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %114, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n224k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_224 \
               ", %112, %113, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_224                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_224(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %117, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n224k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_224 \
               ", {%112, %113, %114, %115}, %116, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_224                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n240k16: 120 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_240 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119])
#define FATTN_WGMMA_REGS_240 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119" "}"
#define FATTN_WGMMA_SS_240(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %122, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n240k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_240 \
               ", %120, %121, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_240                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_240(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %125, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n240k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_240 \
               ", {%120, %121, %122, %123}, %124, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_240                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))

// m64n256k16: 128 fp32 accumulators per thread.
#define FATTN_WGMMA_ACC_256 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
#define FATTN_WGMMA_REGS_256 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" "}"
#define FATTN_WGMMA_SS_256(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_256 \
               ", %128, %129, p, 1, 1, 0, 0;\n}\n"                                              \
               : FATTN_WGMMA_ACC_256                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define FATTN_WGMMA_RS_256(TYPE)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"                                      \
               "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE " " FATTN_WGMMA_REGS_256 \
               ", {%128, %129, %130, %131}, %132, p, 1, 1, 1;\n}\n"                              \
               : FATTN_WGMMA_ACC_256                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate))


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
