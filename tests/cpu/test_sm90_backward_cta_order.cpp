// The Hopper backward's CTA order (src/cuda/sm90/backward_cta_order.hpp), checked on the host:
// the mapping from block index to (key tile, KV head, batch) is a bijection onto the jobs in
// both orders, and with CtaOrder::heaviest_first the jobs come out in non-increasing work (query
// tiles per key tile, counted from the mask itself) under causal and one-sided window masks.
#include <gtest/gtest.h>

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
// tiles, 16 heads, 16 batches; N = 16k: 128 key tiles, 16 heads, 1 batch).
const std::vector<Grid> kGrids = {{1, 1, 1}, {1, 5, 3}, {7, 1, 1}, {7, 3, 2},
                                  {8, 16, 16}, {128, 16, 1}, {5, 1, 9}};
const KeyWorkSlope kSlopes[] = {KeyWorkSlope::flat, KeyWorkSlope::falling, KeyWorkSlope::rising};

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
    for (CtaOrder order : {CtaOrder::natural, CtaOrder::heaviest_first}) {
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
            << "grid " << g.key_tiles << "x" << g.heads_kv << "x" << g.batches;
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
              std::pair{CtaOrder::heaviest_first, KeyWorkSlope::flat}}) {
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

}  // namespace
}  // namespace fattn::detail::sm90
