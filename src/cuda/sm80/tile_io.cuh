// Moving tiles between global memory and XOR-swizzled shared memory, for any head dim.
//
// A tile is `kRows` rows of `kWidth` 16-bit elements in shared memory (kWidth = the head-dim
// bucket). Only the first `chunks` 16-byte chunks of each row are filled: the kernels never read
// past round_up(head_dim, 16), so a head dim of 72 in the 128 bucket moves 80 columns, not 128.
// Columns in [head_dim, 8·chunks) and rows past the sequence end are zero-filled inside shared
// memory (cp.async's source-size operand), so the matrix products need no masking and read no
// garbage that could be NaN. Inputs are never copied or padded in global memory.
//
// Row alignment: a row starts at base + row·stride elements, so it is only as aligned as the
// pointer and the stride. cp.async needs its source aligned to its size (4, 8 or 16 bytes), so
// the copy width follows Problem::alignment_bytes: 16-byte copies for the common case, 8- or
// 4-byte cp.async for narrower strides, and for 2-byte-aligned rows (an odd head dim in a packed
// tensor) predicated 16-bit loads through registers, still written as one 16-byte shared store.
#pragma once

#include <cstdint>

#include "cuda/common/ptx_sm80.cuh"

namespace fattn::detail::sm80 {

inline constexpr int kBytesPerElement = 2;
inline constexpr int kWidest = 16;  // widest copy, bytes
inline constexpr int kMiddle = 8;
inline constexpr int kNarrow = 4;

__device__ __forceinline__ int clamp_count(int value, int high) {
  return value < 0 ? 0 : (value > high ? high : value);
}

// Copies one 16-byte chunk (8 elements) of which the first `valid` exist in global memory.
// `source` points at the chunk's first element when valid > 0.
template <class Element>
__device__ __forceinline__ void copy_chunk(Element* destination, const Element* source, int valid,
                                           int alignment) {
  const std::uint32_t smem = smem_address(destination);
  if (alignment >= kWidest) {
    cp_async_16(smem, source, valid * kBytesPerElement);
  } else if (alignment >= kMiddle) {
    constexpr int kPer = kMiddle / kBytesPerElement;
#pragma unroll
    for (int part = 0; part < kChunkElements / kPer; ++part) {
      const int count = clamp_count(valid - part * kPer, kPer);
      cp_async_8(smem + part * kMiddle, count > 0 ? source + part * kPer : source,
                 count * kBytesPerElement);
    }
  } else if (alignment >= kNarrow) {
    constexpr int kPer = kNarrow / kBytesPerElement;
#pragma unroll
    for (int part = 0; part < kChunkElements / kPer; ++part) {
      const int count = clamp_count(valid - part * kPer, kPer);
      cp_async_4(smem + part * kNarrow, count > 0 ? source + part * kPer : source,
                 count * kBytesPerElement);
    }
  } else {
    // 2-byte-aligned rows: no cp.async width fits, so load through registers.
    const auto* bits = reinterpret_cast<const std::uint16_t*>(source);
    std::uint16_t values[kChunkElements];
#pragma unroll
    for (int e = 0; e < kChunkElements; ++e) values[e] = e < valid ? __ldg(bits + e) : 0;
    uint4 packed;
    packed.x = values[0] | (std::uint32_t{values[1]} << 16);
    packed.y = values[2] | (std::uint32_t{values[3]} << 16);
    packed.z = values[4] | (std::uint32_t{values[5]} << 16);
    packed.w = values[6] | (std::uint32_t{values[7]} << 16);
    *reinterpret_cast<uint4*>(destination) = packed;
  }
}

constexpr int next_power_of_two(int value) {
  int power = 1;
  while (power < value) power *= 2;
  return power;
}

// Loads rows [0, kRows) of a tile whose row r is at `global + r·row_stride`; rows at or past
// `valid_rows` and columns at or past `head_dim` become zeros; chunks at or past `chunks` are
// left untouched (never read). All kThreads threads of the block take part; the copies are
// asynchronous (the caller commits and waits) except on the 2-byte path.
// Each thread keeps one chunk column and steps down the rows by kRowsPerPass; when that is a
// multiple of 8 its swizzle term is fixed and the addresses advance by compile-time constants.
template <int kRows, int kWidth, int kThreads, bool kFullWidth, class Element>
__device__ __forceinline__ void load_tile_rows(Element* tile, const Element* global,
                                               std::int64_t row_stride, int valid_rows,
                                               int head_dim, int chunks, int alignment) {
  constexpr int kLanesPerRow = next_power_of_two(kWidth / kChunkElements);
  constexpr int kRowsPerPass = kThreads / kLanesPerRow;
  constexpr bool kFixedPhase = kRowsPerPass % kSwizzleChunks == 0;
  const int chunk = static_cast<int>(threadIdx.x) % kLanesPerRow;
  const int first_row = static_cast<int>(threadIdx.x) / kLanesPerRow;
  if (chunk >= chunks) return;
  const int column = chunk * kChunkElements;
  const int valid_columns = clamp_count(head_dim - column, kChunkElements);
  Element* destination = tile + swizzled_offset<kWidth>(first_row, chunk);
  const Element* source = global + first_row * row_stride + column;
#pragma unroll
  for (int pass = 0; pass < (kRows + kRowsPerPass - 1) / kRowsPerPass; ++pass) {
    const int row = first_row + pass * kRowsPerPass;
    if (kRows % kRowsPerPass != 0 && row >= kRows) break;
    const int valid = row < valid_rows ? valid_columns : 0;
    const Element* from = valid > 0 ? source + pass * kRowsPerPass * row_stride : global;
    Element* to = kFixedPhase ? destination + pass * kRowsPerPass * kWidth
                              : tile + swizzled_offset<kWidth>(row, chunk);
    if (kFullWidth) {
      cp_async_16(smem_address(to), from, valid * kBytesPerElement);
    } else {
      copy_chunk(to, from, valid, alignment);
    }
  }
}

// Rows narrower than 16-byte aligned: kept out of line so that the hot loops of the kernels hold
// only the 16-byte path (the narrow variants would multiply the loop's code size several times
// and with it instruction-cache misses).
template <int kRows, int kWidth, int kThreads, class Element>
__device__ __noinline__ void load_tile_narrow(Element* tile, const Element* global,
                                              std::int64_t row_stride, int valid_rows,
                                              int head_dim, int chunks, int alignment) {
  load_tile_rows<kRows, kWidth, kThreads, false>(tile, global, row_stride, valid_rows, head_dim,
                                                 chunks, alignment);
}

template <int kRows, int kWidth, int kThreads, class Element>
__device__ __forceinline__ void load_tile(Element* tile, const Element* global,
                                          std::int64_t row_stride, int valid_rows, int head_dim,
                                          int chunks, int alignment) {
  if (alignment >= kWidest) {
    load_tile_rows<kRows, kWidth, kThreads, true>(tile, global, row_stride, valid_rows, head_dim,
                                                  chunks, alignment);
  } else {
    load_tile_narrow<kRows, kWidth, kThreads>(tile, global, row_stride, valid_rows, head_dim,
                                              chunks, alignment);
  }
}

// ldmatrix addressing of a swizzled tile for one lane: the lane reads row `row` (+ a multiple of
// 8 rows) and logical chunk chunk_base + 2·step + `chunk_in_step`. Because the row offsets are
// multiples of 8, the swizzle depends only on step % 4, so four byte offsets per lane (computed
// once, chunk_base folded in) cover every step, and the unrolled loops add compile-time
// constants: no per-step address arrays are hoisted into registers.
template <int kWidth>
struct FragmentAddress {
  std::uint32_t row_base;
  std::uint32_t group_offset[4];

  template <class Element>
  __device__ __forceinline__ FragmentAddress(const Element* tile, int row, int chunk_in_step,
                                             int chunk_base = 0) {
    row_base = smem_address(tile + row * kWidth);
#pragma unroll
    for (int phase = 0; phase < 4; ++phase) {
      const int chunk = chunk_base + 2 * phase + chunk_in_step;
      group_offset[phase] = static_cast<std::uint32_t>(
          (chunk / kSwizzleChunks) * kGroupBytes +
          ((chunk % kSwizzleChunks) ^ (row % kSwizzleChunks)) * kChunkBytes);
    }
  }

  // `step` and `rows` must be compile-time constants after unrolling; rows % 8 == 0.
  __device__ __forceinline__ std::uint32_t at(int step, int rows) const {
    constexpr int kRowBytes = kWidth * kBytesPerElement;
    return row_base + rows * kRowBytes + (step / 4) * kGroupBytes + group_offset[step % 4];
  }

 private:
  static constexpr int kChunkBytes = 16;
  static constexpr int kGroupBytes = kSwizzleChunks * kChunkBytes;
};

// Stores the pair (column, column + 1) of a row held in registers as `lo, hi`; the pair may
// straddle the head-dim end. 32-bit stores when the row allows, else 16-bit ones.
template <class Element>
__device__ __forceinline__ void store_pair(Element* row, int column, int head_dim, float lo,
                                           float hi, int alignment) {
  using Traits = ElementTraits<Element>;
  if (column + 1 < head_dim && alignment >= kNarrow) {
    *reinterpret_cast<std::uint32_t*>(row + column) = Traits::pack(lo, hi);
  } else {
    if (column < head_dim) row[column] = Traits::from_float(lo);
    if (column + 1 < head_dim) row[column + 1] = Traits::from_float(hi);
  }
}

}  // namespace fattn::detail::sm80
