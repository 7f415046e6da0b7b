// Tile sizes of the sm80 family, one entry per head-dim bucket, forward and backward.
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
// Shared memory: forward Q + K + V tiles, one buffer each; backward K, V resident plus
// `stages` buffers of Q and dO plus P and dS tiles.
#pragma once

#include <type_traits>

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
inline constexpr int kForwardGroupHeads = 8;
inline constexpr int kForwardGroupHeads256 = 4;
template <>
struct ForwardConfig<64>
    : QueryTilesSlowestInHeadGroups<
          DirectOutputStores<RowStatsInSharedMemory<ForwardTile<64, 128, 4, 2, true>>>,
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
template <>
struct ForwardConfig<128>
    : QueryTilesSlowestInHeadGroups<KvSourcesInSharedMemory<FewerLiveRegisters<
                                        RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, true>>>>,
                                    kForwardGroupHeads> {};
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
template <>
struct ForwardConfig<192>
    : HalfLastStep<KvSourcesInSharedMemory<ForwardTile<192, 64, 8, 1, true, 9>>> {};
// 256, fourth session: FA2's tile, 64 rows x 4 warps, two CTAs per SM (ncu showed PyTorch's
// flash running it). With v4's copies and v5's epilogue it no longer loses to the 128-row tile:
// H100, bf16, B·N = 16384, two runs in one call, this / the 8-warp tile above: N = 512-4k
// 1.04-1.11x, 16k 0.95-1.00x (the K/V reuse of 128 rows only pays once the grid has many waves);
// same call vs PyTorch's flash, N = 512-16k causal and not: geomean 0.931 -> 1.016 / 1.017.
// 0 spills on sm_80 and sm_90a (249 / 255 registers).
// v6: KvSourcesInSharedMemory measured 0.96-1.01x this (939 -> 856 instructions per tile; the
// copies are a smaller share of the loop at 256, and the K/V row pointers are not recomputed
// here): not taken (bench/sm80_variants.cu variant 4).
template <>
struct ForwardConfig<256>
    : QueryTilesSlowestInHeadGroups<ForwardTile<256, 64, 4, 1, true>, kForwardGroupHeads256> {};

// Rows only 2-byte aligned (odd head dims in packed 16-bit tensors) load K/V through registers
// (UnalignedTileStage in tile_io.cuh): a K/V tile in flight costs kBlockN·kWidth/(2·kThreads)
// registers per thread on top of the walk's. With the table's tiles that spills at 128 (8 bytes
// on sm_90a: S = 64 registers for 128 keys) and 256 (48-104 bytes), so those buckets take half
// the keys per tile there (ptxas -v: no spills); 64 fits as it is. H100, fp16, B = 16, H = 16,
// N = 2048: D = 129 runs 98 TFLOP/s here against 55 with the synchronous 16-bit copy
// (docs/perf-notes.md).
template <int kHeadDimBucket>
struct StagedForwardConfig : ForwardConfig<kHeadDimBucket> {};
// 192: the fixed 9-step walk (D = 129..144) with the stage spills 56-72 bytes at 64 keys, not
// at 32 (4 passes of 4 registers); the 64-key general walk measured 72 TFLOP/s at D = 129, this
// 98 (with the cheaper stage of the same run).
// v8 (ninth session, second round): HalfLastStep (D = 129..136 in packed tensors, whose head
// stride of D elements leaves the rows 2-byte aligned); predicted +1-2 % (the 9-step class's
// -5.6 % of HMMA work, in a kernel bound by its register-staged copies). H100, bf16, B = 16,
// N = 2048, D = 129, in turns beside v7: non-causal H = 16 / 15 1.012 / 1.012 (100.3 ->
// 101.5 TFLOP/s), causal H = 15 0.998 (87.0 -> 86.8); 252 registers on sm_90a, 0 spills
// (bench/results/sm80-fwd-h100-2026-11-22-s9b/NOTES.md).
template <>
struct StagedForwardConfig<192> : HalfLastStep<ForwardTile<192, 32, 8, 1, false, 9>> {};
template <>
struct StagedForwardConfig<128> : ForwardTile<128, 64, 8, 1, false, 5, 6> {};
// 64: the table's tile with the general walk (its full-width walk with the stage spills 20-64
// bytes).
template <>
struct StagedForwardConfig<64> : ForwardTile<64, 64, 4, 2> {};
template <>
struct StagedForwardConfig<256> : ForwardTile<256, 32, 8, 1> {};

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
template <>
struct NarrowForwardConfig<128>
    : HalfLastStep<KvSourcesInSharedMemory<FewerLiveRegisters<
          StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, 5, 6>>>>>> {};
// v5: D = 193..208 (D = 200) on a 13-step walk in a kernel of its own instead of the 16-step
// full-width walk over zero-filled columns (in the table's kernel a 13-step class spilled
// 16-104 bytes; alone it takes 219-235 registers, 0 spills). D = 200: 229 -> 258 TFLOP/s.
// v7 (ninth session): HalfLastStep (D = 193..200), in turns as above: D = 200 1.031 / 1.012.
template <>
struct NarrowForwardConfig<256>
    : HalfLastStep<StepClassesOnly<ForwardTile<256, 64, 8, 1, false, 13>>> {};

// The largest step class of a list (0 for none).
template <int... kSteps>
constexpr int largest_step_class(StepClasses<kSteps...>) {
  int largest = 0;
  ((largest = kSteps > largest ? kSteps : largest), ...);
  return largest;
}

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
// live there too); the NoMask kernels took them with 0 spills.
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
// deterministic launch takes it (LargeSharedMemoryDeterministicBackward below). The option
// changes the full-width kernel only: GeneralKernelConfig names the configuration whose general
// kernel it runs, so that kernel is not compiled a second time.
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
// at 128 and 256): the dQ partial's reductions by whole 128-byte accumulator lines. The per-phase
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

// ScorePassesByQueryTile (ninth session, second round; packed lean full-width kernel; the table
// at 64, v17): the exponent pass and the dSᵀ pass walk query tiles outer and key tiles inner, so each
// LSE / D_i pair read from shared memory feeds every key tile of the warp (kKeyTilesA) instead
// of one. ncu at 64 (bench/results/sm80-bwd-h100-2026-11-22-s9b): the table's passes read the
// pair once per (key tile, query tile), 32 LDS.64 per warp and query tile against FA2's 6 row
// statistics per item, each just before the FFMA / FADD that uses it (one register reused, the
// kernel at 255), and those FFMA/FADD carry 0.21 M of the kernel's 2.44 M stall samples
// (short scoreboard; FA2: 0.01 M on FADD, no FFMA). H100, bf16, B·N = 16384, H·D = 2048, bwd in
// turns beside the table's 64 tile and FA2 (N = 4k / 4k causal / 16k / 16k causal): 1.049 /
// 1.037 / 1.046 / 1.037 (bwd / FA2 0.88-0.90 -> 0.92-0.935), dK and dV bitwise the table's;
// ("Backward v17"). 128 and 256 read each pair twice per query tile: not measured there.
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

template <int kHeadDimBucket>
struct BackwardConfig;

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
template <>
struct BackwardConfig<64>
    : ScorePassesByQueryTile<DqAtomicsInPhaseB<DqAtomicsFromOneAddress<ZeroStartAccumulators<
          StridedItemLoads<LightDqRelease<LeanTileLoop<RolledProductB<
              PackedProbabilities<BackwardTile<64, 128, 128, 8, 2, 2, 2, 1, true, 4>>>>>>>>>> {};
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
// registers per thread with the head dim split over 2 warps.
template <>
struct BackwardConfig<192> : BackwardTile<192, 64, 64, 8, 2, 2, 2> {};
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
    : LightDqRelease<LeanTileLoop<RolledProductB<
          PackedProbabilities<BackwardTile<256, 64, 64, 8, 2, 4, 1, 1, true, 2>>>>> {};

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
template <>
struct LargeSharedMemoryBackwardConfig<128>
    : ScorePassesByQueryTile<WarpSearchedQueryRange<
          KeyTilesSlowestInHeadGroups<LineReductionsTile128, kCausalHeadGroupPairs>>> {};
template <>
struct LargeSharedMemoryBackwardConfig<256> : WarpSearchedQueryRange<LineReductionsTile256> {};

// The deterministic mode's configuration on the same devices (launch_backward picks it when the
// problem asks for deterministic gradients; the mode is a run-time flag of the same kernels, so
// a configuration of its own is what lets it run different code). Where `type` is
// LargeSharedMemoryBackwardConfig no other kernel is compiled.
// v8 (sixth session) ran the dQ product and its ordered atomics before phase B at 256
// (DqProductBeforePhaseB: +3 to +6 % deterministic over the v7 kernel, "Backward v8"). With v13's
// line reductions the table's own kernel in the deterministic mode measured 216 / 190 TFLOP/s
// fwd+bwd at N = 4k (non-causal / causal) against that kernel's 200 / 179 in the same call, so
// every bucket now runs the table's kernel in both modes.
template <int kHeadDimBucket>
struct LargeSharedMemoryDeterministicBackward {
  using type = LargeSharedMemoryBackwardConfig<kHeadDimBucket>;
};
// v16 (ninth session, h9-bwd80; bench/results/sm80-bwd-h100-2026-11-22-s9/NOTES.md): at 128 and
// 256 the masked kernels walk their query tiles from the last down (QueryTilesDescending), at 256
// with the head groups that 128's table already has. H100, two runs in turns beside the v15 table
// (bf16, B·N = 16384, H·D = 2048, deterministic fwd+bwd, N = 4k / 16k causal): 128 +4.9 / +6.2 %
// (deterministic / default 0.85 -> 0.89, 0.84 -> 0.89), 256 +2.5 / +3.8 % (0.88 -> 0.90, 0.83 ->
// 0.86); non-causal unchanged (NoMask kernels: the option does not change their code). At 64 it
// measured -0.5 / +1.3 % with head groups and -10 / +1 % without: not taken.
template <>
struct LargeSharedMemoryDeterministicBackward<128> {
  using type = QueryTilesDescending<LargeSharedMemoryBackwardConfig<128>>;
};
template <>
struct LargeSharedMemoryDeterministicBackward<256> {
  using type = QueryTilesDescending<
      KeyTilesSlowestInHeadGroups<LargeSharedMemoryBackwardConfig<256>, kCausalHeadGroupPairs>>;
};

}  // namespace fattn::detail::sm80
