// The sm80 backward's third table: tiles for devices whose blocks may take 99 KB of shared
// memory (sm_86 / sm_89: RTX 30xx / 40xx, A10, L4, L40), where every tile of
// BackwardConfig (148-166 KB) and of the Hopper tables is refused. Host-compilable (no CUDA
// includes): the selector reads smallest_backward_shared_bytes.
#pragma once

#include "api/device_query.hpp"
#include "cuda/sm80/backward_tile_config.hpp"

namespace fattn::detail::sm80 {

// Shapes (twenty-ninth session, s29-bwdsmall; bench/results/sm80-bwd-small-smem-2026-11-25-s29/
// NOTES.md). The kernel's Pᵀ / dSᵀ rows are kBlockM queries wide in the 128-byte swizzle
// (swizzled_offset, fragment_address), so kBlockM stays 64; what gives is keys per CTA and
// Q / dO stages. Modelled on FA2's backward below 144 KB per block (hdim64: 64 x 128, 8 warps;
// hdim128: 64 x 64, 8 warps; hdim192 and, on sm86, hdim256: 64 x 64 / 64 x 32 with V in
// registers and no double buffer, which this kernel, with V in shared memory, cannot hold in
// 99 KB: 64 x 64 / 64 x 32 with one stage take 115,200 / 107,008 bytes at 192 / 256).
// 64: 64 x 128, two Q / dO stages, 8 warps, phase A and B as 4 key x 2 query / head-dim
// warps (32 x 32 warp tiles, as the 128 table's), 16 x 32 dQ warp tiles: 99,328 bytes.
// 128: 64 x 64, one stage (two take 115,712 bytes), 8 warps: phase A 16 keys x 32 queries per
// warp, phase B 16 keys x 64 dims, 32 x 32 dQ warp tiles (the 128 table's): 82,432 bytes.
// 192: 64 x 32, one stage, 8 warps: phase A 2 key x 4 query warps (16 x 16), phase B 2 key x 4
// head-dim warps (16 x 48), 32 x 48 dQ warp tiles (the 192 table's): 82,432 bytes.
// 256: no small table. Eight warps need 16 x 16 phase-A warp tiles at least (64 x 32: 107,008
// bytes with one stage); four warps over 64 x 16 (86,528 bytes) hold a 128-float dQ tile per
// thread beside 64 of dK + dV, and the general kernel spilled on sm_80 with every dQ warp
// layout (bf16, NoMask / WindowMask: 64 x 64 24 / 48 bytes, 32 x 128 8 / 48, 16 x 256 8 / 28;
// sm_90a 0-12), sm_80's SASS being what the 99 KB cards run. The bucket keeps the base table's
// bytes as its least (smallest_backward_shared_bytes), so the selector leaves those problems to
// another backend.
// Kernels: the general one only (kFullWidthKernel = false): two per table and element type
// (NoMask, WindowMask, which causal shares) instead of four, for build time (CI compiles every
// kernel on 2 cores), and no lean-loop options, which apply to the full-width kernel only. No shifted windows
// either (launch_backward: rows off 16-byte words take load_tile's 4- / 8-byte cp.async or
// 16-bit loads, as GQA does everywhere), nor FusedDqConversion (full-width kernels only). The
// deterministic mode is the general kernel's run-time flag (params.semaphores).
template <int kHeadDimBucket>
struct SmallSharedMemoryBackwardConfig;
template <>
struct SmallSharedMemoryBackwardConfig<64> : BackwardTile<64, 64, 128, 8, 2, 2, 2, 1, false> {};
template <>
struct SmallSharedMemoryBackwardConfig<128>
    : BackwardTile<128, 64, 64, 8, 2, 2, 1, 1, false, 2> {};
template <>
struct SmallSharedMemoryBackwardConfig<192>
    : BackwardTile<192, 64, 32, 8, 4, 4, 1, 1, false, 2> {};

// The bucket's small table, or void where it has none (256, above).
template <int kHeadDimBucket>
struct SmallSharedMemoryBackward {
  using type = SmallSharedMemoryBackwardConfig<kHeadDimBucket>;
};
template <>
struct SmallSharedMemoryBackward<256> {
  using type = void;
};

static_assert(SmallSharedMemoryBackwardConfig<64>::kSharedBytes <=
              kConsumerAmpereSharedBytesPerBlock);
static_assert(SmallSharedMemoryBackwardConfig<128>::kSharedBytes <=
              kConsumerAmpereSharedBytesPerBlock);
static_assert(SmallSharedMemoryBackwardConfig<192>::kSharedBytes <=
              kConsumerAmpereSharedBytesPerBlock);

// The least shared memory per block that the sm80 backward of bucket `head_dim_bucket` runs in
// (its small table's; at 256 the base table's), or 0 for a bucket it has no table for: the
// selector refuses cuda_sm80's backward on devices below it.
constexpr int smallest_backward_shared_bytes(int head_dim_bucket) {
  switch (head_dim_bucket) {
    case 64:
      return SmallSharedMemoryBackwardConfig<64>::kSharedBytes;
    case 128:
      return SmallSharedMemoryBackwardConfig<128>::kSharedBytes;
    case 192:
      return SmallSharedMemoryBackwardConfig<192>::kSharedBytes;
    case 256:
      return BackwardConfig<256>::kSharedBytes;
    default:
      return 0;
  }
}

}  // namespace fattn::detail::sm80
