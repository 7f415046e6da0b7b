// Moving rows of the strided (batch, seqlen, heads, head_dim) tensors in and out of the float32
// packed buffers the SIMD kernels work on, and the per-row visible key ranges of a mask.
//
// Packed layouts (every row padded with zeros to padded_dim = head_dim rounded up to 16):
//   rows        count × padded_dim, row-major (Q, dO, K, V as the B operand of a GEMM)
//   key tile    head_dim × kKeyTile: keys of one tile transposed (Kᵀ or Vᵀ as the B operand
//               of S = Q·Kᵀ or dP = dO·Vᵀ); columns past the last key are zero.
#pragma once

#include <algorithm>
#include <cstdint>

#include "api/attention_args.hpp"
#include "common/float_convert.hpp"
#include "common/mask.hpp"
#include "cpu/simd_kernels.hpp"
#include "cpu/tensor_access.hpp"

namespace fattn::detail {

// Keys per tile (Bc). 64 = 4 AVX-512 vectors, the micro-kernel's width, so S = Q·Kᵀ of one tile
// is a single column panel; a tile of Kᵀ and one of V (2 × 32 KiB at head_dim 128) stay in L2
// while a query block walks over them, and the online softmax pays its per-tile row
// bookkeeping (max, rescale) once per 64 keys.
inline constexpr int kKeyTile = 64;
// Query rows per block (Br) of the flash kernels: the unit of work handed to a thread. 64 rows
// give ~1000 tasks at N = 4096, H = 16 (good dynamic balance under causal masks) while keeping
// the per-thread tiles (Q, S, O) under 100 KiB.
inline constexpr int kQueryBlock = 64;

inline int padded_dim(std::int64_t head_dim) {
  return simd::round_up_to_line(static_cast<int>(head_dim));
}

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

inline constexpr float kLog2e = 1.4426950408889634f;  // exp(x) = exp2(x · log2 e)

// The sizes every CPU pass derives from a call: the head dim and its padded row width, the GQA
// group, and how many key tiles and query blocks (of `query_block_rows` rows) cover the
// sequences. Flash forward, flash backward and standard each extend it with their buffers.
struct TileShape {
  std::int64_t seqlen_q, seqlen_k;
  int dim, padded, group, key_tiles, query_blocks;
  float scale, scale_log2;

  TileShape(const AttentionArgs& a, int query_block_rows)
      : seqlen_q(a.problem.seqlen_q),
        seqlen_k(a.problem.seqlen_k),
        dim(static_cast<int>(a.problem.head_dim)),
        padded(padded_dim(a.problem.head_dim)),
        group(a.group_size()),
        key_tiles(static_cast<int>(ceil_div(a.problem.seqlen_k, kKeyTile))),
        query_blocks(static_cast<int>(ceil_div(a.problem.seqlen_q, query_block_rows))),
        scale(a.scale),
        scale_log2(a.scale * kLog2e) {}
};

inline const void* row_pointer(const TensorView& t, std::int64_t b, std::int64_t s, std::int64_t h) {
  return static_cast<const char*>(t.data) + row_offset(t, b, s, h) * static_cast<std::int64_t>(size_of(t.dtype));
}

// Rows [row_begin, row_begin + count) of head (b, h) as float32, `ld` floats apart.
inline void load_rows(const TensorView& t, std::int64_t b, std::int64_t h, std::int64_t row_begin,
                      int count, int dim, float* dst, std::int64_t ld) {
  for (int i = 0; i < count; ++i) {
    float* row = dst + i * ld;
    simd::convert_to_float(row_pointer(t, b, row_begin + i, h), t.dtype, dim, row);
    std::fill(row + dim, row + ld, 0.0f);
  }
}

// Keys [key_begin, key_begin + count) of head (b, h), transposed into a dim × kKeyTile tile.
// `scratch` holds dim floats.
inline void load_tile_transposed(const TensorView& t, std::int64_t b, std::int64_t h,
                                 std::int64_t key_begin, int count, int dim, float* dst,
                                 float* scratch) {
  for (int j = 0; j < count; ++j) {
    simd::convert_to_float(row_pointer(t, b, key_begin + j, h), t.dtype, dim, scratch);
    for (int d = 0; d < dim; ++d) dst[d * kKeyTile + j] = scratch[d];
  }
  for (int j = count; j < kKeyTile; ++j) {
    for (int d = 0; d < dim; ++d) dst[d * kKeyTile + j] = 0.0f;
  }
}

// Writes src[0, count) × factor to row (b, s, h) of `t`, rounded to its dtype.
inline void store_row(const float* src, float factor, int count, const TensorView& t, std::int64_t b,
                      std::int64_t s, std::int64_t h) {
  const std::int64_t offset = row_offset(t, b, s, h);
  if (t.dtype == DType::float32) {
    float* dst = static_cast<float*>(t.data) + offset;
    for (int i = 0; i < count; ++i) dst[i] = src[i] * factor;
    return;
  }
  for (int i = 0; i < count; ++i) store_from_float(t.data, t.dtype, offset + i, src[i] * factor);
}

// Writes zeros to rows [row_begin, row_end) of head (b, h).
inline void zero_rows(const TensorView& t, std::int64_t b, std::int64_t h, std::int64_t row_begin,
                      std::int64_t row_end, int dim) {
  for (std::int64_t s = row_begin; s < row_end; ++s) {
    for (int i = 0; i < dim; ++i) store_from_float(t.data, t.dtype, row_offset(t, b, s, h) + i, 0.0f);
  }
}

// For rows [row0, row0 + rows): the columns of the key tile starting at col0 (cols keys) that
// each row may see, relative to col0. Every mask policy lets a row see one contiguous range
// [key_begin(row), key_end(row + 1)), so edges need no per-element test.
template <class Mask>
void visible_columns(const Mask& mask, int row0, int rows, int col0, int cols, int* begin, int* end) {
  for (int r = 0; r < rows; ++r) {
    begin[r] = clamp_int(mask.key_begin(row0 + r) - col0, 0, cols);
    end[r] = clamp_int(mask.key_end(row0 + r + 1) - col0, 0, cols);
  }
}

}  // namespace fattn::detail
