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
// The forward replaces that last, synchronous path with UnalignedTileStage (below): aligned
// 16-byte loads realigned in registers, issued a tile ahead.
#pragma once

#include <cstdint>

#include "cuda/common/ptx_sm80.cuh"

namespace fattn::detail::sm80 {

inline constexpr int kBytesPerElement = 2;
inline constexpr int kWidest = 16;  // widest copy, bytes
inline constexpr int kMiddle = 8;
inline constexpr int kNarrow = 4;
inline constexpr int kWarpSizeForShuffles = 32;

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

// How a block's kThreads threads split the copy of a tile kWidth elements wide: each thread
// keeps one 16-byte chunk column and steps down the rows by kRowsPerPass; when that is a
// multiple of 8 its swizzle term is fixed and the addresses advance by compile-time constants.
template <int kWidth, int kThreads>
struct TileCopyLanes {
  static constexpr int kLanesPerRow = next_power_of_two(kWidth / kChunkElements);
  static constexpr int kRowsPerPass = kThreads / kLanesPerRow;
  static constexpr bool kFixedPhase = kRowsPerPass % kSwizzleChunks == 0;
  static __device__ __forceinline__ int chunk() {
    return static_cast<int>(threadIdx.x) % kLanesPerRow;
  }
  static __device__ __forceinline__ int first_row() {
    return static_cast<int>(threadIdx.x) / kLanesPerRow;
  }
};

// Loads rows [0, kRows) of a tile whose row r is at `global + r·row_stride`; rows at or past
// `valid_rows` and columns at or past `head_dim` become zeros; chunks at or past `chunks` are
// left untouched (never read). All kThreads threads of the block take part; the copies are
// asynchronous (the caller commits and waits) except on the 2-byte path.
// The threads split the copy as TileCopyLanes says.
template <int kRows, int kWidth, int kThreads, bool kFullWidth, class Element>
__device__ __forceinline__ void load_tile_rows(Element* tile, const Element* global,
                                               std::int64_t row_stride, int valid_rows,
                                               int head_dim, int chunks, int alignment) {
  using Lanes = TileCopyLanes<kWidth, kThreads>;
  constexpr int kRowsPerPass = Lanes::kRowsPerPass;
  constexpr bool kFixedPhase = Lanes::kFixedPhase;
  const int chunk = Lanes::chunk();
  const int first_row = Lanes::first_row();
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

// The passes of a copy of rows [0, kRows) that tests no row against a sequence end: calls
// copy(to, row_offset) with the shared-memory address of this thread's chunk in row
// first_row + row_offset, one call per pass (whole tiles: load_whole_tile, load_whole_chunks).
template <int kRows, int kWidth, int kThreads, class Element, class Copy>
__device__ __forceinline__ void for_each_whole_tile_pass(Element* tile, int first_row, int chunk,
                                                         Copy&& copy) {
  using Lanes = TileCopyLanes<kWidth, kThreads>;
  constexpr int kRowsPerPass = Lanes::kRowsPerPass;
  const std::uint32_t destination = smem_address(tile + swizzled_offset<kWidth>(first_row, chunk));
#pragma unroll
  for (int pass = 0; pass < (kRows + kRowsPerPass - 1) / kRowsPerPass; ++pass) {
    const int row = first_row + pass * kRowsPerPass;
    if (kRows % kRowsPerPass != 0 && row >= kRows) break;
    const std::uint32_t to =
        Lanes::kFixedPhase ? destination + pass * kRowsPerPass * kWidth * kBytesPerElement
                           : smem_address(tile + swizzled_offset<kWidth>(row, chunk));
    copy(to, pass * kRowsPerPass);
  }
}

// Copies a K/V tile whose kRows rows all lie below seqlen_k, rows 16-byte aligned: the copy
// load_tile makes, without its per-row "past the sequence end" test and the selects that follow
// it, so the chunk's source size and the address steps are the same for every pass and are
// computed once per tile. In SASS this took the D = 64 tile copy (4 LDGSTS per thread) from ~70
// instructions to ~20; the copies are a sixth of the loop's instructions at D = 64 otherwise.
template <int kRows, int kWidth, int kThreads, class Element>
__device__ __forceinline__ void load_whole_tile(Element* tile, const Element* global,
                                                std::int64_t row_stride, int head_dim,
                                                int chunks) {
  using Lanes = TileCopyLanes<kWidth, kThreads>;
  const int chunk = Lanes::chunk();
  const int first_row = Lanes::first_row();
  if (chunk >= chunks) return;
  const int column = chunk * kChunkElements;
  const int source_bytes = clamp_count(head_dim - column, kChunkElements) * kBytesPerElement;
  // A chunk entirely past head_dim reads nothing (source size 0); point it at its row start.
  const Element* source = global + first_row * row_stride + (source_bytes > 0 ? column : 0);
  for_each_whole_tile_pass<kRows, kWidth, kThreads>(
      tile, first_row, chunk, [&](std::uint32_t to, int row_offset) {
        cp_async_16(to, source + row_offset * row_stride, source_bytes);
      });
}

// This thread's source for load_whole_chunks: the first element of its chunk in its first row
// of a tile whose row 0 is at `global` (the row start for a chunk past head_dim, which reads
// nothing). Loop invariant across K/V tiles up to key·row_stride, so a kernel can compute it
// once per CTA and keep it where registers are not needed (forward tiles with
// KvSourcesInSharedMemory: in shared memory).
template <int kWidth, int kThreads, class Element>
__device__ __forceinline__ const Element* whole_chunk_source(const Element* global,
                                                             std::int64_t row_stride,
                                                             int head_dim) {
  using Lanes = TileCopyLanes<kWidth, kThreads>;
  const int column = Lanes::chunk() * kChunkElements;
  return global + Lanes::first_row() * row_stride + (column < head_dim ? column : 0);
}

// load_whole_tile for head dims that are whole chunks (head_dim % kChunkElements == 0), from this
// thread's whole_chunk_source of the tile: each chunk is read whole or zero-filled, so the copies
// take the predicate form of cp.async (no zero-fill count added to each 64-bit address) and
// their sources step by kRowsPerPass·row_stride from a pointer computed outside the loop.
template <int kRows, int kWidth, int kThreads, class Element>
__device__ __forceinline__ void load_whole_chunks(Element* tile, const Element* source,
                                                  std::int64_t row_stride, int head_dim,
                                                  int chunks) {
  using Lanes = TileCopyLanes<kWidth, kThreads>;
  const int chunk = Lanes::chunk();
  const int first_row = Lanes::first_row();
  if (chunk >= chunks) return;
  const bool zero = chunk * kChunkElements >= head_dim;
  for_each_whole_tile_pass<kRows, kWidth, kThreads>(
      tile, first_row, chunk, [&](std::uint32_t to, int row_offset) {
        cp_async_16_whole_or_zero(to, source + row_offset * row_stride, zero);
      });
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

// ---- Register-staged copy for 2-byte-aligned rows ------------------------------------------
// An odd head dim in a packed 16-bit tensor (D = 129: rows 258 bytes apart) starts each row at a
// different offset within a 16-byte word, so no cp.async width fits and the copy above falls
// back to eight synchronous 16-bit loads per chunk. This stager instead reads the ALIGNED
// 16-byte words that cover each row (one LDG.128 per chunk), takes the neighbouring word from
// the next lane (a shuffle: lanes of a row hold consecutive words), and realigns the pair in
// registers (selects and funnel shifts) before one 16-byte shared store. load() only issues the
// global loads into registers; store() realigns and writes the tile, so a kernel can put its math
// between the two and keep the overlap that cp.async gives the aligned case. The registers live
// across that math: kPasses × 4 per thread.
//
// A thread's rows are kRowsPerPass apart, a multiple of 8 rows = 16·stride bytes, so all of them
// sit at the same offset within their 16-byte words: the shift, the selects' conditions and the
// head-dim mask are computed once per call, and a pass costs 4 shuffles, ~20 integer operations
// and the store.
//
// Reads stay inside [extent.begin, extent.end), the bytes of the tensor: the first and last
// word of a row reach past the row, which is harmless inside the tensor (the neighbouring row's
// bytes, discarded) but not past its ends, so a word that would leave the tensor is read as the
// row's own 16-bit elements instead (at most the first and the last row of the tensor).
struct TensorExtent {
  const unsigned char* begin = nullptr;
  const unsigned char* end = nullptr;  // one past the tensor's last byte
};

inline constexpr int kWordBytes = 16;  // the aligned word, = one chunk
inline constexpr int kWordsPerChunk = kWordBytes / 4;
inline constexpr std::uintptr_t kWordMask = kWordBytes - 1;

// The aligned 16-byte word at `word`, of which only the bytes in [row_begin, row_end) are used.
__device__ __forceinline__ uint4 load_row_word(const unsigned char* word,
                                               const unsigned char* row_begin,
                                               const unsigned char* row_end,
                                               const TensorExtent& extent) {
  if (word >= extent.begin && word + kWordBytes <= extent.end) {
    return __ldg(reinterpret_cast<const uint4*>(word));
  }
  // At an end of the tensor: the row's own elements, by byte offsets within the word.
  const auto first = static_cast<int>(row_begin - word);  // may be negative
  const auto last = static_cast<int>(row_end - word);     // may exceed 16
  const auto* elements = reinterpret_cast<const std::uint16_t*>(word);
  std::uint32_t parts[kWordsPerChunk];
#pragma unroll
  for (int w = 0; w < kWordsPerChunk; ++w) {
    std::uint32_t bits = 0;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int byte = 4 * w + kBytesPerElement * half;
      if (byte >= first && byte < last) {
        bits |= std::uint32_t{__ldg(elements + 2 * w + half)} << (16 * half);
      }
    }
    parts[w] = bits;
  }
  return make_uint4(parts[0], parts[1], parts[2], parts[3]);
}

// How a thread's chunks sit in the aligned words: the byte offset of its rows within a 16-byte
// word, split into the realignment's steps, and which 16-bit elements of its chunk are columns
// below head_dim.
struct ChunkShift {
  bool by_two_words, by_one_word;  // offset bits 3 and 2
  unsigned bit_shift;              // (offset % 4)·8: 0 or 16
  std::uint32_t keep[kWordsPerChunk];  // per 32-bit word: mask of the columns below head_dim

  __device__ __forceinline__ ChunkShift(int offset, int valid_columns) {
    by_two_words = (offset & 8) != 0;
    by_one_word = (offset & 4) != 0;
    bit_shift = static_cast<unsigned>(offset & 3) * 8;
#pragma unroll
    for (int w = 0; w < kWordsPerChunk; ++w) {
      keep[w] = 2 * w + 1 < valid_columns ? 0xFFFFFFFFu : (2 * w < valid_columns ? 0xFFFFu : 0u);
    }
  }

  // The 16 bytes at the offset of the 32-byte pair (low, high), columns past head_dim zeroed.
  __device__ __forceinline__ uint4 apply(const uint4& low, const uint4& high) const {
    const std::uint32_t words[2 * kWordsPerChunk] = {low.x,  low.y,  low.z,  low.w,
                                                     high.x, high.y, high.z, high.w};
    std::uint32_t shifted_two[kWordsPerChunk + 2];
#pragma unroll
    for (int i = 0; i < kWordsPerChunk + 2; ++i) {
      shifted_two[i] = by_two_words ? words[i + 2] : words[i];
    }
    std::uint32_t shifted[kWordsPerChunk + 1];
#pragma unroll
    for (int i = 0; i < kWordsPerChunk + 1; ++i) {
      shifted[i] = by_one_word ? shifted_two[i + 1] : shifted_two[i];
    }
    return make_uint4(__funnelshift_r(shifted[0], shifted[1], bit_shift) & keep[0],
                      __funnelshift_r(shifted[1], shifted[2], bit_shift) & keep[1],
                      __funnelshift_r(shifted[2], shifted[3], bit_shift) & keep[2],
                      __funnelshift_r(shifted[3], shifted[4], bit_shift) & keep[3]);
  }
};

// Stages rows [0, kRows) of a tile whose row r is at `global + r·row_stride` (any 2-byte
// alignment) into the same swizzled layout as load_tile: rows at or past `valid_rows` and columns
// at or past `head_dim` become zeros, chunks at or past `chunks` are left untouched. Lanes map to
// chunks as in load_tile_rows (a row's lanes are consecutive lanes of one warp, which the
// shuffle needs). Every thread of the block must call load() and store() (shuffles).
template <int kRows, int kWidth, int kThreads>
class UnalignedTileStage {
 public:
  template <class Element>
  __device__ __forceinline__ void load(const Element* global, std::int64_t row_stride,
                                       int valid_rows, int head_dim, const TensorExtent& extent) {
    const Lane lane = this_lane(global, row_stride);
    const std::int64_t pass_bytes = kRowsPerPass * row_stride * kBytesPerElement;
    const unsigned char* word = lane.first_row_begin - lane.offset + lane.chunk * kWordBytes;
    const bool word_in_row = lane.chunk * kWordBytes < lane.offset + head_dim * kBytesPerElement;
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      words_[pass] = make_uint4(0u, 0u, 0u, 0u);
      const int row = lane.first_row + pass * kRowsPerPass;
      if ((kRows % kRowsPerPass == 0 || row < kRows) && row < valid_rows && word_in_row) {
        const unsigned char* row_begin = lane.first_row_begin + pass * pass_bytes;
        words_[pass] = load_row_word(word + pass * pass_bytes, row_begin,
                                     row_begin + head_dim * kBytesPerElement, extent);
      }
    }
  }

  template <class Element>
  __device__ __forceinline__ void store(Element* tile, const Element* global,
                                        std::int64_t row_stride, int valid_rows, int head_dim,
                                        int chunks, const TensorExtent& extent) const {
    const Lane lane = this_lane(global, row_stride);
    const ChunkShift shift(lane.offset,
                           clamp_count(head_dim - lane.chunk * kChunkElements, kChunkElements));
    // Only when a row fills every lane (a head dim within 8 of a power-of-two bucket) is the word
    // past the last lane needed; it is read here, synchronously.
    const bool needs_tail = kLastLaneNeedsTail && lane.chunk == kLanesPerRow - 1 &&
                            lane.offset != 0 &&
                            kWordBytes * kLanesPerRow < lane.offset + head_dim * kBytesPerElement;
    const std::int64_t pass_bytes = kRowsPerPass * row_stride * kBytesPerElement;
    Element* destination = tile + swizzled_offset<kWidth>(lane.first_row, lane.chunk);
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int row = lane.first_row + pass * kRowsPerPass;
      const bool in_tile = kRows % kRowsPerPass == 0 || row < kRows;
      // The next word of the row: the next lane's, except past the last lane of a row group.
      uint4 next;
      next.x = __shfl_down_sync(kFullWarp, words_[pass].x, 1, kLanesPerRow);
      next.y = __shfl_down_sync(kFullWarp, words_[pass].y, 1, kLanesPerRow);
      next.z = __shfl_down_sync(kFullWarp, words_[pass].z, 1, kLanesPerRow);
      next.w = __shfl_down_sync(kFullWarp, words_[pass].w, 1, kLanesPerRow);
      if (!in_tile || lane.chunk >= chunks) continue;
      uint4 chunk = make_uint4(0u, 0u, 0u, 0u);
      if (row < valid_rows) {
        if (needs_tail) {
          const unsigned char* row_begin = lane.first_row_begin + pass * pass_bytes;
          next = load_row_word(row_begin - lane.offset + kWordBytes * kLanesPerRow, row_begin,
                               row_begin + head_dim * kBytesPerElement, extent);
        }
        chunk = shift.apply(words_[pass], next);
      }
      // Rows kRowsPerPass apart (a multiple of 8) share the swizzle phase.
      *reinterpret_cast<uint4*>(destination + pass * kRowsPerPass * kWidth) = chunk;
    }
  }

 private:
  using Lanes = TileCopyLanes<kWidth, kThreads>;
  static constexpr int kLanesPerRow = Lanes::kLanesPerRow;
  static constexpr int kRowsPerPass = Lanes::kRowsPerPass;
  static constexpr int kPasses = (kRows + kRowsPerPass - 1) / kRowsPerPass;
  static constexpr bool kLastLaneNeedsTail = kWidth / kChunkElements == kLanesPerRow;
  static constexpr unsigned kFullWarp = 0xffffffffu;
  static_assert(kLanesPerRow <= kWarpSizeForShuffles, "a row's lanes must share a warp (shuffles)");
  static_assert(kRowsPerPass % kSwizzleChunks == 0,
                "a thread's rows must share their offset within 16-byte words and the swizzle");

  struct Lane {
    int chunk, first_row;
    const unsigned char* first_row_begin;  // the first row's first byte
    int offset;  // of every row of this thread within its 16-byte word
  };
  template <class Element>
  static __device__ __forceinline__ Lane this_lane(const Element* global,
                                                   std::int64_t row_stride) {
    Lane lane;
    lane.chunk = Lanes::chunk();
    lane.first_row = Lanes::first_row();
    lane.first_row_begin = reinterpret_cast<const unsigned char*>(global + lane.first_row * row_stride);
    lane.offset = static_cast<int>(reinterpret_cast<std::uintptr_t>(lane.first_row_begin) & kWordMask);
    return lane;
  }

  uint4 words_[kPasses];
};

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
