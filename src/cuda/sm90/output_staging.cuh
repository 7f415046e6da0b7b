// O of the Hopper forward's heads-as-columns kernels through shared memory (forward_kernel.cuh,
// kStagedOutput): each output row leaves as whole 16-byte words, and no byte outside the head's
// D columns is written.
//
// Why. A packed odd head's output row is D columns at any 2-byte offset, with the neighbouring
// heads' columns (other CTAs' outputs) on either side in the same row, so no TMA store box can
// write it (a box covers whole 16-byte units: it would write into the neighbours). The register
// stores wrote each thread's accumulator pairs where they lay: per instruction, four lanes' 16
// contiguous bytes in each of eight rows, so each 32-byte L2 sector of a row took two partial
// writes, and 2-byte stores where the pairs were not 4-byte aligned. ncu (docs/perf-notes.md,
// twenty-first session): packed D = 74 made 3.9x the L2 write sectors of aligned D = 80 with
// 2-byte stores; 4-byte pairs gained x1.05-1.15 and left about 2x.
//
// How. Each warp stages its own 16 rows of the accumulator (a m64 wgmma gives warp w rows
// 16w .. 16w + 15 of its warpgroup's 64), each row shifted so that its output words line up
// with the staged 16-byte chunks: output column c of a row whose first element lies `lead`
// columns into its 16-byte word goes to staged column c + lead, so staged chunk k of the row is
// word k of the output row (counted from the word holding column 0). Then the warp stores
// its rows' whole words, consecutive lanes on consecutive words of a row (then of the next
// row), one 16-byte store each; then each row's first and last word, which it shares with the
// neighbours, a lane each: only the row's own bytes, by the widest pieces (8, 4, 2 bytes) their
// addresses allow. A row's lead is computed from its address, row by row.
// Only the warp itself reads its staged rows, so __syncwarp orders the staging and the reading;
// who else may touch the buffer is the caller's concern (forward_kernel.cuh: the V ring behind
// the o_stored barrier).
// Where. Only where it measured faster than the 4-byte register pairs: every width of the V-ring
// buckets (forward_kernel.cuh, stages_heads_as_columns_output, with the numbers).
//
// Staged layout: the O tile's (ForwardTraits::kOOffset), as the TMA-store epilogue stages it:
// column blocks of 64 columns `block_bytes` apart, rows of kSwizzleRowBytes, 16-byte chunk c of
// row r at chunk c ^ (r % 8) (the 128-byte swizzle), so that the eight rows a warp's staging
// store touches lie in eight different groups of four banks.
//
// Needs lead + D <= kWidth for every row: the work width covers D plus the largest lead of any
// tensor of the call (heads_as_columns_width with Problem::alignment_bytes, which the API
// narrows by the output's alignment too: api.cpp narrow_alignment; the bench shims'
// alignment_of likewise).
#pragma once

#include <cstdint>

#include "cuda/common/ptx_sm90.cuh"
#include "cuda/sm90/pack_pair.cuh"
#include "cuda/sm90/tensor_map.hpp"

namespace fattn::detail::sm90 {

namespace output_staging {

inline constexpr int kLanes = 32;                // threads of a warp
inline constexpr int kRowsPerWarp = 16;          // a warp's rows of a m64 wgmma accumulator
inline constexpr int kLanesPerRow = 4;           // the accumulator's quad of lanes per row
inline constexpr int kWordBytes = 16;            // the widest store: one 16-byte word
inline constexpr int kElementBytes = 2;          // 16-bit outputs (fp16, bf16)
inline constexpr int kWordColumns = kWordBytes / kElementBytes;
// 16-byte chunks of a column block's 128-byte row; the swizzle XORs them with the row % 8.
inline constexpr int kChunksPerRow = static_cast<int>(kSwizzleRowBytes) / kWordBytes;
static_assert(kChunksPerRow * kWordColumns == kSwizzleSpanColumns,
              "a column block's row is one 128-byte swizzle row");
inline constexpr std::uint32_t kLowHalf = 0xffffu;
inline constexpr int kHalfBits = 16;

// Shared address of staged chunk `chunk` of row `row` (`rows`: the warp's row 0 in column block
// 0). The XOR with row % 8 puts the eight rows of one staging store in eight bank groups.
// Unsigned: with signed rows and chunks every / and % was the signed-division idiom.
FATTN_DEVICE std::uint32_t staged_chunk(std::uint32_t rows, std::uint32_t block_bytes,
                                        std::uint32_t row, std::uint32_t chunk) {
  return rows + (chunk / kChunksPerRow) * block_bytes + row * kSwizzleRowBytes +
         ((chunk % kChunksPerRow) ^ (row % kChunksPerRow)) * kWordBytes;
}

// The lane, as a value of its own at each call: the rows, words and addresses derived from it
// are computed in the epilogue, not hoisted out of the tile loop by the compiler (ptxas spilled
// 4-96 bytes in the 192 and 256 buckets' consumers, which have no register to spare across the
// key loop, with a slot's row and word per lane kept live from the kernel's start).
FATTN_DEVICE int opaque_lane() {
  int lane = static_cast<int>(threadIdx.x) % kLanes;
  asm volatile("" : "+r"(lane));
  return lane;
}

// Where a row's first element lies in its 16-byte word, in bytes (even: 16-bit elements).
FATTN_DEVICE int lead_bytes(const void* row) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(row) % kWordBytes);
}

// Stages this thread's accumulator columns of its two rows (lane / 4 and lane / 4 + 8 of the
// warp's rows; `warp_rows`: the warp's row 0 in column block 0), as 16-bit O / l. Accumulator
// column col holds output column col - v_phase (V's phase), which goes to staged column
// col - v_phase + lead, the lead (in columns) taken from the output row's address (`out_rows`:
// the warp's row 0 at column 0, rows `row_bytes` apart). Columns outside [0, D) are not staged
// (they hold the neighbours' V columns). Where lead - v_phase is even (the register stores'
// "word pairs"), a thread's two columns are one 4-byte store; else two 2-byte ones.
template <class Element, int kWidth>
FATTN_DEVICE void stage_rows(const float (&o)[kWidth / 2], const float (&inv_sum)[2],
                             std::uint32_t warp_rows, std::uint32_t block_bytes, int v_phase,
                             int head_dim, const std::uint8_t* out_rows, std::int64_t row_bytes) {
  static_assert(sizeof(Element) == kElementBytes, "16-bit outputs");
  const int lane = opaque_lane();
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = lane / kLanesPerRow + h * (kRowsPerWarp / 2);
    const int lead = lead_bytes(out_rows + row * row_bytes) / kElementBytes;
    const bool word_pairs = (lead - v_phase) % 2 == 0;
    // Accumulator column 8j + 2q (+ 1) goes to staged column 8j + 2q - v_phase + lead (+ 1),
    // which may be negative for columns left of the head (not staged). The per-column
    // staged address from signed columns cost ~22 instructions a store (signed divisions and
    // the swizzle redone for each of the kWidth / 4 pairs: ~4,000 of the staging's ~5,900 SASS
    // instructions at width 240; NOTES.md of bench/results/sm90-s24-ostage-prep). Here the
    // column's skew within word j - 1 (1 .. 3 * kWordColumns - 2: v_phase < kWordColumns) is
    // non-negative, so its chunk is j plus a per-row constant (-1 .. 1; chunk -1 holds only
    // columns left of the head, never stored) and the swizzle is one XOR per row and chunk % 8.
    const std::uint32_t swizzle = static_cast<std::uint32_t>(row % kChunksPerRow) * kWordBytes;
    const unsigned skew =
        static_cast<unsigned>(2 * (lane % kLanesPerRow) - v_phase + lead + kWordColumns);
    // The first element's column within its chunk (bytes) and its chunk: j + skew / 8 - 1.
    const std::uint32_t column_base =
        warp_rows + row * kSwizzleRowBytes + (skew % kWordColumns) * kElementBytes;
    const int chunk_bias = static_cast<int>(skew / kWordColumns) - 1;  // -1 .. 1
    // Pair j's staged address is chunk_address[j % 8] + (j / 8) * block_bytes: entry m holds
    // chunk m + chunk_bias's column block (-1 .. 1 blocks: where the bias carries the chunk
    // across a block's edge) and swizzled chunk, so a pair's address is a register and an
    // immediate. Opaque, so that ptxas keeps the eight per row instead of re-deriving them at
    // each pair (~4 instructions a pair: an XOR, two masks, an add).
    std::uint32_t chunk_address[kChunksPerRow];
#pragma unroll
    for (int m = 0; m < kChunksPerRow; ++m) {
      const int chunk = m + chunk_bias;  // -1 .. 8
      // Its column block, rounded down (-1 for chunk -1: the entry then serves j = 8, 16, ...),
      // and its chunk in the block (two's complement: 7 for chunk -1).
      const int block = chunk >= 0 ? chunk / kChunksPerRow : -1;
      const auto chunk_in_block = static_cast<std::uint32_t>(chunk & (kChunksPerRow - 1));
      chunk_address[m] = column_base +
                         static_cast<std::uint32_t>(block * static_cast<int>(block_bytes)) +
                         ((chunk_in_block * kWordBytes) ^ swizzle);
      asm volatile("" : "+r"(chunk_address[m]));
    }
    auto first_address = [&](int j) {
      return chunk_address[j % kChunksPerRow] + (j / kChunksPerRow) * block_bytes;
    };
    // The second element of a pair stored alone: the next column, which opens the next chunk
    // where the first closes its chunk (column_base's low bits are the column's: the staged
    // rows start on 16-byte chunks).
    const bool second_opens_chunk =
        (column_base % kWordBytes) == (kWordColumns - 1) * kElementBytes;
    auto second_address = [&](int j) {
      return second_opens_chunk
                 ? first_address(j + 1) - (kWordColumns - 1) * kElementBytes
                 : first_address(j) + kElementBytes;
    };
#pragma unroll
    for (int j = 0; j < kWidth / kWordColumns; ++j) {
      const int out_col = j * kWordColumns + 2 * (lane % kLanesPerRow) - v_phase;
      const bool first_in = static_cast<unsigned>(out_col) < static_cast<unsigned>(head_dim);
      const bool second_in = static_cast<unsigned>(out_col + 1) < static_cast<unsigned>(head_dim);
      // Accumulator registers 4j + 2h and + 1: columns 8j + 2q and + 1 of row h (q = lane % 4).
      const std::uint32_t pair = pack_pair(o[4 * j + 2 * h] * inv_sum[h],
                                           o[4 * j + 2 * h + 1] * inv_sum[h],
                                           static_cast<Element*>(nullptr));
      if (word_pairs && first_in && second_in) {
        asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(first_address(j)), "r"(pair));
        continue;
      }
      if (first_in) {
        asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(first_address(j)),
                     "h"(static_cast<std::uint16_t>(pair & kLowHalf)));
      }
      if (second_in) {
        asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(second_address(j)),
                     "h"(static_cast<std::uint16_t>(pair >> kHalfBits)));
      }
    }
  }
}

// One piece of a partial word: `bytes` (2, 4 or 8) at byte `at` of the staged chunk to the
// same byte of the output word.
template <int kBytes>
FATTN_DEVICE void copy_piece(std::uint8_t* word, std::uint32_t chunk, int at) {
  if constexpr (kBytes == 2) {
    std::uint16_t v;
    asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(v) : "r"(chunk + at));
    *reinterpret_cast<std::uint16_t*>(word + at) = v;
  } else if constexpr (kBytes == 4) {
    std::uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(chunk + at));
    *reinterpret_cast<std::uint32_t*>(word + at) = v;
  } else {
    static_assert(kBytes == 8, "pieces of 2, 4 or 8 bytes");
    uint2 v;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n" : "=r"(v.x), "=r"(v.y) : "r"(chunk + at));
    *reinterpret_cast<uint2*>(word + at) = v;
  }
}

// A piece of `kBytes` at `*at` where `*at` is not yet kBytes-aligned and the piece ends by
// `end` (rising sizes), or wherever `kBytes` are left (falling sizes); `*at` moves past it.
template <int kBytes>
FATTN_DEVICE void piece_to_alignment(std::uint8_t* word, std::uint32_t chunk, int* at, int end) {
  if ((*at & kBytes) != 0 && *at + kBytes <= end) {
    copy_piece<kBytes>(word, chunk, *at);
    *at += kBytes;
  }
}
template <int kBytes>
FATTN_DEVICE void piece_if_left(std::uint8_t* word, std::uint32_t chunk, int* at, int end) {
  if (end - *at >= kBytes) {
    copy_piece<kBytes>(word, chunk, *at);
    *at += kBytes;
  }
}

// Bytes [begin, end) of an output word (both even, 0 <= begin < end <= 16) from its staged
// chunk, by the widest aligned pieces: rising sizes while `begin`'s low bits are set (2 bytes to
// reach 4-byte alignment, then 4 to reach 8, then 8), then falling sizes for the rest; a size
// that does not fit leaves only smaller ones, to which the position is aligned. At most four
// pieces ([2, 14): 2 + 4 + 4 + 2).
FATTN_DEVICE void store_word_part(std::uint8_t* word, std::uint32_t chunk, int begin, int end) {
  int at = begin;
  piece_to_alignment<2>(word, chunk, &at, end);
  piece_to_alignment<4>(word, chunk, &at, end);
  piece_to_alignment<8>(word, chunk, &at, end);
  piece_if_left<8>(word, chunk, &at, end);
  piece_if_left<4>(word, chunk, &at, end);
  piece_if_left<2>(word, chunk, &at, end);
}

// A whole word: staged chunk `chunk` to the output word `word` (16-byte aligned) where `store`,
// by a predicated store (no branch). The load is not predicated: a predicated load leaves its
// registers' old values where it is off, so ptxas kept them live from the kernel's start (228
// bytes of spills at width 240). `chunk` is always inside the warp's staged rows (the O tile:
// V-ring bytes no other warp touches until this warp's o_stored arrival).
FATTN_DEVICE void copy_word_if(bool store, std::uint32_t chunk, std::uint8_t* word) {
  asm volatile(
      "{\n"
      " .reg .pred p;\n"
      " .reg .b32 a, b, c, d;\n"
      " .reg .b64 g;\n"
      " setp.ne.b32 p, %0, 0;\n"
      " cvta.to.global.u64 g, %2;\n"
      " ld.shared.v4.b32 {a, b, c, d}, [%1];\n"
      " @p st.global.v4.b32 [g], {a, b, c, d};\n"
      "}\n" ::"r"(static_cast<int>(store)),
      "r"(chunk), "l"(word));
}

// Stores the warp's first `rows` staged rows (0..16; `warp_rows` as in stage_rows) to the output
// rows from `out_rows` (the first row's column 0), `row_bytes` apart, each row's D columns
// exactly. The whole words first, a row a pass (two where a row has 16 words or fewer): lane l
// takes word l of the row (l % 16 of row l / 16 of the pair), so consecutive lanes store
// consecutive words of a row; kWidth / 8 words a row (lead + D <= kWidth). Then the ragged
// ones, one a lane: a row's first word where the row does not start on a word, its last where it
// does not end on one (D > 8 columns: two different words), lane 2r + e taking end e of row r
// (16 rows, 32 lanes), so the pieces' code is there once.
// Why a row a pass, not the warp's rows laid end to end (lane l on word l + 32 p of them, as
// before): the row and the word were then a division per pass and the staged chunk and the
// row's address were rebuilt from them (~25 SASS instructions a pass at width 240, ~37 with the
// branch per pass); here the word and the staged chunk's column block are the lane's, the row is
// the pass's (a constant: the staged row and its swizzle are immediates), and a pass is its
// row's address, lead, two compares and the copy (~14). More passes where a row has fewer than
// 32 words (16 instead of 9 at width 144), but fewer instructions at every width.
template <int kWidth>
FATTN_DEVICE void store_rows(std::uint32_t warp_rows, std::uint32_t block_bytes,
                             std::uint8_t* out_rows, std::int64_t row_bytes, int rows,
                             int head_dim) {
  constexpr int kWordsPerRow = kWidth / kWordColumns;
  constexpr int kLanesPerRow = kWordsPerRow > kLanes / 2 ? kLanes : kLanes / 2;
  constexpr int kRowsPerPass = kLanes / kLanesPerRow;
  static_assert(kWordsPerRow <= kLanesPerRow && kRowsPerWarp % kRowsPerPass == 0,
                "a lane for each word of a row");
  static_assert(2 * kRowsPerWarp == kLanes, "a lane for each end of each row");
  const int lane = opaque_lane();
  const int row_end_bytes = head_dim * kElementBytes;
  const unsigned word = static_cast<unsigned>(lane % kLanesPerRow);
  const unsigned pass_row = static_cast<unsigned>(lane / kLanesPerRow);
  // A lane past the row's words stores nothing (its word would start past the row's end, see
  // below) and reads its row's last chunk: inside the O tile, whose column blocks the V ring's
  // other stages (being loaded meanwhile) follow.
  const unsigned staged_k = word < kWordsPerRow ? word : kWordsPerRow - 1;
  // Staged chunk k of row r: warp_rows + r * 128 + (k / 8) * block_bytes + ((k ^ r) % 8) * 16
  // (staged_chunk), with r = first_row + pass_row, first_row a multiple of kRowsPerPass (even
  // where pass_row is not 0): the row's part of the XOR is first_row's, an immediate.
  const std::uint32_t lane_chunks =
      warp_rows + pass_row * kSwizzleRowBytes + (staged_k / kChunksPerRow) * block_bytes;
  const std::uint32_t lane_swizzle = ((staged_k ^ pass_row) % kChunksPerRow) * kWordBytes;
  std::uint8_t* const lane_row = out_rows + pass_row * row_bytes;
  const int lane_rows = rows - static_cast<int>(pass_row);
  const int word_bytes = static_cast<int>(word) * kWordBytes;
  // Word k of a row is whole in the output where it starts at or after the row's first byte and
  // ends by its last: 0 <= 16k - first_byte <= row_end_bytes - 16, one unsigned compare (D > 8
  // columns, so the bound is not negative). A lane past the row's words fails it: lead + D <=
  // kWidth puts its word's start at or past the row's end.
  const unsigned last_whole_word_offset =
      static_cast<unsigned>(row_end_bytes - kWordBytes);
#pragma unroll
  for (int first_row = 0; first_row < kRowsPerWarp; first_row += kRowsPerPass) {
    std::uint8_t* out_row = lane_row + first_row * row_bytes;
    // Word k's offset from the row's first byte (negative for a first word the row starts in).
    const int offset = word_bytes - lead_bytes(out_row);
    // Predicated, not branched over: a branch per pass cost a BSSY / BSYNC pair and reloaded the
    // store's memory descriptor in each pass; nearly every lane stores.
    const bool whole =
        first_row < lane_rows && static_cast<unsigned>(offset) <= last_whole_word_offset;
    const std::uint32_t chunk =
        lane_chunks + first_row * kSwizzleRowBytes +
        (lane_swizzle ^ static_cast<std::uint32_t>((first_row % kChunksPerRow) * kWordBytes));
    copy_word_if(whole, chunk, out_row + offset);
  }
  const int row = lane / 2;
  if (row >= rows) return;
  std::uint8_t* out_row = out_rows + row * row_bytes;
  const int first_byte = lead_bytes(out_row);
  const int last_end = first_byte + row_end_bytes;  // from the first word's start
  const bool last_end_of_row = lane % 2 != 0;
  const int k = last_end_of_row ? (last_end - 1) / kWordBytes : 0;
  // This word's bytes of the row, counted from the word's start.
  const int begin = last_end_of_row ? 0 : first_byte;
  const int end = last_end_of_row ? last_end - k * kWordBytes : kWordBytes;
  if (begin == 0 && end == kWordBytes) return;  // a whole word, stored above
  store_word_part(out_row - first_byte + k * kWordBytes,
                  staged_chunk(warp_rows, block_bytes, row, k), begin, end);
}

}  // namespace output_staging
}  // namespace fattn::detail::sm90
