// Shifted windows in the sm80 backward (backward v36): rows not on 16-byte words (odd head dims
// in packed tensors) copied as whole words, as the forward's shifted windows (forward_kernel.cuh,
// forward v16 / v19) copy K and V, instead of load_tile's 4- or 8-byte cp.async and its eight
// synchronous 16-bit loads per chunk for 2-byte rows (packed D = 129: 58.7 TFLOP/s against
// 123-197 at D = 136, nineteenth session).
//
// Without a GQA group a CTA's query head is its KV head, so every Q row it reads starts at one
// element offset s_q within its 16-byte word and every dO row at one s_do (row strides of whole
// words). Per item, the Q and dO tiles take their rows' covering words by 16-byte cp.async
// (window column c + s is the row's column c), the last word read only up to the row's end (the
// copy's source size zero-fills the rest). Once per CTA, K is placed at Q's shift and V at dO's,
// zeros elsewhere (load_rows_at_shift, staged through the Q/dO tiles' area before their first
// copy), so that
//   Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ contract over matching window columns: the Q and dO fragments
//   of the first k-step are masked where they hold the previous head's elements (the window
//   columns before s; mask_window_fragment), since a neighbouring head's Inf or NaN times K's
//   zero would be NaN,
//   dV = Pᵀ·dO has dO's frame (its window column c + s_do is dV's column c),
//   dK = dSᵀ·Q and dQ = dS·K have Q's (c + s_q): the fp32 dQ accumulator holds the window
//   (BackwardParams::dq_accum_shifted) and the postprocess reads its column c + s_q.
// dV and dK take the tiles unmasked: their columns are independent products, so the elements
// before the rows reach only columns that are never stored.
// Measured alternatives (twentieth session, H100, D = 129 main kernel 11.8 ms with the first):
// zeroing the columns outside the rows in shared memory, as the forward's Q tile is, costs a
// load-AND-store chain per row pass before the item's first barrier (~860 clocks per item at
// D = 129, 8 % of the main kernel); masking the fragments of both end k-steps, the last one
// found by a run-time compare in the unrolled k-loop, cost more (12.65 ms).
// The general kernel runs its loop (the run-time head dim's k-steps) on a head dim of the CTA's
// window width, round_up(D + max(s_q, s_do), 8) (covering_width): the work of an aligned head
// dim up to 7 columns wider, often none more (D = 74's shifts are 0..6: 80 columns, 5 k-steps as
// at D = 72 or 80). The accumulator's rows are the widest window's (widest_window), rounded up
// to a k-step. Backward v38: at 128 and 256 the full-width (lean) kernel runs the windows over
// the bucket's width instead, the columns past each window zero-filled (as v37 runs 16-byte rows
// of any head dim), its accumulator rows the bucket's. The selector is uses_backward_windows
// (backward.cuh); the kernel is chosen by launch_backward_with.
#pragma once

#include <cstdint>

#include "cuda/sm80/backward_row_passes.cuh"
#include "cuda/sm80/forward_kernel.cuh"
#include "cuda/sm80/tile_io.cuh"

namespace fattn::detail::sm80 {

// The element offsets within their 16-byte words of the Q and dO rows of one (batch, head), the
// CTA's window width (covering_width at the larger shift) and its k-steps.
struct WindowShifts {
  int query = 0;
  int dout = 0;
  int width = 0;
  int steps = 0;
};

// The full-width kernel's copy of its CTA's WindowShifts (backward v38), one slot per CTA: that
// kernel reads them here where it uses them, after a barrier, instead of holding three registers
// across the item loop. Held, they spilled 4-20 bytes in its kernels at 256 (255 registers,
// sm_80 and sm_90a) and 4 at 128 (bf16, sm_80); read from the slot, none.
__device__ __forceinline__ WindowShifts& window_shifts_slot() {
  __shared__ WindowShifts slot;
  return slot;
}

template <class Element>
__device__ __forceinline__ WindowShifts window_shifts(const BackwardParams& params, int batch,
                                                      int head) {
  const auto* q = static_cast<const Element*>(params.q) + batch * params.q_strides.batch +
                  head * params.q_strides.head;
  const auto* d_o = static_cast<const Element*>(params.dout) +
                    batch * params.dout_strides.batch + head * params.dout_strides.head;
  const int query = element_shift(q);
  const int dout = element_shift(d_o);
  const int width = covering_width(query > dout ? query : dout, params.head_dim);
  return {query, dout, width, (width + kMmaK - 1) / kMmaK};
}

// Shifted windows, phase A: the Q or dO fragment of the first k-step (ldmatrix_x4 of two query
// row groups by the step's two chunks: registers 0 and 2 hold the window's first chunk, a
// thread's pair at its column 2·quad_lane) with the window columns before the row (< shift)
// zeroed. No other fragment holds elements outside the row (the copy zero-fills past the row's
// end: backward_kernel's load_item).
__device__ __forceinline__ void mask_window_fragment(std::uint32_t (&fragment)[4], int quad_lane,
                                                     int shift, int head_dim) {
  const std::uint32_t row_pairs = window_pair_mask(2 * quad_lane - shift, head_dim);
  fragment[0] &= row_pairs;
  fragment[2] &= row_pairs;
}

// K at Q's shift and V at dO's, once per CTA, staged through `stage` (kStageBytes: the Q/dO
// tiles, not yet in use). Ends with a CTA barrier (load_rows_at_shift).
template <int kRows, int kWidth, int kThreads, int kStageBytes, class Element>
__device__ __forceinline__ void load_key_value_at_shifts(Element* k_tile, Element* v_tile,
                                                         unsigned char* stage,
                                                         const BackwardParams& params,
                                                         const Element* k_rows,
                                                         const Element* v_rows, int valid_rows,
                                                         int chunks, const WindowShifts& shifts) {
  load_rows_at_shift<kRows, kWidth, kThreads, kStageBytes>(
      k_tile, stage, k_rows, params.k_strides.row, valid_rows, params.head_dim, chunks,
      shifts.query, extent_of(params.k, params.k_end));
  load_rows_at_shift<kRows, kWidth, kThreads, kStageBytes>(
      v_tile, stage, v_rows, params.v_strides.row, valid_rows, params.head_dim, chunks,
      shifts.dout, extent_of(params.v, params.v_end));
}

}  // namespace fattn::detail::sm80
