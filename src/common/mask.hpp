// Masks as small policy types, shared by every backend (CPU and CUDA).
//
// Coordinates: query row `row` in [0, Nq), key column `col` in [0, Nk). Following flash_attn
// (>= 2.1) the diagonal is aligned to the bottom-right corner: shift = Nk - Nq, and row i's
// diagonal sits at column i + shift.  Each policy answers two questions:
//   is_masked(row, col)          — is this score excluded? (is_masked_unbranched: the same
//                                  answer, computed without short-circuit branches)
//   key_range(row_begin, row_end) — the half-open column range [first, last) that any row in
//                                  [row_begin, row_end) can see; tiles outside it are skipped.
// A row whose range is empty is "fully masked": out = 0, lse = -inf.
#pragma once

#include <climits>

#include "common/host_device.hpp"

namespace fattn::detail {

FATTN_HOST_DEVICE int clamp_int(int value, int low, int high) {
  return value < low ? low : (value > high ? high : value);
}

// The scores a mask leaves visible as a band of offsets from the diagonal, col - row in
// [lowest, lowest + width] (wrapping, unsigned): one subtraction and one unsigned comparison per
// score, no short-circuit branches. A kernel that knows a score's offset as a per-thread base
// plus a compile-time constant tests it as base_from_lowest + constant > width
// (excludes_from_lowest), one add of an immediate and one compare.
struct DiagonalBand {
  unsigned lowest = 0;
  unsigned width = UINT_MAX;  // every offset visible

  FATTN_HOST_DEVICE bool excludes(int offset) const {
    return excludes_from_lowest(static_cast<unsigned>(offset) - lowest);
  }
  FATTN_HOST_DEVICE bool excludes_from_lowest(unsigned offset_from_lowest) const {
    return offset_from_lowest > width;
  }
};

// Every key visible to every query.
struct NoMask {
  int seqlen_q = 0;
  int seqlen_k = 0;

  FATTN_HOST_DEVICE bool is_masked(int /*row*/, int /*col*/) const { return false; }
  FATTN_HOST_DEVICE bool is_masked_unbranched(int /*row*/, int /*col*/) const { return false; }
  FATTN_HOST_DEVICE DiagonalBand diagonal_band() const { return {}; }
  FATTN_HOST_DEVICE int key_begin(int /*row_begin*/) const { return 0; }
  FATTN_HOST_DEVICE int key_end(int /*row_end*/) const { return seqlen_k; }
  // True when no score in the tile rows [r0, r1) x cols [c0, c1) is masked (no per-element
  // test needed).
  FATTN_HOST_DEVICE bool tile_is_unmasked(int, int, int, int) const { return true; }
};

// Causal, bottom-right aligned: row i sees columns j <= i + (Nk - Nq).
struct CausalMask {
  int seqlen_q = 0;
  int seqlen_k = 0;

  FATTN_HOST_DEVICE int shift() const { return seqlen_k - seqlen_q; }
  FATTN_HOST_DEVICE bool is_masked(int row, int col) const { return col > row + shift(); }
  FATTN_HOST_DEVICE bool is_masked_unbranched(int row, int col) const {
    return is_masked(row, col);
  }
  FATTN_HOST_DEVICE int key_begin(int /*row_begin*/) const { return 0; }
  FATTN_HOST_DEVICE int key_end(int row_end) const {
    return clamp_int(row_end - 1 + shift() + 1, 0, seqlen_k);
  }
  FATTN_HOST_DEVICE bool tile_is_unmasked(int r0, int /*r1*/, int /*c0*/, int c1) const {
    return c1 - 1 <= r0 + shift();
  }
};

// Sliding window (left, right); a negative bound means unbounded on that side.
// Causal with a window is WindowMask{left, 0}.
struct WindowMask {
  int seqlen_q = 0;
  int seqlen_k = 0;
  int left = -1;
  int right = -1;

  FATTN_HOST_DEVICE int shift() const { return seqlen_k - seqlen_q; }
  FATTN_HOST_DEVICE bool is_masked(int row, int col) const {
    const int diagonal = row + shift();
    return (right >= 0 && col > diagonal + right) || (left >= 0 && col < diagonal - left);
  }
  // The same answer without short circuits, so that a kernel's per-score test compiles to
  // compares and selects: one unsigned comparison of col - row against the visible band
  // [lowest, highest] of offsets from the diagonal, which depends on the mask alone (a kernel
  // computes it once); per score two subtractions and one comparison. With is_masked, nvcc built
  // the sm80 backward's per-score tests as nested branches (BSSY / BSYNC, 2 scores per block of
  // ~25 instructions): at D = 64 N = 512 causal ncu counted 6.7 M BRA against FA2's 0.4 M, the
  // branches ~10 % of the kernel's stall samples (twenty-seventh session, call 3).
  FATTN_HOST_DEVICE bool is_masked_unbranched(int row, int col) const {
    const unsigned lowest = lowest_diagonal();
    const unsigned highest = highest_diagonal();
    return static_cast<unsigned>(col - row) - lowest > highest - lowest;
  }
  FATTN_HOST_DEVICE DiagonalBand diagonal_band() const {
    return {lowest_diagonal(), highest_diagonal() - lowest_diagonal()};
  }
  // The band's ends (unbounded sides as INT_MIN / INT_MAX), as unsigned offsets col - row.
  FATTN_HOST_DEVICE unsigned lowest_diagonal() const {
    return static_cast<unsigned>(left < 0 ? INT_MIN : shift() - left);
  }
  FATTN_HOST_DEVICE unsigned highest_diagonal() const {
    return static_cast<unsigned>(right < 0 ? INT_MAX : shift() + right);
  }
  FATTN_HOST_DEVICE int key_begin(int row_begin) const {
    return left < 0 ? 0 : clamp_int(row_begin + shift() - left, 0, seqlen_k);
  }
  FATTN_HOST_DEVICE int key_end(int row_end) const {
    return right < 0 ? seqlen_k : clamp_int(row_end - 1 + shift() + right + 1, 0, seqlen_k);
  }
  FATTN_HOST_DEVICE bool tile_is_unmasked(int r0, int r1, int c0, int c1) const {
    const bool right_ok = right < 0 || c1 - 1 <= r0 + shift() + right;
    const bool left_ok = left < 0 || c0 >= r1 - 1 + shift() - left;
    return right_ok && left_ok;
  }
};

}  // namespace fattn::detail
