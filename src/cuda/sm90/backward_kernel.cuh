// The Hopper (sm_90a) attention backward kernel: FlashAttention-2's backward algorithm with
// FlashAttention-3's machinery (TMA, wgmma, warp specialization), in our own code.
//
// docs/design/sm90-backward.md holds the design, the counted floors and what the H100 measured
// (GPU tests, memcheck and racecheck clean; ncu stall and L2 reduction analysis).
//
// One CTA per (key tile of kBlockN keys, KV head, batch); K and V of the tile stay in shared
// memory, dK and dV in fp32 registers, and the CTA walks every query tile of every query head of
// its GQA group (so dK/dV need no cross-CTA reduction, as in the sm80 backward):
//   warpgroup 0   producer: one thread loads K and V once (TMA), then per step the Q and dO
//                 tiles (TMA) and the step's LSE·log2e and D_i vectors (1-D bulk copies) into a
//                 ring of stages guarded by full/empty mbarriers;
//   warpgroups 1, 2  consumers: 64 keys each. Per query tile of kBlockM rows:
//                 Sᵀ  = K·Qᵀ, dPᵀ = V·dOᵀ           wgmma, both operands in shared memory
//                 Pᵀ  = 2^(Sᵀ·scale·log2e − LSE·log2e)   registers (0 where masked)
//                 dSᵀ = Pᵀ∘(dPᵀ − D_i)               registers
//                 dV += Pᵀ·dO, dK += dSᵀ·Q           wgmma, A from registers, B MN-major
//                 dSᵀ -> shared memory (16-bit, 128-byte swizzle)
//                 dQ_part = dS·K                     wgmma, A and B MN-major in shared memory
//                 dQ_part -> fp32 red.global.add.v2 into the dQ accumulator
// The preprocess (D_i = rowsum(dO∘O), LSE·log2e with +inf for fully masked rows, accumulator
// zeroed) and the postprocess (dQ = scale·accumulator) are the sm80 family's kernels, run by
// backward.cuh around this one. The D = 256 kernel (backward_kernel_wide.cuh) splits dK/dV by
// head-dim halves instead of keys and shares this file's producer, barrier set-up, element-wise
// steps and epilogue.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/mask.hpp"
#include "cuda/common/ptx_sm80.cuh"
#include "cuda/common/ptx_sm90.cuh"
#include "cuda/sm90/backward_ptx.cuh"
#include "cuda/sm90/backward_tile_config.hpp"
#include "cuda/sm90/pack_pair.cuh"

namespace fattn::detail::sm90 {

// Everything the kernel needs besides the four TMA descriptors and the mask.
struct BackwardParams {
  void* dk = nullptr;
  void* dv = nullptr;
  std::int64_t dk_stride_batch = 0, dk_stride_seq = 0, dk_stride_head = 0;  // elements
  std::int64_t dv_stride_batch = 0, dv_stride_seq = 0, dv_stride_head = 0;
  float* dq_accum = nullptr;        // (batch, heads_q, seqlen_q, dq_accum_stride), fp32, zeroed
  int dq_accum_stride = 0;          // round_up(head_dim, 16) (the sm80 preprocess's layout)
  const float* lse_log2 = nullptr;  // (batch, heads_q, rows_rounded): LSE·log2e, +inf if masked
  const float* delta = nullptr;     // (batch, heads_q, rows_rounded): rowsum(dO∘O)
  int rows_rounded = 0;             // seqlen_q rounded up to kBlockM
  int seqlen_q = 0, seqlen_k = 0, heads_q = 0, group_size = 1, head_dim = 0;
  float scale_log2 = 0.0f;  // signed softmax scale · log2e
  float scale = 0.0f;       // signed softmax scale, applied to dK here (dQ: postprocess)
};

namespace backward {

constexpr int kWarpgroupThreads = 128;
constexpr int kWarpSize = 32;
constexpr int kTmaColumns = 64;  // one 128-byte swizzle row of 16-bit elements
constexpr int kWgmmaK = 16;
constexpr int kWgmmaM = 64;
// The dQ product's output width per consumer warpgroup (both dQ splits give 64; see
// backward_tile_config.hpp): the one transposed-operand wgmma width backward_ptx.cuh wraps.
constexpr int kDqColumns = 64;
// Named barrier ids (0 is __syncthreads): the dS exchange before the dQ product. With the
// head-dim split both consumers meet on one id; with the key split each has its own.
constexpr int kDsReadyBarrier = 1;
// DqReduce::bulk_tensor: a consumer's dQ partial is in its shared tile (ids 3 and 4).
constexpr int kDqStagedBarrier = 3;
// The fp32 dQ staging box: 32 columns = one 128-byte swizzle row, 64 rows.
constexpr int kDqBoxColumns = 32;
// DqReduce::bulk_register_order: one 64-query × 64-column fp32 block of the accumulator.
constexpr int kDqRegisterOrderBlockFloats = kWgmmaM * kDqColumns;
constexpr int kDqRegisterOrderBlockBytes = kDqRegisterOrderBlockFloats * 4;
// 24·128 + 2·240·128 = 64,512 <= 65,536 registers per SM (as in the forward).
constexpr int kProducerRegisters = 24;
constexpr int kConsumerRegisters = 240;
constexpr int kMaxSharedBytesPerBlock = 227 * 1024;  // sm_90's opt-in limit per block

}  // namespace backward

// TileConfig: a type with a `static constexpr BackwardTileShape kShape`; the bucket's
// BackwardTileConfig by default, another one in a bench. (A type rather than the shape itself:
// nvcc's host stubs cannot spell a kernel whose template argument is a class-type value.)
template <int kHeadDim, class Element, class TileConfig = BackwardTileConfig<kHeadDim>>
struct BackwardTraits {
  static constexpr BackwardTileShape kShape = TileConfig::kShape;
  static constexpr int kBlockM = kShape.block_m;
  static constexpr int kBlockN = kShape.block_n;
  static constexpr int kStages = kShape.stages;
  static constexpr bool kDqSplitKeys = kShape.dq_split == DqSplit::keys;
  static constexpr bool kDqSplitQueries = kShape.dq_split == DqSplit::queries;
  // DqSplit::alternate: one consumer per step computes the whole 64 × kHeadDim dQ (m64n128).
  static constexpr bool kDqAlternate = kShape.dq_split == DqSplit::alternate;
  // Both bulk forms stage the partial in a 16 KB shared tile per consumer and reduce it from there.
  static constexpr bool kDqRegisterOrder = kShape.dq_reduce == DqReduce::bulk_register_order;
  static constexpr bool kDqBulk = kShape.dq_reduce == DqReduce::bulk_tensor || kDqRegisterOrder;
  static constexpr bool kGradsAroundDq = kShape.grad_issue == GradIssue::around_dq;
  static constexpr int kConsumerWarpgroups = kBlockN / backward::kWgmmaM;
  static constexpr int kConsumerThreads = kConsumerWarpgroups * backward::kWarpgroupThreads;
  static constexpr int kThreads = backward::kWarpgroupThreads * (1 + kConsumerWarpgroups);
  static constexpr int kColumnBlocks = kHeadDim / backward::kTmaColumns;
  static constexpr int kElementBytes = static_cast<int>(sizeof(Element));

  // Tiles are kColumnBlocks blocks of (rows × 128 bytes), 128-byte swizzled (TMA's layout).
  static constexpr int kKvTileBytes = kBlockN * kHeadDim * kElementBytes;
  static constexpr int kKvColumnBlockBytes = kBlockN * static_cast<int>(kSwizzleRowBytes);
  static constexpr int kQTileBytes = kBlockM * kHeadDim * kElementBytes;
  static constexpr int kQColumnBlockBytes = kBlockM * static_cast<int>(kSwizzleRowBytes);
  static constexpr int kStatBytes = kBlockM * static_cast<int>(sizeof(float));
  // dSᵀ: kBlockN key rows × kBlockM query columns in 64-query column blocks, each row of a
  // block exactly one 128-byte swizzle row, so the tile has TMA's layout and wgmma reads it with
  // a descriptor.
  static constexpr int kDsBytes = kBlockN * kBlockM * kElementBytes;
  static constexpr int kDsColumnBlockBytes = kBlockN * static_cast<int>(kSwizzleRowBytes);
  static constexpr int kDsBuffers = 2;  // the other warpgroup may still read the previous dS

  static constexpr int kKOffset = 0;
  static constexpr int kVOffset = kKOffset + kKvTileBytes;
  static constexpr int kQOffset = kVOffset + kKvTileBytes;
  static constexpr int kDoOffset = kQOffset + kStages * kQTileBytes;
  static constexpr int kDsOffset = kDoOffset + kStages * kQTileBytes;
  // DqReduce::bulk_tensor: per consumer, its 64 × 64 fp32 dQ partial as two 128-byte-swizzled
  // boxes of 64 rows × 32 columns (the accumulator tensor map's box).
  static constexpr int kDqBoxBytes =
      backward::kWgmmaM * backward::kDqBoxColumns * static_cast<int>(sizeof(float));
  // DqSplit::alternate: one 64 × 128 tile (two register-order blocks) that the consumers take
  // in turns (the previous turn's reduction has finished reading it before the issuing consumer
  // arrives at the next dS barrier, which the next consumer waits for before staging).
  static constexpr int kDqStageTileBytes =
      (kDqAlternate ? kHeadDim : backward::kDqColumns) / backward::kDqBoxColumns * kDqBoxBytes;
  static constexpr int kDqStageOffset = kDsOffset + kDsBuffers * kDsBytes;
  static constexpr int kDqStageBytes =
      kDqBulk ? (kDqAlternate ? 1 : kConsumerWarpgroups) * kDqStageTileBytes : 0;
  static constexpr int kLseOffset = kDqStageOffset + kDqStageBytes;
  static constexpr int kDeltaOffset = kLseOffset + kStages * kStatBytes;
  static constexpr int kBarrierOffset = kDeltaOffset + kStages * kStatBytes;
  static constexpr int kBarrierCount = 1 + 2 * kStages;  // K/V full, per stage full and empty
  static constexpr int kAlignment = static_cast<int>(kSwizzleAtomBytes);
  static constexpr int kSmemBytes =
      kBarrierOffset + kBarrierCount * static_cast<int>(sizeof(std::uint64_t)) + kAlignment;
  // Bytes one stage's full barrier waits for: Q, dO, LSE and D_i.
  static constexpr int kStageTransactionBytes = 2 * kQTileBytes + 2 * kStatBytes;

  // The dQ product of one consumer: over its own 64 keys and every head-dim column (key split),
  // or over all the CTA's keys and its 64 of the head-dim columns (head-dim split).
  // Query split: over all keys, every column, the consumer's 64 of the kBlockM queries.
  static constexpr int kDqKeys = kDqSplitKeys ? backward::kWgmmaM : kBlockN;
  static constexpr int kDqQueries = kDqSplitQueries ? kBlockM / kConsumerWarpgroups : kBlockM;
  static constexpr int kDqColumnsPerConsumer =
      kShape.dq_split == DqSplit::head_dim ? kHeadDim / kConsumerWarpgroups : kHeadDim;
  static constexpr int kDqBarrierThreads =
      kDqSplitKeys ? backward::kWarpgroupThreads : kConsumerWarpgroups * backward::kWarpgroupThreads;

  static_assert(kBlockM % backward::kTmaColumns == 0,
                "dSᵀ rows are whole 128-byte swizzle rows (64-query column blocks)");
  static_assert(kBlockN % backward::kWgmmaM == 0, "each consumer warpgroup owns 64 keys");
  static_assert(kHeadDim % backward::kTmaColumns == 0, "head-dim buckets are multiples of 64");
  static_assert((kDqColumnsPerConsumer == backward::kDqColumns ||
                 (kDqAlternate && kDqColumnsPerConsumer == 2 * backward::kDqColumns)) &&
                    kDqQueries == backward::kWgmmaM,
                "the dQ product is one m64n64 wgmma chain per consumer (m64n128: alternate)");
  static_assert(!kDqAlternate || (kHeadDim == 128 && kBlockM == backward::kWgmmaM &&
                                  kConsumerWarpgroups == 2 && kDqRegisterOrder &&
                                  kShape.grad_issue == GradIssue::around_dq),
                "DqSplit::alternate: D = 128, 64-query steps, two consumers, register-order "
                "reduction, dV/dK around dQ");
  static_assert(kQColumnBlockBytes % kAlignment == 0 && kKvColumnBlockBytes % kAlignment == 0 &&
                    kDsBytes % kAlignment == 0 && kDsOffset % kAlignment == 0,
                "every tile must start on a swizzle atom");
  static_assert(kSmemBytes <= backward::kMaxSharedBytesPerBlock, "shared memory per block");
  static_assert(kShape.grad_split == GradSplit::keys,
                "the head-dim split is backward_kernel_wide.cuh's");
  static_assert(!kDqRegisterOrder ||
                    kDqStageTileBytes == backward::kDqRegisterOrderBlockBytes *
                                             (kDqColumnsPerConsumer / backward::kDqColumns),
                "a register-order block is one consumer's 64 × 64 fp32 partial (two: alternate)");
};

template <int kStages>
struct BackwardBarriers {
  std::uint64_t kv_full;
  std::uint64_t full[kStages];
  std::uint64_t empty[kStages];
};

// Thread 0 initializes the barriers (K/V full: the producer's arrival and the transaction
// bytes; per stage full: likewise; per stage empty: every consumer thread); the caller then
// synchronizes the CTA.
template <int kStages>
FATTN_DEVICE void init_backward_barriers(BackwardBarriers<kStages>* bars, int consumer_threads) {
  if (threadIdx.x == 0) {
    mbarrier_init(&bars->kv_full, 1);
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&bars->full[s], 1);
      mbarrier_init(&bars->empty[s], consumer_threads);
    }
    fence_barrier_init();
  }
}

// The query tiles [first, end) whose visible keys meet keys [key0, key0 + block_n): a
// contiguous range for every mask (same rule as the sm80 backward).
template <int kBlockM, class Mask>
FATTN_DEVICE void query_tile_range(const Mask& mask, int seqlen_q, int key0, int block_n,
                                   int* first, int* end) {
  const int m_blocks = (seqlen_q + kBlockM - 1) / kBlockM;
  auto touches = [&](int m) {
    const int r0 = m * kBlockM;
    const int r1 = min(r0 + kBlockM, seqlen_q);
    const int kb = mask.key_begin(r0);
    const int ke = mask.key_end(r1);
    return ke > kb && kb < key0 + block_n && ke > key0;
  };
  int m = 0;
  while (m < m_blocks && !touches(m)) ++m;
  *first = m;
  while (m < m_blocks && touches(m)) ++m;
  *end = m;
}

// One CTA's job.
struct BackwardCtaJob {
  int key_tile;
  int kv_head;
  int batch;
};

// This CTA's (key tile, KV head, batch): the grid (key tiles, KV heads, batch) as launched, key
// tile fastest, so one wave holds the key tiles of a few (head, batch) pairs, which share their
// Q/dO tiles and dQ rows in L2. Both kernels of the family take their job here. Reordering the
// CTAs so that causal masks' heaviest key tiles go first was measured twice on an H100 and
// rejected: over every pair 0.55–0.98 × (the L2 reuse lost), heaviest first within groups of 4
// or 8 pairs 1.00 × over the sweep and 0.95–0.97 × at N = 16k causal (docs/perf-notes.md,
// "Hopper backward: CTA order under causal masks").
FATTN_DEVICE BackwardCtaJob this_cta_job() {
  return {static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z)};
}

// The epilogue of every kernel of this family: this thread's two key rows (key_row0 and
// key_row0 + 8) of dK = scale · Σ dSᵀ·Q and dV = Σ Pᵀ·dO, head-dim columns from `column0` on
// (the m64nN accumulator layout), converted to the element type; rows past seqlen_k and columns
// past head_dim are not stored.
template <class Element, int kGradRegs>
FATTN_DEVICE void store_key_gradients(const float (&dk)[kGradRegs], const float (&dv)[kGradRegs],
                                      const BackwardParams& params, int batch, int kv_head,
                                      int key_row0, int column0) {
  const int lane = threadIdx.x % backward::kWarpSize;
  auto* dk_out = static_cast<Element*>(params.dk) + batch * params.dk_stride_batch +
                 kv_head * params.dk_stride_head;
  auto* dv_out = static_cast<Element*>(params.dv) + batch * params.dv_stride_batch +
                 kv_head * params.dv_stride_head;
  const bool pairs_aligned = params.head_dim % 2 == 0;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int key = key_row0 + 8 * h;
    if (key >= params.seqlen_k) continue;
    Element* dk_row = dk_out + key * params.dk_stride_seq;
    Element* dv_row = dv_out + key * params.dv_stride_seq;
#pragma unroll
    for (int j = 0; j < kGradRegs / 4; ++j) {
      const int col = column0 + 8 * j + 2 * (lane % 4);
      const float k0 = dk[4 * j + 2 * h] * params.scale;
      const float k1 = dk[4 * j + 2 * h + 1] * params.scale;
      const float v0 = dv[4 * j + 2 * h];
      const float v1 = dv[4 * j + 2 * h + 1];
      if (pairs_aligned) {
        if (col < params.head_dim) {
          *reinterpret_cast<std::uint32_t*>(dk_row + col) =
              pack_pair(k0, k1, static_cast<Element*>(nullptr));
          *reinterpret_cast<std::uint32_t*>(dv_row + col) =
              pack_pair(v0, v1, static_cast<Element*>(nullptr));
        }
      } else {
        if (col < params.head_dim) {
          dk_row[col] = static_cast<Element>(k0);
          dv_row[col] = static_cast<Element>(v0);
        }
        if (col + 1 < params.head_dim) {
          dk_row[col + 1] = static_cast<Element>(k1);
          dv_row[col + 1] = static_cast<Element>(v1);
        }
      }
    }
  }
}

// The producer warpgroup's one thread (any kernel of this family: the traits give the layout):
// K and V of the CTA's keys once, then per step (query head × query tile, tiles innermost) the Q
// and dO tiles and the step's LSE·log2e and D_i vectors into the ring of kStages stages.
template <class Traits>
FATTN_DEVICE void run_backward_producer(const CUtensorMap& tma_q, const CUtensorMap& tma_k,
                                        const CUtensorMap& tma_v, const CUtensorMap& tma_dout,
                                        BackwardBarriers<Traits::kStages>* bars,
                                        std::uint8_t* smem, const BackwardParams& params,
                                        int key0, int kv_head, int batch, int m_first,
                                        int m_count, int steps) {
  using namespace backward;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kStages = Traits::kStages;
  prefetch_tensor_map(&tma_q);
  prefetch_tensor_map(&tma_k);
  prefetch_tensor_map(&tma_v);
  prefetch_tensor_map(&tma_dout);
  mbarrier_arrive_expect_tx(&bars->kv_full, 2 * Traits::kKvTileBytes);
#pragma unroll
  for (int b = 0; b < Traits::kColumnBlocks; ++b) {
    tma_load_4d(&tma_k, &bars->kv_full,
                smem + Traits::kKOffset + b * Traits::kKvColumnBlockBytes, b * kTmaColumns, key0,
                kv_head, batch);
    tma_load_4d(&tma_v, &bars->kv_full,
                smem + Traits::kVOffset + b * Traits::kKvColumnBlockBytes, b * kTmaColumns, key0,
                kv_head, batch);
  }
  for (int step = 0; step < steps; ++step) {
    const int stage = step % kStages;
    const std::uint32_t phase = (step / kStages) & 1;
    const int head = kv_head * params.group_size + step / m_count;
    const int row0 = (m_first + step % m_count) * kBlockM;
    // A fresh barrier counts as having completed the phase before phase 0.
    mbarrier_wait(&bars->empty[stage], phase ^ 1);
    mbarrier_arrive_expect_tx(&bars->full[stage], Traits::kStageTransactionBytes);
    std::uint8_t* q_dst = smem + Traits::kQOffset + stage * Traits::kQTileBytes;
    std::uint8_t* do_dst = smem + Traits::kDoOffset + stage * Traits::kQTileBytes;
#pragma unroll
    for (int b = 0; b < Traits::kColumnBlocks; ++b) {
      tma_load_4d(&tma_q, &bars->full[stage], q_dst + b * Traits::kQColumnBlockBytes,
                  b * kTmaColumns, row0, head, batch);
      tma_load_4d(&tma_dout, &bars->full[stage], do_dst + b * Traits::kQColumnBlockBytes,
                  b * kTmaColumns, row0, head, batch);
    }
    const std::int64_t stats =
        (static_cast<std::int64_t>(batch) * params.heads_q + head) * params.rows_rounded + row0;
    bulk_load(smem + Traits::kLseOffset + stage * Traits::kStatBytes, params.lse_log2 + stats,
              Traits::kStatBytes, &bars->full[stage]);
    bulk_load(smem + Traits::kDeltaOffset + stage * Traits::kStatBytes, params.delta + stats,
              Traits::kStatBytes, &bars->full[stage]);
  }
}

// The consumer's GEMMs and element-wise steps. Accumulator layout of a m64nN wgmma: register
// 4j + 2h + e holds row (warp·16 + lane/4 + 8h), column (8j + 2·(lane%4) + e). Rows of Sᵀ are
// keys, columns queries.
template <class Traits, class Element>
struct BackwardConsumer {
  static constexpr int kBlockM = Traits::kBlockM;
  static constexpr int kScoreRegs = kBlockM / 2;  // one 64 × kBlockM fp32 accumulator
  static constexpr int kGradRegs = Traits::kColumnBlocks * backward::kTmaColumns / 2;
  // 64 with DqSplit::alternate (m64n128), else 32 (the wide kernel's view has no kDqAlternate).
  static constexpr int kDqRegs = [] {
    if constexpr (requires { Traits::kDqAlternate; }) {
      return Traits::kDqAlternate ? backward::kDqColumns : backward::kDqColumns / 2;
    } else {
      return backward::kDqColumns / 2;
    }
  }();
  static constexpr int kChunks = kBlockM / backward::kWgmmaK;  // k-chunks of the RS products
  static constexpr int kHeadDim = Traits::kColumnBlocks * backward::kTmaColumns;

  // acc (64 keys × kBlockM queries) = A·Bᵀ with A = this warpgroup's 64 rows of K or V
  // (`a_base`: its rows in column block 0) and B = the Q or dO stage, both K-major.
  static FATTN_DEVICE void issue_transposed_scores(float (&acc)[kScoreRegs], std::uint32_t a_base,
                                                   std::uint32_t b_base) {
    constexpr int kStepsPerColumnBlock = backward::kTmaColumns / backward::kWgmmaK;
    constexpr std::uint32_t kStepBytes = backward::kWgmmaK * sizeof(Element);
    fence_operands(acc);
    wgmma_fence();
#pragma unroll
    for (int step = 0; step < kHeadDim / backward::kWgmmaK; ++step) {
      const int block = step / kStepsPerColumnBlock;
      const std::uint32_t within = (step % kStepsPerColumnBlock) * kStepBytes;
      const std::uint64_t desc_a =
          make_smem_descriptor(a_base + block * Traits::kKvColumnBlockBytes + within, 0);
      const std::uint64_t desc_b =
          make_smem_descriptor(b_base + block * Traits::kQColumnBlockBytes + within, 0);
      wgmma_ss<kBlockM, Element>(acc, desc_a, desc_b, step > 0);
    }
    wgmma_commit();
  }

  // grad (64 keys × D) += A·B with A (64 keys × kBlockM queries) from registers and B the Q or
  // dO stage read MN-major (query rows are the k dimension; 64-column blocks
  // kQColumnBlockBytes apart), as the forward's O += P·V reads V.
  static FATTN_DEVICE void issue_gradient(float (&grad)[kGradRegs],
                                          const std::uint32_t (&a)[kChunks][4],
                                          std::uint32_t b_base) {
    constexpr std::uint32_t kRowStepBytes = backward::kWgmmaK * kSwizzleRowBytes;
#pragma unroll
    for (int chunk = 0; chunk < kChunks; ++chunk) {
      const std::uint64_t desc_b =
          make_smem_descriptor(b_base + chunk * kRowStepBytes, Traits::kQColumnBlockBytes);
      wgmma_rs<kHeadDim, Element>(grad, a[chunk], desc_b, 1);
    }
  }

  // dq (64 queries × 64 columns) = dS·K over keys [key0, key0 + kDqKeys) of the CTA.
  // B = K (key rows, head-dim columns: MN-major for B); `k_base` is at key0's row and the
  // product's column block. A = dS from `ds_tile` (already at the product's first query), stored
  // as dSᵀ (key rows): MN-major for A, 16 keys = 16 rows per k-step.
  static FATTN_DEVICE void issue_dq(float (&dq)[kDqRegs], std::uint32_t ds_tile, int key0,
                                    std::uint32_t k_base) {
    constexpr std::uint32_t kRowStepBytes = backward::kWgmmaK * kSwizzleRowBytes;
    fence_operands(dq);
    wgmma_fence();
#pragma unroll
    for (int step = 0; step < Traits::kDqKeys / backward::kWgmmaK; ++step) {
      const std::uint64_t desc_b =
          make_smem_descriptor(k_base + step * kRowStepBytes, Traits::kKvColumnBlockBytes);
      const int key = key0 + step * backward::kWgmmaK;
      const std::uint64_t desc_a =
          make_smem_descriptor(ds_tile + key * kSwizzleRowBytes, Traits::kDsBytes);
      if constexpr (kDqRegs == 64) {
        wgmma_ss_n128<Element, true>(dq, desc_a, desc_b, step > 0);
      } else {
        wgmma_ss_transposed_n64<Element>(dq, desc_a, desc_b, step > 0);
      }
    }
    wgmma_commit();
  }

  // The LSE / D_i pairs are shared-memory loads the compiler would otherwise hoist all at once
  // (kBlockM / 4 registers each); a compiler-only fence every kStatPairsInFlight pairs bounds
  // that, which keeps the kBlockM = 128 causal kernel at 0 spills (it spilled 4 bytes without).
  static constexpr int kStatPairsInFlight = 4;
  static FATTN_DEVICE void bound_stat_prefetch(int pair) {
    if (pair % kStatPairsInFlight == kStatPairsInFlight - 1) asm volatile("" ::: "memory");
  }

  // Pᵀ = 2^(Sᵀ·scale·log2e − LSE·log2e) in place, 0 where masked (after the exponential, so a
  // negative scale cannot turn a masked −inf into +inf). Padding query rows have LSE = +inf
  // (preprocess), so their probabilities are 0 without a test, never NaN.
  // kNeedsMask = false for tiles wholly inside the mask and the keys (no per-element test).
  // `key_row0`: the thread's first key (global index); `query_col0`: the tile's first query.
  template <bool kNeedsMask, class Mask>
  static FATTN_DEVICE void probabilities(float (&s)[kScoreRegs], const float* lse_stage,
                                         float scale_log2, const Mask& mask, int key_row0,
                                         int query_col0, int seqlen_k) {
    const int lane = threadIdx.x % backward::kWarpSize;
#pragma unroll
    for (int j = 0; j < kBlockM / 8; ++j) {
      const float2 lse = *reinterpret_cast<const float2*>(lse_stage + 8 * j + 2 * (lane % 4));
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& v = s[4 * j + 2 * h + e];
          v = fast_exp2(fmaf(v, scale_log2, -(e == 0 ? lse.x : lse.y)));
          if constexpr (kNeedsMask) {
            const int key = key_row0 + 8 * h;
            const int query = query_col0 + 8 * j + 2 * (lane % 4) + e;
            if (key >= seqlen_k || mask.is_masked(query, key)) v = 0.0f;
          }
        }
      }
      bound_stat_prefetch(j);
    }
  }

  // dSᵀ = Pᵀ∘(dPᵀ − D_i) in place of dPᵀ.
  static FATTN_DEVICE void score_gradients(float (&dp)[kScoreRegs], const float (&p)[kScoreRegs],
                                           const float* delta_stage) {
    const int lane = threadIdx.x % backward::kWarpSize;
#pragma unroll
    for (int j = 0; j < kBlockM / 8; ++j) {
      const float2 delta = *reinterpret_cast<const float2*>(delta_stage + 8 * j + 2 * (lane % 4));
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        dp[4 * j + 2 * h] = p[4 * j + 2 * h] * (dp[4 * j + 2 * h] - delta.x);
        dp[4 * j + 2 * h + 1] = p[4 * j + 2 * h + 1] * (dp[4 * j + 2 * h + 1] - delta.y);
      }
      bound_stat_prefetch(j);
    }
  }

  // The accumulator of keys × 16 queries (chunk c) is, in order, the A fragment of k-chunk c.
  static FATTN_DEVICE void to_fragments(const float (&acc)[kScoreRegs],
                                        std::uint32_t (&frag)[kChunks][4]) {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        frag[c][r] = pack_pair(acc[8 * c + 2 * r], acc[8 * c + 2 * r + 1],
                                  static_cast<Element*>(nullptr));
      }
    }
  }

  // Writes this thread's dS values into the 128-byte-swizzled tile (TMA's layout: 16-byte
  // chunk q of row r at chunk q ^ (r % 8)); `first_key`: the warpgroup's first key in the CTA.
  // Word r of chunk c holds key (warp·16 + lane/4 + 8·(r%2)), queries 16c + 8·(r/2) +
  // 2·(lane%4) + {0,1}.
  // One 32-bit store per word; a store instruction covers 8 rows × 4 words, 32 distinct banks.
  static FATTN_DEVICE void store_ds(std::uint8_t* tile, int first_key,
                                    const std::uint32_t (&ds)[kChunks][4]) {
    constexpr int kChunkBytes = 16;
    constexpr int kRowsPerSwizzle = 8;
    const int lane = threadIdx.x % backward::kWarpSize;
    const int warp = (threadIdx.x % backward::kWarpgroupThreads) / backward::kWarpSize;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int key = first_key + warp * 16 + lane / 4 + 8 * (r % 2);
        const int query = 16 * c + 8 * (r / 2) + 2 * (lane % 4);
        const int column_block = query / backward::kTmaColumns;
        const int column = query % backward::kTmaColumns;
        const int swizzled = (column / 8) ^ (key % kRowsPerSwizzle);
        *reinterpret_cast<std::uint32_t*>(tile + column_block * Traits::kDsColumnBlockBytes +
                                          key * kSwizzleRowBytes + swizzled * kChunkBytes +
                                          (column % 8) * static_cast<int>(sizeof(Element))) =
            ds[c][r];
      }
    }
  }

  // DqReduce::bulk_tensor: the dQ accumulator (64 queries × 64 columns, the m64n64 layout) into
  // `tile` as two boxes of 32 columns, 128-byte swizzled (16-byte chunk q of row r at q ^ r % 8),
  // the accumulator tensor map's layout. One 8-byte store per register pair; a store
  // instruction covers 8 rows × 2 chunks whose swizzled positions cover all 32 banks twice (two
  // wavefronts, the minimum for 256 bytes).
  static FATTN_DEVICE void store_dq(std::uint8_t* tile, const float (&dq)[kDqRegs]) {
    constexpr int kChunkBytes = 16;
    constexpr int kRowsPerSwizzle = 8;
    constexpr int kFloatsPerChunk = kChunkBytes / static_cast<int>(sizeof(float));
    constexpr int kBoxRowBytes = backward::kDqBoxColumns * static_cast<int>(sizeof(float));
    const int lane = threadIdx.x % backward::kWarpSize;
    const int warp = (threadIdx.x % backward::kWarpgroupThreads) / backward::kWarpSize;
#pragma unroll
    for (int j = 0; j < backward::kDqColumns / 8; ++j) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = warp * 16 + lane / 4 + 8 * h;
        const int column = 8 * j + 2 * (lane % 4);
        const int box = column / backward::kDqBoxColumns;
        const int in_box = column % backward::kDqBoxColumns;
        const int chunk = (in_box / kFloatsPerChunk) ^ (row % kRowsPerSwizzle);
        *reinterpret_cast<float2*>(tile + box * Traits::kDqBoxBytes + row * kBoxRowBytes +
                                   chunk * kChunkBytes +
                                   (in_box % kFloatsPerChunk) * static_cast<int>(sizeof(float))) =
            make_float2(dq[4 * j + 2 * h], dq[4 * j + 2 * h + 1]);
      }
    }
  }

  // DqReduce::bulk_register_order: this thread's dQ registers as 8 float4 in register order
  // (float4 j of warpgroup thread t at (j·128 + t)·16 bytes; with DqSplit::alternate 16 float4,
  // registers 32..63 = columns 64..127 forming the second 16 KB block, the m64n128 accumulator
  // layout restricted to each 64-column half being the m64n64 one): each store instruction of a
  // warp writes 512 contiguous bytes (4 wavefronts, the minimum), no swizzle arithmetic.
  // Float4 j of thread t (warp w, lane l) holds rows w·16 + l/4 (+8 for .z/.w) and columns
  // 8j + 2·(l%4) + {0, 1} (the m64n64 accumulator layout); register_order_dq_postprocess_kernel
  // (backward.cuh) reads it back so.
  static FATTN_DEVICE void store_dq_register_order(std::uint8_t* tile,
                                                   const float (&dq)[kDqRegs]) {
    const int thread = threadIdx.x % backward::kWarpgroupThreads;
#pragma unroll
    for (int j = 0; j < kDqRegs / 4; ++j) {
      *reinterpret_cast<float4*>(tile + (j * backward::kWarpgroupThreads + thread) *
                                            static_cast<int>(sizeof(float4))) =
          make_float4(dq[4 * j], dq[4 * j + 1], dq[4 * j + 2], dq[4 * j + 3]);
    }
  }
};

template <int kHeadDim, class Element, class Mask, class TileConfig>
__global__ void __launch_bounds__(BackwardTraits<kHeadDim, Element, TileConfig>::kThreads, 1)
    backward_kernel(const __grid_constant__ CUtensorMap tma_q,
                    const __grid_constant__ CUtensorMap tma_k,
                    const __grid_constant__ CUtensorMap tma_v,
                    const __grid_constant__ CUtensorMap tma_dout,
                    const __grid_constant__ CUtensorMap tma_dq_accum, const Mask mask,
                    const BackwardParams params) {
  using Traits = BackwardTraits<kHeadDim, Element, TileConfig>;
  constexpr BackwardTileShape kShape = Traits::kShape;
  using Math = BackwardConsumer<Traits, Element>;
  using namespace backward;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kStages = Traits::kStages;

  extern __shared__ std::uint8_t smem_unaligned[];
  // Aligned by pointer arithmetic on the shared array itself, not through an integer, so that the
  // compiler keeps the shared state space: the LSE / D_i reads and the dS stores compile to
  // ld/st.shared (LDS/STS) instead of generic ld/st, which ncu showed waiting behind the dQ
  // reductions in L1TEX ("long scoreboard", 38 % of the warps' cycles; perf-notes).
  const std::uint32_t misalignment = smem_address(smem_unaligned) % Traits::kAlignment;
  std::uint8_t* smem =
      smem_unaligned + (misalignment == 0 ? 0 : Traits::kAlignment - misalignment);
  auto* bars = reinterpret_cast<BackwardBarriers<kStages>*>(smem + Traits::kBarrierOffset);

  const BackwardCtaJob job = this_cta_job();
  const int kv_head = job.kv_head;
  const int batch = job.batch;
  const int key0 = job.key_tile * kBlockN;
  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  const int lane = threadIdx.x % kWarpSize;

  int m_first = 0;
  int m_end = 0;
  query_tile_range<kBlockM>(mask, params.seqlen_q, key0, kBlockN, &m_first, &m_end);
  const int m_count = m_end - m_first;
  const int steps = m_count * params.group_size;  // (query head, query tile), tiles innermost

  init_backward_barriers<kStages>(bars, Traits::kConsumerThreads);
  __syncthreads();

  if (warpgroup == 0) {
    // ---------------- producer ----------------
    release_registers<kProducerRegisters>();
    if (threadIdx.x != 0 || steps == 0) return;
    run_backward_producer<Traits>(tma_q, tma_k, tma_v, tma_dout, bars, smem, params, key0,
                                  kv_head, batch, m_first, m_count, steps);
    return;
  }

  // ---------------- consumers ----------------
  claim_registers<kConsumerRegisters>();
  const int consumer = warpgroup - 1;
  const int warp_in_group = (threadIdx.x % kWarpgroupThreads) / kWarpSize;
  // This thread's two key rows (r and r + 8) of the warpgroup's 64, as global key indices.
  const int group_key0 = key0 + consumer * kWgmmaM;
  const int key_row0 = group_key0 + warp_in_group * 16 + lane / 4;
  const std::uint32_t group_rows_offset = consumer * kWgmmaM * kSwizzleRowBytes;
  const std::uint32_t k_rows = smem_address(smem + Traits::kKOffset) + group_rows_offset;
  const std::uint32_t v_rows = smem_address(smem + Traits::kVOffset) + group_rows_offset;
  // The dQ product's first key row, first query of the step's tile and first head-dim column
  // (backward_tile_config.hpp, "dQ split").
  const int dq_key_row = Traits::kDqSplitKeys ? consumer * kWgmmaM : 0;
  const int dq_query0 = Traits::kDqSplitQueries ? consumer * kWgmmaM : 0;
  const int dq_column0 = kShape.dq_split == DqSplit::head_dim ? consumer * kDqColumns : 0;
  const std::uint32_t dq_k_base = smem_address(smem + Traits::kKOffset) +
                                  dq_key_row * kSwizzleRowBytes +
                                  (dq_column0 / kTmaColumns) * Traits::kKvColumnBlockBytes;
  // Where the product's first query lies in a dS tile: a column block of dSᵀ.
  const std::uint32_t ds_query_offset = (dq_query0 / kTmaColumns) * Traits::kDsColumnBlockBytes;
  const int dq_barrier = Traits::kDqSplitKeys ? kDsReadyBarrier + consumer : kDsReadyBarrier;

  float dk[Math::kGradRegs];
  float dv[Math::kGradRegs];
#pragma unroll
  for (int i = 0; i < Math::kGradRegs; ++i) {
    dk[i] = 0.0f;
    dv[i] = 0.0f;
  }
  const bool keys_ragged = group_key0 + kWgmmaM > params.seqlen_k;

  // Once the dQ product of `step` is complete: release its stage (every wgmma that read its Q
  // and dO is done, and so are this thread's LSE / D_i reads; each consumer thread arrives for
  // its own ordinary loads, not one lane per warp after __syncwarp, so the bulk copy refilling
  // the stage is ordered after every read by the barrier alone, which is also what
  // compute-sanitizer's racecheck follows), then add the 64 × 64 dQ partial into the fp32
  // accumulator.
  float dq[Math::kDqRegs];
  // DqReduce::bulk_tensor: this consumer's staging tile and the thread that issues its TMA
  // reductions (the first of the warpgroup).
  std::uint8_t* dq_stage_tile =
      smem + Traits::kDqStageOffset +
      (Traits::kDqAlternate ? 0 : consumer) * Traits::kDqStageTileBytes;
  const bool dq_reduce_leader = threadIdx.x % kWarpgroupThreads == 0;
  auto release_stage = [&](int step) {
    // (alternate: dq is not carried across steps; its turn's scope fences its own accumulator)
    if constexpr (!Traits::kDqAlternate) fence_operands(dq);
    fence_operands(dv);
    fence_operands(dk);
    mbarrier_arrive(&bars->empty[step % kStages]);
  };
  // GradIssue::around_dq stages and reduces dQ while dK still reads the stage, and releases it
  // after (release_stage); with_ds releases it first.
  auto finish_dq = [&](int step) {
    if constexpr (!Traits::kGradsAroundDq) release_stage(step);
    const int head = kv_head * params.group_size + step / m_count;
    const int row0 = (m_first + step % m_count) * kBlockM;
    if constexpr (Traits::kDqBulk) {
      // The leader waited for the previous reduction to finish reading this tile before the
      // step's dS barrier, which every thread passed before its dQ product.
      if constexpr (Traits::kDqRegisterOrder) {
        Math::store_dq_register_order(dq_stage_tile, dq);
      } else {
        Math::store_dq(dq_stage_tile, dq);
      }
      fence_view_async_shared();
      named_barrier_sync(kDqStagedBarrier + consumer, kWarpgroupThreads);
      if (dq_reduce_leader) {
        if constexpr (Traits::kDqRegisterOrder) {
          // Block (query tile of 64, column block) of the accumulator (backward.cuh: (batch,
          // head, rows_rounded / 64, kHeadDim / 64) blocks), one 1-D reduction.
          const std::int64_t head_index = static_cast<std::int64_t>(batch) * params.heads_q + head;
          const std::int64_t block =
              (head_index * (params.rows_rounded / kWgmmaM) + (row0 + dq_query0) / kWgmmaM) *
                  (kHeadDim / kDqColumns) +
              dq_column0 / kDqColumns;
          bulk_reduce_add_f32(params.dq_accum + block * kDqRegisterOrderBlockFloats,
                              dq_stage_tile, kDqRegisterOrderBlockBytes);
        } else {
#pragma unroll
          for (int box = 0; box < kDqColumns / kDqBoxColumns; ++box) {
            tma_reduce_add_4d(&tma_dq_accum, dq_stage_tile + box * Traits::kDqBoxBytes,
                              dq_column0 + box * kDqBoxColumns, row0 + dq_query0, head, batch);
          }
        }
        bulk_commit_group();
      }
      return;
    }
    const std::int64_t head_index = static_cast<std::int64_t>(batch) * params.heads_q + head;
    float* accumulator = params.dq_accum + head_index * params.seqlen_q * params.dq_accum_stride;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int query = row0 + dq_query0 + warp_in_group * 16 + lane / 4 + 8 * h;
      if (query >= params.seqlen_q) continue;
      float* row = accumulator + static_cast<std::int64_t>(query) * params.dq_accum_stride;
#pragma unroll
      for (int j = 0; j < kDqColumns / 8; ++j) {
        const int col = dq_column0 + 8 * j + 2 * (lane % 4);
        if (col < params.dq_accum_stride) {
          sm80::reduce_add_pair(row + col, dq[4 * j + 2 * h], dq[4 * j + 2 * h + 1]);
        }
      }
    }
  };

  if (steps > 0) mbarrier_wait(&bars->kv_full, 0);
  for (int step = 0; step < steps; ++step) {
    const int stage = step % kStages;
    const std::uint32_t phase = (step / kStages) & 1;
    const int row0 = (m_first + step % m_count) * kBlockM;
    const std::uint32_t q_stage = smem_address(smem + Traits::kQOffset + stage * Traits::kQTileBytes);
    const std::uint32_t do_stage =
        smem_address(smem + Traits::kDoOffset + stage * Traits::kQTileBytes);
    const auto* lse_stage =
        reinterpret_cast<const float*>(smem + Traits::kLseOffset + stage * Traits::kStatBytes);
    const auto* delta_stage =
        reinterpret_cast<const float*>(smem + Traits::kDeltaOffset + stage * Traits::kStatBytes);

    mbarrier_wait(&bars->full[stage], phase);
    float s[Math::kScoreRegs];
    float dp[Math::kScoreRegs];
    Math::issue_transposed_scores(s, k_rows, q_stage);
    Math::issue_transposed_scores(dp, v_rows, do_stage);
    wgmma_wait<1>();  // Sᵀ is ready; dPᵀ may still run
    fence_operands(s);
    const int query_col0 = row0;
    const int row_end = min(row0 + kBlockM, params.seqlen_q);
    const bool needs_mask =
        keys_ragged || !mask.tile_is_unmasked(row0, row_end, group_key0, group_key0 + kWgmmaM);
    if (needs_mask) {
      Math::template probabilities<true>(s, lse_stage, params.scale_log2, mask, key_row0,
                                         query_col0, params.seqlen_k);
    } else {
      Math::template probabilities<false>(s, lse_stage, params.scale_log2, mask, key_row0,
                                          query_col0, params.seqlen_k);
    }
    std::uint32_t p_frag[Math::kChunks][4];
    std::uint32_t ds_frag[Math::kChunks][4];
    if constexpr (Traits::kGradsAroundDq) {
      // dV += Pᵀ·dO now, behind dPᵀ; the wait leaves it running.
      Math::to_fragments(s, p_frag);
      fence_operands(dv);
      wgmma_fence();
      Math::issue_gradient(dv, p_frag, do_stage);
      wgmma_commit();
      wgmma_wait<1>();  // dPᵀ is ready; dV may still run
      fence_operands(dp);
      Math::score_gradients(dp, s, delta_stage);
      Math::to_fragments(dp, ds_frag);
    } else {
      wgmma_wait<0>();
      fence_operands(dp);
      Math::score_gradients(dp, s, delta_stage);

      Math::to_fragments(s, p_frag);
      Math::to_fragments(dp, ds_frag);

      fence_operands(dv);
      fence_operands(dk);
      wgmma_fence();
      Math::issue_gradient(dv, p_frag, do_stage);
      Math::issue_gradient(dk, ds_frag, q_stage);
      wgmma_commit();
    }

    // dSᵀ to shared memory for the dQ product: this warpgroup's 64 key rows of buffer
    // step % 2. The other buffer may still be read by the other warpgroup's dQ of the previous
    // step; this one was last read two steps ago, before both passed the previous barrier.
    const int ds_buffer = step % Traits::kDsBuffers;
    std::uint8_t* ds_tile = smem + Traits::kDsOffset + ds_buffer * Traits::kDsBytes;
    Math::store_ds(ds_tile, consumer * kWgmmaM, ds_frag);
    fence_view_async_shared();
    if constexpr (Traits::kDqBulk) {
      if (dq_reduce_leader) bulk_wait_group_read<0>();  // the dQ staging tile is free again
    }
    if constexpr (Traits::kDqAlternate) {
      // One consumer computes the step's whole dQ (64 queries × 128 columns over the CTA's 128
      // keys); the other arrives at the dS barrier without waiting and runs on with dK and its
      // next step. Barrier ids alternate with the step (1, 2): a consumer that runs ahead
      // arrives at step s + 1's id while the other may not have arrived at step s's yet.
      // dS buffer step % 2 is next written at step s + 2, after both passed step s + 1's
      // barrier, which the dQ consumer of step s reaches only once its dQ product is complete.
      const int ds_barrier = kDsReadyBarrier + step % 2;
      if (step % 2 == consumer) {
        named_barrier_sync(ds_barrier, Traits::kDqBarrierThreads);
        // dK first, then the m64n128 dQ alone: with dQ's 64 accumulators in flight beside dK's
        // (and dSᵀ's 16 fragment registers) ptxas serializes the wgmmas (C7512), so the
        // fragments are dead (dK complete) before the dQ accumulator is allocated.
        fence_operands(dk);
        wgmma_fence();
        Math::issue_gradient(dk, ds_frag, q_stage);
        wgmma_commit();
        wgmma_wait<0>();  // dV and dK are complete
        release_stage(step);  // the dQ product reads dS and K only
        float dq_step[Math::kDqRegs];  // declared here: not carried across steps
        Math::issue_dq(dq_step, smem_address(ds_tile), 0, dq_k_base);
        wgmma_wait<0>();
        fence_operands(dq_step);
        Math::store_dq_register_order(dq_stage_tile, dq_step);
        fence_view_async_shared();
        named_barrier_sync(kDqStagedBarrier + consumer, kWarpgroupThreads);
        if (dq_reduce_leader) {
          const int head = kv_head * params.group_size + step / m_count;
          const std::int64_t head_index = static_cast<std::int64_t>(batch) * params.heads_q + head;
          // Blocks (query tile, column block 0) and (…, 1) are adjacent: one 32 KB reduction.
          const std::int64_t block =
              (head_index * (params.rows_rounded / kWgmmaM) + row0 / kWgmmaM) *
              (kHeadDim / kDqColumns);
          bulk_reduce_add_f32(params.dq_accum + block * kDqRegisterOrderBlockFloats,
                              dq_stage_tile, Traits::kDqStageTileBytes);
          bulk_commit_group();
        }
      } else {
        named_barrier_arrive(ds_barrier, Traits::kDqBarrierThreads);
        fence_operands(dk);
        wgmma_fence();
        Math::issue_gradient(dk, ds_frag, q_stage);
        wgmma_commit();
        wgmma_wait<0>();
        release_stage(step);
      }
      continue;
    }
    named_barrier_sync(dq_barrier, Traits::kDqBarrierThreads);

    Math::issue_dq(dq, smem_address(ds_tile) + ds_query_offset, dq_key_row, dq_k_base);
    if constexpr (Traits::kGradsAroundDq) {
      // dK += dSᵀ·Q behind the dQ product; dQ is staged and reduced while it runs.
      fence_operands(dk);
      wgmma_fence();
      Math::issue_gradient(dk, ds_frag, q_stage);
      wgmma_commit();
      wgmma_wait<1>();  // dV and dQ are complete; dK may still run
      fence_operands(dq);
      finish_dq(step);
      wgmma_wait<0>();
      release_stage(step);
    } else {
      wgmma_wait<0>();
      finish_dq(step);
    }
  }
  if constexpr (Traits::kDqBulk) {
    if (dq_reduce_leader) bulk_wait_group<0>();  // the reductions complete before the CTA exits
  }

  // ---------------- epilogue: dK = scale · Σ dSᵀ·Q, dV = Σ Pᵀ·dO ----------------
  store_key_gradients<Element>(dk, dv, params, batch, kv_head, key_row0, 0);
}

}  // namespace fattn::detail::sm90
