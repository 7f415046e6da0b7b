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
// The forward replaces that last, synchronous path with UnalignedTileStage (below): the aligned
// 16-byte words that cover the rows, copied by cp.async a tile ahead into a staging area and
// realigned shared-to-shared.
#pragma once

#include <cstdint>
#include <type_traits>

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
// kLanesPerRowArg: by default a power of two covering the row; a copy that only ever moves a
// step class's chunks may give each row exactly that many lanes (ClassWideKvCopies in
// tile_config.hpp): the threads past the last whole row of lanes (kActiveThreads) copy nothing,
// and where kRowsPerPass is 4 mod 8 the passes alternate between two swizzle phases
// (kTwoPhases: the odd passes' addresses are the first pass's XOR 64 bytes, each advancing by
// compile-time constants; for_each_whole_tile_pass). The default map keeps its per-pass swizzle
// offsets (the 4-warp 256 tile's 4-row passes: its SASS unchanged).
template <int kWidth, int kThreads,
          int kLanesPerRowArg = next_power_of_two(kWidth / kChunkElements)>
struct TileCopyLanes {
  static constexpr int kLanesPerRow = kLanesPerRowArg;
  static constexpr int kRowsPerPass = kThreads / kLanesPerRow;
  static constexpr int kActiveThreads = kRowsPerPass * kLanesPerRow;
  static constexpr bool kFixedPhase = kRowsPerPass % kSwizzleChunks == 0;
  static constexpr bool kTwoPhases = kLanesPerRow != next_power_of_two(kWidth / kChunkElements) &&
                                     !kFixedPhase && (2 * kRowsPerPass) % kSwizzleChunks == 0;
  // `thread`: the block's thread index (a caller may pass a fresh read of it: see
  // load_whole_tile).
  static __device__ __forceinline__ int chunk(int thread = static_cast<int>(threadIdx.x)) {
    return thread % kLanesPerRow;
  }
  static __device__ __forceinline__ int first_row(int thread = static_cast<int>(threadIdx.x)) {
    return thread / kLanesPerRow;
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
                                               int head_dim, int chunks, int alignment,
                                               int thread = static_cast<int>(threadIdx.x)) {
  using Lanes = TileCopyLanes<kWidth, kThreads>;
  constexpr int kRowsPerPass = Lanes::kRowsPerPass;
  constexpr bool kFixedPhase = Lanes::kFixedPhase;
  const int chunk = Lanes::chunk(thread);
  const int first_row = Lanes::first_row(thread);
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
template <int kRows, int kWidth, int kThreads, class Lanes = TileCopyLanes<kWidth, kThreads>,
          class Element, class Copy>
__device__ __forceinline__ void for_each_whole_tile_pass(Element* tile, int first_row, int chunk,
                                                         Copy&& copy) {
  constexpr int kRowsPerPass = Lanes::kRowsPerPass;
  constexpr int kPasses = (kRows + kRowsPerPass - 1) / kRowsPerPass;
  constexpr int kPassBytes = kRowsPerPass * kWidth * kBytesPerElement;
  constexpr std::uint32_t kOtherPhaseBytes = kSwizzleChunks / 2 * kChunkElements * kBytesPerElement;
  static_assert(!Lanes::kTwoPhases || kRowsPerPass % kSwizzleChunks == kSwizzleChunks / 2,
                "two phases: passes of 4 mod 8 rows");
  const std::uint32_t destination = smem_address(tile + swizzled_offset<kWidth>(first_row, chunk));
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int row = first_row + pass * kRowsPerPass;
    if constexpr (Lanes::kTwoPhases) {
      // Only the last pass can reach past the tile (first_row < kRowsPerPass).
      if (kRows % kRowsPerPass != 0 && pass == kPasses - 1 && row >= kRows) break;
      // An odd pass's rows are 4 mod 8 further on: the other phase, the chunk XOR 4 within its
      // 128-byte group (rows start 128-byte aligned), one LOP3 instead of a second base held.
      const std::uint32_t base = pass % 2 == 0 ? destination : destination ^ kOtherPhaseBytes;
      copy(base + pass * kPassBytes, pass * kRowsPerPass);
    } else {
      if (kRows % kRowsPerPass != 0 && row >= kRows) break;
      const std::uint32_t to = Lanes::kFixedPhase
                                   ? destination + pass * kPassBytes
                                   : smem_address(tile + swizzled_offset<kWidth>(row, chunk));
      copy(to, pass * kRowsPerPass);
    }
  }
}

// Copies a K/V tile whose kRows rows all lie below seqlen_k, rows 16-byte aligned: the copy
// load_tile makes, without its per-row "past the sequence end" test and the selects that follow
// it, so the chunk's source size and the address steps are the same for every pass and are
// computed once per tile. In SASS this took the D = 64 tile copy (4 LDGSTS per thread) from ~70
// instructions to ~20; the copies are a sixth of the loop's instructions at D = 64 otherwise.
// `thread`: as TileCopyLanes; a kernel short of registers passes a fresh (opaque) read of the
// thread index, so that the copy's lane terms are rebuilt per tile, not held across its loop.
template <int kRows, int kWidth, int kThreads, class Element>
__device__ __forceinline__ void load_whole_tile(Element* tile, const Element* global,
                                                std::int64_t row_stride, int head_dim,
                                                int chunks,
                                                int thread = static_cast<int>(threadIdx.x)) {
  using Lanes = TileCopyLanes<kWidth, kThreads>;
  const int chunk = Lanes::chunk(thread);
  const int first_row = Lanes::first_row(thread);
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
template <int kWidth, int kThreads, class Lanes = TileCopyLanes<kWidth, kThreads>, class Element>
__device__ __forceinline__ const Element* whole_chunk_source(const Element* global,
                                                             std::int64_t row_stride,
                                                             int head_dim) {
  const int column = Lanes::chunk() * kChunkElements;
  return global + Lanes::first_row() * row_stride + (column < head_dim ? column : 0);
}

// load_whole_tile for head dims that are whole chunks (head_dim % kChunkElements == 0), from this
// thread's whole_chunk_source of the tile: each chunk is read whole or zero-filled, so the copies
// take the predicate form of cp.async (no zero-fill count added to each 64-bit address) and
// their sources step by kRowsPerPass·row_stride from a pointer computed outside the loop.
// `Lanes`: the lane map of whole_chunk_source's (TileCopyLanes, by default the full row's).
template <int kRows, int kWidth, int kThreads, class Lanes = TileCopyLanes<kWidth, kThreads>,
          class Element>
__device__ __forceinline__ void load_whole_chunks(Element* tile, const Element* source,
                                                  std::int64_t row_stride, int head_dim,
                                                  int chunks) {
  const int chunk = Lanes::chunk();
  const int first_row = Lanes::first_row();
  if (chunk >= chunks) return;
  if constexpr (Lanes::kActiveThreads < kThreads) {
    if (first_row >= Lanes::kRowsPerPass) return;  // past the last whole row of lanes
  }
  const bool zero = chunk * kChunkElements >= head_dim;
  for_each_whole_tile_pass<kRows, kWidth, kThreads, Lanes>(
      tile, first_row, chunk, [&](std::uint32_t to, int row_offset) {
        cp_async_16_whole_or_zero(to, source + row_offset * row_stride, zero);
      });
}

// load_whole_chunks' copy (head dims of whole chunks: each chunk read whole or zero-filled, the
// predicate form of cp.async) issued in groups of passes apart from each other
// (KeyCopiesUnderPv in tile_config.hpp): the thread's terms are computed once, then
// passes(first, count) issues passes [first, first + count) (compile-time after unrolling). The
// lane map must keep a fixed swizzle phase (each pass's destination a compile-time step from the
// first) and whole passes: kUsable, which the user asserts (the class is named in code that
// other tiles compile and discard). `issue`: whether the copy is made at all; it and the lane's
// chunk test predicate the copies instead of branching around them.
// `global`: the tile's row 0 (FromTileRows), or with FromChunkSource this thread's
// whole_chunk_source of the tile (a kernel that keeps it in shared memory:
// KvSourcesInSharedMemory).
struct FromTileRows {};
struct FromChunkSource {};
template <int kRows, int kWidth, int kThreads, class Element>
struct WholeTileCopy {
  using Lanes = TileCopyLanes<kWidth, kThreads>;
  static constexpr bool kUsable = Lanes::kFixedPhase && kRows % Lanes::kRowsPerPass == 0;
  static constexpr int kPasses = kRows / Lanes::kRowsPerPass;
  std::uint32_t destination = 0;
  const Element* source = nullptr;
  std::int64_t row_stride = 0;
  bool zero = false;
  bool active = false;

  // `head_dim` % kChunkElements == 0 (the caller's test).
  template <class Origin = FromTileRows>
  __device__ __forceinline__ WholeTileCopy(Element* tile, const Element* global,
                                           std::int64_t stride, int head_dim, int chunks,
                                           bool issue, Origin = {})
      : row_stride(stride) {
    const int chunk = Lanes::chunk();
    active = issue && chunk < chunks;
    zero = chunk * kChunkElements >= head_dim;
    if constexpr (std::is_same_v<Origin, FromChunkSource>) {
      source = global;
    } else {
      source = whole_chunk_source<kWidth, kThreads>(global, row_stride, head_dim);
    }
    destination = smem_address(tile + swizzled_offset<kWidth>(Lanes::first_row(), chunk));
  }
  __device__ __forceinline__ void passes(int first, int count) const {
#pragma unroll
    for (int pass = first; pass < first + count; ++pass) {
      if (pass < kPasses) {
        cp_async_16_whole_or_zero_if(
            active, destination + pass * Lanes::kRowsPerPass * kWidth * kBytesPerElement,
            source + pass * Lanes::kRowsPerPass * row_stride, zero);
      }
    }
  }
};

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
                                          int chunks, int alignment,
                                          int thread = static_cast<int>(threadIdx.x)) {
  if (alignment >= kWidest) {
    load_tile_rows<kRows, kWidth, kThreads, true>(tile, global, row_stride, valid_rows, head_dim,
                                                  chunks, alignment, thread);
  } else {
    load_tile_narrow<kRows, kWidth, kThreads>(tile, global, row_stride, valid_rows, head_dim,
                                              chunks, alignment);
  }
}

// ---- Shared-memory-staged copy for 2-byte-aligned rows -------------------------------------
// An odd head dim in a packed 16-bit tensor (D = 129: rows 258 bytes apart) starts each row at a
// different 2-byte offset within a 16-byte word, so no cp.async width fits the rows themselves
// and the copy above falls back to eight synchronous 16-bit loads per chunk. The ALIGNED 16-byte
// words that cover a row do fit: UnalignedTileStage copies them with 16-byte cp.async into a raw
// staging area in shared memory (load(): asynchronous, issued a tile ahead like the aligned
// kernel's copies), then realigns each chunk shared-to-shared (store(): two 16-byte loads of
// neighbouring words, a funnel shift, one 16-byte store into the swizzled tile) right before the
// tile is used. Nothing is held in registers across the math (forward v11; the register-staged
// form before it held kBlockN·kWidth/(2·kThreads) registers per thread, which forced 32-key
// tiles at 192 and 256).
//
// Stage layout: row r of the tile at r·kRowBytes, its aligned words 0..kWidth/8 (one more than
// the bucket's chunks: a row starting inside a word reaches one word further), word w of row r
// copied by the lane of chunk w of that row, the last word of a full-bucket row by the last
// lane. A row's lanes are consecutive lanes of one warp and every thread realigns only words that
// its own warp copied (its own rows, or in a step class's split other rows of the warp), so
// cp.async.wait_group + __syncwarp make them visible, and once the warp has realigned them its
// next copies may overwrite them; the kernel's tile barriers order the tiles' reuse.
//
// Zero fill comes from cp.async's source size: a word is read up to the row's last byte, the
// rest zero-filled, so columns past head_dim are zeros without a mask, and words past the row
// end read nothing. A row's bytes before its start in its first word (the previous row's) are
// shifted out. Reads stay inside [extent.begin, extent.end), the tensor's bytes: compute-
// sanitizer's memcheck counts a cp.async as reading all 16 bytes even when its source size is
// smaller (seen on the H100: a word of the tensor's last row ending 8 bytes into it was reported
// as a 16-byte read past the allocation), so a word that starts before the tensor (its first
// row, when the tensor does not start on a 16-byte boundary) or ends past it (its last row) is
// read as the row's own 16-bit elements instead (copy_word_within_tensor), and rows past
// `valid_rows` are zeroed by a shared store, not a copy (tests place tensors in allocations of
// exactly their bytes, so memcheck sees any read outside).
struct TensorExtent {
  const unsigned char* begin = nullptr;
  const unsigned char* end = nullptr;  // one past the tensor's last byte
};

inline constexpr int kWordBytes = 16;  // the aligned word, = one chunk
// The realignment works on 32-bit registers: an aligned word is kWordsPerChunk of them, and a
// byte offset inside it is a register shift (offset / kRegisterBytes) plus a funnel shift of
// (offset % kRegisterBytes) bytes (offsets are 0..15: masks and divisions by powers of two).
inline constexpr int kRegisterBytes = 4;
inline constexpr unsigned kBitsPerByte = 8;
inline constexpr int kWordsPerChunk = kWordBytes / kRegisterBytes;
inline constexpr std::uintptr_t kWordMask = kWordBytes - 1;

// Bytes per staged row of a tile kWidth elements wide (tile_config.hpp reserves them).
constexpr int staged_row_bytes(int width) {
  return (width / kChunkElements + 1) * kWordBytes;
}

__device__ __forceinline__ std::uintptr_t address_bits(const void* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer);
}

// The first `bytes` bytes of the aligned word at `word` (those inside the row, hence before the
// tensor's end) that lie at or after `tensor_begin`, loaded as 16-bit elements and stored to
// shared memory at `destination`; the rest zeros.
// Out of line, so that the key-tile loops hold a call on a path taken only there instead of its
// eight 16-bit loads (inline: several definitions, one per instance file, are one function).
inline __device__ __noinline__ void copy_word_within_tensor(std::uint32_t destination,
                                                            const unsigned char* word, int bytes,
                                                            const unsigned char* tensor_begin) {
  const auto* elements = reinterpret_cast<const std::uint16_t*>(word);
  std::uint32_t parts[kWordsPerChunk];
#pragma unroll
  for (int w = 0; w < kWordsPerChunk; ++w) {
    std::uint32_t bits = 0;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int byte = kRegisterBytes * w + kBytesPerElement * half;
      if (byte < bytes && word + byte >= tensor_begin) {
        bits |= std::uint32_t{__ldg(elements + 2 * w + half)}
                << (kBitsPerByte * kBytesPerElement * half);
      }
    }
    parts[w] = bits;
  }
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(destination), "r"(parts[0]),
               "r"(parts[1]), "r"(parts[2]), "r"(parts[3]));
}

// The 16 bytes at byte 4·kWordShift + bit_shift/8 of the 32-byte pair (low, high): the
// realignment when the word shift is known at compile time (warp-uniform offsets).
template <int kWordShift>
__device__ __forceinline__ uint4 realign_pair(const uint4& low, const uint4& high,
                                              unsigned bit_shift) {
  const std::uint32_t words[2 * kWordsPerChunk] = {low.x,  low.y,  low.z,  low.w,
                                                   high.x, high.y, high.z, high.w};
  return make_uint4(__funnelshift_r(words[kWordShift], words[kWordShift + 1], bit_shift),
                    __funnelshift_r(words[kWordShift + 1], words[kWordShift + 2], bit_shift),
                    __funnelshift_r(words[kWordShift + 2], words[kWordShift + 3], bit_shift),
                    __funnelshift_r(words[kWordShift + 3], words[kWordShift + 4], bit_shift));
}

// The same for an offset that differs between the lanes of a warp: two levels of selects (by 8
// and 4 bytes), then the funnel shift.
__device__ __forceinline__ uint4 realign_pair_selecting(const uint4& low, const uint4& high,
                                                        int offset) {
  const std::uint32_t words[2 * kWordsPerChunk] = {low.x,  low.y,  low.z,  low.w,
                                                   high.x, high.y, high.z, high.w};
  const bool by_two_words = (offset & (2 * kRegisterBytes)) != 0;
  const bool by_one_word = (offset & kRegisterBytes) != 0;
  const auto bit_shift = static_cast<unsigned>(offset & (kRegisterBytes - 1)) * kBitsPerByte;
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
  return make_uint4(__funnelshift_r(shifted[0], shifted[1], bit_shift),
                    __funnelshift_r(shifted[1], shifted[2], bit_shift),
                    __funnelshift_r(shifted[2], shifted[3], bit_shift),
                    __funnelshift_r(shifted[3], shifted[4], bit_shift));
}

// Stages rows [0, kRows) of a tile whose row r is at `global + r·row_stride` (any 2-byte
// alignment) into the same swizzled layout as load_tile: rows at or past `valid_rows` and columns
// at or past `head_dim` become zeros, chunks at or past `chunks` are left untouched. Lanes map to
// chunks as in load_tile_rows. `stage` holds kBytes.
template <int kRows, int kWidth, int kThreads>
class UnalignedTileStage {
  using Lanes = TileCopyLanes<kWidth, kThreads>;
  static constexpr int kLanesPerRow = Lanes::kLanesPerRow;
  static constexpr int kRowsPerPass = Lanes::kRowsPerPass;
  static constexpr int kPasses = (kRows + kRowsPerPass - 1) / kRowsPerPass;
  static constexpr bool kLastLaneNeedsTail = kWidth / kChunkElements == kLanesPerRow;
  static constexpr int kRealignBatch = 4;  // passes whose loads are issued together (registers)
  // A row per warp and pass: every lane of a warp has the same offset within its words, so the
  // realignment branches once on it instead of selecting per chunk.
  static constexpr bool kWarpUniformOffset = kLanesPerRow == kWarpSizeForShuffles;
  static_assert(kLanesPerRow <= kWarpSizeForShuffles, "a row's lanes must share a warp");
  static_assert(kRowsPerPass % kSwizzleChunks == 0,
                "a thread's rows must share their offset within 16-byte words and the swizzle");

 public:
  static constexpr int kRowBytes = staged_row_bytes(kWidth);
  static constexpr int kBytes = kRows * kRowBytes;

  // Issues the cp.async copies of the words (the caller commits and waits). `extent`: the bytes
  // of the tensor the rows belong to.
  template <class Element>
  static __device__ __forceinline__ void load(unsigned char* stage, const Element* global,
                                              std::int64_t row_stride, int valid_rows,
                                              int head_dim, int chunks,
                                              const TensorExtent& extent) {
    const int chunk = Lanes::chunk();
    const int first_row = Lanes::first_row();
    if (chunk > chunks) return;  // chunk c realigns words c and c + 1: words 0..chunks are read
    const auto* row_start = reinterpret_cast<const unsigned char*>(global + first_row * row_stride);
    const int offset = static_cast<int>(address_bits(row_start) & kWordMask);
    const unsigned char* word = row_start - offset + chunk * kWordBytes;
    // Bytes of this lane's word (and of the tail word past the last lane) inside the row.
    const int row_bytes = offset + head_dim * kBytesPerElement;
    const int word_bytes = clamp_count(row_bytes - chunk * kWordBytes, kWordBytes);
    const bool tail = kLastLaneNeedsTail && chunk == kLanesPerRow - 1 && chunks == kLanesPerRow;
    const int tail_bytes = clamp_count(row_bytes - kLanesPerRow * kWordBytes, kWordBytes);
    const std::int64_t pass_bytes = kRowsPerPass * row_stride * kBytesPerElement;
    const std::uint32_t destination =
        smem_address(stage + first_row * kRowBytes + chunk * kWordBytes);
    // The tile's lowest word is its row 0's first and its highest its last row's word `chunks`
    // (non-negative strides): where both lie inside the tensor and every row is below
    // valid_rows, every copy is a plain one.
    const auto* tile_word =
        reinterpret_cast<const unsigned char*>(address_bits(global) & ~kWordMask);
    const auto* last_row_word = reinterpret_cast<const unsigned char*>(
        address_bits(global + (kRows - 1) * row_stride) & ~kWordMask);
    if (valid_rows >= kRows && tile_word >= extent.begin &&
        last_row_word + (chunks + 1) * kWordBytes <= extent.end) {
#pragma unroll
      for (int pass = 0; pass < kPasses; ++pass) {
        const int row = first_row + pass * kRowsPerPass;
        if (kRows % kRowsPerPass != 0 && row >= kRows) break;
        const std::uint32_t to = destination + pass * kRowsPerPass * kRowBytes;
        cp_async_16(to, word + pass * pass_bytes, word_bytes);
        if (tail) cp_async_16(to + kWordBytes, word + pass * pass_bytes + kWordBytes, tail_bytes);
      }
      return;
    }
    // The last tile of a sequence, or one at an end of the tensor: words with nothing to read
    // (past the row, or rows past valid_rows) are zeroed by a shared store and a word reaching
    // outside the tensor takes the 16-bit loads.
    auto copy_word = [&](std::uint32_t to, const unsigned char* from, int bytes) {
      if (bytes == 0) {
        asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};\n" ::"r"(to), "r"(0u));
      } else if (from < extent.begin || from + kWordBytes > extent.end) {
        copy_word_within_tensor(to, from, bytes, extent.begin);
      } else {
        cp_async_16(to, from, bytes);
      }
    };
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int row = first_row + pass * kRowsPerPass;
      if (kRows % kRowsPerPass != 0 && row >= kRows) break;
      const bool valid = row < valid_rows;
      const std::uint32_t to = destination + pass * kRowsPerPass * kRowBytes;
      const unsigned char* from = word + pass * pass_bytes;
      copy_word(to, from, valid ? word_bytes : 0);
      if (tail) copy_word(to + kWordBytes, from + kWordBytes, valid ? tail_bytes : 0);
    }
  }

  // Realigns the staged rows into the swizzled tile. The words this thread reads must have
  // landed and be visible to it: every thread waits for its copies, then __syncwarp.
  // `global` and `row_stride` as given to load() (they give the rows' offset in their words).
  // kKnownChunks: `chunks` where the caller knows it at compile time (a step class's walk), else
  // 0; with a row per warp (192, 256) and more than half a warp of chunks it lets the warp
  // realign two rows per pass (split_rows).
  template <int kKnownChunks = 0, class Element>
  static __device__ __forceinline__ void store(Element* tile, const unsigned char* stage,
                                               const Element* global, std::int64_t row_stride,
                                               int chunks) {
    const int first_row = Lanes::first_row();
    const int offset =
        static_cast<int>(address_bits(global + first_row * row_stride) & kWordMask);
    auto realign_tile = [&](auto realign) {
      if constexpr (split_rows(kKnownChunks)) {
        realign_split_rows<kKnownChunks>(tile, stage, realign);
      } else {
        const int chunk = Lanes::chunk();
        if (chunk >= chunks) return;
        realign_passes<kPasses, kRowsPerPass>(
            tile + swizzled_offset<kWidth>(first_row, chunk),
            stage + first_row * kRowBytes + chunk * kWordBytes,
            [&](int pass) {
              return kRows % kRowsPerPass == 0 || first_row + pass * kRowsPerPass < kRows;
            },
            realign);
      }
    };
    if constexpr (kWarpUniformOffset) {
      const auto bit_shift = static_cast<unsigned>(offset & (kRegisterBytes - 1)) * kBitsPerByte;
      auto by_words = [&](auto word_shift) {
        realign_tile([&](const uint4& low, const uint4& high) {
          return realign_pair<decltype(word_shift)::value>(low, high, bit_shift);
        });
      };
      switch (offset / kRegisterBytes) {
        case 0: by_words(std::integral_constant<int, 0>{}); break;
        case 1: by_words(std::integral_constant<int, 1>{}); break;
        case 2: by_words(std::integral_constant<int, 2>{}); break;
        default: by_words(std::integral_constant<int, 3>{}); break;
      }
    } else {
      realign_tile([&](const uint4& low, const uint4& high) {
        return realign_pair_selecting(low, high, offset);
      });
    }
  }

 private:
  static constexpr int kHalfWarp = kWarpSizeForShuffles / 2;

  // A warp's rows (first_row + k·kRowsPerPass, a row per pass) share their offset within their
  // words and their swizzle phase. With a row per pass, a head dim of 129..144 (18 chunks) keeps
  // 18 of the 32 lanes busy for kPasses passes; split in two rows of 16 lanes per pass for chunks
  // 0..15 and one pass over the remaining chunks of all the warp's rows, the warp realigns the
  // same tile in kPasses/2 + 1 passes (16 -> 9 at 128 keys).
  static constexpr int rest_passes(int chunks) {
    return ((chunks - kHalfWarp) * kPasses + kWarpSizeForShuffles - 1) / kWarpSizeForShuffles;
  }
  static constexpr bool split_rows(int known_chunks) {
    return kWarpUniformOffset && known_chunks > kHalfWarp && kPasses % 2 == 0 &&
           kRows % kRowsPerPass == 0 && kPasses / 2 + rest_passes(known_chunks) < kPasses;
  }

  template <int kChunks, class Element, class Realign>
  static __device__ __forceinline__ void realign_split_rows(Element* tile,
                                                            const unsigned char* stage,
                                                            Realign&& realign) {
    const int lane = static_cast<int>(threadIdx.x) % kWarpSizeForShuffles;
    const int first_row = Lanes::first_row();
    // Chunks 0..15: half-warp h takes the warp's rows 2p + h (a pass p, rows kRowsPerPass apart).
    const int pair_row = first_row + (lane / kHalfWarp) * kRowsPerPass;
    const int pair_chunk = lane % kHalfWarp;
    realign_passes<kPasses / 2, 2 * kRowsPerPass>(
        tile + swizzled_offset<kWidth>(pair_row, pair_chunk),
        stage + pair_row * kRowBytes + pair_chunk * kWordBytes, [](int) { return true; },
        realign);
    // The chunks past 15 of every row of the warp, (row, chunk) pairs spread over the lanes.
    constexpr int kRestPerRow = kChunks - kHalfWarp;
    constexpr int kRestPairs = kRestPerRow * kPasses;
#pragma unroll
    for (int rest_pass = 0; rest_pass < rest_passes(kChunks); ++rest_pass) {
      const int pair = lane + rest_pass * kWarpSizeForShuffles;
      if (kRestPairs % kWarpSizeForShuffles != 0 && pair >= kRestPairs) break;
      const int row = first_row + (pair / kRestPerRow) * kRowsPerPass;
      const int chunk = kHalfWarp + pair % kRestPerRow;
      const auto* words =
          reinterpret_cast<const uint4*>(stage + row * kRowBytes + chunk * kWordBytes);
      *reinterpret_cast<uint4*>(tile + swizzled_offset<kWidth>(row, chunk)) =
          realign(words[0], words[1]);
    }
  }

  // kCount passes, pass i realigning the word pair at source + i·kRowStep rows into destination
  // + i·kRowStep rows (kRowStep a multiple of 8: the same swizzle phase), where in_tile(i).
  // Passes in batches of kRealignBatch: a batch's loads are all issued before its stores. The
  // compiler cannot tell the stage from the tile (both are offsets into one shared array), so
  // pass by pass it kept each pass's loads behind the previous pass's store (16 dependent
  // load -> shift -> store chains per tile at 192). Measured alone (H100, D = 129, v12): 1.006x;
  // the kernel is issue-bound, fewer passes (split_rows) are what pays.
  template <int kCount, int kRowStep, class Element, class InTile, class Realign>
  static __device__ __forceinline__ void realign_passes(Element* destination,
                                                        const unsigned char* source,
                                                        InTile&& in_tile, Realign&& realign) {
    static_assert(kRowStep % kSwizzleChunks == 0, "passes must share the swizzle phase");
#pragma unroll
    for (int batch = 0; batch < kCount; batch += kRealignBatch) {
      uint4 low[kRealignBatch], high[kRealignBatch];
#pragma unroll
      for (int b = 0; b < kRealignBatch; ++b) {
        const int pass = batch + b;
        if (pass >= kCount || !in_tile(pass)) break;
        const auto* pair = reinterpret_cast<const uint4*>(source + pass * kRowStep * kRowBytes);
        low[b] = pair[0];
        high[b] = pair[1];
      }
#pragma unroll
      for (int b = 0; b < kRealignBatch; ++b) {
        const int pass = batch + b;
        if (pass >= kCount || !in_tile(pass)) break;
        *reinterpret_cast<uint4*>(destination + pass * kRowStep * kWidth) =
            realign(low[b], high[b]);
      }
    }
  }
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
