// Heads as columns: how the Hopper forward reads tensors whose head stride is not a multiple of
// 16 bytes (packed odd head dims: D = 129 puts heads 258 bytes apart), which a tensor map with
// a head dimension cannot describe (TMA wants every global stride a multiple of 16 bytes).
//
// The tensor map's inner dimension becomes a whole sequence row, all heads side by side (extent
// lead + (H - 1) · head_stride + D elements from the 16-byte word holding the first element;
// `lead` is the pointer's offset in it), then seqlen and batch, whose strides are 16-byte
// multiples. A box must also *start* on a 16-byte boundary (PTX ISA, tensors, tiled mode:
// "the address of the bounding box must be aligned to 16 bytes"; a box at head h's first column,
// 2 bytes into a word, stopped an H100 with an illegal instruction), so head h's boxes start at
// the word holding its first column: the head lands in shared memory shifted by its phase
// p = (lead + h · head_stride) mod 8 columns (16-bit elements), between the previous head's last
// columns and the next head's first ones. Boxes are 64 columns wide up to the work width W; where
// W ends inside a 64-column block, that block's box is W mod 64 columns wide (forward_kernel.cuh,
// TailBoxMaps), so a row brings W columns, not the next head's columns up to the block's end.
// What that costs the kernel (forward_kernel.cuh, kHeadsAsColumns):
// - a work width covering D + the largest phase the tensors' alignment allows (7 columns for
//   2-byte rows, 6 for 4-byte, 4 for 8-byte: D = 129 at 136, inside width 144 as before; D = 74,
//   rows 4-byte aligned, at 80 instead of D + 7 = 81, which took width 96);
// - Q·Kᵀ needs a query head and its key head at the same phase (Problem::row_alignment_bytes
//   says so: packed layouts without GQA, fused qkv slices and [..., k:] views have it); the
//   consumers zero the columns [0, p) and [p + D, W) of their Q rows in shared memory once per
//   query tile, so the neighbours' K columns meet zeros;
// - V's phase shifts O's columns: P·V leaves head column c in accumulator column c + p_v, the
//   neighbours' V columns only in columns that are never stored; O leaves by the kernel's own
//   stores (a TMA store box would write into the neighbours): at work widths 144..208 staged in
//   shared memory with each row's columns moved by its output word's lead minus p_v, then whole
//   16-byte words of the row, and narrower pieces for its first and last word
//   (output_staging.cuh); elsewhere 4-byte pairs from registers (where measured faster).
// Limit: a non-finite value (Inf, NaN) in K's neighbouring columns that a box loads (the previous
// head's last p, the next head's first W - D - p) gives NaN scores for this head (0 · Inf = NaN).
// Zeroing K's padding too would cost a shared-memory pass and a barrier per key tile, on the
// GEMMs' critical path; finite neighbours (any trained model's activations) cannot leak.
//
// Host-only and CUDA-free: the selector (src/api/selector.cpp) includes it.
#pragma once

#include <algorithm>
#include <cstddef>

#include "common/word_offset.hpp"
#include "cuda/sm90/tile_config.hpp"
#include "fattn/fattn.hpp"

namespace fattn::detail::sm90 {

inline constexpr std::size_t kTmaStrideAlignmentBytes = 16;  // TMA: base address and strides
// The largest phase of a 16-bit head within its 16-byte word, in columns (2-byte rows).
inline constexpr int kMaxHeadPhase = static_cast<int>(kTmaStrideAlignmentBytes / 2) - 1;

// Buckets compiled with the heads-as-columns kernels: every bucket whose head dims can be odd in
// the odd-head-dim target (D = 65..255); bucket 64 (D <= 64) keeps its one kernel per mask and
// sends such tensors to cuda_sm80.
inline constexpr int kHeadsAsColumnsMinBucket = 128;
constexpr bool heads_as_columns_compiled(int bucket) { return bucket >= kHeadsAsColumnsMinBucket; }
// The widest heads-as-columns kernel: at width 256 the unmasked ping-pong consumers spilled
// 8 bytes (ptxas; one STL/LDL pair per key tile) with the per-tile phase arithmetic, so
// D = 242..249 at a phase stay with cuda_sm80 (D = 250..256 cannot fit the 256 bucket at all).
inline constexpr int kHeadsAsColumnsMaxWidth = 240;

// The work width a heads-as-columns launch needs: D columns at any phase its alignment allows
// (largest_word_offset).
constexpr int heads_as_columns_width(long long head_dim, std::size_t alignment_bytes) {
  return work_width(head_dim + largest_word_offset(static_cast<long long>(alignment_bytes)));
}

// Whether cuda_sm90 runs `problem` by reading heads as columns, where its tensors are not
// 16-byte aligned throughout: a forward, whose sequence and batch strides are 16-byte multiples
// with every row's heads side by side and query and key heads at the same phase, in a bucket
// compiled with those kernels that holds D columns at any phase (D <= bucket - 7 for 2-byte rows,
// and a width up to kHeadsAsColumnsMaxWidth). The backward keeps the 16-byte rule.
inline bool forward_reads_heads_as_columns(const Problem& problem) {
  const int bucket = head_dim_bucket(problem.head_dim);
  return problem.direction == Direction::forward &&
         problem.row_alignment_bytes >= kTmaStrideAlignmentBytes &&
         heads_as_columns_compiled(bucket) &&
         heads_as_columns_width(problem.head_dim, problem.alignment_bytes) <=
             std::min(bucket, kHeadsAsColumnsMaxWidth);
}

}  // namespace fattn::detail::sm90
