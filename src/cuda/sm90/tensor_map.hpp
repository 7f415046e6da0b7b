// TMA descriptors (CUtensorMap) for attention tensors, built on the host.
//
// A (batch, seqlen, heads, head_dim) tensor with arbitrary strides becomes a 4-D tensor map
// with dimensions (head_dim, seqlen, heads, batch) innermost first and its real byte strides, so
// no copy is ever made. Boxes are 64 columns (one 128-byte swizzle row of 16-bit elements) by
// `box_rows` rows of one head of one batch; reads past seqlen or head_dim are zero-filled by the
// hardware, which is how ragged tiles and padded head-dim buckets are handled.
#pragma once

#include <cuda.h>

#include "fattn/types.hpp"

namespace fattn::detail::sm90 {

// Fills `map` for `tensor` (rank 4, float16 or bfloat16, pointer and strides 16-byte aligned:
// the selector guarantees it). `box_rows` <= 256.
Status make_attention_tensor_map(CUtensorMap* map, const TensorView& tensor, int box_rows);

// Where head h's first column lies in a heads-as-columns map's rows: column origin + h · step.
// Boxes start on 16-byte boundaries only (PTX ISA, tiled mode), so the kernel loads a head from
// the word holding that column (heads_as_columns.hpp).
struct HeadColumns {
  int origin = 0;
  int step = 0;
};

// Columns of a whole box: one 128-byte swizzle span of 16-bit elements.
inline constexpr int kSwizzleSpanColumns = 64;

// Fills `map` for `tensor` with its heads as columns (heads_as_columns.hpp): dimensions
// (row columns, seqlen, 1, batch) innermost first, the base rounded down to its 16-byte word,
// boxes of `box_columns` (a multiple of 8, at most kSwizzleSpanColumns) by `box_rows`;
// `columns` receives where each head's first column lies. A box narrower than the swizzle span
// lands in shared memory as the first `box_columns` columns of a whole box's swizzled 128-byte
// rows (bench/results/sm90-odd-h100-2026-11-23-s16/tma_probe.cu, case 3), the rest of each row
// left as it was. Needs the sequence and batch strides 16-byte multiples
// (row_alignment_bytes >= 16: the selector guarantees it).
Status make_heads_as_columns_tensor_map(CUtensorMap* map, HeadColumns* columns,
                                        const TensorView& tensor, int box_rows,
                                        int box_columns = kSwizzleSpanColumns);

// Whether a tensor map can describe `tensor` as it lies: TMA needs a 16-byte-aligned base and
// 16-byte-multiple strides for every dimension it steps over (extent > 1). The selector
// guarantees it for q, k, v and out; kernels called directly (bench shims) may get an output
// that fails it, e.g. an odd head dim in rows of odd length.
bool tensor_map_can_address(const TensorView& tensor);

// Fills `map` for a contiguous fp32 (batch, heads, rows, columns) array, dimensions innermost
// first, boxes of `box_columns` × `box_rows` with 128-byte swizzle (box_columns · 4 <= 128):
// the sm90 backward's dQ accumulator, which it adds into by TMA reductions.
Status make_fp32_rows_tensor_map(CUtensorMap* map, float* data, std::int64_t columns,
                                 std::int64_t rows, std::int64_t heads, std::int64_t batch,
                                 int box_columns, int box_rows);

}  // namespace fattn::detail::sm90
