// The Hopper (sm_90a) attention forward kernel: FlashAttention-3's structure in our own code.
//
// A persistent CTA (one per SM) computes query tiles of kBlockM rows (128 or 192,
// tile_config.hpp) of (batch, head) pairs in the order of tile_scheduler.hpp, one after another:
//   warpgroup 0  producer: one thread issues TMA loads — each Q tile once, then K and V tiles
//                into a ring of shared-memory stages, each stage guarded by "full" mbarriers
//                (TMA transaction bytes) and "empty" mbarriers (consumer releases);
//   warpgroups 1 .. kBlockM/64  consumers: 64 query rows each. S = Q·Kᵀ by wgmma with both
//                operands in shared memory, the online softmax in registers (exp2 with
//                scale·log2e folded in), P converted to 16 bits in registers and used as the A
//                operand of the O += P·V wgmma (V read "MN-major" straight from its TMA layout).
// The producer gives registers to the consumers with setmaxnreg. Inside a consumer the softmax
// of tile j runs while the tensor cores compute P(j-1)·V(j-1): the wgmma of the next tile is
// issued before the softmax and waited for after it (FA3's intra-warpgroup overlap). Between
// the consumers, ping-pong (tile_config.hpp) passes the right to issue GEMMs round-robin from
// one consumer to the next, so that one's softmax runs under the others' GEMMs.
//
// Key tiles are walked from the last to the first, so the tiles that need per-element masking
// (the diagonal of a causal mask, the ragged end of the keys) come first and the rest run
// without mask arithmetic; small-N masked launches walk them from the first in every other round
// (tile_config.hpp, keys_ascending_even_rounds). Fully masked tiles are never loaded.
//
// Epilogue (tile_config.hpp, tma_store): each consumer writes O / l with stmatrix into a
// 128-byte-swizzled shared-memory tile and one thread stores it with a TMA store per 64
// columns, the LSE with plain stores. The O tile has its own buffer after the K/V ring where
// shared memory has room (D <= 128); otherwise it reuses the start of the V ring: the consumers
// first wait for each other (nobody still reads V), and the producer loads the next tile's first
// V only after every consumer's store has read the ring (the o_stored mbarrier). The
// heads-as-columns kernels of widths 144..208 stage O in the V ring the same way and store each
// row's 16-byte words themselves (output_staging.cuh); the other kernels without a TMA store
// store O from the accumulator registers.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "common/mask.hpp"
#include "cuda/common/ptx_sm90.cuh"
#include "cuda/sm90/output_staging.cuh"
#include "cuda/sm90/tensor_map.hpp"
#include "cuda/sm90/tile_config.hpp"
#include "cuda/sm90/tile_scheduler.hpp"
#include "cuda/sm90/timeline.cuh"

namespace fattn::detail::sm90 {

// Everything the kernel needs besides the three TMA descriptors and the mask.
struct ForwardParams {
  void* out = nullptr;
  float* lse = nullptr;
  std::int64_t out_stride_batch = 0;  // in elements
  std::int64_t out_stride_seq = 0;
  std::int64_t out_stride_head = 0;
  std::int64_t lse_stride_batch = 0;  // in elements
  std::int64_t lse_stride_head = 0;
  int seqlen_q = 0;
  int seqlen_k = 0;
  int heads_q = 0;
  int batch = 0;
  int group_size = 1;  // query heads per key/value head (GQA)
  int head_dim = 0;    // the real D; the kernel's bucket may be wider
  int num_m_blocks = 0;
  int heads_per_group = 1;  // (batch, head) pairs whose K/V share L2 at one time (TileScheduler)
  float scale_log2 = 0;  // softmax scale · log2(e): scores go through exp2
  float scale = 0;       // softmax scale, for the natural-log LSE
  // TMA-store epilogue: the output columns [0, out_tma_columns) go out by TMA (the tensor map's
  // extent); the rest, fewer than 8 when D is not a multiple of 8, by ordinary stores. TMA writes
  // whole 16-byte units past a ragged inner extent (seen on an H100: D = 65 wrote columns 65..71
  // of a row-padded output), which would clobber the row padding.
  int out_tma_columns = 0;
  // Causal kernels with padding first (causal_padding_first): query tile m covers the rows from
  // m · kBlockM - row_offset, a multiple of 64 up to the padding of the last tile, so that the
  // partly empty tile is the first (cheapest) one. Whole 64-row slices keep every consumer's
  // rows either all below 0 or all from 0 on.
  int row_offset = 0;
  // Heads-as-columns kernels (kHeadsAsColumns, heads_as_columns.hpp): where each head's first
  // column lies in the rows of q's, k's and v's tensor maps. Last, so that the other kernels
  // read every field above at the offsets they always had.
  HeadColumns q_columns;
  HeadColumns k_columns;
  HeadColumns v_columns;
  // Bench builds with FATTN_SM90_TIMELINE only (timeline.cuh): where the phase records go.
  FATTN_TIMELINE_PARAMS_FIELD
};

// Tail boxes: a heads-as-columns kernel whose work width ends inside its last column block
// (W % 64 = 16, 32 or 48) loads that block through maps of its own whose boxes are the tail's
// columns wide, instead of a whole 64-column box of which W % 64 columns are the head and the
// rest the next head's, all in bounds and all fetched. The aligned kernels' last box reads past
// the head dim, which TMA zero-fills without fetching; packed D = 74 in the width-80 kernel read
// 128 columns a row for 80, 1.6x the aligned D = 80 kernel's L2 bytes, and ran L2-bound (ncu:
// 79 % of L2 throughput against 58 %, 305 against 481 TFLOP/s; docs/perf-notes.md, twentieth
// session). A narrow box lands as the first columns of a whole box's swizzled rows
// (make_heads_as_columns_tensor_map), so the shared-memory layout and the GEMMs do not change;
// the columns from W to the block's end keep an older tile's data, which no wgmma reads (Q·Kᵀ
// runs W / 16 k-steps, P·V's n is W, only Q's padding inside W is zeroed and read).
// The maps ride as the kernel's last parameter, so every other kernel keeps its parameter
// offsets and its SASS; those get NoTailBoxMaps, 8-byte aligned: as a 1-byte-aligned last
// parameter it made the front end read ForwardParams::out byte by byte at the kernel's start.
struct TailBoxMaps {
  CUtensorMap q;
  CUtensorMap k;
  CUtensorMap v;
};
struct alignas(8) NoTailBoxMaps {};
template <bool kHeadsAsColumns, int kWidth>
inline constexpr bool tail_boxes = kHeadsAsColumns && kWidth % kSwizzleSpanColumns != 0;
template <bool kHeadsAsColumns, int kWidth>
using TailBoxMapsOf =
    std::conditional_t<tail_boxes<kHeadsAsColumns, kWidth>, TailBoxMaps, NoTailBoxMaps>;

constexpr int kWarpgroupThreads = 128;
constexpr int kWarpSize = 32;
constexpr int kTmaColumns = kSwizzleSpanColumns;  // one 128-byte swizzle row of 16-bit elements
constexpr int kWgmmaK = 16;      // k extent of one 16-bit wgmma
constexpr int kWgmmaM = 64;      // rows of one warpgroup's wgmma
// Named barriers of the ping-pong schedule: consumer c waits on kSchedulerBarrier + c (id 0 is
// __syncthreads; ids go up to 15). Each is met by two warpgroups: the consumer taking its turn
// and the one before it passing the turn on.
constexpr int kSchedulerBarrier = 1;
constexpr int kNamedBarrierIds = 16;
constexpr int kTurnThreads = 2 * kWarpgroupThreads;

// Register budgets after setmaxnreg: the producer needs only addresses and loop counters; the
// consumers share the rest, in setmaxnreg's steps of 8 and at most 240 (ptxas's ceiling for a
// thread is 255). "The rest" is of the CTA's own registers, not of the SM's 64K: setmaxnreg.inc
// takes registers only from a per-CTA pool, which holds what the CTA was launched with and what
// its warps released (PTX ISA, setmaxnreg; SASS: USETMAXREG.TRY_ALLOC.CTAPOOL in a loop that
// retries until the pool has them, so a budget the pool cannot cover hangs the kernel with no
// error). A CTA starts with launch_registers per thread: ptxas gives a one-CTA-per-SM kernel
// (__launch_bounds__(threads, 1)) the most that fits, in steps of 8 (ptxas -v: 168 for 384
// threads, 128 for 512, 96 for 640). So: two consumers 168·384 = 24·128 + 2·240·128 = 64,512;
// three 128·512 = 65,536 >= 24·128 + 3·160·128 = 64,512; four 96·640 = 61,440 >=
// 24·128 + 4·112·128 = 60,416 (114 would be the share; 120, the SM-wide share, left 4 of the 16
// consumer warps waiting in setmaxnreg forever: h18-m256, bench/results/sm90-d64-2026-11-23-s17/
// HANG.md).
constexpr int kRegistersPerSm = 64 * 1024;
constexpr int kProducerRegisters = 24;
constexpr int kMaxConsumerRegisters = 240;
constexpr int kMaxThreadRegisters = 255;
constexpr int kRegisterStep = 8;
constexpr int launch_registers(int threads) {
  const int per_thread = kRegistersPerSm / threads / kRegisterStep * kRegisterStep;
  return per_thread < kMaxThreadRegisters ? per_thread : kMaxThreadRegisters;
}
constexpr int consumer_registers(int consumer_warpgroups) {
  const int threads = (1 + consumer_warpgroups) * kWarpgroupThreads;
  const int pool = launch_registers(threads) * threads;
  const int share = (pool - kProducerRegisters * kWarpgroupThreads) /
                    (consumer_warpgroups * kWarpgroupThreads);
  const int stepped = share / kRegisterStep * kRegisterStep;
  return stepped < kMaxConsumerRegisters ? stepped : kMaxConsumerRegisters;
}
static_assert(consumer_registers(2) == 240 && consumer_registers(3) == 160 &&
                  consumer_registers(4) == 112,
              "consumer budgets that the CTA's register pool covers");

// kHeadDim: the bucket (shared-memory layout, TMA boxes, tile shape); kWidth: the columns the
// GEMMs and the epilogue work on (tile_config.hpp, "Work widths"); kFitShape: the bucket's fit
// shape instead of its own (tile_config.hpp, FitTileConfig).
template <int kHeadDim, class Element, int kWidthColumns = kHeadDim, bool kFitShape = false>
struct ForwardTraits {
  static constexpr TileShape kShape = WidthTileConfig<kHeadDim, kWidthColumns, kFitShape>::kShape;
  static constexpr int kWidth = kWidthColumns;
  static constexpr int kBlockM = kShape.block_m;
  static constexpr int kBlockN = kShape.block_n;
  static constexpr int kStages = kShape.stages;
  static constexpr int kConsumerWarpgroups = kBlockM / kWgmmaM;
  static constexpr int kConsumerWarps = kConsumerWarpgroups * kWarpgroupThreads / kWarpSize;
  static constexpr int kThreads = kWarpgroupThreads * (1 + kConsumerWarpgroups);
  static constexpr int kConsumerRegisters = consumer_registers(kConsumerWarpgroups);
  static_assert(kProducerRegisters * kWarpgroupThreads +
                        kConsumerWarpgroups * kWarpgroupThreads * kConsumerRegisters <=
                    launch_registers(kThreads) * kThreads,
                "setmaxnreg.inc waits forever for registers the CTA's pool does not hold");
  static constexpr int kColumnBlocks = kHeadDim / kTmaColumns;

  // Each tile is stored as kColumnBlocks blocks of (rows × 128 bytes), 128-byte swizzled by TMA.
  static constexpr int kQBytes = kBlockM * kHeadDim * static_cast<int>(sizeof(Element));
  static constexpr int kKvTileBytes = kBlockN * kHeadDim * static_cast<int>(sizeof(Element));
  static constexpr int kQColumnBlockBytes = kBlockM * static_cast<int>(kSwizzleRowBytes);
  static constexpr int kKvColumnBlockBytes = kBlockN * static_cast<int>(kSwizzleRowBytes);

  static constexpr int kQOffset = 0;
  static constexpr int kKOffset = kQOffset + kQBytes;
  static constexpr int kVOffset = kKOffset + kStages * kKvTileBytes;
  static constexpr int kTilesEnd = kVOffset + kStages * kKvTileBytes;
  // Slack so the dynamic buffer can be rounded up to the 1024-byte swizzle-atom alignment.
  static constexpr int kAlignment = static_cast<int>(kSwizzleAtomBytes);

  // The TMA-store epilogue (tile_config.hpp): O is staged in Q's layout (column blocks of kBlockM
  // rows × 128 bytes, 128-byte swizzled), each consumer's 64 rows stored by its own TMA boxes.
  // Its own buffer after the tiles where that fits the block's shared memory (D <= 128), else
  // the start of the V ring, which the producer refills only after the stores have read it.
  static constexpr bool kTmaStoreAny = kShape.tma_store || kShape.tma_store_masked;
  static constexpr int kOutColumnBlocks = (kWidth + kTmaColumns - 1) / kTmaColumns;
  static constexpr int kOBytes = kQBytes;
  static constexpr int kMaxSmemPerBlock = 227 * 1024;  // sm_90's opt-in limit per block
  static constexpr int kMaxBarrierBytes = (3 + 4 * kStages) * static_cast<int>(sizeof(std::uint64_t));
  static constexpr bool kOutOwnBuffer =
      kTmaStoreAny && kTilesEnd + kOBytes + kMaxBarrierBytes + kAlignment <= kMaxSmemPerBlock;
  static constexpr bool kOutAliasesV = kTmaStoreAny && !kOutOwnBuffer;
  static constexpr int kOOffset = kOutOwnBuffer ? kTilesEnd : kVOffset;

  static constexpr int kBarrierOffset = kTilesEnd + (kOutOwnBuffer ? kOBytes : 0);
  // q full/empty, k/v full, k/v empty, and "O stored" when O reuses the V ring.
  static constexpr int kBarrierCount = 2 + 4 * kStages + (kOutAliasesV ? 1 : 0);
  static constexpr int kSmemBytes =
      kBarrierOffset + kBarrierCount * static_cast<int>(sizeof(std::uint64_t)) + kAlignment;

  static_assert(kBlockM % kWgmmaM == 0 && kConsumerWarpgroups >= 1,
                "a query tile is whole 64-row warpgroup slices");
  static_assert(!(kShape.ping_pong || kShape.ping_pong_masked) ||
                    (kConsumerWarpgroups >= 2 &&
                     kSchedulerBarrier + kConsumerWarpgroups <= kNamedBarrierIds),
                "ping-pong passes turns between two or more warpgroups, one named barrier each");
  static_assert(kHeadDim % kTmaColumns == 0, "head-dim buckets are multiples of 64");
  static_assert(kWidth % kWgmmaK == 0 && kWidth <= kHeadDim && kWidth > kHeadDim - kTmaColumns,
                "a work width is a 16-multiple inside its bucket");
  static_assert(kBlockN % kWgmmaK == 0 && kBlockN % 8 == 0, "key tile must be a wgmma k-multiple");
  static_assert(kQColumnBlockBytes % kAlignment == 0 && kKvColumnBlockBytes % kAlignment == 0,
                "every tile must start on a swizzle atom");
  static_assert(!kOutAliasesV || kOBytes <= kStages * kKvTileBytes,
                "an O tile that reuses the V ring must fit in it");
  static_assert(kSmemBytes <= kMaxSmemPerBlock, "the tiles must fit one block's shared memory");
};

// The mbarriers of one CTA, laid out after the tiles.
template <int kStages>
struct PipelineBarriers {
  std::uint64_t q_full;
  std::uint64_t q_empty;
  std::uint64_t k_full[kStages];
  std::uint64_t v_full[kStages];
  std::uint64_t k_empty[kStages];
  std::uint64_t v_empty[kStages];
  // Only where O reuses the V ring (ForwardTraits::kOutAliasesV): every consumer's TMA stores of
  // its O rows have read shared memory, so V may be loaded there again.
  std::uint64_t o_stored;
};

// Stage and phase of the i-th key tile in the ring.
struct RingSlot {
  int stage;
  std::uint32_t phase;
};
template <int kStages>
FATTN_DEVICE RingSlot ring_slot(int iteration) {
  return {iteration % kStages, static_cast<std::uint32_t>((iteration / kStages) & 1)};
}

// The key tile that step `step` of a walk over [first_tile, last_tile) visits: from the last
// down (the diagonal, where a causal mask cuts, at step 0), or from the first up where the tile
// walks its keys ascending (tile_config.hpp, keys_ascending_even_rounds). The consumers ask it;
// the producer's loop over n writes the same mapping inline, because the call there changed the
// masked kernels' SASS.
FATTN_DEVICE int walked_key_tile(bool ascending, int first_tile, int last_tile, int step) {
  return ascending ? first_tile + step : last_tile - 1 - step;
}

// The key-tile range [first, last) a query tile must visit, from the mask's key range.
template <class Mask>
FATTN_DEVICE void key_tile_range(const Mask& mask, int row_begin, int row_end, int block_n,
                                 int* first, int* last) {
  const int key_begin = mask.key_begin(row_begin);
  const int key_end = mask.key_end(row_end);
  *first = key_begin / block_n;
  *last = key_end > key_begin ? (key_end + block_n - 1) / block_n : *first;
}

// What one scheduled tile covers: query rows [row_begin, row_end) of (batch, head) and the key
// tiles [first_tile, last_tile) they see. The producer and the consumers decode it alike.
// `row_offset` (ForwardParams::row_offset) moves every tile up by whole 64-row slices: rows
// below 0 are TMA's zero rows, computed and never stored, like rows past seqlen_q.
struct TileWork {
  int head, batch, row_begin, row_end, first_tile, last_tile;
};
template <int kBlockM, int kBlockN, bool kDividedDecode, class Mask>
FATTN_DEVICE TileWork decode_tile(const TileScheduler& scheduler, const TileDivisors& divisors,
                                  const Mask& mask, int tile, int seqlen_q, int row_offset) {
  TileWork work;
  int m_block;
  if constexpr (kDividedDecode) {
    scheduler.decode(tile, &m_block, &work.head, &work.batch);
  } else if constexpr (std::is_same_v<Mask, NoMask>) {
    scheduler.decode_one_pair_groups(tile, divisors, &m_block, &work.head, &work.batch);
  } else {
    scheduler.decode(tile, divisors, &m_block, &work.head, &work.batch);
  }
  work.row_begin = m_block * kBlockM - row_offset;
  work.row_end = min(work.row_begin + kBlockM, seqlen_q);
  key_tile_range(mask, work.row_begin, work.row_end, kBlockN, &work.first_tile, &work.last_tile);
  return work;
}

// ---- the consumer's pieces ----------------------------------------------------------------

// A CTA-scope fence as a scheduling anchor (TileShape::pin_pv_wait_unmasked): ptxas moves
// neither the exponentials above it below nor the following wgmma wait above it (SASS:
// MEMBAR.ALL.CTA, the wait after all 66 MUFU.EX2 of the D = 128 key loop). __syncwarp() held
// the wait only where the warp was not provably converged, and fence.sc is the heavier fence.
// The consumer has no generic-proxy memory traffic in flight there but its mbarrier arrives,
// so the fence waits for little.
FATTN_DEVICE void schedule_anchor() { asm volatile("fence.acq_rel.cta;\n" ::: "memory"); }

// kBranchedMaskTest: apply_mask tests the mask with is_masked's short circuits (masked_by).
template <class Traits, class Element, bool kBranchedMaskTest = false>
struct Consumer {
  static constexpr int kBlockN = Traits::kBlockN;
  static constexpr int kWidth = Traits::kWidth;
  static constexpr int kScoreRegs = kBlockN / 2;
  static constexpr int kOutRegs = kWidth / 2;
  static constexpr int kPChunks = kBlockN / kWgmmaK;
  // Keys per accumulator group: a thread's registers 4j..4j+3 hold 8-key group j (apply_mask's
  // layout); the first-tile coverage masks and sums whole groups.
  static constexpr int kKeysPerGroup = 8;
  static constexpr int kKeyGroups = kBlockN / kKeysPerGroup;

  // S = Q·Kᵀ for this warpgroup's 64 rows. `q_base`: shared address of the warpgroup's rows in
  // column block 0; `k_base`: the K stage.
  static FATTN_DEVICE void issue_scores(float (&s)[kScoreRegs], std::uint32_t q_base,
                                        std::uint32_t k_base) {
    constexpr int kStepsPerColumnBlock = kTmaColumns / kWgmmaK;
    constexpr std::uint32_t kStepBytes = kWgmmaK * sizeof(Element);
    fence_operands(s);
    wgmma_fence();
#pragma unroll
    for (int step = 0; step < kWidth / kWgmmaK; ++step) {
      const int block = step / kStepsPerColumnBlock;
      const std::uint32_t within = (step % kStepsPerColumnBlock) * kStepBytes;
      const std::uint64_t desc_q =
          make_smem_descriptor(q_base + block * Traits::kQColumnBlockBytes + within, 0);
      const std::uint64_t desc_k =
          make_smem_descriptor(k_base + block * Traits::kKvColumnBlockBytes + within, 0);
      wgmma_ss<kBlockN, Element>(s, desc_q, desc_k, step > 0);
    }
    wgmma_commit();
  }

  // O += P·V with P in registers. V's tile is read MN-major: 64-column blocks are
  // kKvColumnBlockBytes apart (the descriptor's leading offset), 8-key groups 1024 bytes apart.
  // A work width that is not a multiple of 64 (n = 80, 144, ...) ends inside a column block:
  // the wgmma reads only the first n - 64·k columns of the last block.
  static FATTN_DEVICE void issue_pv(float (&o)[kOutRegs], const std::uint32_t (&p)[kPChunks][4],
                                    std::uint32_t v_base) {
    constexpr std::uint32_t kKeyStepBytes = kWgmmaK * kSwizzleRowBytes;
    fence_operands(o);
    wgmma_fence();
#pragma unroll
    for (int chunk = 0; chunk < kPChunks; ++chunk) {
      const std::uint64_t desc_v =
          make_smem_descriptor(v_base + chunk * kKeyStepBytes, Traits::kKvColumnBlockBytes);
      wgmma_rs<kWidth, Element>(o, p[chunk], desc_v, 1);
    }
    wgmma_commit();
  }

  // apply_mask's test of the mask itself: Mask::is_masked_unbranched (compares and selects;
  // with is_masked's short circuits the WindowMask kernels carried several times the causal
  // kernels' BSSY / BRA), except in the kernels that forward_kernel picks kBranchedMaskTest for
  // (the tile shape's heads_as_columns_branched_mask_test, tile_config.hpp).
  template <class Mask>
  static FATTN_DEVICE bool masked_by(const Mask& mask, int row, int col) {
    if constexpr (kBranchedMaskTest) {
      return mask.is_masked(row, col);
    } else {
      return mask.is_masked_unbranched(row, col);
    }
  }

  // Scores of keys outside the mask or past seqlen_k become -inf. Accumulator layout of a
  // m64nN wgmma: register 4j + 2h + e holds row (warp·16 + lane/4 + 8h), column (8j + 2·(lane%4) + e).
  // Only the 8-key groups [kGroupBegin, kGroupEnd) are tested (the first key tile's coverage,
  // first_tile_coverage, knows the others to be all visible or never read). The || stays a
  // short circuit: ptxas builds it with selects, and as a bitwise | with the result in a bool
  // the causal kernels' SASS changed (twenty-seventh session).
  template <class Mask, int kGroupBegin = 0, int kGroupEnd = kKeyGroups>
  static FATTN_DEVICE void apply_mask(float (&s)[kScoreRegs], const Mask& mask, int row0,
                                      int col0, int seqlen_k) {
    const int lane = threadIdx.x % kWarpSize;
#pragma unroll
    for (int j = kGroupBegin; j < kGroupEnd; ++j) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int col = col0 + 8 * j + 2 * (lane % 4) + e;
          const int row = row0 + 8 * h;
          if (col >= seqlen_k || masked_by(mask, row, col)) s[4 * j + 2 * h + e] = -INFINITY;
        }
      }
    }
  }

  // Online softmax over one tile. Updates the running max and sum of the thread's two rows,
  // turns the scores into unnormalized probabilities, and returns the factor by which the
  // previous output must be rescaled. Rows with no visible key so far keep max = -inf; their
  // probabilities are exp2(-inf) = 0, never NaN. kGroups < kKeyGroups: only the first kGroups
  // 8-key groups are read and turned into probabilities (the keys after them are masked for
  // every row of the warpgroup; convert_p gives them P = 0).
  template <bool kLazyRescale, int kGroups = kKeyGroups>
  static FATTN_DEVICE void online_softmax(float (&s)[kScoreRegs], float (&row_max)[2],
                                          float (&row_sum)[2], float (&correction)[2],
                                          float scale_log2) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float tile_max = row_max[h];
#pragma unroll
      for (int j = 0; j < kGroups; ++j) {
        tile_max = fmaxf(tile_max, fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]));
      }
      // The four threads of a quad share a row.
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
      const bool empty_row = tile_max == -INFINITY;
      // kLazyRescale (lazy_rescale below): the row keeps its reference max while the tile's max
      // exceeds it by at most kRescaleThresholdLog2 powers of two (probabilities up to
      // 2^threshold, exact after the final division; -inf minus -inf is NaN, so a row's first
      // visible tile always sets it). With a negative softmax scale the test always keeps the
      // first tile's max: the exponents stay within the raw scores' spread times |scale|, the
      // same bound as without the threshold (the max is of the raw scores either way).
      bool keep_max = false;
      if constexpr (kLazyRescale) {
        keep_max = (tile_max - row_max[h]) * scale_log2 <= kRescaleThresholdLog2;
      }
      correction[h] =
          empty_row || keep_max ? 1.0f : fast_exp2((row_max[h] - tile_max) * scale_log2);
      if (!keep_max) row_max[h] = tile_max;
      const float max_scaled = empty_row ? 0.0f : row_max[h] * scale_log2;
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kGroups; ++j) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& v = s[4 * j + 2 * h + e];
          v = fast_exp2(fmaf(v, scale_log2, -max_scaled));
          sum += v;
        }
      }
      row_sum[h] = row_sum[h] * correction[h] + sum;
    }
  }

  // P as the A operand of the next wgmma: the score accumulators of keys 16c..16c+15 are, in
  // order, exactly the A fragment of k-chunk c (rows r and r+8, columns 2q, 2q+1, 2q+8, 2q+9).
  // Chunks from kChunks on are zeros (keys masked for every row, scores never computed).
  template <int kChunks = kPChunks>
  static FATTN_DEVICE void convert_p(const float (&s)[kScoreRegs], std::uint32_t (&p)[kPChunks][4]) {
#pragma unroll
    for (int c = 0; c < kPChunks; ++c) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        p[c][r] = c < kChunks ? pack_pair(s[8 * c + 2 * r], s[8 * c + 2 * r + 1],
                                          static_cast<Element*>(nullptr))
                              : 0u;
      }
    }
  }

  // Writes O / l of this warpgroup's 64 rows as 16-bit elements to `o_smem` (column block 0 of
  // its rows; blocks `block_bytes` apart) in the 128-byte swizzle a TMA store reads: 16-byte
  // chunk c of row r lies at chunk c ^ (r % 8). One stmatrix.x4 covers 16 rows × 16 columns of a
  // warp; the eight row addresses of each 8x8 matrix hit eight different chunks, so no bank
  // conflicts.
  // kShifted, for the sector-aligned-box kernels (kSectorBoxes): where V was loaded from column
  // -8 (`shift_chunks` = 1), accumulator column c holds output column c - 8, so each 8-column
  // chunk is staged one chunk to the left and O leaves by the usual TMA stores from column 0
  // (TMA refuses a store box at a negative column: h16-odd90, tma_probe case 2). The first chunk
  // (the zero-filled columns) goes to chunk kWidth / 8 instead, a column past D that the output
  // map clips (sector widths are narrower than the bucket).
  template <bool kShifted = false>
  static FATTN_DEVICE void stage_output(const float (&o)[kOutRegs], const float (&inv_sum)[2],
                                        std::uint32_t o_smem, std::uint32_t block_bytes,
                                        int shift_chunks = 0) {
    constexpr int kChunksPerRow = kTmaColumns / 8;
    constexpr std::uint32_t kChunkBytes = 16;
    const int lane = threadIdx.x % kWarpSize;
    const int warp = (threadIdx.x % kWarpgroupThreads) / kWarpSize;
    const int matrix = lane / 8;
    const int matrix_row = lane % 8;
    const int row = warp * 16 + 8 * (matrix % 2) + matrix_row;
#pragma unroll
    for (int j = 0; j < kOutRegs / 4; j += 2) {
      std::uint32_t r[4];
#pragma unroll
      for (int m = 0; m < 4; ++m) {
        const int h = m % 2;
        const int jj = j + m / 2;
        r[m] = pack_pair(o[4 * jj + 2 * h] * inv_sum[h], o[4 * jj + 2 * h + 1] * inv_sum[h],
                         static_cast<Element*>(nullptr));
      }
      int chunk = j + matrix / 2;
      if constexpr (kShifted) {
        constexpr int kSpareChunk = Traits::kWidth / 8;
        static_assert(kSpareChunk < Traits::kColumnBlocks * kChunksPerRow,
                      "the spare chunk lies inside the staged tile");
        chunk -= shift_chunks;
        if (chunk < 0) chunk = kSpareChunk;
      }
      const std::uint32_t address = o_smem + (chunk / kChunksPerRow) * block_bytes +
                                    row * kSwizzleRowBytes +
                                    ((chunk % kChunksPerRow) ^ matrix_row) * kChunkBytes;
      stmatrix_x4(address, r[0], r[1], r[2], r[3]);
    }
  }

  static FATTN_DEVICE void rescale(float (&o)[kOutRegs], const float (&correction)[2]) {
#pragma unroll
    for (int j = 0; j < kOutRegs / 4; ++j) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        o[4 * j + 2 * h] *= correction[h];
        o[4 * j + 2 * h + 1] *= correction[h];
      }
    }
  }
};

// Zeros for the rows [row_begin, row_end) of (batch, head) of O, by the calling warpgroup's
// threads, element by element (any head dim): only fully masked tiles take this path.
template <class Element>
FATTN_DEVICE void store_zero_rows(const ForwardParams& params, int head, int batch, int row_begin,
                                  int row_end) {
  auto* out = static_cast<Element*>(params.out) + batch * params.out_stride_batch +
              head * params.out_stride_head;
  const int thread = threadIdx.x % kWarpgroupThreads;
  for (int row = row_begin; row < row_end; ++row) {
    for (int col = thread; col < params.head_dim; col += kWarpgroupThreads) {
      out[row * params.out_stride_seq + col] = static_cast<Element>(0.0f);
    }
  }
}

// The output columns [out_tma_columns, head_dim) of the warpgroup's 64 rows from `row_begin` of
// (batch, head), copied element by element from the staged O tile (stage_output's swizzled
// layout, `o_smem` = the warpgroup's first row) by the calling warpgroup. The row end is
// recomputed here rather than kept live across the key loop. kRowsBelowZero: the rows may lie
// below row 0 (ForwardParams::row_offset; then all 64 do), and nothing is stored. (Tested here
// rather than by the caller: a flag kept live across the TMA stores made the D = 256 causal
// consumers spill 68 bytes.)
template <class Element, bool kRowsBelowZero>
FATTN_DEVICE void store_tail_columns(const ForwardParams& params, std::uint32_t o_smem,
                                     std::uint32_t block_bytes, int head, int batch,
                                     int row_begin) {
  constexpr int kChunkElements = 8;
  constexpr int kChunksPerRow = kTmaColumns / kChunkElements;
  constexpr std::uint32_t kChunkBytes = 16;
  auto* out = static_cast<Element*>(params.out) + batch * params.out_stride_batch +
              head * params.out_stride_head;
  const int tail = params.head_dim - params.out_tma_columns;
  const int rows =
      kRowsBelowZero && row_begin < 0 ? 0 : min(row_begin + kWgmmaM, params.seqlen_q) - row_begin;
  for (int i = threadIdx.x % kWarpgroupThreads; i < rows * tail; i += kWarpgroupThreads) {
    const int row = i / tail;
    const int col = params.out_tma_columns + i % tail;
    const int within = col % kTmaColumns;
    const int chunk = within / kChunkElements;
    const std::uint32_t address = o_smem + (col / kTmaColumns) * block_bytes +
                                  row * kSwizzleRowBytes +
                                  ((chunk ^ (row % kChunksPerRow)) * kChunkBytes) +
                                  (within % kChunkElements) * sizeof(Element);
    std::uint16_t bits;
    asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(bits) : "r"(address));
    out[(row_begin + row) * params.out_stride_seq + col] = *reinterpret_cast<Element*>(&bits);
  }
}

// A row's log-sum-exp from its summed exponentials and running maximum; -inf for a row that
// saw no key.
// __logf (MUFU.LG2 and a multiply; absolute error ~1e-7 in the log) instead of logf's
// polynomial and its special-case branches: the LSE phase of the epilogue measured ~1,000 SM
// clocks per tile in every timeline (docs/perf-notes.md, v14, v16), all consumers at once.
FATTN_DEVICE float row_lse(float sum, float row_max, float scale) {
  return sum > 0.0f ? row_max * scale + __logf(sum) : -INFINITY;
}
// 1 / sum for O's normalization with the fast reciprocal (MUFU.RCP, ~1 ulp before the 16-bit
// rounding of O) instead of the IEEE division's subroutine call and fix-up branches.
FATTN_DEVICE float inverse_row_sum(float sum) {
  return sum > 0.0f ? __fdividef(1.0f, sum) : 0.0f;
}
// The register-store and staged epilogues' row sum (the quad's four partial sums) and its IEEE
// reciprocal, not inverse_row_sum: with that, ptxas spilled 4 bytes in the windowed
// heads-as-columns kernel of width 224 (these epilogues' main users are those rare layouts, not
// the benchmarked TMA-store kernels); both epilogues use it, so their outputs agree bit for bit.
FATTN_DEVICE float quad_row_sum(float partial) {
  partial += __shfl_xor_sync(0xffffffffu, partial, 1);
  return partial + __shfl_xor_sync(0xffffffffu, partial, 2);
}
FATTN_DEVICE float exact_inverse_row_sum(float sum) { return sum > 0.0f ? 1.0f / sum : 0.0f; }
FATTN_DEVICE void store_lse(const ForwardParams& params, int batch, int head, int row, float lse) {
  params.lse[batch * params.lse_stride_batch + head * params.lse_stride_head + row] = lse;
}

// Heads as columns (heads_as_columns.hpp): a head's boxes start at the 16-byte word holding its
// first column (head_word_column), which lands `phase` columns into the tile (head_phase). The
// empty asm makes each value one of its own: hoisted out of the key loop, the eight K and V
// columns spilled the producer's 24 registers (ptxas, width 256 unmasked).
inline constexpr int kColumnsPerWord = 8;  // 16-bit elements per 16-byte word
FATTN_DEVICE int head_phase(const HeadColumns& columns, int head) {
  int phase = (columns.origin + head * columns.step) & (kColumnsPerWord - 1);
  asm volatile("" : "+r"(phase));
  return phase;
}
FATTN_DEVICE int head_word_column(const HeadColumns& columns, int head) {
  int first = (columns.origin + head * columns.step) & ~(kColumnsPerWord - 1);
  asm volatile("" : "+r"(first));
  return first;
}

// Sector-aligned boxes (kSectorBoxes; forward.cuh, sector_box_bits): head dims D = 16·k + 8
// whose rows start on a 16-byte but not a 32-byte boundary (packed layouts: every other head,
// 2·D bytes apart) load their boxes from column -8 instead of 0, so that each box ends on a
// 32-byte L2 sector boundary and no sector is read by two boxes (D = 72 at column 0: the
// 128-byte box ends mid-sector and the 16-byte tail box reads that sector again, 6 sectors a
// row where 5 hold it). TMA zero-fills the columns before the head (out of the map's bounds),
// so the tile holds the head in columns [8, 8 + D) = [8, W) with zeros in front: Q (loaded
// with its key head's shift) and K meet zeros there, P·V leaves O's column c in accumulator
// column c + 8, and the epilogue stages O one 16-byte chunk to the left
// (Consumer::stage_output<true>) so that the TMA stores run from column 0 as before: a store
// box at column -8 stops the kernel with an illegal instruction, a load box there is fine
// (h16-odd90's tma_probe.cu on an H200: cases 1 and 2).
// `bits.step`: kSectorShiftColumns where the tensor's head stride is an odd multiple of 16 bytes,
// else 0 (the launch asks for base addresses and batch strides that are 32-byte multiples and
// sequence strides too, so a head's parity alone places its rows).
inline constexpr int kSectorShiftColumns = 8;
FATTN_DEVICE int sector_shift(const HeadColumns& bits, int head) {
  return (head * kSectorShiftColumns) & bits.step;
}

// Zeros the columns [0, phase) and [phase + head_dim, kWidth) of the calling warpgroup's 64 rows
// of the Q tile (`q_smem`: its first row in column block 0; blocks `block_bytes` apart, 128-byte
// swizzled as TMA wrote them). Heads-as-columns kernels only: there TMA filled those columns
// with the neighbouring heads' data, which Q·Kᵀ must not see. Generic-proxy stores: the caller
// fences them for wgmma.
template <class Element, int kWidth>
FATTN_DEVICE void zero_q_padding(int head_dim, int phase, std::uint32_t q_smem,
                                 std::uint32_t block_bytes) {
  constexpr int kChunkElements = 8;
  constexpr int kChunksPerRow = kTmaColumns / kChunkElements;
  constexpr std::uint32_t kChunkBytes = 16;
  const int padding = kWidth - head_dim;
  for (int i = threadIdx.x % kWarpgroupThreads; i < kWgmmaM * padding; i += kWarpgroupThreads) {
    const int row = i / padding;
    const int pad = i % padding;
    const int col = pad < phase ? pad : head_dim + pad;
    const int within = col % kTmaColumns;
    const int chunk = within / kChunkElements;
    const std::uint32_t address = q_smem + (col / kTmaColumns) * block_bytes +
                                  row * kSwizzleRowBytes +
                                  ((chunk ^ (row % kChunksPerRow)) * kChunkBytes) +
                                  (within % kChunkElements) * sizeof(Element);
    asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(address), "h"(std::uint16_t{0}));
  }
}

// ---- the kernel ---------------------------------------------------------------------------

// Causal padding first: query tiles are counted from the last row (decode_tile), so when
// seqlen_q is not a multiple of kBlockM the whole 64-row slices of padding go before row 0
// (ForwardParams::row_offset) instead of after the last row, and the partly empty tile is the one
// at the top of the causal triangle, which sees the fewest keys, instead of the one at the
// bottom, which sees them all. Counted in 64-row x 128-key GEMM units at D = 64 (192-row tiles,
// Nq = Nk): N = 1024 96 -> 81, 4096 1152 -> 1089, 16384 16896 -> 16641 (N = 512: 27 -> 24).
// Only tiles of three or more consumer slices (192 rows, D = 64) do it. Measured on an H100
// (docs/perf-notes.md "v9"): D = 64 causal +13.5 % at N = 1k, +7 % at 4k, +1.6 % at 16k; the
// two-consumer D = 128 / 256 causal kernels, whose tiles the sweep's N never pads (128-row tiles
// change only where N % 128 is in 1..64), ran 0-13 % slower with the extra code (0.87 at
// D = 256 N = 16k), so they compile without it.
inline constexpr int kPaddingFirstMinConsumers = 3;
template <class Traits>
inline constexpr bool causal_padding_first =
    Traits::kConsumerWarpgroups >= kPaddingFirstMinConsumers;

// Which kernels test for a key tile reaching past seqlen_k only at the first tile they walk (the
// key loop): tiles run from the last key tile down (NoMask kernels always do; only masked ones
// take keys_ascending_even_rounds), and only the last one can be ragged, so the test and its
// per-element path leave the loop body. In the unmasked width-256 kernel that path's scalars were
// what spilled 8 bytes with the lazy rescale (SASS: one STL/LDL pair at the ping-pong barrier, one
// in the ragged mask path); without them it takes the lazy rescale with 0 spills. Measured on an
// H100 beside the v9 kernels and cuDNN (docs/perf-notes.md "v10", two runs): D = 256 non-causal
// +5.6 % (1.04-1.08 in all six samples), D = 128 non-causal +4.2 % (+8 % at N = 1k); D = 64 0.99
// (neutral within the noise), so its kernels keep the test in the loop. D = 192 takes it with the
// lazy rescale and the pinned P·V wait (perf-notes "v31": together +12-15 % non-causal at
// N >= 2k, +5-8 % at 1k).
// Masked kernels test every tile against the mask anyway.
template <int kHeadDim, class Mask>
inline constexpr bool ragged_test_first_tile_only =
    std::is_same_v<Mask, NoMask> && (kHeadDim == 128 || kHeadDim == 192 || kHeadDim == 256);

// Which kernels keep the running max within kRescaleThresholdLog2 and skip the O rescale of
// warps whose rows all kept it (tile_config.hpp). Measured on an H100 against rescaling after
// every key tile (docs/perf-notes.md "v9", call 3, two runs): D = 128 +1.6 % non-causal, +3.0 %
// causal; D = 256 +5.6 % causal, +5.1 % non-causal. The unmasked width-256 kernel only where its
// loop has no ragged-key test (ptxas spilled 8 bytes in its ping-pong consumers with both; "v10":
// +5.6 % non-causal D = 256 with the two changes together, 0 spills). Not D = 64 (the
// 160-register three-consumer kernels ran 3.5 % / 1.3 % slower). D = 192 ("v31", H100, four
// runs in turns): +5-7 % non-causal alone, +1-4 % causal (the masked kernels take only this).
template <int kHeadDim, int kWidth, class Mask>
inline constexpr bool lazy_rescale =
    kRescaleThresholdLog2 > 0 && (kHeadDim == 128 || kHeadDim == 192 || kHeadDim == 256) &&
    (ragged_test_first_tile_only<kHeadDim, Mask> ||
     !(kWidth == 256 && std::is_same_v<Mask, NoMask>));

// Whether a heads-as-columns kernel of work width `width` stores O through shared memory
// (output_staging.cuh), not from its registers (4-byte pairs): chosen by measurement (H100, fp16,
// packed tensors, B = 16, H = 16, N = 2048, outputs bitwise the register stores'). Staged in the
// V ring (the 192 and 256 buckets), the first staging (twenty-second session) gained at widths
// 144 (x1.035-1.08) and 208 (x1.05-1.10) and lost at 240 (x0.79-0.97): its signed staging
// addresses cost ~33 instructions a pair. With the addresses unsigned and hoisted (twenty-fourth
// session, perf-notes "Hopper staged O v2") every V-ring width gains over the register stores:
// 217 / 234 (widths 224 / 240) x1.021 / 1.022 non-causal, x1.067 / 1.074 causal, bf16 x1.074 /
// 1.034, and 144..208 gained again over the first staging (x1.04-1.08, causal x1.10-1.16). So
// every V-ring width stages; s24-ostage3's cheaper passes and address table added x1.02-1.05
// there. The 128 bucket (widths 80 / 96) keeps the register stores: it has no V ring to stage in
// (kOutAliasesV), and staged in its own O buffer it lost with the first staging (x0.91-0.975)
// and came out even with the cheap one (D = 74 / 76 / 90 x0.985-1.013, twenty-fourth session,
// perf-notes "Hopper staged O v3"), not worth its second synchronization scheme.
inline constexpr int kWidestStagedOutputWidth = 256;  // the widest bucket: all of them
template <class Traits>
constexpr bool stages_heads_as_columns_output(int width) {
  return Traits::kOutAliasesV && width <= kWidestStagedOutputWidth;
}

// Whether a kernel's producer issues the O stores (TileShape::producer_stores): only unmasked
// kernels whose O reuses the V ring.
template <class Traits, class Mask>
inline constexpr bool kProducerStoresOutput = std::is_same_v<Mask, NoMask> &&
                                              Traits::kShape.tma_store && Traits::kOutAliasesV &&
                                              Traits::kShape.producer_stores;

// Persistent: each CTA walks its tiles (TileScheduler). The producer runs ahead across tile
// boundaries — it loads the next tile's Q as soon as every consumer is done with the current
// Q, and its K/V ring never drains — so a tile's prologue (first loads) hides under the previous
// tile's last P·V and epilogue. kRegisterStores: the register-store epilogue whatever the tile
// shape says (forward.cuh picks it where the producer-store epilogue cannot write the output).
// kHeadsAsColumns: q, k and v come as heads-as-columns tensor maps (heads_as_columns.hpp); such
// kernels store O by their own stores, staged where kStagedOutput (a TMA store box would write
// into the neighbouring heads), and those whose width ends inside a column block
// load its last block through `tail_maps` (TailBoxMaps; every other kernel gets the empty
// NoTailBoxMaps).
// kSectorBoxes: boxes from column -8 where a head's rows start 16 bytes into a 32-byte sector
// (sector_shift; forward.cuh picks these kernels for D = 16·k + 8).
// kFitShape: the bucket's fit tile shape (forward.cuh picks it for some launches of one mask).
template <int kHeadDim, int kWidth, class Element, class Mask, bool kRegisterStores = false,
          bool kHeadsAsColumns = false, bool kSectorBoxes = false, bool kFitShape = false>
__global__ void __launch_bounds__(ForwardTraits<kHeadDim, Element, kWidth, kFitShape>::kThreads, 1)
    forward_kernel(const __grid_constant__ CUtensorMap tma_q,
                   const __grid_constant__ CUtensorMap tma_k,
                   const __grid_constant__ CUtensorMap tma_v,
                   const __grid_constant__ CUtensorMap tma_o, const Mask mask,
                   const ForwardParams params,
                   const __grid_constant__ TailBoxMapsOf<kHeadsAsColumns, kWidth> tail_maps) {
  using Traits = ForwardTraits<kHeadDim, Element, kWidth, kFitShape>;
  constexpr bool kBranchedMaskTest =
      kHeadsAsColumns && Traits::kShape.heads_as_columns_branched_mask_test;
  using Math = Consumer<Traits, Element, kBranchedMaskTest>;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kStages = Traits::kStages;
  constexpr bool kPingPong = std::is_same_v<Mask, NoMask> ? Traits::kShape.ping_pong
                                                          : Traits::kShape.ping_pong_masked;
  constexpr bool kTmaStore = !kRegisterStores && (std::is_same_v<Mask, NoMask>
                                                      ? Traits::kShape.tma_store
                                                      : Traits::kShape.tma_store_masked);
  // Where O reuses the V ring in this kernel (the bucket's layout leaves room for it either way).
  constexpr bool kOutInV = kTmaStore && Traits::kOutAliasesV;
  // Heads as columns at some widths: O staged in the V ring (output_staging.cuh); the consumers
  // wait for each other before staging and each warp arrives on o_stored once it has read its
  // rows back; the producer loads a tile's first V after that, as for the TMA stores.
  constexpr bool kStagedOutput =
      kHeadsAsColumns && stages_heads_as_columns_output<Traits>(kWidth);
  constexpr bool kRingHoldsOutput = kOutInV || kStagedOutput;
  constexpr bool kLazyRescale = lazy_rescale<kHeadDim, kWidth, Mask>;
  constexpr bool kPinPvWait = Traits::kShape.pin_pv_wait_unmasked &&
                              std::is_same_v<Mask, NoMask> && kWidth == kHeadDim;
  constexpr bool kRaggedTestFirstTileOnly = ragged_test_first_tile_only<kHeadDim, Mask>;
  constexpr bool kLseAfterOutput = Traits::kShape.lse_after_output;
  // Tail boxes (TailBoxMaps): the last column block of Q, K and V comes through the tail maps.
  constexpr bool kTailBoxes = tail_boxes<kHeadsAsColumns, kWidth>;
  // Tail-box kernels decode by divisions too: with TileDivisors' values live, a second map for
  // the last box made ptxas spill them (12-20 bytes in the masked 128-bucket producers, 20-88
  // in the masked 192 ones); these rare layouts pay a few divisions per tile instead. So do the
  // kernels that stage O in the V ring: the o_stored wait made the windowed width-192 producer
  // spill 16 bytes.
  constexpr bool kDividedDecode = Traits::kShape.divided_tile_decode || kTailBoxes || kStagedOutput;
  // TileShape::first_tile_coverage, in masked kernels: the first key tile is seen in two parts,
  // kPrefixKeys (a whole number of P's 16-key chunks, half the tile rounded up) and the rest;
  // the softmax works on the parts a warpgroup's rows can see, the mask is tested on the second
  // part alone where they all see the first.
  // Not the heads-as-columns kernels (rare row alignments): with it their windowed D = 256 key
  // loops grew by 10-70 instructions.
  constexpr bool kFirstTileCoverage = Traits::kShape.first_tile_coverage &&
                                      !std::is_same_v<Mask, NoMask> && !kHeadsAsColumns;
  constexpr int kPrefixKeys = (kBlockN / 2 + kWgmmaK - 1) / kWgmmaK * kWgmmaK;
  constexpr int kPrefixGroups = kPrefixKeys / Math::kKeysPerGroup;
  constexpr int kPrefixChunks = kPrefixKeys / kWgmmaK;
  static_assert(kPrefixKeys < kBlockN, "the prefix leaves keys to skip");
  // TileShape::keys_ascending_even_rounds: where a masked launch runs one pair per scheduler
  // group (num_m_blocks <= one_pair_groups_max_m_blocks, no small_n_pairs_per_query_tile), the
  // tiles of even rounds walk their key tiles from the first up, the diagonal last. Not the
  // heads-as-columns kernels (rare layouts, no first-tile coverage either).
  constexpr bool kAscendingRounds = Traits::kShape.keys_ascending_even_rounds &&
                                    Traits::kShape.small_n_pairs_per_query_tile == 0 &&
                                    !std::is_same_v<Mask, NoMask> && !kHeadsAsColumns;
  auto keys_ascending = [&](int round) {
    return kAscendingRounds && (round & 1) == 0 &&
           params.num_m_blocks <= Traits::kShape.one_pair_groups_max_m_blocks;
  };
  // Only causal kernels read the row offset (the others compile as before it existed), and only
  // there can a consumer's rows lie below row 0.
  constexpr bool kRowsBelowZero =
      causal_padding_first<Traits> && std::is_same_v<Mask, CausalMask>;
  const int row_offset = kRowsBelowZero ? params.row_offset : 0;
  // Is a query row one of the output's? One unsigned comparison tests both ends (rows below 0
  // wrap to large values), as cheap as the one-ended test (the D = 256 causal consumers spilled
  // 68 bytes with two comparisons).
  auto row_in_output = [&](int row) {
    return kRowsBelowZero ? static_cast<unsigned>(row) < static_cast<unsigned>(params.seqlen_q)
                          : row < params.seqlen_q;
  };
  constexpr bool kProducerStores = !kRegisterStores && kProducerStoresOutput<Traits, Mask>;
  // TileShape::second_key_before_output, where O reuses the V ring.
  constexpr bool kKeyAhead = kOutInV && Traits::kShape.second_key_before_output;
  static_assert(!kHeadsAsColumns || kRegisterStores,
                "a TMA store box of a heads-as-columns row would write into the next head");
  static_assert(!kSectorBoxes || (kTmaStore && !kHeadsAsColumns),
                "sector-aligned boxes shift O's columns, which only the staged epilogue puts back");
  // The tensor-map coordinates of column block `block` of a head and of its head dimension:
  // heads as columns put the head into the column (from the 16-byte word holding its first
  // element: a box starts on a 16-byte boundary) and leave the (extent-1) head dimension at 0.
  auto column = [&](const HeadColumns& columns, int head, int block) {
    if constexpr (kHeadsAsColumns) {
      return head_word_column(columns, head) + block * kTmaColumns;
    } else {
      return block * kTmaColumns;
    }
  };
  auto head_coordinate = [](int head) { return kHeadsAsColumns ? 0 : head; };
  // With tail boxes each row of a tile brings kWidth columns instead of the bucket's: the
  // transaction bytes its full barrier expects.
  constexpr int kLoadedColumns = kTailBoxes ? kWidth : kHeadDim;
  constexpr int kQLoadBytes = kBlockM * kLoadedColumns * static_cast<int>(sizeof(Element));
  constexpr int kKvLoadBytes = kBlockN * kLoadedColumns * static_cast<int>(sizeof(Element));
  static_assert(kTailBoxes ||
                    (kQLoadBytes == Traits::kQBytes && kKvLoadBytes == Traits::kKvTileBytes),
                "whole boxes fill the tiles");
  const CUtensorMap* last_q = &tma_q;
  const CUtensorMap* last_k = &tma_k;
  const CUtensorMap* last_v = &tma_v;
  if constexpr (kTailBoxes) {
    last_q = &tail_maps.q;
    last_k = &tail_maps.k;
    last_v = &tail_maps.v;
  }
  auto box_map = [](const CUtensorMap* whole, const CUtensorMap* last, int block) {
    return kTailBoxes && block == Traits::kColumnBlocks - 1 ? last : whole;
  };

  extern __shared__ std::uint8_t smem_unaligned[];
  std::uint8_t* smem = reinterpret_cast<std::uint8_t*>(
      (reinterpret_cast<std::uintptr_t>(smem_unaligned) + Traits::kAlignment - 1) &
      ~static_cast<std::uintptr_t>(Traits::kAlignment - 1));
  auto* bars = reinterpret_cast<PipelineBarriers<kStages>*>(smem + Traits::kBarrierOffset);

  const TileScheduler scheduler{params.num_m_blocks, params.heads_q, params.heads_q * params.batch,
                                params.heads_per_group};
  // Built here, once per CTA, not passed in ForwardParams: any field added there (even 1 unused
  // byte) made ptxas spill 4 bytes in the windowed heads-as-columns D = 256 kernel of width 224.
  const TileDivisors divisors = kDividedDecode ? TileDivisors{} : TileDivisors(scheduler);
  const int total_tiles = scheduler.total_tiles();
  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  const int lane = threadIdx.x % kWarpSize;

  if (threadIdx.x == 0) {
    mbarrier_init(&bars->q_full, 1);
    mbarrier_init(&bars->q_empty, Traits::kConsumerWarps);
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&bars->k_full[s], 1);
      mbarrier_init(&bars->v_full[s], 1);
      mbarrier_init(&bars->k_empty[s], Traits::kConsumerWarps);
      mbarrier_init(&bars->v_empty[s], Traits::kConsumerWarps);
    }
    // One arrival per store thread, or per warp where the producer stores (each warp's
    // staging is done) or where the consumers stage O themselves (each warp's rows are read).
    if constexpr (kRingHoldsOutput) {
      mbarrier_init(&bars->o_stored, kProducerStores || kStagedOutput ? Traits::kConsumerWarps
                                                                   : Traits::kConsumerWarpgroups);
    }
    fence_barrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {
    // ---------------- producer ----------------
    release_registers<kProducerRegisters>();
    if (threadIdx.x != 0) return;
    FATTN_TIMELINE_TRACK(params, 0, true);
    prefetch_tensor_map(&tma_q);
    prefetch_tensor_map(&tma_k);
    prefetch_tensor_map(&tma_v);
    if constexpr (kTailBoxes) {
      prefetch_tensor_map(last_q);
      prefetch_tensor_map(last_k);
      prefetch_tensor_map(last_v);
    }
    int kv_iteration = 0;
    int q_round = 0;
    // Producer stores: the coordinates of the last tile whose V loads were issued, i.e. of the
    // O tile the consumers stage next. store_staged(j, stage, whole) waits until the consumers
    // staged the j-th tile with loads (1-based: phase j - 1 of o_stored, one arrival per consumer
    // warp) and stores its rows with one TMA store per consumer and 64 columns (the map clips
    // rows past seqlen_q), in two bulk groups: the boxes that overlap V ring stage `stage`, where
    // the next V lands, then the rest (D = 256: 64 KB of O over two 40 KB stages, 5 or 3 of its 8
    // boxes). It waits until the first group has read shared memory, or both where `whole`; the
    // caller waits for the rest before the V after (the other stage).
    // The launch sends no head dim with columns past the map here (forward.cuh).
    int staged_head = 0;
    int staged_batch = 0;
    int staged_row = 0;
    auto store_staged = [&](int staged_round, int stage, bool whole) {
      if constexpr (kProducerStores) {
        constexpr int kBoxBytes = kWgmmaM * kSwizzleRowBytes;
        // Bulk groups: the boxes over `stage`, then the rest.
        constexpr int kStoreGroups = 2;
        mbarrier_wait(&bars->o_stored, static_cast<std::uint32_t>((staged_round - 1) & 1));
#pragma unroll
        for (int group = 0; group < kStoreGroups; ++group) {
#pragma unroll
          for (int c = 0; c < Traits::kConsumerWarpgroups; ++c) {
#pragma unroll
            for (int b = 0; b < Traits::kOutColumnBlocks; ++b) {
              const int box = Traits::kOOffset - Traits::kVOffset +
                              b * Traits::kQColumnBlockBytes + c * kBoxBytes;
              const bool overlaps = box / Traits::kKvTileBytes <= stage &&
                                    stage <= (box + kBoxBytes - 1) / Traits::kKvTileBytes;
              if (overlaps != (group == 0)) continue;
              if (staged_row + c * kWgmmaM >= params.seqlen_q) continue;
              if (b * kTmaColumns < params.out_tma_columns) {
                tma_store_4d(&tma_o, smem + Traits::kOOffset + b * Traits::kQColumnBlockBytes +
                                         c * kBoxBytes,
                             b * kTmaColumns, staged_row + c * kWgmmaM, staged_head,
                             staged_batch);
              }
            }
          }
          bulk_commit_group();
        }
        if (whole) {
          bulk_wait_group_read<0>();
        } else {
          bulk_wait_group_read<kStoreGroups - 1>();  // the first group read, the rest may run
        }
      }
    };
    for (int round = 0; round * static_cast<int>(gridDim.x) < total_tiles; ++round) {
      const int tile = scheduler.position(round, blockIdx.x, gridDim.x);
      if (tile >= total_tiles) continue;
      const auto [head, batch, row_begin, row_end, first_tile, last_tile] =
          decode_tile<kBlockM, kBlockN, kDividedDecode>(
              scheduler, divisors, mask, tile, params.seqlen_q, row_offset);
      if (last_tile == first_tile) continue;  // fully masked: the consumers write zeros
      const bool ascending = keys_ascending(round);
      FATTN_TIMELINE_MARK(kProducerTileStart, tile);
      // q_round counts the tiles with loads. Where O reuses the V ring, the first V of the j-th
      // such tile waits until the consumers' stores of tile j - 1 have read it (phase j - 1
      // of o_stored, the same parity as the q_empty wait; fully masked tiles store their zeros
      // without the ring and take no phase).
      const std::uint32_t output_phase = (q_round & 1) ^ 1;
      const int kv_head = head / params.group_size;
      // kSectorBoxes: Q takes its key head's shift (Q·Kᵀ pairs their columns), V its own;
      // recomputed at each load (sector_shift is opaque): two shifts kept live across the key
      // loop spilled 8-20 bytes in the masked width-144/160 kernels (ptxas).
      const int k_shift = kSectorBoxes ? sector_shift(params.k_columns, kv_head) : 0;
      const int v_shift = kSectorBoxes ? sector_shift(params.v_columns, kv_head) : 0;
      // A fresh barrier counts as having completed the phase before phase 0, so the first
      // round through each buffer does not wait.
      mbarrier_wait(&bars->q_empty, (q_round & 1) ^ 1);
      FATTN_TIMELINE_MARK(kQEmptyWaited, 0);
      ++q_round;
      mbarrier_arrive_expect_tx(&bars->q_full, kQLoadBytes);
#pragma unroll
      for (int b = 0; b < Traits::kColumnBlocks; ++b) {
        tma_load_4d(box_map(&tma_q, last_q, b), &bars->q_full,
                    smem + Traits::kQOffset + b * Traits::kQColumnBlockBytes,
                    column(params.q_columns, head, b) - k_shift, row_begin,
                    head_coordinate(head), batch);
      }
      FATTN_TIMELINE_MARK(kQIssued, 0);
      for (int n = last_tile - 1; n >= first_tile; --n, ++kv_iteration) {
        // walked_key_tile at step last_tile - 1 - n, written for the loop's n.
        const int key_tile = ascending ? first_tile + last_tile - 1 - n : n;
        const RingSlot slot = ring_slot<kStages>(kv_iteration);
        std::uint8_t* k_dst = smem + Traits::kKOffset + slot.stage * Traits::kKvTileBytes;
        std::uint8_t* v_dst = smem + Traits::kVOffset + slot.stage * Traits::kKvTileBytes;
        // kKeyAhead: the second step's K went out with the first step's (below).
        if (!kKeyAhead || n != last_tile - 2) {
          mbarrier_wait(&bars->k_empty[slot.stage], slot.phase ^ 1);
          FATTN_TIMELINE_MARK(kKEmptyWaited, last_tile - 1 - n);
          mbarrier_arrive_expect_tx(&bars->k_full[slot.stage], kKvLoadBytes);
#pragma unroll
          for (int b = 0; b < Traits::kColumnBlocks; ++b) {
            tma_load_4d(box_map(&tma_k, last_k, b), &bars->k_full[slot.stage],
                        k_dst + b * Traits::kKvColumnBlockBytes,
                        column(params.k_columns, kv_head, b) - k_shift, key_tile * kBlockN,
                        head_coordinate(kv_head), batch);
          }
          FATTN_TIMELINE_MARK(kKIssued, last_tile - 1 - n);
        }
        // kKeyAhead: the second step's K before the wait for the previous tile's O (below), which
        // must leave the V ring before this V may land; its slot was freed at the previous tile's
        // last Q·Kᵀ, before that tile's epilogue. Where the producer stores O it goes out just
        // before store_staged: issued here, above the o_stored branch, the unmasked width-256
        // kernel spilled 12 bytes in its consumers (ptxas, 240 registers). A lambda, its body
        // discarded where kKeyAhead is off: the block moved into the branch changed the code of
        // every masked kernel, a lambda with a live body that of the register-store ones.
        auto key_ahead = [&] {
          if constexpr (kKeyAhead) {
            if (n == last_tile - 1 && n > first_tile) {
              // walked_key_tile at step 1.
              const int ahead_tile = ascending ? key_tile + 1 : n - 1;
              const RingSlot ahead = ring_slot<kStages>(kv_iteration + 1);
              std::uint8_t* ahead_dst =
                  smem + Traits::kKOffset + ahead.stage * Traits::kKvTileBytes;
              mbarrier_wait(&bars->k_empty[ahead.stage], ahead.phase ^ 1);
              FATTN_TIMELINE_MARK(kKEmptyWaited, 1);
              mbarrier_arrive_expect_tx(&bars->k_full[ahead.stage], kKvLoadBytes);
#pragma unroll
              for (int b = 0; b < Traits::kColumnBlocks; ++b) {
                tma_load_4d(box_map(&tma_k, last_k, b), &bars->k_full[ahead.stage],
                            ahead_dst + b * Traits::kKvColumnBlockBytes,
                            column(params.k_columns, kv_head, b) - k_shift,
                            ahead_tile * kBlockN,
                            head_coordinate(kv_head), batch);
              }
              FATTN_TIMELINE_MARK(kKIssued, 1);
            }
          }
        };
        if constexpr (!kProducerStores) key_ahead();
        if (kRingHoldsOutput && n == last_tile - 1) {
          if constexpr (kProducerStores) {
            key_ahead();
            // The previous tile's O, staged where this V goes (q_round counts this tile).
            if (q_round > 1) store_staged(q_round - 1, slot.stage, n == first_tile);
            staged_head = head;
            staged_batch = batch;
            staged_row = row_begin;
          } else {
            mbarrier_wait(&bars->o_stored, output_phase);
          }
        }
        // Producer stores: the second step's V goes where the rest of the previous O was (and
        // the consumers stage the next O only after that V: one-step tiles wait for all above).
        if (kProducerStores && n == last_tile - 2) bulk_wait_group_read<0>();
        mbarrier_wait(&bars->v_empty[slot.stage], slot.phase ^ 1);
        FATTN_TIMELINE_MARK(kVEmptyWaited, last_tile - 1 - n);
        mbarrier_arrive_expect_tx(&bars->v_full[slot.stage], kKvLoadBytes);
#pragma unroll
        for (int b = 0; b < Traits::kColumnBlocks; ++b) {
          tma_load_4d(box_map(&tma_v, last_v, b), &bars->v_full[slot.stage],
                      v_dst + b * Traits::kKvColumnBlockBytes,
                      column(params.v_columns, kv_head, b) - v_shift, key_tile * kBlockN,
                      head_coordinate(kv_head), batch);
        }
      }
    }
    if constexpr (kProducerStores) {
      // The last tile's O; its stores must finish before the CTA's shared memory goes away (no V
      // follows: any stage orders the groups, and `whole` waits for both).
      if (q_round > 0) store_staged(q_round, 0, true);
      bulk_wait_group<0>();
    }
    FATTN_TIMELINE_END();
    return;
  }

  // ---------------- consumers ----------------
  claim_registers<Traits::kConsumerRegisters>();
  const int consumer = warpgroup - 1;
  const int warp_in_group = (threadIdx.x % kWarpgroupThreads) / kWarpSize;
  FATTN_TIMELINE_TRACK(params, warpgroup, threadIdx.x % kWarpgroupThreads == 0);
  const std::uint32_t q_base =
      smem_address(smem + Traits::kQOffset) + consumer * kWgmmaM * kSwizzleRowBytes;
  const std::uint32_t k_base = smem_address(smem + Traits::kKOffset);
  const std::uint32_t v_base = smem_address(smem + Traits::kVOffset);
  auto release = [&](std::uint64_t* barrier) {
    __syncwarp();
    if (lane == 0) mbarrier_arrive(barrier);
  };
  // Ping-pong: a warpgroup issues its GEMMs only when the one before it (round-robin) has issued
  // its own, then passes the turn to the next. Every consumer takes the same number of turns (one
  // per GEMM issue round: all of a CTA's consumers walk the same key tiles), consumer 0 going
  // first: the last consumer passes the very first turn.
  // With two consumers the next one is "the other one", written as before three were possible:
  // the two-consumer kernels compile to the same PTX as the version measured in
  // docs/perf-notes.md (v4-v6, work widths).
  constexpr int kConsumers = Traits::kConsumerWarpgroups;
  auto take_turn = [&] {
    if constexpr (kPingPong) named_barrier_sync(kSchedulerBarrier + consumer, kTurnThreads);
  };
  auto pass_turn = [&] {
    if constexpr (kPingPong) {
      const int next = kConsumers == 2 ? 1 - consumer : (consumer + 1) % kConsumers;
      named_barrier_arrive(kSchedulerBarrier + next, kTurnThreads);
    }
  };
  if (consumer == kConsumers - 1) pass_turn();

  // The TMA-store epilogue: thread 0 of each consumer issues its warpgroup's stores. Named
  // barriers after the ping-pong's: one per consumer (its rows are staged), and one over all
  // consumers (where O reuses the V ring, nobody may still be reading V).
  constexpr int kOutputBarrier = kSchedulerBarrier + kConsumers;
  constexpr int kAllConsumersBarrier = kOutputBarrier + kConsumers;
  static_assert(!(kTmaStore || kStagedOutput) || kAllConsumersBarrier < kNamedBarrierIds,
                "named barrier ids run from 1 to 15");
  // Computed where used, not kept across the tile loop: the D = 256 ping-pong consumers have
  // no register to spare (ptxas spilled with these two held).
  auto store_thread = [] { return threadIdx.x % kWarpgroupThreads == 0; };
  // Where O reuses the V ring, the producer loads a tile's first V only after every consumer's
  // stores of the previous tile have read shared memory. The store thread confirms that (and
  // arrives on o_stored) at the next tile's first Q·Kᵀ, so the wait hides under the GEMM. Every
  // tile with loads ends with a TMA store, so one is pending whenever key tiles were walked
  // before (kv_done > 0).
  auto confirm_output_read = [&](int kv_done) {
    if constexpr (kOutInV && !kProducerStores) {
      if (kv_done > 0 && store_thread()) {
        bulk_wait_group_read<0>();
        mbarrier_arrive(&bars->o_stored);
      }
    }
  };

  int kv_iteration = 0;
  int q_round = 0;
  for (int round = 0; round * static_cast<int>(gridDim.x) < total_tiles; ++round) {
    const int tile = scheduler.position(round, blockIdx.x, gridDim.x);
    if (tile >= total_tiles) continue;
    const TileWork work = decode_tile<kBlockM, kBlockN, kDividedDecode>(
        scheduler, divisors, mask, tile, params.seqlen_q, row_offset);
    const auto [head, batch, row_begin, row_end, first_tile, last_tile] = work;
    const int num_tiles = last_tile - first_tile;
    const bool ascending = keys_ascending(round);
    auto walked_tile = [&](int i) { return walked_key_tile(ascending, first_tile, last_tile, i); };
    FATTN_TIMELINE_MARK(kTileStart, tile);
    // This thread's two rows: r and r + 8 (wgmma accumulator layout).
    const int row0 = row_begin + consumer * kWgmmaM + warp_in_group * 16 + lane / 4;
    const int group_rows_begin = row_begin + consumer * kWgmmaM;
    const int group_rows_end = min(group_rows_begin + kWgmmaM, params.seqlen_q);

    float o[Math::kOutRegs];
    float s[Math::kScoreRegs];
    std::uint32_t p[Math::kPChunks][4];
    float row_max[2] = {-INFINITY, -INFINITY};
    float row_sum[2] = {0.0f, 0.0f};
    float correction[2];
#pragma unroll
    for (int i = 0; i < Math::kOutRegs; ++i) o[i] = 0.0f;

    // Per-element masking only where the tile straddles the mask boundary or the end of keys.
    auto mask_if_needed = [&](int key_tile) {
      const int col0 = key_tile * kBlockN;
      const bool ragged = col0 + kBlockN > params.seqlen_k;
      if (ragged || !mask.tile_is_unmasked(group_rows_begin, group_rows_end, col0, col0 + kBlockN)) {
        Math::apply_mask(s, mask, row0, col0, params.seqlen_k);
      }
    };
    // mask_if_needed for the first key tile of a kFirstTileCoverage kernel: where every row
    // sees the first kPrefixKeys keys (the diagonal's lower-left square), only the keys after
    // them are tested.
    [[maybe_unused]] auto mask_first_tile = [&](int col0) {
      const bool ragged = col0 + kBlockN > params.seqlen_k;
      if (ragged || !mask.tile_is_unmasked(group_rows_begin, group_rows_end, col0, col0 + kBlockN)) {
        if (col0 + kPrefixKeys <= params.seqlen_k &&
            mask.tile_is_unmasked(group_rows_begin, group_rows_end, col0, col0 + kPrefixKeys)) {
          Math::template apply_mask<Mask, kPrefixGroups>(s, mask, row0, col0, params.seqlen_k);
        } else {
          Math::apply_mask(s, mask, row0, col0, params.seqlen_k);
        }
      }
    };

    if (num_tiles > 0) {
      mbarrier_wait(&bars->q_full, q_round & 1);
      FATTN_TIMELINE_MARK(kQReady, 0);
      ++q_round;
      if constexpr (kHeadsAsColumns) {
        // The neighbours' columns out of this warpgroup's Q rows, made visible to wgmma (async
        // proxy) before any of its warps issues Q·Kᵀ. The output barrier is free: these
        // kernels store O from registers or stage it behind the all-consumers barrier.
        zero_q_padding<Element, kWidth>(params.head_dim, head_phase(params.q_columns, head),
                                        q_base, Traits::kQColumnBlockBytes);
        fence_view_async_shared();
        named_barrier_sync(kOutputBarrier + consumer, kWarpgroupThreads);
      }
      {
        // The first key tile walked is the rightmost, where the causal diagonal (or a window's
        // right edge) cuts this warpgroup's rows (kFirstTileCoverage): the keys from the end of
        // what its last row sees on are masked for all its rows. Walking ascending, it is the
        // leftmost: the same tests then hold for it (what the rows see of any one key tile),
        // and the diagonal takes the loop's full mask.
        const int first_col0 = walked_tile(0) * kBlockN;
        [[maybe_unused]] bool sees_none = false;
        [[maybe_unused]] bool sees_prefix_only = false;
        if constexpr (kFirstTileCoverage) {
          // Rows past seqlen_q (an empty row range) are never stored: nothing to compute.
          const int seen_end =
              group_rows_end > group_rows_begin ? mask.key_end(group_rows_end) : first_col0;
          // Broadcast from lane 0: the tests are the same in the whole warp (warpgroup), but
          // ptxas cannot prove it from threadIdx; with them divergent, the D = 64 causal kernel
          // spilled 24 bytes and its key loop left the uniform datapath (R2UR 8 -> 32).
          sees_none = __shfl_sync(0xffffffffu, seen_end <= first_col0, 0);
          sees_prefix_only = __shfl_sync(0xffffffffu, seen_end <= first_col0 + kPrefixKeys, 0);
        }
        const RingSlot slot = ring_slot<kStages>(kv_iteration);
        mbarrier_wait(&bars->k_full[slot.stage], slot.phase);
        FATTN_TIMELINE_MARK(kLoadsReady, 0);
        take_turn();
        FATTN_TIMELINE_MARK(kTurnTaken, 0);
        Math::issue_scores(s, q_base, k_base + slot.stage * Traits::kKvTileBytes);
        pass_turn();
        FATTN_TIMELINE_MARK(kGemmsIssued, 0);
        confirm_output_read(kv_iteration);
        wgmma_wait<0>();
        fence_operands(s);
        FATTN_TIMELINE_MARK(kScoresWaited, 0);
        release(&bars->k_empty[slot.stage]);
        if (num_tiles == 1) release(&bars->q_empty);
        if (kFirstTileCoverage && sees_none) {
          // Nothing visible: P = 0, and the rows keep max -inf and sum 0 (the next tile's
          // correction is 1, as after a tile of -inf scores).
          FATTN_TIMELINE_MARK(kSoftmaxDone, 0);
          Math::template convert_p<0>(s, p);
        } else if (kFirstTileCoverage && sees_prefix_only) {
          // Mask, max, exponentials and sums over the first kPrefixKeys keys only.
          Math::template apply_mask<Mask, 0, kPrefixGroups>(s, mask, row0, first_col0,
                                                            params.seqlen_k);
          Math::template online_softmax<kLazyRescale, kPrefixGroups>(s, row_max, row_sum,
                                                                     correction, params.scale_log2);
          FATTN_TIMELINE_MARK(kSoftmaxDone, 0);
          Math::template convert_p<kPrefixChunks>(s, p);
        } else {
          if constexpr (kFirstTileCoverage) {
            mask_first_tile(first_col0);
          } else {
            mask_if_needed(walked_tile(0));
          }
          Math::template online_softmax<kLazyRescale>(s, row_max, row_sum, correction,
                                                      params.scale_log2);
          FATTN_TIMELINE_MARK(kSoftmaxDone, 0);
          Math::convert_p(s, p);
        }
        FATTN_TIMELINE_MARK(kStepEnd, 0);
      }
      for (int i = 1; i < num_tiles; ++i) {
        const RingSlot slot = ring_slot<kStages>(kv_iteration + i);
        const RingSlot prev = ring_slot<kStages>(kv_iteration + i - 1);
        mbarrier_wait(&bars->k_full[slot.stage], slot.phase);
        mbarrier_wait(&bars->v_full[prev.stage], prev.phase);
        FATTN_TIMELINE_MARK(kLoadsReady, i);
        take_turn();
        FATTN_TIMELINE_MARK(kTurnTaken, i);
        Math::issue_scores(s, q_base, k_base + slot.stage * Traits::kKvTileBytes);
        Math::issue_pv(o, p, v_base + prev.stage * Traits::kKvTileBytes);
        pass_turn();
        FATTN_TIMELINE_MARK(kGemmsIssued, i);
        wgmma_wait<1>();  // the scores are ready; P·V of the previous tile still runs
        fence_operands(s);
        FATTN_TIMELINE_MARK(kScoresWaited, i);
        release(&bars->k_empty[slot.stage]);
        // The last Q·Kᵀ of this tile is done: the producer may load the next tile's Q.
        if (i == num_tiles - 1) release(&bars->q_empty);
        // Only the first tile walked can reach past seqlen_k (ragged_test_first_tile_only).
        if constexpr (!kRaggedTestFirstTileOnly) mask_if_needed(walked_tile(i));
        Math::template online_softmax<kLazyRescale>(s, row_max, row_sum, correction,
                                                    params.scale_log2);
        // The exponentials run under this warpgroup's P·V only if the wait stays here.
        if constexpr (kPinPvWait) schedule_anchor();
        FATTN_TIMELINE_MARK_IF(kPinPvWait, kSoftmaxDone, i);
        wgmma_wait<0>();
        fence_operands(o);
        FATTN_TIMELINE_MARK_EITHER(kPinPvWait, kPvWaited, kSoftmaxAndPvWaited, i);
        release(&bars->v_empty[prev.stage]);
        // With a rescale threshold, a warp whose rows all kept their max skips the multiplies.
        if (!kLazyRescale ||
            __any_sync(0xffffffffu, correction[0] != 1.0f || correction[1] != 1.0f)) {
          Math::rescale(o, correction);
        }
        Math::convert_p(s, p);
        FATTN_TIMELINE_MARK(kStepEnd, i);
      }
      const RingSlot slot = ring_slot<kStages>(kv_iteration + num_tiles - 1);
      mbarrier_wait(&bars->v_full[slot.stage], slot.phase);
      FATTN_TIMELINE_MARK(kLoadsReady, num_tiles);
      take_turn();
      FATTN_TIMELINE_MARK(kTurnTaken, num_tiles);
      Math::issue_pv(o, p, v_base + slot.stage * Traits::kKvTileBytes);
      pass_turn();
      FATTN_TIMELINE_MARK(kGemmsIssued, num_tiles);
      wgmma_wait<0>();
      fence_operands(o);
      FATTN_TIMELINE_MARK(kPvWaited, num_tiles);
      release(&bars->v_empty[slot.stage]);
      kv_iteration += num_tiles;
    }

    // ---------------- epilogue: O / l and LSE ----------------
    if constexpr (kTmaStore) {
      // The LSE first, so that only O and the two inverse sums stay live for the O stores;
      // with kLseAfterOutput its two values are kept and stored once O's store is issued.
      float inv_sum[2];
      [[maybe_unused]] float lse_late[2];
      // Both rows' quad sums first: their shuffles are independent and overlap.
      float sums[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        sums[h] = row_sum[h] + __shfl_xor_sync(0xffffffffu, row_sum[h], 1);
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) sums[h] += __shfl_xor_sync(0xffffffffu, sums[h], 2);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float sum = sums[h];
        inv_sum[h] = inverse_row_sum(sum);
        const int row = row0 + 8 * h;
        if constexpr (kLseAfterOutput) {
          lse_late[h] = row_lse(sum, row_max[h], params.scale);
        } else if (row_in_output(row) && lane % 4 == 0) {
          store_lse(params, batch, head, row, row_lse(sum, row_max[h], params.scale));
        }
      }
      FATTN_TIMELINE_MARK(kLseStored, 0);
      if (kOutInV && (kProducerStores || !std::is_same_v<Mask, NoMask>) && num_tiles == 0) {
        // Fully masked (rare: bottom-right masks with more queries than keys): the V ring may
        // be filling for the next tile, so the zeros go straight to global memory. (Without a
        // mask a tile is fully masked only when there are no keys at all, and then nothing is
        // ever loaded into the ring; but a storing producer skips tiles without loads, so their
        // zeros take this path too.)
        store_zero_rows<Element>(params, head, batch,
                                 kRowsBelowZero ? max(group_rows_begin, 0) : group_rows_begin,
                                 group_rows_end);
      } else {
        // O through shared memory: one stmatrix per 16 × 16 block and a TMA store per 64-column
        // block of the warpgroup's rows (rows past seqlen_q and columns past D are clipped by
        // the tensor map), instead of kWidth/4 scattered 4-byte global stores per thread.
        if constexpr (kOutInV) {
          // Every consumer's last P·V has read the V ring that O is about to overwrite.
          named_barrier_sync(kAllConsumersBarrier, kConsumers * kWarpgroupThreads);
        } else {
          // This warpgroup's previous store has read the buffer.
          if (store_thread()) bulk_wait_group_read<0>();
          named_barrier_sync(kOutputBarrier + consumer, kWarpgroupThreads);
        }
        FATTN_TIMELINE_MARK(kOutputBufferFree, 0);
        const std::uint32_t o_smem =
            smem_address(smem + Traits::kOOffset) + consumer * kWgmmaM * kSwizzleRowBytes;
        if constexpr (kSectorBoxes) {
          Math::template stage_output<true>(
              o, inv_sum, o_smem, Traits::kQColumnBlockBytes,
              sector_shift(params.v_columns, head / params.group_size) / kSectorShiftColumns);
        } else {
          Math::stage_output(o, inv_sum, o_smem, Traits::kQColumnBlockBytes);
        }
        fence_view_async_shared();
        FATTN_TIMELINE_MARK(kOutputStaged, 0);
        if constexpr (kProducerStores) {
          // This warp's rows are staged (and made visible to TMA): the producer stores them.
          release(&bars->o_stored);
        } else {
          named_barrier_sync(kOutputBarrier + consumer, kWarpgroupThreads);
          FATTN_TIMELINE_MARK(kOutputStagedBarrier, 0);
          // Slices wholly below row 0 (row_offset) or past seqlen_q store nothing.
          const bool rows_stored = row_in_output(group_rows_begin);
          if (store_thread() && rows_stored) {
#pragma unroll
            for (int b = 0; b < Traits::kOutColumnBlocks; ++b) {
              if (b * kTmaColumns < params.out_tma_columns) {
                tma_store_4d(&tma_o, smem + Traits::kOOffset + b * Traits::kQColumnBlockBytes +
                                         consumer * kWgmmaM * kSwizzleRowBytes,
                             b * kTmaColumns, group_rows_begin, head, batch);
              }
            }
            bulk_commit_group();
          }
          FATTN_TIMELINE_MARK(kStoreIssued, 0);
          if (params.out_tma_columns < params.head_dim) {
            store_tail_columns<Element, kRowsBelowZero>(params, o_smem, Traits::kQColumnBlockBytes,
                                                        head, batch, group_rows_begin);
            // Where O reuses the V ring, the ring may be refilled once the store thread has seen
            // the TMA store read it: every thread's tail reads must come first.
            if constexpr (kOutInV) {
              named_barrier_sync(kOutputBarrier + consumer, kWarpgroupThreads);
            }
          }
        }
      }
      if constexpr (kLseAfterOutput) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = row0 + 8 * h;
          if (row_in_output(row) && lane % 4 == 0) {
            store_lse(params, batch, head, row, lse_late[h]);
          }
        }
      }
    } else if constexpr (kStagedOutput) {
      // Heads as columns through shared memory (output_staging.cuh): the LSE, then each warp
      // stages its 16 rows of O / l in the V ring and stores them a 16-byte word at a time.
      using output_staging::kRowsPerWarp;
      float inv_sum[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float sum = quad_row_sum(row_sum[h]);
        inv_sum[h] = exact_inverse_row_sum(sum);
        const int row = row0 + 8 * h;
        if (row_in_output(row) && lane % 4 == 0) {
          store_lse(params, batch, head, row, row_lse(sum, row_max[h], params.scale));
        }
      }
      if (num_tiles == 0) {
        // Fully masked: the V ring may be filling for the next tile (o_stored counts only
        // tiles with loads), so the zeros go straight to global memory.
        store_zero_rows<Element>(params, head, batch, group_rows_begin, group_rows_end);
      } else {
        // Every consumer's last P·V has read the V ring that O is about to overwrite.
        named_barrier_sync(kAllConsumersBarrier, kConsumers * kWarpgroupThreads);
        const int warp_first_row = group_rows_begin + warp_in_group * kRowsPerWarp;
        auto* out_rows = reinterpret_cast<std::uint8_t*>(
            static_cast<Element*>(params.out) + batch * params.out_stride_batch +
            head * params.out_stride_head + warp_first_row * params.out_stride_seq);
        const std::int64_t row_bytes =
            params.out_stride_seq * static_cast<std::int64_t>(sizeof(Element));
        // Opaque: addressed here, not held through the key loop from the kernel's start (which
        // spilled the tile count in the windowed width-192 consumers).
        std::uint32_t o_tile = smem_address(smem + Traits::kOOffset);
        asm volatile("" : "+r"(o_tile));
        const std::uint32_t warp_rows =
            o_tile + (consumer * kWgmmaM + warp_in_group * kRowsPerWarp) * kSwizzleRowBytes;
        output_staging::stage_rows<Element, kWidth>(
            o, inv_sum, warp_rows, Traits::kQColumnBlockBytes,
            head_phase(params.v_columns, head / params.group_size), params.head_dim, out_rows,
            row_bytes);
        __syncwarp();
        const int rows = row_in_output(warp_first_row)
                             ? min(kRowsPerWarp, params.seqlen_q - warp_first_row)
                             : 0;
        output_staging::store_rows<kWidth>(warp_rows, Traits::kQColumnBlockBytes, out_rows,
                                           row_bytes, rows, params.head_dim);
        // This warp's rows are read: with every warp's arrival the producer may load V there.
        // No proxy fence: no async-proxy access reads the staged bytes, and the arrival's release
        // orders the reads before the TMA loads over them (as store_tail_columns' reads); a fence
        // would also wait for this warp's O stores to global memory.
        release(&bars->o_stored);
      }
    } else {
      auto* out = static_cast<Element*>(params.out) + batch * params.out_stride_batch +
                  head * params.out_stride_head;
      const bool pairs_aligned = params.head_dim % 2 == 0;
      // Heads as columns: head column c sits in accumulator column c + V's phase, and the
      // output's rows may start on any 2-byte boundary.
      const int v_phase =
          kHeadsAsColumns ? head_phase(params.v_columns, head / params.group_size) : 0;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float sum = quad_row_sum(row_sum[h]);
        const int row = row0 + 8 * h;
        if (!row_in_output(row)) continue;
        const float inv_sum = exact_inverse_row_sum(sum);
        Element* out_row = out + row * params.out_stride_seq;
        // Heads as columns: a thread's pair of columns (col, col + 1: col even) lands at output
        // columns col - v_phase and the next, one 4-byte word wherever the output row's element
        // offset and V's phase have the same parity (4-byte-aligned rows at even phases; packed
        // 2-byte rows at every phase, where the out and V heads share their offsets): one store
        // instead of two 2-byte ones. The 2-byte stores were what kept L2 busy at
        // packed D = 74 (ncu: 3.9x the write sectors of aligned D = 80; perf-notes, twenty-first
        // session).
        const auto out_element_offset =
            reinterpret_cast<std::uintptr_t>(out_row) / sizeof(Element);
        const bool word_pairs =
            kHeadsAsColumns && (out_element_offset + static_cast<unsigned>(v_phase)) % 2 == 0;
#pragma unroll
        for (int j = 0; j < Math::kOutRegs / 4; ++j) {
          const int col = 8 * j + 2 * (lane % 4);
          const float v0 = o[4 * j + 2 * h] * inv_sum;
          const float v1 = o[4 * j + 2 * h + 1] * inv_sum;
          if constexpr (kHeadsAsColumns) {
            const int out_col = col - v_phase;
            // Both columns inside the row.
            if (word_pairs && out_col >= 0 && out_col + 1 < params.head_dim) {
              *reinterpret_cast<std::uint32_t*>(out_row + out_col) =
                  pack_pair(v0, v1, static_cast<Element*>(nullptr));
              continue;
            }
            if (static_cast<unsigned>(out_col) < static_cast<unsigned>(params.head_dim)) {
              out_row[out_col] = static_cast<Element>(v0);
            }
            if (static_cast<unsigned>(out_col + 1) < static_cast<unsigned>(params.head_dim)) {
              out_row[out_col + 1] = static_cast<Element>(v1);
            }
          } else if (pairs_aligned) {
            if (col < params.head_dim) {
              *reinterpret_cast<std::uint32_t*>(out_row + col) =
                  pack_pair(v0, v1, static_cast<Element*>(nullptr));
            }
          } else {
            if (col < params.head_dim) out_row[col] = static_cast<Element>(v0);
            if (col + 1 < params.head_dim) out_row[col + 1] = static_cast<Element>(v1);
          }
        }
        if (lane % 4 == 0) {
          store_lse(params, batch, head, row, row_lse(sum, row_max[h], params.scale));
        }
      }
    }
    FATTN_TIMELINE_MARK(kEpilogueDone, 0);
  }
  // A TMA store still reading shared memory must finish before the CTA's memory goes away.
  if (kTmaStore && !kProducerStores && store_thread()) bulk_wait_group<0>();
  // The last consumer passed the turn once more than consumer 0 took it; absorb that pass so that
  // no named barrier is left half-arrived when the CTA exits.
  if (consumer == 0) take_turn();
  FATTN_TIMELINE_END();
}

}  // namespace fattn::detail::sm90
