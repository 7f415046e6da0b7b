// The masks' branch-free tests (src/common/mask.hpp) against is_masked: is_masked_unbranched, and
// DiagonalBand in the form the sm80 backward's DiagonalBandMaskPass uses it (mask_scores_by_band:
// one per-thread offset from the band's lowest diagonal plus a constant per score), over windows
// bounded on either side, both or neither (causal is the window (unbounded, 0)), Nq below, equal
// to and above Nk, and sequences long enough for the offsets' extremes.
#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "common/mask.hpp"

namespace {

using fattn::detail::DiagonalBand;
using fattn::detail::NoMask;
using fattn::detail::WindowMask;

constexpr int kUnbounded = -1;
// A thread's block of scores in the kernel: key rows first_key + 0..kKeySpan - 1, query columns
// first_query + 0..kQuerySpan - 1 (phase A's two key tiles of 16 and four query tiles of 8 at
// D = 128).
constexpr int kKeySpan = 32;
constexpr int kQuerySpan = 32;

std::vector<WindowMask> masks_to_check() {
  std::vector<WindowMask> masks;
  const int lengths[][2] = {{1, 1}, {17, 300}, {300, 17}, {517, 389}, {389, 517}, {1013, 1013}};
  const int windows[][2] = {{kUnbounded, kUnbounded}, {kUnbounded, 0},  {kUnbounded, 40},
                            {250, kUnbounded},        {5, 3},           {0, 0},
                            {300, 200},               {kUnbounded, 1000}, {1000, kUnbounded}};
  for (const auto& length : lengths) {
    for (const auto& window : windows) {
      masks.push_back(WindowMask{length[0], length[1], window[0], window[1]});
    }
  }
  return masks;
}

TEST(MaskBand, UnbranchedMatchesIsMasked) {
  for (const WindowMask& mask : masks_to_check()) {
    for (int row = 0; row < mask.seqlen_q; ++row) {
      for (int col = 0; col < mask.seqlen_k; ++col) {
        ASSERT_EQ(mask.is_masked_unbranched(row, col), mask.is_masked(row, col))
            << "Nq " << mask.seqlen_q << " Nk " << mask.seqlen_k << " window (" << mask.left
            << ", " << mask.right << ") row " << row << " col " << col;
      }
    }
  }
}

// The kernel's form: base = (first_key - first_query) - lowest once per thread, then per score
// base + (key_offset - query_offset) against the width, and the sequence end per key row.
TEST(MaskBand, PerThreadOffsetsMatchIsMasked) {
  for (const WindowMask& mask : masks_to_check()) {
    const DiagonalBand band = mask.diagonal_band();
    for (int first_query = 0; first_query < mask.seqlen_q; first_query += kQuerySpan) {
      for (int first_key = 0; first_key < mask.seqlen_k; first_key += kKeySpan) {
        const unsigned first_from_lowest =
            static_cast<unsigned>(first_key - first_query) - band.lowest;
        const int keys_left = mask.seqlen_k - first_key;
        for (int key_offset = 0; key_offset < kKeySpan; ++key_offset) {
          for (int query_offset = 0; query_offset < kQuerySpan; ++query_offset) {
            const int row = first_query + query_offset;
            const int col = first_key + key_offset;
            const bool expected = col >= mask.seqlen_k || mask.is_masked(row, col);
            const bool masked =
                (key_offset >= keys_left) |
                band.excludes_from_lowest(first_from_lowest +
                                          static_cast<unsigned>(key_offset - query_offset));
            ASSERT_EQ(masked, expected)
                << "Nq " << mask.seqlen_q << " Nk " << mask.seqlen_k << " window (" << mask.left
                << ", " << mask.right << ") row " << row << " col " << col;
          }
        }
      }
    }
  }
}

TEST(MaskBand, NoMaskBandExcludesNothing) {
  const DiagonalBand band = NoMask{300, 17}.diagonal_band();
  for (int offset : {INT_MIN, -300, -1, 0, 1, 17, INT_MAX}) {
    EXPECT_FALSE(band.excludes(offset)) << offset;
  }
}

}  // namespace
