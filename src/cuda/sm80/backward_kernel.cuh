// The sm80 backward kernels: FlashAttention-2's algorithm on mma.sync tensor cores.
//
//   preprocess   D_i = rowsum(dO∘O), LSE in the log2 domain (+inf for fully masked rows, so
//                that P = 2^(S - LSE) is 0 there, never NaN), dQ accumulator zeroed
//                (backward_row_passes.cuh, with the postprocess and BackwardParams)
//   main         one CTA per (key tile, KV head, batch): K and V stay in shared memory, dK and
//                dV in fp32 registers; the CTA walks every query tile of every query head of
//                its GQA group (so dK/dV need no cross-CTA reduction) and per tile computes
//                  Sᵀ = K·Qᵀ, dPᵀ = V·dOᵀ            (phase A, warps split keys x queries)
//                  Pᵀ = 2^(Sᵀ·c - LSE), dSᵀ = Pᵀ∘(dPᵀ - D)   -> shared memory, 16-bit
//                  dV += Pᵀ·dO, dK += dSᵀ·Q          (phase B, warps split keys x head dim)
//                  dQ_partial = dS·K  -> fp32 atomics into the dQ accumulator
//                (DqProductBeforePhaseB, a bench option: dQ before phase B; DqAtomicsInPhaseB,
//                the default mode's tile at 64: dQ before phase B, its atomics spread over phase
//                B's query steps, after each step's fragment loads; DqReductionsByLine, the
//                Hopper-sized tiles at 128 and 256: the partial staged per warp in shared memory
//                and reduced by whole 128-byte accumulator lines)
//   postprocess  dQ = scale · accumulator, converted to the storage type
// Deterministic mode orders the dQ accumulation: the CTAs that touch a query tile add their
// partials in a fixed key-tile order (see dq_turn_for), each waiting on a per-(batch, head,
// query tile) counter, so the fp32 sums are the same bits on every run.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "common/mask.hpp"
#include "cuda/common/ptx_sm80.cuh"
#include "cuda/sm80/backward_cta_order.cuh"
#include "cuda/sm80/backward_dq_tickets.cuh"
#include "cuda/sm80/backward_dq_lines.cuh"
#include "cuda/sm80/backward_products.cuh"
#include "cuda/sm80/backward_row_passes.cuh"
#include "cuda/sm80/backward_score_statistics.cuh"
#include "cuda/sm80/backward_tile_config.hpp"
#include "cuda/sm80/backward_timeline.cuh"
#include "cuda/sm80/backward_windows.cuh"
#include "cuda/sm80/forward_kernel.cuh"
#include "cuda/sm80/tile_io.cuh"

namespace fattn::detail::sm80 {

// The thread index read with a volatile move, as opaque_lane_id (MaskedPerItemPhaseBAddresses).
__device__ __forceinline__ int opaque_thread_id() {
  int thread;
  asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(thread));
  return thread;
}

// StagedEpilogue (backward_tile_config.hpp): every warp stores its dK (scaled) and dV pairs,
// rounded to the storage type, into two row-major tiles at `tiles` (kRowElements apart; the
// shared memory of the tiles, free once every warp has left the last item: the barrier below),
// then the CTA writes each key row of both as 16-byte chunks (rows past seqlen_k skipped).
// head_dim == kWidth and 16-byte-aligned rows (the caller's test). dK/dV fragments: rows
// key_row + 16·kt + 8·half + lane / 4, columns column0 + 8·dt + 2·(lane % 4).
// kStoredWidth < kWidth (ClassStagedEpilogue, a step class's kernel): the tiles' first
// kStoredWidth columns are the class's, staged by its warps, and only the 16-byte chunks below
// `head_dim` leave (16-byte rows: head_dim % 8 == 0); a warp stages its dim tiles below
// kLightDimTiles, and the rest only with `all_tiles` (phase B's light warps of an odd class).
template <class Element, int kRowElements, int kBlockN, int kWidth, int kThreads, int kKeyTilesB,
          int kDimTilesB, int kStoredWidth = kWidth, int kLightDimTiles = kDimTilesB>
__device__ __forceinline__ void store_dk_dv_staged(
    const float (&dk_acc)[kKeyTilesB][kDimTilesB][4],
    const float (&dv_acc)[kKeyTilesB][kDimTilesB][4], Element* tiles,
    const BackwardParams& params, Element* dk_base, Element* dv_base, int key0, int key_row,
    int column0, int lane, int head_dim = kWidth, bool all_tiles = true) {
  using Traits = ElementTraits<Element>;
  constexpr int kTileElements = kBlockN * kRowElements;
  constexpr int kHalfRows = kMmaM / 2;
  __syncthreads();  // every warp is done with the last item's tiles
  Element* const lane_first =
      tiles + (key_row + lane / 4) * kRowElements + column0 + 2 * (lane % 4);
#pragma unroll
  for (int kt = 0; kt < kKeyTilesB; ++kt)
#pragma unroll
    for (int half = 0; half < 2; ++half)
#pragma unroll
      for (int dt = 0; dt < kDimTilesB; ++dt) {
        if (dt >= kLightDimTiles && !all_tiles) continue;
        const int offset = (kt * kMmaM + half * kHalfRows) * kRowElements + dt * kMmaN;
        *reinterpret_cast<std::uint32_t*>(lane_first + offset) =
            Traits::pack(dk_acc[kt][dt][2 * half] * params.scale,
                         dk_acc[kt][dt][2 * half + 1] * params.scale);
        *reinterpret_cast<std::uint32_t*>(lane_first + kTileElements + offset) =
            Traits::pack(dv_acc[kt][dt][2 * half], dv_acc[kt][dt][2 * half + 1]);
      }
  __syncthreads();
  constexpr int kRowChunks = kStoredWidth / kChunkElements;
  constexpr int kChunksPerTensor = kBlockN * kRowChunks;
  constexpr int kPassesPerTensor = kChunksPerTensor / kThreads;
  static_assert(kChunksPerTensor % kThreads == 0, "whole passes of the CTA over a tile");
#pragma unroll
  for (int pass = 0; pass < 2 * kPassesPerTensor; ++pass) {
    const int tensor = pass / kPassesPerTensor;  // 0: dK, 1: dV
    const int chunk = (pass % kPassesPerTensor) * kThreads + static_cast<int>(threadIdx.x);
    const int row = chunk / kRowChunks;
    const int column = (chunk % kRowChunks) * kChunkElements;
    const int key = key0 + row;
    if (key < params.seqlen_k && (kStoredWidth == kWidth || column < head_dim)) {
      const uint4 bits = *reinterpret_cast<const uint4*>(tiles + tensor * kTileElements +
                                                          row * kRowElements + column);
      Element* const destination = tensor == 0 ? dk_base + key * params.dk_strides.row
                                               : dv_base + key * params.dv_strides.row;
      *reinterpret_cast<uint4*>(destination + column) = bits;
    }
  }
}

// kFullWidth: round_up(head_dim, 16) fills the bucket. That kernel has no k-step tests in
// phase A and no column tests in the dQ product, so the compiler can overlap each step's
// fragment loads and mma's with the neighbouring steps'; with the tests as run-time branches
// (one kernel for every head dim) a branch held only 2-4 independent mma's there, and ncu
// showed 42 % of the issue cycles stalled on fixed-latency dependencies.
// kShifted: shifted windows (backward_windows.cuh), in either kernel (backward v38: the
// full-width one from min_head_dim_over_zeros on).
// kClassSteps: 0, or a narrow step class of the full-width kernel (NarrowStepClasses,
// backward_tile_config.hpp): head dims of exactly that many 16-column k-steps, for which phase A
// unrolls only those steps and phase B splits them over its head-dim warp groups; with
// DqStepClasses a class of the dQ product and its reductions only.
template <class Config, class Element, class Mask, bool kFullWidth, bool kShifted = false,
          int kClassSteps = 0>
__global__ void __launch_bounds__(Config::kThreads)
    backward_kernel(const BackwardParams params, const Mask mask) {
  using Traits = ElementTraits<Element>;
  constexpr int kWidth = Config::kWidth;
  constexpr int kBlockM = Config::kBlockM;
  constexpr int kBlockN = Config::kBlockN;
  constexpr int kStages = Config::kStages;
  constexpr int kMaxSteps = kWidth / kMmaK;
  constexpr int kKeyTilesA = Config::kKeysPerWarpA / kMmaM;
  constexpr int kQueryTilesA = Config::kQueriesPerWarpA / Config::kQuerySplitsA / kMmaN;
  constexpr int kKeyTilesB = Config::kKeysPerWarpB / kMmaM;
  // A narrow step class: phase B's kClassSteps column blocks split over its two head-dim warp
  // groups, the first (light) group kLightStepsB of them, the second the rest (at 128: 5 steps as
  // 2 + 3, 6 as 3 + 3, instead of the bucket's 4 + 4). With an odd class the light warps sit on
  // the SM sub-partitions (warp % 4) whose dQ slices hold the most columns of the class
  // (dq_slice below), so that phase B and the dQ product together are even over them.
  // DqStepClasses (backward_tile_config.hpp): a class of the dQ product and its reductions only
  // (kDqClass); phase A, phase B, the copies and the epilogue stay the bucket's.
  constexpr bool kDqClass = kClassSteps > 0;
  constexpr bool kNarrowClass = kDqClass && !dq_only_step_classes<Config>();
  static_assert(!kDqClass || (kFullWidth && !kShifted && kClassSteps < kMaxSteps),
                "step classes: the full-width kernel without shifted windows, below the bucket");
  static_assert(!kNarrowClass || (Config::kWarpsDimB == 2 && Config::kWarpsDimQ == 4),
                "narrow step classes: two head-dim warp groups in phase B and four in the dQ "
                "product");
  constexpr int kStepsPerWarpB =
      kNarrowClass ? (kClassSteps + 1) / 2 : Config::kDimPerWarpB / kMmaK;
  constexpr int kLightStepsB = kNarrowClass ? kClassSteps / 2 : kStepsPerWarpB;
  constexpr int kDimTilesB = 2 * kStepsPerWarpB;
  // Phase A's unrolled k-steps: a step class has no step past its own.
  constexpr int kStepsA = kNarrowClass ? kClassSteps : kMaxSteps;
  // ClassDqQueryWarps (backward_tile_config.hpp): a step class's dQ product on kWarpsQueriesQ x
  // kWarpsDimQ warps over the class's columns (kClassDqLayout); otherwise Config's layout.
  constexpr int kClassDqWarpsQ = kNarrowClass ? class_dq_query_warps<Config, kClassSteps>() : 0;
  constexpr bool kClassDqLayout = kClassDqWarpsQ > 0;
  constexpr int kWarpsQueriesQ = kClassDqLayout ? kClassDqWarpsQ : Config::kWarpsQueriesQ;
  constexpr int kWarpsDimQ = Config::kWarps / kWarpsQueriesQ;
  constexpr int kQueriesPerWarpQ = kBlockM / kWarpsQueriesQ;
  constexpr int kDimPerWarpQ =
      kClassDqLayout ? kClassSteps * kMmaK / kWarpsDimQ : Config::kDimPerWarpQ;
  constexpr int kDimTilesQ = kDimPerWarpQ / kMmaN;
  constexpr int kRowTilesQ = kQueriesPerWarpQ / kMmaM;
  constexpr bool kPackedP = packed_probabilities<Config>();
  constexpr bool kPipelinedB = pipelined_query_fragments<Config>();
  // Rolled k-step loops (backward_tile_config.hpp): the full-width kernel only, where every
  // step exists.
  constexpr bool kRolledB = rolled_product_b<Config>() && kFullWidth;
  // The lean loop in the full-width kernel only (the general one spilled with it at 64 on sm_80).
  constexpr bool kLean = lean_tile_loop<Config>() && kFullWidth;
  static_assert(!lean_tile_loop<Config>() || packed_probabilities<Config>(),
                "the lean loop computes Pᵀ in the packed tiles' pass only");
  // v5 options (backward_tile_config.hpp): strided item copies in the lean loop; the deterministic
  // chain's hand-over by one thread's release. Not with DqRoundsInDkSteps: at 256 its NoMask
  // kernels spilled 4-12 bytes with the carried sources (sm_90a) and none without.
  // MaskedStridedItemLoads (v27): the masked kernels too, each item's Q / dO source (and with
  // kFreshStatSource its LSE / D_i source) derived from a fresh read of the thread index.
  constexpr bool kFreshQSource =
      masked_strided_item_loads<Config>() && !std::is_same_v<Mask, NoMask>;
  constexpr bool kFreshStatSource = kFreshQSource && masked_fresh_stat_source<Config>();
  // Not with shifted windows, whose rows are copied from their words (load_item).
  constexpr bool kStridedLoads =
      (strided_item_loads<Config>() ||
       (unmasked_strided_item_loads<Config>() && std::is_same_v<Mask, NoMask>) || kFreshQSource) &&
      kLean && !dq_rounds_in_dk_steps<Config>() && !kShifted;
  constexpr bool kLightRelease = light_dq_release<Config>();
  // v6: each product's first k-step writes its accumulators (C = 0) instead of zeroing moves.
  // The lean full-width kernel only, where step 0 of every product exists (head_dim >= 1).
  constexpr bool kZeroStart = zero_start_accumulators<Config>() && kLean;
  // ScorePassesByQueryTile: the Pᵀ and dSᵀ passes read each query tile's LSE / D_i pair once.
  constexpr bool kQueryOuterPasses =
      score_passes_by_query_tile<Config>() && kPackedP && kLean && kFullWidth;
  // ScoreStatisticsAhead: those passes read the pair kLseAhead / kDeltaAhead query tiles on
  // before storing this one's.
  constexpr bool kMasked = !std::is_same_v<Mask, NoMask>;
  constexpr int kLseAhead =
      kQueryOuterPasses ? score_statistics_ahead<Config, kMasked, false>() : 0;
  constexpr int kDeltaAhead =
      kQueryOuterPasses ? score_statistics_ahead<Config, kMasked, true>() : 0;
  // v7 (backward_tile_config.hpp): the dQ atomics from one address per query tile (the lean
  // kernel's accumulator rows are kWidth floats).
  constexpr bool kOneAddressAtomics = dq_atomics_from_one_address<Config>() && kLean;
  // v13 (backward_tile_config.hpp): the dQ reductions by whole accumulator lines through a
  // staging tile per warp (reduce_dq_by_lines); the accumulator's rows are kWidth floats, as
  // above.
  constexpr bool kLineReductions = dq_reductions_by_line<Config>() && kLean;
  // v21 (backward_tile_config.hpp): dK and dV out through shared memory in 16-byte chunks
  // (UnmaskedStagedEpilogue: in the NoMask kernels only).
  // Not with shifted windows: dK and dV leave from their shifted columns (store_shifted_pair).
  constexpr bool kStagedEpilogue =
      (staged_epilogue<Config>() ||
       (unmasked_staged_epilogue<Config>() && std::is_same_v<Mask, NoMask>)) &&
      kLean && !kShifted;
  // Shifted windows in the full-width kernel (v38): the CTA's shifts are read from
  // window_shifts_slot where they are used, and the lane terms are rebuilt per item (the
  // copies' thread, phase A's fragment lane, phase B's addresses, the epilogue's lane): its first
  // build spilled 4-20 bytes at 256 (sm_80 and sm_90a) with them held across the item loop.
  constexpr bool kShiftedFullWidth = kShifted && kFullWidth;
  // MaskedPerItemPhaseBAddresses (backward_tile_config.hpp): phase B's Q / dO address per item.
  constexpr bool kPerItemBAddresses =
      (masked_per_item_phase_b_addresses<Config>() && !std::is_same_v<Mask, NoMask>) ||
      kShiftedFullWidth;
  // v19 (backward_tile_config.hpp): the line staging's offsets with the swizzle split.
  // ClassDqQueryWarps' 12-chunk warp rows stage as DqPeriodicLineRounds, with a swizzle of their
  // own (neither of these).
  constexpr bool kSplitSwizzle =
      line_staging_swizzle_split<Config>() && kLineReductions && !kClassDqLayout;
  // DqStagingPairSwizzle (backward_tile_config.hpp): the staging rows' conflict-free swizzle.
  constexpr bool kPairSwizzle =
      dq_staging_pair_swizzle<Config>() && kLineReductions && !kClassDqLayout;
  static_assert(!kClassDqLayout || kLineReductions,
                "ClassDqQueryWarps: the line reductions' staging holds the class's warp rows");
  // v20 (backward_tile_config.hpp): dV in phase B, dK after the dQ product with the line-
  // reduction rounds between its query steps (the default mode's whole query tiles; otherwise
  // the rounds as below, then dK).
  constexpr bool kRoundsInDk = dq_rounds_in_dk_steps<Config>() && kLineReductions && kRolledB &&
                               !dq_product_before_phase_b<Config>() &&
                               !dq_atomics_in_phase_b<Config>();
  // v8 (backward_tile_config.hpp, the deterministic mode at 256): the dQ product and its ordered
  // atomics before phase B, so the chain's hand-over waits less on this CTA's phase B.
  constexpr bool kDqFirst = dq_product_before_phase_b<Config>() && kLean;
  static_assert(!dq_product_before_phase_b<Config>() || rolled_product_b<Config>(),
                "the dQ-first order runs phase B rolled (rolled_phase_b)");
  // v9 (backward_tile_config.hpp, the table at 64): the dQ product before phase B and, in the
  // default mode, its reductions spread over phase B's query steps (phase_b_with_dq_atomics);
  // the deterministic mode runs v8's order (ordered atomics, then rolled_phase_b).
  constexpr bool kDqInB = dq_atomics_in_phase_b<Config>() && kLean;
  // OrderedDqAtomicsInPhaseB (backward_tile_config.hpp, v33; v34 the masked kernels too): the
  // deterministic mode's chain around those spread reductions: the turn polled before the
  // Pᵀ/dSᵀ barrier, the hand-over after the next item's loop-top barrier.
  constexpr bool kOrderedDqInB = ordered_dq_atomics_in_phase_b<Config>() && kDqInB;
  // s26-det (backward_tile_config.hpp): the line reductions' hand-over after the next loop-top
  // barrier (DeferredDqHandOver) and the turn polled by warp 0 after phase B
  // (DqTurnBeforeDqProduct), both with LightDqRelease's single release store.
  constexpr bool kDeferredHandOver =
      deferred_dq_hand_over<Config>() && kLineReductions && kLightRelease;
  // UnmaskedDqTurnBeforeDqProduct: not below sm_90 (its 256 NoMask kernel spilled 16 bytes there,
  // fp16; the table that takes it needs Hopper's shared memory).
  // MaskedDqTurnBeforeDqProduct: the same in the masked kernels, also on sm_90 and later only
  // (256's table).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  constexpr bool kUnmaskedTurnBeforeDq = false;
  constexpr bool kMaskedTurnBeforeDq = false;
#else
  constexpr bool kUnmaskedTurnBeforeDq =
      unmasked_dq_turn_before_dq_product<Config>() && std::is_same_v<Mask, NoMask>;
  constexpr bool kMaskedTurnBeforeDq =
      masked_dq_turn_before_dq_product<Config>() && !std::is_same_v<Mask, NoMask>;
#endif
  // DqTurnBeforeDqProduct is not in the step-class kernels (D = 65..96 at 128): there it measured
  // x0.995 / 0.988 at D = 80 / 96 causal (twenty-seventh session, call 2), against x1.05-1.08 at
  // D = 128.
  constexpr bool kTurnBeforeDq =
      ((dq_turn_before_dq_product<Config>() && !kNarrowClass) || kUnmaskedTurnBeforeDq ||
       kMaskedTurnBeforeDq) &&
      kLineReductions && kLightRelease;
  // The reductions' first query row through the turn's wait (row_after_dq_turn_of_cta).
  constexpr bool kRowThroughTurn = kUnmaskedTurnBeforeDq || kMaskedTurnBeforeDq;
  static_assert(!(kDeferredHandOver || kTurnBeforeDq) || !(kRoundsInDk || kDqFirst || kDqInB),
                "the hand-over and the turn of the line reductions after phase B");
  constexpr bool kHandOverAtLoopTop = kOrderedDqInB || kDeferredHandOver;
  // MaskedDqTurnSlot: the deferred hand-over reads the item's counter and turn from
  // dq_turn_slot.
  constexpr bool kTurnSlot =
      masked_dq_turn_slot<Config>() && !std::is_same_v<Mask, NoMask> && kDeferredHandOver;
  // UnmaskedDqTurnBeforeDqProduct: warp 0's poll writes the slot (thread 0 is its lane 0) and
  // the hand-over reads it (recomputing the previous item's counter there, the NoMask kernel
  // spilled 4-8 bytes at 256 on sm_90a).
  constexpr bool kTurnSlotAtPoll = kUnmaskedTurnBeforeDq && kTurnBeforeDq && kDeferredHandOver;
  static_assert(!dq_atomics_in_phase_b<Config>() ||
                    (rolled_product_b<Config>() && dq_atomics_from_one_address<Config>() &&
                     !dq_product_before_phase_b<Config>()),
                "the spread reductions run phase B's rolled steps from the one-address form");
  // The packed tiles also take one register per fragment address (XorFragmentAddress) instead
  // of five (ptxas -v: what fits phase A's single pass), where it is carry-free
  // (fragment_address): chunk base 0 (phase A, Pᵀ / dSᵀ in phase B) or a power-of-two step count
  // per warp (dSᵀ and K in the dQ product, Q / dO in phase B; 192's K and Q / dO span 6 steps).
  constexpr bool kXorAddresses = kPackedP;
  constexpr bool kXorDsQ = kPackedP && is_power_of_two(kRowTilesQ);
  constexpr bool kXorKQ = kPackedP && is_power_of_two(kDimPerWarpQ / kMmaK);
  constexpr bool kXorQB = kPackedP && is_power_of_two(kStepsPerWarpB);
  static_assert(!rolled_product_b<Config>() || (kXorAddresses && !kPipelinedB),
                "the rolled loop addresses Pᵀ's steps at run time: an XOR address");
  constexpr int kStatChunks = kBlockM * 4 / 16;  // 16-byte chunks of one LSE / D_i row tile
  static_assert(!(kShifted && kPipelinedB),
                "shifted windows mask the first k-step's fragments, loaded per step");
  // FusedDqConversion (backward_tile_config.hpp): the NoMask full-width kernels without shifted
  // windows convert dQ after their epilogue where the launcher gives them tickets (a run-time
  // flag). Not the masked kernels (measured slower fused).
  constexpr bool kFusedDq = fused_dq_conversion<Config>() && std::is_same_v<Mask, NoMask> &&
                            kFullWidth && !kShifted;
  // The dQ step classes (DqStepClasses) spilled 4-12 bytes with the fused code (WindowMask, sm_90a,
  // twenty-eighth session), and the launcher fuses whatever the head dim: one or the other.
  static_assert(!(fused_dq_conversion<Config>() && dq_only_step_classes<Config>()),
                "FusedDqConversion with DqStepClasses");

  extern __shared__ __align__(128) unsigned char shared_bytes[];
  Element* k_tile = reinterpret_cast<Element*>(shared_bytes);
  Element* v_tile = k_tile + kBlockN * kWidth;
  Element* q_tiles = v_tile + kBlockN * kWidth;
  Element* do_tiles = q_tiles + kStages * kBlockM * kWidth;
  Element* p_tile = do_tiles + kStages * kBlockM * kWidth;  // Pᵀ [key][query]
  Element* ds_tile = p_tile + kBlockN * kBlockM;              // dSᵀ [key][query]
  float* lse_rows = reinterpret_cast<float*>(ds_tile + kBlockN * kBlockM);
  float* delta_rows = lse_rows + kStages * kBlockM;

  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int group = lane / 4;
  const int quad_lane = lane % 4;

  // Deterministic mode waits only on CTAs of lower linear index, which the hardware has started
  // earlier (no deadlock whatever the residency): with the descending dQ order, key tiles are
  // numbered from the end of the grid.
  // QueryTilesDescending (backward_tile_config.hpp): every CTA walks its query tiles from the
  // last one down, so the key tiles of a query tile reach it at the same point of their walks
  // under a right-bounded mask (and from the left under a left-bounded one) and add in ascending
  // order, in grid order: the heavy key tiles first.
  constexpr bool kDescendingWalk =
      query_tiles_descending<Config>() && !std::is_same_v<Mask, NoMask>;
  const bool descending =
      !kDescendingWalk && params.semaphores != nullptr && mask_is_right_bounded(mask);
  int n_block = descending ? static_cast<int>(gridDim.x - 1 - blockIdx.x)
                           : static_cast<int>(blockIdx.x);
  int kv_head = static_cast<int>(blockIdx.y);
  int batch = static_cast<int>(blockIdx.z);
  // Not in the deterministic mode with the ascending walk: its chain needs every key tile it waits
  // for at a lower index (with the descending walk, those to its left: lower in either order).
  if constexpr (key_tiles_slowest_in_head_groups<Config>() && !std::is_same_v<Mask, NoMask>) {
    if ((params.semaphores == nullptr || kDescendingWalk) && mask_is_right_bounded(mask)) {
      const CtaTile tile = key_tile_slowest_in_group(Config::kGroupPairs);
      n_block = tile.n_block;
      kv_head = tile.kv_head;
      batch = tile.batch;
    }
  }
  // DeterministicUnmaskedHeadGroups (backward_tile_config.hpp): the same order in the
  // deterministic NoMask launches, whose chain waits only on the key tile to the left (a lower
  // index in this order).
  if constexpr (deterministic_unmasked_head_groups<Config>() && std::is_same_v<Mask, NoMask>) {
    if (params.semaphores != nullptr) {
      const CtaTile tile = key_tile_slowest_in_group(Config::kUnmaskedGroupPairs);
      n_block = tile.n_block;
      kv_head = tile.kv_head;
      batch = tile.batch;
    }
  }
  const int key0 = n_block * kBlockN;
  FATTN_SM80_BWD_TIMELINE_START();
  // Shifted windows: the loop runs on the CTA's windows, the words that cover its rows at the
  // larger of its two shifts (D = 74 at shifts 0..6: 80 columns, 5 k-steps like D = 80; the
  // bound D + 7 would take 6), copied with 16-byte cp.async.
  // The full-width kernel reads them from window_shifts_slot (kShiftedFullWidth).
  [[maybe_unused]] WindowShifts shifts;
  if constexpr (kShifted) shifts = window_shifts<Element>(params, batch, kv_head);
  if constexpr (kShiftedFullWidth) {
    if (threadIdx.x == 0) window_shifts_slot() = shifts;  // seen after the K / V staging barrier
  }
  auto current_shifts = [&] { return kShiftedFullWidth ? window_shifts_slot() : shifts; };
  const int head_dim = kShifted ? shifts.width : params.head_dim;
  const int steps = kFullWidth ? kMaxSteps : ceil_div(head_dim, kMmaK);
  // ClassTileCopies (backward_tile_config.hpp): a step class copies only its own chunks of each
  // row; nothing in its kernel reads the tiles' columns past the class.
  const int chunks = (kNarrowClass && class_tile_copies<Config>() ? kClassSteps : steps) *
                     (kMmaK / kChunkElements);
  // Phase B keeps its run-time column tests in both kernels (see there).
  const int head_dim_steps = ceil_div(head_dim, kMmaK);
  // The packed tiles keep phase A's run-time k-step tests in the full-width kernel too: without
  // them ptxas hoists the ldmatrix of many k-steps ahead of their mma's (16 fragments in flight)
  // and spills next to the single pass's registers.
  const int steps_a = kPackedP ? head_dim_steps : steps;
  // UntestedPackedPhaseA (backward_tile_config.hpp): no test on the k-steps every head dim has.
  // A step class runs head dims of exactly kClassSteps k-steps: with
  // untested_narrow_class_steps, none of them tested in the NoMask kernel (the WindowMask
  // kernel spilled 4-12 bytes without the tests, bf16 on sm_80 and sm_90a).
  constexpr int kUntestedStepsA =
      kNarrowClass && untested_narrow_class_steps<Config>() && std::is_same_v<Mask, NoMask>
          ? kClassSteps
      : untested_packed_phase_a<Config>() && kFullWidth
          ? (min_full_width_head_dim(kWidth) + kMmaK - 1) / kMmaK
          : 0;
  // GroupedPhaseATests (backward_tile_config.hpp): not with shifted windows, whose tiles past the
  // window are not known to be zeros.
  constexpr int kGroupedStepsA = kFullWidth && !kShifted ? grouped_phase_a_steps<Config>() : 0;
  constexpr int kTestGroupA = phase_a_test_group_steps<Config>();
  static_assert(kGroupedStepsA == 0 || !kNarrowClass, "grouped steps: the bucket's k-steps");
  static_assert(kGroupedStepsA == 0 || !pipelined_query_fragments<Config>(),
                "grouped steps: the pipelined fragments load the next step inside each step");
  const int alignment = kShifted ? kWidest : params.alignment;

  // Query tiles whose visible keys meet this key tile: a contiguous range for every mask.
  const int m_blocks = ceil_div(params.seqlen_q, kBlockM);
  auto touches = [&](int m) {
    const int r0 = m * kBlockM;
    const int r1 = min(r0 + kBlockM, params.seqlen_q);
    const int kb = mask.key_begin(r0);
    const int ke = mask.key_end(r1);
    return ke > kb && kb < key0 + kBlockN && ke > key0;
  };
  int m_first = 0;
  int m_end = 0;
  if constexpr (warp_searched_query_range<Config>() && !std::is_same_v<Mask, NoMask>) {
    const int2 range = warp_searched_query_range(m_blocks, lane, touches);
    m_first = range.x;
    m_end = range.y;
  } else {
    while (m_first < m_blocks && !touches(m_first)) ++m_first;
    m_end = m_first;
    while (m_end < m_blocks && touches(m_end)) ++m_end;
  }
  const int m_count = m_end - m_first;
  // The query tile of item `item` of the head at `head_offset` in the GQA group (each head walks
  // [m_first, m_end)).
  auto m_block_of = [&](int item, int head_offset) {
    return kDescendingWalk ? m_end - 1 - (item - head_offset * m_count)
                           : m_first + item - head_offset * m_count;
  };
  const int items = m_count * params.group_size;
  auto dq_turn = [&](const Mask& m, int r0, int r1, int n) {
    return dq_turn_for<kBlockN>(m, r0, r1, n, descending);
  };

  const auto* k_global = static_cast<const Element*>(params.k) + batch * params.k_strides.batch +
                         key0 * params.k_strides.row + kv_head * params.k_strides.head;
  const auto* v_global = static_cast<const Element*>(params.v) + batch * params.v_strides.batch +
                         key0 * params.v_strides.row + kv_head * params.v_strides.head;
  if constexpr (kShifted) {
    constexpr int kQueryStageBytes = 2 * kStages * kBlockM * kWidth * kBytesPerElement;
    load_key_value_at_shifts<kBlockN, kWidth, Config::kThreads, kQueryStageBytes>(
        k_tile, v_tile, reinterpret_cast<unsigned char*>(q_tiles), params, k_global, v_global,
        params.seqlen_k - key0, chunks, shifts);
  } else {
    load_tile<kBlockN, kWidth, Config::kThreads>(k_tile, k_global, params.k_strides.row,
                                                 params.seqlen_k - key0, head_dim, chunks,
                                                 alignment);
    load_tile<kBlockN, kWidth, Config::kThreads>(v_tile, v_global, params.v_strides.row,
                                                 params.seqlen_k - key0, head_dim, chunks,
                                                 alignment);
  }
  cp_async_commit();
  FATTN_SM80_BWD_TIMELINE_HEADER_CLOCK(kKeyTileIssued);

  // Item i = (query head of the group, query tile), query tiles innermost. Without a GQA group
  // (the common case) the lean loop skips the division.
  auto head_in_group = [&](int item) {
    return kLean && params.group_size == 1 ? 0 : item / m_count;
  };
  // StridedItemLoads: without a GQA group every item is the KV head's own query head, so this
  // thread's copy sources of item i + 1 are those of item i plus kBlockM rows: one 64-bit add per
  // item instead of the (batch, head, row) address of each tensor. With dO's strides equal to
  // Q's (the usual layout) dO's source is Q's plus a fixed byte distance, so one pointer serves
  // both. Whole chunks only (the predicate copy reads a chunk whole or not at all).
  const bool strided_items =
      kStridedLoads && params.group_size == 1 && alignment >= kWidest &&
      head_dim % kChunkElements == 0 && params.q_strides.row == params.dout_strides.row &&
      params.q_strides.head == params.dout_strides.head &&
      params.q_strides.batch == params.dout_strides.batch;
  const std::int64_t q_stride = params.q_strides.row;
  const Element* q_source = whole_chunk_source<kWidth, Config::kThreads>(
      static_cast<const Element*>(params.q) + batch * params.q_strides.batch +
          kv_head * params.q_strides.head +
          static_cast<std::int64_t>(m_block_of(0, 0)) * kBlockM * q_stride,
      q_stride, head_dim);
  // This thread's LSE (threads [0, kStatChunks)) or D_i (the next kStatChunks) chunk of the row
  // tile; delta_rows follows lse_rows in shared memory.
  auto stat_source_of = [&](int thread) {
    return (thread >= kStatChunks ? params.delta : params.lse_log2) +
           (static_cast<std::int64_t>(batch) * params.heads_q + kv_head) * params.rows_rounded +
           (thread % kStatChunks) * 4;
  };
  const int carried_stat_thread = static_cast<int>(threadIdx.x);
  const float* stat_source = stat_source_of(carried_stat_thread);
  auto load_item = [&](int item, int stage) {
    if constexpr (kStridedLoads) {
      const int m_block = m_block_of(item, 0);
      // MaskedStridedItemLoads: the thread index read here with a volatile move, so that the
      // sources below are rebuilt per item (a few instructions) instead of held across the loop
      // (the registers that spilled in the masked kernels at 256).
      const int fresh_thread = kFreshQSource ? opaque_thread_id() : 0;
      const Element* q_item = q_source;
      if constexpr (kFreshQSource) {
        using Lanes = TileCopyLanes<kWidth, Config::kThreads>;
        const int column = (fresh_thread % Lanes::kLanesPerRow) * kChunkElements;
        q_item = static_cast<const Element*>(params.q) + batch * params.q_strides.batch +
                 kv_head * params.q_strides.head +
                 (static_cast<std::int64_t>(m_block) * kBlockM +
                  fresh_thread / Lanes::kLanesPerRow) *
                     q_stride +
                 (column < head_dim ? column : 0);
      } else {
        // Called once per item in item order: the sources advance whichever copy runs.
        q_source += (kDescendingWalk ? -kBlockM : kBlockM) * q_stride;
      }
      const int stat_thread = kFreshStatSource ? fresh_thread : carried_stat_thread;
      const bool stat_is_delta = stat_thread >= kStatChunks;
      const float* stat_item =
          (kFreshStatSource ? stat_source_of(stat_thread) : stat_source) + m_block * kBlockM;
      if (strided_items && (m_block + 1) * kBlockM <= params.seqlen_q) {
        const std::int64_t do_from_q = reinterpret_cast<std::intptr_t>(params.dout) -
                                       reinterpret_cast<std::intptr_t>(params.q);
        load_whole_chunks<kBlockM, kWidth, Config::kThreads>(
            q_tiles + stage * kBlockM * kWidth, q_item, q_stride, head_dim, chunks);
        load_whole_chunks<kBlockM, kWidth, Config::kThreads>(
            do_tiles + stage * kBlockM * kWidth,
            reinterpret_cast<const Element*>(reinterpret_cast<std::intptr_t>(q_item) + do_from_q),
            q_stride, head_dim, chunks);
        if (stat_thread < 2 * kStatChunks) {
          cp_async_16(smem_address(lse_rows + (stat_is_delta ? kStages * kBlockM : 0) +
                                   stage * kBlockM + (stat_thread % kStatChunks) * 4),
                      stat_item, 16);
        }
        return;
      }
    }
    const int head_offset = head_in_group(item);
    const int head = kv_head * params.group_size + head_offset;
    const int row0 = m_block_of(item, head_offset) * kBlockM;
    const auto* q = static_cast<const Element*>(params.q) + batch * params.q_strides.batch +
                    row0 * params.q_strides.row + head * params.q_strides.head;
    const auto* d_o = static_cast<const Element*>(params.dout) +
                      batch * params.dout_strides.batch + row0 * params.dout_strides.row +
                      head * params.dout_strides.head;
    // Shifted windows: the words that cover the rows (each `shift` elements into its word), by
    // 16-byte cp.async up to each row's end; the window's columns past the row's end are
    // zero-filled, the first word's elements before the row (the previous head's) copied as they
    // are (mask_window_fragment).
    [[maybe_unused]] WindowShifts item_shifts;
    if constexpr (kShifted) item_shifts = current_shifts();
    const Element* q_rows = kShifted ? word_start(q) : q;
    const Element* dout_rows = kShifted ? word_start(d_o) : d_o;
    const int q_columns = kShifted ? item_shifts.query + params.head_dim : head_dim;
    const int dout_columns = kShifted ? item_shifts.dout + params.head_dim : head_dim;
    // The full-width kernel's shifted windows rebuild the copy's lane terms per item from a
    // fresh read of the thread index (as MaskedStridedItemLoads does): held across the loop,
    // they spilled 4-28 bytes in its kernels at 256.
    const int copy_thread =
        kShiftedFullWidth ? opaque_thread_id() : static_cast<int>(threadIdx.x);
    if (kLean && row0 + kBlockM <= params.seqlen_q && alignment >= kWidest) {
      // A whole tile: no per-row "past the sequence end" tests (tile_io.cuh).
      load_whole_tile<kBlockM, kWidth, Config::kThreads>(q_tiles + stage * kBlockM * kWidth,
                                                         q_rows, params.q_strides.row, q_columns,
                                                         chunks, copy_thread);
      load_whole_tile<kBlockM, kWidth, Config::kThreads>(do_tiles + stage * kBlockM * kWidth,
                                                         dout_rows, params.dout_strides.row,
                                                         dout_columns, chunks, copy_thread);
    } else {
      load_tile<kBlockM, kWidth, Config::kThreads>(q_tiles + stage * kBlockM * kWidth, q_rows,
                                                   params.q_strides.row, params.seqlen_q - row0,
                                                   q_columns, chunks, alignment, copy_thread);
      load_tile<kBlockM, kWidth, Config::kThreads>(do_tiles + stage * kBlockM * kWidth,
                                                   dout_rows, params.dout_strides.row,
                                                   params.seqlen_q - row0, dout_columns, chunks,
                                                   alignment, copy_thread);
    }
    const std::int64_t stats =
        (static_cast<std::int64_t>(batch) * params.heads_q + head) * params.rows_rounded + row0;
    const int t = static_cast<int>(threadIdx.x);
    if (t < kStatChunks) {
      cp_async_16(smem_address(lse_rows + stage * kBlockM + t * 4), params.lse_log2 + stats + t * 4,
                  16);
    } else if (t < 2 * kStatChunks) {
      const int c = t - kStatChunks;
      cp_async_16(smem_address(delta_rows + stage * kBlockM + c * 4), params.delta + stats + c * 4,
                  16);
    }
  };

  // Warp roles in the three products.
  const int key_row_a = (warp / Config::kWarpsQueriesA) * Config::kKeysPerWarpA;
  const int query_col_a = (warp % Config::kWarpsQueriesA) * Config::kQueriesPerWarpA;
  const int key_row_b = (warp / Config::kWarpsDimB) * Config::kKeysPerWarpB;
  const int dim_step_b = (warp % Config::kWarpsDimB) * kLightStepsB;
  // Whether this warp runs all kStepsPerWarpB of phase B's steps (a uniform branch on the last
  // one where the light group has fewer).
  const bool all_steps_b = kLightStepsB == kStepsPerWarpB || warp % Config::kWarpsDimB != 0;
  const int query_row_q = (warp / kWarpsDimQ) * kQueriesPerWarpQ;
  // dQ slices: a step class puts slices 0 and 1 (the class's first 64 columns, all in it) on the
  // sub-partitions of phase B's light warps (warp % 4 = 0, 2) and slices 2 and 3 on the others.
  // ClassDqQueryWarps: every slice in the class, every warp the same work.
  const int dq_slice =
      kNarrowClass && !kClassDqLayout ? (warp % 2) * 2 + (warp % 4) / 2 : warp % kWarpsDimQ;
  const int dim_step_q = dq_slice * (kDimPerWarpQ / kMmaK);
  // The dQ paths below (phase-B atomics, the line rounds, one-address atomics) each spell out
  // their accumulator address: one shared lambda for it changed ptxas's register allocation
  // (twenty-fifth session: 36 bytes spilled at 256 on sm_90a, 4 on sm_80).

  // V, dSᵀ and dO are read with the same lane addressing as K, Pᵀ and Q: their fragments are
  // the K / Pᵀ / Q addresses plus a compile-time byte offset (folded into the ldmatrix), so one
  // set of swizzle-offset registers serves both tiles of a pair.
  constexpr std::uint32_t kVFromK = kBlockN * kWidth * sizeof(Element);
  constexpr std::uint32_t kDsFromP = kBlockN * kBlockM * sizeof(Element);
  constexpr std::uint32_t kDoFromQ = kStages * kBlockM * kWidth * sizeof(Element);
  const auto k_as_a = fragment_address<kXorAddresses, kWidth>(k_tile, key_row_a + lane % 16,
                                                               lane / 16);
  const auto p_as_a = fragment_address<kXorAddresses, kBlockM>(p_tile, key_row_b + lane % 16,
                                                                lane / 16);
  const auto ds_as_a_transposed = fragment_address<kXorDsQ, kBlockM>(
      ds_tile, lane % 8 + 8 * (lane / 16), (lane / 8) % 2, query_row_q / kChunkElements);
  const auto k_as_b =
      fragment_address<kXorKQ, kWidth>(k_tile, lane % 16, lane / 16, 2 * dim_step_q);

  float dk_acc[kKeyTilesB][kDimTilesB][4];
  float dv_acc[kKeyTilesB][kDimTilesB][4];
#pragma unroll
  for (int kt = 0; kt < kKeyTilesB; ++kt)
#pragma unroll
    for (int dt = 0; dt < kDimTilesB; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        dk_acc[kt][dt][e] = 0.0f;
        dv_acc[kt][dt][e] = 0.0f;
      }

  // Two block barriers per item. The first one (this item's tiles have landed) also means that
  // every warp has finished the previous item, so the buffers it used (its Q/dO stage, Pᵀ, dSᵀ)
  // are free: the next item's load is issued right after it, and the loop needs no barrier at
  // its end. With a single Q/dO buffer the load has to wait for the previous item instead.
  if (kStages > 1 && items > 0) load_item(0, 0);
  cp_async_commit();

  // OrderedDqAtomicsInPhaseB, DeferredDqHandOver: item `item`'s place in its query tile's dQ
  // chain (thread 0 only).
  auto ordered_semaphore_of = [&](int item) {
    const int head_offset = head_in_group(item);
    const int head = kv_head * params.group_size + head_offset;
    const int m_block = m_block_of(item, head_offset);
    const int row0 = m_block * kBlockM;
    const int row_end = min(row0 + kBlockM, params.seqlen_q);
    int* const semaphore = params.semaphores +
                           (static_cast<std::int64_t>(batch) * params.heads_q + head) * m_blocks +
                           m_block;
    return std::make_pair(semaphore, dq_turn(mask, row0, row_end, n_block));
  };

  if constexpr (kTurnBeforeDq) {
    if (params.semaphores != nullptr && threadIdx.x == 0) dq_turn_mbarrier_init();
  }
  for (int item = 0; item < items; ++item) {
    const int stage = kStages > 1 ? item % kStages : 0;
    if (kStages == 1) {
      __syncthreads();  // every warp is done with the one Q/dO buffer
      load_item(item, 0);
      cp_async_commit();
    }
    cp_async_wait<0>();
    FATTN_SM80_BWD_TIMELINE_MARK(item, kCopiesWaited);
    __syncthreads();
    FATTN_SM80_BWD_TIMELINE_MARK(item, kTopBarrier);
    if constexpr (kHandOverAtLoopTop) {
      // The previous item's hand-over: the barrier above ordered every warp's reductions of it.
      if (params.semaphores != nullptr && item > 0 && threadIdx.x == 0) {
        const auto [semaphore, turn] =
            kTurnSlot || kTurnSlotAtPoll
                ? std::make_pair(dq_turn_slot().semaphore, dq_turn_slot().turn)
                : ordered_semaphore_of(item - 1);
        store_release(semaphore, turn + 1);
      }
    }
    if (kStages > 1 && item + 1 < items) {
      load_item(item + 1, (item + 1) % kStages);
      cp_async_commit();
    }
    FATTN_SM80_BWD_TIMELINE_MARK(item, kNextCopiesIssued);

    const int head_offset = head_in_group(item);
    const int head = kv_head * params.group_size + head_offset;
    const int m_block = m_block_of(item, head_offset);
    const int row0 = m_block * kBlockM;
    const int row_end = min(row0 + kBlockM, params.seqlen_q);
    const Element* q_tile = q_tiles + stage * kBlockM * kWidth;
    const Element* do_tile = do_tiles + stage * kBlockM * kWidth;
    const float* lse_tile = lse_rows + stage * kBlockM;
    const float* delta_tile = delta_rows + stage * kBlockM;
    if constexpr (kTurnSlot) {
      // This item's counter and turn, for thread 0's hand-over at the next loop top (or after
      // the loop).
      if (params.semaphores != nullptr && threadIdx.x == 0) {
        dq_turn_slot() = {params.semaphores +
                              (static_cast<std::int64_t>(batch) * params.heads_q + head) *
                                  m_blocks +
                              m_block,
                          dq_turn(mask, row0, row_end, n_block)};
      }
    }

    // ---- phase A: Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ for this warp's keys x queries ----
    // In kQuerySplitsA passes of kQueryTilesA query tiles each, not unrolled: one pass's
    // registers at a time (unrolled, the compiler overlapped the passes and spilled).
#pragma unroll 1
    for (int split = 0; split < Config::kQuerySplitsA; ++split) {
      const int query_col = query_col_a + split * kQueryTilesA * kMmaN;
      // The shifted windows' full-width kernels rebuild the lane terms per item (held across
      // the loop, they spilled 4 bytes in the masked kernel at 256 on sm_90a).
      const int a_lane = kShiftedFullWidth ? opaque_lane_id() : lane;
      const auto q_as_b = fragment_address<kXorAddresses, kWidth>(
          q_tile, query_col + a_lane % 8 + 8 * (a_lane / 16), (a_lane / 8) % 2);
      float s[kKeyTilesA][kQueryTilesA][4];
      float dp[kKeyTilesA][kQueryTilesA][4];
      if constexpr (!kZeroStart) zero_fill(s);
      if constexpr (!kPackedP && !kZeroStart) zero_fill(dp);
      // acc += A·Bᵀ over the k-steps, A = this warp's keys of K (a_offset 0) or V (kVFromK), B =
      // its queries of Q (b_offset 0) or dO (kDoFromQ). Sᵀ and dPᵀ are separate passes: only one
      // of the K / V fragment sets is live at a time (dK and dV hold 128 registers at the
      // 128-key tiles).
      auto load_b = [&](std::uint32_t (&b)[kQueryTilesA / 2][4], int step,
                        std::uint32_t b_offset) {
#pragma unroll
        for (int np = 0; np < kQueryTilesA / 2; ++np) {
          ldmatrix_x4(b[np], q_as_b.at(step, np * 16) + b_offset);
        }
      };
      // window_shift: Q's or dO's shift (shifted windows; see mask_window_fragment).
      auto product_a = [&](float (&acc)[kKeyTilesA][kQueryTilesA][4], std::uint32_t a_offset,
                           std::uint32_t b_offset, bool negate,
                           [[maybe_unused]] int window_shift) {
        // Pipelined (pipelined_query_fragments): b holds this step's Q/dO fragments, loaded
        // during the previous step. The next step's are loaded whenever the tile has one (a
        // compile-time test: at a head dim short of the bucket the last step reads one unused
        // step of the tile, inside its row).
        [[maybe_unused]] std::uint32_t b[kQueryTilesA / 2][4];
        if constexpr (kPipelinedB) load_b(b, 0, b_offset);
        [[maybe_unused]] const int window_steps = kShiftedFullWidth ? current_shifts().steps : 0;
        // One k-step; `first` is step 0 of a ZeroStart product (it writes the accumulators).
        auto run_step = [&](int step, bool first) {
          std::uint32_t a[kKeyTilesA][4];
#pragma unroll
          for (int kt = 0; kt < kKeyTilesA; ++kt) {
            ldmatrix_x4(a[kt], k_as_a.at(step, kt * kMmaM) + a_offset);
            if (negate) {
#pragma unroll
              for (int r = 0; r < 4; ++r) a[kt][r] ^= params.sign_flip;
            }
          }
          if constexpr (kPipelinedB) {
            std::uint32_t b_next[kQueryTilesA / 2][4];
            if (step + 1 < kStepsA) load_b(b_next, step + 1, b_offset);
#pragma unroll
            for (int np = 0; np < kQueryTilesA / 2; ++np) {
              if (first) {
                mma_column_pair_from_zero<Element>(acc, a, b[np], np);
              } else {
                mma_column_pair<Element>(acc, a, b[np], np);
              }
            }
            if (step + 1 < kStepsA) __builtin_memcpy(b, b_next, sizeof(b));
          } else {
#pragma unroll
            for (int np = 0; np < kQueryTilesA / 2; ++np) {
              std::uint32_t b_step[4];
              ldmatrix_x4(b_step, q_as_b.at(step, np * 16) + b_offset);
              if constexpr (kShifted) {
                if (step == 0) {  // an unrolled step: a compile-time test
                  mask_window_fragment(b_step, quad_lane, window_shift, params.head_dim);
                }
              }
              if (first) {
                mma_column_pair_from_zero<Element>(acc, a, b_step, np);
              } else {
                mma_column_pair<Element>(acc, a, b_step, np);
              }
            }
          }
        };
#pragma unroll
        for (int step = 0; step < kStepsA; ++step) {
          // ZeroStart: step 0 always runs (steps_a >= 1) and writes the accumulators.
          const bool first = kZeroStart && step == 0;
          // GroupedPhaseATests: the steps of a group run under the test of the first one that
          // has a test (step 1 in group 0 after ZeroStart's untested step 0); the others are
          // skipped here (compile-time tests once the loop unrolls).
          const bool grouped = !first && step < kGroupedStepsA;
          const int group_begin = step / kTestGroupA * kTestGroupA;
          const int opening = kZeroStart && group_begin == 0 ? 1 : group_begin;
          if (grouped && step != opening) continue;
          const int run = grouped ? group_begin + kTestGroupA - step : 1;
          if (first || step < kUntestedStepsA ||
              step < (kShiftedFullWidth ? window_steps : steps_a)) {
#pragma unroll
            for (int i = 0; i < run; ++i) run_step(step + i, first);
          }
        }
      };
      product_a(s, 0, 0, !kLean, current_shifts().query);
      FATTN_SM80_BWD_TIMELINE_MARK(item, kScoresIssued);
      // Pᵀ = 2^(Sᵀ·c - LSE) (masked scores -> 0), as the (key, query) pair of `half` of tile
      // (kt, nt) holds it; stored 16-bit for phase B.
      const bool partial = key0 + kBlockN > params.seqlen_k ||
                           !mask.tile_is_unmasked(row0, row_end, key0, key0 + kBlockN);
      // The lean loop folds a negative scale's sign into the exponent (score_scale). On a
      // partial tile it first overwrites the masked scores with the infinity that this sign
      // turns into -inf (so p = 0), in a pass of its own: the exponent pass then has no mask
      // selects on the other tiles and exists once (a second, masked copy spilled at 64).
      const float score_scale =
          kLean && params.sign_flip != 0 ? -params.scale_log2 : params.scale_log2;
      constexpr bool kBranchedMaskPass = branched_mask_pass<Config, kFullWidth>();
      constexpr bool kBandMaskPass =
          diagonal_band_mask_pass<Config>() && !std::is_same_v<Mask, NoMask>;
      if (kLean && partial) {
        const float masked_score = score_scale < 0.0f ? -kNegativeInfinity : kNegativeInfinity;
        if constexpr (kBandMaskPass) {
          mask_scores_by_band(s, mask, key0 + key_row_a + group, row0 + query_col + 2 * quad_lane,
                              params.seqlen_k, masked_score);
        } else {
#pragma unroll
          for (int kt = 0; kt < kKeyTilesA; ++kt)
#pragma unroll
            for (int nt = 0; nt < kQueryTilesA; ++nt)
#pragma unroll
              for (int half = 0; half < 2; ++half)
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                  const int query = query_col + nt * kMmaN + 2 * quad_lane + e;
                  const int key = key_row_a + kt * kMmaM + group + 8 * half;
                  const bool masked =
                      kBranchedMaskPass ? key0 + key >= params.seqlen_k ||
                                              mask.is_masked(row0 + query, key0 + key)
                                        : (key0 + key >= params.seqlen_k) |
                                              mask.is_masked_unbranched(row0 + query, key0 + key);
                  if (masked) {
                    s[kt][nt][2 * half + e] = masked_score;
                  }
                }
        }
      }
      auto lean_probabilities = [&](int kt, int nt, int half, float2 lse, float (&p)[2]) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          p[e] = exp2_approx(fmaf(s[kt][nt][2 * half + e], score_scale,
                                  -(e == 0 ? lse.x : lse.y)));
        }
      };
      auto probabilities = [&](int kt, int nt, int half, float2 lse, float (&p)[2]) {
        const int query = query_col + nt * kMmaN + 2 * quad_lane;
        const int key = key_row_a + kt * kMmaM + group + 8 * half;
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float score = s[kt][nt][2 * half + e];
          const bool masked =
              kBranchedMaskPass
                  ? key0 + key >= params.seqlen_k || mask.is_masked(row0 + query + e, key0 + key)
                  : (key0 + key >= params.seqlen_k) |
                        mask.is_masked_unbranched(row0 + query + e, key0 + key);
          if (partial && masked) {
            score = kNegativeInfinity;
          }
          p[e] = exp2_approx(fmaf(score, params.scale_log2, -(e == 0 ? lse.x : lse.y)));
        }
      };
      auto score_offset = [&](int kt, int nt, int half) {
        const int query = query_col + nt * kMmaN + 2 * quad_lane;
        const int key = key_row_a + kt * kMmaM + group + 8 * half;
        return swizzled_offset<kBlockM>(key, query / kChunkElements) + query % kChunkElements;
      };
      // Packed: Pᵀ goes to shared memory and into 16-bit pairs before dPᵀ is computed, so Sᵀ's
      // fp32 registers are free while dPᵀ accumulates (see packed_probabilities).
      std::uint32_t p_packed[kPackedP ? kKeyTilesA : 1][kPackedP ? kQueryTilesA : 1][2];
      // The query tile nt's LSE / D_i pair of this thread (kQueryOuterPasses).
      auto statistics_pair = [&](const float* tile, int nt) {
        return *reinterpret_cast<const float2*>(tile + query_col + nt * kMmaN + 2 * quad_lane);
      };
      auto lse_pair = [&](int nt) { return statistics_pair(lse_tile, nt); };
      auto delta_pair = [&](int nt) { return statistics_pair(delta_tile, nt); };
      if constexpr (kQueryOuterPasses) {
        StatisticsRing<kLseAhead, kQueryTilesA> lse_ahead;
        lse_ahead.fill(lse_pair);
#pragma unroll
        for (int nt = 0; nt < kQueryTilesA; ++nt) {
          const float2 lse = lse_ahead.next(lse_pair, nt);
#pragma unroll
          for (int kt = 0; kt < kKeyTilesA; ++kt)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
              float p[2];
              lean_probabilities(kt, nt, half, lse, p);
              p_packed[kt][nt][half] = Traits::pack(p[0], p[1]);
              *reinterpret_cast<std::uint32_t*>(p_tile + score_offset(kt, nt, half)) =
                  p_packed[kt][nt][half];
            }
        }
      } else if constexpr (kPackedP) {
#pragma unroll
        for (int kt = 0; kt < kKeyTilesA; ++kt)
#pragma unroll
          for (int nt = 0; nt < kQueryTilesA; ++nt) {
            const float2 lse = *reinterpret_cast<const float2*>(lse_tile + query_col +
                                                                nt * kMmaN + 2 * quad_lane);
#pragma unroll
            for (int half = 0; half < 2; ++half) {
              float p[2];
              if constexpr (kLean) {
                lean_probabilities(kt, nt, half, lse, p);
              } else {
                probabilities(kt, nt, half, lse, p);
              }
              p_packed[kt][nt][half] = Traits::pack(p[0], p[1]);
              *reinterpret_cast<std::uint32_t*>(p_tile + score_offset(kt, nt, half)) =
                  p_packed[kt][nt][half];
            }
          }
      }
      FATTN_SM80_BWD_TIMELINE_MARK(item, kProbabilitiesStored);
      if constexpr (kPackedP && !kZeroStart) zero_fill(dp);
      // With kDeltaAhead the first kDeltaAhead D_i pairs are read before the dPᵀ product (their
      // latency under the mma's), after the exponent pass's stores.
      StatisticsRing<kDeltaAhead, kQueryTilesA> delta_ahead;
      delta_ahead.fill(delta_pair);
      product_a(dp, kVFromK, kDoFromQ, false, current_shifts().dout);
      FATTN_SM80_BWD_TIMELINE_MARK(item, kDpIssued);

      // dSᵀ = Pᵀ∘(dPᵀ - D), stored 16-bit (in either pass order).
      auto store_ds = [&](int kt, int nt, int half, float ds0, float ds1) {
        *reinterpret_cast<std::uint32_t*>(ds_tile + score_offset(kt, nt, half)) =
            Traits::pack(ds0, ds1);
      };
      if constexpr (kQueryOuterPasses) {
#pragma unroll
        for (int nt = 0; nt < kQueryTilesA; ++nt) {
          const float2 delta = delta_ahead.next(delta_pair, nt);
#pragma unroll
          for (int kt = 0; kt < kKeyTilesA; ++kt)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
              float p[2];
              unpack_pair<Element>(p_packed[kt][nt][half], p);
              store_ds(kt, nt, half, p[0] * (dp[kt][nt][2 * half] - delta.x),
                       p[1] * (dp[kt][nt][2 * half + 1] - delta.y));
            }
        }
      } else {
#pragma unroll
        for (int kt = 0; kt < kKeyTilesA; ++kt)
#pragma unroll
          for (int nt = 0; nt < kQueryTilesA; ++nt) {
            const int query = query_col + nt * kMmaN + 2 * quad_lane;
            const float2 lse = *reinterpret_cast<const float2*>(lse_tile + query);
            const float2 delta = *reinterpret_cast<const float2*>(delta_tile + query);
#pragma unroll
            for (int half = 0; half < 2; ++half) {
              float p[2];
              if constexpr (kPackedP) {
                unpack_pair<Element>(p_packed[kt][nt][half], p);
              } else {
                probabilities(kt, nt, half, lse, p);
                *reinterpret_cast<std::uint32_t*>(p_tile + score_offset(kt, nt, half)) =
                    Traits::pack(p[0], p[1]);
              }
              store_ds(kt, nt, half, p[0] * (dp[kt][nt][2 * half] - delta.x),
                       p[1] * (dp[kt][nt][2 * half + 1] - delta.y));
            }
          }
      }
      FATTN_SM80_BWD_TIMELINE_MARK(item, kDsStored);
    }
    if constexpr (kOrderedDqInB) {
      // This item's turn, before the barrier that precedes every warp's reductions of it (the
      // first key tile of the order does not poll, as LightDqRelease).
      if (params.semaphores != nullptr && threadIdx.x == 0) {
        const auto [semaphore, turn] = ordered_semaphore_of(item);
        if (turn != 0) {
          while (load_acquire(semaphore) != turn) {
          }
        }
      }
    }
    __syncthreads();  // Pᵀ and dSᵀ complete
    FATTN_SM80_BWD_TIMELINE_MARK(item, kScoreBarrier);

    // ---- phase B: dV += Pᵀ·dO, dK += dSᵀ·Q for this warp's keys x head-dim slice ----
    static_assert(!kNarrowClass || (kRolledB && !kDqFirst && !kDqInB && !kRoundsInDk),
                  "step classes: the light warps' test is in the rolled phase B only");
    // Query steps outer: the Pᵀ/dSᵀ fragments of one step are live at a time (loading all of
    // them first spilled next to the 128 dK/dV registers of the 128-key tiles). Inside a step,
    // every dV/dK accumulator is independent; a head dim short of the bucket skips whole
    // 16-column blocks (a uniform branch each, 4·kKeyTilesB independent mma's per block). The
    // kFullWidth kernel keeps these tests: without them (one block of 16·kKeyTilesB mma's per
    // query step) it spilled 4-52 bytes at 128.
    if constexpr (kDqFirst || kDqInB) {
      // DqProductBeforePhaseB, DqAtomicsInPhaseB: phase B runs after the dQ product (below).
    } else if constexpr (kRoundsInDk) {
      // DqRoundsInDkSteps: dV here, dK after the dQ product (below).
      rolled_single_product<Element, kBlockM, kWidth, 0, kDoFromQ>(
          dv_acc, p_as_a,
          fragment_address<kXorQB, kWidth>(q_tile, lane % 16, lane / 16, 2 * dim_step_b));
    } else if constexpr (kRolledB) {
      // RolledProductB: one query step per iteration, every head-dim block of it untested. The
      // same loop as rolled_phase_b, written out here: through the function, ptxas allocated
      // the registers of every kernel of the table differently (sm_90a SASS), and their speed
      // is measured as this text compiles.
      // MaskedPerItemPhaseBAddresses: the lane and the warp read again for every item.
      const int b_lane = kPerItemBAddresses ? opaque_lane_id() : lane;
      const int b_warp = kPerItemBAddresses ? opaque_thread_id() / kWarpSize : warp;
      const int b_dim_step =
          kPerItemBAddresses ? (b_warp % Config::kWarpsDimB) * kLightStepsB
                             : dim_step_b;
      const auto q_as_b =
          fragment_address<kXorQB, kWidth>(q_tile, b_lane % 16, b_lane / 16, 2 * b_dim_step);
#pragma unroll 1
      for (unsigned qstep = 0; qstep < kBlockM / kMmaK; ++qstep) {
        std::uint32_t pa[kKeyTilesB][4];
        std::uint32_t dsa[kKeyTilesB][4];
        const std::uint32_t p_address = xor_address_at(p_as_a, qstep, 0);
        load_step_fragments<kBlockM, kDsFromP>(pa, dsa, p_address);
        const std::uint32_t query_rows = qstep * kMmaK * kWidth * kBytesPerElement;
#pragma unroll
        for (int dstep = 0; dstep < kDimTilesB / 2; ++dstep) {
          if (dstep < kLightStepsB || all_steps_b) {
            std::uint32_t b[4];
            ldmatrix_x4_trans(b, q_as_b.at(dstep, 0) + query_rows + kDoFromQ);
            mma_column_pair<Element>(dv_acc, pa, b, dstep);
            ldmatrix_x4_trans(b, q_as_b.at(dstep, 0) + query_rows);
            mma_column_pair<Element>(dk_acc, dsa, b, dstep);
          }
        }
      }
    } else {
      const auto q_as_b =
          fragment_address<kXorQB, kWidth>(q_tile, lane % 16, lane / 16, 2 * dim_step_b);
#pragma unroll
      for (int qstep = 0; qstep < kBlockM / kMmaK; ++qstep) {
        std::uint32_t pa[kKeyTilesB][4];
        std::uint32_t dsa[kKeyTilesB][4];
#pragma unroll
        for (int kt = 0; kt < kKeyTilesB; ++kt) {
          ldmatrix_x4(pa[kt], p_as_a.at(qstep, kt * kMmaM));
          ldmatrix_x4(dsa[kt], p_as_a.at(qstep, kt * kMmaM) + kDsFromP);
        }
#pragma unroll
        for (int dstep = 0; dstep < kDimTilesB / 2; ++dstep) {
          if (dim_step_b + dstep < head_dim_steps) {
            std::uint32_t b[4];
            ldmatrix_x4_trans(b, q_as_b.at(dstep, qstep * kMmaK) + kDoFromQ);
            mma_column_pair<Element>(dv_acc, pa, b, dstep);
            ldmatrix_x4_trans(b, q_as_b.at(dstep, qstep * kMmaK));
            mma_column_pair<Element>(dk_acc, dsa, b, dstep);
          }
        }
      }
    }
    FATTN_SM80_BWD_TIMELINE_MARK(item, kPhaseBIssued);
    if constexpr (kTurnBeforeDq) {
      // DqTurnBeforeDqProduct: warp 0 takes the item's turn here, the other warps wait for it
      // before their reductions (below). A vote, so that ptxas knows the branch warp-uniform.
      if (params.semaphores != nullptr && __all_sync(0xffffffffu, warp == 0)) {
        // MaskedDqTurnSlot: lane 0 (thread 0) reads the counter and turn that it wrote into the
        // slot at the item's start instead.
        take_dq_turn_for_cta<kTurnSlotAtPoll, kTurnSlot>(
            params.semaphores +
                (static_cast<std::int64_t>(batch) * params.heads_q + head) * m_blocks + m_block,
            dq_turn(mask, row0, row_end, n_block), lane);
      }
    }

    // ---- dQ partial = dS·K for this warp's query rows x head-dim slice ----
    float dq[kRowTilesQ][kDimTilesQ][4];
    // A step class skips the dQ columns past it: zeros there (the line reductions send them).
    // With ClassDqQueryWarps no column of the warp lies past the class.
    if constexpr (!kZeroStart || (kDqClass && !kClassDqLayout)) zero_fill(dq);
    // Key steps outer, one step's dS fragments live at a time (as in phase B); each K fragment
    // feeds the warp's kRowTilesQ row tiles. Row tile rt of dS is 2·rt query chunks to the right
    // in dSᵀ, i.e. the fragment address's step rt.
#pragma unroll
    for (int kstep = 0; kstep < kBlockN / kMmaK; ++kstep) {
      std::uint32_t dsq[kRowTilesQ][4];
#pragma unroll
      for (int rt = 0; rt < kRowTilesQ; ++rt) {
        ldmatrix_x4_trans(dsq[rt], ds_as_a_transposed.at(rt, kstep * kMmaK));
      }
#pragma unroll
      for (int dstep = 0; dstep < kDimTilesQ / 2; ++dstep) {
        if ((kFullWidth && (!kDqClass || kClassDqLayout)) ||
            dim_step_q + dstep < (kDqClass ? kClassSteps : steps)) {
          std::uint32_t b[4];
          ldmatrix_x4_trans(b, k_as_b.at(dstep, kstep * kMmaK));
#pragma unroll
          for (int rt = 0; rt < kRowTilesQ; ++rt) {
            if (kZeroStart && kstep == 0) {
              Traits::mma_from_zero(dq[rt][2 * dstep], dsq[rt], b[0], b[1]);
              Traits::mma_from_zero(dq[rt][2 * dstep + 1], dsq[rt], b[2], b[3]);
            } else {
              Traits::mma(dq[rt][2 * dstep], dsq[rt], b[0], b[1]);
              Traits::mma(dq[rt][2 * dstep + 1], dsq[rt], b[2], b[3]);
            }
          }
        }
      }
    }
    FATTN_SM80_BWD_TIMELINE_MARK(item, kDqProductIssued);

    if constexpr (kDqInB) {
      if (params.semaphores == nullptr || kOrderedDqInB) {
        // DqAtomicsInPhaseB, default mode: phase B with the partial's reductions spread over
        // its query steps; the item ends with it (no hand-over to order). With
        // OrderedDqAtomicsInPhaseB the deterministic mode too: its turn was polled before the
        // Pᵀ/dSᵀ barrier, its hand-over comes after the next loop-top barrier.
        const int first_row = row0 + query_row_q + group;
        float* const first =
            params.dq_accum +
            ((static_cast<std::int64_t>(batch) * params.heads_q + head) * params.seqlen_q +
             first_row) * kWidth +
            dim_step_q * kMmaK + 2 * quad_lane;
        const auto q_as_b =
            fragment_address<kXorQB, kWidth>(q_tile, lane % 16, lane / 16, 2 * dim_step_b);
        phase_b_with_dq_atomics<Element, kBlockM, kWidth, kDsFromP, kDoFromQ>(
            dv_acc, dk_acc, p_as_a, q_as_b, dq, first, params.seqlen_q - first_row);
        FATTN_SM80_BWD_TIMELINE_MARK(item, kReductionsIssued);
        continue;
      }
    }

    if constexpr (kRoundsInDk) {
      if (params.semaphores == nullptr && row_end - row0 == kBlockM) {
        // DqRoundsInDkSteps, default mode, a whole query tile: dK with the partial's line
        // rounds between its steps; the item ends with it. A tile cut by the sequence end takes
        // the path below (one instance of the interleaved code: two spilled 12 bytes at 256).
        const int warp_row = row0 + query_row_q;
        float* const warp_first =
            params.dq_accum +
            ((static_cast<std::int64_t>(batch) * params.heads_q + head) * params.seqlen_q +
             warp_row) * kWidth +
            dim_step_q * kMmaK;
        float* const stage = delta_rows + kStages * kBlockM +
                             warp * Config::kDqStageRows * kDimPerWarpQ;
        const auto q_as_b =
            fragment_address<kXorQB, kWidth>(q_tile, lane % 16, lane / 16, 2 * dim_step_b);
        using Rounds = DqLineRoundsFor<Config::kDqStageRows, kWidth, true, kSplitSwizzle,
                                       kRowTilesQ, kDimTilesQ, kPairSwizzle>;
        dk_product_with_dq_rounds<Element, kBlockM, kWidth, kDsFromP, Rounds,
                                  Config::kDqRoundsAhead>(dk_acc, p_as_a, q_as_b, dq, stage,
                                                          warp_first);
        FATTN_SM80_BWD_TIMELINE_MARK(item, kReductionsIssued);
        continue;
      }
    }

    // ---- the dQ partial into the fp32 accumulator ----
    {
      int* semaphore = nullptr;
      // The reductions' first query row: with Unmasked- / MaskedDqTurnBeforeDqProduct passed
      // through the turn's wait (row_after_dq_turn_of_cta), so that their address math stays
      // after it.
      int reduction_row0 = row0;
      if (params.semaphores != nullptr) {
        // Deterministic: the key tiles that touch this query tile add in a fixed order.
        semaphore = params.semaphores +
                    (static_cast<std::int64_t>(batch) * params.heads_q + head) * m_blocks + m_block;
        // LightDqRelease: the first key tile in the order neither polls nor waits at the barrier
        // (the counter starts at 0 and only this tile moves it from there): one L2 round trip
        // off the head of each tile's chain.
        const int turn = dq_turn(mask, row0, row_end, n_block);
        if constexpr (kTurnBeforeDq) {
          if (__all_sync(0xffffffffu, turn != 0 || warp == 0)) {
            if constexpr (kRowThroughTurn) {
              reduction_row0 = row_after_dq_turn_of_cta(item, row0);
            } else {
              wait_dq_turn_of_cta(item);
            }
          }
        } else if (!(kLightRelease && turn == 0)) {
          if (threadIdx.x == 0) {
            while (load_acquire(semaphore) != turn) {
            }
          }
          __syncthreads();
        }
      }
      if constexpr (kLineReductions) {
        // ClassDqSlicesUnsent (backward_tile_config.hpp): a step class's slices wholly past it
        // hold zeros and stay unsent. ClassDqChunkTests: in the slice that the class ends
        // inside, the lanes of the chunks past it sit out; the slices wholly inside take the
        // rounds without the tests. Both tests are warp-uniform, as votes: with a plain test on
        // the warp index ptxas did not know it uniform and built each __syncwarp of the rounds
        // a divergent path (WARPSYNC.COLLECTIVE, +248 SASS instructions).
        constexpr bool kSkipZeroSlices =
            kDqClass && class_dq_slices_unsent<Config>() && !kClassDqLayout;
        // A class that ends on a slice boundary (6 steps at 128) has no slice to test. Below
        // sm_90 a reduced quad is four scalar atomics, not a REDG.128 over the line: no test
        // there (at 256 class 13 it spilled 52 bytes on sm_80, fp16 NoMask).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
        constexpr bool kVectorReductions = false;
#else
        constexpr bool kVectorReductions = true;
#endif
        constexpr bool kChunkTests = kDqClass && class_dq_chunk_tests<Config>() &&
                                     kVectorReductions &&
                                     kClassSteps * kMmaK % kDimPerWarpQ != 0;
        constexpr int kSliceChunks = kDimPerWarpQ / kLineChunkFloats;
        const int class_chunks_left = (kClassSteps - dim_step_q) * kMmaK / kLineChunkFloats;
        if (!kSkipZeroSlices || __all_sync(0xffffffffu, class_chunks_left > 0)) {
          const int warp_row = reduction_row0 + query_row_q;
          float* const warp_first =
              params.dq_accum +
              ((static_cast<std::int64_t>(batch) * params.heads_q + head) * params.seqlen_q +
               warp_row) * kWidth +
              dim_step_q * kMmaK;
          float* const stage = delta_rows + kStages * kBlockM +
                               warp * Config::kDqStageRows * kDimPerWarpQ;
          auto reduce = [&](auto chunk_tests) {
            constexpr bool kTests = decltype(chunk_tests)::value;
            // A whole query tile adds without row tests (as in add_rows below).
            if (row_end - reduction_row0 == kBlockM) {
              reduce_dq_by_lines<Config::kDqStageRows, kWidth, true, kSplitSwizzle, kPairSwizzle,
                                 kTests>(dq, stage, warp_first, 0, class_chunks_left);
            } else {
              reduce_dq_by_lines<Config::kDqStageRows, kWidth, false, kSplitSwizzle,
                                 kPairSwizzle, kTests>(
                  dq, stage, warp_first, params.seqlen_q - warp_row, class_chunks_left);
            }
          };
          if (!kChunkTests || __all_sync(0xffffffffu, class_chunks_left >= kSliceChunks)) {
            reduce(std::false_type{});
          } else {
            reduce(std::bool_constant<kChunkTests>{});
          }
        }
      } else if constexpr (kOneAddressAtomics) {
        // DqAtomicsFromOneAddress: accumulator rows are kWidth floats in this kernel, so every
        // row (rt, half) and column block dt of the slice is a compile-time offset from the
        // thread's first element, folded into the REDG; a whole query tile adds without tests.
        const int first_row = row0 + query_row_q + group;
        float* const first =
            params.dq_accum +
            ((static_cast<std::int64_t>(batch) * params.heads_q + head) * params.seqlen_q +
             first_row) * kWidth +
            dim_step_q * kMmaK + 2 * quad_lane;
        const int rows_left = params.seqlen_q - first_row;
        auto add_rows = [&](auto whole_tile) {
#pragma unroll
          for (int rt = 0; rt < kRowTilesQ; ++rt)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
              constexpr int kHalfRows = kMmaM / 2;
              const int row = rt * kMmaM + kHalfRows * half;
              if (decltype(whole_tile)::value || row < rows_left) {
#pragma unroll
                for (int dt = 0; dt < kDimTilesQ; ++dt) {
                  reduce_add_pair(first + row * kWidth + dt * kMmaN, dq[rt][dt][2 * half],
                                  dq[rt][dt][2 * half + 1]);
                }
              }
            }
        };
        if (row_end - row0 == kBlockM) {
          add_rows(std::true_type{});
        } else {
          add_rows(std::false_type{});
        }
      } else {
        // Columns past head_dim but inside the last 16-wide step exist in the accumulator (its
        // rows are dq_accum_stride long) and receive zeros (K is zero-filled there).
        float* accumulator = params.dq_accum + (static_cast<std::int64_t>(batch) * params.heads_q +
                                                head) * params.seqlen_q * params.dq_accum_stride;
#pragma unroll
        for (int rt = 0; rt < kRowTilesQ; ++rt)
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            const int row = row0 + query_row_q + rt * kMmaM + group + 8 * half;
            if (row < params.seqlen_q) {
              float* accumulator_row =
                  accumulator + static_cast<std::int64_t>(row) * params.dq_accum_stride;
              if constexpr (kLean) {
                // This thread's first column once, the others compile-time offsets from it.
                float* const columns = accumulator_row + dim_step_q * kMmaK + 2 * quad_lane;
#pragma unroll
                for (int dt = 0; dt < kDimTilesQ; ++dt) {
                  if (kFullWidth || dim_step_q + dt / 2 < steps) {
                    reduce_add_pair(columns + dt * kMmaN, dq[rt][dt][2 * half],
                                    dq[rt][dt][2 * half + 1]);
                  }
                }
              } else {
#pragma unroll
                for (int dt = 0; dt < kDimTilesQ; ++dt) {
                  if (kFullWidth || dim_step_q + dt / 2 < steps) {
                    const int column = dim_step_q * kMmaK + dt * kMmaN + 2 * quad_lane;
                    reduce_add_pair(accumulator_row + column, dq[rt][dt][2 * half],
                                    dq[rt][dt][2 * half + 1]);
                  }
                }
              }
            }
          }
      }
      // DeferredDqHandOver: the hand-over at the next loop top (or after the loop).
      if (semaphore != nullptr && !kDeferredHandOver) {
        if constexpr (!kLightRelease) fence_acq_rel_gpu();
        __syncthreads();
        if (threadIdx.x == 0) store_release(semaphore, dq_turn(mask, row0, row_end, n_block) + 1);
      }
    }
    FATTN_SM80_BWD_TIMELINE_MARK(item, kReductionsIssued);
    if constexpr (kRoundsInDk) {
      // DqRoundsInDkSteps, the deterministic mode or a tile cut by the sequence end: dK after
      // the reductions (in the deterministic mode, after this tile's turn in the dQ chain).
      rolled_single_product<Element, kBlockM, kWidth, kDsFromP, 0>(
          dk_acc, p_as_a,
          fragment_address<kXorQB, kWidth>(q_tile, lane % 16, lane / 16, 2 * dim_step_b));
    }
    if constexpr (kDqFirst || kDqInB) {
      rolled_phase_b<Element, kBlockM, kWidth, kDsFromP, kDoFromQ>(
          dv_acc, dk_acc, p_as_a,
          fragment_address<kXorQB, kWidth>(q_tile, lane % 16, lane / 16, 2 * dim_step_b));
    }
  }
  cp_async_wait<0>();
  if constexpr (kHandOverAtLoopTop) {
    // The last item's hand-over (the others' are at the next item's loop top).
    if (params.semaphores != nullptr && items > 0) {
      __syncthreads();
      if (threadIdx.x == 0) {
        const auto [semaphore, turn] =
            kTurnSlot || kTurnSlotAtPoll
                ? std::make_pair(dq_turn_slot().semaphore, dq_turn_slot().turn)
                : ordered_semaphore_of(items - 1);
        store_release(semaphore, turn + 1);
      }
    }
  }
  FATTN_SM80_BWD_TIMELINE_HEADER_CLOCK(kLoopEndClock);
  FATTN_SM80_BWD_TIMELINE_HEADER(kItems, static_cast<std::uint32_t>(items));

  // ---- epilogue: dK = scale·dK, dV as is, straight from registers ----
  // On sm_80 the lean loop reads the lane again here (an opaque read the compiler cannot merge
  // with the first): held across the loop only for this epilogue, it was what spilled at 256
  // there (4 bytes). Not on sm_90, where the same read moved a spill into the loop instead.
  // The shifted windows' full-width kernels read it again on sm_90 too (held, the lane's
  // epilogue terms spilled 8 bytes there at 256: one STL pair at the start, LDL at the end).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  const int epilogue_lane = kLean ? opaque_lane_id() : lane;
#else
  const int epilogue_lane = kShiftedFullWidth ? opaque_lane_id() : lane;
#endif
  const int epilogue_group = epilogue_lane / 4;
  const int epilogue_quad_lane = epilogue_lane % 4;
  // FusedDqConversion: this CTA's tickets, and the dQ of the query tiles it was last to reduce
  // into (backward_dq_tickets.cuh), after the dK / dV stores (whose registers are free then).
  auto convert_fused_dq = [&] {
    if constexpr (kFusedDq) {
      if (params.dq_fused) {
        take_dq_tickets<Element, kBlockM, kBlockN, kWidth, Config::kThreads>(
            params, mask, batch, items,
            [&](int item) {
              const int head_offset = item / m_count;
              return make_int2(kv_head * params.group_size + head_offset,
                               m_block_of(item, head_offset));
            },
            reinterpret_cast<unsigned*>(shared_bytes));
      }
    }
  };
  auto* dk_base = static_cast<Element*>(params.dk) + batch * params.dk_strides.batch +
                  kv_head * params.dk_strides.head;
  auto* dv_base = static_cast<Element*>(params.dv) + batch * params.dv_strides.batch +
                  kv_head * params.dv_strides.head;
  // The staged epilogue: the full-width kernel where head_dim fills the bucket; with
  // ClassStagedEpilogue (backward_tile_config.hpp) also a step class's kernel, over its own
  // columns, for head dims of whole 16-byte chunks (a padded row's chunk past head_dim, D = 84 of
  // 88, takes the register stores: the padding is not dK's).
  constexpr bool kClassStaged = kNarrowClass && class_staged_epilogue<Config>();
  if constexpr (kStagedEpilogue && (!kDqClass || kClassStaged)) {
    constexpr int kStoredWidth = kClassStaged ? kClassSteps * kMmaK : kWidth;
    constexpr int kLightDimTiles = kClassStaged ? 2 * kLightStepsB : kDimTilesB;
    const bool staged_head_dim =
        kClassStaged ? head_dim % kChunkElements == 0 : head_dim == kWidth;
    if (staged_head_dim && alignment >= kWidest) {
      static_assert(2 * kBlockN * Config::kStagedRowElements * sizeof(Element) <=
                        Config::kSharedBytes,
                    "the dK and dV tiles fit in the kernel's shared memory");
      store_dk_dv_staged<Element, Config::kStagedRowElements, kBlockN, kWidth, Config::kThreads,
                         kKeyTilesB, kDimTilesB, kStoredWidth, kLightDimTiles>(
          dk_acc, dv_acc, reinterpret_cast<Element*>(shared_bytes), params, dk_base, dv_base,
          key0, key_row_b, dim_step_b * kMmaK, epilogue_lane, head_dim,
          !kClassStaged || all_steps_b);
      convert_fused_dq();
      FATTN_SM80_BWD_TIMELINE_END();
      return;
    }
  }
  [[maybe_unused]] const WindowShifts epilogue_shifts = current_shifts();
#pragma unroll
  for (int kt = 0; kt < kKeyTilesB; ++kt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int key = key0 + key_row_b + kt * kMmaM + epilogue_group + 8 * half;
      if (key < params.seqlen_k) {
        Element* dk_row = dk_base + key * params.dk_strides.row;
        Element* dv_row = dv_base + key * params.dv_strides.row;
#pragma unroll
        for (int dt = 0; dt < kDimTilesB; ++dt) {
          const int column = dim_step_b * kMmaK + dt * kMmaN + 2 * epilogue_quad_lane;
          if constexpr (kShifted) {
            // Window column c: dK's column c - s_q, dV's c - s_do (16-bit stores).
            store_shifted_pair(dk_row, column - epilogue_shifts.query, params.head_dim,
                               dk_acc[kt][dt][2 * half] * params.scale,
                               dk_acc[kt][dt][2 * half + 1] * params.scale);
            store_shifted_pair(dv_row, column - epilogue_shifts.dout, params.head_dim,
                               dv_acc[kt][dt][2 * half], dv_acc[kt][dt][2 * half + 1]);
          } else if (column < head_dim && (dt < 2 * kLightStepsB || all_steps_b)) {
            store_pair(dk_row, column, head_dim, dk_acc[kt][dt][2 * half] * params.scale,
                       dk_acc[kt][dt][2 * half + 1] * params.scale, alignment);
            store_pair(dv_row, column, head_dim, dv_acc[kt][dt][2 * half],
                       dv_acc[kt][dt][2 * half + 1], alignment);
          }
        }
      }
    }
  convert_fused_dq();
  FATTN_SM80_BWD_TIMELINE_END();
}

}  // namespace fattn::detail::sm80
