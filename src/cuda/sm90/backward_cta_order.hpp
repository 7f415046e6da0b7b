// The order in which the Hopper backward's CTAs take their (key tile, KV head, batch) jobs.
//
// The grid is launched as (key tiles, KV heads, batch) and the hardware issues CTAs by linear
// block index, x fastest. Under a causal mask the first key tiles of a head carry the most query
// steps (key tile j of T sees ~T − j query tiles) and the last ones the fewest, so the natural
// order ends every head's run with its light tiles but places the last heads' heavy tiles in
// the last wave, where one heavy CTA sets the kernel's end while the other SMs idle.
// CtaOrder::heaviest_first issues the key tiles slowest, heaviest first, with the KV heads and
// batches fastest: every (head, batch) gets its heaviest tile in the first waves and the last
// wave holds only the lightest tiles (longest-processing-time-first list scheduling).
// Counted at the benchmark shapes (bf16, B·N = 16384, H·D = 2048; one CTA per SM, 132 SMs):
// the list-scheduling count gave heaviest_first +2–6 % under causal masks at N = 1k/4k.
// Measured on an H100 (bench/results/sm90-bwd-h100-2026-11-22-s6b/): 0.55–0.80 × the natural
// order's backward at N = 1k/4k and 0.93–0.98 × at 16k, so every row keeps CtaOrder::natural.
// The natural order's wave holds the key tiles of a few heads, which read the same Q/dO tiles
// and reduce into the same dQ rows in L2; heaviest_first spreads a wave over ~130 (head, batch)
// pairs whose Q/dO and dQ accumulators (~2 MB each at N = 4k, D = 64) no longer fit the 50 MB L2,
// and the lost reuse costs far more than the tail it saves (docs/perf-notes.md, "Hopper
// backward: CTA order under causal masks").
// CtaOrder::heaviest_first_groups_of_4 / _of_8 keep the natural order's L2 footprint and still
// move the heavy tiles forward: the (head, batch) pairs are cut into groups of G consecutive
// pairs (G = 4 or 8), issued group after group as in the natural order, and inside a group the
// key tiles go heaviest first with the group's pairs fastest. A wave then spans about as many
// pairs as a natural wave (132 SMs / T key tiles: ~4 at N = 4k, ~16 at 1k) and each group ends
// on its light tiles, which fill the tail. Counted (list scheduling, as above): G = 4 at N = 4k
// 0.997–0.999 busy against the natural order's 0.936–0.968 (+3–6 %); at N = 1k G needs ≥ 8.
// Not yet measured: prepared for bench/sm90_bwd_order_device_run.sh, every row stays natural.
//
// Host and device code (tests/cpu/test_sm90_backward_cta_order.cpp checks the mapping).
#pragma once

#include <cstdint>

#include "common/host_device.hpp"
#include "common/mask.hpp"

namespace fattn::detail::sm90 {

enum class CtaOrder {
  natural,
  heaviest_first,
  heaviest_first_groups_of_4,
  heaviest_first_groups_of_8
};

// (Head, batch) pairs per group of the grouped orders; 0 for the others. The two sizes bracket
// the pairs one wave of the natural order spans at the benchmark shapes (132 SMs over 32 key
// tiles at N = 4k: ~4; over 8 key tiles at N = 1k: ~16, where the count wants G ≥ 8), so that
// one device call shows which one keeps the L2 reuse and still fills the tail.
constexpr int kPairsPerGroupSmall = 4;
constexpr int kPairsPerGroupLarge = 8;
FATTN_HOST_DEVICE constexpr int pairs_per_group(CtaOrder order) {
  return order == CtaOrder::heaviest_first_groups_of_4   ? kPairsPerGroupSmall
         : order == CtaOrder::heaviest_first_groups_of_8 ? kPairsPerGroupLarge
                                                          : 0;
}

// How the number of query tiles a key tile sees runs along the key axis under a mask.
// flat: every key tile sees every query tile (no mask). falling: bounded on the right (causal,
// windows with a right bound; a two-sided band also falls at its end, and a light start is as
// harmless in the first waves as anywhere else). rising: windows bounded on the left only (the
// last keys are seen by the most queries).
enum class KeyWorkSlope { flat, falling, rising };

FATTN_HOST_DEVICE KeyWorkSlope key_work_slope(const NoMask&) { return KeyWorkSlope::flat; }
FATTN_HOST_DEVICE KeyWorkSlope key_work_slope(const CausalMask&) { return KeyWorkSlope::falling; }
FATTN_HOST_DEVICE KeyWorkSlope key_work_slope(const WindowMask& mask) {
  if (mask.right >= 0) return KeyWorkSlope::falling;
  return mask.left >= 0 ? KeyWorkSlope::rising : KeyWorkSlope::flat;
}

// One CTA's job.
struct BackwardCtaJob {
  int key_tile;
  int kv_head;
  int batch;
};

// The job of the CTA at block index (x, y, z) of a grid (key_tiles, heads_kv, batches).
// natural (or a flat slope): the block index itself. The others read the linear block index
// x + key_tiles·(y + heads_kv·z) (the issue order). heaviest_first: as (rank, pair) with the
// rank slowest and the (head, batch) pair fastest. Grouped: the pairs (head fastest, as in the
// natural order) are cut into groups of G; group g holds key_tiles·G consecutive linear indices
// (the last group fewer pairs when G does not divide heads·batches), read inside the group as
// (rank, pair of the group) with the rank slowest. Rank 0 is the heaviest key tile (the first
// one for a falling slope, the last one for a rising slope). A bijection of the grid onto the
// jobs in every order. 64-bit indices: key tiles · heads · batches may pass 2^31.
FATTN_HOST_DEVICE BackwardCtaJob backward_cta_job(int x, int y, int z, int key_tiles, int heads_kv,
                                                  int batches, CtaOrder order,
                                                  KeyWorkSlope slope) {
  if (order == CtaOrder::natural || slope == KeyWorkSlope::flat) return {x, y, z};
  const std::int64_t linear =
      x + static_cast<std::int64_t>(key_tiles) * (y + static_cast<std::int64_t>(heads_kv) * z);
  const std::int64_t pairs = static_cast<std::int64_t>(heads_kv) * batches;
  const int group_size = pairs_per_group(order);
  // heaviest_first is the grouped order with one group of every pair.
  const std::int64_t pairs_per_full_group = group_size > 0 ? group_size : pairs;
  const std::int64_t group = linear / (key_tiles * pairs_per_full_group);
  const std::int64_t first_pair = group * pairs_per_full_group;
  const std::int64_t pairs_in_group = pairs - first_pair < pairs_per_full_group
                                          ? pairs - first_pair
                                          : pairs_per_full_group;
  const std::int64_t within_group = linear - first_pair * key_tiles;
  const int rank = static_cast<int>(within_group / pairs_in_group);
  const std::int64_t pair = first_pair + within_group % pairs_in_group;
  const int key_tile = slope == KeyWorkSlope::falling ? rank : key_tiles - 1 - rank;
  return {key_tile, static_cast<int>(pair % heads_kv), static_cast<int>(pair / heads_kv)};
}

}  // namespace fattn::detail::sm90
