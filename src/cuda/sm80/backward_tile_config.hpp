// Tile sizes and options of the sm80 backward, one entry per head-dim bucket (the forward's
// and the shared vocabulary are in tile_config.hpp). Shared memory: K, V resident plus `stages`
// buffers of Q and dO plus P and dS tiles.
#pragma once

#include <cstdint>

#include "cuda/sm80/tile_config.hpp"

namespace fattn::detail::sm80 {


// Backward: a CTA owns kBlockN keys of one KV head (all query heads of its GQA group, so dK and
// dV are complete in registers and need no reduction) and walks Q/dO in tiles of kBlockM rows.
// Warp layouts: phase A (S^T = K·Q^T and dP^T = V·dO^T) splits keys x queries over
// kWarpsKeysA x kWarpsQueriesA warps; phase B (dV, dK += ...) splits keys x head dim over
// kWarpsKeysB x kWarpsDimB; the dQ product splits queries x head dim over
// (kBlockM/16) x (kWarps·16/kBlockM). kQuerySplitsA: phase A runs its query columns in that many
// passes, so that only 1/kQuerySplitsA of Sᵀ and dPᵀ is live next to dK and dV (the K and V
// fragments are read once per pass). kFullWidthKernel: also compile a kernel for head dims that
// fill the bucket, with no k-step or column tests in phase A and the dQ product (off where it
// would spill). kWarpsQueriesQArg: query groups of the dQ product (0: one 16-row tile per warp,
// kBlockM / 16 groups); fewer groups give each warp more rows and fewer head-dim columns, so
// every K fragment it reads feeds more mma's (a 32 x 32 warp tile reads 16 KB of shared memory
// per 128 keys, a 16 x 64 one 20 KB).
template <int kWidthArg, int kBlockMArg, int kBlockNArg, int kWarpsArg, int kWarpsQueriesAArg,
          int kWarpsDimBArg, int kStagesArg, int kQuerySplitsAArg = 1,
          bool kFullWidthKernelArg = true, int kWarpsQueriesQArg = 0>
struct BackwardTile {
  static constexpr int kWidth = kWidthArg;
  static constexpr int kBlockM = kBlockMArg;  // query rows per step
  static constexpr int kBlockN = kBlockNArg;  // keys per CTA
  static constexpr int kWarps = kWarpsArg;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kStages = kStagesArg;  // Q/dO buffers (2 = next tile loads during this)
  static constexpr int kWarpsQueriesA = kWarpsQueriesAArg;
  static constexpr int kWarpsKeysA = kWarps / kWarpsQueriesA;
  static constexpr int kKeysPerWarpA = kBlockN / kWarpsKeysA;
  static constexpr int kQueriesPerWarpA = kBlockM / kWarpsQueriesA;
  static constexpr int kQuerySplitsA = kQuerySplitsAArg;
  static constexpr bool kFullWidthKernel = kFullWidthKernelArg;
  static constexpr int kWarpsDimB = kWarpsDimBArg;
  static constexpr int kWarpsKeysB = kWarps / kWarpsDimB;
  static constexpr int kKeysPerWarpB = kBlockN / kWarpsKeysB;
  static constexpr int kDimPerWarpB = kWidth / kWarpsDimB;
  static constexpr int kWarpsQueriesQ =
      kWarpsQueriesQArg > 0 ? kWarpsQueriesQArg : kBlockM / kMmaM;
  static constexpr int kQueriesPerWarpQ = kBlockM / kWarpsQueriesQ;
  static constexpr int kWarpsDimQ = kWarps / kWarpsQueriesQ;
  static constexpr int kDimPerWarpQ = kWidth / kWarpsDimQ;
  static constexpr int kScoreTileElements = kBlockN * kBlockM;  // P^T and dS^T, 16-bit each
  static constexpr int kSharedBytes =
      (2 * kBlockN * kWidth + 2 * kStages * kBlockM * kWidth + 2 * kScoreTileElements) * 2 +
      2 * kStages * kBlockM * 4;  // + LSE and D_i rows (fp32)
  static_assert(kKeysPerWarpA % kMmaM == 0 &&
                kQueriesPerWarpA % (2 * kMmaN * kQuerySplitsA) == 0);
  static_assert(kKeysPerWarpB % kMmaM == 0 && kDimPerWarpB % (2 * kMmaN) == 0);
  static_assert(kWarps % kWarpsQueriesQ == 0 && kDimPerWarpQ % (2 * kMmaN) == 0 &&
                kQueriesPerWarpQ % kMmaM == 0);
};

// A backward tile whose phase A rounds Pᵀ to the storage type (as phase B reads it anyway)
// and keeps it as packed 16-bit pairs while dPᵀ accumulates, instead of Sᵀ in fp32: half the
// registers for the scores, which is what lets phase A run its query columns in one pass next
// to dK and dV (kQuerySplitsA = 1), reading K and V once per query tile instead of once per
// pass. dSᵀ = Pᵀ∘(dPᵀ - D) then takes the rounded Pᵀ (one more 16-bit rounding in dS).
struct PackedProbabilitiesOption {};
template <class Tile>
struct PackedProbabilities : Tile, PackedProbabilitiesOption {};

template <class Config>
constexpr bool packed_probabilities() {
  return has_option<Config, PackedProbabilitiesOption>;
}

// A backward tile whose phase A software-pipelines the B operands (Q and dO fragments) of
// Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ: step k + 1's ldmatrix are issued before step k's mma's, so those
// mma's no longer wait on their own loads. Each k-step of phase A sits behind its own run-time
// branch (see the kernel), and with two warps per scheduler nothing else covered that wait (ncu:
// 40 % of issue cycles on fixed-latency dependencies). Costs one more set of B fragments
// (2·kQueryTilesA registers). Measured and not in the table (bench variants only): backward
// 0.95-1.00x the table at 128, 0.99-1.02x at 192 and 256 (H100); spills 24 bytes at 64 (bf16,
// sm_90a). docs/perf-notes.md "Backward v3" has the numbers.
struct PipelinedQueryFragmentsOption {};
template <class Tile>
struct PipelinedQueryFragments : Tile, PipelinedQueryFragmentsOption {};

template <class Config>
constexpr bool pipelined_query_fragments() {
  return has_option<Config, PipelinedQueryFragmentsOption>;
}

// RolledProductB (the full-width kernel; the general kernel is unchanged): phase B walks its
// query steps in a loop (kBlockM / 16 iterations, not unrolled) and the head-dim blocks of a step
// without tests. Fully unrolled, ptxas hoists the ldmatrix of many k-steps to the top of a product
// and spills next to dK + dV's 128 registers, which is why those steps sat behind run-time tests
// that left each step's mma's waiting on their own loads (ncu: 40 % of issue cycles on
// fixed-latency dependencies); a loop that is not unrolled bounds how far the loads can move, so
// ptxas may overlap one step's loads with its mma's but not pile up several steps'. In the table
// at 64, 128 and 256 (with LeanTileLoop). The same for phase A (RolledProductA: k-step pairs with
// a two-deep fragment buffer) measured 0.96-1.02x and was removed (docs/perf-notes.md "Backward
// v4" and "Backward v7").
struct RolledProductBOption {};
template <class Tile>
struct RolledProductB : Tile, RolledProductBOption {};

template <class Config>
constexpr bool rolled_product_b() {
  return has_option<Config, RolledProductBOption>;
}

// Fewer instructions per query tile outside the matrix products, where ncu counted 1.6x FA2's
// instructions per warp and tile for the same HMMA and LDSM counts (docs/perf-notes.md
// "Backward v4"): whole Q/dO tiles copied without per-row tests, the query head of an item found
// without a division when there is no GQA group, a negative softmax scale folded into the
// exponent instead of flipping the sign of every K fragment, Pᵀ of unmasked tiles computed
// without the mask's selects (packed tiles), and dQ atomics addressed from one row pointer.
struct LeanTileLoopOption {};
template <class Tile>
struct LeanTileLoop : Tile, LeanTileLoopOption {};

template <class Config>
constexpr bool lean_tile_loop() {
  return has_option<Config, LeanTileLoopOption>;
}
// A partial tile's per-score mask tests (the lean loop's pass over the scores, or the probabilities
// of the other kernels) use Mask::is_masked_unbranched (compares and selects: twenty-seventh
// session, perf-notes "Backward v55"); BranchedMaskPass keeps is_masked's short-circuit branches
// there, for the configurations whose kernels spill with the unbranched pass:
// BackwardConfig<256>'s 4 bytes; with kGeneralKernelOnly the general (not full-width) kernels
// only: BackwardConfig<64>'s WindowMask general kernels 4-8 bytes on sm_80.
// LargeSharedMemoryBackwardConfig<128> (28 bytes in its sm_90a bf16 full-width WindowMask kernel)
// and the 256 deterministic table (8 bytes, fp16) take DiagonalBandMaskPass (below) instead.
struct BranchedMaskPassOption {};
template <class Tile, bool kGeneralKernelOnly = false>
struct BranchedMaskPass : Tile, BranchedMaskPassOption {
  static constexpr bool kBranchedMaskPassInGeneralKernelOnly = kGeneralKernelOnly;
};
template <class Config, bool kFullWidth>
constexpr bool branched_mask_pass() {
  if constexpr (has_option<Config, BranchedMaskPassOption>) {
    return !(Config::kBranchedMaskPassInGeneralKernelOnly && kFullWidth);
  } else {
    return false;
  }
}
// DiagonalBandMaskPass (s28-bwd128mask): the lean loop's pass over a partial tile's scores in the
// masked kernels (mask_scores_by_band, backward_products.cuh) as one per-thread offset from the
// mask's band of diagonals plus a compile-time constant per score, the sequence end per key row:
// ptxas keeps the band's width in a uniform register and shares the compares of equal offsets,
// fewer registers than is_masked_unbranched's per-score key and query sums. 0 spills in
// LargeSharedMemoryBackwardConfig<128>'s kernels and the 256 deterministic table's;
// BackwardConfig<128>'s full-width WindowMask kernel spilled 8 bytes with it (sm_90a bf16) and
// keeps is_masked_unbranched. NoMask kernels keep their pass.
struct DiagonalBandMaskPassOption {};
template <class Tile>
struct DiagonalBandMaskPass : Tile, DiagonalBandMaskPassOption {};
template <class Config>
constexpr bool diagonal_band_mask_pass() {
  return has_option<Config, DiagonalBandMaskPassOption>;
}

// v5 options (fifth session, second round; docs/perf-notes.md "Backward v5"), in the table. ncu
// at 128 (v4) counted 1243 instructions per warp and query tile against FA2's 1016, of which ~217
// issued the next tile's copies and 191 computed Pᵀ; with StridedItemLoads and the bf16 Pᵀ
// widened by shift and mask (then the BitUnpackedProbabilities option, now what unpack_pair does
// for every kernel) 1077 (H100, D = 128, N = 4096), 9.60 -> 9.15 M cycles.
// StridedItemLoads (full-width kernel, no GQA group, head_dim % 8 == 0, 16-byte-aligned rows,
// whole tiles): the next Q/dO tile is copied from the CTA's head pointers plus row0·row_stride
// with load_whole_chunks (tile_io.cuh: the predicate form of cp.async, no zero-fill count added
// to each 64-bit address) and its LSE / D_i rows from one per-thread pointer, instead of
// recomputing (batch, head, row) addresses per tensor and per copy. Not at 256: the two
// registers of the carried source spilled 8 bytes there (sm_90a, WindowMask or, with the source
// in a shared-memory slot instead, NoMask full-width kernel).
struct StridedItemLoadsOption {};
template <class Tile>
struct StridedItemLoads : Tile, StridedItemLoadsOption {};
template <class Config>
constexpr bool strided_item_loads() {
  return has_option<Config, StridedItemLoadsOption>;
}
// LightDqRelease (deterministic mode): the chain holder hands a query tile on with the CUTLASS
// barrier's pattern: block barrier, then one thread's release store (a release is cumulative:
// it orders every write that the barrier ordered before it), instead of a fence in each of the
// 256 threads, then the barrier, then the store (sm_90a SASS: one MEMBAR.ALL.GPU per hop instead
// of two in a row); and the first key tile of each query tile's order skips the poll.
struct LightDqReleaseOption {};
template <class Tile>
struct LightDqRelease : Tile, LightDqReleaseOption {};
template <class Config>
constexpr bool light_dq_release() {
  return has_option<Config, LightDqReleaseOption>;
}

// ZeroStartAccumulators (lean full-width kernel): the first k-step of Sᵀ, dPᵀ and the dQ
// partial writes its accumulators (mma with C = 0, RZ in the HMMA) instead of adding to
// registers zeroed before each product. ptxas already folded the dQ product's zeros into RZ, but
// kept the CS2R of Sᵀ and dPᵀ, whose first k-step sits behind the run-time step test (sm_90a
// SASS, per query tile: 64 CS2R at 64, 32 at 128, 16 at 256, all gone with the option).
struct ZeroStartAccumulatorsOption {};
template <class Tile>
struct ZeroStartAccumulators : Tile, ZeroStartAccumulatorsOption {};
template <class Config>
constexpr bool zero_start_accumulators() {
  return has_option<Config, ZeroStartAccumulatorsOption>;
}

// UnmaskedStridedItemLoads: StridedItemLoads in the NoMask kernels only. At 256 the strided
// sources spilled 8 bytes in the sm_90a WindowMask full-width kernel (the window's bounds are
// live there too); the NoMask kernels took them with 0 spills. The Hopper-sized 256 tables' masked
// kernels take them since v27 with the sources rebuilt per item (MaskedStridedItemLoads).
struct UnmaskedStridedItemLoadsOption {};
template <class Tile>
struct UnmaskedStridedItemLoads : Tile, UnmaskedStridedItemLoadsOption {};
template <class Config>
constexpr bool unmasked_strided_item_loads() {
  return has_option<Config, UnmaskedStridedItemLoadsOption>;
}

// v7 options (sixth session; docs/perf-notes.md "Backward v7"). ncu's per-instruction samples
// at 128 (ours against FA2's backward, same tile and occupancy): Sᵀ, Pᵀ, dPᵀ and dSᵀ cost about
// the cycles FA2 spends there, phase B and the dQ product fewer, but the dQ atomics 10-12 % of
// the samples, more than half of them long-scoreboard stalls on the instruction that rewrites
// the address registers between rows: each row's 64-bit address went into registers that the
// previous row's REDGs still had to read, and a REDG reads its registers only once the LSU takes
// it, behind the CTA's other reductions (a 32 KB burst per query tile).
// DqAtomicsFromOneAddress (lean full-width kernel): one address per thread and query tile; every
// row and column of the warp's dQ slice is a compile-time offset from it (the accumulator's rows
// are kWidth floats in that kernel: round_up(head_dim, 16) = kWidth), so no register that an
// in-flight REDG reads is rewritten, and a whole query tile adds without per-row tests. ncu at
// 128 (N = 4096, non-causal): the long-scoreboard stalls go, the REDGs then wait on the LSU
// queue (lg_throttle) instead, same cycles; measured faster on causal problems (table below).
struct DqAtomicsFromOneAddressOption {};
template <class Tile>
struct DqAtomicsFromOneAddress : Tile, DqAtomicsFromOneAddressOption {};
template <class Config>
constexpr bool dq_atomics_from_one_address() {
  return has_option<Config, DqAtomicsFromOneAddressOption>;
}

// v8 option (sixth session, second round; docs/perf-notes.md "Backward v8").
// DqProductBeforePhaseB (lean full-width kernel; with RolledProductB): FA2's order, the dQ
// product and its atomics right after the Pᵀ/dSᵀ barrier and phase B (dV, dK) after them. In the
// deterministic mode a query tile's key tiles add in a chain, and each CTA's hand-over (its
// release) then comes one phase B earlier, so the next CTA of the chain waits less; the default
// mode's atomics, unordered, measured 0.96-0.99x with it ("Backward v7"), so only the
// deterministic launch takes it (LargeSharedMemoryDeterministicBackward,
// backward_deterministic_tables.hpp). The option changes the full-width kernel only:
// GeneralKernelConfig names the configuration whose general kernel it runs, so that kernel is not
// compiled a second time.
struct DqProductBeforePhaseBOption {};
template <class Tile>
struct DqProductBeforePhaseB : Tile, DqProductBeforePhaseBOption {
  using GeneralKernelConfig = Tile;
};
template <class Config>
constexpr bool dq_product_before_phase_b() {
  return has_option<Config, DqProductBeforePhaseBOption>;
}

// The configuration of the kernel launched for head dims short of the bucket: Config's own,
// unless an option of Config changes the full-width kernel only (GeneralKernelConfig).
template <class Config, class = void>
struct GeneralKernelOf {
  using type = Config;
};
template <class Config>
struct GeneralKernelOf<Config, std::void_t<typename Config::GeneralKernelConfig>> {
  using type = typename Config::GeneralKernelConfig;
};
template <class Config>
using general_kernel_config = typename GeneralKernelOf<Config>::type;

// DqAtomicsInPhaseB (seventh session, the table at 64; lean full-width kernel, with
// RolledProductB and DqAtomicsFromOneAddress): the dQ product right after the Pᵀ/dSᵀ barrier,
// then phase B with the partial's reductions spread over its query steps, one accumulator row
// (4 REDG per thread) every kQuerySteps / 4 steps, each after its step's fragment loads
// (backward_kernel.cuh, phase_b_with_dq_atomics). ncu at 128 (v7) put the extra 15 % over FA2
// at the query tile's end: the reductions leave as one 32 KB burst per CTA (LSU queue full,
// lg_throttle), the loop-top barrier waits for the slowest warp's, and the next tile's copies
// queue behind them; FA2 spreads its reductions over its dK product. v7's dQ-first order with
// the burst before phase B measured 0.96-0.99x: the warps stalled on the full queue before phase
// B instead of after it. The deterministic mode keeps v8's order (its reductions wait for their
// turn, so they are not spread). Measured on an H100 (docs/perf-notes.md "Backward v9", "v10",
// "v11"): v9 (rows at the top of steps 0-3) bwd +2–7 % at 64; v10 (this placement) +1–4 % over
// v9 there. At 128 every placement measured 0.95–1.00x the burst (ncu: a REDG reads its source
// registers only when the LSU accepts it, so the next ldmatrix that reuses them waits, and the
// ldmatrix queue behind the REDGs; with 4 query steps no position is far enough from the next
// step's loads), and so did a bulk reduction through shared memory (0.97–0.98x): 128 keeps the
// burst. A rolled phase B measured 0.5–2 % below the unrolled one at 64 and was dropped.
// v26 (h13-bwd80; commit 258cc20 has it): the spread rows without their run-time row tests on
// whole tiles measured 0.95-0.97 at 64: the tests are ptxas's only fences there, and without
// them it hoisted all 16 REDG.64 into phase B's first two query steps (a burst again).
struct DqAtomicsInPhaseBOption {};
template <class Tile>
struct DqAtomicsInPhaseB : Tile, DqAtomicsInPhaseBOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool dq_atomics_in_phase_b() {
  return has_option<Config, DqAtomicsInPhaseBOption>;
}

// DqReductionsByLine (eighth session; lean full-width kernel; in LargeSharedMemoryBackwardConfig
// at 128 and 256, and since v41 at 192 with REDG.128 over whole sectors instead of whole lines,
// DqPeriodicLineRounds): the dQ partial's reductions by whole 128-byte accumulator lines. The per-phase
// timeline of the table's kernels (bench/sm80_bwd_timeline.py; docs/perf-notes.md "Backward v13")
// put the reductions' window — the first warp's dQ product done to the last warp's REDG accepted
// — at ~2,000 clocks per query tile at 128 and ~4,100 at 256 (~16 bytes per clock and SM), on
// the critical path of every step (nothing independent after them but the loop-top barrier), and
// the loop top's wait on the REDGs' source registers at ~750 more. In the mma layout a REDG.64 of
// a warp sends 8 rows x 32 bytes; here each warp's partial goes through a staging tile of its own
// in shared memory, kDqStageRows rows at a time (kWarps · kDqStageRows · kDimPerWarpQ floats more
// shared memory), and leaves as REDG.128 of 4 whole lines each, from registers that an LDS.128
// has just loaded (backward_kernel.cuh, reduce_dq_by_lines). Measured (H100): bwd +1-7 % at 128,
// +7-11 % at 256 (see LargeSharedMemoryBackwardConfig); the timeline of the 32-row form at 128
// showed the same window (so the rate is not per request) but the loop top's wait cut from ~750
// to ~290-440 clocks, and at 256 the window 4,100 -> 3,300.
// v14 (eighth session, second round; docs/perf-notes.md "Backward v14", the option in commit
// c5021c6): sending a tile's staged lines during the next tile's Sᵀ/dPᵀ k-steps instead of at its
// end stretched those products by about what it took off the tile's end (the REDG.128 hold the
// load/store pipe that the products' ldmatrix need): bwd 0.91-0.96x at 128, 0.85-0.91x at 256
// (one-stage tile, the only one with room for the slice); at 64 this option measured 0.97-1.00x
// the spread REDG.64 of DqAtomicsInPhaseB. Not taken.
struct DqReductionsByLineOption {};
template <class Tile, int kDqStageRowsArg>
struct DqReductionsByLine : Tile, DqReductionsByLineOption {
  static constexpr int kDqStageRows = kDqStageRowsArg;
  static constexpr int kSharedBytes =
      Tile::kSharedBytes + Tile::kWarps * kDqStageRowsArg * Tile::kDimPerWarpQ * 4;
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool dq_reductions_by_line() {
  return has_option<Config, DqReductionsByLineOption>;
}

// WarpSearchedQueryRange (eighth session, h8-causal80; bench/results/sm80-bwd-causal-h100-2026-
// 11-22-s8/NOTES.md): the masked kernels find their query-tile range with each warp's lanes testing
// 32 tiles per ballot instead of the serial walk over every tile (NoMask keeps the walk, which
// ptxas folds: every tile touches). In the instrumented kernel the walk's clamps cost ~105 clocks
// per query tile: 27 k clocks (three query steps) before a 16k causal CTA's first item, 7 k at 4k.
// Measured less than that predicts (~2 %): bwd 1.003 / 1.006 at 128, 1.011 / 1.011 at 256 (4k /
// 16k causal).
struct WarpSearchedQueryRangeOption {};
template <class Tile>
struct WarpSearchedQueryRange : Tile, WarpSearchedQueryRangeOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool warp_searched_query_range() {
  return has_option<Config, WarpSearchedQueryRangeOption>;
}

// KeyTilesSlowestInHeadGroups (eighth session, h8-causal80; same notes): under a right-bounded
// mask in the default mode, the CTAs of kGroupPairs (KV head, batch) pairs at a time run with the
// key tile slowest instead of fastest, so each group's heavy left key tiles (the most query tiles
// under the diagonal) start first and the grid ends on light CTAs, not on the last head's heavy
// ones. Groups of a few pairs keep the concurrent CTAs' Q, dO and dQ as few heads as the grid
// order's (L2). The v15 timeline's CTA durations, list-scheduled on 132 SMs: 4k causal -6.5 %
// span for 4 or 8 pairs (1.3 % for 2), 16k causal unchanged (its tail is already < 0.2 %).
// Measured (4 pairs): bwd 1.086 / 1.035 at 128 (4k / 16k causal; at 16k more than the tail, not
// yet explained), 1.028 / 0.984 at 256. Not in the deterministic mode (its waits need the key
// tiles it waits for at lower grid indices), except with QueryTilesDescending below.
struct KeyTilesSlowestInHeadGroupsOption {};
template <class Tile, int kGroupPairsArg>
struct KeyTilesSlowestInHeadGroups : Tile, KeyTilesSlowestInHeadGroupsOption {
  static constexpr int kGroupPairs = kGroupPairsArg;
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool key_tiles_slowest_in_head_groups() {
  return has_option<Config, KeyTilesSlowestInHeadGroupsOption>;
}

// DeterministicUnmaskedHeadGroups (twelfth session, h12-bwd80c; bench/results/
// sm80-bwd-h100-2026-11-23-s12c/NOTES.md): in the deterministic mode's NoMask kernels, the grid
// runs kUnmaskedGroupPairs (KV head, batch) pairs at a time with the key tile slowest, as
// KeyTilesSlowestInHeadGroups does under a right-bounded mask. With the key tile fastest a head's
// key-tile CTAs start together and key tile j waits j hops of the ordered dQ chain on its first
// query tile (the ramp); here key tile j starts about kUnmaskedGroupPairs CTAs after key tile
// j - 1 and finds its turn there. Key tile j waits only on key tile j - 1 of its pair, at a lower
// linear index: no deadlock whatever the residency. The default mode keeps the grid order.
struct DeterministicUnmaskedHeadGroupsOption {};
template <class Tile, int kUnmaskedGroupPairsArg>
struct DeterministicUnmaskedHeadGroups : Tile, DeterministicUnmaskedHeadGroupsOption {
  static constexpr int kUnmaskedGroupPairs = kUnmaskedGroupPairsArg;
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool deterministic_unmasked_head_groups() {
  return has_option<Config, DeterministicUnmaskedHeadGroupsOption>;
}

// OrderedDqAtomicsInPhaseB (seventeenth session, h17-det64; bench/results/sm80-det-h100-2026-11-23-
// s17/NOTES.md; DqAtomicsInPhaseB tiles, NoMask kernels): the deterministic mode runs the default
// mode's spread dQ reductions (phase_b_with_dq_atomics) inside its ordered chain instead of v8's
// order (ordered burst, release, then phase B): thread 0 polls the query tile's turn before the
// Pᵀ/dSᵀ barrier (that barrier then orders the poll before every warp's reductions: no barrier
// of its own), and hands the tile on after the next item's loop-top barrier (or one barrier after
// the loop), which orders every warp's reductions before its release store, as LightDqRelease's
// barrier does. A hand-over comes one phase B later; with the key tiles slowest in head groups
// (DeterministicUnmaskedHeadGroups) a key tile starts items after the one before it, so the
// chain's waits stay at the first wave's ramp while every item loses the burst (v9 / v10: the
// spread reductions measured +3-7 % and +1-4 % in the default mode).
// v34 (seventeenth session, h17-detmask64; bench/results/sm80-det-h100-2026-11-23-s17b/NOTES.md):
// the masked kernels of a configuration with the option run the same chain (the NoMask gate
// is gone: DeterministicUnmaskedBackward<64> compiles its NoMask kernel alone, so no kernel
// compiled before changes). Under a right-bounded mask the chain adds in descending key-tile
// order with the key tiles numbered from the grid's end: key tile n waits on key tile n + 1, a
// lower linear index started no later, whose item of the same query tile is one item earlier in
// its walk; the later hand-over (the next item's loop top instead of mid-item) is then still
// ahead of n's poll (after its phase A), so the chain waits as little as before.
struct OrderedDqAtomicsInPhaseBOption {};
template <class Tile>
struct OrderedDqAtomicsInPhaseB : Tile, OrderedDqAtomicsInPhaseBOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool ordered_dq_atomics_in_phase_b() {
  return has_option<Config, OrderedDqAtomicsInPhaseBOption>;
}

// FusedDqConversion (twenty-eighth session, desk prep s28-dqfuse; bench/results/
// sm80-s28-dqfuse-prep/NOTES.md; issue #5): the default mode's NoMask full-width kernels (not
// shifted windows) convert dQ themselves: after its dK / dV epilogue a CTA takes a ticket per item
// it walked, and the CTA that takes a query tile's last ticket stores that tile's
// dQ = scale · accumulator (backward_dq_tickets.cuh); the postprocess launch (~62 µs at
// B·N = 16k, H·D = 2048 on the H100 at every N: 134 MB of fp32 read, 67 MB written at the copy
// rate, perf-notes "The pre- and postprocess") is skipped. A run-time flag of the same kernels
// (no new instantiation): the launcher sets it (launch_backward_with) in the default mode, for
// unmasked launches on 16-byte-aligned rows of whole chunks, where the head group has at most
// kFusedDqMaxTiles query tiles: the last CTA of a head group converts up to all of them at its
// end, serially. A marker base of the table's entries, not a wrapper: the general kernels keep
// their configuration (and do not take it). Measured (H100, bf16, B·N = 16384, H·D = 2048, bwd
// in turns beside main ea4fa5c and FA2, perf-notes "Backward v58"): D = 128 N = 512 / 1k
// non-causal x1.034 / 1.017; D = 256 x1.006 / 0.995 and D = 64 x1.004, so only the 128 table
// takes it; masked launches x0.945-0.989 (causal: the key tile of the diagonal's CTA walks the
// most query tiles, finishes last and converts them all), so masked kernels do not compile it.
struct FusedDqConversionOption {};
template <class Config>
constexpr bool fused_dq_conversion() {
  return has_option<Config, FusedDqConversionOption>;
}
// Query tiles per head group (m_blocks · group size) up to which the launcher fuses: N <= 1k at
// the 128 table's 64-row query tiles (without GQA), set from the postprocess's cost (~62 µs)
// against the last CTA's serial conversions: 1k measured x1.017, 2k (32 tiles) not measured.
inline constexpr int kFusedDqMaxTiles = 16;

// The deterministic chain's per-hop cost at 128 / 256 (twenty-sixth session, s26-det, from the
// lost branch s25-det2's description, bench/results/sm80-s25-det2-prep/NOTES.md; lean full-width
// kernels with DqReductionsByLine and LightDqRelease, the deterministic tables only). Per query
// tile the ordered dQ chain puts on every CTA's own path, whatever the chain's lag: the poll
// (thread 0's L2 round trip, ~700 clocks, with every warp held at the CTA barrier after it), the
// barrier after the reductions, and the release's MEMBAR.ALL.GPU (the drain of the CTA's 32 KB of
// REDG.128 to L2, ~600-900 clocks) with every warp held behind it at the next loop-top barrier:
// 4 CTA barriers per item where the default mode has 2. That sum (~1,600 clocks) matches the
// measured gap between the modes at 128, N = 4k (5.5 against 4.6 us per item). Both options
// keep the order of the dQ additions (the turn is the key tile's place, the same counter), so
// the gradients are bitwise those of the tables without them; a CTA still waits only on lower
// grid indices, and nothing between its reductions and its release waits on another CTA.
// DeferredDqHandOver: no barrier or release after the reductions; thread 0 hands item m on right
// after item m + 1's loop-top barrier, which orders every warp's reductions of m before its
// release store (a release is cumulative, as in LightDqRelease and OrderedDqAtomicsInPhaseB),
// and the last item's after the loop, one barrier on. The MEMBAR then holds warp 0 alone while
// the other warps start the next item, and the item loses a barrier; the hand-over comes a
// DEPBAR and a barrier later (~100-200 clocks more per hop). The previous item's counter is
// recomputed by thread 0 (carried, it is three registers across the loop in every thread).
// Measured (twenty-sixth session, perf-notes "Backward v50"; H100, bf16, deterministic backward in
// turns beside the tables before it and FA2, two runs, bench/results/gpu-check-h100-2026-11-24-
// session26/call5): alone at 128 x1.038-1.045 (N = 2k / 4k / 16k, 4k causal); at 256 NoMask
// x1.050 / 1.069 (2k / 4k), there in the NoMask kernels only (UnmaskedDeferredDqHandOver, retired
// by s26-det256: with the recomputed counter 256's WindowMask kernels spilled 20 bytes on sm_90a
// in s25-det2; with MaskedDqTurnSlot below, none).
struct DeferredDqHandOverOption {};
template <class Tile>
struct DeferredDqHandOver : Tile, DeferredDqHandOverOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool deferred_dq_hand_over() {
  return has_option<Config, DeferredDqHandOverOption>;
}
// DqTurnBeforeDqProduct: warp 0 polls the item's turn right after phase B (lane 0), then
// arrives on an mbarrier (backward_cta_order.cuh; first measured with a named barrier's
// bar.arrive, see below); warps 1-7 run their dQ products and wait on its phase before their
// reductions. The CTA barrier after the poll is gone and the round trip
// overlaps the other warps' dQ products (64 HMMA each at 128, ~400 clocks per SM sub-partition
// partner). The cost: the chain holder has to hand a tile on one dQ product (~1/5 item) sooner
// for the next key tile not to wait, so the chain's lag grows per hop, paid where chains start
// (the ramp). Turn 0 neither polls nor waits, as LightDqRelease. Measured in its named-barrier
// form with the hand-over at 128: x1.107 / 1.120 / 1.130 at N = 2k / 4k / 16k, x1.093 at 4k
// causal, against the hand-over alone's x1.04: the poll's move is worth the ramp it costs. At 256
// see UnmaskedDqTurnBeforeDqProduct and MaskedDqTurnBeforeDqProduct.
// Out of the tables in the twenty-sixth session (calls 8-9): compute-sanitizer's racecheck
// reported hazards in every kernel with the named barrier, all between shared-memory accesses
// that a __syncthreads separates, and the same in a kernel race-free by construction
// (bench/racecheck_named_barrier.cu mode 1: warp 0's `bar.arrive`): the tool's model of
// bar.arrive, not a race, but a racecheck that always reports would hide a real race.
// Back in the 128 table on the mbarrier (twenty-seventh session, calls 1-2; perf-notes "Backward
// v54"): racecheck, memcheck and synccheck clean (synccheck once warp 0 waits on its own phase,
// see wait_dq_turn_of_cta). Measured (H100, bf16, deterministic backward in turns beside the table
// with the hand-over alone and FA2, two runs): x1.047 / 1.062 / 1.074 / 1.080 at N = 1k / 2k / 4k
// / 16k, x1.057 / 1.062 at 4k / 16k causal; the default mode's kernels SASS-identical. Not in the
// step-class kernels (D = 65..96): x0.995 / 0.988 at D = 80 / 96 causal there.
struct DqTurnBeforeDqProductOption {};
template <class Tile>
struct DqTurnBeforeDqProduct : Tile, DqTurnBeforeDqProductOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool dq_turn_before_dq_product() {
  return has_option<Config, DqTurnBeforeDqProductOption>;
}
// UnmaskedDqTurnBeforeDqProduct (s26-det256, bench/results/sm80-s26-det256/NOTES.md): the same
// in the NoMask kernels of sm_90 and later only, for 256's table. In its WindowMask kernel the
// poll's move spilled 32-40 bytes on sm_90a fp16 (the counter and turn read from
// MaskedDqTurnSlot's slot or derived again); the NoMask kernel spilled 16 bytes on sm_80 fp16
// (s25-det2: 16-24), none on sm_90a, where alone the table runs (224 KB of shared memory). The
// head-group kernel (DeterministicUnmaskedBackward<256>, 44 bytes with it in s25-det2) keeps
// its code. s27-det256 (bench/results/sm80-s27-det256/NOTES.md): on the mbarrier
// (DqTurnBeforeDqProduct's form) the NoMask kernel spilled 8 bytes on sm_90a, fp16 and bf16 (two
// loop-invariant copy offsets, STL before the loop, LDL at the next item's copies). Two changes
// take it to 0 (sm_90a fp16 / bf16; sm_80 builds the kernel without the option): warp 0's lane
// 0 (thread 0) writes the item's counter and turn into MaskedDqTurnSlot's slot after its poll and
// the hand-over reads them there (kTurnSlotAtPoll, backward_kernel.cuh), and the reductions'
// query row passes through the wait (row_after_dq_turn_of_cta, backward_cta_order.cuh), so that
// ptxas keeps their address math after the wait instead of inside the dQ product. Either alone
// left 4-8 bytes; the slot with every warp waiting (no vote), without __syncwarp after the poll
// or with try_wait for test_wait left 4; the slot written at the item's start and read by the
// poll spilled 20.
struct UnmaskedDqTurnBeforeDqProductOption {};
template <class Tile>
struct UnmaskedDqTurnBeforeDqProduct : Tile, UnmaskedDqTurnBeforeDqProductOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool unmasked_dq_turn_before_dq_product() {
  return has_option<Config, UnmaskedDqTurnBeforeDqProductOption>;
}
// MaskedDqTurnBeforeDqProduct (s27-det256): the same in the masked kernels (WindowMask: causal
// and window launches), sm_90 and later only, for 256's table; with MaskedDqTurnSlot warp 0's
// lane 0 polls the counter and turn from the slot that it wrote at the item's start, and the
// reductions' row passes through the wait as in the NoMask kernel. 0 spills on sm_90a, fp16 and
// bf16 (254 registers; the kernel 7,552 -> 7,440 SASS instructions fp16, 2 CTA barriers per item
// instead of 3). Its named-barrier form spilled 32-40 bytes (s26-det256); on the mbarrier the
// kernel also had 0 spills with the address derived again in warp 0 or without the row through
// the wait (7,448-7,472 instructions), the slot's form is the shortest path to warp 0's arrival
// (18 instructions from its vote, against 46).
// Not measured; prediction in bench/results/sm80-s27-det256/NOTES.md.
struct MaskedDqTurnBeforeDqProductOption {};
template <class Tile>
struct MaskedDqTurnBeforeDqProduct : Tile, MaskedDqTurnBeforeDqProductOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool masked_dq_turn_before_dq_product() {
  return has_option<Config, MaskedDqTurnBeforeDqProductOption>;
}

// MaskedDqTurnSlot (s26-det256): in the masked kernels with DeferredDqHandOver, thread 0 writes
// the item's counter address and turn into a shared-memory slot at the item's start
// (dq_turn_slot, backward_cta_order.cuh; ~45 instructions, mostly uniform-datapath, in warp 0)
// and the hand-over at the next loop top (or after the loop) reads them there (two LDS) instead
// of deriving the previous item's counter again from its (batch, head, query tile) and the
// window's key range: that recomputation spilled 20 bytes in 256's WindowMask kernels on sm_90a
// (s25-det2), the slot none (sm_80 and sm_90a, fp16 and bf16). Only thread 0 writes and reads
// it: no barrier of its own. Not in the NoMask kernels, whose hand-over recomputes without
// spills (the slot spilled 16 bytes there, sm_80 fp16 and bf16).
struct MaskedDqTurnSlotOption {};
template <class Tile>
struct MaskedDqTurnSlot : Tile, MaskedDqTurnSlotOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool masked_dq_turn_slot() {
  return has_option<Config, MaskedDqTurnSlotOption>;
}
// QueryTilesDescending (ninth session, h9-bwd80; bench/results/sm80-bwd-h100-2026-11-22-s9/
// NOTES.md), for the deterministic mode: each CTA of the masked kernels walks its query tiles from
// the last down. Under a right-bounded mask every key tile of a query tile then reaches it at the
// same point of its walk, the ordered dQ chain adds in ascending key-tile order, and the key tiles
// keep the grid order that starts the heavy ones (left of the diagonal) first, with
// KeyTilesSlowestInHeadGroups where the tile has it (a CTA waits only on key tiles to its left:
// lower linear indices in both orders). The ascending walk has to add in descending key-tile order
// and so numbers the key tiles from the grid's end: the heavy CTAs last, the tail that
// KeyTilesSlowestInHeadGroups took out of the default mode.
struct QueryTilesDescendingOption {};
template <class Tile>
struct QueryTilesDescending : Tile, QueryTilesDescendingOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool query_tiles_descending() {
  return has_option<Config, QueryTilesDescendingOption>;
}

// ScorePassesByQueryTile (ninth session, second round; packed lean full-width kernel; the table at
// 64, v17): the exponent pass and the dSᵀ pass walk query tiles outer and key tiles inner, so each
// LSE / D_i pair read from shared memory feeds every key tile of the warp (kKeyTilesA) instead of
// one. ncu at 64 (bench/results/sm80-bwd-h100-2026-11-22-s9b): the table's passes read the pair
// once per (key tile, query tile), 32 LDS.64 per warp and query tile against FA2's 6 row statistics
// per item, each just before the FFMA / FADD that uses it (one register reused, the kernel at 255),
// and those FFMA/FADD carry 0.21 M of the kernel's 2.44 M stall samples (short scoreboard; FA2:
// 0.01 M on FADD, no FFMA). H100, bf16, B·N = 16384, H·D = 2048, bwd in turns beside the table's 64
// tile and FA2 (N = 4k / 4k causal / 16k / 16k causal): 1.049 / 1.037 / 1.046 / 1.037 (bwd / FA2
// 0.88-0.90 -> 0.92-0.935), dK and dV bitwise the table's; ("Backward v17"). 128 and 256 read each
// pair twice per query tile: not measured there.
// GeneralKernelConfig as DqAtomicsInPhaseB: the general kernel stays Tile's.
struct ScorePassesByQueryTileOption {};
template <class Tile>
struct ScorePassesByQueryTile : Tile, ScorePassesByQueryTileOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool score_passes_by_query_tile() {
  return has_option<Config, ScorePassesByQueryTileOption>;
}

// ScoreStatisticsAhead (fourteenth session, h14-bwd80; with ScorePassesByQueryTile): each pass
// reads the next query tile's LSE / D_i pair before it stores the current tile's Pᵀ / dSᵀ, and
// the first D_i pair before the dPᵀ product. ncu at 64 (bench/results/sm80-bwd-h100-2026-11-23-
// s14): ptxas cannot move a shared load above a shared store it cannot tell apart from it, so
// each pair's LDS.64 sat right after the previous tile's STS and right before its FFMA / FADD,
// which carried 27 k of the kernel's 582 k stall samples at N = 4k (short scoreboard; FA2 ~2 k).
// kAhead pairs in flight: 2·kAhead more live registers per pass. kUnmaskedPassesArg: the passes
// that read ahead in the NoMask kernels (the masked kernels: both).
enum class AheadPasses { none, exponent, both };
struct ScoreStatisticsAheadOption {};
template <class Tile, int kAhead = 1, AheadPasses kUnmaskedPassesArg = AheadPasses::both>
struct ScoreStatisticsAhead : Tile, ScoreStatisticsAheadOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
  static constexpr int kStatisticsAhead = kAhead;
  static constexpr AheadPasses kUnmaskedAheadPasses = kUnmaskedPassesArg;
};
// How many query tiles ahead the exponent pass (kDsPass false) or the dSᵀ pass of the NoMask
// (kMasked false) or masked kernels reads its pairs (0: each right before its use).
template <class Config, bool kMasked, bool kDsPass>
constexpr int score_statistics_ahead() {
  if constexpr (has_option<Config, ScoreStatisticsAheadOption>) {
    constexpr AheadPasses kPasses = kMasked ? AheadPasses::both : Config::kUnmaskedAheadPasses;
    const bool ahead =
        kPasses == AheadPasses::both || (!kDsPass && kPasses == AheadPasses::exponent);
    return ahead ? Config::kStatisticsAhead : 0;
  } else {
    return 0;
  }
}

// v19 option (tenth session, h10-bwd80; bench/results/sm80-bwd-h100-2026-11-23-s10/NOTES.md),
// from ncu of the 256 table's kernel beside FA2's (H100, N = 4096): the line reductions' region
// held 22 % of our stall samples, ~27 k of them (4 %) on ~125 instructions per warp and query
// tile that rebuild the staging offsets (signed divisions, the swizzle's XOR per dim tile).
// LineStagingSwizzleSplit (DqReductionsByLine tiles): the staging offsets in unsigned arithmetic
// with the swizzle's XOR split into a run-time part (four bases per lane) and immediates
// (reduce_dq_by_lines); the same offsets, so the same results bit for bit. Measured at 256 (bwd
// in turns beside the table and FA2, N = 4k / 4k causal / 16k / 16k causal): 1.004 / 1.012 /
// 1.001 / 1.008 (the table's own spread over three runs 0.5 %); the instrumented step −0.4 %:
// the REDG.128 issue ~115 clocks shorter and the loop top's wait for them as much longer, the
// reductions' byte rate is the limit (as v13 found). Not in the table. FA2's order (dV, then
// the dQ product and its reductions, then dK: DkProductAfterDqReductions, commit 1c9b5ad)
// measured 0.984-0.997: the warp issues its REDG.128 rounds before dK in program order, so dK
// did not overlap them and ran ~17 % longer beside the queued reductions.
struct LineStagingSwizzleSplitOption {};
template <class Tile>
struct LineStagingSwizzleSplit : Tile, LineStagingSwizzleSplitOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool line_staging_swizzle_split() {
  return has_option<Config, LineStagingSwizzleSplitOption>;
}

// DqStagingPairSwizzle (seventeenth session, h17-bwd256; DqReductionsByLine tiles whose warp rows
// hold 16 chunks of 16 bytes (kDimPerWarpQ 64: the 256 tables) or 8 (32: the 128 tables, XOR
// (2·row) % 8; h17-bwd128swz, the same 2-way conflict in the offset model). ncu of the 256
// kernel (bench/results/sm80-bwd-h100-2026-11-23-s10/call2, N = 4k) counted 4 shared-memory
// wavefronts per staging STS.64 where 2 do (134 M against 67 M ideal: a 2-way bank conflict of
// the XOR row % 8 swizzle, rows r and r ^ 1 of a half-warp on one bank quad), 14 % of the
// kernel's 988 M wavefronts, the ldmatrix's pipe. The option swizzles the staging rows by chunk
// XOR 2·(row % 8), conflict-free for the STS.64 and the LDS.128 (backward_dq_lines.cuh,
// DqLineRounds); the same values reach the same accumulator elements in the same order.
struct DqStagingPairSwizzleOption {};
template <class Tile>
struct DqStagingPairSwizzle : Tile, DqStagingPairSwizzleOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool dq_staging_pair_swizzle() {
  return has_option<Config, DqStagingPairSwizzleOption>;
}

// v20 option (tenth session, second round, h10-bwd80b; bench/results/sm80-bwd-h100-2026-11-23-
// s10b/NOTES.md). DqRoundsInDkSteps (DqReductionsByLine tiles with RolledProductB): dV in phase
// B, then the dQ product, then dK with the partial's line-reduction rounds (STS, LDS.128,
// REDG.128) between its query steps: kRoundsAhead rounds before dK's first step, then one at
// the top of each step (backward_kernel.cuh, dk_product_with_dq_rounds). v19's ncu beside FA2 at
// 256 put ~2/3 of our extra stall samples on the rounds issued back to back with nothing
// independent behind them and on the loop top waiting for them; FA2's reductions sit between its
// dQ and dK products, interleaved with dK's mma's. v19's DkProductAfterDqReductions (all rounds,
// then dK) measured 0.984-0.997: dK did not run under the queued rounds. The default mode's whole
// query tiles only; the deterministic mode and tiles cut by the sequence end reduce as
// DqReductionsByLine, then run dK. The NoMask kernels drop UnmaskedStridedItemLoads (they spilled
// with it). At 256 (4 rounds, 4 query steps): 2 rounds ahead 0 spills on sm_80 and sm_90a; 1
// ahead spilled 40 bytes in sm_80's WindowMask kernel; 0 ahead 56-88 bytes everywhere.
// Measured at 256 (H100, bf16, B·N = 16384, H·D = 2048, bwd in turns beside the table and FA2,
// N = 4k / 4k causal / 16k / 16k causal): 2 ahead 0.980 / 1.002 / 0.982 / 1.001, 1 ahead 0.981
// / 1.002 / 0.983 / 1.001. The instrumented step (4k): dK plus the four rounds 3,808 clocks
// against v19's 803 + 2,864 back to back, so no overlap: a warp issues in order, and the rounds
// wait on the reductions' byte rate (LSU queue), so the mma's behind a waiting REDG.128 wait too;
// the non-causal loss is the NoMask copies without strided sources (issue 720 -> 1,097 clocks).
// Not in the default table. The deterministic mode (dK after this tile's release in the dQ
// chain, the v8 effect) measured +2.9 % at 16k causal (186.4 -> 191.8 TFLOP/s, det / default
// bwd 0.824 -> 0.845); its other points are not measured, so not in that table either.
// GeneralKernelConfig as DqAtomicsInPhaseB: the general kernel stays Tile's.
struct DqRoundsInDkStepsOption {};
template <class Tile, int kDqRoundsAheadArg>
struct DqRoundsInDkSteps : Tile, DqRoundsInDkStepsOption {
  static constexpr int kDqRoundsAhead = kDqRoundsAheadArg;
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool dq_rounds_in_dk_steps() {
  return has_option<Config, DqRoundsInDkStepsOption>;
}

// v21 (eleventh session, h11-bwd80; bench/results/sm80-bwd-h100-2026-11-23-s11/NOTES.md). ncu of
// the 128 table beside FA2 (H100, N = 4096): FA2's tile and warp tiles, the kernel 1.057x FA2's
// non-causal and at parity causal; at N = 512 causal 1.27x, where the timeline put ~10,000
// clocks per CTA (an item's worth) in the epilogue's dK/dV stores.
// StagedEpilogue (lean full-width kernel; in LargeSharedMemoryBackwardConfig<128>): dK and dV
// leave through shared memory (two row-major tiles over the K/V/Q region, free after the last
// item) as 16-byte row chunks, one coalesced store per chunk, instead of 4-byte stores of
// accumulator pairs straight from registers (8 rows x 16 bytes per warp instruction, 64 per
// thread at 128). Only where head_dim fills the bucket and rows are 16-byte aligned; otherwise
// the register stores. Rows kStagedRowElements apart: a warp's 4-byte stores (8 rows x 4 lanes)
// then meet 32 different banks. Measured at 128 (bwd in turns beside the table and FA2, bf16,
// B·N = 16384, H·D = 2048): N = 4k 1.000, 1k causal 1.055, 512 causal 1.075; the instrumented
// epilogue 9,455 -> 3,248 clocks per CTA; dK, dV bitwise the table's. The deterministic table at
// 128 takes it in its NoMask kernels only (UnmaskedStagedEpilogue below: its sm_90a WindowMask
// kernel spilled with it); at 256 in every kernel, with MaskedPerItemPhaseBAddresses (below).
// Measured and removed (commit 424beb5 has it): DqBulkReductions, the dQ partial staged CTA-wide
// and added by the copy engine (cp.reduce.async.bulk ... add.f32, one 512-byte row per bulk
// reduction) instead of the warps' REDG.128 line rounds: 0.92-0.96 at 4k / 16k, 0.95-0.96 at
// 512-1k causal. Its issue phase took 1,988 clocks against the rounds' 1,530 (the UBLKRED wait
// for the engine as the REDG.128 wait for the LSU: the same ~16 B per clock and SM), and nothing
// else in the step got shorter.
inline constexpr int kStagedRowPadElements = 8;
struct StagedEpilogueOption {};
template <class Tile>
struct StagedEpilogue : Tile, StagedEpilogueOption {
  static constexpr int kStagedRowElements = Tile::kWidth + kStagedRowPadElements;
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool staged_epilogue() {
  return has_option<Config, StagedEpilogueOption>;
}

// UnmaskedStagedEpilogue (twelfth session, h12-bwd80b; bench/results/sm80-bwd-h100-2026-11-23-
// s12b/NOTES.md; the deterministic table at 128, at 256 until v25): StagedEpilogue in the NoMask
// kernels only. With StagedEpilogue the deterministic tables' sm_90a WindowMask kernels spilled
// (128: 20 bytes, 256: 4 bytes, also without WarpSearchedQueryRange; 256: one register stored
// before the item loop and reloaded at its top), while their NoMask kernels took it with 0 spills
// (251 / 255 registers; sm_90a SASS identical to the default table's NoMask kernels, where the
// deterministic options do nothing).
struct UnmaskedStagedEpilogueOption {};
template <class Tile>
struct UnmaskedStagedEpilogue : Tile, UnmaskedStagedEpilogueOption {
  static constexpr int kStagedRowElements = Tile::kWidth + kStagedRowPadElements;
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool unmasked_staged_epilogue() {
  return has_option<Config, UnmaskedStagedEpilogueOption>;
}

// MaskedPerItemPhaseBAddresses (twelfth session, h12-bwd80d; bench/results/sm80-bwd-h100-2026-
// 11-23-s12d/NOTES.md; the deterministic table at 256, with StagedEpilogue): in the masked
// kernels' rolled phase B, each item derives its Q / dO fragment address from volatile reads of
// the lane and the warp instead of the loop-invariant offset computed before the loop. With
// StagedEpilogue the sm_90a WindowMask kernel kept that offset across the loop and spilled it
// (4 bytes, reloaded once per item); with the per-item address it has no spills. Re-reading the
// epilogue's lane and warp instead made it 8 bytes. The NoMask kernels keep the offset (no spill
// there; their code stays the default table's).
struct MaskedPerItemPhaseBAddressesOption {};
template <class Tile>
struct MaskedPerItemPhaseBAddresses : Tile, MaskedPerItemPhaseBAddressesOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool masked_per_item_phase_b_addresses() {
  return has_option<Config, MaskedPerItemPhaseBAddressesOption>;
}

// MaskedStridedItemLoads (thirteenth session, h13-bwd80b; bench/results/sm80-bwd-h100-2026-11-23-
// s13b/NOTES.md; the 256 tables): StridedItemLoads in the masked kernels as well, with each
// item's Q / dO source (and with kFreshStatSource its LSE / D_i source) derived from a volatile
// read of the thread index and the item's query tile instead of carried across the item loop.
// The carried sources spilled in the WindowMask kernels at 256 (UnmaskedStridedItemLoads), and
// without strided sources their copy path is ~255 instructions per thread and item against
// the NoMask kernel's ~100 (sm_90a SASS; v19's timeline: 1,699 against 720 clocks per step);
// with the option ~171 (default table) and ~138 (deterministic). Which sources are derived afresh
// is what ptxas -v left free of spills (sm_80 and sm_90a, bf16 and fp16): the default table's
// WindowMask kernel with the LSE / D_i source carried (4-16 bytes with it fresh), the
// deterministic table's with both fresh (4 bytes in fp16 with it carried). Measured in both
// tables (LargeSharedMemoryBackwardConfig<256>, LargeSharedMemoryDeterministicBackward<256>): the
// instrumented steady step at 4k causal 13,980 -> 13,484 clocks, its copy issue 1,690 -> 1,192.
struct MaskedStridedItemLoadsOption {};
template <class Tile, bool kFreshStatSourceArg>
struct MaskedStridedItemLoads : Tile, MaskedStridedItemLoadsOption {
  static constexpr bool kFreshStatSource = kFreshStatSourceArg;
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool masked_strided_item_loads() {
  return has_option<Config, MaskedStridedItemLoadsOption>;
}
template <class Config>
constexpr bool masked_fresh_stat_source() {
  if constexpr (masked_strided_item_loads<Config>()) {
    return Config::kFreshStatSource;
  } else {
    return false;
  }
}

// UntestedPackedPhaseA (twenty-first session, bwd192; packed full-width kernel): phase A's
// k-steps that every head dim of the kernel has (min_full_width_head_dim) without their run-time
// tests against the head dim, as the unpacked tiles' full-width kernels run them; only the steps
// past those keep a test (none where the kernel runs only head dims that fill the bucket). The
// packed tiles keep the tests because at 128 ptxas otherwise hoisted the ldmatrix of many k-steps
// ahead of their mma's and spilled; each test is a branch that leaves a step's mma's waiting on
// their own loads (v3: 40 % of issue cycles on fixed-latency dependencies). At 192 dK + dV hold
// 96 registers, not 128. sm_90a SASS of the NoMask kernel (fp16) from the first mma of Sᵀ to the
// Pᵀ / dSᵀ barrier: 418 -> 322 instructions, 1,966 -> 1,055 cycles of static stall counts (the
// bare unpacked kernel: 328, 787).
struct UntestedPackedPhaseAOption {};
template <class Tile>
struct UntestedPackedPhaseA : Tile, UntestedPackedPhaseAOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool untested_packed_phase_a() {
  return has_option<Config, UntestedPackedPhaseAOption>;
}
// GroupedPhaseATests (twenty-fourth session, desk prep bwd256; packed full-width kernel without
// shifted windows): phase A's k-steps below the first one the bucket's narrowest head dim may lack
// share one run-time test per group of kGroupSteps (the group's first step's), instead of one
// each. A head dim that ends inside a group runs the group's other steps over the zero-filled
// columns (the full-width kernel's tiles hold zeros past the head dim), which the dispatch sends
// here only in builds without the smaller buckets. Why groups and not UntestedPackedPhaseA: at 256
// every untested run of 4 to 13 steps spilled 4-12 bytes (sm_90a, bf16: ptxas hoists their
// ldmatrix), while each test costs the loop a BRA, the NOP ptxas pads the step's last HMMA with,
// an ISETP (7 predicate registers for 15 tests) and a basic-block edge, twice per query tile
// (the Sᵀ and dPᵀ passes).
struct GroupedPhaseATestsOption {};
template <class Tile, int kGroupStepsArg, int kNarrowestHeadDimArg>
struct GroupedPhaseATests : Tile, GroupedPhaseATestsOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
  static constexpr int kPhaseATestGroupSteps = kGroupStepsArg;
  static constexpr int kNarrowestBucketHeadDim = kNarrowestHeadDimArg;
};
// The k-steps [0, grouped_phase_a_steps) run in groups of phase_a_test_group_steps (1: every step
// tested on its own).
template <class Config>
constexpr int phase_a_test_group_steps() {
  if constexpr (has_option<Config, GroupedPhaseATestsOption>) {
    return Config::kPhaseATestGroupSteps;
  } else {
    return 1;
  }
}
template <class Config>
constexpr int grouped_phase_a_steps() {
  if constexpr (has_option<Config, GroupedPhaseATestsOption>) {
    constexpr int kGroup = Config::kPhaseATestGroupSteps;
    constexpr int kPresentSteps = (Config::kNarrowestBucketHeadDim + kMmaK - 1) / kMmaK;
    return kPresentSteps / kGroup * kGroup;
  } else {
    return 0;
  }
}

// NarrowStepClasses (twenty-fourth session, desk prep bwd80, backward v47; lean full-width
// kernel without shifted windows): besides the full-width kernel, one kernel per step class
// kFirst..kLast, for the head dims of exactly that many 16-column k-steps (launch_backward_with
// picks it by ceil(D / 16); 16-byte rows only, as the full-width kernel over zeros). Over zeros
// the full-width kernel runs phase B and the dQ product over all the bucket's columns: at 128,
// D = 80 executed 272 of D = 128's 320 HMMA per warp and query tile (phase A skips its steps at
// run time, phase B and the dQ product do not), for 200 useful. A class kernel splits its k-steps
// over phase B's two head-dim warp groups (5 steps: 2 + 3, 6: 3 + 3, instead of 4 + 4), skips the
// dQ product's column slices past the class (a warp-uniform test; the slices are assigned so
// that each SM sub-partition, warp % 4, gets an even share), and runs phase A without run-time
// tests in the NoMask kernels (kUntestedSteps: every head dim of a class has all its steps; the
// WindowMask kernels keep the tests, without them they spilled 4-12 bytes, bf16, sm_80 and
// sm_90a). The busiest warp: 272 -> 208 HMMA at D = 80, 288 -> 256 at D = 96.
struct NarrowStepClassesOption {};
template <class Tile, int kFirstArg, int kLastArg, bool kUntestedStepsArg>
struct NarrowStepClasses : Tile, NarrowStepClassesOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
  static constexpr int kFirstStepClass = kFirstArg;
  static constexpr int kLastStepClass = kLastArg;
  static constexpr bool kUntestedClassSteps = kUntestedStepsArg;
};
template <class Config>
constexpr bool narrow_step_classes() {
  return has_option<Config, NarrowStepClassesOption>;
}
template <class Config>
constexpr bool untested_narrow_class_steps() {
  if constexpr (narrow_step_classes<Config>()) {
    return Config::kUntestedClassSteps;
  } else {
    return false;
  }
}

// Step-class options (twenty-fifth session, desk prep bwdnarrow; NarrowStepClasses tiles only,
// they change the class kernels and nothing else). A class kernel of the 128 bucket still did
// work of the bucket's full 128 columns where no product reads or writes past the class:
// - ClassDqSlicesUnsent: the dQ warps whose 32-column slice lies wholly past the class (slice 3
//   at classes 5 and 6) send no line rounds: their partial is zeros (the product skipped it), and
//   the accumulator's columns there stay the preprocess's zeros, which the postprocess never
//   reads (it converts head_dim columns). Each such warp's 8 REDG.128 per query tile, a quarter
//   of the tile's reduced bytes, stay off the L2; each REDG left keeps its shape (4 rows x 128
//   bytes). Warp-uniform: a vote on the warp's slice against the compile-time class.
// - ClassDqChunkTests: in the slice that the class ends inside (slice 2 at class 5: columns
//   64..79 of 64..95), the REDG.128 lanes whose 16-byte chunk lies past the class sit out: 4 rows
//   x 64 bytes per instruction instead of 4 x 128, half the bytes and sectors, the same lines.
//   The slices wholly in the class keep the untested rounds (a second vote); sm_90 and up only
//   (below it a reduced quad is four scalar atomics, and the tests spilled at 256 on sm_80).
// - ClassTileCopies: the Q / dO / K / V copies issue only the class's 16-byte chunks per row
//   (10 of 16 at class 5, 12 at 6) instead of zero-filling the rest: phase A, phase B, the dQ
//   product and the class kernels' epilogue (registers, not staged) read no column past the
//   class, so those shared-memory chunks are never read.
struct ClassDqSlicesUnsentOption {};
template <class Tile>
struct ClassDqSlicesUnsent : Tile, ClassDqSlicesUnsentOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool class_dq_slices_unsent() {
  return has_option<Config, ClassDqSlicesUnsentOption>;
}
struct ClassDqChunkTestsOption {};
template <class Tile>
struct ClassDqChunkTests : Tile, ClassDqChunkTestsOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool class_dq_chunk_tests() {
  return has_option<Config, ClassDqChunkTestsOption>;
}
struct ClassTileCopiesOption {};
template <class Tile>
struct ClassTileCopies : Tile, ClassTileCopiesOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool class_tile_copies() {
  return has_option<Config, ClassTileCopiesOption>;
}
// ClassDqQueryWarps (thirtieth session, s30-bwd96; NarrowStepClasses tiles with
// DqReductionsByLine): a step class whose columns split into whole k-steps over
// kWarps / kClassWarpsQueriesQ head-dim warps runs its dQ product on that layout, queries x the
// class's columns, instead of the bucket's 2 x 4 warps of 32 x 32 with the slices past the class
// idle. At 128 with 4 query warps: class 6 (D = 81..96) as FA2's hdim96 backward
// (AtomLayoutMdQ = 4): 16 x 48 warp tiles, 48 HMMA and 32 ldmatrix.x4 per warp and query tile in
// every warp, where the bucket's layout gave warps 0-2 and 4-6 64 HMMA and 32 ldmatrix each and
// warps 3 and 7 (both on SM sub-partition 3) none: the busiest warp 256 -> 240 HMMA per query
// tile, each sub-partition 480 instead of 512 / 512 / 512 / 384. Class 5 (80 columns: 40 per
// warp) keeps the bucket's layout. The 48-column warp rows are 12 chunks of 16 bytes: the line
// reductions run as DqPeriodicLineRounds (192's), 2 rounds of 8 rows, 3 LDS.128 and 3 REDG.128
// each per thread (the bucket's layout: 4 rounds of 2), and need kWarps x kDqStageRows x 48
// floats of staging (12 KB at 128 instead of 8). Each dQ element is the same mma chain over the
// same key steps in either layout and gets one reduction per CTA: the same partial, bit for bit,
// so the deterministic mode's sums are those of the bucket's layout. Measured alone (H100, bwd in
// turns beside main and FA2, B = 16, H = 16, N = 2k; bench/results/sm80-s30-bwd96/NOTES.md):
// fp16 D = 96 / 88 x1.009 / 1.010, causal x1.011 / 1.013, bf16 D = 96 x1.018.
struct ClassDqQueryWarpsOption {};
template <class Tile, int kClassWarpsQueriesQArg>
struct ClassDqQueryWarps : Tile, ClassDqQueryWarpsOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
  static constexpr int kClassWarpsQueriesQ = kClassWarpsQueriesQArg;
  static_assert(Tile::kBlockM % (kClassWarpsQueriesQArg * kMmaM) == 0 &&
                    Tile::kWarps % kClassWarpsQueriesQArg == 0,
                "whole 16-row tiles per query warp");
  // The widest class's warp rows (its staging), where they exceed the bucket layout's.
  static constexpr int kClassDimPerWarpQ =
      Tile::kLastStepClass * kMmaK / (Tile::kWarps / kClassWarpsQueriesQArg);
  static constexpr int kSharedBytes =
      Tile::kSharedBytes +
      (kClassDimPerWarpQ > Tile::kDimPerWarpQ
           ? Tile::kWarps * Tile::kDqStageRows * (kClassDimPerWarpQ - Tile::kDimPerWarpQ) * 4
           : 0);
};
// ClassStagedEpilogue (thirtieth session, s30-bwd96; NarrowStepClasses tiles with StagedEpilogue
// or UnmaskedStagedEpilogue): the step classes' kernels store dK and dV through the staged tiles
// too (store_dk_dv_staged, backward_kernel.cuh), for head dims of whole 16-byte chunks: each warp
// stages its class columns (phase B's light warps of an odd class their own steps only), and the
// CTA writes the class's 16-byte chunks below head_dim, one coalesced store each, instead of the
// 4-byte pairs from registers. The bucket's measurement (StagedEpilogue, v21: the epilogue
// 9,455 -> 3,248 clocks per CTA at 128; 1k causal x1.055, 4k x1.000) is the reason; a step class
// holds 5 or 6 of the 8 column steps. At N = 2k (32 query tiles per CTA, one CTA per SM) the
// register epilogue is ~2-3 % of a CTA's time. Measured with ClassDqQueryWarps (same setup):
// both x1.031 / 1.044 at D = 96 (non-causal / causal), x1.028 / 1.037 at 88, the epilogue alone
// x1.010 / 1.019 at D = 80, x1.007 at 72.
struct ClassStagedEpilogueOption {};
template <class Tile>
struct ClassStagedEpilogue : Tile, ClassStagedEpilogueOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool class_staged_epilogue() {
  return has_option<Config, ClassStagedEpilogueOption>;
}
// The dQ product's query warps in step class kClassSteps: Config's kClassWarpsQueriesQ where
// the class's columns split into whole k-steps over its head-dim warps, else 0 (the bucket's).
template <class Config, int kClassSteps>
constexpr int class_dq_query_warps() {
  if constexpr (has_option<Config, ClassDqQueryWarpsOption>) {
    constexpr int kDimWarps = Config::kWarps / Config::kClassWarpsQueriesQ;
    return kClassSteps > 0 && kClassSteps % kDimWarps == 0 ? Config::kClassWarpsQueriesQ : 0;
  } else {
    return 0;
  }
}

// DqStepClasses (twenty-fifth session, desk prep bwdnarrow; lean full-width kernel without
// shifted windows): NarrowStepClasses' kernels per class, changed in the dQ product and its line
// reductions only: the product skips the k-steps past the class in each warp's slice, and with
// ClassDqChunkTests the slice the class ends inside reduces its chunks in the class only. Phase
// A, phase B (which may have any number of head-dim groups), the copies and the epilogue are the
// bucket's kernel's. For the 256 bucket, whose four 64-column dQ slices leave no whole slice
// past D = 193..240: at D = 200 (13 steps) the last slice reduces 4 of its 16 chunks per row
// (REDG.128 of 2 rows x 64 bytes instead of 2 x 256) and runs 1 of its 4 product steps.
struct DqOnlyStepClassesOption {};
template <class Tile, int kFirst, int kLast>
struct DqStepClasses : NarrowStepClasses<Tile, kFirst, kLast, false>, DqOnlyStepClassesOption {
  using GeneralKernelConfig = general_kernel_config<Tile>;
};
template <class Config>
constexpr bool dq_only_step_classes() {
  return has_option<Config, DqOnlyStepClassesOption>;
}

template <int kHeadDimBucket>
struct BackwardConfig;

// v37 (twentieth session, h20-bwd-fwz; bench/results/sm80-bwd-fullwidth-zeros-h100-2026-11-24-
// s20/): the head dims whose 16-byte rows run the bucket's full-width kernel over zero-filled
// columns (the forward's v4 does the same at 64 and 193..256), instead of the general kernel with
// its run-time k-step and column tests: every head dim at 128 and 256. Rows narrower than 16
// bytes that shifted windows do not take (GQA) keep the general kernel: measured on 16-byte rows
// only, and without any launch of the general kernel left at 256, ptxas compiled the TU's
// out-of-line narrow copy differently and the deterministic unmasked full-width kernel spilled
// 80 bytes (sm_90a). The lean loop's 8 (16) k-steps cost less than the general kernel's 5 to 7
// (13 to 15): H100, fp16, B = 16, H = 16, N = 2048, bwd in turns beside the general kernel and
// FA2: D = 72 / 80 / 96 / 104 / 112 ×1.18 / 1.19 / 1.21 / 1.21 / 1.23, D = 200 / 216 / 232 / 240
// ×1.21 / 1.20 / 1.23 / 1.25, causal 96 / 200 ×1.33 / 1.23 (0.68-0.91 -> 0.82-1.10× FA2).
// v38 (twenty-first session; bench/results/sm80-bwd-lean-windows-h100-2026-11-24-s21/): the
// shifted windows of packed odd head dims (backward_windows.cuh) run in the same kernels, and 64
// joins from D = 33 (3 of its 4 k-steps; D <= 32 was not measured). Same setup, in turns beside
// v37 and FA2: windows at 128 / 256 D = 74 / 76 / 89 / 90 / 121 ×1.09 / 1.10 / 1.12 / 1.12 /
// 1.21, D = 196 / 201 / 217 / 236 ×1.12-1.16, causal 74 / 201 ×1.17 / 1.14; at 64 16-byte rows
// D = 40 / 48 ×1.20 / 1.21 (causal 48 ×1.34), windows D = 33 / 41 / 49 ×1.10 / 1.11 / 1.19. 192
// stays on the general kernel: its full-width tile has no lean loop, and over zeros it measured
// D = 136 / 144 / 160 / 176 ×0.955 / 0.945 / 0.99 / 1.035, windows D = 129 / 130 / 145 / 161
// ×0.90 / 0.90 / 0.925 / 0.95.
// v39b (twenty-first session, bwd192; bench/results/sm80-bwd192-2026-11-24-s21/NOTES.md): 192's
// lean full-width kernel (BackwardConfig<192>) over zeros for the bucket's own head dims,
// 129..176 with 16-byte rows and the shifted windows of packed odd ones. Its phase A tests the
// k-steps past D = 129's 9 (UntestedPackedPhaseA), so only phase B and the dQ product run the
// zero columns (12 k-steps for 9 at D = 136), against the bare kernel's v38 measurement above,
// which ran them in phase A as well. 0 spills on sm_80 and sm_90a, fp16 and bf16. Measured (H100,
// same setup, in turns beside v38 and FA2; call3/turns.txt): 16-byte rows D = 136 / 144 / 160 /
// 176 ×1.04 / 1.05 / 1.08 / 1.11 (causal 144 ×1.09, 136 at N = 8k ×1.05), filling D = 184 / 192
// ×1.05 / 1.09 (causal 192 ×1.11, bf16 ×1.09), 0.72-0.81 -> 0.72-0.85× FA2; the windows D = 129 /
// 130 / 145 / 161 ×0.945 / 0.948 / 0.972 / 1.006 (causal 129 ×0.976): they lose what the 16-byte
// rows gain most from, the strided item copies (backward_kernel.cuh: not for windows), and stay
// on the general kernel at 192 (shifted_windows_over_zeros; since v42 the Large table's windows
// take the full-width kernel).
// The smallest head dim that runs bucket `width`'s full-width kernel over zero-filled columns. A
// build that prunes buckets runs smaller head dims in the 128, 192 and 256 kernels (instances.hpp,
// find_instance): over zeros too at 128 and 256, correct and slower; at 192 the general kernel
// (not measured there).
inline constexpr int kNarrowestOverZerosAt64 = 33;
inline constexpr int kNarrowestOverZerosAt192 = 129;
constexpr int min_head_dim_over_zeros(int width) {
  if (width == 64) return kNarrowestOverZerosAt64;
  return width == 192 ? kNarrowestOverZerosAt192 : 1;
}
// Whether Config's shifted windows run its full-width kernel (from min_head_dim_over_zeros on) or
// its general one: v38 / v39b above. At 192 only with the line reductions (the Large table,
// v41 / v42; twenty-second session, call 6: packed D = 129 / 130 / 145 / 161 / 185 x1.06 / 1.07 /
// 1.06 / 1.08 / 1.14, causal 129 / 161 x1.09 / 1.10 over the general kernel); without them (sm_80's
// table) the full-width kernel measured 0.98-0.995 of the general one (call 1).
template <class Config>
constexpr bool shifted_windows_over_zeros() {
  return Config::kWidth != 192 || dq_reductions_by_line<Config>();
}
// FillingHeadDimsOnly: the full-width kernel only for head dims that fill the bucket; narrower
// ones keep the general kernel instead of running over zero-filled columns. For one-stage tiles
// (the small table, backward_small_tile_config.hpp), where the zero columns' extra k-steps are
// not hidden behind a second Q / dO stage's copies: on the H100 under a 99 KB cap the lean
// full-width kernel over zeros measured 0.966x the general one at D = 96 (128 bucket) and 0.978x
// at D = 160 (192 bucket), against x1.06 / x1.09 where D fills the bucket (twenty-ninth session,
// call 4).
struct FillingHeadDimsOnlyOption {};
template <class Tile>
struct FillingHeadDimsOnly : Tile, FillingHeadDimsOnlyOption {};
template <class Config>
constexpr bool filling_head_dims_only() {
  return has_option<Config, FillingHeadDimsOnlyOption>;
}

// The narrowest head dim that bucket `width`'s full-width kernel runs (launch_backward_with):
// over zero-filled columns from min_head_dim_over_zeros, else the first that fills the bucket.
constexpr int min_full_width_head_dim(int width) {
  const int filling = width - kMmaK + 1;
  const int over_zeros = min_head_dim_over_zeros(width);
  return over_zeros < filling ? over_zeros : filling;
}

// 128 keys per CTA at 64 and 128 (as FA2): per query tile a CTA reads Q and dO and sends the dQ
// atomics once for 128 keys, half the L2 traffic per FLOP of 64-key CTAs (64 keys at 128
// measured L2-bound: L2 77 %, tensor pipe 21 %). Phase A as 4 key groups x 2 query groups,
// phase B as 4 key groups x 2 head-dim groups (at 256: 2 x 4). The warp tiles are chosen for
// the fewest shared-memory bytes per mma (docs/perf-notes.md "Backward v3" counts them): a warp
// tile of m x n reads m + n fragment rows per k-step for m·n outputs. Measured on the H100
// (bf16, B·N = 16384, H·D = 2048, fwd+bwd TFLOP/s after the same forward, N = 1k / 4k / 16k,
// bench/sm80_bwd_compare.py; "Backward v2" had the earlier alternatives).
// 64: FA2's 128 query rows per step (each K/V fragment feeds twice the queries), packed Pᵀ
// with phase A in one pass, dQ in 32 x 32 warp tiles: 320 instead of 384 KB of ldmatrix per
// 64 queries. Backward alone (TFLOP/s, first call): 163 / 207 / 215, causal 101 / 156 / 177
// against 163 / 198 / 212 and 103 / 150 / 176 for v2's 64-row tile; the same tile in 2 query
// passes without packing measured 166 / 211 / 216 but causal 104 / 151 / 170 (second call:
// 171 / 209 / 217, causal 106 / 151 / 168, below v2 at 16k). dK + dV = 64 registers; 162 KB of
// shared memory (sm_80 has 163 KB).
// v4 (fifth session): LeanTileLoop and RolledProductB (the full-width kernel). ncu at 128 counted
// 1.6x FA2's executed instructions for the same HMMA/LDSM counts; the lean loop takes out most
// of the difference. H100, bf16, bwd TFLOP/s after the same forward, N = 1k / 4k / 16k, call 2:
// 175 / 218 / 231, causal 123 / 190 / 226 against the v3 tile's 165 / 197 / 210 and 108 / 151 /
// 174 (rolled phase B alone 1.00-1.07x; rolled phase A on top 0.96-0.98x: not taken).
// v5 (fifth session, second round): StridedItemLoads, bf16 Pᵀ widened by shift and mask (now
// unpack_pair's, every kernel) and LightDqRelease at 64 and 128, the last two at 256 (H100,
// same call as v4 and PyTorch's flash, variants 21): bwd 1.02-1.05x v4 at 64, 1.00-1.06x at 128
// (causal 1k-16k ~1.00-1.02), 0.99-1.02x at 256; deterministic / default at N = 4096 0.86-0.90
// (v4: 0.79-0.85).
// v6 (fifth session, third round): ZeroStartAccumulators at 64 (H100, same call as v5 and
// flash, N = 4k / 16k: bwd 1.01-1.04x v5, causal 4k +3.7 %); at 128 neutral (0.99-1.02x, not
// taken); at 256 see LargeSharedMemoryBackwardConfig below.
// v7 (sixth session): DqAtomicsFromOneAddress at 64 and 128 (H100, two calls, each beside the v6
// table and flash, bwd / v6 table): 64 0.995-1.04 (N = 1k-16k, causal 4k 1.01 and 1.04), 128
// 0.99-1.06 (causal 1.025 / 1.06 / 1.04 at 1k / 4k / 16k, non-causal 0.99-1.005). At 256 it
// measured 0.96-0.98 causal (1.01 non-causal): not taken there.
// v9/v10 (seventh session): DqAtomicsInPhaseB at 64 (above; H100, two calls, each beside the
// table before it and flash): v9 bwd 1.04 / 1.03 / 1.04 / 1.07 / 1.02 / 1.05 over v7 at N = 1k,
// 1k causal, 4k, 4k causal, 16k, 16k causal; v10's placement 1.032 / 1.010 / 1.021 / 1.037 /
// 1.023 / 1.011 over v9; deterministic / default fwd+bwd at 4k 0.86 / 0.88.
// v17 (ninth session, second round): ScorePassesByQueryTile at 64 (above; H100, bwd in turns
// beside the v10 table and flash: 1.049 / 1.037 / 1.046 / 1.037 at N = 4k / 4k causal / 16k /
// 16k causal; GPU tests and sanitizers in the lead's last call, "Backward v17").
// v22 (eleventh session, second round, h11-bwd80b): StagedEpilogue (above; two 128 x 72
// tiles, 36 KB of the 162 KB, so sm_80 too): ptxas 0 spills on sm_80 and sm_90a, bf16 and fp16;
// sm_90a SASS 8 STG.E.128 per thread in the full-width kernels. The mode is a run-time flag at
// 64, so the deterministic launch takes it too. Measured (twelfth session, h12-bwd80; H100, bf16,
// B·N = 16384, H·D = 2048, bwd TFLOP/s in turns beside the table before it, 2 rounds): 119.5 /
// 165.9 / 263.5 / 232.1 against 114.4 / 161.2 / 261.7 / 230.6 at N = 512 causal / 1k causal /
// 4k / 4k causal (+4.5 / +2.9 / +0.7 / +0.6 %); instrumented epilogue 1,771-1,831 clocks per CTA.
// v29 (fourteenth session, h14-bwd80): ScoreStatisticsAhead, the passes' LSE / D_i pairs read two
// query tiles ahead. H100, bf16, B·N = 16384, H·D = 2048, bwd in turns beside the table before it
// and FA2 (N = 512 to 16k, causal and not, 11 points): 1.039-1.068x (geomean 1.054), bwd / FA2
// 0.905-0.977 -> 0.940-1.017; one tile ahead 1.033-1.061x except one noisy point (geomean 1.052).
constexpr int kStatisticsAheadAt64 = 2;
template <>
struct BackwardConfig<64>
    : StagedEpilogue<ScoreStatisticsAhead<
          ScorePassesByQueryTile<DqAtomicsInPhaseB<BranchedMaskPass<
              DqAtomicsFromOneAddress<ZeroStartAccumulators<StridedItemLoads<LightDqRelease<
                  LeanTileLoop<RolledProductB<PackedProbabilities<
                      BackwardTile<64, 128, 128, 8, 2, 2, 2, 1, true, 4>>>>>>>>,
              true>>>,
          kStatisticsAheadAt64>> {};
// 128: packed Pᵀ (PackedProbabilities) with phase A in one pass, and 32 x 32 dQ warp tiles:
// 608 instead of 768 KB of ldmatrix per query tile. fwd+bwd 212 / 251 / 261, causal 149 / 205 /
// 235 against v2's 206 / 243 / 254 and 141 / 191 / 228 (2 query passes, 16 x 64 dQ tiles); the
// dQ tiles alone (first call) 206 / 244 / 250. dK + dV = 128 registers; 161 KB, one CTA of 8
// warps per SM.
// v4: LeanTileLoop and RolledProductB, bwd 212 / 254 / 268, causal 152 / 220 / 265 against
// 194 / 229 / 241 and 135 / 178 / 213 (call 2; rolled phase B alone 1.05-1.08x; the rolled
// phase A on top 0.97-0.99x of this: not taken).
template <>
struct BackwardConfig<128>
    : DqAtomicsFromOneAddress<StridedItemLoads<LightDqRelease<LeanTileLoop<RolledProductB<
          PackedProbabilities<BackwardTile<128, 64, 128, 8, 2, 2, 2, 1, true, 2>>>>>>> {};
// 192: two Q/dO buffers take 161 KB, just inside sm_80's 163 KB per block. dK + dV = 96
// registers per thread. FA2's hdim-192 tile (64 x 64, 8
// warps, two stages).
// v39 (twenty-first session, bwd192; bench/results/sm80-bwd192-2026-11-24-s21/NOTES.md): the
// full-width kernel with 128's lean options (packed Pᵀ, LeanTileLoop, RolledProductB,
// StridedItemLoads, DqAtomicsFromOneAddress, LightDqRelease) and ZeroStartAccumulators. Its 6
// k-steps per warp in phase B and the dQ product are not a power of two, so K in the dQ product
// and Q / dO in phase B keep the five-register fragment address (backward_kernel.cuh,
// kXorKQ / kXorQB); the others take the XOR form. The general kernel stays the bare tile's
// (GeneralKernelConfig), the code measured before; v39b (min_head_dim_over_zeros) leaves it the
// rows narrower than 16 bytes that shifted windows do not take (GQA).
// ptxas: 0 spills on sm_80 and sm_90a, bf16 and fp16 (full-width 250-255 registers).
// v39 with UntestedPackedPhaseA (same session): phase A's k-steps without run-time tests where
// every head dim of the full-width kernel has them; 0 spills (242-255 registers).
// v40 (twenty-second session; bench/results/sm80-bwd192-tile-h100-2026-11-24-s22/): FA2's warp
// layouts for phase B (2 key x 4 head-dim warps: 32 x 48 warp tiles) and the dQ product (2
// query x 4 head-dim warps, kWarpsQueriesQ = 2: 32 x 48) instead of 16 x 96 in both. A warp
// tile of m x n reads m + n fragment rows per k-step: 80 instead of 112 for the same 1,536
// outputs, so a query tile reads 541 instead of 639 KB of ldmatrix (phase A unchanged). Same
// 96 registers of dK + dV; 0 spills (full-width 244-255). Measured (H100, fp16, B = 16, H = 16,
// N = 2048, bwd in turns): D = 136..192 x1.057-1.065, packed 129 / 161 x1.026 / 1.062; phase B
// alone x1.045-1.051, the dQ tile alone x1.006-1.016.
using BareBackwardTile192 = BackwardTile<192, 64, 64, 8, 2, 4, 2, 1, true, 2>;
struct LeanBackwardTile192
    : ZeroStartAccumulators<DqAtomicsFromOneAddress<StridedItemLoads<LightDqRelease<
          LeanTileLoop<RolledProductB<PackedProbabilities<BareBackwardTile192>>>>>>> {
  using GeneralKernelConfig = BareBackwardTile192;
};
// v42 (same session, call 4): StagedEpilogue (dK and dV leave as 16-byte row chunks through
// shared memory, as at 64 / 128 / 256). On v40 alone x1.002-1.068 (512 causal 1.068, call 2);
// with v41's line reductions x1.083-1.134 over v40 where v41 alone measured x1.064-1.090 (512
// causal 1.134 against 1.066). 0 spills.
template <>
struct BackwardConfig<192> : StagedEpilogue<UntestedPackedPhaseA<LeanBackwardTile192>> {};
// 256: one Q/dO buffer (145 KB), so the next load waits for the step before it (the price of
// fitting sm_80). Phase B as 2 key x 4 head-dim warps (32 x 64 per warp instead of 16 x 128:
// 192 instead of 288 KB of ldmatrix per query tile) and 32 x 64 dQ warp tiles; dK + dV = 128
// registers. fwd+bwd 173 / 195 / 203, causal 134 / 176 / 198 against v2's 167 / 187 / 194 and
// 129 / 165 / 189. Two stages (Hopper's 227 KB only) measured 180 / 204 / 209, causal 136 / 178 /
// 202, deterministic 0.82 of the default instead of 0.83-0.85: not worth a second kernel per
// arch. The general kernel for every head dim: the full-width one spills 4-16 bytes.
// v4: packed Pᵀ with the full-width kernel, LeanTileLoop and RolledProductB (0 spills on sm_80
// and sm_90a once the lean loop's epilogue re-reads the lane on sm_80), bwd 156 / 181 / 187,
// causal 124 / 163 / 188 against 151 / 170 / 177 and 118 / 149 / 175 (call 2).
// v6: ZeroStartAccumulators with strided item copies in the NoMask kernels measured 0.98-1.01x
// this tile (not taken); two stages, on devices that have the shared memory, are the
// LargeSharedMemoryBackwardConfig below.
template <>
struct BackwardConfig<256>
    : BranchedMaskPass<LightDqRelease<LeanTileLoop<RolledProductB<
          PackedProbabilities<BackwardTile<256, 64, 64, 8, 2, 4, 1, 1, true, 2>>>>>> {};

// A second table for devices whose blocks may take more shared memory than sm_80's 163 KB
// (Hopper: 227 KB); launch_backward picks it by the device's opt-in limit. Where it equals
// BackwardConfig no second kernel is compiled.
// 256: two Q/dO stages (209 KB), as FA2 runs on the H100 (its hdim-256 traits double-buffer when
// 176 KB fit): the next item's copy is issued after the first barrier instead of waiting for
// the previous item, so it overlaps this item's products. With the lean loop the single stage's
// exposed copy had become the larger share (v3 measured two stages at +3-5 % fwd+bwd before the
// lean loop). H100, same call as BackwardConfig<256> and flash (v6, variant 25632), N = 4k / 16k:
// bwd 1.12x / 1.11x, causal 1.08x / 1.12x; fwd+bwd / flash 0.80-0.83 -> 0.86-0.89.
// Deterministic / default 0.84 (the default got faster; deterministic itself 187 -> 195 TFLOP/s
// fwd+bwd non-causal). 0 spills on sm_80 and sm_90a, bf16 and fp16.
// v13 (eighth session): DqReductionsByLine at 128 and 256, 8 staging rows per round (128: 169
// KB, 256: 224 KB). H100, one call, in turns beside the table before it and flash (bf16,
// B·N = 16384, H·D = 2048, bwd after the same forward, N = 1k / 1k causal / 4k / 4k causal /
// 16k / 16k causal): 128 1.038 / 1.009 / 1.072 / 1.008 / 1.074 / 1.027, 256 1.105 / 1.071 /
// 1.102 / 1.072 / 1.102 / 1.112; the whole warp slice staged at once at 128 (32 rows, 193 KB)
// measured 0.98-1.03. Deterministic / default 0.86 / 0.88 (128), 0.87 / 0.88 (256) at 4k.
// v15 (eighth session, h8-causal80; bench/results/sm80-bwd-causal-h100-2026-11-22-s8/NOTES.md):
// the causal mask's own costs. H100, one call, in turns beside the v13 table and flash (bf16,
// B·N = 16384, H·D = 2048, bwd after the same forward, N = 4k / 16k causal; spread of three runs
// <= 0.3 TFLOP/s): at 128 WarpSearchedQueryRange 1.003 / 1.006, KeyTilesSlowestInHeadGroups of 4
// pairs 1.086 / 1.035, both 1.105 / 1.055 (233 -> 258, 274 -> 289; flash 275 / 319); at 256
// WarpSearchedQueryRange 1.011 / 1.011, the head groups 1.028 / 0.984, both 1.036 / 0.994, so
// 256 takes the range search alone. The NoMask kernels are SASS-identical with either option.
inline constexpr int kCausalHeadGroupPairs = 4;
struct TwoStageBackwardTile256
    : UnmaskedStridedItemLoads<ZeroStartAccumulators<LightDqRelease<LeanTileLoop<RolledProductB<
          PackedProbabilities<BackwardTile<256, 64, 64, 8, 2, 4, 2, 1, true, 2>>>>>>> {};
// The v13 table's tiles (v15 adds the causal options to them; bench/sm80_bwd_timeline_shim.cu
// times them as variant 14).
using LineReductionsTile128 = DqReductionsByLine<BackwardConfig<128>, 8>;
using LineReductionsTile256 = DqReductionsByLine<TwoStageBackwardTile256, 8>;
template <int kHeadDimBucket>
struct LargeSharedMemoryBackwardConfig : BackwardConfig<kHeadDimBucket> {};
// v18 (ninth session, lead; bench/results/sm80-bwd-sp-h100-2026-11-22-s9/): v17's
// ScorePassesByQueryTile on this tile too. H100, bf16, B·N = 16384, H·D = 2048, in turns beside
// the table as launched and flash: bwd +3.1 / +2.2 / +3.0 / +3.0 % at N = 4k / 4k causal / 16k /
// 16k causal (fwd+bwd / flash 0.98-1.01 -> 1.00-1.03). At 256 it measured 0.997-1.00 and is not
// taken there.
// v21: StagedEpilogue (above) on that tile in the default mode. v22 (h11-bwd80b):
// ZeroStartAccumulators with it (sm_90a SASS: 126 -> 95 CS2R in the NoMask kernel; 0 spills on
// sm_80 and sm_90a, bf16 and fp16). Measured (h12-bwd80, in turns beside the v21 table, 2
// rounds): bwd 135.9 / 187.3 / 296.2 / 275.8 against 135.2 / 185.9 / 290.8 / 273.0 TFLOP/s at
// N = 512 causal / 1k causal / 4k / 4k causal (+0.5 / +0.7 / +1.8 / +1.0 %).
// v35 (seventeenth session, h17-bwd128swz; bench/results/sm80-bwd-h100-2026-11-23-s17c/NOTES.md):
// v32's conflict-free dQ line staging (DqStagingPairSwizzle: rows of 8 chunks, XOR (2·row) % 8)
// with the split offsets (LineStagingSwizzleSplit) at 128 too, in both tables (via this tile).
// H100, bf16, B·N = 16384, H·D = 2048, bwd in turns beside the tables before it and FA2
// (bench/sm80_bwd_det_ratio.py --variant 182, 2 runs x 5 rounds): default 1.013 / 1.013 / 1.018 /
// 1.017 / 1.022 / 1.025 at N = 1k / 1k causal / 4k / 4k causal / 16k / 16k causal (geomean
// 1.018), deterministic 1.013-1.014 and bitwise the old tables' gradients; the swizzle alone
// (variant 181, default mode) 1.003-1.024 (geomean 1.011).
using StagingTile128 = LineStagingSwizzleSplit<DqStagingPairSwizzle<LineReductionsTile128>>;
struct ScorePassesTile128
    : ScorePassesByQueryTile<WarpSearchedQueryRange<
          KeyTilesSlowestInHeadGroups<StagingTile128, kCausalHeadGroupPairs>>> {};
// v30 (fourteenth session, h14-bwd80b; bench/results/sm80-bwd-h100-2026-11-23-s14b/NOTES.md):
// ScoreStatisticsAhead (v29 at 64), one query tile ahead, in both modes' tables. H100, bf16,
// B·N = 16384, H·D = 2048, bwd in turns beside the tables and FA2 (N = 512 to 16k, causal and
// not): default 1.002-1.017x (N >= 4k 1.010-1.017), deterministic 1.007-1.012x; two tiles ahead
// the same within 0.6 %. At 256 (with ScorePassesByQueryTile) its NoMask kernels spill 8 bytes.
constexpr int kStatisticsAheadAt128 = 1;
// Step classes (NarrowStepClasses, v47): 5 and 6 k-steps, D = 65..80 and 81..96 (7 steps would
// split 4 + 3, no fewer for the busiest warp than the bucket's 4). Measured (H100, backward in
// turns beside the table before it and FA2, 3 runs; bench/results/s24-h100-call5/): fp16 N = 2k
// D = 72 / 80 / 96 x1.080 / 1.079 / 1.057, 80 causal x1.056, bf16 80 at 4k x1.090; D = 128 1.00
// (control); D = 72 / 80 0.98 / 0.97 -> 1.06 / 1.04x FA2's backward. Of D = 80's x1.079 the
// plain 3 + 3 split gave x1.048 and the untested phase A x1.010 more.
inline constexpr int kFirstStepClassAt128 = 5;
inline constexpr int kLastStepClassAt128 = 6;
// v49 (twenty-fifth session, desk prep s25-bwdnarrow; bench/results/sm80-s25-bwdnarrow-prep/
// NOTES.md): the class kernels' D-independent work cut to the class, in both modes' tables: the
// dQ slice past the class unsent and the tile copies of the class's chunks only. Measured (H100,
// backward in turns beside 221b474 and FA2; bench/results/gpu-check-h100-2026-11-24-session25/
// call8/): default D = 72 / 80 ~x1.02 (the three options 0.995 / 0.996, less the chunk tests'
// x0.976), deterministic (with the chunk tests) D = 72 / 80 / 96 x1.032-1.035, D = 128 1.00.
// ClassDqChunkTests (REDG.128 of 4 rows x 64 B in the slice the class ends inside) cost 2.4 %
// at 128 and is left to the 256 bucket's dQ classes, which were measured with it.
template <class Tile>
using NarrowClassWork = ClassTileCopies<ClassDqSlicesUnsent<Tile>>;
// s28-bwd128mask (twenty-eighth session, bench/results/sm80-s28-bwd128mask-prep/NOTES.md):
// DiagonalBandMaskPass instead of BranchedMaskPass, the masked kernels' pass over a partial tile
// branch-free (sm_90a bf16 full-width WindowMask kernel: BSSY 131 -> 107, BRA 552 -> 408, 8,200
// -> 7,432 instructions; 245 registers, 0 spills). Measured (H100, bf16, B·N = 16384, H·D = 2048,
// bwd in turns beside main 4ddfad9 and FA2, perf-notes "Backward v57"): D = 128 causal x1.046 /
// 1.031 / 1.023 / 1.015 at N = 512 / 1k / 2k / 4k (0.958 -> 1.002x FA2 at 512), D = 80 causal 2k
// x1.02, non-causal 1.000. The deterministic table at 128 (backward_deterministic_tables.hpp)
// keeps is_masked_unbranched, already branch-free and spill-free there (the band form: the same
// instruction count within 1 %).
// s30-bwd96 (thirtieth session; bench/results/sm80-s30-bwd96/NOTES.md): class 6's dQ product on
// 4 query x 2 head-dim warps (ClassDqQueryWarps) and the classes' staged epilogue
// (ClassStagedEpilogue), in both modes' tables. Measured (H100, bwd in turns beside main and FA2,
// B = 16, H = 16, N = 2k): fp16 D = 96 x1.031 (0.88 -> 0.91x FA2), causal x1.044 (-> 1.00x),
// bf16 x1.037, D = 88 x1.028, D = 80 x1.010; deterministic D = 96 x1.016; D = 128 1.00.
inline constexpr int kClassDqQueryWarpsAt128 = 4;
template <class Tile>
using NarrowClassDq128 = ClassStagedEpilogue<ClassDqQueryWarps<Tile, kClassDqQueryWarpsAt128>>;
template <>
struct LargeSharedMemoryBackwardConfig<128>
    : DiagonalBandMaskPass<NarrowClassDq128<NarrowClassWork<NarrowStepClasses<
          ScoreStatisticsAhead<ZeroStartAccumulators<StagedEpilogue<ScorePassesTile128>>,
                               kStatisticsAheadAt128>,
          kFirstStepClassAt128, kLastStepClassAt128, true>>>>,
      FusedDqConversionOption {};
// v41 (twenty-second session, bwd192-lines): DqReductionsByLine at 192, 8 staging rows per round
// (one (row tile, half) pair: 4 rounds per query tile, 3 LDS.128 and 3 REDG.128 each), 12 KB of
// staging on 192's 161 KB: 173 KB, Hopper only. v40's ncu (bench/results/sm80-bwd192-tile-h100-
// 2026-11-24-s22/call1) put the gap to FA2 on the REDG.64 burst of DqAtomicsFromOneAddress (24 per
// thread and query tile, 249 k of 1.16 M stall samples, mostly lg_throttle, against FA2's 82 k;
// ~70 k on the address rewrite behind it). The 32 x 48 dQ warp tile's rows are 12 chunks of 16
// bytes, which do not divide the warp: DqPeriodicLineRounds (backward_dq_lines.cuh) runs its
// REDG.128 over 32 consecutive chunks of the row-major slice, 12 per thread and query tile where
// the burst had 24 REDG.64, each over 16 whole sectors instead of 8 rows x 32 bytes. More rows per
// round (16: 185 KB, 32: 209 KB) hold 24 / 48 loaded registers instead of 12 next to dK + dV and
// the partial; 128 measured the whole slice at once 0.98-1.03 against 8 rows' 1.01-1.07. ptxas: 0
// spills on sm_80 and sm_90a, bf16 and fp16 (full-width 242-254 registers, v40's 244-255). The
// deterministic mode runs the same kernels (the rounds between the chain's poll and its
// barrier-then-release, as at 128 and 256). Measured (H100, fp16, B = 16, H = 16, bwd in turns
// beside v40 and FA2, call 4): 192 / 176 / 144 at 2k x1.084 / 1.084 / 1.086, 192 causal 1.087,
// 512 causal 1.066, 8k 1.085, bf16 1.088; deterministic 192 / causal x1.108 / 1.125. 16-row
// rounds (185 KB) x1.049-1.070: 8 taken.
// Measured on top (call 8): WarpSearchedQueryRange 1.000-1.017 (noise), not taken.
// v43 (twenty-third session, desk prep bwd192-next-a, bench/results/sm80-s23-h100-call1/):
// ScoreStatisticsAhead with ScorePassesByQueryTile, one query tile ahead in both passes (as at
// 128; 256 reads ahead in the exponent pass only, its NoMask kernels spilled with both). v42's
// ncu put 15 k stall samples on the statistics' FFMA (short scoreboard on the LDS of their LSE /
// D_i pair, read right after the previous tile's Pᵀ / dSᵀ stores). Measured in turns beside v42
// and FA2: x1.009-1.019 (192 / causal / 144 at 2k, 512 causal, 8k); 0 spills. Not taken on top:
// the rounds' LDS.128 one round ahead of their REDG.128 (DqLineRoundsLoadAhead) 0.983-0.998,
// with this 1.000-1.008; the rounds between dK's query steps with forced boundaries 0.99-1.01.
inline constexpr int kDqStageRowsAt192 = 8;
inline constexpr int kStatisticsAheadAt192 = 1;
template <>
struct LargeSharedMemoryBackwardConfig<192>
    : DqReductionsByLine<
          ScoreStatisticsAhead<ScorePassesByQueryTile<BackwardConfig<192>>, kStatisticsAheadAt192>,
          kDqStageRowsAt192> {};
// v22 (h11-bwd80b): StagedEpilogue at 256 (two 64 x 264 tiles, 66 KB of the 224 KB) in the
// default mode; the deterministic table takes it in its NoMask kernels only (its sm_90a
// WindowMask kernel spilled 4 bytes with it, bf16 and fp16; UnmaskedStagedEpilogue). Measured
// (h12-bwd80, in turns beside the table before it, 2 rounds): bwd 126.6 / 159.2 / 228.7 /
// 205.4 against 118.0 / 151.7 / 226.5 / 202.6 TFLOP/s at N = 512 causal / 1k causal / 4k / 4k
// causal (+7.3 / +4.9 / +1.0 / +1.4 %); instrumented epilogue 3,193-3,434 clocks per CTA.
// v32 (seventeenth session, h17-bwd256; bench/results/sm80-bwd-h100-2026-11-23-s17/NOTES.md): the
// dQ line staging without the STS.64 bank conflict (DqStagingPairSwizzle), its offsets split
// (LineStagingSwizzleSplit: a lane base XOR an immediate per dim tile), in both 256 tables.
// H100, bf16, B·N = 16384, H·D = 2048, bwd in turns beside the tables before it and FA2
// (bench/sm80_bwd_det_ratio.py --variant 172, 2 runs x 5 rounds): default 1.014 / 1.019 / 1.015 /
// 1.025 / 1.020 / 1.045 at N = 1k / 1k causal / 4k / 4k causal / 16k / 16k causal (geomean
// 1.023), deterministic 1.016-1.029 and bitwise the old tables' gradients; the swizzle alone
// (variant 171) 0.999-1.021 (geomean 1.004), the split offsets alone (v19's 191) 1.001-1.012.
using RangeSearchTile256 = WarpSearchedQueryRange<
    LineStagingSwizzleSplit<DqStagingPairSwizzle<LineReductionsTile256>>>;
// v26 (h13-bwd80; commit 258cc20 has it): warps 0-3 running the dQ product and its line rounds
// before phase B and warps 4-7 after it (one half reducing while the other multiplies) measured
// 0.97-0.99 at 256 (bwd in turns beside the table, N = 512 causal to 16k) and 0.94-0.96 at 128
// (1k causal, 4k, 4k causal): the rounds do not overlap other warps' products either.
// v27 (h13-bwd80b): MaskedStridedItemLoads (above; the LSE / D_i source carried). H100, bf16,
// B·N = 16384, H·D = 2048, bwd in turns beside the table before it (bench/sm80_bwd_det_ratio.py
// --variant 271, 2 rounds): 127.0 / 161.5 / 209.3 / 235.5 against 125.4 / 158.5 / 203.9 / 225.0
// TFLOP/s at N = 512 / 1k / 4k / 16k causal (+1.3 / +1.9 / +2.6 / +4.6 %); 4k non-causal 1.000
// (the NoMask kernel is the same).
// v28 (h13-bwd80c; bench/results/sm80-bwd-h100-2026-11-23-s13c/NOTES.md, commit 4384845 has it):
// the masked kernels' Q / dO source kept in an 8-byte shared-memory slot per thread (the 2 KB
// left of the H100's 227 KB) and read before the loop-top barrier instead of rebuilt per item:
// copy path 139 -> 111 instructions, instrumented copy issue 1,192 -> 1,023 clocks at 4k causal,
// but phase A and B ~75 clocks longer each (the kernel re-allocated), step 13,484 -> 13,467; bwd
// in turns 1.000-1.005 (default), 1.000-1.008 (deterministic) at N = 512 to 16k causal. Not taken.
// v31 (fifteenth session, h15-bwd80; bench/results/sm80-bwd-h100-2026-11-23-s15/NOTES.md):
// ScoreStatisticsAhead (with ScorePassesByQueryTile) one query tile ahead in both tables, the
// NoMask kernels in the exponent pass only: v30's both passes spilled 8 bytes there, the dSᵀ
// pass alone 12 (sm_90a); the exponent pass alone and the masked kernels' both passes 0. H100,
// bf16, B·N = 16384, H·D = 2048, bwd in turns beside the tables before it and FA2 (N = 512 to
// 16k): causal 1.005-1.011x default (16k 1.030 against a low table reading; ~1.02 against its
// other run), 1.007-1.010x deterministic; non-causal 1.004-1.006x default, 1.000-1.005x
// deterministic. Two tiles ahead (default mode) the same rates within 0.4 %.
constexpr int kStatisticsAheadAt256 = 1;
template <class Tile>
using StatisticsAhead256 = ScoreStatisticsAhead<ScorePassesByQueryTile<Tile>,
                                                kStatisticsAheadAt256, AheadPasses::exponent>;
// v44 (twenty-fourth session, desk prep bwd256; bench/results/sm80-s24-bwd256-prep/NOTES.md):
// GroupedPhaseATests, 4 steps a test below step 12 (the 256 bucket's narrowest head dim, 193,
// has 13 k-steps): 7 tests per pass instead of 15 (group 0 after ZeroStart's step 0, the groups
// at 4 and 8, steps 12-15). ptxas: 0 spills on sm_80 and sm_90a, fp16 and bf16 (252-255 registers);
// the other forms tried spilled or not by ptxas's allocation, not by a rule (the notes' table).
// Executed path of a NoMask tile (sm_90a): 1,189 -> 1,169 instructions per warp, BRA / NOP
// 43 / 44 -> 27 / 28, static stall cycles 4,871 -> 4,079. Measured (H100, in turns beside v43 and
// FA2, 3 runs; bench/results/sm80-s24-h100-call1/): backward x1.027 / 1.030 at N = 4k bf16
// (non-causal / causal), x1.019-1.024 at 1k, x1.030 fp16 2k, x1.027 at 16k; 0.927-0.962x FA2's
// backward (0.902-0.934 before).
inline constexpr int kPhaseATestGroupAt256 = 4;
inline constexpr int kNarrowestHeadDimAt256 = 193;  // the 192 bucket takes D <= 192
// s25 (desk prep bwdnarrow): dQ step classes 13 and 14 (D = 193..224) in the default table, the
// chunks of the last slice past the class unsent (DqStepClasses, ClassDqChunkTests).
inline constexpr int kFirstDqStepClassAt256 = 13;
inline constexpr int kLastDqStepClassAt256 = 14;
template <>
struct LargeSharedMemoryBackwardConfig<256>
    : ClassDqChunkTests<DqStepClasses<
          StatisticsAhead256<MaskedStridedItemLoads<StagedEpilogue<GroupedPhaseATests<
                                 RangeSearchTile256, kPhaseATestGroupAt256, kNarrowestHeadDimAt256>>,
                             false>>,
          kFirstDqStepClassAt256, kLastDqStepClassAt256>> {};

}  // namespace fattn::detail::sm80
