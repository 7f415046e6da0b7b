// Tile sizes of the sm80 forward, one entry per head-dim bucket, and the vocabulary the
// backward's table (backward_tile_config.hpp) shares.
//
// Buckets are 64, 128, 192 and 256: the swizzled shared-memory rows must be whole 128-byte
// groups (64 elements), and every kernel skips, at run time, the 16-wide k-steps and 8-wide
// output columns past round_up(head_dim, 16). A head dim of 72 therefore runs the 128 bucket's
// code but does the work of 80 columns (72 in the forward's HalfLastStep tiles), so odd head
// dims stay close to the throughput of the next multiple of 64 without a bucket per size (each
// bucket costs CI compile time).
//
// Register budget (per thread, fp32 accumulators): forward O = rows_per_warp·width/32 and
// S = rows_per_warp·block_n/32; the rest (fragments, addresses, softmax state) takes ~40.
// Shared memory: forward Q + K + V tiles, one buffer each.
#pragma once

#include <type_traits>

#include "api/device_query.hpp"

namespace fattn::detail::sm80 {

inline constexpr int kWarpSize = 32;
inline constexpr int kMmaM = 16;  // rows of one m16n8k16 tile
inline constexpr int kMmaN = 8;   // columns of one m16n8k16 tile
inline constexpr int kMmaK = 16;  // reduction depth of one m16n8k16 tile

// Ascending numbers of 16-wide k-steps for which the forward compiles a walk with no run-time
// column tests (see ForwardTile).
template <int... kSteps>
struct StepClasses {};

// Forward: a CTA owns kBlockM query rows and walks K/V in tiles of kBlockN keys; each of kWarps
// warps owns kRowTiles·16 consecutive rows, so the online softmax never leaves the warp.
// kFullWidthPath: also compile a walk for head_dim == bucket with no run-time column tests and
// the P·V loops ordered for the most independent accumulators (more registers: off where that
// walk would spill). kNarrowStepsArg...: the same walk for head dims of that many 16-wide steps
// (ascending, below the bucket's); a head dim runs the smallest class that covers it (columns
// past it zero-filled) and the general walk (a branch per 16 columns) only above all of them.
// Each class is one more copy of the walk per kernel: compile time, hence only where measured.
template <int kWidthArg, int kBlockNArg, int kWarpsArg, int kRowTilesArg,
          bool kFullWidthPathArg = false, int... kNarrowStepsArg>
struct ForwardTile {
  static constexpr bool kFullWidthPath = kFullWidthPathArg;
  using NarrowStepClassList = StepClasses<kNarrowStepsArg...>;
  using StepClassList =
      std::conditional_t<kFullWidthPathArg, StepClasses<kNarrowStepsArg..., kWidthArg / kMmaK>,
                         NarrowStepClassList>;
  static constexpr int kWidth = kWidthArg;        // head-dim bucket = shared row width
  static constexpr int kBlockN = kBlockNArg;      // keys per K/V tile
  static constexpr int kWarps = kWarpsArg;
  static constexpr int kRowTiles = kRowTilesArg;  // 16-row mma tiles per warp
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kRowsPerWarp = kRowTiles * kMmaM;
  static constexpr int kBlockM = kWarps * kRowsPerWarp;
  static constexpr int kSharedBytes = (kBlockM + 2 * kBlockN) * kWidth * 2;
};

inline constexpr int kBytesPerFloat = 4;

// Tile options are wrappers that derive from the tile (whose constants they keep or adjust) and
// from an empty tag; the kernels ask for the tag. Options nest: FewerLiveRegisters<
// RowStatsInSharedMemory<ForwardTile<...>>> has both.
template <class Config, class Option>
inline constexpr bool has_option = std::is_base_of_v<Option, Config>;

// A register-lean forward tile: the running row max and sum live in shared memory after the
// K/V tiles (2·2·kRowTiles floats per thread) instead of registers, the general walk is not
// compiled where the step classes cover the bucket (dead code that ptxas still allocated
// registers for), and on sm_80 the fragment addresses take one register each. This is what
// fits two row tiles per warp with 128 keys (D = 64) without spills (forward_kernel.cuh).
struct RowStatsInSharedMemoryOption {};
template <class Tile>
struct RowStatsInSharedMemory : Tile, RowStatsInSharedMemoryOption {
  static constexpr int kRowStatsOffset = Tile::kSharedBytes;
  static constexpr int kSharedBytes =
      Tile::kSharedBytes + 2 * 2 * Tile::kRowTiles * Tile::kThreads * kBytesPerFloat;
};

template <class Config>
constexpr bool row_stats_in_shared_memory() {
  return has_option<Config, RowStatsInSharedMemoryOption>;
}

// A tile that trades a few instructions for registers, where that is what fits it without
// spills (forward_kernel.cuh): the fragment addresses take one register each on every arch
// (XorFragmentAddress: 9 registers fewer for one LOP3 per ldmatrix of a phase other than 0;
// RowStatsInSharedMemory tiles do this on sm_80 only), and the partial-tile mask recomputes its
// rows' key bounds on each partial tile (a few instructions on the diagonal tiles only) instead
// of holding 2·2·kRowTiles loop-invariant bounds across the loop.
struct FewerLiveRegistersOption {};
template <class Tile>
struct FewerLiveRegisters : Tile, FewerLiveRegistersOption {};

template <class Config>
constexpr bool fewer_live_registers() {
  return has_option<Config, FewerLiveRegistersOption>;
}

// A tile launched only for head dims its step classes cover (NarrowForwardConfig: the launch
// picks it by the largest class): the general walk would be dead code, so it is not compiled
// (ptxas allocates registers for the kernel as a whole).
struct StepClassesOnlyOption {};
template <class Tile>
struct StepClassesOnly : Tile, StepClassesOnlyOption {};

template <class Config>
constexpr bool step_classes_only() {
  return has_option<Config, StepClassesOnlyOption>;
}

// O stored from the accumulator registers, 4 bytes per store (the kernels' epilogue before v5;
// now only for rows that are not whole 16-byte chunks, and for measuring: bench/sm80_variants.cu).
struct DirectOutputStoresOption {};
template <class Tile>
struct DirectOutputStores : Tile, DirectOutputStoresOption {};

template <class Config>
constexpr bool direct_output_stores() {
  return has_option<Config, DirectOutputStoresOption>;
}

// Whole K/V tiles of whole 16-byte chunks (head_dim % 8 == 0, rows 16-byte aligned) copied from
// per-thread sources computed once per CTA and kept in shared memory after the tile's other
// data (16 bytes per thread: K's and V's), with the predicate form of cp.async. Per K/V tile this
// replaces, at FewerLiveRegisters tiles, the recomputed row pointers (a 32-bit division by the
// GQA group size each, ~45 instructions) and, at every tile, the zero-fill count that ptxas adds
// to each copy's 64-bit address (2 instructions per LDGSTS): sm_90a SASS of the D = 128 loop,
// 241 of ~1075 instructions per tile went to 16 LDGSTS (forward_kernel.cuh). Taken at 128
// (with the narrow tile) and 192, where it measured faster; not at 64 and 256 (see there).
struct KvSourcesInSharedMemoryOption {};
template <class Tile>
struct KvSourcesInSharedMemory : Tile, KvSourcesInSharedMemoryOption {
  static constexpr int kKvSourcesOffset = Tile::kSharedBytes;
  static constexpr int kSharedBytes =
      Tile::kSharedBytes + 2 * Tile::kThreads * static_cast<int>(sizeof(void*));
};

template <class Config>
constexpr bool kv_sources_in_shared_memory() {
  return has_option<Config, KvSourcesInSharedMemoryOption>;
}

// ClassWideKvCopies (twenty-third session, s23-narrow; bench/results/sm80-s23-narrow-prep/
// NOTES.md): the whole K/V tiles of a KvSourcesInSharedMemory tile with one step class (and
// StepClassesOnly) copied with as many lanes per row as the class has chunks, instead of the
// next power of two: at the 128 bucket's 5-step class, 10 lanes x 12 rows per pass (120 of 128
// threads, 11 passes per 128 keys) instead of 16 x 8 with 6 of 16 lanes idle (16 passes), the
// passes in two swizzle phases (TileCopyLanes::kTwoPhases). Per 128-key tile and thread 22
// LDGSTS instead of 32, each with its 64-bit source step (sm_90a SASS of the D = 80 NoMask loop).
struct ClassWideKvCopiesOption {};
template <class Tile>
struct ClassWideKvCopies : Tile, ClassWideKvCopiesOption {};

template <class Config>
constexpr bool class_wide_kv_copies() {
  return has_option<Config, ClassWideKvCopiesOption>;
}

// KeyCopiesUnderPv (twenty-third session, s23-narrow; same notes): in a class's walk, the next
// K tile's copies (whole tiles of 16-byte-aligned rows) issued between the first
// kKeyCopyKeySteps key steps of P·V instead of right after the tile's second barrier, before the
// row max. At the one-CTA 8-warp tile (LargeSharedMemoryNarrowForwardConfig<256>) every warp
// leaves that barrier together and issued ~100 instructions of copies (16 LDGSTS with their
// address and zero-fill terms, sm_90a SASS) before its softmax, while the tensor pipe waited
// for all of them; under P·V they take issue slots between HMMAs. K_{j+1} then has the rest of
// P·V_j to land instead of the softmax and all of P·V_j (the next tile's first barrier waits
// for it). Head dims of whole chunks only (the predicate form of cp.async, WholeTileCopy);
// others and partial tiles keep the copy where it is. A KvSourcesInSharedMemory tile issues them
// from its K source there (twenty-fifth session: ForwardConfig<192>).
inline constexpr int kKeyCopyKeySteps = 4;
struct KeyCopiesUnderPvOption {};
template <class Tile>
struct KeyCopiesUnderPv : Tile, KeyCopiesUnderPvOption {};

template <class Config>
constexpr bool key_copies_under_pv() {
  return has_option<Config, KeyCopiesUnderPvOption>;
}

// QueryTilesSlowestInHeadGroups (ninth session, h9-fwd80; bench/results/sm80-fwd-h100-2026-11-22-
// s9/NOTES.md): under a right-bounded mask (causal, a window with a right edge) a query tile's
// work grows with its index, and the grid order (query tile fastest, heaviest first within each
// (query head, batch) pair) starts the heavy tiles of the grid's last pairs only as the grid
// drains, so they end it alone. Here the launch gives the masked kernels a grid in which
// kGroupHeads query heads of a batch at a time run with the query tile slowest, heavy first, as
// the backward's KeyTilesSlowestInHeadGroups does for its key tiles (forward_grid in forward.cuh;
// only where heads_q is a multiple of kGroupHeads, else the grid order). kGroupHeads is a power of
// two, so the CTA's tile comes out of shifts: a first form over (head, batch) pairs, with five
// integer divisions per CTA, measured 0.97-0.98x the grid order at N = 1k, where the tail is
// negligible. The query rows, which the register-lean kernels re-read per K/V tile from the block
// index (rematerialized for free), are kept in a shared-memory word per thread
// (kQueryRowSlotOffset); the lean tile's epilogue recomputes the head and batch, the others hold
// them (recomputed there, the 64 tile's WindowMask kernel spilled 20 bytes on sm_90a).
// The group size chosen at launch instead (ninth session, second round, h9-fwd80b: the smallest
// group filling the GPU's CTA slots half or once, or the largest whose K/V fit half of L2)
// measured 0.963-1.004x these fixed groups and was removed; its patch is in
// bench/results/sm80-fwd-h100-2026-11-22-s9b/variants/.

struct QueryTilesSlowestInHeadGroupsOption {};
template <class Tile, int kGroupHeadsArg>
struct QueryTilesSlowestInHeadGroups : Tile, QueryTilesSlowestInHeadGroupsOption {
  static constexpr unsigned kGroupHeads = kGroupHeadsArg;
  static constexpr int kQueryRowSlotOffset = Tile::kSharedBytes;
  static constexpr int kSharedBytes = Tile::kSharedBytes + Tile::kThreads * kBytesPerFloat;
};

template <class Config>
constexpr bool query_tiles_slowest_in_head_groups() {
  return has_option<Config, QueryTilesSlowestInHeadGroupsOption>;
}

// HalfLastStep (ninth session, h9-fwd80; same notes): a head dim that fills a step class to
// within 8 columns of its last 16-wide step (head_dim % 16 in 1..8: 72, 136, 200) runs that step
// as m16n8k8 in Q·Kᵀ and as one 8-column tile instead of two in P·V: at D = 72, 144 instead of
// 160 k16-equivalent mma per 16 rows and 16 keys (-10 %); 136: -5.6 %, 200: -3.8 %. Each step
// class of the tile gets a second copy of the walk (registers: the kernel is allocated whole).
struct HalfLastStepOption {};
template <class Tile>
struct HalfLastStep : Tile, HalfLastStepOption {};

template <class Config>
constexpr bool half_last_step() {
  return has_option<Config, HalfLastStepOption>;
}

// HalvedWalkOnly (tenth session, second round, h10-odd80b): a HalfLastStep tile launched only for
// head dims that halve the last step of its largest class (forward.cuh picks it by
// halves_largest_class): only the halved walk is compiled, since the whole one, dead code there,
// still costs registers (ptxas allocates the kernel as a whole).
struct HalvedWalkOnlyOption {};
template <class Tile>
struct HalvedWalkOnly : HalfLastStep<Tile>, HalvedWalkOnlyOption {};

template <class Config>
constexpr bool halved_walk_only() {
  return has_option<Config, HalvedWalkOnlyOption>;
}

// EpilogueWarpRowAfresh (same round): the epilogue takes the warp's first row afresh from the
// thread index instead of holding it across the walk, one register fewer in the loop: at the
// unmasked 128-key tile with the halved walk it was what ptxas spilled (4 bytes on sm_90a,
// stored before the loop and reloaded after it). The D = 64 table tile's O stores through shared
// memory spilled 8 bytes on sm_80 (NoMask) for the same reason; with this option 0 (v13).
struct EpilogueWarpRowAfreshOption {};
template <class Tile>
struct EpilogueWarpRowAfresh : Tile, EpilogueWarpRowAfreshOption {};

template <class Config>
constexpr bool epilogue_warp_row_afresh() {
  return has_option<Config, EpilogueWarpRowAfreshOption>;
}

// WholePrologueCopies (thirteenth session, h13-fwd80; bench/results/sm80-fwd-h100-2026-11-23-
// s13/NOTES.md): the prologue's Q tile and first K tile, when whole and of 16-byte-aligned rows,
// copied by load_whole_tile (the key-tile loop's copy, no per-row sequence-end tests) instead of
// load_tile. sm_90a SASS of the D = 256 NoMask kernel: ~1200 instructions before the first K/V
// tile, 32 of them LDGSTS, most of the rest the per-row tests and selects of load_tile's 32 copies;
// ncu at N = 512 had that kernel issuing 84.8 M instructions against FA2's 67.5 M. A per-CTA cost:
// it shows at N = 512 (8 key tiles per CTA at 256), not at 2k and above.
struct WholePrologueCopiesOption {};
template <class Tile>
struct WholePrologueCopies : Tile, WholePrologueCopiesOption {};

template <class Config>
constexpr bool whole_prologue_copies() {
  return has_option<Config, WholePrologueCopiesOption>;
}

// RescalePastThreshold (fourteenth session, h14-fwd80; bench/results/sm80-fwd-h100-2026-11-23-
// s14/NOTES.md): the running row max m is raised only where a row's tile max passes it by more
// than kRescaleThreshold (log2 units), and a warp rescales its O and row sums only on a tile
// where one of its rows does (one vote per tile); elsewhere P = 2^(S·c - m) with the stale m,
// below 2^kRescaleThreshold = 256 (fp16 and bf16 hold it; the sums and O are fp32), and the LSE
// takes the same m, so O and the LSE are the same softmax (FlashAttention-4's conditional
// rescale). Per K/V tile and warp this skips the rescale of every O accumulator (FMUL: 128 per
// 64 keys at the D = 128 table) and of the sums with their MUFU and shared-memory round trip.
// kUnmaskedOnly: the masked kernels (WindowMask) keep the exact rescale on every tile; the 256
// table's causal kernel measured 0.977-0.991 with it, the 128 table's 1.013-1.042.
inline constexpr float kRescaleThreshold = 8.0f;
struct RescalePastThresholdOption {};
template <class Tile, bool kUnmaskedOnlyArg = false>
struct RescalePastThreshold : Tile, RescalePastThresholdOption {
  static constexpr bool kRescaleUnmaskedOnly = kUnmaskedOnlyArg;
};
template <class Tile>
using UnmaskedRescalePastThreshold = RescalePastThreshold<Tile, true>;

// Whether the kernel of Config for a mask (kMasked: not NoMask) takes RescalePastThreshold.
template <class Config, bool kMasked>
constexpr bool rescale_past_threshold() {
  if constexpr (has_option<Config, RescalePastThresholdOption>) {
    return !(kMasked && Config::kRescaleUnmaskedOnly);
  } else {
    return false;
  }
}

// ExponentsUnderPv (fifteenth session, h15-d72; bench/results/sm80-d72-h100-2026-11-23-s15/
// NOTES.md): in a class's walk, the exponentials (and P's packing) of P·V's key step k + 1 come
// between the mma's of key step k in program order, each row's sum in a register until the
// tile's end (the same order of additions). Otherwise ptxas puts every MUFU.EX2 of the tile
// before the first P·V HMMA (sm_90a SASS of the D = 65..72 tile: 128 MUFU, 128 FFMA and 128 FADD,
// then 144 HMMA): a warp-wide MUFU holds its scheduler's MUFU unit 8 cycles, ~1000 cycles per
// warp and tile with the warp's tensor work waiting. With the option the MUFU run under the
// tensor cores inside the warp.
// kUnmaskedOnly: the masked kernels (WindowMask) keep the exponentials before P·V, where the
// option spills in them (NarrowForwardConfig<128>: 20-28 bytes).
// Taken where ptxas put the exponentials before P·V: the two-row-tile tiles (D = 65..72 unmasked,
// NarrowForwardConfig<128> unmasked). The one-row-tile tiles (ForwardConfig<192> / <256>,
// NarrowForwardConfig<192>, LargeSharedMemoryNarrowForwardConfig<256>; 0 spills with it) already
// had them between the P·V mma's (at most 10-12 MUFU in a row) and measured within the noise
// (h15-eupv, bench/results/sm80-eupv-h100-2026-11-23-s15/NOTES.md: H100 fp16 B = 16, H = 16,
// N = 2048, D = 136 0.997, 192 1.009 / causal 0.995, 200 1.005 / 1.006, 256 1.001 / 1.002, 129
// packed 0.999; bf16 B·N = 16384, D = 192 / 256 at N = 512 1.000 / 1.000, 8k 1.005 / 0.996;
// the same kernel on both sides, D = 128, 1.011): not taken.
struct ExponentsUnderPvOption {};
template <class Tile, bool kUnmaskedOnlyArg = false>
struct ExponentsUnderPv : Tile, ExponentsUnderPvOption {
  static constexpr bool kExponentsUnmaskedOnly = kUnmaskedOnlyArg;
};
template <class Tile>
using UnmaskedExponentsUnderPv = ExponentsUnderPv<Tile, true>;

// Whether the kernel of Config for a mask (kMasked: not NoMask) takes ExponentsUnderPv.
template <class Config, bool kMasked>
constexpr bool exponents_under_pv() {
  if constexpr (has_option<Config, ExponentsUnderPvOption>) {
    return !(kMasked && Config::kExponentsUnmaskedOnly);
  } else {
    return false;
  }
}

// RowMaxByPairs (same session): a thread's share of a row's tile max as a tree of pairwise maxes
// (depth log2(2·kBlockN/8)) spelled out by template recursion (pairwise_tile_max: no array
// indexed in a loop, which put a first tree on a 64-byte stack frame), instead of a chain of
// kBlockN/8 dependent FMNMX per row (at the 128-key tile 4 chains of 16, interleaved 8 issue
// slots apart). Alone it measured 1.001-1.005 at D = 72 (the chain was not what the tile waited
// on); it is in the tile with ExponentsUnderPv as measured and tested together (4 FMNMX fewer).
struct RowMaxByPairsOption {};
template <class Tile>
struct RowMaxByPairs : Tile, RowMaxByPairsOption {};

template <class Config>
constexpr bool row_max_by_pairs() {
  return has_option<Config, RowMaxByPairsOption>;
}

template <int kHeadDimBucket>
struct ForwardConfig;

// Measured on the H100 (bf16, N = 4096, B = 4, H = 2048/D, forward TFLOP/s non-causal / causal,
// bench/sm80_vs_torch.py --variants; docs/perf-notes.md has the runs). A configuration that
// spills (local memory in the hot loop, which the audit forbids) is not taken even when faster.
// 64: FA2's tile, 128 keys x 4 warps x 2 row tiles with the full-width walk (every head dim
// <= 64 runs it, columns past head_dim zero-filled), the row max/sum in shared memory so that it
// fits the registers (0 spills on sm_80 and sm_90a, 255 registers; 52 KB of shared memory, two
// CTAs per SM). v4.1, B·N = 16384, N = 1k / 4k / 16k: non-causal 269 / 317 / 327, causal 214 /
// 285 / 320 (0.95-1.08x PyTorch's flash); the same run's 64-key tile of v4 (2 row tiles, full
// width, row statistics in registers) measured 0.94-1.00x this, and v3's general walk 0.69-0.77x.
// 128 keys x 8 warps x 1 row tile measured 0.82-0.90x v4's 64-key tile (twice the ldmatrix per
// HMMA).
// v5: O is stored from the registers here (DirectOutputStores): the epilogue through shared
// memory spills 8 bytes on sm_80 at this tile (12-32 bytes with FewerLiveRegisters as well);
// on the H100 it measured 0.97-1.02x this (B·N = 16384, N = 1k / 4k / 16k x causal).
// v6: KvSourcesInSharedMemory measured 0.99-1.04x this (1229 -> 1167 instructions per tile) and
// spills 12 bytes in its sm_80 WindowMask kernel: not taken (bench/sm80_variants.cu variant 4).
// v7 (ninth session): QueryTilesSlowestInHeadGroups of 8 heads at 64 and 128, 4 at 256 (the
// masked kernels' grid; NoMask unchanged). H100, bf16, B·N = 16384, H·D = 2048, causal, in turns
// beside the v6 table (bench/results/sm80-fwd-h100-2026-11-22-s9/NOTES.md, call 2), N = 1k / 4k /
// 8k / 16k: 64 1.000 / 1.022 / 1.033 / 1.031, 128 1.009 / 1.117 / 1.118 / 1.107, 256 1.001 /
// 1.103 / 1.086 / 1.006 (/ flash: 64 1.02-1.10, 128 1.03-1.15, 256 1.00-1.20). A list schedule
// of the CTAs on 264 slots predicted 1.011 / 1.074 / 1.069 / 1.057, 1.011 / 1.148 / 1.138 /
// 1.114, 1.012 / 1.138 / 1.114 / 1.007. Groups of 2 measured 1.022 over 8 at 128 / 16k and 4
// matched 8 at 8k (a group's CTAs need only fill the GPU once); 8 is best at 4k.
// v13 (thirteenth session, h13-fwd80): WholePrologueCopies at 64, 128 and 256, and at 64 O through
// shared memory (EpilogueWarpRowAfresh instead of DirectOutputStores: 0 spills on sm_80 and
// sm_90a). H100, bf16, B·N = 16384, H·D = 2048, in turns beside the v12 table (shim variant 50),
// non-causal N = 512 / 1k / 2k / 4k / 8k / 16k: 64 1.036 / 1.016 / 1.004 / 0.999 / 0.995 / 0.997
// (its parts at 512: whole prologue copies 1.018, the epilogue 1.021), 128 1.012 / 1.008 / 1.011
// / 0.980 / 0.990 / 1.002, 256 1.015 / 1.006 / 1.003 / 1.010 / 0.994 / 1.003; causal 64 / 1k
// 1.039, 256 / 512 1.042, 128 / 4k 0.997 (points from 2k on share the loop; their ±2 % is the
// turns' spread). Against PyTorch's flash at N = 512: 64 0.971 -> 1.006, 128 0.981 -> 0.993,
// 256 0.950 -> 0.964 (non-causal), 256 causal 0.971 -> 1.011.
inline constexpr int kForwardGroupHeads = 8;
inline constexpr int kForwardGroupHeads256 = 4;
// v15 (fourteenth session, h14-fwd80): RescalePastThreshold measured 0.994 / 0.991 at N = 512
// non-causal / causal (bf16, B·N = 16384), 1.02 at 2k-4k: not taken (the short walks pay the
// vote and the split softmax block without enough tiles to skip).
template <>
struct ForwardConfig<64>
    : QueryTilesSlowestInHeadGroups<
          WholePrologueCopies<
              EpilogueWarpRowAfresh<RowStatsInSharedMemory<ForwardTile<64, 128, 4, 2, true>>>>,
          kForwardGroupHeads> {};
// 128: 128 keys x 8 warps x 1 row tile, with the full-width walk: 308 / 265 (without it 234 /
// 209); with v4's tile copies 283 / 317 / 332 non-causal, 212 / 271 / 322 causal at N = 1k /
// 4k / 16k (1.10-1.15x v3; 0.86-1.05x flash). 64 keys x 4 warps x 2 row tiles measured 262 /
// 221 without the full-width walk but spills 88-132 bytes (with it 176-252, also after v4);
// 32 keys x 4 x 2 234 / 200; 64 keys x 8 x 1 with the walk 267 / 238.
// O = 64 and S = 64 registers; 96 KB of shared memory, one CTA of 8 warps per SM.
// v5: FA2's D = 128 tile, 64 keys x 4 warps x 2 row tiles (each K/V fragment feeds four mma's
// instead of two: 80 ldmatrix per 256 HMMA per warp instead of 136), made to fit by
// RowStatsInSharedMemory and FewerLiveRegisters: 0 spills on sm_80 and sm_90a, 255 registers,
// 68 KB of shared memory, two CTAs of 4 warps per SM. Every head dim 97..128 runs its
// full-width walk (columns past head_dim zero-filled). B·N = 16384, N = 1k / 4k / 16k, with
// v5's epilogue: non-causal 315 / 351 / 360, causal 239 / 296 / 328 (1.00-1.14x the 128-key
// tile above with v4's epilogue; the 128-key tile with v5's epilogue 0.86-1.02x this).
// v6 (fifth session): KvSourcesInSharedMemory, 1075 -> 947 instructions per K/V tile per warp
// (sm_90a SASS of the loop; ncu: 10 % fewer executed instructions, 538 -> 510 us at N = 1k, as
// PyTorch's flash's 509). H100, bf16, B·N = 16384, this / v5 in the same rows, three runs in two
// calls, N = 1k / 4k / 16k: non-causal 0.95-1.05 / 0.99-1.06 / 1.00-1.04, causal 1.05-1.06 /
// 1.04 / 1.06-1.07 (docs/perf-notes.md "Forward v6").
// v15 (fourteenth session, h14-fwd80): RescalePastThreshold, both masks. H100, in turns beside
// the v14 table (5 runs): fp16 B = 16, H = 16, N = 2048 1.065, causal 1.042; bf16 B·N = 16384,
// N = 512 1.025 (causal 1.013), 4k 1.023 (causal 1.019), 16k 1.050.
template <>
struct ForwardConfig<128>
    : RescalePastThreshold<QueryTilesSlowestInHeadGroups<
          WholePrologueCopies<KvSourcesInSharedMemory<
              FewerLiveRegisters<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, true>>>>>,
          kForwardGroupHeads>> {};
// 192 and 256: two row tiles would need 192/256 accumulator registers for O alone, so one row
// tile per warp and 8 warps keep the 128-row Q tile (K/V reuse across rows) at O = 96/128
// registers. Shared memory 96 KB / 128 KB also fits sm_80's 163 KB per block. Measured: 64 keys
// beat 32 keys at 256 (240 / 200 vs 199 / 177) and 4-warp 64-row tiles at 192 and 256 (175 /
// 154 and 196 / 176: half the K/V reuse). The full-width walk: 276 / 246 vs 214 / 186 at 192.
// At 256 it spilled 150-200 bytes until v4's tile copies freed the registers (247 / 250 now, no
// spills): 276 / 312 / 322 non-causal, 207 / 251 / 325 causal at N = 1k / 4k / 16k, 1.28-1.34x
// the general walk (0.86-1.14x flash). Head dims 193..255 run it too (zero-filled columns).
// v6: KvSourcesInSharedMemory (0 spills, 223-251 registers on sm_80 and sm_90a); H100, bf16,
// this / v5 in the same rows: B·N = 16384, N = 1k-16k x causal 0.98-1.02 (12 points, two runs,
// mean 1.01); B = 16, H = 16, N = 2048: D = 136 1.02-1.03, 192 1.03-1.04.
// v7 (ninth session): HalfLastStep (D = 129..136 in the 9-step class, 177..184 in the 12-step
// one: GPU test d180_causal, added after the session's last call); bf16, B = 16, H = 16,
// N = 2048, in turns beside the v6 table: D = 136 1.049 / 1.050 (two calls; 192 itself 1.004 /
// 0.994, the same kernel).
// v15: RescalePastThreshold in the unmasked kernel: B = 16, H = 16, N = 2048, fp16 1.020, bf16
// 1.009 (the masked kernel not measured with it: unchanged).
// Twenty-fifth session (desk work s25-fwd192, bench/results/sm80-s25-fwd192-prep/NOTES.md):
// D = 145..192 unmasked (UnmaskedForwardConfig<192> below) on 128 keys x 8 warps instead of 64,
// as the narrow tiles at D = 136 (v9: 1.072) and D = 200 (v9: 1.112) took it: the per-tile
// work that does not grow with the head dim (two barriers, the copies' setup, the row max's
// shuffles and the vote, the loop's branch) paid per 128 keys. sm_90a SASS of the 12-step loop,
// per 64 keys x 16 rows: 778 -> 663 instructions (~567 -> ~524 on the steady-state path), BAR
// 2 -> 1, for the same 192 HMMA.
// FA2's D = 192 tile is the old one (128 rows x 64 keys x 8 warps); the 8 warps of the one CTA
// per SM leave each barrier together, so the path from a barrier to the next mma is paid by the
// whole SM. S + O = 64 + 96 registers: 242 on sm_80 and sm_90a, 0 spills; 148 KB of shared
// memory (sm_80 takes 163 KB per block), one CTA of 8 warps per SM as before.
// The 9-step class is not compiled here: aligned rows of D <= 144 run NarrowForwardConfig<192>.
// KeyCopiesUnderPv on top (from the K source in shared memory): the 16 LDGSTS of K_{j+1} with
// their ~35 address terms leave the path from the tile's second barrier to its first P·V HMMA
// for the slots between P·V's mma's, as at LargeSharedMemoryNarrowForwardConfig<256> (v24).
// Measured (H100, forward in turns beside 221b474 and FA2, 3 runs; bench/results/
// gpu-check-h100-2026-11-24-session25/call6/): D = 192 fp16 2k x1.099 (0.950 -> 1.044x FA2),
// bf16 4k x1.107, bf16 512 x1.088, D = 160 x1.107, 184 x1.116; causal 192 and D = 136 (other
// kernels) 0.99-1.00. Without KeyCopiesUnderPv x1.066-1.122, the D = 200 recipe (K/V sources
// in registers) x1.101-1.150: within about 1 % of this in geomean, so the table keeps this one.
// s25-fwd192c (desk work, bench/results/sm80-s25-fwd192c-prep/NOTES.md): the masked kernels
// (causal, windows) on 128 keys too, for the same reason. A causal diagonal costs no more mma than
// on 64 keys: the CTA's 128 rows meet the same 128 diagonal keys either way. With the exact
// rescale (the 256 table's causal kernel measured RescalePastThreshold at 0.977-0.991) and the K
// copies after the barrier: with KeyCopiesUnderPv the exact rescale spilled 64 bytes on sm_90a.
// WindowMask kernel 254 registers on sm_90a, 246 on sm_80, 0 spills, fp16 and bf16. Measured
// (H100, forward in turns beside main and FA2, 3 runs; bench/results/
// gpu-check-h100-2026-11-24-session25/call11/): causal 192 fp16 2k / bf16 4k / bf16 1k x1.116 /
// x1.121 / x1.104 (0.92 -> 1.02-1.05x FA2, 1.00 at 1k), 160 causal ~x1.12; the threshold with
// KeyCopiesUnderPv measured 2.3-3.1 % below this. The 9-step class stays out: aligned rows of
// D <= 144 run NarrowForwardConfig<192>, and on 128 keys it spilled 92-124 bytes.
// The 128-key tile both 192 kernels take (v26 unmasked, v27 masked); their options differ.
using KeyTile128At192 = HalfLastStep<KvSourcesInSharedMemory<ForwardTile<192, 128, 8, 1, true>>>;
template <>
struct ForwardConfig<192> : UnmaskedRescalePastThreshold<KeyTile128At192> {};
// 256, fourth session: FA2's tile, 64 rows x 4 warps, two CTAs per SM (ncu showed PyTorch's
// flash running it). With v4's copies and v5's epilogue it no longer loses to the 128-row tile:
// H100, bf16, B·N = 16384, two runs in one call, this / the 8-warp tile above: N = 512-4k
// 1.04-1.11x, 16k 0.95-1.00x (the K/V reuse of 128 rows only pays once the grid has many waves);
// same call vs PyTorch's flash, N = 512-16k causal and not: geomean 0.931 -> 1.016 / 1.017.
// 0 spills on sm_80 and sm_90a (249 / 255 registers).
// v6: KvSourcesInSharedMemory measured 0.96-1.01x this (939 -> 856 instructions per tile; the
// copies are a smaller share of the loop at 256, and the K/V row pointers are not recomputed
// here): not taken (bench/sm80_variants.cu variant 4).
// v15: RescalePastThreshold in the unmasked kernel only: bf16 B·N = 16384, N = 512 1.008, 4k
// 1.015, fp16 B = 16, H = 16, N = 2048 1.024; the causal kernel with it measured 0.991 / 0.977 at
// 512 / 4k, so it keeps the exact rescale.
template <>
struct ForwardConfig<256>
    : UnmaskedRescalePastThreshold<QueryTilesSlowestInHeadGroups<
          WholePrologueCopies<ForwardTile<256, 64, 4, 1, true>>, kForwardGroupHeads256>> {};

// The table's tile of the unmasked kernel (NoMask), where it differs from ForwardConfig: the
// masked kernels keep the latter; by default the same tile.
template <int kHeadDimBucket>
struct UnmaskedForwardConfig : ForwardConfig<kHeadDimBucket> {};
// 192: the unmasked kernel with KeyCopiesUnderPv and the rescale threshold (ForwardConfig<192>).
template <>
struct UnmaskedForwardConfig<192>
    : KeyCopiesUnderPv<RescalePastThreshold<KeyTile128At192>> {};

// Rows only 2-byte aligned (odd head dims in packed 16-bit tensors, misaligned views) run
// forward_kernel_unaligned_rows, whose tiles are copied as the aligned 16-byte words covering
// their rows into a shared-memory stage and realigned from there (UnalignedTileStage in
// tile_io.cuh). SharedMemoryStage reserves the K/V stage after the V tile: kBlockN rows of
// kWidth/8 + 1 words (a row that starts inside a word reaches one word further); the Q tile is
// staged once per CTA where K, V and their stage will be.
inline constexpr int kStageWordBytes = 16;
inline constexpr int kStageWordElements = 8;
template <class Tile>
struct SharedMemoryStage : Tile {
  static constexpr int kStageOffset = Tile::kSharedBytes;
  static constexpr int kStageBytes =
      Tile::kBlockN * (Tile::kWidth / kStageWordElements + 1) * kStageWordBytes;
  static constexpr int kSharedBytes = Tile::kSharedBytes + kStageBytes;
};

// History: until v10 the stage was held in registers across the math (kBlockN·kWidth/(2·kThreads)
// per thread: 32-key tiles at 192 and 256, the general walk elsewhere), H100, fp16, B = 16,
// H = 16, N = 2048: D = 129 98 TFLOP/s (0.37-0.39 of D = 192), 55 with the synchronous 16-bit
// copy before it (docs/perf-notes.md). Forward v11 (eleventh session, h11-pack80; bench/results/
// sm80-unaligned-h100-2026-11-23-s11/NOTES.md): the stage in shared memory frees those
// registers, so the tiles are the aligned kernel's where shared memory allows. H100, fp16,
// B = 16, H = 16, N = 2048, v10 in the same call: D = 129 101.9 -> 171.2 TFLOP/s (0.34 -> 0.57 of
// D = 192; PyTorch's flash, which pads by copying, 152), D = 143 184; ncu: 1.31x the
// instructions of D = 136's aligned kernel and 8.0 instead of 6.9 cycles per issue (the
// realignment runs between a copy's wait and the tile barrier, with 2 warps per scheduler).
template <int kHeadDimBucket>
struct StagedForwardConfig;
// 64 and 128: the v10 tiles (64 keys; the general walk at 64, classes 5 and 6 at 128).
template <>
struct StagedForwardConfig<64> : SharedMemoryStage<ForwardTile<64, 64, 4, 2>> {};
template <>
struct StagedForwardConfig<128> : SharedMemoryStage<ForwardTile<128, 64, 8, 1, false, 5, 6>> {};
// 192: the 9-step class (D = 129..144, HalfLastStep for 129..136) and the general walk above it
// on 64 keys x 8 warps: 121 KB, within sm_80's 163 KB per block (v10: 32 keys, the stage's
// registers spilled 56-72 bytes at 64). Devices that take more run
// LargeSharedMemoryStagedForwardConfig<192> for D <= 144.
template <>
struct StagedForwardConfig<192>
    : SharedMemoryStage<HalfLastStep<ForwardTile<192, 64, 8, 1, false, 9>>> {};
// 256: 64 keys x 8 warps (v10: 32), the general walk: 161 KB, within sm_80's 163 KB (the Q stage
// needs the K/V area of 64 keys). D = 255 178 TFLOP/s (flash 229; v10 not measured beside it).
template <>
struct StagedForwardConfig<256> : SharedMemoryStage<ForwardTile<256, 64, 8, 1>> {};

// The staged tile for devices whose blocks take more shared memory than StagedForwardConfig's
// (the launch asks the device, as for LargeSharedMemoryNarrowForwardConfig), for head dims of at
// most its largest step class; by default the same tile.
template <int kHeadDimBucket>
struct LargeSharedMemoryStagedForwardConfig : StagedForwardConfig<kHeadDimBucket> {};
// 192: D = 129..144 on NarrowForwardConfig<192>'s 128 keys x 8 warps (the aligned 9-step tile of
// v9): 194 KB (Q, K, V 144 KB + the 50 KB stage; the H100 takes 227 KB per block).
template <>
struct LargeSharedMemoryStagedForwardConfig<192>
    : SharedMemoryStage<HalfLastStep<StepClassesOnly<ForwardTile<192, 128, 8, 1, false, 9>>>> {};

// Head dims well below their bucket (at most the largest step class of this tile) run this tile
// instead of the table's, where the table's cannot take a step class: at 128, adding a 5- or
// 6-step walk to the 128-key kernel spills 4 bytes (sm_90a), the 64-key tile does not. H100,
// fp16, B = 16, H = 16, N = 2048, general walk -> this: D = 72 153 -> 175, 80 176 -> 192,
// 96 195 -> 215 TFLOP/s; and the 9-step class at 192: D = 136 172 -> 222 (PyTorch's flash 202).
template <int kHeadDimBucket>
struct NarrowForwardConfig : ForwardConfig<kHeadDimBucket> {};
// v5: D = 65..96 on two row tiles per warp (as the 64 and 128 tiles), launched only for its
// classes (no general walk): 0 spills, 237-251 registers. fp16, B = 16, H = 16, N = 2048:
// D = 72 191 -> 240, 80 214 -> 281, 96 233 -> 299 TFLOP/s (the 8-warp tile above -> this).
// v6: KvSourcesInSharedMemory with FewerLiveRegisters (without it the WindowMask kernel spilled
// 52 bytes on sm_90a; now 0 spills on sm_80 and sm_90a, 235-244 registers). bf16, B = 16,
// H = 16, N = 2048, this / v5: D = 72 1.03, 80 1.02, 96 1.06 (KvSourcesInSharedMemory alone,
// first call: 1.06, 1.06, 1.00).
// v7 (ninth session): HalfLastStep (D = 65..72 and 81..88); bf16, B = 16, H = 16, N = 2048, in
// turns beside the v6 tile: D = 72 1.069 in both calls (251 -> 268 TFLOP/s).
// v15 (fourteenth session): RescalePastThreshold in the unmasked kernel (D = 81..96 unmasked):
// fp16, B = 16, H = 16, N = 2048, D = 96 1.047; masked D = 72 causal measured 0.999 with it
// (unchanged).
// Fifteenth session (h15-eupv): ExponentsUnderPv in the unmasked kernel (sm_90a SASS: the 70 MUFU
// of a tile all before the first P·V HMMA, then at most 16 in a row; 0 spills, 250 / 246
// registers on sm_90a / sm_80). H100, in turns beside main's tile (5 runs): D = 96 fp16, B = 16,
// H = 16, N = 2048 1.033 (324.2 -> 334.9 TFLOP/s, per run 1.025-1.045; PyTorch's flash 332.4);
// causal (WindowMask, unchanged) 0.999.
template <>
struct NarrowForwardConfig<128>
    : UnmaskedExponentsUnderPv<UnmaskedRescalePastThreshold<HalfLastStep<KvSourcesInSharedMemory<
          FewerLiveRegisters<StepClassesOnly<
              RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, 5, 6>>>>>>>> {};
// v5: D = 193..208 (D = 200) on a 13-step walk in a kernel of its own instead of the 16-step
// full-width walk over zero-filled columns (in the table's kernel a 13-step class spilled
// 16-104 bytes; alone it takes 219-235 registers, 0 spills). D = 200: 229 -> 258 TFLOP/s.
// v7 (ninth session): HalfLastStep (D = 193..200), in turns as above: D = 200 1.031 / 1.012.
// v9 (tenth session) keeps this tile where a block may take at most sm_80's 163 KB of shared
// memory; larger devices run LargeSharedMemoryNarrowForwardConfig<256> below.
template <>
struct NarrowForwardConfig<256>
    : HalfLastStep<StepClassesOnly<ForwardTile<256, 64, 8, 1, false, 13>>> {};
// v9 (tenth session, h10-odd80; bench/results/sm80-odd-h100-2026-11-23-s10/NOTES.md): D = 129..144
// (the 9-step class) in a kernel of its own on 128 keys x 8 warps instead of the table's 64-key
// tile: the per-tile work that does not grow with the head dim (barriers, row max and shuffles,
// copy setup) is paid per 128 keys, 13 % fewer instructions per key (sm_90a SASS: 1142 per
// 128-key tile against 656 per 64) for the same ldmatrix per HMMA. 227-242 registers, 0 spills on
// sm_80 and sm_90a; 148 KB of shared memory (sm_80 takes 163 KB per block), one CTA of 8 warps
// per SM as before. H100, bf16, in turns beside the v8 table (two calls): B = 16, H = 16,
// N = 2048, D = 136 1.072 / 1.083 (255.5 -> 276.8 TFLOP/s), 144 1.101, causal 136 1.060 / 1.060;
// B·N = 16384, D = 136 N = 512 1.074, 8k 1.087. The 64-row tile (4 warps x 64 keys, two CTAs per
// SM) measured 0.958. The table's 192 kernel keeps its own 9-step class (its key-tile loops
// unchanged); aligned rows of D <= 144 no longer reach it.
// v15 (fourteenth session): RescalePastThreshold measured 0.998 at D = 136 (fp16, B = 16, H = 16,
// N = 2048): not taken.
template <>
struct NarrowForwardConfig<192>
    : HalfLastStep<KvSourcesInSharedMemory<StepClassesOnly<ForwardTile<192, 128, 8, 1, false, 9>>>> {};

// Narrow tiles for devices whose blocks may take more shared memory than NarrowForwardConfig's
// (the launch asks the device: cudaDevAttrMaxSharedMemoryPerBlockOptin, as the backward's
// LargeSharedMemoryBackwardConfig); by default the same tile.
template <int kHeadDimBucket>
struct LargeSharedMemoryNarrowForwardConfig : NarrowForwardConfig<kHeadDimBucket> {};
// v9 (tenth session): D = 193..208 on 128 keys x 8 warps: 192 KB of shared memory (the H100
// takes 227 KB per block, sm_80 163), 13 % fewer instructions per key (sm_90a SASS: 1488 per
// 128-key tile against 859 per 64), 245-255 registers, 0 spills on sm_80 and sm_90a. H100, bf16,
// in turns beside the v8 table (two calls): B = 16, H = 16, N = 2048, D = 200 1.112 / 1.090
// (262.3 -> 285.8 TFLOP/s), causal 1.117 / 1.119; B·N = 16384, N = 512 1.070, 8k 1.082. FA2's 256
// shape (4 warps x 64 rows x 64 keys, two CTAs per SM, 96 KB) with the 13-step class measured
// 1.062.
// v14 (thirteenth session, h13-fwd80b; bench/results/sm80-fwd-h100-2026-11-23-s13b/NOTES.md):
// WholePrologueCopies, as the table's tiles since v13. H100, in turns beside the v13 tile, this /
// v13 (in parentheses: the v13 kernel itself, timed again as a shim variant, / v13): bf16,
// B = 16, H = 16, N = 2048, D = 200 1.009 (1.006-1.013), causal 1.009 (0.999-1.000); B·N =
// 16384, N = 512 1.009 (0.997-1.000), 8k 1.003 (1.002-1.003); fp16 1.015, causal 1.016 (D = 256,
// the same kernel on both sides, 1.002). 0 spills on sm_80 and sm_90a.
// v15 (fourteenth session): RescalePastThreshold in the unmasked kernel: D = 200 fp16, B = 16,
// H = 16, N = 2048 1.027 (the masked kernel not measured with it: unchanged).
// v24 (twenty-third session, desk work s23-narrow, bench/results/sm80-s23-narrow-prep/NOTES.md):
// KeyCopiesUnderPv, both masks. ncu (H100, fp16, B = 16, H = 16, N = 2048): this kernel
// issues 0.74x D = 256's instructions per 128 keys x 16 rows but at 7.93 cycles per instruction
// per warp against 6.40; its tensor pipe idles ~5,600 cycles per 128-key tile and scheduler
// against D = 256's ~5,200. Its one CTA of 8 warps leaves the second barrier together and each
// warp had 16 LDGSTS (~100 instructions with their zero-fill address terms) queued ahead of its
// row max's shuffles; with the copies under P·V (whole chunks, the predicate form) the dynamic
// path from that barrier to the first P·V HMMA is ~200 instructions instead of ~295, and the
// tile ~28 fewer (sm_90a SASS, the 13-step loops). 240-255 registers, 0 spills on sm_80 and
// sm_90a, fp16 and bf16, NoMask and WindowMask, the shifted-window kernels included. Measured
// (H100, fp16, B = 16, H = 16, in turns beside v23 and FA2; bench/results/sm80-s23-h100-call4/):
// D = 200 x1.057 (308 TFLOP/s, 0.99x D = 256's 313), causal x1.030, N = 512 x1.025, bf16 x1.047;
// D = 193 / 208 x1.041 / 1.019.
template <>
struct LargeSharedMemoryNarrowForwardConfig<256>
    : KeyCopiesUnderPv<UnmaskedRescalePastThreshold<WholePrologueCopies<
          HalfLastStep<StepClassesOnly<ForwardTile<256, 128, 8, 1, false, 13>>>>>> {};

// The narrow tile of the unmasked kernel (NoMask), where it differs from NarrowForwardConfig:
// the masked kernels keep the latter (their partial-tile mask costs registers); by default the
// same tile.
template <int kHeadDimBucket>
struct UnmaskedNarrowForwardConfig : NarrowForwardConfig<kHeadDimBucket> {};
// v9 (tenth session): D = 65..80 (the 5-step class) unmasked on the D = 64 kernel's key-tile
// length, 128 keys x 4 warps x 2 row tiles: S + O = 128 + 80 registers, which fits without
// HalfLastStep (255 registers, 0 spills on sm_80 and sm_90a; with it 20 bytes of spills, and
// the WindowMask kernel spills 4 bytes on sm_90a even without it). sm_90a SASS of the loop: 416
// instructions per 64 keys x 16 rows against 487 (D = 80) and 477 (72, halved) for the 64-key
// tile. H100, bf16, in turns beside the v8 table: B = 16, H = 16, N = 2048, D = 80 1.064 (296.3 ->
// 315.2 TFLOP/s), 72 1.021 (whole fifth step: 5 % more HMMA than the halved one, still faster);
// B·N = 16384, N = 512 / 8k: 80 1.135 / 1.071, 72 1.055 / 1.009. A 96-key tile (class 5, 0
// spills only with DirectOutputStores) measured 0.967 / 0.976 at 72 / 80, 0.866 at 72 N = 512.
// v15 (fourteenth session): RescalePastThreshold (and so the halved tile below): fp16, B = 16,
// H = 16, N = 2048, D = 80 1.016, D = 72 1.004 (bf16 1.004; N = 512 1.005).
// v24 (twenty-third session, desk work s23-narrow, bench/results/sm80-s23-narrow-prep/NOTES.md):
// ClassWideKvCopies (and so the halved tile below): the whole K/V tiles on 10 lanes x
// 12 rows per pass, 11 LDGSTS per tensor and thread instead of 16, each with its source step
// (sm_90a SASS of the key-tile loop, fp16 NoMask: D = 80 1675 -> 1644 instructions, D = 72
// halved 1624 -> 1598; sm_80 1659 -> 1639, 1602 -> 1572). The copy's second swizzle phase left
// the epilogue's warp row spilled (4 bytes, sm_90a, stored before the walk and reloaded after
// it, as at the halved tile in v10), hence EpilogueWarpRowAfresh here too: 255 / 254 registers,
// 0 spills on sm_80 and sm_90a, fp16 and bf16. Measured (call 4 as above): D = 80 x1.011 (322
// TFLOP/s, 0.89x D = 128's 360), bf16 x1.009, N = 512 (B = 64) x0.994; D = 72 x1.001. Taken for
// the N >= 1k points, where the D = 80 ratio to D = 128 sits at the 0.9 line.
template <>
struct UnmaskedNarrowForwardConfig<128>
    : ClassWideKvCopies<EpilogueWarpRowAfresh<RescalePastThreshold<KvSourcesInSharedMemory<
          FewerLiveRegisters<StepClassesOnly<
              RowStatsInSharedMemory<ForwardTile<128, 128, 4, 2, false, 5>>>>>>>> {};

// The unmasked narrow tile's halved form, for the head dims whose last 16-wide step of its
// largest class holds at most 8 columns (a kernel of its own: HalvedWalkOnly); by default none
// (the unmasked narrow tile itself runs them).
template <int kHeadDimBucket>
struct HalvedUnmaskedNarrowForwardConfig : UnmaskedNarrowForwardConfig<kHeadDimBucket> {};
// v10 (tenth session, second round, h10-odd80b): D = 65..72 unmasked on the 128-key tile above with
// the halved fifth step (m16n8k8 in Q·Kᵀ, one 8-column tile fewer in P·V: 288 instead of 320
// k16-equivalent mma per 128 keys x 32 rows). Only the halved walk is compiled and the epilogue
// re-derives the warp's first row (EpilogueWarpRowAfresh), so it fits: 255 registers, 0 spills on
// sm_80 and sm_90a, fp16 and bf16 (the halved and whole walks in one kernel spilled 20 bytes, the
// halved walk alone with the epilogue as the other tiles have it 4). sm_90a SASS of the loop: 1607
// instructions per tile (HMMA 304, LDSM 86) against 1663 (320, 90), 402 per 64 keys x 16 rows
// against 416. H100, bf16, in turns beside v9
// (bench/results/sm80-odd-h100-2026-11-23-s10b/NOTES.md): B = 16, H = 16, N = 2048, D = 72 1.047
// (272.1 -> 284.9 TFLOP/s); B·N = 16384, N = 512 / 8k 1.026 / 1.049. Against D = 128 in the same
// call: bf16 0.76 -> 0.79, fp16 0.80 -> 0.83.
// Fifteenth session (h15-d72): ExponentsUnderPv and RowMaxByPairs (0 spills, 255 registers on
// sm_80 and sm_90a, fp16 and bf16). H100, in turns beside main's tile (5 runs): B = 16, H = 16,
// N = 2048, fp16 1.072 (285.5 -> 306.1 TFLOP/s), bf16 1.072; bf16 B·N = 16384, N = 512 1.034,
// 8k 1.047-1.074; the option alone (bench variant 82) 1.070 / 1.032 / 1.067, the max tree alone
// 1.002 / 1.005 / 1.011. D = 72 / D = 128 fp16 in that call 0.793 -> 0.843. One row tile's
// Q·Kᵀ before the other's with its max right after (row_max_under_scores.patch there) measured
// 0.979-0.989 (36 more K ldmatrix per tile; ptxas still runs the second row tile's mma's first).
template <>
struct HalvedUnmaskedNarrowForwardConfig<128>
    : ExponentsUnderPv<RowMaxByPairs<HalvedWalkOnly<UnmaskedNarrowForwardConfig<128>>>> {};

// Shifted windows wider than the narrow tile's largest step class (forward v21, wide windows:
// packed D = 138..185 at 192, 202..249 at 256 with 2-byte rows; forward v22: 91..121 at 128),
// which the staged kernel ran before (packed D = 161 167 TFLOP/s against 268 at D = 192, H100 fp16, B = 16, H = 16,
// N = 2048). One kernel per step class kSteps, from one past the narrow tile's largest to the
// bucket's width (forward.cuh), running the windows W with 16·(kSteps - 1) < W <= 16·kSteps:
// no k-step over columns past the window, and every row end lies in the class's last step or in
// the second half of the one before it, the fragments forward_kernel.cuh masks (HalfLastStep:
// a window of 16·kSteps - 8 runs the halved walk, which masks that second half; a class above
// the window's steps would hold the row end in a step it does not mask). One class per kernel:
// the 256 bucket's classes 14-16 in one WindowMask kernel spilled 1312 bytes on sm_80 (classes
// 14-15 alone 600; class 16 alone 0), ptxas allocating the kernel as a whole. Measured (H100,
// fp16, B = 16, H = 16, N = 2048, in turns beside the staged / 4-byte-copy kernels and FA2;
// bench/results/sm80-fwd-wide-windows-h100-2026-11-24-s22/): D = 145 / 161 / 185 / 233 x1.32 /
// 1.32 / 1.31 / 1.52, D = 210 / 234 (4-byte rows) x2.96 / 2.86, 1.12-1.43x FA2.
template <int kHeadDimBucket, int kSteps>
struct WideWindowForwardConfig;

// KeyWindowEdgesInSharedMemory (twenty-third session, s23-wide): a shifted tile whose K tiles
// have the window columns outside the row zeroed in shared memory, by each thread in the chunks
// it copied once its copies have landed (zero_outside_window_rows, before the barrier that
// publishes the tile), instead of in the walk's first- and last-step K fragments. The walk then
// holds no window masks and needs no halved step to mask a row end in the step before the last:
// it is the aligned kernel's walk of that class. Per K/V tile and warp (64 keys), on the lanes
// of the window's first and last chunk: 8 LDS.128 issued together, 32 LOP, 8 STS.128, ~20
// instructions for the masks (sm_90a SASS), against 24 LOP in the fragments.
struct KeyWindowEdgesInSharedMemoryOption {};
template <class Tile>
struct KeyWindowEdgesInSharedMemory : Tile, KeyWindowEdgesInSharedMemoryOption {};

template <class Config>
constexpr bool key_window_edges_in_shared_memory() {
  return has_option<Config, KeyWindowEdgesInSharedMemoryOption>;
}

// 128 (forward v22): classes 7-8 (windows 97..128:
// packed D = 91..121 with 2-byte rows, to 122 / 124 with 4- / 8-byte ones), which ran on the
// staged kernel's 8-warp general walk with every K/V tile realigned (StagedForwardConfig<128>).
// Class 7 on ForwardConfig<128>'s tile and options: 64 keys x 4 warps x 2 row tiles (each K/V
// fragment feeds four mma's: 80 ldmatrix per 256 HMMA per warp against 136 at one row tile),
// the row statistics in shared memory, FewerLiveRegisters, KvSourcesInSharedMemory,
// WholePrologueCopies, the head-group grid and RescalePastThreshold on both masks. Why that tile:
// these windows are 97..128 columns wide, the widths at which the table's kernel runs aligned
// D = 97..128 and at which its options were measured (NarrowForwardConfig<128>, the same layout,
// had its options measured at D = 65..96; its ExponentsUnderPv spills in masked kernels already
// at 6 steps, so it is left out). The class's walk replaces the full-width one (StepClassesOnly)
// and HalfLastStep adds the halved walk the shifted kernel needs: 252-254 registers, 0 spills
// on sm_80 and sm_90a, fp16 and bf16. 70.5 KB of shared memory, two CTAs of 4 warps per SM as
// the table's tile.
// Class 8 did not fit that layout with the K window masked in the walk's fragments: O alone is
// 128 registers per thread, and the fragment masks and the second (halved) walk on top of what
// the table's full-width walk needs (255 registers) spilled in every form tried at the desk
// (fp16, bytes of spill stores + loads, NoMask sm_80 / sm_90a, WindowMask sm_80 / sm_90a;
// bench/results/sm80-fwd-wide128-prep-2026-11-24-s22/NOTES.md): the table's options 100 / 188,
// 20 / 240; the narrow tile's options 208 / 216, 120 / 132; the whole 8-step walk alone 0 / 28,
// 0 / 20. Forward v22 therefore ran it on one row tile per warp and 8 warps (O = 64 registers;
// 164-176 registers): H100, fp16, B = 16, H = 16, N = 2048 (bench/results/sm80-s23-h100-call1/),
// D = 113 / 121 x1.51 / 1.53 over the staged kernel (223 / 239 TFLOP/s, 1.10 / 1.03x FA2), 121
// causal x1.54; 4-byte rows D = 110 / 122 x1.48 / 1.43. That is 0.67x aligned D = 128's rate.
// v23 (twenty-third session, s23-wide; bench/results/sm80-s23-wide-prep/NOTES.md): class 8 on
// the table's own tile and options, with K's columns outside the row zeroed in shared memory
// once per K tile (KeyWindowEdgesInSharedMemory) instead of in the fragments. The walk is then
// the table's full-width walk (windows of 120 columns run it too, over the copy's zero-filled
// last chunk: 6 % more mma than a halved walk, whose HalvedWalkOnly form with these options
// spilled 4-8 bytes), and the kernel fits: 255 registers, 0 spills on sm_80 and sm_90a, fp16 and
// bf16. sm_90a SASS of the loop (NoMask): 1281 instructions per K/V tile and warp, 256 HMMA and
// 80 LDSM, against 1197 / 256 / 80 for the table's D = 128 kernel and 2 x 692 / 256 / 144 for
// v22's one-row tile. 70.5 KB of shared memory, two CTAs of 4 warps per SM. Measured (H100, fp16,
// B = 16, H = 16, N = 2048, in turns beside v22 and FA2; bench/results/sm80-s23-h100-call4/):
// D = 107 / 113 / 115 / 121 x1.25 / 1.235 / 1.25 / 1.24 (265 / 270 / 276 / 292 TFLOP/s, 0.74-0.82x
// aligned D = 128, 1.29-1.37x FA2), 121 causal x1.26, bf16 113 x1.24, 4-byte rows D = 110 / 122
// x1.24 / 1.22; controls D = 105 / 128 0.996 / 1.001.
// Both classes on the table's tile and options; WindowEdges says where K's window edges are
// masked: HalfLastStep (in the walk's fragments, class 7) or KeyWindowEdgesInSharedMemory (class 8).
inline constexpr int kLargestFragmentMaskedWideSteps128 = 7;
template <template <class> class WindowEdges, int kSteps>
using TwoRowTileWideWindow128 = RescalePastThreshold<QueryTilesSlowestInHeadGroups<
    WholePrologueCopies<WindowEdges<KvSourcesInSharedMemory<FewerLiveRegisters<
        StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, kSteps>>>>>>>,
    kForwardGroupHeads>>;
template <int kSteps>
struct WideWindowForwardConfig<128, kSteps>
    : std::conditional_t<kSteps <= kLargestFragmentMaskedWideSteps128,
                         TwoRowTileWideWindow128<HalfLastStep, kSteps>,
                         TwoRowTileWideWindow128<KeyWindowEdgesInSharedMemory, kSteps>> {};
// 192: 64 keys x 8 warps (ForwardConfig<192>'s tile until the twenty-fifth session) with
// KvSourcesInSharedMemory, classes 10-12 (windows 145..192); 100 KB of shared memory. The only
// kernels of their tile shape since then: their general copy is kept compiled for every
// alignment as before (narrow_copy_alignment in forward_kernel.cuh).
template <int kSteps>
struct WideWindowForwardConfig<192, kSteps>
    : UnmaskedRescalePastThreshold<HalfLastStep<
          KvSourcesInSharedMemory<StepClassesOnly<ForwardTile<192, 64, 8, 1, false, kSteps>>>>> {};
// 256: 64 keys x 8 warps, as NarrowForwardConfig<256> (the table's 4-warp FA2 tile cannot stage
// a Q tile at K's shift: UnalignedTileStage's passes need 8 warps there), classes 14-16 (windows
// 209..256); 128 KB of shared memory, within sm_80's 163 KB. v25 (twenty-third session):
// KeyCopiesUnderPv, as on the narrow 256 tile (v24), the same one-CTA 8-warp layout. Measured
// (H100, fp16, B = 16, H = 16, in turns beside v24 and FA2; bench/results/sm80-s23-h100-call7/):
// packed D = 217 / 225 / 233 / 241 / 249 x1.021 / 1.030 / 1.025 / 1.026 / 1.033, 233 causal
// x1.017, bf16 x1.014, 4-byte rows D = 234 x1.015; N = 512 (B = 64) x0.983. Taken for N >= 1k.
template <int kSteps>
struct WideWindowForwardConfig<256, kSteps>
    : KeyCopiesUnderPv<UnmaskedRescalePastThreshold<
          HalfLastStep<StepClassesOnly<ForwardTile<256, 64, 8, 1, false, kSteps>>>>> {};

// The largest step class of a list (0 for none).
template <int... kSteps>
constexpr int largest_step_class(StepClasses<kSteps...>) {
  int largest = 0;
  ((largest = kSteps > largest ? kSteps : largest), ...);
  return largest;
}

// ---- Devices with 99 KB of shared memory per block (sm_86 / sm_89: RTX 30xx / 40xx, A10, L4,
// L40; twenty-ninth session, s29-fwdsmall, bench/results/sm80-fwd-small-smem-2026-11-25-s29/
// NOTES.md) ----
// Bytes per block of the tiles above (bench/sm80_forward_shared_bytes.cpp prints them): bucket 64
// 41,984-53,760; 128 71,680-82,944 and 104,448 (UnmaskedNarrowForwardConfig, its halved form);
// 192 102,400-198,656 (every tile); 256 98,816 (the table) and 131,072-196,608 (the staged,
// narrow and wide-window tiles). On such a device launch_forward (forward.cuh) takes the
// roles below for a bucket whose tiles do not all fit, and skips the shifted-window kernels that
// do not fit (forward_kernel_shifted_windows): their rows, not on 16-byte words, then take the
// roles' kernels as they did before those kernels existed (4- and 8-byte rows the table kernels'
// 4- and 8-byte cp.async; 2-byte rows the staged kernel, or where the role has none, the table
// kernels' general copy, see NoStagedTile).

// The staged role where no staged tile fits: 2-byte-aligned rows run on the role's table kernels,
// whose general copy (load_tile_narrow, compiled with the run-time alignment in every unshifted
// kernel) loads such rows' chunks as eight 16-bit loads through registers (tile_io.cuh,
// copy_chunk), the forward's copy before UnalignedTileStage (v11). The staged kernel cannot
// shrink below 99 KB at 192 and 256: UnalignedTileStage needs 8 warps there (a 32-lane row and 8
// rows per pass, the swizzle's period), hence 128 query rows (48 / 64 KB of Q), and its Q stage
// must fit where K, V and their stage will be, which asks for 64 keys (192: 123,904 bytes; 256:
// 164,864).
struct NoStagedTile {
  static constexpr int kSharedBytes = 0;
};

// The 192 bucket's table tile on such devices: 64 keys x 8 warps x 1 row tile (FA2's sm86 tile for
// head dim 192 is 64 x 64 on 4 warps), which was ForwardConfig<192> from the ninth to the
// twenty-fourth session with KvSourcesInSharedMemory (102,400 bytes) on top: without it, 98,304.
// Step class 9 and the halved walks as then, so that it runs the narrow role (D = 129..144 in the
// 9-step class, halved at 129..136) and the table's (145..192 in the full-width class over
// zero-filled columns, halved at 177..184) in one kernel per mask. StepClassesOnly: the 12-step
// class covers the bucket, so the general walk would be dead code (it was compiled in the old
// tile). 1 KB of the device's 99 KB left: one CTA of 8 warps per SM.
template <int kHeadDimBucket>
struct SmallSharedMemoryForwardConfig;
template <>
struct SmallSharedMemoryForwardConfig<192>
    : UnmaskedRescalePastThreshold<
          HalfLastStep<StepClassesOnly<ForwardTile<192, 64, 8, 1, true, 9>>>> {};

// The forward's roles (forward.cuh, launch_forward_with's tiles) on a device whose blocks take
// less than some tile of the bucket needs: existing tiles where they fit (no new kernels: the
// same types), SmallSharedMemoryForwardConfig<192> at 192.
// 64: every tile fits (53,760 bytes at most).
// 128: the unmasked narrow tile (D = 65..80 NoMask, 128 keys, 104,448 bytes) and its halved form
// give their head dims to NarrowForwardConfig<128> (64 keys, 71,680 bytes), whose NoMask kernel
// runs D = 81..96 already: the masked kernels' tile, with ExponentsUnderPv unmasked.
// 192: SmallSharedMemoryForwardConfig<192> in every role; 2-byte rows on its general copy.
// 256: FA2's 64 x 64 table tile (98,816 bytes) in every role: the narrow head dims (193..208)
// on its full-width walk over zero-filled columns (16 steps where the narrow tile ran 13); 2-byte
// rows on its general copy.
template <int kHeadDimBucket>
struct SmallSharedMemoryForwardTiles {
  using Table = ForwardConfig<kHeadDimBucket>;
  using Unmasked = UnmaskedForwardConfig<kHeadDimBucket>;
  using Staged = StagedForwardConfig<kHeadDimBucket>;
  using Narrow = NarrowForwardConfig<kHeadDimBucket>;
  using UnmaskedNarrow = NarrowForwardConfig<kHeadDimBucket>;
  using UnmaskedHalved = NarrowForwardConfig<kHeadDimBucket>;
};
template <>
struct SmallSharedMemoryForwardTiles<192> {
  using Table = SmallSharedMemoryForwardConfig<192>;
  using Unmasked = Table;
  using Staged = NoStagedTile;
  using Narrow = Table;
  using UnmaskedNarrow = Table;
  using UnmaskedHalved = Table;
};
template <>
struct SmallSharedMemoryForwardTiles<256> {
  using Table = ForwardConfig<256>;
  using Unmasked = UnmaskedForwardConfig<256>;
  using Staged = NoStagedTile;
  using Narrow = Table;
  using UnmaskedNarrow = Table;
  using UnmaskedHalved = Table;
};

template <class... Configs>
constexpr int largest_shared_bytes() {
  int largest = 0;
  ((largest = Configs::kSharedBytes > largest ? Configs::kSharedBytes : largest), ...);
  return largest;
}

// The most shared memory any of a bucket's roles takes with the tiles launch_forward_with gets
// from the table (the ones that need no question to the device: not the LargeSharedMemory ones,
// nor the shifted-window kernels, which are skipped where they do not fit).
template <int kHeadDimBucket>
constexpr int table_forward_shared_bytes() {
  return largest_shared_bytes<ForwardConfig<kHeadDimBucket>, UnmaskedForwardConfig<kHeadDimBucket>,
                              StagedForwardConfig<kHeadDimBucket>,
                              NarrowForwardConfig<kHeadDimBucket>,
                              UnmaskedNarrowForwardConfig<kHeadDimBucket>,
                              HalvedUnmaskedNarrowForwardConfig<kHeadDimBucket>>();
}

// The same for SmallSharedMemoryForwardTiles.
template <int kHeadDimBucket>
constexpr int small_tiles_forward_shared_bytes() {
  using Tiles = SmallSharedMemoryForwardTiles<kHeadDimBucket>;
  return largest_shared_bytes<typename Tiles::Table, typename Tiles::Unmasked,
                              typename Tiles::Staged, typename Tiles::Narrow,
                              typename Tiles::UnmaskedNarrow, typename Tiles::UnmaskedHalved>();
}

static_assert(small_tiles_forward_shared_bytes<64>() <= kConsumerAmpereSharedBytesPerBlock);
static_assert(small_tiles_forward_shared_bytes<128>() <= kConsumerAmpereSharedBytesPerBlock);
static_assert(small_tiles_forward_shared_bytes<192>() <= kConsumerAmpereSharedBytesPerBlock);
static_assert(small_tiles_forward_shared_bytes<256>() <= kConsumerAmpereSharedBytesPerBlock);

// What a device's blocks must take for every forward of a head-dim bucket to run (the selector
// refuses cuda_sm80's forward below it): the small roles' largest tile (launch_forward takes them
// wherever some table tile does not fit, and skips the shifted-window kernels that do not).
// 64: 53,760 bytes; 128: 82,944 (the staged tile); 192: 98,304; 256: 98,816. 0 for a number
// that is not a bucket.
constexpr int smallest_forward_shared_bytes(int head_dim_bucket) {
  switch (head_dim_bucket) {
    case 64:
      return small_tiles_forward_shared_bytes<64>();
    case 128:
      return small_tiles_forward_shared_bytes<128>();
    case 192:
      return small_tiles_forward_shared_bytes<192>();
    case 256:
      return small_tiles_forward_shared_bytes<256>();
    default:
      return 0;
  }
}

}  // namespace fattn::detail::sm80
