// FusedDqConversion (backward_tile_config.hpp): the main kernel converts dQ itself, so that the
// postprocess (backward_row_passes.cuh) does not run. Each (batch, head_q, query tile) has a
// ticket, zeroed before the main kernel (start_backward). After its walk and its dK / dV
// epilogue a CTA takes one ticket for each item it walked (one thread per item, in parallel);
// the CTA that takes a query tile's last ticket (the tile's contributors, dq_tile_contributors)
// reads that tile's accumulator rows back and stores dQ = scale · accumulator in the storage
// type: the postprocess's float operations on the same accumulator, so the same bits.
//
// Memory order. Every warp's dQ reductions of every item are issued before the CTA barrier that
// opens take_dq_tickets; the ticketing thread's atom.acq_rel.gpu releases them (cumulative
// through the barrier: the deterministic chain's LightDqRelease hands over the same way, one
// thread's st.release after a barrier). The RMWs on one ticket form a release sequence, so the
// thread whose RMW returns contributors - 1 has acquired every contributor's reductions; the CTA
// barrier after it orders them before every thread's loads of the tile, which go to L2
// (ld.global.cg) because L1 is not coherent across SMs.
//
// Why after the walk and not per item: one fence and one L2 round trip per CTA instead of one per
// item on warp 0's path (the per-item form would put them between barriers the other warps wait
// at). The price: the last CTA of a query tile converts it at its own end, up to all the tiles
// of its head group, so the launcher takes this only for few query tiles per CTA
// (kFusedDqMaxTiles).
#pragma once

#include <cstdint>

#include "common/mask.hpp"
#include "cuda/sm80/backward_row_passes.cuh"
#include "cuda/sm80/tile_config.hpp"

namespace fattn::detail::sm80 {

// start_backward's workspace: the fp32 dQ accumulator, LSE·log2e and D_i per row (each region
// rounded up to kWorkspaceAlignment bytes), then the deterministic semaphores or the tickets.
inline constexpr std::int64_t kWorkspaceAlignment = 256;
__host__ __device__ constexpr std::int64_t workspace_aligned_bytes(std::int64_t bytes) {
  return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
}
__host__ __device__ constexpr std::int64_t row_statistics_bytes(std::int64_t batch,
                                                                std::int64_t heads_q,
                                                                std::int64_t rows_rounded) {
  return workspace_aligned_bytes(static_cast<std::int64_t>(sizeof(float)) * batch * heads_q *
                                 rows_rounded);
}
// The tickets of a fused launch (params.dq_fused): right after the D_i rows. The main kernel's
// grid has the batch in z.
__device__ __forceinline__ int* dq_tickets_of(const BackwardParams& params) {
  return reinterpret_cast<int*>(
      reinterpret_cast<unsigned char*>(params.delta) +
      row_statistics_bytes(gridDim.z, params.heads_q, params.rows_rounded));
}

// The key tiles whose CTAs walk query rows [row0, row_end): [key_begin / kBlockN,
// ceil(key_end / kBlockN)), as dq_turn_for counts the deterministic chain (every key tile of
// that range visits the query tile: backward_kernel.cuh's `touches`). The fused launches are
// unmasked (every key tile visits every query tile), the form stays the mask's.
template <int kBlockN, class Mask>
__host__ __device__ __forceinline__ int dq_tile_contributors(const Mask& mask, int row0,
                                                             int row_end) {
  return (mask.key_end(row_end) + kBlockN - 1) / kBlockN - mask.key_begin(row0) / kBlockN;
}

__device__ __forceinline__ int fetch_add_acq_rel_gpu(int* address, int value) {
  int old;
  asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], %2;\n"
               : "=r"(old)
               : "l"(address), "r"(value)
               : "memory");
  return old;
}

// Chunks whose loads a thread issues before their stores (32 registers of loaded floats): one L2
// round trip per tile at 64 and 128 (4 chunks a thread), two at 256.
inline constexpr int kMaxLoadsAhead = 4;

// dQ of query rows [row0, row0 + rows) of `head` from the accumulator: each thread 16-byte
// chunks (two float4 loads past L1, one 16-byte store), the loads of kLoadsAhead chunks issued
// before their stores. 16-byte-aligned dQ rows and head_dim % 8 == 0 (the launcher's tests: whole
// chunks only), accumulator rows of dq_accum_stride >= kWidth floats.
template <class Element, int kBlockM, int kWidth, int kThreads>
__device__ __forceinline__ void convert_dq_tile(const BackwardParams& params, int batch, int head,
                                                int row0, int rows) {
  constexpr int kRowChunks = kWidth / kRowChunkElements;
  constexpr int kPasses = kBlockM * kRowChunks / kThreads;
  static_assert(kBlockM * kRowChunks % kThreads == 0, "whole passes of the CTA over a tile");
  constexpr int kLoadsAhead = kPasses < kMaxLoadsAhead ? kPasses : kMaxLoadsAhead;
  static_assert(kPasses % kLoadsAhead == 0, "whole groups of loads");
  const std::int64_t head_index = static_cast<std::int64_t>(batch) * params.heads_q + head;
  const float* accumulator =
      params.dq_accum + (head_index * params.seqlen_q + row0) * params.dq_accum_stride;
  auto* dq = static_cast<Element*>(params.dq) + batch * params.dq_strides.batch +
             row0 * params.dq_strides.row + head * params.dq_strides.head;
#pragma unroll
  for (int group = 0; group < kPasses; group += kLoadsAhead) {
    float values[kLoadsAhead][kRowChunkElements];
#pragma unroll
    for (int p = 0; p < kLoadsAhead; ++p) {
      const int chunk = (group + p) * kThreads + static_cast<int>(threadIdx.x);
      const int row = chunk / kRowChunks;
      const int column = (chunk % kRowChunks) * kRowChunkElements;
      if (row < rows && column < params.head_dim) {
        load_accumulator_chunk<true>(accumulator + row * params.dq_accum_stride + column,
                                     values[p]);
      }
    }
#pragma unroll
    for (int p = 0; p < kLoadsAhead; ++p) {
      const int chunk = (group + p) * kThreads + static_cast<int>(threadIdx.x);
      const int row = chunk / kRowChunks;
      const int column = (chunk % kRowChunks) * kRowChunkElements;
      if (row < rows && column < params.head_dim) {
        store_scaled_chunk(dq + row * params.dq_strides.row + column, values[p], params.scale);
      }
    }
  }
}

// The CTA's tickets for its `items` items (item -> (head, query tile) by `tile_of`, an int2),
// and the conversion of the tiles whose last ticket it took. Every thread of the CTA calls it,
// after its last dQ reduction; `flags` is kThreads / 32 words of shared memory that nothing else
// uses from the first barrier here on.
template <class Element, int kBlockM, int kBlockN, int kWidth, int kThreads, class Mask,
          class TileOf>
__device__ __forceinline__ void take_dq_tickets(const BackwardParams& params, const Mask& mask,
                                                int batch, int items, const TileOf& tile_of,
                                                unsigned* flags) {
  constexpr int kWarps = kThreads / kWarpSize;
  const int m_blocks = (params.seqlen_q + kBlockM - 1) / kBlockM;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  int* const tickets = dq_tickets_of(params);
  for (int base = 0; base < items; base += kThreads) {
    // Every warp's reductions issued (and, from the second round on, the flags read).
    __syncthreads();
    const int item = base + static_cast<int>(threadIdx.x);
    bool last = false;
    if (item < items) {
      const int2 tile = tile_of(item);
      const int row0 = tile.y * kBlockM;
      const int row_end = min(row0 + kBlockM, params.seqlen_q);
      int* const ticket =
          tickets +
          (static_cast<std::int64_t>(batch) * params.heads_q + tile.x) * m_blocks + tile.y;
      last = fetch_add_acq_rel_gpu(ticket, 1) ==
             dq_tile_contributors<kBlockN>(mask, row0, row_end) - 1;
    }
    const unsigned lasts = __ballot_sync(0xffffffffu, last);
    if (lane == 0) flags[warp] = lasts;
    __syncthreads();
#pragma unroll 1
    for (int w = 0; w < kWarps; ++w) {
      unsigned pending = flags[w];
      while (pending != 0) {
        const int bit = __ffs(pending) - 1;
        pending &= pending - 1;
        const int2 tile = tile_of(base + w * kWarpSize + bit);
        const int row0 = tile.y * kBlockM;
        convert_dq_tile<Element, kBlockM, kWidth, kThreads>(
            params, batch, tile.x, row0, min(kBlockM, params.seqlen_q - row0));
      }
    }
  }
}

}  // namespace fattn::detail::sm80
