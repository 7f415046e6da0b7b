// The Hopper backward's CTA order (src/cuda/sm90/backward_cta_order.hpp), checked on the host:
// the mapping from block index to (key tile, KV head, batch) is a bijection onto the jobs in
// every order, with CtaOrder::heaviest_first the jobs come out in non-increasing work (query
// tiles per key tile, counted from the mask itself) under causal and one-sided window masks, and
// with the grouped orders the (head, batch) pairs come in contiguous groups of G, each group
// heaviest first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "common/mask.hpp"
#include "cuda/sm90/backward_cta_order.hpp"

namespace fattn::detail::sm90 {
namespace {

struct Grid {
  int key_tiles;
  int heads_kv;
  int batches;
};

// Shapes with one of everything, odd counts, and the benchmark's grids (D = 128 at N = 1k: 8 key
// tiles, 16 heads, 16 batches; N = 16k: 128 key tiles, 16 heads, 1 batch). Pair counts (heads ·
// batches) 1, 3, 6, 9, 15, 16, 256: below, equal to, multiples of and between the group sizes, so
// that the grouped orders meet a lone partial group, whole groups and a partial last group.
const std::vector<Grid> kGrids = {{1, 1, 1}, {1, 5, 3}, {7, 1, 1},  {7, 3, 2},   {8, 16, 16},
                                  {128, 16, 1}, {5, 1, 9}, {3, 3, 3}, {1, 16, 1}, {2, 1, 1}};
const KeyWorkSlope kSlopes[] = {KeyWorkSlope::flat, KeyWorkSlope::falling, KeyWorkSlope::rising};
const CtaOrder kOrders[] = {CtaOrder::natural, CtaOrder::heaviest_first,
                            CtaOrder::heaviest_first_groups_of_4,
                            CtaOrder::heaviest_first_groups_of_8};
const CtaOrder kGroupedOrders[] = {CtaOrder::heaviest_first_groups_of_4,
                                   CtaOrder::heaviest_first_groups_of_8};

// The jobs in the order the hardware issues the CTAs (linear block index, x fastest).
std::vector<BackwardCtaJob> jobs_in_issue_order(const Grid& g, CtaOrder order,
                                                KeyWorkSlope slope) {
  std::vector<BackwardCtaJob> jobs;
  for (int z = 0; z < g.batches; ++z)
    for (int y = 0; y < g.heads_kv; ++y)
      for (int x = 0; x < g.key_tiles; ++x)
        jobs.push_back(backward_cta_job(x, y, z, g.key_tiles, g.heads_kv, g.batches, order, slope));
  return jobs;
}

// Query tiles of block_m rows that see any key of [key0, key0 + block_n): the same test as the
// kernel's query_tile_range, on the host.
template <class Mask>
int query_tiles_seen(const Mask& mask, int block_m, int key0, int block_n) {
  int count = 0;
  for (int r0 = 0; r0 < mask.seqlen_q; r0 += block_m) {
    const int r1 = r0 + block_m < mask.seqlen_q ? r0 + block_m : mask.seqlen_q;
    const int kb = mask.key_begin(r0);
    const int ke = mask.key_end(r1);
    if (ke > kb && kb < key0 + block_n && ke > key0) ++count;
  }
  return count;
}

TEST(Sm90BackwardCtaOrder, EveryOrderIsABijectionOntoTheJobs) {
  for (const Grid& g : kGrids) {
    for (CtaOrder order : kOrders) {
      for (KeyWorkSlope slope : kSlopes) {
        std::set<std::tuple<int, int, int>> seen;
        for (const BackwardCtaJob& job : jobs_in_issue_order(g, order, slope)) {
          ASSERT_GE(job.key_tile, 0);
          ASSERT_LT(job.key_tile, g.key_tiles);
          ASSERT_GE(job.kv_head, 0);
          ASSERT_LT(job.kv_head, g.heads_kv);
          ASSERT_GE(job.batch, 0);
          ASSERT_LT(job.batch, g.batches);
          seen.insert({job.key_tile, job.kv_head, job.batch});
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(g.key_tiles) * g.heads_kv * g.batches)
            << "grid " << g.key_tiles << "x" << g.heads_kv << "x" << g.batches << ", order "
            << static_cast<int>(order);
      }
    }
  }
}

TEST(Sm90BackwardCtaOrder, NaturalOrderAndFlatSlopeKeepTheBlockIndex) {
  const Grid g{7, 3, 2};
  for (int z = 0; z < g.batches; ++z)
    for (int y = 0; y < g.heads_kv; ++y)
      for (int x = 0; x < g.key_tiles; ++x)
        for (const auto& [order, slope] :
             {std::pair{CtaOrder::natural, KeyWorkSlope::falling},
              std::pair{CtaOrder::heaviest_first, KeyWorkSlope::flat},
              std::pair{CtaOrder::heaviest_first_groups_of_4, KeyWorkSlope::flat},
              std::pair{CtaOrder::heaviest_first_groups_of_8, KeyWorkSlope::flat}}) {
          const BackwardCtaJob job = backward_cta_job(x, y, z, g.key_tiles, g.heads_kv,
                                                      g.batches, order, slope);
          EXPECT_EQ(job.key_tile, x);
          EXPECT_EQ(job.kv_head, y);
          EXPECT_EQ(job.batch, z);
        }
}

// Heaviest first: along the issue order the work never grows, and the first heads·batches CTAs
// are every (head, batch)'s heaviest key tile.
template <class Mask>
void expect_heaviest_first(const Mask& mask, int block_m, int block_n, int heads_kv,
                           int batches) {
  const Grid g{(mask.seqlen_k + block_n - 1) / block_n, heads_kv, batches};
  const std::vector<BackwardCtaJob> jobs =
      jobs_in_issue_order(g, CtaOrder::heaviest_first, key_work_slope(mask));
  int heaviest = 0;
  for (int t = 0; t < g.key_tiles; ++t) {
    const int work = query_tiles_seen(mask, block_m, t * block_n, block_n);
    heaviest = work > heaviest ? work : heaviest;
  }
  int previous = heaviest;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const int work = query_tiles_seen(mask, block_m, jobs[i].key_tile * block_n, block_n);
    EXPECT_LE(work, previous) << "CTA " << i << " (key tile " << jobs[i].key_tile << ")";
    if (i < static_cast<std::size_t>(heads_kv) * batches) {
      EXPECT_EQ(work, heaviest) << "CTA " << i;
    }
    previous = work;
  }
}

TEST(Sm90BackwardCtaOrder, CausalIssuesTheHeaviestKeyTilesFirst) {
  // The D = 128 tiles (64 queries, 128 keys) and D = 64's (128 × 128), square and Nk > Nq with a
  // ragged end, as in the benchmark (N = 1k: 8 key tiles).
  expect_heaviest_first(CausalMask{1024, 1024}, 64, 128, 16, 4);
  expect_heaviest_first(CausalMask{1013, 1013}, 128, 128, 3, 2);
  expect_heaviest_first(CausalMask{300, 517}, 64, 128, 2, 2);
  expect_heaviest_first(CausalMask{1013, 1013}, 64, 64, 1, 1);
}

TEST(Sm90BackwardCtaOrder, OneSidedWindowsIssueTheHeaviestKeyTilesFirst) {
  // Bounded on the right only (falling, as causal) and on the left only (rising: the last key
  // tiles are the heaviest and go first).
  expect_heaviest_first(WindowMask{1013, 1013, -1, 100}, 64, 128, 3, 2);
  expect_heaviest_first(WindowMask{700, 900, 300, -1}, 64, 128, 3, 2);
  EXPECT_EQ(key_work_slope(WindowMask{8, 8, -1, -1}), KeyWorkSlope::flat);
  EXPECT_EQ(key_work_slope(NoMask{8, 8}), KeyWorkSlope::flat);
}

// Grouped heaviest first: the pairs (pair = head + heads_kv · batch) come in groups of G
// consecutive pairs, each group's key_tiles · (pairs in it) CTAs contiguous in the issue order and
// the groups in the natural order of their pairs; inside a group the work never grows, the first
// (pairs in it) CTAs are each pair's heaviest key tile, and the group's pairs run fastest (each
// rank visits the group's pairs in order).
template <class Mask>
void expect_grouped_heaviest_first(const Mask& mask, int block_m, int block_n, int heads_kv,
                                   int batches, CtaOrder order) {
  const Grid g{(mask.seqlen_k + block_n - 1) / block_n, heads_kv, batches};
  const std::vector<BackwardCtaJob> jobs = jobs_in_issue_order(g, order, key_work_slope(mask));
  const int pairs = heads_kv * batches;
  const int group_size = pairs_per_group(order);
  ASSERT_GT(group_size, 0);
  int heaviest = 0;
  for (int t = 0; t < g.key_tiles; ++t)
    heaviest = std::max(heaviest, query_tiles_seen(mask, block_m, t * block_n, block_n));
  std::size_t i = 0;
  for (int first_pair = 0; first_pair < pairs; first_pair += group_size) {
    const int pairs_in_group = std::min(group_size, pairs - first_pair);
    int previous = heaviest;
    for (int rank = 0; rank < g.key_tiles; ++rank) {
      for (int p = 0; p < pairs_in_group; ++p, ++i) {
        ASSERT_LT(i, jobs.size());
        const BackwardCtaJob& job = jobs[i];
        EXPECT_EQ(job.kv_head + heads_kv * job.batch, first_pair + p)
            << "CTA " << i << ": group of pair " << first_pair << ", rank " << rank;
        const int work = query_tiles_seen(mask, block_m, job.key_tile * block_n, block_n);
        EXPECT_LE(work, previous) << "CTA " << i << " (key tile " << job.key_tile << ")";
        if (rank == 0) {
          EXPECT_EQ(work, heaviest) << "CTA " << i;
        }
        previous = work;
      }
    }
  }
  EXPECT_EQ(i, jobs.size());
}

TEST(Sm90BackwardCtaOrder, GroupedOrdersIssueEachGroupHeaviestFirst) {
  for (CtaOrder order : kGroupedOrders) {
    // The benchmark's D = 128 grid at N = 1k (8 key tiles, 16 heads, 16 batches: whole groups),
    // pair counts that leave a partial last group (3·2 = 6, 5·3 = 15) or only one partial
    // group (3), one key tile, and the one-sided windows (falling and rising).
    expect_grouped_heaviest_first(CausalMask{1024, 1024}, 64, 128, 16, 16, order);
    expect_grouped_heaviest_first(CausalMask{1013, 1013}, 128, 128, 3, 2, order);
    expect_grouped_heaviest_first(CausalMask{300, 517}, 64, 128, 5, 3, order);
    expect_grouped_heaviest_first(CausalMask{1013, 1013}, 64, 64, 3, 1, order);
    expect_grouped_heaviest_first(CausalMask{100, 100}, 64, 128, 5, 3, order);
    expect_grouped_heaviest_first(WindowMask{1013, 1013, -1, 100}, 64, 128, 3, 3, order);
    expect_grouped_heaviest_first(WindowMask{700, 900, 300, -1}, 64, 128, 3, 3, order);
  }
}

TEST(Sm90BackwardCtaOrder, GroupSizes) {
  EXPECT_EQ(pairs_per_group(CtaOrder::heaviest_first_groups_of_4), 4);
  EXPECT_EQ(pairs_per_group(CtaOrder::heaviest_first_groups_of_8), 8);
  EXPECT_EQ(pairs_per_group(CtaOrder::natural), 0);
  EXPECT_EQ(pairs_per_group(CtaOrder::heaviest_first), 0);
}

TEST(Sm90BackwardCtaOrder, LinearIndexPastTwoToTheThirtyOne) {
  // 2^20 key tiles · 4096 heads · 2 batches = 2^33 CTAs: the last block takes the lightest
  // (last) key tile of the last head and batch, the first block past 2^31 a valid job.
  const int key_tiles = 1 << 20;
  const int heads_kv = 4096;
  const int batches = 2;
  const BackwardCtaJob last =
      backward_cta_job(key_tiles - 1, heads_kv - 1, batches - 1, key_tiles, heads_kv, batches,
                       CtaOrder::heaviest_first, KeyWorkSlope::falling);
  EXPECT_EQ(last.key_tile, key_tiles - 1);
  EXPECT_EQ(last.kv_head, heads_kv - 1);
  EXPECT_EQ(last.batch, batches - 1);
  // Linear index 2^31 = x 0 of head 2048, batch 0: rank 2^31 / 8192 = 2^18, head-batch 0.
  const BackwardCtaJob middle = backward_cta_job(0, heads_kv / 2, 0, key_tiles, heads_kv,
                                                 batches, CtaOrder::heaviest_first,
                                                 KeyWorkSlope::falling);
  EXPECT_EQ(middle.key_tile, 1 << 18);
  EXPECT_EQ(middle.kv_head, 0);
  EXPECT_EQ(middle.batch, 0);
}

TEST(Sm90BackwardCtaOrder, GroupedLinearIndexPastTwoToTheThirtyOne) {
  // 2^20 key tiles · 4095 heads · 2 batches ≈ 2^33 CTAs, 8190 pairs: groups of 4 divide them
  // (2047 whole groups + one of 2), groups of 8 leave a last group of 6. The last block takes the
  // lightest key tile of the last pair; the first block past 2^31 and the first block of the last
  // group, worked out by hand, land where the grouped order puts them.
  const int key_tiles = 1 << 20;
  const int heads_kv = 4095;
  const int batches = 2;
  const std::int64_t pairs = static_cast<std::int64_t>(heads_kv) * batches;
  for (CtaOrder order : kGroupedOrders) {
    const std::int64_t group_size = pairs_per_group(order);
    const BackwardCtaJob last = backward_cta_job(key_tiles - 1, heads_kv - 1, batches - 1,
                                                 key_tiles, heads_kv, batches, order,
                                                 KeyWorkSlope::falling);
    EXPECT_EQ(last.key_tile, key_tiles - 1);
    EXPECT_EQ(last.kv_head, heads_kv - 1);
    EXPECT_EQ(last.batch, batches - 1);
    // Linear index 2^31 = x 0, y 2048, z 0 (2048 · 2^20): group 2^31 / (2^20 · G) = 2048 / G,
    // whose first linear index is exactly 2^31: rank 0, its first pair 2048 (head 2048, batch 0).
    const BackwardCtaJob middle = backward_cta_job(0, 2048, 0, key_tiles, heads_kv, batches,
                                                   order, KeyWorkSlope::falling);
    EXPECT_EQ(middle.key_tile, 0);
    EXPECT_EQ(middle.kv_head, 2048);
    EXPECT_EQ(middle.batch, 0);
    // The last group starts at pair first = (pairs − 1) / G · G with pairs − first pairs in it;
    // its linear index first · 2^20 + 1 · (pairs − first) + 1 is rank 1 of its second pair.
    const std::int64_t first = (pairs - 1) / group_size * group_size;
    const std::int64_t in_last = pairs - first;
    const std::int64_t linear = first * key_tiles + in_last + 1;
    const BackwardCtaJob in_last_group =
        backward_cta_job(static_cast<int>(linear % key_tiles),
                         static_cast<int>(linear / key_tiles % heads_kv),
                         static_cast<int>(linear / key_tiles / heads_kv), key_tiles, heads_kv,
                         batches, order, KeyWorkSlope::falling);
    EXPECT_EQ(in_last_group.key_tile, 1);
    EXPECT_EQ(in_last_group.kv_head + static_cast<std::int64_t>(heads_kv) * in_last_group.batch,
              first + 1);
  }
}

}  // namespace
}  // namespace fattn::detail::sm90
