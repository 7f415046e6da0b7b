// Which CTA of the persistent Hopper forward kernel computes which (query block, head, batch).
// Host- and device-compilable, so the mapping is unit-tested on the CPU.
//
// Order: the (batch, head) pairs are cut into groups of `heads_per_group`; within a group, query
// blocks run from the last to the first (under a causal mask, heaviest first) with the pairs of
// the group varying fastest. So the CTAs running at one time work on few heads (their K and V
// read from L2, not HBM) and on query blocks of about the same cost.
// Assignment: persistent CTAs take the ordered tiles round by round in "snake" order (round j
// hands position j·G + k to CTA k when j is even, j·G + G-1-k when odd, G = number of CTAs), so
// the CTA that drew the heaviest tile of one round draws the lightest of the next: with costs
// that fall steadily along the order, every CTA ends up with about the same total.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <vector>

#include "common/fast_divisor.hpp"
#include "common/host_device.hpp"

namespace fattn::detail::sm90 {

struct TileDivisors;

struct TileScheduler {
  int num_m_blocks;
  int heads;
  int total_pairs;      // batch · heads
  int heads_per_group;  // (batch, head) pairs per group, 1..total_pairs

  FATTN_HOST_DEVICE int total_tiles() const { return num_m_blocks * total_pairs; }

  // The ordered position of CTA `cta`'s tile in round `round` (may be >= total_tiles()).
  FATTN_HOST_DEVICE int position(int round, int cta, int ctas) const {
    return round * ctas + ((round & 1) ? ctas - 1 - cta : cta);
  }

  FATTN_HOST_DEVICE void decode(int position, int* m_block, int* head, int* batch) const {
    const int group = position / (heads_per_group * num_m_blocks);
    const int within = position - group * heads_per_group * num_m_blocks;
    const int left = total_pairs - group * heads_per_group;
    const int pairs_in_group = left < heads_per_group ? left : heads_per_group;
    *m_block = num_m_blocks - 1 - within / pairs_in_group;
    const int pair = group * heads_per_group + within % pairs_in_group;
    *head = pair % heads;
    *batch = pair / heads;
  }

  // decode() by the divisors of TileDivisors (built from this scheduler): multiplies
  // and shifts instead of three dependent integer divisions at every tile boundary, the
  // boundary's serial code that every consumer runs while the tensor pipe idles
  // (docs/perf-notes.md, sm90 "Tile-boundary timeline", "v16").
  FATTN_HOST_DEVICE void decode(int position, const TileDivisors& divisors, int* m_block,
                                int* head, int* batch) const;
  // The same where every group is one pair (heads_per_group == 1: the unmasked kernels, whose
  // tiles all cost the same; heads_per_group() below): two divisors instead of four. With the
  // general decode the unmasked D = 64 kernel (three consumers at 160 registers) spilled 36
  // bytes.
  FATTN_HOST_DEVICE void decode_one_pair_groups(int position, const TileDivisors& divisors,
                                                int* m_block, int* head, int* batch) const;
};

// The divisors of TileScheduler::decode, built once per CTA (two 64-bit divisions each); the
// last group may hold fewer pairs than the others.
struct TileDivisors {
  FastDivisor tiles_per_group;  // heads_per_group · num_m_blocks
  FastDivisor pairs_per_group;
  FastDivisor pairs_in_last_group;
  FastDivisor heads;
  int last_group = 0;

  TileDivisors() = default;
  FATTN_HOST_DEVICE explicit TileDivisors(const TileScheduler& scheduler)
      : tiles_per_group(at_least_one(scheduler.heads_per_group * scheduler.num_m_blocks)),
        pairs_per_group(at_least_one(scheduler.heads_per_group)),
        heads(at_least_one(scheduler.heads)),
        last_group(scheduler.total_pairs > 0
                       ? (scheduler.total_pairs - 1) / at_least_one(scheduler.heads_per_group)
                       : 0) {
    pairs_in_last_group = FastDivisor(
        at_least_one(scheduler.total_pairs - last_group * scheduler.heads_per_group));
  }

 private:
  FATTN_HOST_DEVICE static int at_least_one(int value) { return value > 0 ? value : 1; }
};

FATTN_HOST_DEVICE void TileScheduler::decode(int position, const TileDivisors& divisors,
                                             int* m_block, int* head, int* batch) const {
  const int group = divisors.tiles_per_group.divide(position);
  const int within = position - group * divisors.tiles_per_group.value();
  const bool in_last_group = group == divisors.last_group;
  const int blocks_from_last = in_last_group ? divisors.pairs_in_last_group.divide(within)
                                             : divisors.pairs_per_group.divide(within);
  const int pairs_in_group =
      in_last_group ? divisors.pairs_in_last_group.value() : divisors.pairs_per_group.value();
  *m_block = num_m_blocks - 1 - blocks_from_last;
  const int pair = group * heads_per_group + (within - blocks_from_last * pairs_in_group);
  *batch = divisors.heads.divide(pair);
  *head = pair - *batch * heads;
}

FATTN_HOST_DEVICE void TileScheduler::decode_one_pair_groups(int position,
                                                             const TileDivisors& divisors,
                                                             int* m_block, int* head,
                                                             int* batch) const {
  const int pair = divisors.tiles_per_group.divide(position);
  *m_block = num_m_blocks - 1 - (position - pair * num_m_blocks);
  *batch = divisors.heads.divide(pair);
  *head = pair - *batch * heads;
}

// The keys a causal query tile sees (bottom-right aligned: Nk - Nq keys left of the diagonal):
// those up to its last row's last key, none where every row is masked. `row_end` is one past the
// tile's last row.
inline std::int64_t causal_keys_seen(std::int64_t row_end, std::int64_t seqlen_q,
                                     std::int64_t seqlen_k) {
  return std::clamp<std::int64_t>(std::min(row_end, seqlen_q) + seqlen_k - seqlen_q, 0, seqlen_k);
}

// The score area a forward launch's tiles cover per (batch, head) pair, padding included: each
// query tile of block_m rows times the key tiles of block_n it walks. Unmasked, every query tile
// walks all of ceil(seqlen_k / block_n) key tiles; causal (bottom-right aligned, Nk - Nq keys to
// the left of the diagonal), query tile m walks the key tiles up to its last row's last key,
// none where every row is masked.
inline std::int64_t walked_tile_area(std::int64_t seqlen_q, std::int64_t seqlen_k, int block_m,
                                     int block_n, bool causal) {
  const auto round_up = [](std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; };
  const std::int64_t query_tiles = (seqlen_q + block_m - 1) / block_m;
  if (!causal) return query_tiles * block_m * round_up(seqlen_k, block_n);
  std::int64_t area = 0;
  for (std::int64_t m = 0; m < query_tiles; ++m) {
    area += block_m * round_up(causal_keys_seen((m + 1) * block_m, seqlen_q, seqlen_k), block_n);
  }
  return area;
}

// A launch takes its bucket's fit shape (tile_config.hpp, FitTileConfig) where the bucket's
// tiles cover at least 11/10 of the fit shape's area. A unit of area cost 1.071-1.078 (D = 64's
// 256 x 64, unmasked, N = 512 / 1k / 2k) and 1.045-1.082 (D = 256's 64-key tiles, causal,
// N = 512 / 1k / 2k) of the bucket shape's on an H100 (docs/perf-notes.md "v33", "v34"), so
// below about 1.08 the bucket's shape is faster; 11/10 leaves a margin. D = 192's 64-key tiles
// (v35) cost 1.05-1.07 causal but 1.08-1.10 unmasked, which the margin barely covers: its
// unmasked launches take them only at ratio 1.125 (N = 481..512, +2-3 %). The costs were measured
// at N = 512-2048; launches of fewer than kFitMinQueries query rows (where a tile's fixed cost,
// not its area, sets the time) and launches without keys keep the bucket's shape. With Nq = Nk
// that leaves D = 64 unmasked at N = 385..512, 961..1024, 1153..1216 (ratios 1.10-1.29),
// D = 192 unmasked at N = 481..512 and causal at 384..448, 481..512, 577..640 (1.10-1.13; 1k:
// 1.03 / 1.06), and D = 256 causal at N = 384, 401..448, 481..512, 561..576 (1.10-1.13; 1k:
// 1.06).
inline constexpr int kFitAreaRatioNumerator = 11;
inline constexpr int kFitAreaRatioDenominator = 10;
inline constexpr std::int64_t kFitMinQueries = 384;
inline bool fit_shape_pays(std::int64_t seqlen_q, std::int64_t bucket_area,
                           std::int64_t fit_area) {
  return seqlen_q >= kFitMinQueries && fit_area > 0 &&
         bucket_area * kFitAreaRatioDenominator >= fit_area * kFitAreaRatioNumerator;
}

// Rounds of similar-cost tiles a group should span for the snake to even out uneven (masked)
// tile costs. Simulated balance of the static schedule (total work / (CTAs · busiest CTA)) over
// the causal benchmark sweep: 0.56–0.95 with L2-sized groups alone, 0.86–1.0 with this rule.
inline constexpr std::int64_t kBalanceRounds = 8;
// A group larger than L2 holds still shares K/V through L2 while each of its heads has several
// CTAs running at once (they walk the same keys at about the same time); beyond that, K/V would
// be fetched from HBM once per query block.
inline constexpr std::int64_t kMinCtasPerHead = 4;

// A group size of at least one pair and at most the launch's pairs.
inline int clamp_to_pairs(std::int64_t pairs, std::int64_t total_pairs) {
  return static_cast<int>(
      std::clamp<std::int64_t>(pairs, 1, std::max<std::int64_t>(total_pairs, 1)));
}

// Pairs per group. Unmasked (every tile costs the same): 1, i.e. a head's query blocks run side
// by side and share its K/V through L2 as they stream it; measured on an H100 against groups
// sized to L2, this was 0–23% faster (largest at N = 512; docs/perf-notes.md, sm90). Masked: as
// many pairs as keep their K and V in half of L2, and enough that a group spans kBalanceRounds
// rounds of the grid, as long as every head keeps kMinCtasPerHead CTAs per round.
//
// Whole rounds: the snake evens costs out only inside a stretch of the
// order whose costs fall steadily; where a group ends inside a round of the grid, the next
// group's heaviest tiles land in that round's last positions, i.e. on the CTAs that the snake
// had just given the heaviest tiles. So the pair count is rounded up to a multiple of
// ctas / gcd(num_m_blocks, ctas), which makes a group's tiles fill whole rounds. Simulated
// balance over the causal sweep (D 64/128/256 x N 512..16k, cost = key tiles + 1/2 per tile,
// 132 CTAs): geometric mean 0.940 -> 0.987 (best group size per point: 0.993); D = 128 N = 1k
// 0.902 -> 0.995, D = 64 N = 16k 0.883 -> 0.998, D = 64 N = 2k 0.803 -> 0.972. Measured on an
// H100 against the rule without it (docs/perf-notes.md "v9", call 1, two runs): causal D = 128
// +6 / +6 / +9 % at N = 1k / 4k / 16k, D = 64 N = 16k +8 %, D = 256 unchanged (same groups).
//
// Masked launches with few query tiles per pair (num_m_blocks <= one_pair_groups_max_m_blocks, a
// bucket's TileShape) also take one pair per group: at N <= 1k the kernel is close to the DRAM
// bound, and the rule's groups (a round takes the same query tile of ~132 pairs, every CTA
// streaming its own pair's K/V) read K/V from HBM more than once (tile_config.hpp says what was
// measured). Where the bucket sets small_n_pairs_per_query_tile (TileShape), such launches take
// groups of that many pairs per query tile of a pair instead: a group's tiles then hold every
// cost several times over, which the snake evens out, while the pairs in flight stay few
// (tile_config.hpp says why D = 64 takes them).
inline int heads_per_group(std::int64_t l2_bytes, std::int64_t kv_bytes_per_pair,
                           std::int64_t total_pairs, std::int64_t num_m_blocks, std::int64_t ctas,
                           bool uneven_costs, std::int64_t one_pair_groups_max_m_blocks = 0,
                           std::int64_t small_n_pairs_per_query_tile = 0) {
  if (!uneven_costs) return 1;
  if (num_m_blocks <= one_pair_groups_max_m_blocks) {
    return clamp_to_pairs(small_n_pairs_per_query_tile * num_m_blocks, total_pairs);
  }
  const std::int64_t fits_l2 =
      std::max<std::int64_t>(1, l2_bytes / 2 / std::max<std::int64_t>(kv_bytes_per_pair, 1));
  const std::int64_t balanced =
      (kBalanceRounds * ctas + num_m_blocks - 1) / std::max<std::int64_t>(num_m_blocks, 1);
  std::int64_t pairs = std::max(fits_l2, std::min(balanced, ctas / kMinCtasPerHead));
  if (num_m_blocks > 0 && ctas > 0) {
    const std::int64_t pairs_per_whole_rounds = ctas / std::gcd(num_m_blocks, ctas);
    pairs = (pairs + pairs_per_whole_rounds - 1) / pairs_per_whole_rounds * pairs_per_whole_rounds;
  }
  return clamp_to_pairs(pairs, total_pairs);
}


// ---- balanced small groups for large-N causal launches --------------------------------------
//
// The static snake evens costs out only where they fall steadily along the order; a group that
// ends inside a round breaks that, and how badly depends on the pair count, not on the group
// size alone. Simulated over the causal launches below (132 CTAs, cost = key tiles + 1/2 per
// tile), one-pair groups balance 0.97 at 32 / 64 / 128 pairs but 0.56-0.65 at 8-16 pairs and
// 0.84 at 48; the whole-rounds rule above balances 0.99+ everywhere but keeps 33 pairs' K/V in
// flight. Measured on an H100 (twenty-sixth session, bench/sm90_group_scan.py, every group size
// in turns, outputs bit for bit the same; perf-notes "v37"), causal bf16 at N = 16k: the speed
// of each group size tracks its simulated balance (D = 128, 16 pairs: one pair 421, two 403, four
// 538, eight 619, sixteen 660 TFLOP/s; balance 0.65 / 0.59 / 0.77 / 0.91 / 1.00), while among
// balanced groups the smaller is faster where K/V is wide (D = 240, 64 pairs: one pair 631, 33
// pairs 286 TFLOP/s; packed D = 136, 64 pairs: 490 against 234). So such launches take the
// smallest power-of-two group up to kSmallGroupMaxPairs whose simulated balance reaches
// kMinSmallGroupBalance, and the rule's groups where none does.
// 0.95, not higher: packed D = 136 causal at 2k (256 pairs, one pair balances 0.965, four 0.970)
// ran 395 / 382 / 365 TFLOP/s at one / two / four pairs (call 2), the smaller group faster.
inline constexpr double kMinSmallGroupBalance = 0.95;
inline constexpr int kSmallGroupMaxPairs = 16;
// A tile's fixed cost (its boundary: Q load, first softmax, epilogue) in units of key tiles:
// ~2,500 clocks against a ~3,000-clock key step at D = 128 (perf-notes "v24"), rounded down to
// the half that the whole-rounds rule's simulation used.
inline constexpr std::int64_t kTileFixedCostHalfKeyTiles = 1;
// Past this many tiles (about 250 rounds of 132 CTAs) every CTA draws so many tiles that one-pair
// groups balance about as well as the threshold asks whatever the pair count (simulated with
// 128-row and 128-key tiles, 16..512 query tiles per pair: worst 0.948 from 32k tiles, 0.972 from
// 64k, both at 256 query tiles per pair): the launch takes one pair per group without the
// simulation. Below it the simulation costs up to ~0.1 ms of host time per group size (O(tiles)),
// which balanced_small_group pays once per shape and thread (kBalanceCacheEntries).
inline constexpr std::int64_t kMaxSimulatedTiles = std::int64_t{1} << 15;
// Launch shapes whose group balanced_small_group remembers per host thread: a training or
// decoding loop repeats a handful of shapes.
inline constexpr int kBalanceCacheEntries = 8;

// Simulated balance (total work / (ctas · busiest CTA's work)) of the snake over a causal launch
// (bottom-right aligned: query tile m walks the key tiles up to its last row's last key) whose
// (batch, head) pairs are cut into groups of `pairs_per_group`, in TileScheduler::decode's order.
// `row_offset` as ForwardParams::row_offset (the last tile's padding moved before row 0).
inline double causal_schedule_balance(int num_m_blocks, int total_pairs, int pairs_per_group,
                                      int ctas, std::int64_t seqlen_q, std::int64_t seqlen_k,
                                      int block_m, int block_n, int row_offset) {
  if (num_m_blocks <= 0 || total_pairs <= 0 || ctas <= 0) return 1.0;
  std::vector<std::int64_t> cost(num_m_blocks);  // in halves of a key tile
  for (int m = 0; m < num_m_blocks; ++m) {
    const std::int64_t keys =
        causal_keys_seen(std::int64_t{m + 1} * block_m - row_offset, seqlen_q, seqlen_k);
    cost[m] = 2 * ((keys + block_n - 1) / block_n) + kTileFixedCostHalfKeyTiles;
  }
  std::vector<std::int64_t> work(ctas, 0);
  int slot = 0;
  bool odd_round = false;
  std::int64_t total = 0;
  for (int first_pair = 0; first_pair < total_pairs; first_pair += pairs_per_group) {
    const int pairs = std::min(pairs_per_group, total_pairs - first_pair);
    for (int m = num_m_blocks - 1; m >= 0; --m) {
      for (int pair = 0; pair < pairs; ++pair) {
        work[odd_round ? ctas - 1 - slot : slot] += cost[m];
        total += cost[m];
        if (++slot == ctas) {
          slot = 0;
          odd_round = !odd_round;
        }
      }
    }
  }
  const std::int64_t busiest = *std::max_element(work.begin(), work.end());
  return busiest > 0 ? static_cast<double>(total) / (static_cast<double>(ctas) * busiest) : 1.0;
}

// Pairs per group of a large-N causal launch: the smallest power of two up to
// kSmallGroupMaxPairs whose simulated balance reaches kMinSmallGroupBalance, else `rule_pairs`
// (heads_per_group's). See the measurements above.
inline int simulated_small_group(int num_m_blocks, int total_pairs, int ctas,
                                 std::int64_t seqlen_q, std::int64_t seqlen_k, int block_m,
                                 int block_n, int row_offset, int rule_pairs) {
  for (int pairs = 1; pairs <= kSmallGroupMaxPairs; pairs *= 2) {
    const int group = clamp_to_pairs(pairs, total_pairs);
    if (causal_schedule_balance(num_m_blocks, total_pairs, group, ctas, seqlen_q, seqlen_k,
                                block_m, block_n, row_offset) >= kMinSmallGroupBalance) {
      return group;
    }
    if (group == total_pairs) break;
  }
  return rule_pairs;
}

inline int balanced_small_group(int num_m_blocks, int total_pairs, int ctas, std::int64_t seqlen_q,
                                std::int64_t seqlen_k, int block_m, int block_n, int row_offset,
                                int rule_pairs) {
  if (std::int64_t{num_m_blocks} * total_pairs > kMaxSimulatedTiles) return 1;
  struct Entry {
    bool used;
    std::int64_t key[9];
    int group;
  };
  thread_local Entry cache[kBalanceCacheEntries] = {};
  thread_local int next_slot = 0;
  const std::int64_t key[9] = {num_m_blocks, total_pairs, ctas,      seqlen_q,  seqlen_k,
                               block_m,      block_n,     row_offset, rule_pairs};
  for (const Entry& entry : cache) {
    if (entry.used && std::equal(std::begin(key), std::end(key), std::begin(entry.key))) {
      return entry.group;
    }
  }
  Entry& entry = cache[next_slot];
  next_slot = (next_slot + 1) % kBalanceCacheEntries;
  entry.used = true;
  std::copy(std::begin(key), std::end(key), std::begin(entry.key));
  entry.group = simulated_small_group(num_m_blocks, total_pairs, ctas, seqlen_q, seqlen_k, block_m,
                                      block_n, row_offset, rule_pairs);
  return entry.group;
}

}  // namespace fattn::detail::sm90
