// The Hopper (sm_90a) backward for head dim 256 (GradSplit::head_dim): the same algorithm,
// producer, stage ring, masks, GQA walk and epilogue as backward_kernel.cuh, with dK/dV split
// between the consumer warpgroups by head-dim halves instead of by keys, because 64 keys × 256
// columns of dK and dV would take 256 registers per consumer thread (docs/design/
// sm90-backward.md, "D = 192 and 256").
//
// One CTA per (64 keys, KV head, batch); both consumers work on all 64 keys. Per query tile of
// 64 rows, consumer c (c = 0, 1):
//   Sᵀ_c  = K·Q_cᵀ, dPᵀ_c = V·dO_cᵀ       query half c (32 queries), wgmma m64n32, operands in smem
//   Pᵀ_c, dSᵀ_c                            registers, as in backward_kernel.cuh
//   Pᵀ_c, dSᵀ_c -> exchange tiles          16-bit, 128-byte swizzle (TMA's layout); one
//                                          256-thread barrier: both halves are in the tiles
//   dV_c += Pᵀ·dO[:, half c]               wgmma m64n128, A = Pᵀ tile (K-major), B MN-major
//   dK_c += dSᵀ·Q[:, half c]               same, A = dSᵀ tile
//   dQ[:, half c] = dS·K[:, half c]        two m64n64 chains, A = dSᵀ tile read MN-major
//   dQ -> accumulator                      TMA reductions from a swizzled tile, or red.v2 atomics
// dK_c and dV_c (64 + 64 fp32 registers) live for the whole CTA; dQ's 64 take the room of Sᵀ/dPᵀ
// and their fragments once those are in the exchange tiles.
#pragma once

#include <cstdint>

#include "cuda/sm90/backward_kernel.cuh"

namespace fattn::detail::sm90 {

template <int kHeadDim, class Element, class TileConfig>
struct WideBackwardTraits {
  static constexpr BackwardTileShape kShape = TileConfig::kShape;
  static constexpr int kBlockM = kShape.block_m;
  static constexpr int kBlockN = kShape.block_n;
  static constexpr int kStages = kShape.stages;
  // dQ leaves by TMA reductions from staging tiles (the launcher builds their tensor map).
  static constexpr bool kDqBulk = true;
  static constexpr int kConsumerWarpgroups = 2;
  static constexpr int kConsumerThreads = kConsumerWarpgroups * backward::kWarpgroupThreads;
  static constexpr int kThreads = backward::kWarpgroupThreads * (1 + kConsumerWarpgroups);
  static constexpr int kColumnBlocks = kHeadDim / backward::kTmaColumns;
  static constexpr int kElementBytes = static_cast<int>(sizeof(Element));
  // Each consumer's share: half of the step's queries for Sᵀ/dPᵀ, half of the head-dim columns
  // for dK, dV and dQ.
  static constexpr int kQueriesPerConsumer = kBlockM / kConsumerWarpgroups;
  static constexpr int kColumnsPerConsumer = kHeadDim / kConsumerWarpgroups;
  static constexpr int kColumnBlocksPerConsumer = kColumnsPerConsumer / backward::kTmaColumns;

  // Tiles are kColumnBlocks blocks of (rows × 128 bytes), 128-byte swizzled (TMA's layout); the
  // producer (run_backward_producer) fills them by these names, as for BackwardTraits.
  static constexpr int kKvTileBytes = kBlockN * kHeadDim * kElementBytes;
  static constexpr int kKvColumnBlockBytes = kBlockN * static_cast<int>(kSwizzleRowBytes);
  static constexpr int kQTileBytes = kBlockM * kHeadDim * kElementBytes;
  static constexpr int kQColumnBlockBytes = kBlockM * static_cast<int>(kSwizzleRowBytes);
  static constexpr int kStatBytes = kBlockM * static_cast<int>(sizeof(float));
  // Pᵀ and dSᵀ of the step: 64 key rows × 64 queries, each row one 128-byte swizzle row. Two
  // buffers of each: a consumer writing step s + 1's may find the other still reading step s's.
  static constexpr int kExchangeTileBytes = kBlockN * kBlockM * kElementBytes;
  static constexpr int kExchangeBuffers = 2;
  // DqReduce::bulk_tensor: per consumer, its 64 × 128 fp32 dQ partial as four 128-byte-swizzled
  // boxes of 64 rows × 32 columns (the accumulator tensor map's box).
  static constexpr int kDqBoxBytes =
      backward::kWgmmaM * backward::kDqBoxColumns * static_cast<int>(sizeof(float));
  static constexpr int kDqBoxesPerConsumer = kColumnsPerConsumer / backward::kDqBoxColumns;
  static constexpr int kDqStageTileBytes = kDqBoxesPerConsumer * kDqBoxBytes;

  static constexpr int kKOffset = 0;
  static constexpr int kVOffset = kKOffset + kKvTileBytes;
  static constexpr int kQOffset = kVOffset + kKvTileBytes;
  static constexpr int kDoOffset = kQOffset + kStages * kQTileBytes;
  static constexpr int kPOffset = kDoOffset + kStages * kQTileBytes;
  static constexpr int kDsOffset = kPOffset + kExchangeBuffers * kExchangeTileBytes;
  static constexpr int kDqStageOffset = kDsOffset + kExchangeBuffers * kExchangeTileBytes;
  static constexpr int kDqStageBytes = kConsumerWarpgroups * kDqStageTileBytes;
  static constexpr int kLseOffset = kDqStageOffset + kDqStageBytes;
  static constexpr int kDeltaOffset = kLseOffset + kStages * kStatBytes;
  static constexpr int kBarrierOffset = kDeltaOffset + kStages * kStatBytes;
  static constexpr int kBarrierCount = 1 + 2 * kStages;  // K/V full, per stage full and empty
  static constexpr int kAlignment = static_cast<int>(kSwizzleAtomBytes);
  static constexpr int kSmemBytes =
      kBarrierOffset + kBarrierCount * static_cast<int>(sizeof(std::uint64_t)) + kAlignment;
  static constexpr int kStageTransactionBytes = 2 * kQTileBytes + 2 * kStatBytes;

  // What BackwardConsumer's shared element-wise steps and the dQ product see of this kernel:
  // score tiles of 64 keys × kQueriesPerConsumer queries, gradients of kColumnsPerConsumer
  // columns, dQ products over all 64 keys with the exchange tile as dSᵀ.
  struct ConsumerView {
    static constexpr int kBlockM = kQueriesPerConsumer;
    static constexpr int kColumnBlocks = kColumnBlocksPerConsumer;
    static constexpr int kDqKeys = kBlockN;
    static constexpr int kKvColumnBlockBytes = WideBackwardTraits::kKvColumnBlockBytes;
    static constexpr int kDsBytes = kExchangeTileBytes;
    static constexpr int kDqBoxBytes = WideBackwardTraits::kDqBoxBytes;
  };

  static_assert(kShape.grad_split == GradSplit::head_dim, "the head-dim split kernel's shape");
  static_assert(kBlockM == backward::kTmaColumns,
                "an exchange tile row is exactly one 128-byte swizzle row of queries");
  static_assert(kBlockN == backward::kWgmmaM, "both consumers share one wgmma M of keys");
  static_assert(kColumnsPerConsumer == 128,
                "dV/dK use the m64n128 B-transposed wrapper (backward_ptx.cuh)");
  static_assert(kQueriesPerConsumer == 32, "Sᵀ/dPᵀ use the m64n32 wrapper (backward_ptx.cuh)");
  static_assert(kSmemBytes <= backward::kMaxSharedBytesPerBlock, "shared memory per block");
  static_assert(kShape.dq_reduce == DqReduce::bulk_tensor,
                "one Q/dO stage with TMA reductions measured fastest at D = 256 (two stages with "
                "atomics, or with dQ staged in the consumed stage, lost 5-35 %: "
                "backward_tile_config.hpp)");
};

// The wide kernel's own products and the Pᵀ/dSᵀ store; the element-wise steps are
// BackwardConsumer's (backward_kernel.cuh) on the ConsumerView.
template <class Traits, class Element>
struct WideBackwardConsumer {
  static constexpr int kScoreRegs = Traits::kQueriesPerConsumer / 2;
  static constexpr int kGradRegs = Traits::kColumnsPerConsumer / 2;
  static constexpr int kChunks = Traits::kQueriesPerConsumer / backward::kWgmmaK;

  // acc (64 keys × 32 queries) = A·Bᵀ with A = the K or V tile and B = the consumer's 32 rows of
  // the Q or dO stage (`b_rows`), both K-major, over the whole head dim.
  static FATTN_DEVICE void issue_half_scores(float (&acc)[kScoreRegs], std::uint32_t a_tile,
                                             std::uint32_t b_rows) {
    constexpr int kStepsPerColumnBlock = backward::kTmaColumns / backward::kWgmmaK;
    constexpr std::uint32_t kStepBytes = backward::kWgmmaK * sizeof(Element);
    fence_operands(acc);
    wgmma_fence();
#pragma unroll
    for (int step = 0; step < Traits::kColumnBlocks * kStepsPerColumnBlock; ++step) {
      const int block = step / kStepsPerColumnBlock;
      const std::uint32_t within = (step % kStepsPerColumnBlock) * kStepBytes;
      const std::uint64_t desc_a =
          make_smem_descriptor(a_tile + block * Traits::kKvColumnBlockBytes + within, 0);
      const std::uint64_t desc_b =
          make_smem_descriptor(b_rows + block * Traits::kQColumnBlockBytes + within, 0);
      wgmma_ss_n32<Element>(acc, desc_a, desc_b, step > 0);
    }
    wgmma_commit();
  }

  // grad (64 keys × 128 columns) += A·B with A = an exchange tile (keys × 64 queries, K-major)
  // and B = the Q or dO stage from the consumer's first column block (`b_columns`), read
  // MN-major (query rows are the k dimension), as backward_kernel.cuh's issue_gradient.
  static FATTN_DEVICE void issue_gradient(float (&grad)[kGradRegs], std::uint32_t exchange_tile,
                                          std::uint32_t b_columns) {
    constexpr std::uint32_t kStepBytes = backward::kWgmmaK * sizeof(Element);
    constexpr std::uint32_t kRowStepBytes = backward::kWgmmaK * kSwizzleRowBytes;
#pragma unroll
    for (int chunk = 0; chunk < Traits::kBlockM / backward::kWgmmaK; ++chunk) {
      const std::uint64_t desc_a = make_smem_descriptor(exchange_tile + chunk * kStepBytes, 0);
      const std::uint64_t desc_b =
          make_smem_descriptor(b_columns + chunk * kRowStepBytes, Traits::kQColumnBlockBytes);
      wgmma_ss_n128<Element, false>(grad, desc_a, desc_b, 1);
    }
  }

  // This thread's half of Pᵀ or dSᵀ (BackwardConsumer::to_fragments' words) into an exchange
  // tile at queries [first_query, first_query + 32): word r of chunk c holds key (warp·16 +
  // lane/4 + 8·(r%2)), queries first_query + 16c + 8·(r/2) + 2·(lane%4) + {0,1}; 16-byte chunk
  // q of row k lies at chunk q ^ (k % 8). A store instruction covers 8 rows × 4 words on 32
  // distinct banks.
  static FATTN_DEVICE void store_exchange(std::uint8_t* tile, int first_query,
                                          const std::uint32_t (&words)[kChunks][4]) {
    constexpr int kChunkBytes = 16;
    constexpr int kRowsPerSwizzle = 8;
    constexpr int kElementsPerChunk = kChunkBytes / static_cast<int>(sizeof(Element));
    const int lane = threadIdx.x % backward::kWarpSize;
    const int warp = (threadIdx.x % backward::kWarpgroupThreads) / backward::kWarpSize;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int key = warp * 16 + lane / 4 + 8 * (r % 2);
        const int query = first_query + 16 * c + 8 * (r / 2) + 2 * (lane % 4);
        const int swizzled = (query / kElementsPerChunk) ^ (key % kRowsPerSwizzle);
        *reinterpret_cast<std::uint32_t*>(
            tile + key * kSwizzleRowBytes + swizzled * kChunkBytes +
            (query % kElementsPerChunk) * static_cast<int>(sizeof(Element))) = words[c][r];
      }
    }
  }
};

template <int kHeadDim, class Element, class Mask, class TileConfig>
__global__ void __launch_bounds__(WideBackwardTraits<kHeadDim, Element, TileConfig>::kThreads, 1)
    wide_backward_kernel(const __grid_constant__ CUtensorMap tma_q,
                         const __grid_constant__ CUtensorMap tma_k,
                         const __grid_constant__ CUtensorMap tma_v,
                         const __grid_constant__ CUtensorMap tma_dout,
                         const __grid_constant__ CUtensorMap tma_dq_accum, const Mask mask,
                         const BackwardParams params) {
  using Traits = WideBackwardTraits<kHeadDim, Element, TileConfig>;
  using View = typename Traits::ConsumerView;
  using Shared = BackwardConsumer<View, Element>;
  using Wide = WideBackwardConsumer<Traits, Element>;
  using namespace backward;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kStages = Traits::kStages;

  extern __shared__ std::uint8_t smem_unaligned[];
  // From here to the consumers this is backward_kernel's prologue. Moving it (or only the
  // alignment below) into a shared function changed ptxas's integer scheduling of every kernel of
  // the family (sixth session, sm_90a SASS: up to +32 instructions per TU), which needs a GPU
  // run to accept; until then both kernels spell it out.
  // Aligned by pointer arithmetic (not through an integer) to keep ld/st.shared, as in
  // backward_kernel.cuh.
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
  const int key_row0 = key0 + warp_in_group * 16 + lane / 4;  // and key_row0 + 8
  const int first_query = consumer * Traits::kQueriesPerConsumer;  // in the step's tile
  const int column0 = consumer * Traits::kColumnsPerConsumer;
  const std::uint32_t k_tile = smem_address(smem + Traits::kKOffset);
  const std::uint32_t v_tile = smem_address(smem + Traits::kVOffset);
  const std::uint32_t first_query_bytes = first_query * kSwizzleRowBytes;
  const std::uint32_t kv_columns_bytes =
      consumer * Traits::kColumnBlocksPerConsumer * Traits::kKvColumnBlockBytes;
  const std::uint32_t q_columns_bytes =
      consumer * Traits::kColumnBlocksPerConsumer * Traits::kQColumnBlockBytes;

  float dk[Wide::kGradRegs];
  float dv[Wide::kGradRegs];
#pragma unroll
  for (int i = 0; i < Wide::kGradRegs; ++i) {
    dk[i] = 0.0f;
    dv[i] = 0.0f;
  }
  const bool keys_ragged = key0 + kBlockN > params.seqlen_k;

  // dQ of the consumer's columns, as two 64 × 64 products (the one dS·K wgmma form).
  constexpr int kDqBlocks = Traits::kColumnBlocksPerConsumer;
  float dq[kDqBlocks][Shared::kDqRegs];
  std::uint8_t* dq_stage_tile =
      smem + Traits::kDqStageOffset + consumer * Traits::kDqStageTileBytes;
  const bool dq_reduce_leader = threadIdx.x % kWarpgroupThreads == 0;
  // Box `box` (32 columns) of the consumer's dQ partial in shared memory; boxes 2b and 2b + 1
  // are adjacent (Shared::store_dq writes a 64-column block as two).
  auto dq_box = [&](int box) -> std::uint8_t* { return dq_stage_tile + box * Traits::kDqBoxBytes; };

  if (steps > 0) mbarrier_wait(&bars->kv_full, 0);
  for (int step = 0; step < steps; ++step) {
    const int stage = step % kStages;
    const std::uint32_t phase = (step / kStages) & 1;
    const int head = kv_head * params.group_size + step / m_count;
    const int row0 = (m_first + step % m_count) * kBlockM;
    const std::uint32_t q_stage =
        smem_address(smem + Traits::kQOffset + stage * Traits::kQTileBytes);
    const std::uint32_t do_stage =
        smem_address(smem + Traits::kDoOffset + stage * Traits::kQTileBytes);
    const auto* lse_half = reinterpret_cast<const float*>(
                               smem + Traits::kLseOffset + stage * Traits::kStatBytes) +
                           first_query;
    const auto* delta_half = reinterpret_cast<const float*>(
                                 smem + Traits::kDeltaOffset + stage * Traits::kStatBytes) +
                             first_query;

    mbarrier_wait(&bars->full[stage], phase);
    float s[Wide::kScoreRegs];
    float dp[Wide::kScoreRegs];
    Wide::issue_half_scores(s, k_tile, q_stage + first_query_bytes);
    Wide::issue_half_scores(dp, v_tile, do_stage + first_query_bytes);
    wgmma_wait<1>();  // Sᵀ is ready; dPᵀ may still run
    fence_operands(s);
    const int query0 = row0 + first_query;
    const int query_end = min(query0 + Traits::kQueriesPerConsumer, params.seqlen_q);
    const bool needs_mask =
        keys_ragged || !mask.tile_is_unmasked(query0, query_end, key0, key0 + kBlockN);
    if (needs_mask) {
      Shared::template probabilities<true>(s, lse_half, params.scale_log2, mask, key_row0,
                                           query0, params.seqlen_k);
    } else {
      Shared::template probabilities<false>(s, lse_half, params.scale_log2, mask, key_row0,
                                            query0, params.seqlen_k);
    }
    wgmma_wait<0>();
    fence_operands(dp);
    Shared::score_gradients(dp, s, delta_half);

    // Both halves into exchange buffer step % 2 (the other consumer may still read the other
    // buffer in its step − 1 products; this one it last read two steps ago, before both passed
    // the previous step's barrier).
    const int buffer = step % Traits::kExchangeBuffers;
    std::uint8_t* p_tile = smem + Traits::kPOffset + buffer * Traits::kExchangeTileBytes;
    std::uint8_t* ds_tile = smem + Traits::kDsOffset + buffer * Traits::kExchangeTileBytes;
    {
      std::uint32_t p_words[Wide::kChunks][4];
      std::uint32_t ds_words[Wide::kChunks][4];
      Shared::to_fragments(s, p_words);
      Shared::to_fragments(dp, ds_words);
      Wide::store_exchange(p_tile, first_query, p_words);
      Wide::store_exchange(ds_tile, first_query, ds_words);
    }
    fence_view_async_shared();
    if (dq_reduce_leader) bulk_wait_group_read<0>();  // the dQ staging tile is free again
    named_barrier_sync(kDsReadyBarrier, Traits::kConsumerThreads);

    fence_operands(dv);
    fence_operands(dk);
    wgmma_fence();
    Wide::issue_gradient(dv, smem_address(p_tile), do_stage + q_columns_bytes);
    Wide::issue_gradient(dk, smem_address(ds_tile), q_stage + q_columns_bytes);
    wgmma_commit();
#pragma unroll
    for (int b = 0; b < kDqBlocks; ++b) {
      Shared::issue_dq(dq[b], smem_address(ds_tile), 0,
                       k_tile + kv_columns_bytes + b * Traits::kKvColumnBlockBytes);
    }
    // The stage is released as soon as dV and dK (its last readers; each consumer thread
    // arrives, its LSE / D_i reads done too) are, while the dQ product (dS and K only) still
    // runs, so that the next step's loads start earlier: with one stage, ncu 4.44 -> 4.17 ms at
    // N = 4k (backward_tile_config.hpp).
    wgmma_wait<kDqBlocks>();
    fence_operands(dv);
    fence_operands(dk);
    mbarrier_arrive(&bars->empty[stage]);
    wgmma_wait<0>();
#pragma unroll
    for (int b = 0; b < kDqBlocks; ++b) fence_operands(dq[b]);
    fence_operands(dv);
    fence_operands(dk);

    constexpr int kBoxesPerBlock = kDqColumns / kDqBoxColumns;
#pragma unroll
    for (int b = 0; b < kDqBlocks; ++b) Shared::store_dq(dq_box(b * kBoxesPerBlock), dq[b]);
    fence_view_async_shared();
    named_barrier_sync(kDqStagedBarrier + consumer, kWarpgroupThreads);
    if (dq_reduce_leader) {
#pragma unroll
      for (int box = 0; box < Traits::kDqBoxesPerConsumer; ++box) {
        tma_reduce_add_4d(&tma_dq_accum, dq_box(box), column0 + box * kDqBoxColumns, row0, head,
                          batch);
      }
      bulk_commit_group();
    }
  }
  if (dq_reduce_leader) bulk_wait_group<0>();  // the reductions complete before the CTA exits

  store_key_gradients<Element>(dk, dv, params, batch, kv_head, key_row0, column0);
}

}  // namespace fattn::detail::sm90
