// The sm80 backward main kernel's fragment addresses and its phase-B / dQ product steps (dV +=
// Pᵀ·dO, dK += dSᵀ·Q, dQ = dS·K one query step at a time, rolled or unrolled, and phase B with the
// dQ atomics or line rounds placed between its steps). Split out of backward_kernel.cuh, which
// holds the kernel that calls them; the options that pick among them are in
// backward_tile_config.hpp.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "common/mask.hpp"
#include "cuda/common/ptx_sm80.cuh"
#include "cuda/sm80/backward_dq_lines.cuh"
#include "cuda/sm80/forward_kernel.cuh"
#include "cuda/sm80/tile_io.cuh"

namespace fattn::detail::sm80 {

// DiagonalBandMaskPass (backward_tile_config.hpp): the lean loop's pass over a partial tile's
// scores, overwriting the masked ones with `masked_score`. Score (kt, nt, half, e) of this thread
// lies at key first_key + kt·16 + 8·half and query first_query + nt·8 + e, so its offset from the
// mask's band (DiagonalBand, common/mask.hpp) is one per-thread value plus a compile-time
// constant: per score an add of an immediate and an unsigned compare (ptxas shares the compares
// of equal constants), and the sequence end once per key row. The same answer as
// is_masked_unbranched with the sequence-end test (the unsigned sums wrap alike).
template <int kKeyTiles, int kQueryTiles, class Mask>
__device__ __forceinline__ void mask_scores_by_band(float (&s)[kKeyTiles][kQueryTiles][4],
                                                    const Mask& mask, int first_key,
                                                    int first_query, int seqlen_k,
                                                    float masked_score) {
  const DiagonalBand band = mask.diagonal_band();
  const unsigned first_from_lowest = static_cast<unsigned>(first_key - first_query) - band.lowest;
  const int keys_left = seqlen_k - first_key;
#pragma unroll
  for (int kt = 0; kt < kKeyTiles; ++kt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int key_offset = kt * kMmaM + 8 * half;
      const bool past_end = key_offset >= keys_left;
#pragma unroll
      for (int nt = 0; nt < kQueryTiles; ++nt)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int query_offset = nt * kMmaN + e;
          const bool masked =
              past_end | band.excludes_from_lowest(
                             first_from_lowest + static_cast<unsigned>(key_offset - query_offset));
          if (masked) {
            s[kt][nt][2 * half + e] = masked_score;
          }
        }
    }
}

// ldmatrix addresses of a fragment: the five-register FragmentAddress, or with kXor the
// one-register XorFragmentAddress. `chunk_base` counts chunks to the right of the tile's first.
// The XOR form adds step s to chunk_base / 2 without carry only if chunk_base / 2 is a multiple
// of a power of two above every s later passed to at(); the kernel takes it only where the tile
// shape guarantees that (a base of 0, or power-of-two step counts per warp).
template <bool kXor, int kTileWidth, class Element>
__device__ __forceinline__ auto fragment_address(const Element* tile, int row, int chunk_in_step,
                                                 int chunk_base = 0) {
  if constexpr (kXor) {
    return XorFragmentAddress<kTileWidth>(tile, row, chunk_base + chunk_in_step);
  } else {
    return FragmentAddress<kTileWidth>(tile, row, chunk_in_step, chunk_base);
  }
}

// The XOR fragment address of a k-step known only at run time (a rolled loop): the step's chunk
// phase (step % 4) is an XOR and its 128-byte group (step / 4) an add, as in
// XorFragmentAddress::at, whose step must be a compile-time constant. `rows` % 8 == 0.
template <int kTileWidth>
__device__ __forceinline__ std::uint32_t xor_address_at(
    const XorFragmentAddress<kTileWidth>& address, unsigned step, int rows) {
  constexpr unsigned kPhaseBytes = 2 * kChunkElements * kBytesPerElement;
  constexpr unsigned kGroupBytes = kSwizzleChunks * kChunkElements * kBytesPerElement;
  constexpr int kRowBytes = kTileWidth * kBytesPerElement;
  return (address.first ^ ((step % 4) * kPhaseBytes)) + (step / 4) * kGroupBytes +
         static_cast<std::uint32_t>(rows * kRowBytes);
}

// The two 16-bit values of a packed pair (low half first) as floats. bf16 -> fp32 is exact as
// the 16 bits moved to the top of the word, so bf16 pairs are widened by a shift and a mask of
// the 32-bit pair: through two 16-bit values, sm_90a SASS kept each half in a register of its
// own and re-packed them with two PRMT per pair (32 per query tile at D = 128, and 16 more live
// registers until dSᵀ; docs/perf-notes.md "Backward v5"). fp16's widening is a conversion.
template <class Element>
__device__ __forceinline__ void unpack_pair(std::uint32_t packed, float (&values)[2]) {
  if constexpr (std::is_same_v<Element, __nv_bfloat16>) {
    constexpr std::uint32_t kHighHalf = 0xffff0000u;
    values[0] = __uint_as_float(packed << 16);
    values[1] = __uint_as_float(packed & kHighHalf);
  } else {
    Element pair[2];
    __builtin_memcpy(pair, &packed, sizeof(packed));
    values[0] = ElementTraits<Element>::to_float(pair[0]);
    values[1] = ElementTraits<Element>::to_float(pair[1]);
  }
}

// A query step's Pᵀ and dSᵀ fragments (phase B's A operands) for the warp's key tiles, from the
// warp's Pᵀ rows at `p_address` (dSᵀ kDsFromP bytes after them).
template <int kBlockM, std::uint32_t kDsFromP, int kKeyTilesB>
__device__ __forceinline__ void load_step_fragments(std::uint32_t (&pa)[kKeyTilesB][4],
                                                    std::uint32_t (&dsa)[kKeyTilesB][4],
                                                    std::uint32_t p_address) {
#pragma unroll
  for (int kt = 0; kt < kKeyTilesB; ++kt) {
    constexpr std::uint32_t kTileRowBytes = kMmaM * kBlockM * kBytesPerElement;
    ldmatrix_x4(pa[kt], p_address + kt * kTileRowBytes);
    ldmatrix_x4(dsa[kt], p_address + kt * kTileRowBytes + kDsFromP);
  }
}

// One query step of phase B (dV += Pᵀ·dO, dK += dSᵀ·Q over the warp's key tiles and head-dim
// slice, every head-dim block untested): the step's Pᵀ/dSᵀ fragments, then per head-dim block
// pair the dO and Q fragments and their mma's. `p_as_a` addresses the warp's Pᵀ rows (dSᵀ at
// kDsFromP bytes after them), `q_as_b` its Q columns (dO at kDoFromQ).
template <class Element, int kBlockM, int kWidth, std::uint32_t kDsFromP, std::uint32_t kDoFromQ,
          int kKeyTilesB, int kDimTilesB, class PAddress, class QAddress>
__device__ __forceinline__ void phase_b_step(float (&dv_acc)[kKeyTilesB][kDimTilesB][4],
                                             float (&dk_acc)[kKeyTilesB][kDimTilesB][4],
                                             const PAddress& p_as_a, const QAddress& q_as_b,
                                             unsigned qstep) {
  std::uint32_t pa[kKeyTilesB][4];
  std::uint32_t dsa[kKeyTilesB][4];
  const std::uint32_t p_address = xor_address_at(p_as_a, qstep, 0);
  load_step_fragments<kBlockM, kDsFromP>(pa, dsa, p_address);
  const std::uint32_t query_rows = qstep * kMmaK * kWidth * kBytesPerElement;
#pragma unroll
  for (int dstep = 0; dstep < kDimTilesB / 2; ++dstep) {
    std::uint32_t b[4];
    ldmatrix_x4_trans(b, q_as_b.at(dstep, 0) + query_rows + kDoFromQ);
    mma_column_pair<Element>(dv_acc, pa, b, dstep);
    ldmatrix_x4_trans(b, q_as_b.at(dstep, 0) + query_rows);
    mma_column_pair<Element>(dk_acc, dsa, b, dstep);
  }
}

// Phase B of the RolledProductB kernels (see the kernel), one query step per iteration (a loop
// that is not unrolled). The DqProductBeforePhaseB kernels and the deterministic mode of the
// DqAtomicsInPhaseB kernels run it after the dQ product; the other RolledProductB kernels keep
// the loop written out in the kernel (see there).
template <class Element, int kBlockM, int kWidth, std::uint32_t kDsFromP, std::uint32_t kDoFromQ,
          int kKeyTilesB, int kDimTilesB, class PAddress, class QAddress>
__device__ __forceinline__ void rolled_phase_b(float (&dv_acc)[kKeyTilesB][kDimTilesB][4],
                                               float (&dk_acc)[kKeyTilesB][kDimTilesB][4],
                                               const PAddress& p_as_a, const QAddress& q_as_b) {
#pragma unroll 1
  for (unsigned qstep = 0; qstep < kBlockM / kMmaK; ++qstep) {
    phase_b_step<Element, kBlockM, kWidth, kDsFromP, kDoFromQ>(dv_acc, dk_acc, p_as_a, q_as_b,
                                                               qstep);
  }
}

// One query step of one of phase B's products: acc += A·B over the step's 16 query rows, A from
// `p_as_a` (+ kAOffset: the Pᵀ or dSᵀ rows), B from `q_as_b` (+ kBOffset: dO or Q).
template <class Element, int kBlockM, int kWidth, std::uint32_t kAOffset, std::uint32_t kBOffset,
          int kKeyTilesB, int kDimTilesB, class PAddress, class QAddress>
__device__ __forceinline__ void product_query_step(float (&acc)[kKeyTilesB][kDimTilesB][4],
                                                   const PAddress& p_as_a,
                                                   const QAddress& q_as_b, unsigned qstep) {
  std::uint32_t pa[kKeyTilesB][4];
  const std::uint32_t p_address = xor_address_at(p_as_a, qstep, 0);
#pragma unroll
  for (int kt = 0; kt < kKeyTilesB; ++kt) {
    constexpr std::uint32_t kTileRowBytes = kMmaM * kBlockM * kBytesPerElement;
    ldmatrix_x4(pa[kt], p_address + kt * kTileRowBytes + kAOffset);
  }
  const std::uint32_t query_rows = qstep * kMmaK * kWidth * kBytesPerElement;
#pragma unroll
  for (int dstep = 0; dstep < kDimTilesB / 2; ++dstep) {
    std::uint32_t b[4];
    ldmatrix_x4_trans(b, q_as_b.at(dstep, 0) + query_rows + kBOffset);
    mma_column_pair<Element>(acc, pa, b, dstep);
  }
}

// One of phase B's two products alone, rolled over its query steps as rolled_phase_b
// (DqRoundsInDkSteps: dV in phase B, dK after the dQ product): dV += Pᵀ·dO with `a_offset` = 0
// (the Pᵀ rows) and `b_offset` = kDoFromQ, dK += dSᵀ·Q with kDsFromP and 0.
template <class Element, int kBlockM, int kWidth, std::uint32_t kAOffset, std::uint32_t kBOffset,
          int kKeyTilesB, int kDimTilesB, class PAddress, class QAddress>
__device__ __forceinline__ void rolled_single_product(float (&acc)[kKeyTilesB][kDimTilesB][4],
                                                      const PAddress& p_as_a,
                                                      const QAddress& q_as_b) {
#pragma unroll 1
  for (unsigned qstep = 0; qstep < kBlockM / kMmaK; ++qstep) {
    product_query_step<Element, kBlockM, kWidth, kAOffset, kBOffset>(acc, p_as_a, q_as_b, qstep);
  }
}

// dK += dSᵀ·Q with the dQ partial's line-reduction rounds (DqLineRoundsFor) between its query
// steps (DqRoundsInDkSteps, the default mode, whole query tiles): kRoundsAhead rounds first, then
// round qstep + kRoundsAhead at the top of query step qstep, before the step's dSᵀ fragments, Q
// fragments and mma's, so that each REDG.128 round has independent mma's behind it instead of
// the next round's STS (v19: the rounds back to back held ~2,900 of a 13,600-clock step at 256
// with nothing to overlap them, and the loop top waited on them). Rounds ahead of the loop free
// their 16 rows of `dq` before dK's fragments are live: with one round ahead the sm_80 WindowMask
// kernel spilled 40 bytes, with none every 256 kernel spilled 56-88 bytes (255 registers). The
// steps are unrolled: a round's rows of `dq` are compile-time registers. The lane's offsets are
// rebuilt for each round (DqLineRounds' constructor) rather than held across the mma's.
template <class Element, int kBlockM, int kWidth, std::uint32_t kDsFromP, class Rounds,
          int kRoundsAhead, int kKeyTilesB, int kDimTilesB, int kRowTilesQ, int kDimTilesQ,
          class PAddress, class QAddress>
__device__ __forceinline__ void dk_product_with_dq_rounds(
    float (&dk_acc)[kKeyTilesB][kDimTilesB][4], const PAddress& p_as_a, const QAddress& q_as_b,
    const float (&dq)[kRowTilesQ][kDimTilesQ][4], float* stage, float* warp_first) {
  constexpr int kQuerySteps = kBlockM / kMmaK;
  static_assert(kRoundsAhead >= 1 && Rounds::kRounds <= kQuerySteps + kRoundsAhead,
                "every round before or inside a dK query step");
  constexpr int kNoRowsLeft = 0;  // whole query tiles: no row tests
#pragma unroll
  for (int round = 0; round < kRoundsAhead; ++round) {
    if (round > 0) __syncwarp();  // every lane has read the previous round's rows
    Rounds(warp_first).issue(dq, stage, round, kNoRowsLeft);
  }
#pragma unroll
  for (int qstep = 0; qstep < kQuerySteps; ++qstep) {
    if (qstep + kRoundsAhead < Rounds::kRounds) {
      __syncwarp();
      Rounds(warp_first).issue(dq, stage, qstep + kRoundsAhead, kNoRowsLeft);
    }
    product_query_step<Element, kBlockM, kWidth, kDsFromP, 0>(dk_acc, p_as_a, q_as_b, qstep);
  }
}

// Phase B with the dQ partial's reductions spread over its query steps (DqAtomicsInPhaseB, the
// default mode's tile at 64): the kernel has computed the partial (dq) before phase B, and the
// reductions of one accumulator row (rt, half) of this thread, kDimTilesQ REDG, go out inside a
// query step, so each row drains from the LSU's queue while mma's issue, instead of 16 REDG per
// thread leaving in one burst per query tile (docs/perf-notes.md "Backward v7": a full queue,
// lg_throttle, and the loop-top barrier behind it). Where in the step: after the step's Pᵀ/dSᵀ
// fragments and the dO fragment of its last head-dim block, before that block's mma's — a
// global reduction reads its source registers only when the LSU accepts it, so ldmatrix loads
// issued right after the REDGs would wait on those registers and queue behind them ("Backward
// v9": at the step's top that cost 11 k long-scoreboard samples at 128; "v10": this placement
// won +1–4 % at 64). Row r goes with query step r·kQuerySteps / kRows (at 64: steps 0, 2, 4, 6
// of 8). Whole rows per group: one row test each, every offset from `first` a compile-time
// constant (DqAtomicsFromOneAddress: accumulator rows are kWidth floats); half-row groups cost
// twice the per-group instructions. A row at or past rows_left (the sequence end) is skipped: a
// branch around its group, not a copy of the loop. `first` passes through a shuffle once per
// tile: unrolled, ptxas otherwise rebuilt the 64-bit address from the tile's indices before each
// row (13 instructions per row at 64, sm_90a SASS).
template <class Element, int kBlockM, int kWidth, std::uint32_t kDsFromP, std::uint32_t kDoFromQ,
          int kKeyTilesB, int kDimTilesB, int kRowTilesQ, int kDimTilesQ, class PAddress,
          class QAddress>
__device__ __forceinline__ void phase_b_with_dq_atomics(
    float (&dv_acc)[kKeyTilesB][kDimTilesB][4], float (&dk_acc)[kKeyTilesB][kDimTilesB][4],
    const PAddress& p_as_a, const QAddress& q_as_b, const float (&dq)[kRowTilesQ][kDimTilesQ][4],
    float* first, int rows_left) {
  constexpr int kQuerySteps = kBlockM / kMmaK;
  constexpr int kRows = kRowTilesQ * 2;  // accumulator rows of this thread, one group each
  constexpr int kBlocks = kDimTilesB / 2;
  constexpr int kRowsBlock = kBlocks - 1;
  {
    // Each lane reads its own value back: an instruction ptxas does not rematerialize, so the
    // address is computed once and held (two registers) instead of rebuilt before every group.
    const int lane = opaque_lane_id();
    const auto bits = reinterpret_cast<std::uintptr_t>(first);
    constexpr int kLowBits = 32;
    constexpr unsigned kAllLanes = 0xffffffffu;
    const unsigned low = __shfl_sync(kAllLanes, static_cast<unsigned>(bits), lane);
    const unsigned high = __shfl_sync(kAllLanes, static_cast<unsigned>(bits >> kLowBits), lane);
    first = reinterpret_cast<float*>((static_cast<std::uintptr_t>(high) << kLowBits) | low);
  }
  auto add_row = [&](auto row_group) {
    constexpr int kRt = decltype(row_group)::value / 2;
    constexpr int kHalf = decltype(row_group)::value % 2;
    constexpr int kRow = kRt * kMmaM + (kMmaM / 2) * kHalf;
    if (kRow < rows_left) {
#pragma unroll
      for (int dt = 0; dt < kDimTilesQ; ++dt) {
        reduce_add_pair(first + kRow * kWidth + dt * kMmaN, dq[kRt][dt][2 * kHalf],
                        dq[kRt][dt][2 * kHalf + 1]);
      }
    }
  };
  auto rows_of_step = [&](auto query_step) {
    [&]<int... kRowGroups>(std::integer_sequence<int, kRowGroups...>) {
      ((kRowGroups * kQuerySteps / kRows == decltype(query_step)::value
            ? add_row(std::integral_constant<int, kRowGroups>{})
            : void()),
       ...);
    }(std::make_integer_sequence<int, kRows>{});
  };
  auto step = [&](auto query_step) {
    constexpr unsigned kStep = decltype(query_step)::value;
    std::uint32_t pa[kKeyTilesB][4];
    std::uint32_t dsa[kKeyTilesB][4];
    const std::uint32_t p_address = xor_address_at(p_as_a, kStep, 0);
    load_step_fragments<kBlockM, kDsFromP>(pa, dsa, p_address);
    constexpr std::uint32_t kQueryRows = kStep * kMmaK * kWidth * kBytesPerElement;
#pragma unroll
    for (int dstep = 0; dstep < kBlocks; ++dstep) {
      std::uint32_t b[4];
      ldmatrix_x4_trans(b, q_as_b.at(dstep, 0) + kQueryRows + kDoFromQ);
      if (dstep == kRowsBlock) rows_of_step(query_step);
      mma_column_pair<Element>(dv_acc, pa, b, dstep);
      ldmatrix_x4_trans(b, q_as_b.at(dstep, 0) + kQueryRows);
      mma_column_pair<Element>(dk_acc, dsa, b, dstep);
    }
  };
  [&]<int... kSteps>(std::integer_sequence<int, kSteps...>) {
    (step(std::integral_constant<unsigned, kSteps>{}), ...);
  }(std::make_integer_sequence<int, kQuerySteps>{});
}

}  // namespace fattn::detail::sm80
