// The sm80 forward kernel: FlashAttention-2 ordering on mma.sync tensor cores.
//
// One CTA owns a tile of kBlockM query rows of one (batch, query head) and walks the visible K/V
// tiles. Each warp owns kRowsPerWarp consecutive rows, so the running max/sum of the online
// softmax are reduced within a quad of lanes and never cross warps. Per K/V tile:
//   S = Q·Kᵀ           (A = Q from shared memory by ldmatrix, B = K by ldmatrix)
//   mask partial tiles; m' = max(m, rowmax(S)·scale·log2e); P = 2^(S·scale·log2e - m')
//   O = O·2^(m - m') + P·V   (A = P converted in registers, B = V by ldmatrix.trans)
// and at the end O /= l, LSE = ln2·(m + log2 l). The loads are pipelined FA2-style: V_j is in
// flight while S_j is computed, K_{j+1} while the softmax and P·V_j run, one buffer each.
// Head dims below the bucket skip the 16-wide k-steps and output columns past
// round_up(head_dim, 16) with one uniform branch each; a head dim that fills the bucket, or fits
// a step class of the tile (tile_config.hpp), runs a copy of the walk without those tests (1.4x
// faster at D = 128 on the H100: the P·V accumulators are then all independent;
// docs/perf-notes.md). Whole K/V tiles of 16-byte-aligned rows take a copy without per-row tests
// (load_whole_tile): with it the full-width walk fits the registers at D = 64 and 256 as well
// (forward v4, 1.1-1.4x over v3); tiles with KvSourcesInSharedMemory copy them from per-thread
// sources computed once per CTA (v6). Rows only 2-byte aligned run forward_kernel_unaligned_rows,
// whose tiles are copied as the aligned words covering their rows into a shared-memory stage and
// realigned from there (UnalignedTileStage).
#pragma once

#include <cstdint>
#include <type_traits>

#include "common/mask.hpp"
#include "common/word_offset.hpp"
#include "cuda/common/ptx_sm80.cuh"
#include "cuda/sm80/tile_config.hpp"
#include "cuda/sm80/tile_io.cuh"

namespace fattn::detail::sm80 {

inline constexpr float kLn2 = 0.693147180559945309f;
inline constexpr std::uint32_t kNegatePair = 0x80008000u;  // sign bits of two 16-bit values

// Strides in elements, as in TensorView.
struct Strides {
  std::int64_t batch = 0, row = 0, head = 0;
};

struct ForwardParams {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* out = nullptr;
  float* lse = nullptr;  // (batch, heads_q, seqlen_q), contiguous
  Strides q_strides, k_strides, v_strides, out_strides;
  int seqlen_q = 0, seqlen_k = 0, heads_q = 0, group_size = 1, head_dim = 0;
  // |scale|·log2(e); a negative scale is applied by negating the Q tile once (sign_flip: the
  // sign bits of a 16-bit pair, XORed into its words in shared memory).
  float scale_log2 = 0.0f;
  std::uint32_t sign_flip = 0;
  int alignment = 16;  // bytes: the narrowest of every pointer and row stride
  // One past the last byte of q, k and v: the 2-byte-aligned loader never reads past them.
  const void* q_end = nullptr;
  const void* k_end = nullptr;
  const void* v_end = nullptr;
  // Shifted windows: widest_window(head_dim, alignment), computed once on the host (kernel
  // arithmetic on `alignment` there measured ~1 % slower at D = 89 and 129).
  int window = 0;
};

// Rows narrower than 4-byte aligned go through UnalignedTileStage (a shared-memory stage of
// aligned words) instead of cp.async of the rows themselves.
inline constexpr int kStagedBelowAlignment = 4;

__host__ __device__ inline bool uses_staged_loads(int alignment) {
  return alignment < kStagedBelowAlignment;
}

// ---- Shifted windows (forward v16, v19): K/V rows not on 16-byte words copied as whole words,
// never realigned
// Where every row of K (and of V) of one (batch, KV head) starts at the same element s within its
// 16-byte word, the kernel copies each row's covering words, [start - s, start - s + W), straight
// into the swizzled tile with 16-byte cp.async, as the aligned kernel copies a head dim of W
// (widest_window), and never realigns them: Q·Kᵀ contracts over the window's columns
// against a Q tile placed once per CTA at K's shift (Q column d at window column d + s_k, zeros
// elsewhere), the window's other K columns are zeroed in the fragments or, where the tile says
// so, in the K tile (KeyWindowEdgesInSharedMemory; a neighbouring head's Inf or NaN times Q's
// zero would be NaN), and P·V's output column c + s_v is O's column c:
// the other columns are never stored. The aligned D = 136 kernel's loop with 24 LOP per warp
// and key tile more, instead of UnalignedTileStage's realignment of every K and V tile (rows
// 2-byte aligned) or of 4- and 8-byte cp.async (rows 4- or 8-byte aligned, v19: 2-4 times the
// copy instructions and half-filled sectors).

// The head-dim buckets are 64 apart (tools/codegen: 64, 128, 192, 256), so bucket B runs head
// dims B - 63..B: what tells a shifted walk which row ends a step class can hold.
inline constexpr int kHeadDimBucketStep = 64;

// The columns of a window that hold a row of `head_dim` elements starting `shift` into its first
// word: its whole words, round_up(shift + head_dim, 8). A copy of these reads no word past the
// row's last one; the window's words past them (at D % 8 != 1 and small shifts the row ends a
// word before the window does) are zero-filled.
__host__ __device__ constexpr int covering_width(int shift, int head_dim) {
  return (shift + head_dim + kChunkElements - 1) / kChunkElements * kChunkElements;
}

// The window of a head dim whose tensors are `alignment` bytes aligned (every pointer and stride):
// the columns that cover a row at any shift it can have, multiples of alignment / 2 elements up
// to 8 - alignment / 2 (2-byte rows: D + 7 rounded up to a word; 4-byte: D + 6; 8-byte: D + 4).
// Twentieth session: D + 7 everywhere left D = 90 (4-byte rows, window 96 now) and 202 (208)
// out of their buckets' step classes, on 4-byte cp.async at 132 TFLOP/s (D = 90, H100).
__host__ __device__ constexpr int widest_window(int head_dim, int alignment) {
  return covering_width(largest_word_offset(alignment), head_dim);
}

__host__ __device__ inline bool on_word_boundary(const void* pointer) {
  return (reinterpret_cast<std::uintptr_t>(pointer) & (kWidest - 1)) == 0;
}

// The selector of forward_kernel_shifted_windows (forward.cuh): whether a forward's rows, not
// 16-byte aligned, can run it on a tile whose largest step class spans `window_limit` columns.
// Elsewhere UnalignedTileStage's kernel runs 2-byte-aligned rows and the table's kernels, with
// 4- or 8-byte cp.async, the others.
inline bool uses_shifted_windows(const ForwardParams& params, int window_limit) {
  const int window = params.window;
  // Rows on 16-byte words take the table's whole-chunk copies of the rows themselves.
  if (params.alignment >= kWidest) return false;
  // The window must fit the tile's step class (D = 129..137 in the 9-step class of the 192
  // bucket, D = 65..89 in the 5- and 6-step classes of the 128 bucket's narrow tile, 193..201 in
  // the 256 bucket's 13-step class; rows 4- or 8-byte aligned reach D = 90 / 92, 138 / 140 and
  // 202 / 204; wider windows, up to the bucket, on WideWindowForwardConfig's classes: 10-12 and
  // 14-16 steps). Where it reaches a word past the row (D % 8 != 1 at small shifts), the copies
  // stop at the row's last word (covering_width) and zero-fill the rest.
  if (window > window_limit) return false;
  // One shift for all rows of a (batch, KV head): row strides of whole words (packed tensors
  // with H % 8 == 0). Batch and head strides may be anything: the shift is taken per CTA.
  if (params.k_strides.row % kChunkElements != 0 || params.v_strides.row % kChunkElements != 0) {
    return false;
  }
  // Every copied word inside the tensor: a row's first word starts at or after the tensor's
  // first byte and its last word ends at or before its end (memcheck counts a cp.async as 16
  // bytes read, whatever its source size; v11).
  return on_word_boundary(params.k) && on_word_boundary(params.k_end) &&
         on_word_boundary(params.v) && on_word_boundary(params.v_end);
}

__device__ __forceinline__ TensorExtent extent_of(const void* begin, const void* end) {
  return {static_cast<const unsigned char*>(begin), static_cast<const unsigned char*>(end)};
}

// A row's element offset within its 16-byte word, and the word's first element.
template <class Element>
__device__ __forceinline__ int element_shift(const Element* row) {
  return static_cast<int>(address_bits(row) & kWordMask) / kBytesPerElement;
}
template <class Element>
__device__ __forceinline__ const Element* word_start(const Element* row) {
  return reinterpret_cast<const Element*>(address_bits(row) & ~kWordMask);
}

inline constexpr std::uint32_t kLowElementBits = 0x0000ffffu;
inline constexpr std::uint32_t kHighElementBits = 0xffff0000u;

// The bits of a 32-bit pair of 16-bit elements, row columns `column` and `column` + 1, that lie
// in the row [0, head_dim); ANDed into a K fragment register, the rest become zeros.
__device__ __forceinline__ std::uint32_t window_pair_mask(int column, int head_dim) {
  const bool low = column >= 0 && column < head_dim;
  const bool high = column + 1 >= 0 && column + 1 < head_dim;
  return (low ? kLowElementBits : 0u) | (high ? kHighElementBits : 0u);
}

// Stores O's columns `column` and `column` + 1 of a row where they lie in [0, head_dim), as
// 16-bit stores (the rows may be only 2-byte aligned).
template <class Element>
__device__ __forceinline__ void store_shifted_pair(Element* row, int column, int head_dim,
                                                   float lo, float hi) {
  using Traits = ElementTraits<Element>;
  if (column >= 0 && column < head_dim) row[column] = Traits::from_float(lo);
  if (column + 1 >= 0 && column + 1 < head_dim) row[column + 1] = Traits::from_float(hi);
}

// Shifted windows: a tile with row column d at column d + shift and zeros elsewhere, once
// per CTA (the forward's Q tile at K's shift; the backward's K and V tiles at Q's and dO's
// shifts): staged through `stage` (kStageBytes of shared memory not yet in use) by
// UnalignedTileStage from `shift` elements before each row, whose leading `shift` columns (the
// previous head's elements, or bytes before the tensor) are then zeroed. Where the whole tile's
// stage does not fit the area (the 128 bucket's 128 rows of 17 words against two
// 64-key tiles), it is staged in two halves of rows. Ends with a CTA barrier: the stage may be
// overwritten, the zeros are published by the caller's next one.
template <int kRows, int kWidth, int kThreads, int kStageBytes, class Element>
__device__ __forceinline__ void load_rows_at_shift(Element* tile, unsigned char* stage,
                                                   const Element* rows, std::int64_t row_stride,
                                                   int valid_rows, int head_dim, int chunks,
                                                   int shift, const TensorExtent& extent) {
  constexpr int kPieces =
      UnalignedTileStage<kRows, kWidth, kThreads>::kBytes <= kStageBytes ? 1 : 2;
  constexpr int kPieceRows = kRows / kPieces;
  using RowStage = UnalignedTileStage<kPieceRows, kWidth, kThreads>;
  static_assert(RowStage::kBytes <= kStageBytes && kPieceRows % kSwizzleChunks == 0,
                "the stage (or each half of it) fits the area");
  const Element* window = rows - shift;
#pragma unroll
  for (int piece = 0; piece < kPieces; ++piece) {
    const Element* piece_window = window + piece * kPieceRows * row_stride;
    RowStage::load(stage, piece_window, row_stride, valid_rows - piece * kPieceRows,
                   head_dim + shift, chunks, extent);
    cp_async_commit();
    cp_async_wait<0>();
    __syncwarp();
    RowStage::store(tile + piece * kPieceRows * kWidth, stage, piece_window, row_stride, chunks);
    __syncthreads();  // every warp has read its words; every chunk is stored
  }
  auto* bits = reinterpret_cast<std::uint16_t*>(tile);
  for (int row = static_cast<int>(threadIdx.x); row < kRows; row += kThreads) {
    for (int e = 0; e < shift; ++e) bits[swizzled_offset<kWidth>(row, 0) + e] = 0;
  }
}

// Shifted windows: whether this CTA's Q rows (from `rows`) can be copied as K's are, their
// windows' words unrealigned: every row starts at K's shift (row strides of whole words) and
// every window word lies inside Q (Q starts and ends on a word, as uses_shifted_windows asks of
// K and V). Packed Q, K and V without GQA (the benchmark's shapes) are; elsewhere Q is staged
// (load_rows_at_shift).
template <class Element>
__device__ __forceinline__ bool query_rows_at_key_shift(const ForwardParams& params,
                                                        const Element* rows, int key_shift) {
  return params.q_strides.row % kChunkElements == 0 && element_shift(rows) == key_shift &&
         on_word_boundary(params.q) && on_word_boundary(params.q_end);
}

// Shifted windows: zeroes the window columns of a tile, copied by load_tile from its rows' first
// words, that lie outside the rows [shift, shift + head_dim) (the previous row's elements before a
// row, the next row's after it: a neighbour's Inf or NaN times K's masked zeros would be NaN).
// Each thread zeroes its own chunks of load_tile's lane split once its own copies have landed
// (cp.async.wait_group makes them visible to it): no barrier before, the walk's first one
// publishes the zeros. Only the window's first and last chunks hold such columns.
// kLoadsFirst: every pass's word read before any is written back (the K tiles of
// KeyWindowEdgesInSharedMemory, once per K/V tile before the tile's barrier): ptxas does not move
// a shared-memory load above an earlier store, so the passes' read-modify-writes otherwise run
// one after another, a load latency each.
template <int kRows, int kWidth, int kThreads, bool kLoadsFirst = false, class Element>
__device__ __forceinline__ void zero_outside_window_rows(Element* tile, int shift, int head_dim) {
  using Lanes = TileCopyLanes<kWidth, kThreads>;
  constexpr int kRowsPerPass = Lanes::kRowsPerPass;
  const int column = Lanes::chunk() * kChunkElements - shift;  // the chunk's first row column
  // Chunks wholly inside the row, and those past it (zero-filled or never copied), keep theirs.
  if ((column >= 0 && column + kChunkElements <= head_dim) || column >= head_dim) return;
  constexpr int kPairsPerChunk = kChunkElements / 2;  // 32-bit pairs of 16-bit elements
  std::uint32_t keep[kPairsPerChunk];
#pragma unroll
  for (int pair = 0; pair < kPairsPerChunk; ++pair) {
    keep[pair] = window_pair_mask(column + 2 * pair, head_dim);
  }
  const auto word_of_pass = [&](int pass) {
    const int row = Lanes::first_row() + pass * kRowsPerPass;
    return reinterpret_cast<uint4*>(tile + swizzled_offset<kWidth>(row, Lanes::chunk()));
  };
  const auto kept = [&](uint4 value) {
    value.x &= keep[0];
    value.y &= keep[1];
    value.z &= keep[2];
    value.w &= keep[3];
    return value;
  };
  if constexpr (kLoadsFirst) {
    static_assert(kRows % kRowsPerPass == 0, "whole passes");
    constexpr int kPasses = kRows / kRowsPerPass;
    uint4* words[kPasses];
    uint4 values[kPasses];
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      words[pass] = word_of_pass(pass);
      values[pass] = *words[pass];
    }
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) *words[pass] = kept(values[pass]);
  } else {
#pragma unroll
    for (int pass = 0; pass < (kRows + kRowsPerPass - 1) / kRowsPerPass; ++pass) {
      if (kRows % kRowsPerPass != 0 && Lanes::first_row() + pass * kRowsPerPass >= kRows) break;
      uint4* word = word_of_pass(pass);
      *word = kept(*word);
    }
  }
}

__device__ __forceinline__ float quad_max(float value) {
  value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, 1));
  return fmaxf(value, __shfl_xor_sync(0xffffffffu, value, 2));
}

__device__ __forceinline__ float quad_sum(float value) {
  value += __shfl_xor_sync(0xffffffffu, value, 1);
  return value + __shfl_xor_sync(0xffffffffu, value, 2);
}

__device__ __forceinline__ int ceil_div(int a, int b) { return (a + b - 1) / b; }

// blockIdx and threadIdx read afresh where they are needed (a volatile read is neither merged with an
// earlier one nor moved): what is computed from them is not held in registers across a loop.
__device__ __forceinline__ int fresh_block_index_x() {
  int value;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(value));
  return value;
}
__device__ __forceinline__ int fresh_block_index_y() {
  int value;
  asm volatile("mov.u32 %0, %%ctaid.y;" : "=r"(value));
  return value;
}
__device__ __forceinline__ int fresh_block_index_z() {
  int value;
  asm volatile("mov.u32 %0, %%ctaid.z;" : "=r"(value));
  return value;
}
__device__ __forceinline__ int fresh_thread_index_x() {
  int value;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(value));
  return value;
}

// A CTA's query tile, query head and batch.
struct ForwardCtaTile {
  int m_block;
  int head;
  int batch;
};

// Whether a query tile's visible keys grow with its index (a right edge: causal, or a window with
// one), the masks under which the launch gives a QueryTilesSlowestInHeadGroups tile its grid.
__host__ __device__ __forceinline__ bool work_grows_with_query_tile(const NoMask&) { return false; }
__host__ __device__ __forceinline__ bool work_grows_with_query_tile(const WindowMask& mask) {
  return mask.right >= 0;
}

// The tile of the CTA at block index (x, y, z) in the grid order: the query tile fastest, the
// last (heaviest under a causal mask) first.
__device__ __forceinline__ ForwardCtaTile grid_order_tile(unsigned x, unsigned y, unsigned z) {
  return {static_cast<int>(gridDim.x - 1 - x), static_cast<int>(y), static_cast<int>(z)};
}

// The same in the head-group grid of QueryTilesSlowestInHeadGroups, (kGroupHeads·m_blocks,
// heads / kGroupHeads, batch) (forward_grid): x walks the group's kGroupHeads query heads fastest
// and the query tile slowest, heaviest first. A power of two, so no division.
template <unsigned kGroupHeads>
__device__ __forceinline__ ForwardCtaTile query_tile_slowest_in_group(unsigned x, unsigned y,
                                                                     unsigned z) {
  static_assert((kGroupHeads & (kGroupHeads - 1)) == 0, "a power of two");
  const unsigned m_blocks = gridDim.x / kGroupHeads;
  return {static_cast<int>(m_blocks - 1 - x / kGroupHeads),
          static_cast<int>(y * kGroupHeads + x % kGroupHeads), static_cast<int>(z)};
}

// Whether the launch gave this CTA the head-group grid: its y extent then counts groups of
// kGroupHeads query heads (in the grid order, every query head: never heads_q / kGroupHeads).
template <unsigned kGroupHeads>
__device__ __forceinline__ bool in_head_group_grid(int heads_q) {
  return gridDim.y * kGroupHeads == static_cast<unsigned>(heads_q);
}

// A tile under the head-group order: this thread's copy of its CTA's first query row, read per
// K/V tile (tile_config.hpp, QueryTilesSlowestInHeadGroups).
template <class Config>
__device__ __forceinline__ int& query_row_slot(unsigned char* shared) {
  return reinterpret_cast<int*>(shared + Config::kQueryRowSlotOffset)[threadIdx.x];
}

// `value`, as something the compiler cannot see through: what is computed from it stays where it
// is written (an empty volatile asm is not moved out of a loop).
__device__ __forceinline__ int opaque(int value) {
  asm volatile("" : "+r"(value));
  return value;
}

constexpr float kNegativeInfinity = -__builtin_huge_valf();

// Compile-time tag of a walk over the K/V tiles: kValue > 0 runs exactly kValue 16-wide k-steps
// with no run-time column tests in P·V (a step class of the tile configuration); 0 is the
// general walk, which tests every step against the head dim at run time.
// kHalfLast (HalfLastStep tiles): the last k-step covers 8 columns only (head_dim % 16 in 1..8),
// run as m16n8k8 in Q·Kᵀ and as the pair's first 8-column tile alone in P·V.
template <int kValue, bool kHalfLast = false>
struct FixedSteps {
  static constexpr int value = kValue;
  static constexpr bool half_last = kHalfLast;
};

// The smallest of the ascending step classes that covers `steps`, or 0 (the general walk).
template <int... kClasses>
__device__ __forceinline__ int step_class_for(int steps, StepClasses<kClasses...>) {
  int chosen = 0;
  ((chosen = (chosen == 0 && steps <= kClasses) ? kClasses : chosen), ...);
  return chosen;
}

// Calls walk(FixedSteps<c>{}) for the class c chosen by step_class_for (0: FixedSteps<0>).
template <class Walk>
__device__ __forceinline__ void walk_step_class(Walk& walk, int, StepClasses<>) {
  walk(FixedSteps<0>{});
}
template <class Walk, int kFirst, int... kRest>
__device__ __forceinline__ void walk_step_class(Walk& walk, int chosen,
                                                StepClasses<kFirst, kRest...>) {
  if (chosen == kFirst) {
    walk(FixedSteps<kFirst>{});
  } else {
    walk_step_class(walk, chosen, StepClasses<kRest...>{});
  }
}

// As walk_step_class, for a class list whose last class covers every head dim of the bucket:
// that class is taken without a test and the general walk is not compiled.
template <class Walk, int kOnly>
__device__ __forceinline__ void walk_step_class_covering(Walk& walk, int, StepClasses<kOnly>) {
  walk(FixedSteps<kOnly>{});
}
template <class Walk, int kFirst, int kSecond, int... kRest>
__device__ __forceinline__ void walk_step_class_covering(Walk& walk, int chosen,
                                                         StepClasses<kFirst, kSecond, kRest...>) {
  if (chosen == kFirst) {
    walk(FixedSteps<kFirst>{});
  } else {
    walk_step_class_covering(walk, chosen, StepClasses<kSecond, kRest...>{});
  }
}

// The running row max and sum of the online softmax, per (row tile, 8-row half): in registers,
// or, for a tile with kRowStatsInSharedMemory (RowStatsInSharedMemory in tile_config.hpp), in
// shared memory past the K/V tiles, one word per thread and value (consecutive threads,
// consecutive words: no bank conflicts). They are touched once per K/V tile, so the registers
// they free are worth more to the walk than the shared-memory round trips cost.
template <class Config, bool kInShared = row_stats_in_shared_memory<Config>()>
struct RowStatistics {
  float max_[Config::kRowTiles][2];
  float sum_[Config::kRowTiles][2];
  __device__ __forceinline__ explicit RowStatistics(unsigned char*) {}
  __device__ __forceinline__ float& max(int mt, int half) { return max_[mt][half]; }
  __device__ __forceinline__ float& sum(int mt, int half) { return sum_[mt][half]; }
};
template <class Config>
struct RowStatistics<Config, true> {
  float* own;  // this thread's first word
  __device__ __forceinline__ explicit RowStatistics(unsigned char* shared)
      : own(reinterpret_cast<float*>(shared + Config::kRowStatsOffset) + threadIdx.x) {}
  __device__ __forceinline__ float& max(int mt, int half) {
    return own[(2 * mt + half) * Config::kThreads];
  }
  __device__ __forceinline__ float& sum(int mt, int half) {
    return own[(2 * Config::kRowTiles + 2 * mt + half) * Config::kThreads];
  }
};

// ldmatrix row addresses of a swizzled tile in ONE register (FragmentAddress holds four): the 4
// chunk phases of a 128-byte group differ from phase 0 by an XOR with 32·phase (the swizzle
// permutes chunk pairs) and rows start 128-byte aligned, so phase p's address is first ^ 32p, one
// LOP3 per ldmatrix of a phase other than 0.
template <int kWidth>
struct XorFragmentAddress {
  std::uint32_t first;
  template <class Element>
  __device__ __forceinline__ XorFragmentAddress(const Element* tile, int row, int chunk_in_step) {
    first = smem_address(tile + swizzled_offset<kWidth>(row, chunk_in_step));
  }
  // `step` and `rows` must be compile-time constants after unrolling; rows % 8 == 0.
  __device__ __forceinline__ std::uint32_t at(int step, int rows) const {
    constexpr int kRowBytes = kWidth * kBytesPerElement;
    constexpr int kPhaseBytes = 2 * kChunkElements * kBytesPerElement;
    constexpr int kGroupBytes = kSwizzleChunks * kChunkElements * kBytesPerElement;
    return (first ^ static_cast<std::uint32_t>((step % 4) * kPhaseBytes)) + rows * kRowBytes +
           (step / 4) * kGroupBytes;
  }
};

// Flips the sign of the first `chunks` chunks of every row of a tile in shared memory (the tile
// must be complete and visible to the block; the caller's next barrier publishes the result).
// A negative softmax scale is applied to Q once per CTA this way instead of on every Q fragment
// of every K/V tile (32 LOP3 per tile at D = 64).
template <int kRows, int kWidth, int kThreads, class Element>
__device__ __forceinline__ void negate_tile(Element* tile, int chunks) {
  constexpr int kChunksPerRow = kWidth / kChunkElements;
  for (int index = static_cast<int>(threadIdx.x); index < kRows * kChunksPerRow;
       index += kThreads) {
    const int row = index / kChunksPerRow;
    const int chunk = index % kChunksPerRow;
    if (chunk < chunks) {
      auto* word = reinterpret_cast<uint4*>(tile + swizzled_offset<kWidth>(row, chunk));
      uint4 bits = *word;
      bits.x ^= kNegatePair;
      bits.y ^= kNegatePair;
      bits.z ^= kNegatePair;
      bits.w ^= kNegatePair;
      *word = bits;
    }
  }
}

// The max of scores[nt][e] and scores[nt][e + 1] over the key tiles nt in [kBegin, kEnd), as a
// tree of pairs (RowMaxByPairs in tile_config.hpp): every index a constant, so the scores stay
// in registers.
template <int kBegin, int kEnd, int kKeyTiles>
__device__ __forceinline__ float pairwise_tile_max(const float (&scores)[kKeyTiles][4], int e) {
  if constexpr (kEnd - kBegin == 1) {
    return fmaxf(scores[kBegin][e], scores[kBegin][e + 1]);
  } else {
    constexpr int kMiddle = (kBegin + kEnd) / 2;
    return fmaxf(pairwise_tile_max<kBegin, kMiddle>(scores, e),
                 pairwise_tile_max<kMiddle, kEnd>(scores, e));
  }
}

// The body of both forward kernels (one CTA). kStaged: the rows are only 2-byte aligned
// (uses_staged_loads), so tiles are copied by UnalignedTileStage: cp.async of the aligned words
// covering the rows into the Config's stage (tile_config.hpp, SharedMemoryStage), realigned into
// the swizzled tile right before the barrier that publishes it, and the next tile's copies issued
// by each warp right after its own realignment, before that barrier (v12: +3.5 % at D = 129 over
// issuing them after it, as the aligned kernel does). Realigning V after the softmax instead
// (K's copy then issued after it) lost 5 %: the wait and the realignment's branches kept ptxas
// from interleaving it with the softmax, and K's copy had only P·V left to land.
// kShifted: forward_kernel_shifted_windows (shifted windows, uses_shifted_windows).
template <class Config, class Element, class Mask, bool kStaged, bool kShifted = false>
__device__ __forceinline__ void forward_cta(const ForwardParams& params, const Mask& mask) {
  using Traits = ElementTraits<Element>;
  constexpr int kWidth = Config::kWidth;
  constexpr int kBlockM = Config::kBlockM;
  constexpr int kBlockN = Config::kBlockN;
  constexpr int kRowTiles = Config::kRowTiles;
  constexpr int kKeyTiles = kBlockN / kMmaN;       // 8-key column tiles of S
  constexpr int kDimTiles = kWidth / kMmaN;        // 8-wide column tiles of O
  constexpr int kMaxSteps = kWidth / kMmaK;        // 16-deep k-steps over the head dim
  // A negative scale: the kernels negate the Q tile once per CTA, except the 2-byte-row kernel
  // at 256, which XORs the sign into each Q fragment (its time goes to the staged loads):
  // ptxas -v, sm_80, that kernel spills 8 bytes with the tile negation, and the 128 one 4 bytes
  // with the XOR; each as chosen here, 0 on sm_80 and sm_90a.
  constexpr bool kNegateQTile = !kStaged || kWidth != 256;

  extern __shared__ __align__(128) unsigned char shared_bytes[];
  Element* q_tile = reinterpret_cast<Element*>(shared_bytes);
  Element* k_tile = q_tile + kBlockM * kWidth;
  Element* v_tile = k_tile + kBlockN * kWidth;

  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int group = lane / 4;    // mma fragment row within an 8-row half
  const int quad_lane = lane % 4;  // mma fragment column pair

  // Heaviest causal tiles (the last query rows) first, so the tail of the grid is light.
  constexpr bool kHeadGroupOrder =
      query_tiles_slowest_in_head_groups<Config>() && !std::is_same_v<Mask, NoMask>;
  // This CTA's tile at block index (x, y, z) (tile_config.hpp, QueryTilesSlowestInHeadGroups).
  auto cta_tile_at = [&](auto x, auto y, auto z) {
    if constexpr (kHeadGroupOrder) {
      if (in_head_group_grid<Config::kGroupHeads>(params.heads_q)) {
        return query_tile_slowest_in_group<Config::kGroupHeads>(x, y, z);
      }
    }
    return grid_order_tile(x, y, z);
  };
  const ForwardCtaTile cta_tile = cta_tile_at(blockIdx.x, blockIdx.y, blockIdx.z);
  const int m_block = cta_tile.m_block;
  const int head = cta_tile.head;
  const int batch = cta_tile.batch;
  // The same from fresh block indices (register-lean tiles under the head-group order).
  [[maybe_unused]] auto fresh_cta_tile = [&] {
    return cta_tile_at(fresh_block_index_x(), fresh_block_index_y(), fresh_block_index_z());
  };
  const int kv_head = head / params.group_size;
  const int row_begin = m_block * kBlockM;
  const int row_end = min(row_begin + kBlockM, params.seqlen_q);

  static_assert(!(kStaged && kShifted), "one loader");
  // Shifted windows: the walk and the copies see rows of the window's width.
  const int head_dim = kShifted ? params.window : params.head_dim;
  const int steps = ceil_div(head_dim, kMmaK);   // k-steps (and 16-wide O column pairs) in use
  using Classes = typename Config::StepClassList;
  const int step_class = step_class_for(steps, Classes{});
  // A step class above the head dim's steps multiplies zero columns of V: loaded as zeros (the
  // loaders zero-fill the columns past head_dim up to 8·chunks).
  const int chunks = max(steps, step_class) * (kMmaK / kChunkElements);
  const int alignment = kShifted ? kWidest : params.alignment;

  const auto* q_global = static_cast<const Element*>(params.q) + batch * params.q_strides.batch +
                         row_begin * params.q_strides.row + head * params.q_strides.head;
  // The rows of K or V of this (batch, KV head). A register-lean tile recomputes them from the
  // block index where they are used (a few integer operations per K/V tile) instead of holding
  // two 64-bit pointers across the loop.
  auto kv_head_rows = [&](const void* tensor, const Strides& strides) {
    int batch_index = batch;
    int kv_head_index = kv_head;
    if constexpr (fewer_live_registers<Config>() && kHeadGroupOrder) {
      const ForwardCtaTile fresh = fresh_cta_tile();
      batch_index = fresh.batch;
      kv_head_index = fresh.head / params.group_size;
    } else if constexpr (fewer_live_registers<Config>()) {
      batch_index = fresh_block_index_z();
      kv_head_index = fresh_block_index_y() / params.group_size;
    }
    return static_cast<const Element*>(tensor) + batch_index * strides.batch +
           kv_head_index * strides.head;
  };
  // Shifted windows: from the first word of the rows (the row start less its shift).
  auto kv_rows_of = [&](const void* tensor, const Strides& strides) {
    const Element* rows = kv_head_rows(tensor, strides);
    if constexpr (kShifted) rows = word_start(rows);
    return rows;
  };
  const auto* k_global = kv_rows_of(params.k, params.k_strides);
  const auto* v_global = kv_rows_of(params.v, params.v_strides);
  auto k_rows_in_loop = [&] {
    if constexpr (fewer_live_registers<Config>()) {
      return kv_rows_of(params.k, params.k_strides);
    } else {
      return k_global;
    }
  };
  auto v_rows_in_loop = [&] {
    if constexpr (fewer_live_registers<Config>()) {
      return kv_rows_of(params.v, params.v_strides);
    } else {
      return v_global;
    }
  };

  if constexpr (kHeadGroupOrder) query_row_slot<Config>(shared_bytes) = row_begin;
  // Shifted windows: K's shift, where the Q tile's columns go and which of the walk's K fragment
  // columns lie in the row (window_pair_mask).
  [[maybe_unused]] int key_shift = 0;
  if constexpr (kShifted) key_shift = element_shift(kv_head_rows(params.k, params.k_strides));
  // Where K's columns outside the row are zeroed: in each K tile in shared memory
  // (KeyWindowEdgesInSharedMemory), or in the walk's first- and last-step K fragments.
  constexpr bool kKeyEdgesInShared = kShifted && key_window_edges_in_shared_memory<Config>();
  constexpr bool kKeyFragmentMasks = kShifted && !kKeyEdgesInShared;
  // The columns each K, V (and Q) tile copy reads: head_dim, or for shifted windows the words
  // that hold the rows (covering_width), which at D % 8 != 1 may be one word short of the window.
  [[maybe_unused]] int key_copy_width = head_dim;
  [[maybe_unused]] int value_copy_width = head_dim;
  if constexpr (kShifted) {
    key_copy_width = covering_width(key_shift, params.head_dim);
    value_copy_width = covering_width(
        element_shift(kv_head_rows(params.v, params.v_strides)), params.head_dim);
  }

  const int key_begin = mask.key_begin(row_begin);
  const int key_end = mask.key_end(row_end);
  const int n_first = key_begin / kBlockN;
  const int n_last = key_end > key_begin ? ceil_div(key_end, kBlockN) : n_first;

  // The staged kernel's K/V stage (shared memory past the tiles). The cp.async kernel has none,
  // so its tile need not meet the stage's lane geometry (a 4-warp tile at 256 does not).
  struct NoTileStage {};
  using KvStage = std::conditional_t<kStaged, UnalignedTileStage<kBlockN, kWidth, Config::kThreads>,
                                     NoTileStage>;
  [[maybe_unused]] unsigned char* kv_stage = nullptr;
  if constexpr (kStaged) {
    static_assert(Config::kStageOffset == (kBlockM + 2 * kBlockN) * kWidth * kBytesPerElement,
                  "the stage follows the V tile: the Q stage spans K, V and the stage");
    static_assert(Config::kStageBytes == KvStage::kBytes, "the Config reserves the K/V stage");
    using QStage = UnalignedTileStage<kBlockM, kWidth, Config::kThreads>;
    static_assert(QStage::kBytes <= 2 * kBlockN * kWidth * kBytesPerElement + KvStage::kBytes,
                  "the Q stage fits where K, V and their stage will be");
    kv_stage = shared_bytes + Config::kStageOffset;
    // Q is staged where the K and V tiles and the stage will be; each warp realigns only rows
    // it copied, so a warp barrier publishes them and one CTA barrier frees the area for K.
    auto* q_stage = reinterpret_cast<unsigned char*>(k_tile);
    QStage::load(q_stage, q_global, params.q_strides.row, row_end - row_begin, head_dim, chunks,
                 extent_of(params.q, params.q_end));
    cp_async_commit();
    cp_async_wait<0>();
    __syncwarp();
    QStage::store(q_tile, q_stage, q_global, params.q_strides.row, chunks);
    __syncthreads();  // every warp has read its Q words before K's land on them
    if (n_first < n_last) {
      const int key0 = n_first * kBlockN;
      KvStage::load(kv_stage, k_global + key0 * params.k_strides.row, params.k_strides.row,
                    params.seqlen_k - key0, head_dim, chunks, extent_of(params.k, params.k_end));
    }
    cp_async_commit();
  } else {
    // Q and the first K tile; with WholePrologueCopies (tile_config.hpp), whole tiles of
    // 16-byte-aligned rows by load_whole_tile, without load_tile's per-row sequence-end tests.
    auto load_first_tile = [&](auto rows, Element* tile, const Element* global,
                               std::int64_t row_stride, int valid_rows, int width) {
      constexpr int kRows = decltype(rows)::value;
      if constexpr (whole_prologue_copies<Config>()) {
        if (alignment >= kWidest && valid_rows >= kRows) {
          load_whole_tile<kRows, kWidth, Config::kThreads>(tile, global, row_stride, width,
                                                           chunks);
          return;
        }
      }
      load_tile<kRows, kWidth, Config::kThreads>(tile, global, row_stride, valid_rows, width,
                                                 chunks, alignment);
    };
    // Shifted windows: Q's windows copied as K's where its rows start at K's shift, in a commit
    // group of their own beside the first K tile, instead of v16's stage, whose DRAM round trip,
    // realignment and barrier came before K's first copy was issued; elsewhere staged as then.
    [[maybe_unused]] bool query_windows = false;
    if constexpr (kShifted) {
      query_windows = query_rows_at_key_shift(params, q_global, key_shift);
      if (query_windows) {
        load_first_tile(std::integral_constant<int, kBlockM>{}, q_tile, word_start(q_global),
                        params.q_strides.row, row_end - row_begin, key_copy_width);
        cp_async_commit();
      } else {
        load_rows_at_shift<kBlockM, kWidth, Config::kThreads,
                           2 * kBlockN * kWidth * kBytesPerElement>(
            q_tile, reinterpret_cast<unsigned char*>(k_tile), q_global, params.q_strides.row,
            row_end - row_begin, params.head_dim, chunks, key_shift,
            extent_of(params.q, params.q_end));
      }
    } else {
      load_first_tile(std::integral_constant<int, kBlockM>{}, q_tile, q_global,
                      params.q_strides.row, row_end - row_begin, head_dim);
    }
    if (n_first < n_last) {
      const int key0 = n_first * kBlockN;
      load_first_tile(std::integral_constant<int, kBlockN>{}, k_tile,
                      k_global + key0 * params.k_strides.row, params.k_strides.row,
                      params.seqlen_k - key0, key_copy_width);
    }
    cp_async_commit();
    if constexpr (kShifted) {
      if (query_windows) {
        cp_async_wait<1>();  // this thread's Q words (K's may still be in flight)
        zero_outside_window_rows<kBlockM, kWidth, Config::kThreads>(q_tile, key_shift,
                                                                    params.head_dim);
      }
    }
  }
  if (kNegateQTile && params.sign_flip != 0) {  // a negative scale: negate Q once
    cp_async_wait<0>();
    __syncthreads();  // every thread's part of the Q tile has landed
    negate_tile<kBlockM, kWidth, Config::kThreads>(q_tile, chunks);
    // The walk's first barrier orders these stores before any Q fragment read.
  }
  if (n_first >= n_last) {
    // No key reaches these rows, so there is no walk and none of its barriers. The epilogue may
    // still store O through the Q tile, a warp into its own rows, which threads of every warp
    // copied (and negated): without this barrier a late cp.async from another warp could land
    // on the zeros written there (seen on the H100: Nq = 1013, Nk = 17, causal, intermittent).
    // Placed here, not in the epilogue, where the barrier cost ptxas 32 bytes of spills (d128
    // WindowMask, sm_90a). The condition is the same for the whole CTA.
    cp_async_wait<0>();
    __syncthreads();
  }

  float o_acc[kRowTiles][kDimTiles][4];
  zero_fill(o_acc);
  // Row statistics per (row tile, upper/lower 8-row half): running max in the scaled log2
  // domain and this lane's partial row sum (reduced over the quad only at the end).
  RowStatistics<Config> stats(shared_bytes);
#pragma unroll
  for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      stats.max(mt, half) = kNegativeInfinity;
      stats.sum(mt, half) = 0.0f;
    }

  const int warp_row = warp * Config::kRowsPerWarp;
  // A K/V tile from key `key` on: whole tiles of 16-byte-aligned rows take the short copy; the
  // rest (the last tile of a sequence, narrower rows) the general one, out of line
  // (load_tile_narrow takes every alignment) so that the loop's registers and code hold only the
  // short copy: inlined, the two copies spilled 4-68 bytes at D = 64 and 256.
  const bool whole_tile_copies = alignment >= kWidest;
  // The general copy's alignment argument, hidden from NVVM in the shifted kernels, whose
  // alignment is the constant kWidest (ptxas still folds it: their own code is unchanged). The
  // out-of-line copy is one function per tile shape, shared with the table kernels of that shape,
  // which pass the run-time alignment; where only shifted kernels call it (the 192 bucket's
  // 64-key tile since forward v27 took the table to 128 keys) NVVM propagated the constant into
  // it: the copy compiled for 16-byte rows only (1314 -> ~207 instructions), and ptxas gave the
  // kernels 172 registers instead of 202 and the class-10 loops 10-14 % more static stalls
  // (packed D = 153 measured x0.988, H100). Hidden, their SASS is that of before v27.
  const int narrow_copy_alignment = kShifted ? opaque(alignment) : alignment;
  auto load_kv_tile = [&](Element* tile, const Element* rows, std::int64_t row_stride, int key,
                          int width) {
    if (whole_tile_copies && key + kBlockN <= params.seqlen_k) {
      load_whole_tile<kBlockN, kWidth, Config::kThreads>(tile, rows, row_stride, width, chunks);
    } else {
      load_tile_narrow<kBlockN, kWidth, Config::kThreads>(tile, rows, row_stride,
                                                          params.seqlen_k - key, width, chunks,
                                                          narrow_copy_alignment);
    }
  };
  // KvSourcesInSharedMemory (cp.async kernel): whole tiles whose chunks are all whole or past
  // head_dim are copied by load_whole_chunks from this thread's K source (slot 0) and V source
  // (slot 1) at key 0, kept in shared memory (written and read by this thread alone: no barrier
  // orders them); other tiles, and head dims that are not whole chunks (padded layouts), take
  // the general copy, whose row pointer rows_at_key() computes only there.
  constexpr bool kSourcesInShared = kv_sources_in_shared_memory<Config>() && !kStaged;
  constexpr int kKeySlot = 0;
  constexpr int kValueSlot = 1;
  // ClassWideKvCopies: the sources' lane map gives each row the class's chunks (tile_config.hpp);
  // `chunks` is then that many in every walk (the tile's one class covers every head dim it runs).
  constexpr int kClassChunks = largest_step_class(Classes{}) * (kMmaK / kChunkElements);
  static_assert(!class_wide_kv_copies<Config>() ||
                    (kSourcesInShared && step_classes_only<Config>() &&
                     std::is_same_v<Classes, StepClasses<largest_step_class(Classes{})>>),
                "class-wide copies: sources in shared memory and one step class");
  using KvCopyLanes = TileCopyLanes<kWidth, Config::kThreads,
                                    class_wide_kv_copies<Config>()
                                        ? kClassChunks
                                        : TileCopyLanes<kWidth, Config::kThreads>::kLanesPerRow>;
  [[maybe_unused]] const Element** kv_sources = nullptr;
  if constexpr (kSourcesInShared) {
    kv_sources = reinterpret_cast<const Element**>(shared_bytes + Config::kKvSourcesOffset) +
                 threadIdx.x;
    kv_sources[kKeySlot * Config::kThreads] =
        whole_chunk_source<kWidth, Config::kThreads, KvCopyLanes>(k_global, params.k_strides.row,
                                                                  key_copy_width);
    kv_sources[kValueSlot * Config::kThreads] =
        whole_chunk_source<kWidth, Config::kThreads, KvCopyLanes>(v_global, params.v_strides.row,
                                                                  value_copy_width);
  }
  // `source`: this thread's kv_sources slot, read by the caller before the barrier that precedes
  // the copy (a shared-memory load issued after it would delay every copy of the tile).
  auto load_kv_tile_from_sources = [&](Element* tile, auto rows_at_key, std::int64_t row_stride,
                                       int key, const Element* source, int width) {
    if (whole_tile_copies && width % kChunkElements == 0 && key + kBlockN <= params.seqlen_k) {
      load_whole_chunks<kBlockN, kWidth, Config::kThreads, KvCopyLanes>(
          tile, source + key * row_stride, row_stride, width, chunks);
    } else {
      load_tile_narrow<kBlockN, kWidth, Config::kThreads>(tile, rows_at_key(), row_stride,
                                                          params.seqlen_k - key, width, chunks,
                                                          narrow_copy_alignment);
    }
  };
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  // sm_80 machine code of the register-lean tiles: one address register per fragment instead
  // of four is what fits them without spills there (ptxas -v); sm_90a fits them as they are.
  constexpr bool kXorAddresses =
      row_stats_in_shared_memory<Config>() || fewer_live_registers<Config>();
#else
  constexpr bool kXorAddresses = fewer_live_registers<Config>();
#endif
  using Address =
      std::conditional_t<kXorAddresses, XorFragmentAddress<kWidth>, FragmentAddress<kWidth>>;
  const Address q_fragment(q_tile, warp_row + lane % 16, lane / 16);
  // Q's A fragments of one k-step for every row tile: 16 columns (ldmatrix x4) or, for
  // HalfLastStep's last step, 8 (x2); the sign flip where the Q tile was not negated once.
  auto load_query_fragments = [&](auto& a, int step) {
    constexpr int kRegisters = std::extent_v<std::remove_reference_t<decltype(a[0])>>;
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt) {
      if constexpr (kRegisters == 2) {
        ldmatrix_x2(a[mt], q_fragment.at(step, mt * kMmaM));
      } else {
        ldmatrix_x4(a[mt], q_fragment.at(step, mt * kMmaM));
      }
      if constexpr (!kNegateQTile) {
#pragma unroll
        for (int r = 0; r < kRegisters; ++r) a[mt][r] ^= params.sign_flip;
      }
    }
  };
  const Address k_fragment(k_tile, lane % 8 + 8 * (lane / 16), (lane / 8) % 2);
  const Address v_fragment(v_tile, lane % 16, lane / 16);
  // The walk over K/V tiles, compiled once per step class (kFixed k-steps: no run-time column
  // tests in P·V, loops ordered for the most independent accumulators) and in the general form
  // that skips the 16-wide steps past round_up(head_dim, 16). The choice is made once per CTA.
  auto walk_key_tiles = [&](auto fixed_steps) {
    constexpr int kFixed = decltype(fixed_steps)::value;
    constexpr bool kFull = kFixed > 0;
    constexpr bool kHalfLast = decltype(fixed_steps)::half_last;
    constexpr int kSteps = kFull ? kFixed : kMaxSteps;  // bound of the unrolled step loops
    constexpr bool kExponentsUnderPv =
        exponents_under_pv<Config, !std::is_same_v<Mask, NoMask>>() && kFull;
    // KeyCopiesUnderPv: in a class's walk of the cp.async kernel, the K copies in
    // load_whole_chunks' form (from the rows themselves, or from this thread's source in shared
    // memory where the tile keeps it there), with P·V's key steps after the exponentials.
    constexpr bool kKeyCopiesUnderPv =
        key_copies_under_pv<Config>() && kFull && !kStaged;
    static_assert(!(kKeyCopiesUnderPv && kExponentsUnderPv), "one order of P·V's key steps");
    static_assert(!kKeyCopiesUnderPv ||
                      (kKeyCopyKeySteps <= kBlockN / kMmaK &&
                       WholeTileCopy<kBlockN, kWidth, Config::kThreads, Element>::kUsable),
                  "the copies fit P·V's key steps, in whole passes of a fixed swizzle phase");
    // `chunks` at compile time in a class's walk (the class is the one step_class_for chose,
    // so chunks = 2·kFixed there): the staged loader may then split rows over half-warps.
    [[maybe_unused]] constexpr int kStageChunks = kFull ? kFixed * (kMmaK / kChunkElements) : 0;
    static_assert(!kShifted || kFull, "shifted windows run a step class's walk");
    // Shifted windows: which of this lane's K fragment pairs lie in the row, in step 0's first
    // 8 columns (before the row: the shift) and the last step's two halves (past it). ptxas
    // recomputes them in each tile (~11 ISETP / SEL / IMAD); held in registers through an
    // identity shuffle they took the kernel from 226 / 235 to 247 / 251 registers and measured
    // 0.988x at D = 129 non-causal (H100; the loop's static stall cycles +1.2 % for 20 fewer
    // instructions): left to ptxas.
    // A halved last step leaves the row's end in the step before it where the bucket's smallest
    // head dims run the class: the 128 bucket's 6-step class (windows of 88 columns) holds rows
    // of D = 74..79, which end in step 4's second half (columns 72..79) at small shifts. There
    // the second half of that step is masked too; a whole last step (D >= 16·steps - 14) and the
    // 192 bucket's classes (D >= 129) hold every row end in their last step.
    constexpr int kSmallestBucketHeadDim = kWidth - kHeadDimBucketStep + 1;
    [[maybe_unused]] constexpr bool kMaskSecondLast =
        kKeyFragmentMasks && kHalfLast && kSmallestBucketHeadDim < (kSteps - 1) * kMmaK;
    // Without HalfLastStep a window of 16·steps - 8 columns would run the whole class, its rows
    // ending in the step before the last, which only the halved walk masks (K tiles zeroed
    // outside the row in shared memory need no fragment mask at all).
    static_assert(!kKeyFragmentMasks || half_last_step<Config>(),
                  "a shifted tile halves its last step");
    [[maybe_unused]] std::uint32_t key_keep_first = 0, key_keep_last[2] = {0, 0};
    [[maybe_unused]] std::uint32_t key_keep_second_last = 0;
    if constexpr (kKeyFragmentMasks) {
      const int column = 2 * quad_lane - key_shift;
      key_keep_first = window_pair_mask(column, params.head_dim);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        key_keep_last[half] = window_pair_mask(
            column + (kSteps - 1) * kMmaK + half * kMmaN, params.head_dim);
      }
      if constexpr (kMaskSecondLast) {
        key_keep_second_last =
            window_pair_mask(column + (kSteps - 2) * kMmaK + kMmaN, params.head_dim);
      }
    }
    for (int n_block = n_first; n_block < n_last; ++n_block) {
      const int key0 = n_block * kBlockN;
      // Unused where K/V sources live in shared memory (the copy recomputes the rows itself).
      [[maybe_unused]] const Element* v_rows =
          kSourcesInShared ? nullptr : v_rows_in_loop() + key0 * params.v_strides.row;
      if constexpr (kStaged) {
        // k_tile is free: every warp finished S_{j-1} before the mid-tile barrier.
        cp_async_wait<0>();
        __syncwarp();  // this warp's K_j words landed (a lane realigns its neighbour's too)
        KvStage::template store<kStageChunks>(k_tile, kv_stage,
                                              k_global + key0 * params.k_strides.row,
                                              params.k_strides.row, chunks);
        // The stage's rows are this warp's own: V_j's copies may overwrite them once its lanes
        // have read them, so they are issued before the CTA barrier (which then waits with them
        // in flight) instead of after it.
        __syncwarp();
        KvStage::load(kv_stage, v_rows, params.v_strides.row, params.seqlen_k - key0, head_dim,
                      chunks, extent_of(params.v, params.v_end));
        cp_async_commit();
        __syncthreads();  // K_j stored; every warp is done with V_{j-1}
      } else {
        [[maybe_unused]] const Element* v_source = nullptr;
        if constexpr (kSourcesInShared) v_source = kv_sources[kValueSlot * Config::kThreads];
        cp_async_wait<0>();
        if constexpr (kKeyEdgesInShared) {
          // This thread's K_j chunks have landed: their columns outside the row zeroed here, the
          // barrier publishes them (tile_config.hpp, KeyWindowEdgesInSharedMemory).
          zero_outside_window_rows<kBlockN, kWidth, Config::kThreads, true>(k_tile, key_shift,
                                                                            params.head_dim);
        }
        __syncthreads();  // K_j landed; every warp is done with V_{j-1}
        if constexpr (kSourcesInShared) {
          load_kv_tile_from_sources(
              v_tile, [&] { return v_rows_in_loop() + key0 * params.v_strides.row; },
              params.v_strides.row, key0, v_source, value_copy_width);
        } else {
          load_kv_tile(v_tile, v_rows, params.v_strides.row, key0, value_copy_width);
        }
        cp_async_commit();
      }

      // ---- S = Q·Kᵀ ----
      float s[kRowTiles][kKeyTiles][4];
      zero_fill(s);
#pragma unroll
      for (int step = 0; step < kSteps; ++step) {
        if (kHalfLast && step == kSteps - 1) {
          // m16n8k8: A = Q's 16 x 8 (an x2 of the full step's address), B = 8 keys x 8 columns
          // per register, four key tiles per x4 (rows = lane).
          std::uint32_t a[kRowTiles][2];
          load_query_fragments(a, step);
          const XorFragmentAddress<kWidth> k_rows(k_tile, lane, 0);
#pragma unroll
          for (int nq = 0; nq < kKeyTiles / 4; ++nq) {
            std::uint32_t b[4];
            ldmatrix_x4(b, k_rows.at(step, nq * 4 * kMmaN));
            if constexpr (kKeyFragmentMasks) {
#pragma unroll
              for (int j = 0; j < 4; ++j) b[j] &= key_keep_last[0];
            }
#pragma unroll
            for (int j = 0; j < 4; ++j)
#pragma unroll
              for (int mt = 0; mt < kRowTiles; ++mt) {
                ElementTraits<Element>::mma_k8(s[mt][4 * nq + j], a[mt], b[j]);
              }
          }
        } else if (kFull || step < steps) {
          std::uint32_t a[kRowTiles][4];
          load_query_fragments(a, step);
#pragma unroll
          for (int np = 0; np < kKeyTiles / 2; ++np) {
            std::uint32_t b[4];
            ldmatrix_x4(b, k_fragment.at(step, np * 16));
            if constexpr (kKeyFragmentMasks) {
              // b[0], b[2]: the step's first 8 columns; b[1], b[3]: its second 8.
              if (step == 0) {
                b[0] &= key_keep_first;
                b[2] &= key_keep_first;
              }
              if (step == kSteps - 1) {
                b[0] &= key_keep_last[0];
                b[2] &= key_keep_last[0];
                b[1] &= key_keep_last[1];
                b[3] &= key_keep_last[1];
              }
              if (kMaskSecondLast && step == kSteps - 2) {
                b[1] &= key_keep_second_last;
                b[3] &= key_keep_second_last;
              }
            }
            mma_column_pair<Element>(s, a, b, np);
          }
        }
      }

      // ---- mask partial tiles (keys past the end, causal diagonal, window edges) ----
      // A register-lean tile takes its query rows afresh from the block index here, and makes
      // the first row opaque, so that neither the tile's row range nor the rows' key bounds
      // below (2·2·kRowTiles values) are hoisted out of the loop into registers held throughout.
      int tile_row_begin = row_begin;
      int tile_row_end = row_end;
      if constexpr (kHeadGroupOrder) {
        tile_row_begin = query_row_slot<Config>(shared_bytes);
        tile_row_end = min(tile_row_begin + kBlockM, params.seqlen_q);
      } else if constexpr (fewer_live_registers<Config>()) {
        tile_row_begin = (static_cast<int>(gridDim.x) - 1 - fresh_block_index_x()) * kBlockM;
        tile_row_end = min(tile_row_begin + kBlockM, params.seqlen_q);
      }
      const bool partial =
          key0 + kBlockN > params.seqlen_k ||
          !mask.tile_is_unmasked(tile_row_begin, tile_row_end, key0, key0 + kBlockN);
      if (partial) {
        // Each row sees the key range [key_begin(row), key_end(row + 1)) of the mask policy, cut
        // at seqlen_k: two comparisons per score instead of the general per-element test.
        int first_row = tile_row_begin + warp_row + group;
        if constexpr (fewer_live_registers<Config>()) first_row = opaque(first_row);
#pragma unroll
        for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            const int row = first_row + mt * kMmaM + 8 * half;
            const int first = mask.key_begin(row) - key0 - 2 * quad_lane;
            const int last = min(mask.key_end(row + 1), params.seqlen_k) - key0 - 2 * quad_lane;
#pragma unroll
            for (int nt = 0; nt < kKeyTiles; ++nt)
#pragma unroll
              for (int e = 0; e < 2; ++e) {
                const int col = nt * kMmaN + e;
                if (col < first || col >= last) s[mt][nt][2 * half + e] = kNegativeInfinity;
              }
          }
      }

      const int next = key0 + kBlockN;
      // KeyCopiesUnderPv (tile_config.hpp): K_{j+1}'s whole-tile copies issued between P·V's
      // first key steps below (and committed there) instead of here.
      [[maybe_unused]] bool key_copy_under_pv = false;
      [[maybe_unused]] const Element* k_source = nullptr;
      if constexpr (kStaged) {
        // v_tile is free: every warp finished P·V_{j-1} before the first barrier of this tile.
        cp_async_wait<0>();
        __syncwarp();  // this warp's V_j words landed
        KvStage::template store<kStageChunks>(v_tile, kv_stage, v_rows, params.v_strides.row,
                                              chunks);
        __syncwarp();  // this warp has read its stage rows: K_{j+1}'s copies may overwrite them
        if (n_block + 1 < n_last) {
          KvStage::load(kv_stage, k_global + next * params.k_strides.row, params.k_strides.row,
                        params.seqlen_k - next, head_dim, chunks,
                        extent_of(params.k, params.k_end));
        }
        cp_async_commit();
        __syncthreads();  // V_j stored; every warp is done with K_j
      } else {
        if constexpr (kSourcesInShared) k_source = kv_sources[kKeySlot * Config::kThreads];
        cp_async_wait<0>();
        __syncthreads();  // V_j landed; every warp is done with K_j
        if constexpr (kKeyCopiesUnderPv) {
          key_copy_under_pv = n_block + 1 < n_last && whole_tile_copies &&
                              key_copy_width % kChunkElements == 0 &&
                              next + kBlockN <= params.seqlen_k;
        }
        if (n_block + 1 < n_last && !key_copy_under_pv) {
          if constexpr (kSourcesInShared) {
            load_kv_tile_from_sources(
                k_tile, [&] { return k_rows_in_loop() + next * params.k_strides.row; },
                params.k_strides.row, next, k_source, key_copy_width);
          } else {
            load_kv_tile(k_tile, k_rows_in_loop() + next * params.k_strides.row,
                         params.k_strides.row, next, key_copy_width);
          }
        }
        cp_async_commit();
      }

      // ---- online softmax: P = 2^(S·c - m'), O and l rescaled by 2^(m - m') ----
      // The max of this thread's scores of row (mt, half) in the tile (quad_max gives the row's).
      const auto thread_tile_max = [&](int mt, int half) {
        if constexpr (row_max_by_pairs<Config>()) {
          return pairwise_tile_max<0, kKeyTiles>(s[mt], 2 * half);
        } else {
          float tile_max = kNegativeInfinity;
#pragma unroll
          for (int nt = 0; nt < kKeyTiles; ++nt)
            tile_max = fmaxf(tile_max, fmaxf(s[mt][nt][2 * half], s[mt][nt][2 * half + 1]));
          return tile_max;
        }
      };
      // A row with nothing visible yet keeps max -inf; subtract 0 instead so that
      // (-inf) - (-inf) never makes a NaN. Its P is 2^-inf = 0.
      const auto usable = [](float row_max) {
        return row_max == kNegativeInfinity ? 0.0f : row_max;
      };
      // Row (mt, half)'s running max raised to new_max: its sum and O scaled by 2^(m - new_max).
      const auto raise_row_max = [&](int mt, int half, float new_max) {
        const float correction = exp2_approx(stats.max(mt, half) - usable(new_max));
        stats.max(mt, half) = new_max;
        stats.sum(mt, half) *= correction;
#pragma unroll
        for (int dt = 0; dt < 2 * kSteps - (kHalfLast ? 1 : 0); ++dt) {
          if (kFull || dt < 2 * steps) {
            o_acc[mt][dt][2 * half] *= correction;
            o_acc[mt][dt][2 * half + 1] *= correction;
          }
        }
      };
      // P = 2^(S·c - m) over row (mt, half)'s scores in place, their sum added to the row's.
      const auto exponentiate_row = [&](int mt, int half, float usable_max) {
        float sum = 0.0f;
#pragma unroll
        for (int nt = 0; nt < kKeyTiles; ++nt)
#pragma unroll
          for (int e = 2 * half; e < 2 * half + 2; ++e) {
            const float p = exp2_approx(fmaf(s[mt][nt][e], params.scale_log2, -usable_max));
            s[mt][nt][e] = p;
            sum += p;
          }
        stats.sum(mt, half) += sum;
      };
      if constexpr (rescale_past_threshold<Config, !std::is_same_v<Mask, NoMask>>()) {
        // RescalePastThreshold (tile_config.hpp): the running max moves only where a row's tile
        // max passes it by more than kRescaleThreshold, and the warp rescales O and l only then
        // (one vote per tile); otherwise P = 2^(S·c - m) with the stale m stays below
        // 2^kRescaleThreshold, and the epilogue's LSE uses the same m.
        float tile_maxes[kRowTiles][2];
        bool passes = false;
#pragma unroll
        for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            tile_maxes[mt][half] = quad_max(thread_tile_max(mt, half)) * params.scale_log2;
            passes |= tile_maxes[mt][half] > stats.max(mt, half) + kRescaleThreshold;
          }
        if (__any_sync(0xffffffffu, passes)) {
#pragma unroll
          for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
            for (int half = 0; half < 2; ++half)
              raise_row_max(mt, half, fmaxf(stats.max(mt, half), tile_maxes[mt][half]));
        }
        if constexpr (!kExponentsUnderPv) {
#pragma unroll
          for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
            for (int half = 0; half < 2; ++half)
              exponentiate_row(mt, half, usable(stats.max(mt, half)));
        }
      } else {
#pragma unroll
        for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            const float tile_max = thread_tile_max(mt, half);
            const float new_max =
                fmaxf(stats.max(mt, half), quad_max(tile_max) * params.scale_log2);
            raise_row_max(mt, half, new_max);
            if constexpr (!kExponentsUnderPv) exponentiate_row(mt, half, usable(new_max));
          }
      }

      // ---- O += P·V: P's accumulator layout is the A-operand layout of the next mma ----
      // P is converted to 16 bits once; then one block per 16 output columns runs every key step,
      // so the run-time head-dim test is one branch per 16 columns around 2·kBlockN/16·kRowTiles
      // independent mma's (room for the scheduler to hide ldmatrix latency).
      // P's A fragments of key step `kstep` (keys 16·kstep.., every row tile) from the scores.
      const auto pack_key_step = [&](int kstep, std::uint32_t(&p)[kRowTiles][4]) {
#pragma unroll
        for (int mt = 0; mt < kRowTiles; ++mt) {
          p[mt][0] = Traits::pack(s[mt][2 * kstep][0], s[mt][2 * kstep][1]);
          p[mt][1] = Traits::pack(s[mt][2 * kstep][2], s[mt][2 * kstep][3]);
          p[mt][2] = Traits::pack(s[mt][2 * kstep + 1][0], s[mt][2 * kstep + 1][1]);
          p[mt][3] = Traits::pack(s[mt][2 * kstep + 1][2], s[mt][2 * kstep + 1][3]);
        }
      };
      // A class's walk: O += P·V over key step `kstep`, kFixed steps of columns, all
      // 2·kFixed·kRowTiles accumulators independent, no branches.
      const auto multiply_key_step = [&](int kstep, const std::uint32_t(&p)[kRowTiles][4]) {
#pragma unroll
        for (int dp = 0; dp < kFixed; ++dp) {
          if (kHalfLast && dp == kFixed - 1) {
            // The pair's first 8 columns only: its two k-halves (lanes 0-15's rows).
            std::uint32_t b[2];
            ldmatrix_x2_trans(b, v_fragment.at(dp, kstep * 16));
#pragma unroll
            for (int mt = 0; mt < kRowTiles; ++mt) {
              ElementTraits<Element>::mma(o_acc[mt][2 * dp], p[mt], b[0], b[1]);
            }
          } else {
            std::uint32_t b[4];
            ldmatrix_x4_trans(b, v_fragment.at(dp, kstep * 16));
            mma_column_pair<Element>(o_acc, p, b, dp);
          }
        }
      };
      if constexpr (kExponentsUnderPv) {
        // ExponentsUnderPv (tile_config.hpp): the exponentials of key step k + 1 written between
        // the mma's of key step k, so that the MUFU work runs under the tensor cores' within the
        // warp; each row's sum in a register until the tile's last step.
        float usable_max[kRowTiles][2];
        float row_sum[kRowTiles][2];
#pragma unroll
        for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            usable_max[mt][half] = usable(stats.max(mt, half));
            row_sum[mt][half] = 0.0f;
          }
        const auto exponentiate_key_step = [&](int kstep, std::uint32_t(&p)[kRowTiles][4]) {
#pragma unroll
          for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
            for (int half = 0; half < 2; ++half)
#pragma unroll
              for (int nt = 2 * kstep; nt < 2 * kstep + 2; ++nt)
#pragma unroll
                for (int e = 2 * half; e < 2 * half + 2; ++e) {
                  const float value =
                      exp2_approx(fmaf(s[mt][nt][e], params.scale_log2, -usable_max[mt][half]));
                  s[mt][nt][e] = value;
                  row_sum[mt][half] += value;
                }
          pack_key_step(kstep, p);
        };
        constexpr int kKeySteps = kBlockN / kMmaK;
        std::uint32_t p_frag[2][kRowTiles][4];  // key steps k and k + 1
        exponentiate_key_step(0, p_frag[0]);
#pragma unroll
        for (int kstep = 0; kstep < kKeySteps; ++kstep) {
          if (kstep + 1 < kKeySteps) exponentiate_key_step(kstep + 1, p_frag[(kstep + 1) % 2]);
          multiply_key_step(kstep, p_frag[kstep % 2]);
        }
#pragma unroll
        for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
          for (int half = 0; half < 2; ++half) stats.sum(mt, half) += row_sum[mt][half];
      } else {
        // P converted for every key step first, then the products.
        std::uint32_t p_frag[kBlockN / kMmaK][kRowTiles][4];
#pragma unroll
        for (int kstep = 0; kstep < kBlockN / kMmaK; ++kstep) pack_key_step(kstep, p_frag[kstep]);
        if constexpr (kKeyCopiesUnderPv) {
          // Predicated, not branched on key_copy_under_pv: P·V stays one block for ptxas to
          // interleave with the exponentials (a branch here put all 66 MUFU before it).
          using KeyCopy = WholeTileCopy<kBlockN, kWidth, Config::kThreads, Element>;
          constexpr int kPassesPerKeyStep =
              (KeyCopy::kPasses + kKeyCopyKeySteps - 1) / kKeyCopyKeySteps;
          using KeyOrigin = std::conditional_t<kSourcesInShared, FromChunkSource, FromTileRows>;
          const KeyCopy key_copy(k_tile,
                                 (kSourcesInShared ? k_source : k_global) +
                                     next * params.k_strides.row,
                                 params.k_strides.row, key_copy_width, chunks, key_copy_under_pv,
                                 KeyOrigin{});
#pragma unroll
          for (int kstep = 0; kstep < kBlockN / kMmaK; ++kstep) {
            if (kstep < kKeyCopyKeySteps) {
              key_copy.passes(kstep * kPassesPerKeyStep, kPassesPerKeyStep);
            }
            if (kstep == kKeyCopyKeySteps - 1) cp_async_commit();
            multiply_key_step(kstep, p_frag[kstep]);
          }
        } else if constexpr (kFull) {
#pragma unroll
          for (int kstep = 0; kstep < kBlockN / kMmaK; ++kstep)
            multiply_key_step(kstep, p_frag[kstep]);
        } else {
#pragma unroll
          for (int dp = 0; dp < kMaxSteps; ++dp) {
            if (dp < steps) {
#pragma unroll
              for (int kstep = 0; kstep < kBlockN / kMmaK; ++kstep) {
                std::uint32_t b[4];
                ldmatrix_x4_trans(b, v_fragment.at(dp, kstep * 16));
                mma_column_pair<Element>(o_acc, p_frag[kstep], b, dp);
              }
            }
          }
        }
      }
    }
  };
  // HalfLastStep: a class that the head dim fills to within 8 columns of its last step runs the
  // walk with that step halved (one more copy of the walk per class).
  auto walk_halving = [&](auto fixed_steps) {
    constexpr int kFixed = decltype(fixed_steps)::value;
    if constexpr (halved_walk_only<Config>()) {
      static_assert(kFixed > 0, "a HalvedWalkOnly tile takes step classes only");
      walk_key_tiles(FixedSteps<kFixed, true>{});
      return;
    } else if constexpr (half_last_step<Config>() && kFixed > 0) {
      if (steps == kFixed && head_dim + kMmaN <= kFixed * kMmaK) {
        walk_key_tiles(FixedSteps<kFixed, true>{});
        return;
      }
    }
    walk_key_tiles(fixed_steps);
  };
  if constexpr ((row_stats_in_shared_memory<Config>() &&
                 largest_step_class(Classes{}) == kMaxSteps) ||
                step_classes_only<Config>()) {
    // Every head dim this kernel runs has a class: the general walk would be dead code, and
    // compiled it costs registers (ptxas allocates the kernel as a whole).
    walk_step_class_covering(walk_halving, step_class, Classes{});
  } else {
    walk_step_class(walk_halving, step_class, Classes{});
  }
  cp_async_wait<0>();  // nothing may stay in flight into a retiring CTA's shared memory

  // ---- epilogue: O /= l, LSE = ln2·(m + log2 l); fully masked rows give 0 and -inf ----
  int out_batch = batch;
  int out_head = head;
  int out_row_begin = row_begin;
  // The warp's first row from the thread index again, not held across the walk
  // (tile_config.hpp, EpilogueWarpRowAfresh).
  int out_warp_row = warp_row;
  if constexpr (epilogue_warp_row_afresh<Config>()) {
    out_warp_row = fresh_thread_index_x() / kWarpSize * Config::kRowsPerWarp;
  }
  if constexpr (kHeadGroupOrder && fewer_live_registers<Config>()) {
    const ForwardCtaTile fresh = fresh_cta_tile();
    out_batch = fresh.batch;
    out_head = fresh.head;
    out_row_begin = query_row_slot<Config>(shared_bytes);
  } else if constexpr (fewer_live_registers<Config>()) {
    out_batch = fresh_block_index_z();
    out_head = fresh_block_index_y();
  }
  auto* out_base = static_cast<Element*>(params.out) + out_batch * params.out_strides.batch +
                   out_head * params.out_strides.head;
  // Shifted windows: O's column c is the window's column c + s_v.
  [[maybe_unused]] int value_shift = 0;
  if constexpr (kShifted) value_shift = element_shift(kv_head_rows(params.v, params.v_strides));
  float* lse_base =
      params.lse +
      (static_cast<std::int64_t>(out_batch) * params.heads_q + out_head) * params.seqlen_q;
  // Rows of whole 16-byte chunks go out through shared memory: each warp writes its O rows,
  // as 16-bit values, into its own rows of the Q tile (no other warp reads them, so a warp
  // barrier suffices), then stores whole chunks, a row's chunks on consecutive lanes: 16-byte
  // coalesced stores instead of 4-byte ones that fill half of each 32-byte sector they touch.
  const bool store_through_shared = !kStaged && !kShifted && !direct_output_stores<Config>() &&
                                    alignment >= kWidest && head_dim % kChunkElements == 0;
#pragma unroll
  for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float total = quad_sum(stats.sum(mt, half));
      const float inverse = total > 0.0f ? 1.0f / total : 0.0f;
      const int tile_row = out_warp_row + mt * kMmaM + group + 8 * half;
      const int row = out_row_begin + tile_row;
      if (store_through_shared) {
#pragma unroll
        for (int dt = 0; dt < kDimTiles; ++dt) {
          if (dt < 2 * steps) {
            *reinterpret_cast<std::uint32_t*>(q_tile + swizzled_offset<kWidth>(tile_row, dt) +
                                              2 * quad_lane) =
                Traits::pack(o_acc[mt][dt][2 * half] * inverse,
                             o_acc[mt][dt][2 * half + 1] * inverse);
          }
        }
      }
      if (row < params.seqlen_q) {
        Element* out_row = out_base + row * params.out_strides.row;
        if constexpr (kShifted) {
#pragma unroll
          for (int dt = 0; dt < kDimTiles; ++dt) {
            if (dt < 2 * steps) {
              store_shifted_pair(out_row, dt * kMmaN + 2 * quad_lane - value_shift,
                                 params.head_dim, o_acc[mt][dt][2 * half] * inverse,
                                 o_acc[mt][dt][2 * half + 1] * inverse);
            }
          }
        } else if (!store_through_shared) {
#pragma unroll
          for (int dt = 0; dt < kDimTiles; ++dt) {
            if (dt < 2 * steps) {
              store_pair(out_row, dt * kMmaN + 2 * quad_lane, head_dim,
                         o_acc[mt][dt][2 * half] * inverse, o_acc[mt][dt][2 * half + 1] * inverse,
                         alignment);
            }
          }
        }
        if (quad_lane == 0) {
          lse_base[row] = total > 0.0f ? (stats.max(mt, half) + __log2f(total)) * kLn2
                                       : kNegativeInfinity;
        }
      }
    }
  if (store_through_shared) {
    __syncwarp();
    constexpr int kChunksPerRow = kWidth / kChunkElements;
    const int row_chunks = head_dim / kChunkElements;
#pragma unroll
    for (int index = lane; index < Config::kRowsPerWarp * kChunksPerRow; index += kWarpSize) {
      const int tile_row = out_warp_row + index / kChunksPerRow;
      const int chunk = index % kChunksPerRow;
      const int row = out_row_begin + tile_row;
      if (chunk < row_chunks && row < params.seqlen_q) {
        *reinterpret_cast<uint4*>(out_base + row * params.out_strides.row +
                                  chunk * kChunkElements) =
            *reinterpret_cast<const uint4*>(q_tile + swizzled_offset<kWidth>(tile_row, chunk));
      }
    }
  }
}

// Rows aligned to 4 bytes or more: tiles filled by cp.async. Also 2-byte rows where the launcher
// has no staged tile that fits the device (NoStagedTile: the 192 and 256 buckets on 99 KB
// devices), whose chunks the general copy loads as 16-bit values.
template <class Config, class Element, class Mask>
__global__ void __launch_bounds__(Config::kThreads)
    forward_kernel(const ForwardParams params, const Mask mask) {
  forward_cta<Config, Element, Mask, false>(params, mask);
}

// Rows off 16-byte words, of one shift per (batch, head), as uses_shifted_windows says: tiles of
// the rows' covering words, never realigned (shifted windows).
template <class Config, class Element, class Mask>
__global__ void __launch_bounds__(Config::kThreads)
    forward_kernel_shifted_windows(const ForwardParams params, const Mask mask) {
  forward_cta<Config, Element, Mask, false, true>(params, mask);
}

// 2-byte-aligned rows: tiles copied as aligned words into a shared-memory stage and realigned
// from there (a separate name: the kernel and its tile table are apart from the cp.async one's).
template <class Config, class Element, class Mask>
__global__ void __launch_bounds__(Config::kThreads)
    forward_kernel_unaligned_rows(const ForwardParams params, const Mask mask) {
  forward_cta<Config, Element, Mask, true>(params, mask);
}

}  // namespace fattn::detail::sm80
