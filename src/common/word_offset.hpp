// Where a row of 16-bit elements can start inside a 16-byte word: tensors whose pointers and
// strides are `alignment_bytes` aligned (Problem::alignment_bytes) start their rows at multiples
// of alignment / 2 elements, so at most 8 - alignment / 2 elements into a word (7 for 2-byte
// rows, 6 for 4-byte, 4 for 8-byte, 0 for 16-byte). The sm80 kernels' shifted windows
// (widest_window) and the Hopper forward's heads as columns (heads_as_columns_width) size the
// columns they load by it.
#pragma once

namespace fattn::detail {

inline constexpr int kLoadWordBytes = 16;
inline constexpr int kHalfElementBytes = 2;

constexpr int largest_word_offset(long long alignment_bytes) {
  const long long clamped = alignment_bytes < kHalfElementBytes ? kHalfElementBytes
                            : alignment_bytes > kLoadWordBytes  ? kLoadWordBytes
                                                                : alignment_bytes;
  return static_cast<int>((kLoadWordBytes - clamped) / kHalfElementBytes);
}

}  // namespace fattn::detail
