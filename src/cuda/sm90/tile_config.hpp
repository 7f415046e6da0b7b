// Tile shapes of the Hopper forward kernel, one row per head-dim bucket. Any head dim D <= 256
// runs in the smallest bucket >= D: TMA zero-fills the columns D..bucket-1 of every tile (the
// tensor map's inner extent is the real D), so the padded columns add nothing to Q·Kᵀ and give
// zero output columns that are never stored.
//
// Why these numbers (H100/H200: 228 KB shared memory per SM, 227 KB per block, 64K registers):
// - kBlockM = 128: two consumer warpgroups of 64 query rows each (wgmma's M is 64 per warpgroup).
//   One CTA per SM; the producer warpgroup gives its registers to the consumers (setmaxnreg).
//   D = 64: kBlockM = 192, three consumers of 160 registers each (O 32 + S 64 + P 32 fit; ptxas
//   0 spills), as FlashAttention-3 does for D = 64. At D = 64 the softmax (as many exp2 on the
//   MUFU as the GEMMs take cycles) is latency-bound with two consumers (ncu, D = 64 N = 1024
//   causal: 0.61 eligible of 2.25 active warps per scheduler, "wait" the top stall); a third
//   consumer warp per scheduler hides part of it (same point with 192 rows: 0.95 eligible of
//   3.24, issue slots 49 % busy instead of 41 %). Measured on an H100 against 128 rows (two
//   calls of two runs each, docs/perf-notes.md "v7"): +17 % non-causal (1.12-1.20 per point),
//   +8 % causal (1.10-1.21 at N >= 4096, 0.99-1.02 at N <= 2048, where the 192-row tiles leave
//   a last tile partly empty: 576 rows for N = 512, 1152 for N = 1024). Three consumers without
//   ping-pong gained only 5 % / -1 %. D = 128 fits three consumers only with 64-key tiles
//   (O 64 + S 32 + P 16; 80 keys spilled in the windowed kernels): measured 5 % (non-causal) and
//   8 % (causal) slower than 128 x 128; D >= 192 cannot hold O in 160 registers.
// - kBlockN, the key tile: as wide as shared memory and the consumers' registers allow. The
//   consumers hold O (width/2 fp32 per thread), S (kBlockN/2) and P (kBlockN/4 32-bit words).
//   D = 256: 128 + 40 + 20 registers at kBlockN = 80, and Q (64 KB) + 2 stages × (K + V)
//   (2 × 80 KB) = 224 KB fills shared memory. D = 192: kBlockN = 96 keeps 2 stages in 192 KB.
//   D <= 128: kBlockN = 128 (the widest P·V k-loop per barrier round trip that still fits).
// - ping-pong: measured on an H100 (docs/perf-notes.md, sm90): +2–11% at D = 128 and 256. At
//   D = 256 the masked kernels do not fit ping-pong's extra live registers in 240 (ptxas spilled
//   32–68 bytes), so they run without it.
// - kStages: K/V ring depth. Two stages already cover the TMA latency when each stage holds a
//   full 128-key tile; D = 64 tiles are small (16 KB each), so a third stage is nearly free. A
//   third D = 128 stage fits (Q 32 KB + 3 x 64 KB) but measured no faster (0.99 non-causal,
//   0.985 causal against two stages, H100, v7).
// - Also measured and rejected in v7 (docs/perf-notes.md): 176-key tiles for unmasked D = 128
//   (FlashAttention-3's choice; 1.00x) and 64-key tiles with ping-pong for masked D = 256
//   (0.955x causal, 0.80-0.93 at N >= 4096 where the diagonal is a small share of the work).
// - tma_store: O leaves through shared memory and TMA stores (forward_kernel.cuh, "epilogue")
//   instead of kWidth/4 scattered 4-byte global stores per thread, which ncu showed costing 17 %
//   of the stall samples at D = 256 N = 512 causal (v7). Measured on an H100 against the
//   register stores (docs/perf-notes.md "v8", two calls of two runs, geometric means over
//   N = 512..16k): D = 128 +3.2-3.4 % non-causal, +5.5-6.7 % causal (+8-11 % at N = 512);
//   D = 192 +3.2 % / +7.9 %; D = 256 causal +6.5-9.2 % (+12-18 % at N <= 1024). D = 64 measured
//   0.99 / 1.00 (192-row tiles already spread the epilogue over three warpgroups) and kept the
//   register stores until the LSE's stores moved after O's (lse_after_output, below; seventh
//   session): the two together +1–2.5 % at N = 1k, so D = 64 now stores by TMA too. The
//   unmasked D = 256 kernel's ping-pong consumers spill at 240 registers when they issue the
//   TMA stores themselves (ptxas: 8-20 bytes in every form tried; that build measured +4.5 %),
//   so there the producer issues them (producer_stores, below): 0 spills, measured +4-10 %
//   non-causal against the register stores (docs/perf-notes.md "v9", two calls of two runs
//   each).
//
// Work widths. A bucket's shared-memory layout and TMA boxes are the bucket's, but the kernel is
// also compiled for narrower *work widths* W = round_up(D, 16) < bucket: Q·Kᵀ runs W/16 wgmma
// k-steps instead of bucket/16, P·V is one wgmma with n = W, O holds W/2 fp32 per thread and the
// epilogue walks W columns. The columns W..bucket-1 TMA still zero-fills and nothing reads. The
// host (forward.cuh) picks the narrowest compiled width >= round_up(D, 16), so the generator, the
// instance registry and the selector see one launch per (bucket, dtype) as before.
// Which widths: every multiple of 16 above the bucket below (D = 65..80 -> 80, 81..96 -> 96,
// ..., 241..256 -> 256), so no D pays for more than 15 padded columns. Bucket 64 keeps its one
// width (D <= 64 is not in the odd-head-dim target, and it is the cheapest bucket to pad).
// Compile time (nvcc 13, sm_90a, one TU at a time on the 2-core build host, 2026-11-22): a bucket
// TU with its 4 widths takes 10.7 s (D = 128 fp16) and 12.3 s (D = 256 fp16) where the 1-width
// TU took 4.9 s and 5.4 s: ~2 s per extra width and dtype, ~36 s more CPU time for the sm90
// family (9 extra widths x 2 dtypes). Measured on an H100 (docs/perf-notes.md, "Work widths"):
// width 80 runs D = 80 13-18 % faster than the 128-wide kernel, width 96 D = 96 11 % faster.
// Dims whose packed rows are an odd multiple of 16 bytes (D = 72, 104, 136, 152, 200, 216) gained
// nothing from the widths: their TMA loads, not the GEMMs, bound them (same notes). Those run the
// sector-aligned-box kernels (sector_boxes_compiled below; perf-notes "v30": +1-7 % non-causal,
// +4-31 % causal on an H200).
#pragma once

#include <utility>

namespace fattn::detail::sm90 {

struct TileShape {
  // Query rows per CTA: 64 per consumer warpgroup (wgmma's M), so 128 = two consumers, 192 =
  // three (the producer warpgroup comes on top; forward_kernel.cuh splits the registers).
  int block_m;
  int block_n;
  int stages;
  // The consumer warpgroups take turns issuing their GEMMs (named barriers, round-robin), so
  // one's softmax runs while the others' wgmmas keep the tensor cores busy. Separately for
  // masked kernels, whose per-element mask code needs more registers.
  bool ping_pong;
  bool ping_pong_masked;
  // The epilogue writes O through shared memory (stmatrix) and TMA stores instead of 4-byte
  // global stores from the accumulator registers (forward_kernel.cuh, "epilogue"). The O tile
  // gets its own buffer where shared memory has room (D <= 128), else it reuses the V ring.
  // Separately for masked kernels, like ping-pong.
  bool tma_store = false;
  bool tma_store_masked = false;
  // Where O reuses the V ring, the unmasked kernel's TMA stores are issued by the producer
  // thread instead of one thread per consumer (forward_kernel.cuh, "producer stores"): the
  // consumers only stage O and arrive on a barrier, which keeps the D = 256 ping-pong consumers
  // inside 240 registers. Head dims with columns past the last 16-byte unit (D % 8 != 0) run
  // the register-store kernel instead (forward.cuh), as that tail path needs consumer code.
  // The producer stores O in two bulk groups, the boxes over the ring stage of the tile's first
  // V first, and loads that V once they have been read, the second V once the rest has (v23;
  // with second_key_before_output in these kernels, measured on an H100 in turns, two runs:
  // D = 256 non-causal +0.5 / +0.8 % at N = 512, +1.0 / +0.9 % at 1k, +1.4 / +0.6 % at 2k;
  // the second K alone +0.0-1.3 %, bench/results/sm90-fwd-h100-2026-11-23-s12c/).
  bool producer_stores = false;
  // Where O reuses the V ring, a tile's first V waits until the previous tile's O has been
  // staged, stored and read out of the ring, and the producer issued the second step's K only
  // after that V, so a tile's second step waited for both (forward_kernel.cuh, kKeyAhead). With
  // this, the second step's K goes out with the first step's, before that wait. Twelfth
  // session's timeline (D = 256 N = 512 causal, bench/results/sm90-fwd-h100-2026-11-23-s12b/):
  // step 1 of every tile waited ~3,000 clocks for its loads against ~300 in a steady step,
  // 2,250 with this. Measured on an H100 in turns (two runs): causal +1.7 / +2.1 % at N = 512
  // (0.94 -> 0.96x cuDNN), +1.0 / +1.1 % at 1k, 0.1-1.1 % at 2k / 4k. In the producer_stores
  // kernels the K goes out just before the producer's stores (v23, with them above).
  bool second_key_before_output = false;
  // The unmasked kernel of the bucket's full width keeps the previous tile's P·V wait after the
  // exponentials (forward_kernel.cuh, schedule_anchor). Left alone, ptxas hoists that wait above
  // the whole exp2 stream of the unmasked D = 128 kernel, so the exponentials never run under
  // the warpgroup's own P·V. Measured on an H100 (docs/perf-notes.md "v13", two calls):
  // +4–7 % at D = 128 N = 4k/16k non-causal, +0.5–1 % at 1k; the causal kernel (33 of its 66
  // exponentials already before the wait) lost 1–4 % and D = 64 3–5 %, so only this kernel.
  // D = 192 (0 of its 50 exponentials under the P·V without it) takes it too: +5–8 % beyond the
  // lazy rescale at N = 2k–16k non-causal, −0.5–+2.5 % at 1k (H100, perf-notes "v31").
  bool pin_pv_wait_unmasked = false;
  // TMA-store kernels write the LSE after O's TMA store is issued instead of before O is
  // staged (forward_kernel.cuh, epilogue). The staging's proxy fence (fence.proxy.async, SASS
  // MEMBAR.ALL.CTA) waits for the thread's earlier memory operations, the LSE's global stores
  // among them. The tile-boundary timeline (docs/perf-notes.md, "Tile-boundary timeline
  // (seventh session)") put the D = 128 epilogue at ~1,850 SM clocks, every consumer in it at
  // once, the tensor pipe idle; without the output stores (D = 64 slices below row 0) an
  // epilogue takes ~310. Measured on an H100 (same notes, two calls, in turns): D = 64 with the
  // TMA-store epilogue and this, against its register stores, +2.5 % at N = 1k causal, +1.3 %
  // at 1k and 16k, ±0.5 % at 4k causal and not (the TMA store alone: −3 to +1 %), so D = 64
  // takes both; D = 128 +0.4–0.9 % at 1k and −0.5 % at 4k: left off there.
  bool lse_after_output = false;
  // The tile decode at each tile boundary by integer divisions instead of TileDivisors'
  // multiplies and shifts (tile_scheduler.hpp; tenth session, docs/perf-notes.md "v17"). The
  // D = 256 consumers sit at the 240-register limit, and there ptxas spilled 4-20 bytes in
  // three kernels (unmasked width 256, both layouts; windowed width 224) with the multiply-shift
  // decode in any of the forms tried; their tiles are the longest, so the decode is the
  // smallest share of a tile there.
  bool divided_tile_decode = false;
  // Masked kernels: the first key tile a warpgroup walks (the rightmost, cut by the causal
  // diagonal) is split at half the tile (rounded up to P's 16-key chunks) by what its rows can
  // see (forward_kernel.cuh, kFirstTileCoverage): nothing (P = 0, no mask, no softmax; the
  // Q·Kᵀ is still issued: a branch around it made ptxas serialize every wgmma, C7515), only the
  // first part (mask, max, exponentials and sums over it alone, P = 0 after it), or all (the
  // mask tested only on the second part where every row sees the first). With Nq = Nk and
  // 128 × 128 tiles consumer 0 sees half of its diagonal tile and consumer 1 all of its first
  // half; in the 192-row D = 64 tiles one or two consumers see nothing of their first key tile;
  // with D = 256's 80-key tiles consumer 0 mostly sees nothing of it. SASS of the causal
  // D = 128 kernel before it (eleventh session, docs/perf-notes.md "v18"): the per-element mask
  // is 201 instructions per thread for 128 keys (96 ISETP, 64 FSEL, 33 VIADD) on top of the
  // softmax's ~330. Every key loop keeps its SASS (0 spills; the tests broadcast from lane 0,
  // else the D = 64 key loop left the uniform datapath and spilled). Heads-as-columns kernels
  // do without it. In a tile walked ascending (keys_ascending_even_rounds) the first key tile
  // is the leftmost, which the same tests cover, and the diagonal takes the loop's full mask.
  bool first_tile_coverage = false;
  // Masked launches whose (batch, head) pairs have at most this many query tiles run one pair
  // per scheduler group, as the unmasked launches do (tile_scheduler.hpp, heads_per_group): the
  // CTAs of a pair's query tiles then run in the same round and read its K/V from HBM once.
  // With the masked rule's groups (132 pairs at D = 128 N = 512) a round takes the same query
  // tile of many pairs, every CTA streams a different pair's K/V, and the later rounds find it
  // partly evicted. Eleventh session (docs/perf-notes.md "v19"; ncu, H100, D = 128 N = 512
  // causal): 260 MB read from DRAM against the 201 MB of Q, K and V, the 4-key-step tiles of
  // each group's first round 23.8k clocks against 15.1k for the same tile unmasked; in turns
  // (two calls), one-pair groups +20-22 % (D = 128) and +11-13 % (D = 256) at N = 512 causal,
  // +4-5 % / 0-3 % at 1k; 0.96-1.02 at 2k / 4k, so the bound stays at 8 query tiles.
  // D = 192 (128 x 96 tiles; eighteenth session, docs/perf-notes.md "v32"): alone +8-10 % at
  // N = 512 causal (ncu DRAM reads 223 -> 204 MB), +3-4 % at 1k; it takes it with the walk below.
  // D = 64 (192-row tiles, costs 1 / 3 / 4 key steps at N = 512 that the snake does not pair
  // evenly; simulated balance 0.90 against 0.97) measured ±0.5 % with one-pair groups at 512 and
  // 1k, so it takes small_n_pairs_per_query_tile below. Larger tile counts keep the rule: at
  // N = 16k one-pair groups lost 35-45 % (v14, balance).
  int one_pair_groups_max_m_blocks = 0;
  // Where one_pair_groups_max_m_blocks applies: groups of this many pairs per query tile of a
  // pair (tile_scheduler.hpp); 0 = one pair per group. D = 64's three tiles per pair at N = 512
  // (1 / 3 / 4 key steps) then take groups of 3 pairs (9 tiles, 1.5 MB of K/V; 44 pairs, 6 MB,
  // per round of the grid), against the rule's 220 pairs (29 MB) that read 38 MB of K/V twice
  // (ncu, eleventh session, docs/perf-notes.md "v19"). Host simulation (bench/results/
  // sm90-fwd-h100-2026-11-23-s11c/simulate_groups.py, 132 CTAs, LRU L2 of 24-32 MB): static
  // balance 0.970 as the rule's (one pair: 0.895) at N = 512 and 0.970 against 0.984 at 1k
  // (6 pairs), K/V read twice 45-60 MB -> 0 and 3-78 MB -> 0-9. D = 64 stops at 6 query tiles:
  // at 7 and 8 (N = 1153..1536) the groups' balance falls to 0.87-0.88 (rule 0.99).
  // Measured in turns (H100, two runs, eleventh session): N = 512 causal +8.0-8.5 % (0.91 ->
  // 0.98-0.99x cuDNN; DRAM reads 237 -> 202 MB), 1k causal +0.4-1.0 %, 2k / 4k / non-causal 1.00.
  int small_n_pairs_per_query_tile = 0;
  // Masked kernels, where one_pair_groups_max_m_blocks gives one pair per group (and
  // small_n_pairs_per_query_tile is 0): the tiles of even rounds walk their key tiles from the
  // first up, the diagonal last (forward_kernel.cuh, keys_ascending). A pair's query tiles cost
  // 7 / 5 / 4 / 2 key steps at D = 256 N = 512 (1..4 at D = 128) and sit on neighbouring CTAs;
  // the snake gives each CTA a heavy and a light tile in turn, so even rounds start together
  // and odd rounds end together. Walking down from the diagonal, a pair's tiles read each key
  // tile at the same moment only in the end-aligned rounds; in the start-aligned ones they read
  // the shared key tiles 1-2 steps apart, and L2 evicts them in between (ncu, D = 256 N = 512
  // causal: 209 MB read against 201 MB of Q, K, V; bench/results/
  // sm90-fwd-h100-2026-11-23-s11d/NOTES.md). Walking up there, they read key tile j at step j.
  // The diagonal step then takes the loop's full mask instead of first_tile_coverage (v18:
  // +-0.4 % at D = 256, +0.5 % at D = 128 N = 512). Measured on an H100 in turns (twelfth
  // session, bench/results/sm90-fwd-h100-2026-11-23-s12/, two runs): D = 256 causal +3.5-4.1 %
  // at N = 512 (0.91 -> 0.94-0.95x cuDNN; ncu DRAM reads 205-207 -> 201.4 MB, K/V once),
  // +6.6-8.1 % at 1k; D = 128 causal +1.8-2.8 % at 512, +2.8-3.8 % at 1k; 2k causal and
  // non-causal launches unchanged (outputs equal bit for bit, 0.99-1.01). D = 192 with one-pair
  // groups (eighteenth session, docs/perf-notes.md "v32", H100, two runs in turns): causal
  // +11-15 % at N = 512 (0.83-0.85 -> 0.95x cuDNN; DRAM reads 223 -> 189 MB, K/V once), +7-8 %
  // at 1k (1.00 -> 1.07-1.08x), 2k / 4k causal 0.99-1.00, non-causal 1k 1.00-1.01.
  bool keys_ascending_even_rounds = false;
  // Causal launches past one_pair_groups_max_m_blocks take the smallest balanced power-of-two
  // group (tile_scheduler.hpp balanced_small_group) instead of the rule's, as partial-box rows do
  // (forward.cuh). Twenty-sixth session (perf-notes "v37"; H100, bf16, B·N = 16k, every group
  // size in turns, bench/results/gpu-check-h100-2026-11-24-session26/call3/scan3.txt): one pair
  // against the rule's 32-33 at D = 256 causal 2k / 4k +5.6 / +6.2 % (wide K/V: 33 pairs hold
  // 130 MB against L2's 50), while at D = 128 2k / 4k / 8k +0.6 / +1.6 / -2.4 %, D = 192 4k -7 %
  // and D = 64 4k / 8k -2 / -17 %: only the 256 bucket takes it.
  bool balanced_small_causal_groups = false;
  // The per-score mask test of the heads-as-columns kernels (forward_kernel.cuh, masked_by) keeps
  // Mask::is_masked's short-circuit branches instead of is_masked_unbranched's compares and
  // selects, which every other kernel takes. Twenty-seventh session (desk, sm_90a SASS per
  // WindowMask kernel, BSSY / BRA): 128 bucket 82-116 / 334-406 -> 20-54 / 173-265, 192 bucket
  // 70-122 / 239-375 -> 24-76 / 143-279, 256 bucket (widths 208, 240, 256) 14-118 / 274-453 ->
  // 14-80 / 110-313, D = 64 8 / 376 -> 8 / 143; NoMask and CausalMask kernels unchanged; window
  // launches x1.15-1.32 (perf-notes "v38"). Width 224 keeps the branches in its heads-as-columns
  // kernels only: its windowed one (register stores, at the 240-register limit with masked
  // ping-pong) spilled 4 bytes (24 bytes of loads) with the selects (ptxas); its other windowed
  // kernels take the selects with 0 spills: window launches x1.07-1.10 at D = 224, x1.01-1.04 at
  // D = 216 (twenty-eighth session, perf-notes "v39").
  bool heads_as_columns_branched_mask_test = false;
};

template <int kHeadDimBucket>
struct TileConfig;

template <>
struct TileConfig<64> {
  static constexpr TileShape kShape{.block_m = 192,
                                    .block_n = 128,
                                    .stages = 3,
                                    .ping_pong = true,
                                    .ping_pong_masked = true,
                                    .tma_store = true,
                                    .tma_store_masked = true,
                                    .lse_after_output = true,
                                    .first_tile_coverage = true,
                                    .one_pair_groups_max_m_blocks = 6,
                                    .small_n_pairs_per_query_tile = 1};
};
template <>
struct TileConfig<128> {
  static constexpr TileShape kShape{.block_m = 128,
                                    .block_n = 128,
                                    .stages = 2,
                                    .ping_pong = true,
                                    .ping_pong_masked = true,
                                    .tma_store = true,
                                    .tma_store_masked = true,
                                    .pin_pv_wait_unmasked = true,
                                    .first_tile_coverage = true,
                                    .one_pair_groups_max_m_blocks = 8,
                                    .keys_ascending_even_rounds = true};
};
template <>
struct TileConfig<192> {
  static constexpr TileShape kShape{.block_m = 128,
                                    .block_n = 96,
                                    .stages = 2,
                                    .ping_pong = true,
                                    .ping_pong_masked = true,
                                    .tma_store = true,
                                    .tma_store_masked = true,
                                    .pin_pv_wait_unmasked = true,
                                    .one_pair_groups_max_m_blocks = 8,
                                    .keys_ascending_even_rounds = true};
};
template <>
struct TileConfig<256> {
  static constexpr TileShape kShape{.block_m = 128,
                                    .block_n = 80,
                                    .stages = 2,
                                    .ping_pong = true,
                                    .ping_pong_masked = false,
                                    .tma_store = true,
                                    .tma_store_masked = true,
                                    .producer_stores = true,
                                    .second_key_before_output = true,
                                    .divided_tile_decode = true,
                                    .first_tile_coverage = true,
                                    .one_pair_groups_max_m_blocks = 8,
                                    .keys_ascending_even_rounds = true,
                                    .balanced_small_causal_groups = true};
};

// Online-softmax rescale threshold in powers of two (forward_kernel.cuh, online_softmax and
// lazy_rescale, which names the kernels that use it): a row keeps its running max until a tile's
// scores exceed it by more than 2^threshold, and a warp skips rescaling O when none of its rows
// moved. At D = 256 the rescale was 19 % of all executed instructions (128 multiplies per thread
// per 80 keys; ncu SourceCounters, v9). 0 = the max follows every tile, O rescaled every tile.
// 8 as in FlashAttention-4: P stays <= 256, well inside fp16/bf16 for the P·V operand.
inline constexpr float kRescaleThresholdLog2 = 8.0f;

// Work widths compiled per bucket, narrowest first, the bucket itself last (any D of the bucket
// falls back to it); a D whose width is not listed would run at the next listed one.
template <int kHeadDimBucket>
struct WorkWidths {
  using List = std::integer_sequence<int, kHeadDimBucket>;
};
template <>
struct WorkWidths<128> {
  using List = std::integer_sequence<int, 80, 96, 112, 128>;
};
template <>
struct WorkWidths<192> {
  using List = std::integer_sequence<int, 144, 160, 176, 192>;
};
template <>
struct WorkWidths<256> {
  using List = std::integer_sequence<int, 208, 224, 240, 256>;
};

// A second shape per bucket, the "fit shape", for the launches of the masks it names (kUnmasked,
// kCausal) where the bucket's tiles walk much more padded area than the fit shape's: forward.cuh's
// launch_forward picks it by tile_scheduler.hpp's fit_shape_pays. Only the bucket's full work
// width has it.
// - D = 64, unmasked: 256 x 64 tiles (four consumers of 112 registers, a 4-stage ring of 16 KB
//   K/V tiles). The bucket's 192-row tiles pad N = 512 and 1k by 12.5 %; these pad nothing, but
//   each unit of tile area costs ~7.5 % more (a quarter more issued instructions per score,
//   partly hidden by the fourth warp per scheduler). Measured on an H100 in turns (eighteenth
//   session, docs/perf-notes.md "v33"; D = 64 non-causal, B·N = 16k, H = 32): +4.2-5.8 % at
//   N = 512 and 1k, -4 % at 2k (3 % padding); causal -7 %, so masked launches keep 192 rows.
// - D = 256, causal: the bucket's shape with 64-key tiles. 80-key tiles do not divide the
//   128-row query tiles, so a causal walk at N = 512 covers 18 x 80 keys per pair against
//   20 x 64 (12.5 % more area); each unit of area costs 5-8 % more with 64 keys (25 % more key
//   steps). Measured on an H100 in turns (eighteenth session, docs/perf-notes.md "v34"): causal
//   +3.9-4.2 % at N = 512 (0.96 -> 1.00x cuDNN), +0.4-2.2 % at 1k, -2.6 % at 2k; non-causal
//   +0.5 % at 512 and -7 to -11 % at 1k-4k, so unmasked launches keep 80 keys.
// - D = 192, unmasked and causal: the bucket's shape with 64-key tiles. 96-key tiles walk 12.5 %
//   more area at N = 512 either way (causal 15 x 96 keys per pair against 20 x 64; unmasked 576
//   keys against 512). Measured on an H100 in turns (nineteenth session, docs/perf-notes.md
//   "v35"; B·N = 16k, H = 16): causal +5.8-7.4 % at N = 512 (0.95 -> 1.01x cuDNN), -0.1 to -0.3 %
//   at 1k (area ratio 1.06, so the bucket's shape stays); unmasked +1.7-2.9 % at 512
//   (0.98 -> 1.01x cuDNN), -4 to -8 % at 1k-4k (ratio 1.03 and less). A third 48 KB stage gave
//   +0.7 % more unmasked at 512 but -3 to -6 % causal, so both keep two.
constexpr TileShape with_block_n(TileShape shape, int block_n) {
  shape.block_n = block_n;
  return shape;
}
template <int kHeadDimBucket>
struct FitTileConfig {
  static constexpr bool kCompiled = false;
};
template <>
struct FitTileConfig<64> {
  static constexpr bool kCompiled = true;
  static constexpr bool kUnmasked = true;
  static constexpr bool kCausal = false;
  static constexpr TileShape kShape{.block_m = 256,
                                    .block_n = 64,
                                    .stages = 4,
                                    .ping_pong = true,
                                    .ping_pong_masked = false,  // never launched masked
                                    .tma_store = true,
                                    .lse_after_output = true};
};
// D = 192 and 256: the bucket's own shape on kFitKeys-key tiles, for the masks named.
inline constexpr int kFitKeys = 64;
template <int kHeadDimBucket, bool kUnmaskedArg, bool kCausalArg>
struct FitKeysTileConfig {
  static constexpr bool kCompiled = true;
  static constexpr bool kUnmasked = kUnmaskedArg;
  static constexpr bool kCausal = kCausalArg;
  static constexpr TileShape kShape = with_block_n(TileConfig<kHeadDimBucket>::kShape, kFitKeys);
};
template <>
struct FitTileConfig<192> : FitKeysTileConfig<192, /*kUnmasked=*/true, /*kCausal=*/true> {};
template <>
struct FitTileConfig<256> : FitKeysTileConfig<256, /*kUnmasked=*/false, /*kCausal=*/true> {};

// The tile shape of one (bucket, work width): the bucket's, except where a narrower width frees
// registers that a bucket kernel lacks. kFitShape: the bucket's fit shape (FitTileConfig).
template <int kHeadDimBucket, int kWidth, bool kFitShape = false>
struct WidthTileConfig {
  static constexpr TileShape kShape = TileConfig<kHeadDimBucket>::kShape;
};
template <int kHeadDimBucket, int kWidth>
struct WidthTileConfig<kHeadDimBucket, kWidth, true> {
  static constexpr TileShape kShape = FitTileConfig<kHeadDimBucket>::kShape;
};
// Widths 208 and 224 (D = 193..224): O takes 104 / 112 registers instead of 128, and the masked
// kernels fit ping-pong (ptxas: 0 spills at 240 registers), which the D = 256 masked kernels
// cannot. Width 240 cannot either (ptxas: 40 bytes spilled in the windowed kernels).
constexpr TileShape with_masked_ping_pong(TileShape shape) {
  shape.ping_pong_masked = true;
  return shape;
}
constexpr TileShape with_heads_as_columns_branched_mask_test(TileShape shape) {
  shape.heads_as_columns_branched_mask_test = true;
  return shape;
}
template <>
struct WidthTileConfig<256, 208> {
  static constexpr TileShape kShape = with_masked_ping_pong(TileConfig<256>::kShape);
};
template <>
struct WidthTileConfig<256, 224> {
  static constexpr TileShape kShape =
      with_heads_as_columns_branched_mask_test(with_masked_ping_pong(TileConfig<256>::kShape));
};

// Widths compiled with sector-aligned boxes (forward_kernel.cuh, kSectorBoxes): W = D + 8 for the
// head dims D = 16·k + 8 of the odd-head-dim target (72, 104, 136, 152, 200, 216), whose packed
// rows start 16 bytes into a 32-byte L2 sector at every other head. Not the windowed kernels of
// the 192 bucket: their producers (24 registers) spilled 8 bytes with the shifts (ptxas).
constexpr bool sector_boxes_compiled(int bucket, int width, bool windowed = false) {
  switch (bucket) {
    case 128: return width == 80 || width == 112;
    case 192: return (width == 144 || width == 160) && !windowed;
    case 256: return width == 208 || width == 224;
    default: return false;
  }
}

// The work width of a head dim: wgmma's k-step is 16 columns.
inline constexpr int kWorkWidthStep = 16;
constexpr int work_width(long long head_dim) {
  return static_cast<int>((head_dim + kWorkWidthStep - 1) / kWorkWidthStep * kWorkWidthStep);
}

// The buckets in increasing order: a head dim runs in the first bucket that holds it.
inline constexpr int kHeadDimBuckets[] = {64, 128, 192, 256};

// The work width a launch in `bucket` runs for `needed_width` columns: the narrowest listed
// width that covers them (forward.cuh's launch walks the same list), or 0 if none does. Host
// code (the tests) asks it which columns a kernel's boxes reach, e.g. in a build whose pruned
// head dims send D = 129 to the 256 bucket (width 208) instead of 192's width 144.
template <int kHeadDimBucket>
constexpr int listed_work_width(int needed_width) {
  return []<int... kWidths>(std::integer_sequence<int, kWidths...>, int needed) {
    int chosen = 0;
    ((chosen = chosen == 0 && needed <= kWidths ? kWidths : chosen), ...);
    return chosen;
  }(typename WorkWidths<kHeadDimBucket>::List{}, needed_width);
}
constexpr int listed_work_width(int bucket, int needed_width) {
  switch (bucket) {
    case 64: return listed_work_width<64>(needed_width);
    case 128: return listed_work_width<128>(needed_width);
    case 192: return listed_work_width<192>(needed_width);
    case 256: return listed_work_width<256>(needed_width);
    default: return 0;
  }
}
static_assert(listed_work_width(192, 144) == 144 && listed_work_width(256, 144) == 208 &&
              listed_work_width(128, 129) == 0 && listed_work_width(64, 40) == 64);

constexpr int head_dim_bucket(long long head_dim) {
  for (int bucket : kHeadDimBuckets) {
    if (head_dim <= bucket) return bucket;
  }
  return 0;
}

}  // namespace fattn::detail::sm90
