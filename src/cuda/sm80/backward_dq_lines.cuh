// The sm80 backward's dQ reductions by whole accumulator lines (DqReductionsByLine,
// backward_tile_config.hpp): the per-warp staging rounds, issued back to back
// (reduce_dq_by_lines) or one at a time between other work (DqLineRounds; DqRoundsInDkSteps in
// backward_kernel.cuh); DqPeriodicLineRounds for warp rows of 12 chunks (192). Split out of
// backward_kernel.cuh to keep that file readable.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/common/ptx_sm80.cuh"
#include "cuda/sm80/tile_config.hpp"

namespace fattn::detail::sm80 {

constexpr bool is_power_of_two(int value) { return value > 0 && (value & (value - 1)) == 0; }

// The lane index read with a volatile move, so the compiler neither merges it with an earlier
// read nor keeps that one alive in its place (a register across the whole main loop).
__device__ __forceinline__ int opaque_lane_id() {
  int lane;
  asm volatile("mov.u32 %0, %%laneid;\n" : "=r"(lane));
  return lane;
}

// reduce_add_quad (ptx_sm80.cuh) under a lane predicate, as one predicated RED: as a C++ branch
// ptxas put each round's REDG.128 behind a BSSY / BRA and rebuilt its 64-bit address there (12
// more instructions a round) instead of adding the round's rows as an immediate.
__device__ __forceinline__ void reduce_add_quad_if(bool active, float* accumulator, float4 v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n"
      ".reg .pred active;\n"
      "setp.ne.b32 active, %5, 0;\n"
      "@active red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n"
      "}\n" ::"l"(accumulator),
      "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "r"(static_cast<int>(active))
      : "memory");
#else
  if (active) reduce_add_quad(accumulator, v);
#endif
}

// DqReductionsByLine (tile_config.hpp): the warp's dQ partial (kRowTilesQ·16 rows x kDimTilesQ·8
// columns of the accumulator, in the mma layout: a lane holds two floats of a row, so a REDG.64
// of the warp touches 8 rows, 32 bytes each) goes through a staging tile of this warp's own in
// shared memory, kRowsPerRound rows at a time, and comes back row-major, so that each REDG.128
// covers whole 128-byte lines of the accumulator (4 per instruction), its source registers just
// loaded by an LDS.128 rather than the dQ product's accumulators. 8 rows per round measured
// 1.01-1.07x the REDG.64 burst at 128 and the whole slice at once 0.98-1.03x (docs/perf-notes.md
// "Backward v13"). Staging rows are swizzled (16-byte chunk XOR row % 8): the LDS.128 are
// conflict-free, the STS.64 2-way (kPairSwizzle below takes that out). No barrier but the
// warp's: each warp reads back only what it staged, and the next item's rounds come after the
// loop-top block barrier. `warp_first`: the accumulator
// element of the warp's first row and column; `rows_left`: the rows from there to the sequence
// end (kWholeTile: none past it).
// kSplitSwizzle (LineStagingSwizzleSplit, backward_tile_config.hpp): the staging offsets in
// unsigned arithmetic, the STS swizzle split into its run-time and compile-time parts (below).
// kPairSwizzle (DqStagingPairSwizzle, backward_tile_config.hpp): the staging rows swizzled by
// chunk XOR 2·(row % 8) instead of row % 8. An STS.64 of the warp writes 8 rows x 8 chunks of 16
// bytes (lane pairs of a quad fill one chunk), a half-warp's 4 rows x 2 chunks (2·dt, 2·dt + 1)
// per wavefront. With XOR row % 8 the rows r and r ^ 1 put their chunks on the same bank quad
// ((2·dt + 1) ^ r = 2·dt ^ (r ^ 1)): 2 wavefronts per half-warp, 4 per STS.64 where 2 do (ncu,
// s10 call 2: 134 M staging wavefronts against 67 M ideal at 256, N = 4k). With XOR 2·(row % 8)
// chunk 2·dt + h lands on 2·(dt ^ r) + h: bit 0 is h, bits 1-2 (dt ^ r) % 4, distinct over a
// half-warp's 4 rows, so 2 wavefronts. The LDS.128 reads 8 chunks of one row per quarter-warp,
// conflict-free under any XOR < kChunks. Rows of 16 chunks (256 tables) or 8 (128 tables: XOR
// (2·row) % 8, kSwizzleRows below; model in bench/results/sm80-bwd-h100-2026-11-23-s17c/).
// DqLineRounds holds the lane's offsets and issues one round at a time, so that a caller may
// place the rounds between other work (DqRoundsInDkSteps: one round per dK query step);
// reduce_dq_by_lines issues them back to back.
template <int kRowsPerRound, int kWidth, bool kWholeTile, bool kSplitSwizzle, int kRowTilesQ,
          int kDimTilesQ, bool kPairSwizzle = false>
struct DqLineRounds {
  static constexpr int kRowsPerPair = 8;                     // the rows of one (row tile, half)
  static constexpr int kChunkFloats = 4;                     // 16 bytes
  static constexpr int kChunks = kDimTilesQ * kMmaN / kChunkFloats;  // 16-byte chunks per row
  static constexpr int kRowsPerLoad = kWarpSize / kChunks;   // rows of one LDS.128 / REDG.128
  static constexpr int kPairsPerRound = kRowsPerRound / kRowsPerPair;
  static constexpr int kRounds = kRowTilesQ * 2 / kPairsPerRound;
  static constexpr int kLoadsPerRound = kRowsPerRound / kRowsPerLoad;
  static_assert(kRowsPerRound % kRowsPerPair == 0 && (kRowTilesQ * 2) % kPairsPerRound == 0 &&
                    kWarpSize % kChunks == 0 && kRowsPerRound % kRowsPerLoad == 0 &&
                    kChunks >= kRowsPerPair,
                "whole (row tile, half) pairs per round, whole rows per load, a swizzle that "
                "stays inside the row");
  // kSplitSwizzle: chunk 2·dt + quad_lane / 2 of a row XOR group (< 8) is
  // 8·(dt / 4) + 2·((dt % 4) ^ (group / 2)) + ((quad_lane / 2) ^ (group % 2)): the XOR of the
  // compile-time dt touches two bits only, so the lane's STS need kXorPhases bases and the rest
  // is an immediate offset; the LDS row's XOR splits the same way (load_row < kRowsPerLoad, a
  // power of two). Unsigned, so no division or shift needs a sign fix-up.
  static constexpr int kXorPhases = 4;
  static_assert(!kSplitSwizzle || (kDimTilesQ % kXorPhases == 0 && kMmaN == 2 * kChunkFloats &&
                                   is_power_of_two(kRowsPerLoad) && kRowsPerLoad <= kRowsPerPair),
                "the split swizzle takes whole groups of four dim tiles");
  // kPairSwizzle with kSplitSwizzle: rows of exactly 16 chunks, so that the chunk XOR
  // 2·(row % 8) is the float offset's XOR 8·(row % 8) on bits 3-5, which in the lane's STS base
  // 72·group + 2·quad_lane hold the group: STS offset (base ^ 8·dt) + the pair's rows, LDS offset
  // (base ^ 8·((j·kRowsPerLoad) % 8)) + the load's rows.
  // Rows of 8 chunks (the 128 tables' 32-float warp rows): the XOR is 2·(row % 4), i.e.
  // (2·row) % 8, so that it stays inside the row; rows r and r + 4 share it but sit in different
  // half-warps of an STS.64 (the half-warp's rows r..r + 3 take 4 distinct XORs, as above).
  // kSwizzleRows: the rows of distinct XORs (8 at 16 chunks, 4 at 8). With kSplitSwizzle the
  // float offset's XOR 8·(row % kSwizzleRows) sits on bits 3..(2 + log2 kSwizzleRows), which the
  // lane's STS base holds as 8·(group % kSwizzleRows) (rows of kChunks·4 floats start above them).
  static constexpr int kSwizzleRows = kChunks / 2 < kRowsPerPair ? kChunks / 2 : kRowsPerPair;
  static_assert(!kPairSwizzle || ((kChunks == kRowsPerPair || kChunks == 2 * kRowsPerPair) &&
                                  kRowsPerLoad <= kSwizzleRows),
                "the pair swizzle: rows of 8 or 16 chunks");
  // The XOR of staging row `row`'s chunks.
  static constexpr int row_swizzle(int row) {
    return kPairSwizzle ? 2 * (row % kSwizzleRows) : row % kRowsPerPair;
  }

  int lane;
  int group;
  int quad_lane;
  int load_row;
  int load_chunk;
  float* lane_first;
  unsigned split_group;
  unsigned sts_lane;
  unsigned lds_lane;
  unsigned lds_chunk;

  // The lane read here (a volatile move) rather than passed in: its uses then start after the
  // dQ product, not at the kernel's top (at 256 the held values spilled 12-24 bytes).
  __device__ __forceinline__ explicit DqLineRounds(float* warp_first) {
    lane = opaque_lane_id();
    group = lane / 4;
    quad_lane = lane % 4;
    load_row = lane / kChunks;
    load_chunk = lane % kChunks;
    lane_first = warp_first + load_row * kWidth + load_chunk * kChunkFloats;
    const unsigned split_lane = static_cast<unsigned>(lane);
    split_group = split_lane / 4;
    const unsigned split_quad = split_lane % 4;
    if constexpr (kPairSwizzle) {
      const unsigned split_row = split_lane / kChunks;
      if constexpr (kSwizzleRows == kRowsPerPair) {  // group < 8: the XOR holds all of it
        sts_lane = split_group * (kChunks * kChunkFloats + 2 * kChunkFloats) + 2 * split_quad;
      } else {
        sts_lane = split_group * kChunks * kChunkFloats +
                   2 * kChunkFloats * (split_group % kSwizzleRows) + 2 * split_quad;
      }
      lds_lane = split_row * kChunks * kChunkFloats +
                 ((split_lane % kChunks) ^ (2 * split_row)) * kChunkFloats;
      lds_chunk = 0;
    } else {
      sts_lane = (split_group * kChunks + ((split_quad / 2) ^ (split_group % 2))) * kChunkFloats +
                 (split_quad % 2) * 2;
      lds_lane = split_lane / kChunks * kChunks * kChunkFloats;
      lds_chunk = (split_lane % kChunks) ^ (split_lane / kChunks);
    }
  }

  // Round `round` (a compile-time constant once the caller's loop unrolls): its rows staged,
  // read back row-major and reduced. The caller orders it after the previous round's reads
  // (__syncwarp). kChunkTests (ClassDqChunkTests, backward_tile_config.hpp): only the lanes whose
  // chunk of the row is below `chunks_left` reduce (the slice's chunks from there on are known
  // zeros); the others still stage their chunks, so the staging and the loads are unchanged.
  template <bool kChunkTests = false>
  __device__ __forceinline__ void issue(const float (&dq)[kRowTilesQ][kDimTilesQ][4],
                                        float* stage, int round, int rows_left,
                                        int chunks_left = kChunks) const {
#pragma unroll
    for (int p = 0; p < kPairsPerRound; ++p) {
      const int pair = round * kPairsPerRound + p;
      const int rt = pair / 2;
      const int half = pair % 2;
      const int stage_row = p * kRowsPerPair + group;
#pragma unroll
      for (int dt = 0; dt < kDimTilesQ; ++dt) {
        if constexpr (kSplitSwizzle && kPairSwizzle) {
          const unsigned row_floats = p * kRowsPerPair * kChunks * kChunkFloats;
          *reinterpret_cast<float2*>(stage + ((sts_lane ^ (2u * kChunkFloats * dt)) + row_floats)) =
              make_float2(dq[rt][dt][2 * half], dq[rt][dt][2 * half + 1]);
        } else if constexpr (kSplitSwizzle) {
          const unsigned phase = ((dt % kXorPhases) ^ (split_group / 2)) * 2 * kChunkFloats;
          const unsigned fixed = ((dt / kXorPhases) * 2 * kXorPhases +
                                  p * kRowsPerPair * kChunks) * kChunkFloats;
          *reinterpret_cast<float2*>(stage + (sts_lane + phase + fixed)) =
              make_float2(dq[rt][dt][2 * half], dq[rt][dt][2 * half + 1]);
        } else {
          const int chunk = (dt * kMmaN + 2 * quad_lane) / kChunkFloats;
          const int swizzle = !kPairSwizzle                 ? group
                              : kSwizzleRows == kRowsPerPair ? 2 * group
                                                             : 2 * (group & (kSwizzleRows - 1));
          *reinterpret_cast<float2*>(stage +
                                     (stage_row * kChunks + (chunk ^ swizzle)) * kChunkFloats +
                                     (quad_lane % 2) * 2) =
              make_float2(dq[rt][dt][2 * half], dq[rt][dt][2 * half + 1]);
        }
      }
    }
    __syncwarp();
    float4 values[kLoadsPerRound];
#pragma unroll
    for (int j = 0; j < kLoadsPerRound; ++j) {
      if constexpr (kSplitSwizzle && kPairSwizzle) {
        const unsigned row_floats = j * kRowsPerLoad * kChunks * kChunkFloats;
        const unsigned row_xor = 2u * kChunkFloats * ((j * kRowsPerLoad) % kSwizzleRows);
        values[j] = *reinterpret_cast<const float4*>(stage + ((lds_lane ^ row_xor) + row_floats));
      } else if constexpr (kSplitSwizzle) {
        const unsigned row_floats = j * kRowsPerLoad * kChunks * kChunkFloats;
        const unsigned row_xor = (j * kRowsPerLoad) % kRowsPerPair;
        values[j] = *reinterpret_cast<const float4*>(
            stage + (lds_lane + row_floats + (lds_chunk ^ row_xor) * kChunkFloats));
      } else {
        const int stage_row = j * kRowsPerLoad + load_row;
        values[j] = *reinterpret_cast<const float4*>(
            stage +
            (stage_row * kChunks + (load_chunk ^ row_swizzle(stage_row))) * kChunkFloats);
      }
    }
#pragma unroll
    for (int j = 0; j < kLoadsPerRound; ++j) {
      const int row = round * kRowsPerRound + j * kRowsPerLoad;
      if constexpr (kChunkTests) {
        reduce_add_quad_if((kWholeTile || row < rows_left - load_row) && load_chunk < chunks_left,
                           lane_first + row * kWidth, values[j]);
      } else if (kWholeTile || row < rows_left - load_row) {
        reduce_add_quad(lane_first + row * kWidth, values[j]);
      }
    }
  }
};

constexpr int greatest_common_divisor(int a, int b) {
  return b == 0 ? a : greatest_common_divisor(b, a % b);
}

// DqLineRounds for warp rows whose 16-byte chunks do not divide the warp: 192's 32 x 48 dQ warp
// tiles (BackwardConfig<192>, kWarpsQueriesQ = 2) hold 12 chunks per row, and a REDG.128 of whole
// rows would leave 8 of the 32 lanes idle. Here the staged chunks are numbered row-major, and
// load j of a round takes chunk 32·j + lane: every LDS.128 / REDG.128 moves 32 consecutive
// chunks, which span 2-3 accumulator rows of the warp's slice (whole 32-byte sectors: a slice row
// is kChunks·16 bytes of a kWidth-float row and starts on a 64-byte boundary). Since 32 mod 12 =
// 8, the lane's (row, chunk) pattern repeats every kPeriodLoads = lcm(32, kChunks) / 32 loads,
// i.e. every kPeriodRows = lcm(32, kChunks) / kChunks rows (3 loads, 8 rows at 192): the lane
// holds kPeriodLoads shared and global bases, and every other load is a compile-time offset of
// whole periods (rows of the round, rounds of the slice) from one of them.
// Staging layout: rows of exactly kChunks chunks (no padding, kRowsPerRound·kChunks·16 bytes per
// warp), chunk c of row r at chunk kChunks·r + (c ^ (r & kSwizzleMask)). Banks (a wavefront
// serves 128 bytes: 8 chunks of 16 bytes, chunk position mod 8 = its bank quad):
// - LDS.128: a quarter-warp reads 8 consecutive linear chunks from a multiple of 8. Rows start on
//   multiples of 4 chunks (kChunks % 4 == 0) and the XOR (< 4) permutes each aligned block of 4
//   inside itself, so the 8 chunks sit at 8 consecutive positions: conflict-free.
// - STS.64 of dim tile dt: a half-warp writes rows g = 0..3 (lane / 4, of its 8-row block) x
//   chunks 2·dt, 2·dt + 1 (lane pairs of a quad fill one chunk). Position mod 8 of (g, 2·dt + b):
//   bit 2 is (g·kChunks / 4 + dt / 2) % 2 = (g + dt / 2) % 2 as kChunks / 4 is odd (kChunks % 8
//   == 4), so rows g and g ^ 1 differ there; bits 0-1 are (2·(dt % 2) + b) ^ (g & 2), so rows g
//   and g + 2 (same bit 2) differ in bit 1: 8 distinct quads, conflict-free. Without the XOR rows
//   g and g + 2 (2·kChunks chunks apart, 0 mod 8 at 12 chunks: 96 floats, 0 mod 32 banks) meet:
//   2-way.
// The XOR touches bit 1 of the chunk, i.e. flips bit 0 of dt: dim tile dt of row g lands at float
// 4·kChunks·g + 2·quad_lane + 8·(dt ^ h), h = (g / 2) % 2, which is sts_even + 8·dt for even dt
// and sts_odd + 8·dt for odd dt (the ± 8·h folded into two lane bases): two bases, the rest
// immediates. kWholeTile, warp_first, rows_left, issue(): as DqLineRounds. The staging swizzle is
// this struct's own; LineStagingSwizzleSplit and DqStagingPairSwizzle are 8- and 16-chunk
// layouts.
template <int kRowsPerRound, int kWidth, bool kWholeTile, bool kSplitSwizzle, int kRowTilesQ,
          int kDimTilesQ, bool kPairSwizzle = false>
struct DqPeriodicLineRounds {
  static constexpr int kRowsPerPair = 8;                     // the rows of one (row tile, half)
  static constexpr int kChunkFloats = 4;                     // 16 bytes
  static constexpr int kChunks = kDimTilesQ * kMmaN / kChunkFloats;  // 16-byte chunks per row
  static constexpr int kPeriodChunks =
      kWarpSize / greatest_common_divisor(kWarpSize, kChunks) * kChunks;  // lcm(32, kChunks)
  static constexpr int kPeriodLoads = kPeriodChunks / kWarpSize;
  static constexpr int kPeriodRows = kPeriodChunks / kChunks;
  static constexpr int kPeriodFloats = kPeriodChunks * kChunkFloats;
  static constexpr int kRowFloats = kChunks * kChunkFloats;  // a staging row, unpadded
  static constexpr int kPairsPerRound = kRowsPerRound / kRowsPerPair;
  static constexpr int kRounds = kRowTilesQ * 2 / kPairsPerRound;
  static constexpr int kPeriodsPerRound = kRowsPerRound / kPeriodRows;
  static constexpr int kLoadsPerRound = kPeriodsPerRound * kPeriodLoads;
  static constexpr unsigned kSwizzleMask = 2;  // chunk XOR (row & 2): bit 1 of the chunk
  static constexpr unsigned kSwizzleFloats = 2 * kChunkFloats;  // that bit, in floats
  static_assert(!kSplitSwizzle && !kPairSwizzle,
                "the periodic rounds' staging swizzle is their own (split, conflict-free)");
  static_assert(kChunks % 8 == 4 && kMmaN == 2 * kChunkFloats,
                "the bank argument above: rows 4 chunks apart mod 8, two chunks per dim tile");
  static_assert(kRowsPerRound % kRowsPerPair == 0 && (kRowTilesQ * 2) % kPairsPerRound == 0 &&
                    kRowsPerRound % kPeriodRows == 0 && kPeriodRows % 4 == 0 &&
                    kRowsPerPair % 4 == 0,
                "whole (row tile, half) pairs and whole periods per round; row offsets of whole "
                "periods and pairs leave the swizzle (row & 2) unchanged");

  unsigned sts_even;  // the lane's STS base for even dim tiles (floats into the staging tile)
  unsigned sts_odd;   // and for odd ones
  unsigned lds_lane[kPeriodLoads];  // load j's LDS base (chunk 32·j + lane of the period)
  float* lane_first[kPeriodLoads];  // and its accumulator element
  int load_row[kPeriodLoads];       // and its row in the period (the rows_left test)

  // The lane read here (a volatile move), as in DqLineRounds.
  __device__ __forceinline__ explicit DqPeriodicLineRounds(float* warp_first) {
    const unsigned lane = static_cast<unsigned>(opaque_lane_id());
    const unsigned group = lane / 4;
    const unsigned quad_lane = lane % 4;
    const unsigned swizzle_half = (group & kSwizzleMask) / 2;
    sts_even = group * kRowFloats + 2 * quad_lane + kSwizzleFloats * swizzle_half;
    sts_odd = sts_even - 2 * kSwizzleFloats * swizzle_half;
#pragma unroll
    for (int j = 0; j < kPeriodLoads; ++j) {
      const unsigned chunk = j * kWarpSize + lane;
      const unsigned row = chunk / kChunks;
      const unsigned column = chunk % kChunks;
      lds_lane[j] = (row * kChunks + (column ^ (row & kSwizzleMask))) * kChunkFloats;
      lane_first[j] = warp_first + row * kWidth + column * kChunkFloats;
      load_row[j] = static_cast<int>(row);
    }
  }

  // Round `round` (a compile-time constant once the caller's loop unrolls), as DqLineRounds.
  __device__ __forceinline__ void issue(const float (&dq)[kRowTilesQ][kDimTilesQ][4],
                                        float* stage, int round, int rows_left) const {
#pragma unroll
    for (int p = 0; p < kPairsPerRound; ++p) {
      const int pair = round * kPairsPerRound + p;
      const int rt = pair / 2;
      const int half = pair % 2;
      const unsigned pair_floats = p * kRowsPerPair * kRowFloats;
#pragma unroll
      for (int dt = 0; dt < kDimTilesQ; ++dt) {
        const unsigned base = dt % 2 == 0 ? sts_even : sts_odd;
        *reinterpret_cast<float2*>(stage + (base + (dt * kMmaN + pair_floats))) =
            make_float2(dq[rt][dt][2 * half], dq[rt][dt][2 * half + 1]);
      }
    }
    __syncwarp();
    float4 values[kLoadsPerRound];
#pragma unroll
    for (int period = 0; period < kPeriodsPerRound; ++period) {
#pragma unroll
      for (int j = 0; j < kPeriodLoads; ++j) {
        values[period * kPeriodLoads + j] = *reinterpret_cast<const float4*>(
            stage + (lds_lane[j] + period * kPeriodFloats));
      }
    }
#pragma unroll
    for (int period = 0; period < kPeriodsPerRound; ++period) {
      const int row = round * kRowsPerRound + period * kPeriodRows;
#pragma unroll
      for (int j = 0; j < kPeriodLoads; ++j) {
        if (kWholeTile || row < rows_left - load_row[j]) {
          reduce_add_quad(lane_first[j] + row * kWidth, values[period * kPeriodLoads + j]);
        }
      }
    }
  }
};

// The rounds for the warp's rows: DqLineRounds where a load covers whole rows (the 128 and 256
// tables: 8 or 16 chunks of 16 bytes per warp row), else DqPeriodicLineRounds (192: 12).
inline constexpr int kLineChunkBytes = 16;
inline constexpr int kLineChunkFloats = kLineChunkBytes / static_cast<int>(sizeof(float));
template <int kDimTilesQ>
inline constexpr bool kWholeRowsPerLoad =
    kWarpSize % (kDimTilesQ * kMmaN * static_cast<int>(sizeof(float)) / kLineChunkBytes) == 0;
template <int kRowsPerRound, int kWidth, bool kWholeTile, bool kSplitSwizzle, int kRowTilesQ,
          int kDimTilesQ, bool kPairSwizzle>
using DqLineRoundsFor = std::conditional_t<
    kWholeRowsPerLoad<kDimTilesQ>,
    DqLineRounds<kRowsPerRound, kWidth, kWholeTile, kSplitSwizzle, kRowTilesQ, kDimTilesQ,
                 kPairSwizzle>,
    DqPeriodicLineRounds<kRowsPerRound, kWidth, kWholeTile, kSplitSwizzle, kRowTilesQ,
                         kDimTilesQ, kPairSwizzle>>;

// kChunkTests, chunks_left: as DqLineRounds::issue (whole rows per load only).
template <int kRowsPerRound, int kWidth, bool kWholeTile, bool kSplitSwizzle = false,
          bool kPairSwizzle = false, bool kChunkTests = false, int kRowTilesQ, int kDimTilesQ>
__device__ __forceinline__ void reduce_dq_by_lines(const float (&dq)[kRowTilesQ][kDimTilesQ][4],
                                                   float* stage, float* warp_first,
                                                   int rows_left, int chunks_left = 0) {
  using Rounds = DqLineRoundsFor<kRowsPerRound, kWidth, kWholeTile, kSplitSwizzle, kRowTilesQ,
                                 kDimTilesQ, kPairSwizzle>;
  static_assert(!kChunkTests || kWholeRowsPerLoad<kDimTilesQ>,
                "chunk tests: the rounds whose loads cover whole rows");
  const Rounds rounds(warp_first);
#pragma unroll
  for (int round = 0; round < Rounds::kRounds; ++round) {
    if (round > 0) __syncwarp();  // every lane has read the previous round's rows
    if constexpr (kChunkTests) {
      rounds.template issue<true>(dq, stage, round, rows_left, chunks_left);
    } else {
      rounds.issue(dq, stage, round, rows_left);
    }
  }
}

}  // namespace fattn::detail::sm80
