// cuda_sm90-specific checks, beside the shared matrix in test_cuda_backends.cpp:
// - the selector's TMA rule: tensors whose pointers or strides are not 16-byte aligned are
//   refused by cuda_sm90 with a reason and fall back to cuda_sm80 (no GPU needed);
// - the persistent tile scheduler: more query tiles than SMs, several L2 head groups (the last
//   one partial), causal and windowed work of uneven cost, GQA;
// - head dims padded inside a bucket (TMA zero-fill) with row-padded layouts, whose padding must
//   stay untouched;
// - the persistent scheduler's mapping (CPU): every tile computed exactly once, by exactly the
//   loop the kernel runs, for any group size.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "api/device_query.hpp"
#include "api/selector.hpp"
#include "cuda/common/instances.hpp"
#include "cuda/sm90/tile_scheduler.hpp"
#include "device_buffer.hpp"
#include "support/pruning.hpp"
#include "support/simulated_device.hpp"
#include "support/test_tensors.hpp"

namespace fattn::testing {
namespace {

constexpr double kLseTolerance = 1e-5;

// Fixture of the GPU suites: they need a Hopper GPU and the cuda_sm90 family in the build.
template <class Case>
class OnHopper : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
    if (!backend_compiled(Backend::cuda_sm90)) GTEST_SKIP() << "cuda_sm90 is not compiled";
    if (detail::query_cuda_device(0).compute_capability != 90) GTEST_SKIP() << "not a Hopper GPU";
  }
};

// Runs the forward on `backend` into NaN-poisoned outputs (padding included) and compares out
// and LSE with the fp64 reference; `got_out`, if given, receives the output as copied back.
// Skips when the build's pruning left the kernel out (the named backend's, or every one
// automatic would take).
void expect_forward_matches_reference(AttentionTensors& t, Options options, Backend backend,
                                      HostTensor* got_out = nullptr) {
  HostTensor ref_out = clone(t.out), ref_lse = clone(t.lse);
  options.backend = Backend::cpu_reference;
  ASSERT_TRUE(forward(t.q.view, t.k.view, t.v.view, ref_out.view, ref_lse.view, options).ok());

  poison(t.out);
  poison(t.lse);
  DeviceBuffer q(t.q), k(t.k), v(t.v), out(t.out), lse(t.lse);
  options.backend = backend;
  if (auto pruned = pruned_from_build(
          backend, Problem::describe(q.view, k.view, options, Direction::forward))) {
    GTEST_SKIP() << *pruned;
  }
  const Status s = forward(q.view, k.view, v.view, out.view, lse.view, options);
  // Backend::automatic names the pruned kernels in its "no backend can run" reasons.
  if (!s.ok() && s.message().find(detail::kPrunedFromBuild) != std::string::npos) {
    GTEST_SKIP() << s.message();
  }
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  HostTensor copied_out = out.to_host(t.out);
  const HostTensor copied_lse = lse.to_host(t.lse);
  EXPECT_LE(relative_error(copied_out, ref_out), tolerance_for(t.out.view.dtype)) << "out";
  EXPECT_LE(relative_error(copied_lse, ref_lse), kLseTolerance) << "lse";
  if (got_out != nullptr) *got_out = std::move(copied_out);
}

Problem hopper_problem(std::int64_t head_dim, std::size_t alignment_bytes) {
  Problem p;
  p.batch = 1;
  p.seqlen_q = 128;
  p.seqlen_k = 128;
  p.heads_q = 2;
  p.heads_kv = 2;
  p.head_dim = head_dim;
  p.dtype = DType::bfloat16;
  p.device = Device::cuda(0);
  p.direction = Direction::forward;
  p.alignment_bytes = alignment_bytes;
  return p;
}

// cuda_sm90, asked by name, refuses `problem` with a reason containing `reason_part`, and
// automatic picks cuda_sm80 (where this build holds its kernel).
void expect_refused_by_sm90_and_run_by_sm80(Problem problem, const char* reason_part) {
  problem.options.backend = Backend::cuda_sm90;
  const Selection refused = detail::select_backend(problem, simulated_hopper());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.reason.find(reason_part), std::string::npos) << refused.reason;

  problem.options.backend = Backend::automatic;
  const Selection fallback = detail::select_backend(problem, simulated_hopper());
  if (!detail::why_no_compiled_instance(Backend::cuda_sm80, problem)) {
    ASSERT_TRUE(fallback.ok()) << fallback.reason;
    EXPECT_EQ(*fallback.backend, Backend::cuda_sm80);
  }
}

TEST(Sm90Selector, UnalignedStridesFallBackWithAReason) {
  if (!backend_compiled(Backend::cuda_sm90)) GTEST_SKIP() << "cuda_sm90 is not compiled";
  // D = 129 packed: rows are 258 bytes apart, only 2-byte aligned.
  Problem packed_odd = hopper_problem(129, 2);
  // A build pruned with FATTN_CUDA_HEAD_DIMS may lack the bucket that holds D = 129.
  if (auto why = detail::why_no_compiled_instance(Backend::cuda_sm90, packed_odd)) {
    GTEST_SKIP() << *why;
  }
  expect_refused_by_sm90_and_run_by_sm80(packed_odd, "16-byte");

  // The same head dim with rows padded to a 16-byte multiple is taken.
  Problem padded = hopper_problem(129, 16);
  padded.options.backend = Backend::cuda_sm90;
  const Selection taken = detail::select_backend(padded, simulated_hopper());
  EXPECT_TRUE(taken.ok()) << taken.reason;
}

TEST(Sm90Selector, NegativeScaleForwardFallsBack) {
  if (!backend_compiled(Backend::cuda_sm90)) GTEST_SKIP() << "cuda_sm90 is not compiled";
  Problem problem = hopper_problem(128, 16);
  problem.options.softmax_scale = -0.5f;
  expect_refused_by_sm90_and_run_by_sm80(problem, "positive softmax_scale");
  if (HasFatalFailure()) return;

  // The backward subtracts the saved LSE, so its exponents stay <= 0 for either sign.
  problem.direction = Direction::backward;
  problem.options.backend = Backend::cuda_sm90;
  const Selection backward = detail::select_backend(problem, simulated_hopper());
  EXPECT_TRUE(backward.ok() || backward.reason.find("softmax_scale") == std::string::npos)
      << backward.reason;
}

// A negative scale large enough that exponents relative to the max of the unscaled scores would
// overflow fp32 (spread · |scale| · log2 e > 128): the library's pick must still match the
// reference, with no inf or NaN.
TEST(Sm90NegativeScale, AutomaticForwardMatchesReference) {
  if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
  // The library's pick for a negative scale is cuda_sm80 (cuda_sm90 refuses it): a build pruned
  // to the sm90 family has no backend for it.
  if (!backend_compiled(Backend::cuda_sm80)) GTEST_SKIP() << "cuda_sm80 is not compiled";
  constexpr float kLargeNegativeScale = -8.0f;
  AttentionTensors t(DType::bfloat16, 1, 300, 517, 2, 2, 128, 0x5ca1e, 0);
  Options options;
  options.softmax_scale = kLargeNegativeScale;
  expect_forward_matches_reference(t, options, Backend::automatic);
}

// A large positive scale, so that a row's running max often grows by more than the lazy
// rescale's threshold (tile_config.hpp, kRescaleThresholdLog2) after its first key tile, in some
// rows of a warp and not others: the warps that rescale O and those that skip it, in the
// unmasked width-256 kernel (whose first key tile walked, 1013 keys, is also the ragged one),
// at D = 128, and in the causal D = 256 kernel.
struct Sm90ScaleCase {
  const char* name;
  std::int64_t seqlen_q, seqlen_k, head_dim;
  bool causal;
};
class Sm90LargeScale : public OnHopper<Sm90ScaleCase> {};

TEST_P(Sm90LargeScale, MatchesReference) {
  const Sm90ScaleCase& c = GetParam();
  constexpr float kLargeScale = 2.0f;
  AttentionTensors t(DType::bfloat16, 2, c.seqlen_q, c.seqlen_k, 4, 2, c.head_dim,
                     std::hash<std::string>{}(c.name), 0);
  Options options;
  options.softmax_scale = kLargeScale;
  options.causal = c.causal;
  expect_forward_matches_reference(t, options, Backend::cuda_sm90);
}

INSTANTIATE_TEST_SUITE_P(
    LazyRescale, Sm90LargeScale,
    ::testing::Values(Sm90ScaleCase{"large_scale_d256_ragged", 700, 1013, 256, false},
                      Sm90ScaleCase{"large_scale_d128", 500, 900, 128, false},
                      Sm90ScaleCase{"large_scale_d256_causal", 600, 700, 256, true}),
    [](const ::testing::TestParamInfo<Sm90ScaleCase>& info) { return std::string(info.param.name); });

// The producer's and consumers' tile loop (forward_kernel.cuh), run on the host.
std::vector<std::tuple<int, int, int>> tiles_of(const detail::sm90::TileScheduler& scheduler, int cta,
                                                int ctas) {
  std::vector<std::tuple<int, int, int>> tiles;
  const int total = scheduler.total_tiles();
  for (int round = 0; round * ctas < total; ++round) {
    const int position = scheduler.position(round, cta, ctas);
    if (position >= total) continue;
    int m_block, head, batch;
    scheduler.decode(position, &m_block, &head, &batch);
    tiles.emplace_back(m_block, head, batch);
  }
  return tiles;
}

TEST(Sm90Scheduler, EveryTileExactlyOnce) {
  for (int m_blocks : {1, 3, 8, 128}) {
    for (int heads : {1, 5}) {
      for (int batch : {1, 3}) {
        const int pairs = heads * batch;
        for (int group : {1, 2, 7, pairs}) {
          if (group > pairs) continue;
          for (int ctas : {1, 7, 132}) {
            const detail::sm90::TileScheduler scheduler{m_blocks, heads, pairs, group};
            std::set<std::tuple<int, int, int>> seen;
            for (int cta = 0; cta < ctas; ++cta) {
              for (const auto& tile : tiles_of(scheduler, cta, ctas)) {
                const auto [m, h, b] = tile;
                ASSERT_TRUE(m >= 0 && m < m_blocks && h >= 0 && h < heads && b >= 0 && b < batch);
                ASSERT_TRUE(seen.insert(tile).second) << "tile computed twice";
              }
            }
            EXPECT_EQ(static_cast<int>(seen.size()), m_blocks * pairs)
                << m_blocks << " blocks, " << heads << " heads, " << batch << " batch, group "
                << group << ", " << ctas << " CTAs";
          }
        }
      }
    }
  }
}

// The kernels decode by TileDivisors' multiplies and shifts (the D = 256 bucket by divisions):
// both decodes, and the one-pair-group form of the unmasked kernels, give the same tiles.
TEST(Sm90Scheduler, DecodeByDivisorsMatchesDivisions) {
  for (int m_blocks : {1, 3, 8, 13, 128, 257}) {
    for (int heads : {1, 3, 16, 40}) {
      for (int batch : {1, 7, 32}) {
        const int pairs = heads * batch;
        for (int group : {1, 2, 5, 16, pairs}) {
          if (group > pairs) continue;
          const detail::sm90::TileScheduler scheduler{m_blocks, heads, pairs, group};
          const detail::sm90::TileDivisors divisors(scheduler);
          for (int position = 0; position < scheduler.total_tiles(); ++position) {
            int m_block, head, batch_index, fast_m_block, fast_head, fast_batch;
            scheduler.decode(position, &m_block, &head, &batch_index);
            scheduler.decode(position, divisors, &fast_m_block, &fast_head, &fast_batch);
            ASSERT_EQ(std::tie(fast_m_block, fast_head, fast_batch),
                      std::tie(m_block, head, batch_index))
                << "position " << position << " of " << m_blocks << " blocks, " << heads
                << " heads, " << batch << " batch, group " << group;
            if (group == 1) {
              scheduler.decode_one_pair_groups(position, divisors, &fast_m_block, &fast_head,
                                               &fast_batch);
              ASSERT_EQ(std::tie(fast_m_block, fast_head, fast_batch),
                        std::tie(m_block, head, batch_index));
            }
          }
        }
      }
    }
  }
}

TEST(Sm90Scheduler, GroupSizes) {
  using detail::sm90::heads_per_group;
  constexpr std::int64_t kL2 = 50 << 20;
  const std::int64_t kv_16k_d256 = 2 * 16384 * 256 * 2;  // 16 MB per head
  // Unmasked: one head at a time, its query blocks side by side.
  EXPECT_EQ(heads_per_group(kL2, kv_16k_d256, 8, 128, 132, false), 1);
  EXPECT_EQ(heads_per_group(kL2, 1024, 10, 4, 132, false), 1);
  // Masked: enough pairs for 8 rounds of 132 CTAs over 128 query blocks, capped by the pairs.
  EXPECT_EQ(heads_per_group(kL2, kv_16k_d256, 8, 128, 132, true), 8);
  // Groups of whole rounds: the 9 pairs that balance asks for, rounded up to a multiple of
  // 132 / gcd(128, 132) = 33 pairs.
  EXPECT_EQ(heads_per_group(kL2, kv_16k_d256, 64, 128, 132, true), 33);
  // Few query blocks: balance would want 264 pairs, but past 132 / 4 = 33 heads K/V would come
  // from HBM once per query block, unless L2 holds more (25 heads of 1 MB; 100 of 256 KB, rounded
  // up to whole rounds: a multiple of 132 / gcd(4, 132) = 33 pairs).
  EXPECT_EQ(heads_per_group(kL2, 1 << 20, 1000, 4, 132, true), 33);
  EXPECT_EQ(heads_per_group(kL2, 256 << 10, 1000, 4, 132, true), 132);
  // Never more pairs than exist, never fewer than one.
  EXPECT_EQ(heads_per_group(kL2, 1024, 10, 4, 132, true), 10);
  EXPECT_EQ(heads_per_group(kL2, 0, 0, 1, 132, true), 1);
  // Masked with few query tiles per pair (a bucket's one_pair_groups_max_m_blocks): one pair
  // per group, as unmasked; above that bound the rule's groups.
  EXPECT_EQ(heads_per_group(kL2, 256 << 10, 1000, 4, 132, true, 8), 1);
  EXPECT_EQ(heads_per_group(kL2, 512 << 10, 256, 8, 132, true, 8), 1);
  EXPECT_EQ(heads_per_group(kL2, 1 << 20, 128, 16, 132, true, 8), 33);
  // Packed D = 136 causal at N = 2048 (B = 16, H = 16: 256 pairs of 1,114,112 bytes of K/V, 16
  // query tiles): past the 192 bucket's bound of 8 the rule gives 33 pairs (the sector-box
  // kernels' causal launches take one pair instead: forward.cuh), within a bound of 16 one.
  EXPECT_EQ(heads_per_group(kL2, 1114112, 256, 16, 132, true, 8), 33);
  EXPECT_EQ(heads_per_group(kL2, 1114112, 256, 16, 132, true, 16), 1);
  // D = 64's sweep at N = 512 / 1k (bf16, H = 32, B·N = 16k; 192-row tiles: 3 / 6 per pair)
  // under the rule alone (before v20 gave D = 64's TileShape the small-N groups below): 200 / 100
  // pairs fit half of L2, rounded up to whole rounds of 44 / 22 pairs.
  EXPECT_EQ(heads_per_group(kL2, 128 << 10, 1024, 3, 132, true), 220);
  EXPECT_EQ(heads_per_group(kL2, 256 << 10, 512, 6, 132, true), 110);
  // With small_n_pairs_per_query_tile = 1 (D = 64's TileShape up to 6 query tiles): as many
  // pairs as query tiles per pair, never more pairs than exist; past the bound the rule's.
  EXPECT_EQ(heads_per_group(kL2, 128 << 10, 1024, 3, 132, true, 6, 1), 3);
  EXPECT_EQ(heads_per_group(kL2, 256 << 10, 512, 6, 132, true, 6, 1), 6);
  EXPECT_EQ(heads_per_group(kL2, 256 << 10, 4, 6, 132, true, 6, 1), 4);
  EXPECT_EQ(heads_per_group(kL2, 384 << 10, 320, 8, 132, true, 6, 1), 66);
  EXPECT_EQ(heads_per_group(kL2, 128 << 10, 1024, 3, 132, true, 6, 0), 1);
}

// The simulated balance of the snake (tile_scheduler.hpp causal_schedule_balance) and the small
// groups it picks for partial-box causal launches (balanced_small_group), at the shapes the
// twenty-sixth session measured (perf-notes "v37"): 128 query tiles of 128 rows, 128-key tiles.
TEST(Sm90Scheduler, BalancedSmallGroups) {
  using detail::sm90::balanced_small_group;
  using detail::sm90::causal_schedule_balance;
  constexpr int kCtas = 132;
  constexpr std::int64_t kN = 16384;
  // 16 pairs: one pair per group leaves 35 % of the CTAs' time idle; one group of all 16 does not.
  EXPECT_NEAR(causal_schedule_balance(128, 16, 1, kCtas, kN, kN, 128, 128, 0), 0.650, 0.002);
  EXPECT_NEAR(causal_schedule_balance(128, 16, 16, kCtas, kN, kN, 128, 128, 0), 0.998, 0.002);
  // Every tile counted once: a grid as wide as the tiles gives each CTA one tile, and the
  // busiest is the heaviest (a 1-tile pair: every CTA's load equal).
  EXPECT_NEAR(causal_schedule_balance(1, kCtas, 1, kCtas, 128, 128, 128, 128, 0), 1.0, 1e-12);
  // Picks: all of 14 pairs (16 clamps to 14), one of 64 (balance 0.970), 16 of 48 (0.976 where
  // 1 / 2 / 4 / 8 give 0.85 / 0.79 / 0.88 / 0.94), and the rule's 33 where no power of two up to
  // 16 balances (48 pairs of 32 query tiles: 0.84 / 0.79 / 0.61 / 0.60 / 0.79).
  EXPECT_EQ(balanced_small_group(128, 14, kCtas, kN, kN, 128, 128, 0, 14), 14);
  EXPECT_EQ(balanced_small_group(128, 64, kCtas, kN, kN, 128, 128, 0, 33), 1);
  EXPECT_EQ(balanced_small_group(128, 48, kCtas, kN, kN, 128, 128, 0, 33), 16);
  EXPECT_EQ(balanced_small_group(32, 48, kCtas, 4096, 4096, 128, 128, 0, 33), 33);
  // Packed D = 136 at 2k (16 query tiles, 96-key tiles, 256 pairs): one pair balances 0.965,
  // enough (kMinSmallGroupBalance 0.95; four pairs 0.970 ran 8 % slower).
  EXPECT_EQ(balanced_small_group(16, 256, kCtas, 2048, 2048, 128, 96, 0, 33), 1);
  // D = 240-like (80-key tiles), 8 pairs: one group of all 8.
  EXPECT_EQ(balanced_small_group(128, 8, kCtas, kN, kN, 128, 80, 0, 8), 8);
  // Past kMaxSimulatedTiles: one pair, without simulating.
  EXPECT_EQ(balanced_small_group(128, 512, kCtas, kN, kN, 128, 128, 0, 33), 1);
  // The per-thread cache answers a shape seen before (more shapes since than it holds, too).
  for (int pairs = 1; pairs <= 2 * detail::sm90::kBalanceCacheEntries; ++pairs) {
    balanced_small_group(32, pairs, kCtas, 4096, 4096, 128, 128, 0, pairs);
  }
  EXPECT_EQ(balanced_small_group(128, 48, kCtas, kN, kN, 128, 128, 0, 33), 16);
  EXPECT_EQ(balanced_small_group(128, 48, kCtas, kN, kN, 128, 128, 0, 33), 16);
}

// The area a launch's tiles walk, padding included, and where the fit shapes
// (tile_config.hpp, FitTileConfig) take over: D = 64 unmasked on 256 x 64 tiles, D = 192 and
// D = 256 on 128 x 64 tiles (D = 192 unmasked and causal, D = 256 causal).
TEST(Sm90Scheduler, WalkedTileArea) {
  using detail::sm90::walked_tile_area;
  // Unmasked: padded query rows times padded keys.
  EXPECT_EQ(walked_tile_area(512, 512, 192, 128, false), 576 * 512);
  EXPECT_EQ(walked_tile_area(1000, 1013, 256, 64, false), 1024 * 1024);
  // Causal, Nq = Nk: 80-key tiles cover 2 + 4 + 5 + 7 key tiles of the four 128-row query tiles
  // at N = 512, 64-key tiles 2 + 4 + 6 + 8.
  EXPECT_EQ(walked_tile_area(512, 512, 128, 80, true), 128 * 80 * 18);
  EXPECT_EQ(walked_tile_area(512, 512, 128, 64, true), 128 * 64 * 20);
  // Causal with more queries than keys: the first 513 rows see nothing and walk no key tile.
  EXPECT_EQ(walked_tile_area(1013, 500, 128, 64, true),
            128 * 64 * (0 + 0 + 0 + 0 + 2 + 4 + 6 + 8));
  // No keys: nothing to walk.
  EXPECT_EQ(walked_tile_area(300, 0, 128, 80, true), 0);
  EXPECT_EQ(walked_tile_area(300, 0, 192, 128, false), 0);
}

TEST(Sm90Scheduler, FitShapeWhereItWalksLess) {
  using detail::sm90::fit_shape_pays;
  using detail::sm90::walked_tile_area;
  const auto d64_unmasked = [](std::int64_t nq, std::int64_t nk) {
    return fit_shape_pays(nq, walked_tile_area(nq, nk, 192, 128, false),
                          walked_tile_area(nq, nk, 256, 64, false));
  };
  const auto d256_causal = [](std::int64_t nq, std::int64_t nk) {
    return fit_shape_pays(nq, walked_tile_area(nq, nk, 128, 80, true),
                          walked_tile_area(nq, nk, 128, 64, true));
  };
  // The measured points: D = 64 unmasked gains at 512 / 1k and loses at 2k; D = 256 causal
  // gains 4 % at 512, 0.4-2.2 % at 1k (area ratio 1.06: below the margin), loses at 2k.
  EXPECT_TRUE(d64_unmasked(512, 512));
  EXPECT_TRUE(d64_unmasked(1024, 1024));
  EXPECT_FALSE(d64_unmasked(2048, 2048));
  EXPECT_FALSE(d64_unmasked(768, 768));  // 768 rows in both shapes
  EXPECT_TRUE(d256_causal(512, 512));
  EXPECT_FALSE(d256_causal(1024, 1024));
  EXPECT_FALSE(d256_causal(2048, 2048));
  // D = 192, both masks: 96-key tiles walk 12.5 % more area at 512 (gains 6-7 % causal, 2-3 %
  // unmasked); 1k and beyond keep them (ratios 1.06 causal, 1.03 unmasked).
  const auto d192 = [](std::int64_t nq, std::int64_t nk, bool causal) {
    return fit_shape_pays(nq, walked_tile_area(nq, nk, 128, 96, causal),
                          walked_tile_area(nq, nk, 128, 64, causal));
  };
  EXPECT_TRUE(d192(512, 512, true));
  EXPECT_TRUE(d192(512, 512, false));
  EXPECT_FALSE(d192(1024, 1024, true));
  EXPECT_FALSE(d192(1024, 1024, false));
  EXPECT_FALSE(d192(4096, 4096, false));
  EXPECT_FALSE(d192(576, 576, false));  // 576 keys in both shapes
  // Short launches keep the bucket's shape: their time is the tiles' fixed cost.
  EXPECT_FALSE(d64_unmasked(200, 200));
  EXPECT_FALSE(d256_causal(128, 128));
  // Nq != Nk and no keys at all.
  EXPECT_TRUE(d256_causal(1013, 500));
  EXPECT_FALSE(d256_causal(400, 512));
  EXPECT_FALSE(d64_unmasked(1013, 0));
  std::vector<std::int64_t> d64_taken;
  for (std::int64_t n = 1; n <= 20000; ++n) {
    if (d64_unmasked(n, n)) d64_taken.push_back(n);
  }
  ASSERT_FALSE(d64_taken.empty());
  EXPECT_EQ(d64_taken.front(), 385);
  EXPECT_EQ(d64_taken.back(), 1216);
}

// Groups of whole rounds: a group's tiles (pairs x query blocks) fill whole rounds of the grid
// unless the group holds every pair.
TEST(Sm90Scheduler, GroupsFillWholeRounds) {
  using detail::sm90::heads_per_group;
  constexpr std::int64_t kL2 = 50 << 20;
  for (std::int64_t ctas : {66, 114, 132}) {
    for (std::int64_t blocks : {1, 4, 6, 8, 22, 86, 128}) {
      for (std::int64_t pairs : {16, 32, 256, 512, 1000}) {
        const std::int64_t group = heads_per_group(kL2, 1 << 20, pairs, blocks, ctas, true);
        EXPECT_TRUE(group == pairs || group * blocks % ctas == 0)
            << ctas << " CTAs, " << blocks << " blocks, " << pairs << " pairs: group " << group;
      }
    }
  }
}

struct Sm90Case {
  const char* name;
  DType dtype;
  std::int64_t batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim;
  bool causal;
  Window window;
  std::int64_t row_padding;
};

class Sm90Forward : public OnHopper<Sm90Case> {};

TEST_P(Sm90Forward, MatchesReference) {
  const Sm90Case& c = GetParam();
  AttentionTensors t(c.dtype, c.batch, c.seqlen_q, c.seqlen_k, c.heads_q, c.heads_kv, c.head_dim,
                     std::hash<std::string>{}(c.name), c.row_padding);
  Options options;
  options.causal = c.causal;
  options.window = c.window;
  HostTensor got_out;
  expect_forward_matches_reference(t, options, Backend::cuda_sm90, &got_out);
  if (IsSkipped() || HasFatalFailure()) return;

  // Row padding past head_dim is never written: its bytes are still the NaN poison.
  if (c.row_padding > 0) {
    const std::size_t element = size_of(c.dtype);
    const std::int64_t row_elements = c.head_dim + c.row_padding;
    const std::int64_t rows = got_out.numel() / c.head_dim;
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t e = c.head_dim; e < row_elements; ++e) {
        // Every byte: the low byte of a float16 NaN (0x7E00) is zero, like that of a 0 written.
        const std::size_t offset = (r * row_elements + e) * element;
        for (std::size_t b = 0; b < element; ++b) {
          ASSERT_EQ(got_out.storage[offset + b], t.out.storage[offset + b])
              << "padding element " << e << " of row " << r << " was written";
        }
      }
    }
  }
}

constexpr Window kNoWindow{};

INSTANTIATE_TEST_SUITE_P(
    Scheduler, Sm90Forward,
    ::testing::Values(
        // More tiles than SMs; causal costs fall along each head; GQA 5 -> 1.
        Sm90Case{"causal_many_tiles", DType::bfloat16, 3, 1100, 1500, 5, 1, 128, true, kNoWindow, 0},
        // Long keys: few heads fit one L2 group, so the tiles span several groups.
        Sm90Case{"groups_d256", DType::float16, 2, 600, 4096, 5, 5, 256, false, kNoWindow, 0},
        Sm90Case{"window_d64", DType::bfloat16, 2, 2000, 1800, 4, 2, 64, false, Window{300, 40}, 0},
        // Padded head dims in their buckets, with row-padded (still 16-byte aligned) layouts.
        Sm90Case{"d72_padded_rows", DType::float16, 1, 513, 777, 3, 3, 72, true, kNoWindow, 8},
        Sm90Case{"d200_padded_rows", DType::bfloat16, 1, 300, 300, 2, 1, 200, false, kNoWindow, 8},
        Sm90Case{"d136_decode", DType::bfloat16, 4, 1, 3000, 4, 2, 136, true, kNoWindow, 0},
        // A tile's last P·V is paired with the next tile's first Q·Kᵀ: CTAs with several tiles of
        // one key tile each (the pairing at its shortest), and fully masked tiles (bottom-right
        // causal with far fewer keys than queries) between tiles with work.
        Sm90Case{"one_key_tile_many_tiles", DType::bfloat16, 2, 1024, 100, 16, 16, 128, false,
                 kNoWindow, 0},
        Sm90Case{"masked_tiles_between", DType::float16, 2, 3000, 200, 8, 4, 64, true, kNoWindow,
                 0},
        // Work widths narrower than the bucket (tile_config.hpp): 72, 80 -> 80; 96; 136 -> 144;
        // 200 -> 208; 65 -> 80 and 255 -> 256 with odd D (rows padded to 16-byte strides for TMA).
        Sm90Case{"width80_d72_causal_gqa", DType::float16, 2, 700, 900, 6, 2, 72, true, kNoWindow,
                 0},
        Sm90Case{"width80_d80", DType::bfloat16, 1, 1013, 1013, 4, 4, 80, false, kNoWindow, 0},
        Sm90Case{"width96_d96_window", DType::float16, 2, 600, 800, 4, 2, 96, false,
                 Window{100, 50}, 0},
        Sm90Case{"width144_d136_causal_gqa", DType::bfloat16, 2, 1013, 1013, 4, 1, 136, true,
                 kNoWindow, 0},
        Sm90Case{"width208_d200_causal", DType::float16, 1, 700, 1100, 3, 3, 200, true, kNoWindow,
                 0},
        Sm90Case{"width80_d65_odd", DType::bfloat16, 1, 517, 517, 2, 2, 65, true, kNoWindow, 7},
        Sm90Case{"width256_d255_odd", DType::float16, 1, 300, 450, 4, 2, 255, false, kNoWindow,
                 1},
        // The other widths: 112, 160, 176, 224 (masked ping-pong), 240.
        Sm90Case{"width112_d104_causal", DType::bfloat16, 1, 600, 600, 4, 2, 104, true, kNoWindow,
                 0},
        Sm90Case{"width160_d152_window", DType::float16, 1, 700, 500, 2, 2, 152, false,
                 Window{64, 200}, 0},
        Sm90Case{"width176_d168_gqa", DType::bfloat16, 2, 333, 777, 6, 3, 168, false, kNoWindow,
                 0},
        Sm90Case{"width224_d216_causal", DType::bfloat16, 1, 500, 900, 4, 1, 216, true,
                 kNoWindow, 0},
        Sm90Case{"width224_d224_window", DType::float16, 1, 600, 600, 2, 2, 224, false,
                 Window{150, 0}, 0},
        // Width 224's windowed kernels test the mask without branches (tile_config.hpp): a
        // two-sided window with GQA and more keys than queries, and one open on its left.
        Sm90Case{"width224_d224_window_gqa_more_keys", DType::bfloat16, 2, 333, 777, 4, 2, 224,
                 false, Window{100, 40}, 0},
        Sm90Case{"width224_d224_window_right_only", DType::float16, 1, 701, 500, 2, 2, 224,
                 false, Window{-1, 64}, 0},
        Sm90Case{"width240_d232_causal", DType::float16, 1, 400, 300, 2, 2, 232, true, kNoWindow,
                 0},
        // Sector-aligned boxes (forward_kernel.cuh, kSectorBoxes): D = 16·k + 8 with key/value
        // heads an odd multiple of 16 bytes apart (packed, H even), so every other head loads
        // Q, K, V from column -8 and stages O one chunk to the left. Widths 80 / 144 / 208 /
        // 224; the unmasked 256-bucket kernel stores O from its producer; a window in the 256
        // bucket; GQA with an odd key head.
        Sm90Case{"sector_d72", DType::float16, 2, 700, 700, 4, 4, 72, false, kNoWindow, 0},
        Sm90Case{"sector_d136_gqa", DType::bfloat16, 1, 800, 800, 4, 2, 136, false, kNoWindow,
                 0},
        Sm90Case{"sector_d200_producer_stores", DType::bfloat16, 1, 600, 600, 4, 4, 200, false,
                 kNoWindow, 0},
        Sm90Case{"sector_d200_causal", DType::float16, 2, 513, 513, 2, 2, 200, true, kNoWindow,
                 0},
        Sm90Case{"sector_d216_window", DType::bfloat16, 1, 600, 600, 2, 2, 216, false,
                 Window{100, 50}, 0},
        // Causal sector-box launches of the 192 bucket (D = 136, width 144), one pair per group
        // (forward.cuh): more queries than keys (15 query tiles, the first 600 rows fully
        // masked), more keys than queries with GQA (odd key heads shifted), 17 query tiles, and
        // the 128 and 256 buckets' sector kernels (D = 104, 216).
        Sm90Case{"sector_d136_causal_more_queries", DType::float16, 1, 1900, 1300, 8, 8, 136,
                 true, kNoWindow, 0},
        Sm90Case{"sector_d136_causal_more_keys_gqa", DType::bfloat16, 1, 1500, 2000, 8, 4, 136,
                 true, kNoWindow, 0},
        Sm90Case{"sector_d136_causal_17_tiles", DType::float16, 1, 2100, 2100, 4, 4, 136, true,
                 kNoWindow, 0},
        Sm90Case{"sector_d104_causal_gqa", DType::bfloat16, 2, 640, 640, 12, 4, 104, true,
                 kNoWindow, 0},
        Sm90Case{"sector_d216_causal_more_keys", DType::float16, 1, 500, 900, 6, 6, 216, true,
                 kNoWindow, 0},
        // Causal launches of partial-box rows past 32 query tiles, one pair per group
        // (forward.cuh, kPartialBoxOnePairGroupsMinQueryTiles): an aligned width-144 kernel and
        // packed D = 129 (heads as columns: 8 heads, so that rows of 8 · 129 elements stay on
        // 16-byte words), with more queries than keys (the first 3,400 rows fully masked).
        Sm90Case{"partial_box_d144_causal_33_tiles", DType::bfloat16, 1, 4200, 4000, 1, 1, 144,
                 true, kNoWindow, 0},
        Sm90Case{"packed_d129_causal_33_tiles", DType::float16, 1, 4100, 700, 8, 8, 129, true,
                 kNoWindow, 0},
        // Consumers whose 64 rows all lie past seqlen_q (they compute on TMA's zero rows and
        // store nothing): one of two (130 = 128 + 2 rows), two of three with 192-row tiles
        // (1000 = 5 * 192 + 40; 193 = 192 + 1), over several tiles per CTA.
        Sm90Case{"idle_consumer_d128_causal", DType::float16, 3, 130, 300, 4, 4, 128, true,
                 kNoWindow, 0},
        Sm90Case{"idle_consumers_d64_causal_gqa", DType::bfloat16, 2, 1000, 1000, 4, 2, 64, true,
                 kNoWindow, 0},
        Sm90Case{"idle_consumers_d64_one_row", DType::float16, 1, 193, 700, 3, 3, 64, false,
                 kNoWindow, 0},
        Sm90Case{"one_key_tile_many_tiles_d64", DType::bfloat16, 2, 1024, 100, 16, 16, 64, false,
                 kNoWindow, 0},
        // Ragged last key tiles (1013 keys) with GQA; masked D = 256 kernels (no ping-pong) with
        // a window and with a causal mask over several key tiles.
        Sm90Case{"ragged_keys_d128_gqa", DType::bfloat16, 2, 500, 1013, 6, 2, 128, false,
                 kNoWindow, 0},
        Sm90Case{"masked_keys_d256_window", DType::float16, 1, 500, 700, 2, 2, 256, false,
                 Window{100, 30}, 0},
        Sm90Case{"masked_keys_d256_causal_gqa", DType::bfloat16, 2, 700, 700, 4, 2, 256, true,
                 kNoWindow, 0},
        // The TMA-store epilogue where O reuses the V ring (D > 128): fully masked tiles (more
        // queries than keys, bottom-right causal) between tiles with loads, several tiles per
        // CTA, ragged last rows; and the own-buffer form with a row-padded output.
        Sm90Case{"masked_tiles_between_d256", DType::bfloat16, 2, 3000, 200, 8, 4, 256, true,
                 kNoWindow, 0},
        Sm90Case{"masked_tiles_between_d192", DType::float16, 2, 2100, 150, 8, 8, 192, true,
                 kNoWindow, 0},
        Sm90Case{"many_tiles_d256_ragged_rows", DType::float16, 3, 1500, 333, 16, 16, 256, false,
                 kNoWindow, 0},
        Sm90Case{"many_tiles_d128_padded_rows", DType::bfloat16, 2, 1100, 700, 16, 8, 128, false,
                 kNoWindow, 8},
        // D not a multiple of 8: TMA stores the first D / 8 · 8 columns, ordinary stores the rest
        // (TMA would write whole 16-byte units over the row padding), with O in the V ring.
        Sm90Case{"tail_columns_d250_causal", DType::bfloat16, 2, 700, 900, 4, 2, 250, true,
                 kNoWindow, 6},
        Sm90Case{"tail_columns_d185_window", DType::float16, 1, 800, 800, 4, 4, 185, false,
                 Window{200, 0}, 7},
        // Unmasked kernels whose producer issues the O stores (tile_config.hpp,
        // producer_stores): many tiles per CTA with ragged rows into a row-padded output, a
        // narrower work width with GQA, no keys at all (zeros without the producer), and a
        // D with tail columns, which runs the register-store kernel instead.
        Sm90Case{"producer_stores_d256_padded_rows", DType::bfloat16, 3, 1500, 333, 16, 8, 256,
                 false, kNoWindow, 8},
        // The same with tiles of one and of two key steps (80-key tiles), ~3 tiles per CTA: a
        // tile's first V lands where part of the previous O is still being stored, the rest
        // must be read before the second V, or before the next O is staged where there is none.
        Sm90Case{"producer_stores_d256_one_key_step", DType::bfloat16, 4, 700, 77, 16, 8, 256,
                 false, kNoWindow, 8},
        Sm90Case{"producer_stores_d256_two_key_steps", DType::float16, 4, 700, 150, 16, 16, 256,
                 false, kNoWindow, 0},
        Sm90Case{"producer_stores_d200_gqa", DType::float16, 2, 700, 1013, 6, 2, 200, false,
                 kNoWindow, 0},
        Sm90Case{"producer_stores_d256_no_keys", DType::bfloat16, 2, 300, 0, 4, 4, 256, false,
                 kNoWindow, 0},
        Sm90Case{"register_fallback_d250_padded_rows", DType::float16, 2, 700, 900, 4, 2, 250,
                 false, kNoWindow, 6},
        // Causal padding first (forward_kernel.cuh, causal_padding_first): 64-row slices below row 0
        // in the first tile of each head, with the TMA-store epilogue into a row-padded output
        // (D = 128: 1152 - 1050 -> offset 64), with O in the V ring (D = 192), and with 192-row
        // tiles whose top rows are fully masked (more queries than keys: the zero path).
        Sm90Case{"padding_first_d128_causal", DType::bfloat16, 2, 1050, 1050, 4, 2, 128, true,
                 kNoWindow, 8},
        Sm90Case{"padding_first_d192_causal", DType::float16, 1, 1050, 1300, 2, 2, 192, true,
                 kNoWindow, 0},
        Sm90Case{"padding_first_d64_more_queries", DType::float16, 1, 1013, 17, 4, 4, 64, true,
                 kNoWindow, 0},
        Sm90Case{"padding_first_d64_causal", DType::bfloat16, 2, 1000, 1000, 4, 4, 64, true,
                 kNoWindow, 8},
        // Tiles whose upper 64-row slices see fewer key tiles than their lowest one (the
        // per-consumer key ranges measured and rejected in docs/perf-notes.md "v12" skipped
        // them): bottom-right causal with more keys than queries (192-row tiles over 128-key
        // tiles), a window over 80-key tiles (D = 256), 96-key tiles (D = 192) with more queries
        // than keys.
        Sm90Case{"key_ranges_d64_causal_more_keys", DType::bfloat16, 2, 777, 1100, 4, 2, 64,
                 true, kNoWindow, 0},
        Sm90Case{"key_ranges_d256_window", DType::float16, 1, 900, 900, 2, 2, 256, false,
                 Window{90, 10}, 0},
        Sm90Case{"key_ranges_d192_causal_more_queries", DType::bfloat16, 1, 900, 700, 3, 3, 192,
                 true, kNoWindow, 0},
        // The first key tile's coverage (tile_config.hpp, first_tile_coverage): aligned causal
        // tiles where a consumer sees none of its first key tile (D = 64's 192-row tiles, D =
        // 256's 80-key tiles), only its first half (D = 128 consumer 0) or all of the first half
        // (D = 128 consumer 1); a window whose right edge cuts the first tile, with GQA.
        Sm90Case{"first_tile_d128_causal_aligned", DType::bfloat16, 2, 512, 512, 4, 4, 128, true,
                 kNoWindow, 0},
        Sm90Case{"first_tile_d64_causal_aligned", DType::float16, 2, 768, 768, 4, 4, 64, true,
                 kNoWindow, 0},
        Sm90Case{"first_tile_d256_causal_aligned", DType::bfloat16, 1, 512, 512, 4, 2, 256, true,
                 kNoWindow, 0},
        Sm90Case{"first_tile_d128_window_gqa", DType::float16, 1, 400, 650, 4, 2, 128, false,
                 Window{70, 20}, 0},
        // Causal D = 64 at N = 512 with more tiles (414) than SMs and 138 pairs: one group under
        // the masked rule, 46 groups of 3 pairs under the small-N groups D = 64 takes since v20
        // (bench/results/sm90-fwd-h100-2026-11-23-s11c, whose other candidate made 132 + 6, the
        // last group partial); GQA.
        Sm90Case{"small_n_groups_d64_causal_gqa", DType::bfloat16, 3, 512, 512, 46, 23, 64, true,
                 kNoWindow, 0},
        // Key tiles walked from the first in even rounds (tile_config.hpp,
        // keys_ascending_even_rounds: masked D = 128 / 256 launches of <= 8 query tiles per
        // pair). Launches of fewer tiles than SMs run round 0 only, all ascending (so do the
        // first-tile cases above); these take two to three rounds on 132 SMs, so that both
        // walks run in one launch: aligned causal (the diagonal step last, with and without
        // coverage), ragged N = 1013 with GQA, bottom-right causal with more queries than keys
        // (fully masked rows: zeros, LSE -inf) and with more keys than queries, a window, and
        // N = 17 (one key tile).
        Sm90Case{"keys_ascending_d256_causal_rounds", DType::bfloat16, 9, 512, 512, 8, 8, 256,
                 true, kNoWindow, 0},
        Sm90Case{"keys_ascending_d128_causal_rounds", DType::float16, 9, 512, 512, 8, 8, 128,
                 true, kNoWindow, 0},
        Sm90Case{"keys_ascending_d128_causal_1013_gqa", DType::float16, 5, 1013, 1013, 8, 4, 128,
                 true, kNoWindow, 0},
        Sm90Case{"keys_ascending_d256_more_queries", DType::bfloat16, 4, 1013, 600, 8, 8, 256,
                 true, kNoWindow, 0},
        Sm90Case{"keys_ascending_d128_more_keys", DType::bfloat16, 4, 600, 1013, 8, 8, 128, true,
                 kNoWindow, 0},
        Sm90Case{"keys_ascending_d256_window_gqa", DType::float16, 3, 1013, 1013, 6, 2, 256,
                 false, Window{200, 30}, 0},
        Sm90Case{"keys_ascending_d256_n17", DType::float16, 40, 17, 17, 4, 4, 256, true,
                 kNoWindow, 0},
        // The same for the 192 bucket (128 x 96 tiles, O in the V ring; h17-d192c): aligned
        // causal at N = 512 (160 tiles), bottom-right causal with more queries than keys (fully
        // masked rows) and with more keys than queries at a narrower width with GQA, D = 136
        // (the sector-aligned-box kernels of width 144), a window with GQA, N = 17. Then tiles of
        // two key steps, ~3 per CTA, unmasked and causal: each tile's second K load meets the
        // wait for the previous tile's O in the V ring.
        // The fit shapes (tile_config.hpp, FitTileConfig) where they are picked. D = 64
        // unmasked, 256 x 64 tiles with four consumers: whole tiles, GQA with more keys than
        // queries and a ragged last key tile, a partly filled tile against long keys, D not a
        // multiple of 8 and below the bucket (rows padded to 16 bytes for TMA; O stored by TMA
        // up to the last 16-byte unit, the rest from registers), padded rows. D = 256 causal,
        // 64-key tiles: N = 512, more queries than keys (fully masked rows), GQA, D = 250
        // (tail columns) with padded rows.
        Sm90Case{"fit_d64_whole_tiles", DType::bfloat16, 3, 512, 512, 8, 8, 64, false, kNoWindow,
                 0},
        Sm90Case{"fit_d64_gqa_more_keys", DType::float16, 2, 1000, 1013, 8, 2, 64, false,
                 kNoWindow, 0},
        Sm90Case{"fit_d64_long_keys", DType::bfloat16, 4, 450, 3000, 4, 1, 64, false, kNoWindow,
                 0},
        Sm90Case{"fit_d33", DType::float16, 2, 450, 450, 3, 3, 33, false, kNoWindow, 7},
        Sm90Case{"fit_d64_padded_rows", DType::bfloat16, 1, 500, 777, 2, 1, 64, false,
                 kNoWindow, 8},
        Sm90Case{"fit_d256_causal", DType::bfloat16, 3, 512, 512, 4, 4, 256, true, kNoWindow, 0},
        Sm90Case{"fit_d256_causal_more_queries", DType::float16, 2, 1013, 500, 6, 2, 256, true,
                 kNoWindow, 0},
        Sm90Case{"fit_d256_causal_gqa", DType::bfloat16, 2, 420, 420, 8, 2, 256, true, kNoWindow,
                 0},
        Sm90Case{"fit_d250_causal_padded_rows", DType::float16, 1, 570, 570, 3, 3, 250, true,
                 kNoWindow, 6},
        Sm90Case{"fit_d192_causal", DType::bfloat16, 3, 512, 512, 4, 4, 192, true, kNoWindow, 0},
        Sm90Case{"fit_d192_causal_more_queries_gqa", DType::float16, 2, 1013, 500, 6, 2, 192,
                 true, kNoWindow, 0},
        Sm90Case{"fit_d192_unmasked", DType::bfloat16, 2, 500, 500, 8, 8, 192, false, kNoWindow,
                 0},
        Sm90Case{"fit_d192_unmasked_gqa_more_keys", DType::float16, 2, 490, 505, 6, 2, 192, false,
                 kNoWindow, 0},
        Sm90Case{"fit_d180_causal_padded_rows", DType::bfloat16, 1, 600, 600, 3, 3, 180, true,
                 kNoWindow, 4},
        Sm90Case{"keys_ascending_d192_causal_rounds", DType::bfloat16, 5, 512, 512, 8, 8, 192,
                 true, kNoWindow, 0},
        Sm90Case{"keys_ascending_d192_more_queries", DType::float16, 2, 1013, 600, 12, 4, 192,
                 true, kNoWindow, 0},
        Sm90Case{"keys_ascending_d160_more_keys_gqa", DType::bfloat16, 3, 600, 1013, 16, 4, 160,
                 true, kNoWindow, 0},
        Sm90Case{"keys_ascending_d136_causal", DType::bfloat16, 4, 512, 512, 10, 10, 136, true,
                 kNoWindow, 0},
        Sm90Case{"keys_ascending_d192_window_gqa", DType::float16, 2, 1000, 1000, 12, 6, 192,
                 false, Window{200, 30}, 0},
        Sm90Case{"keys_ascending_d192_n17", DType::bfloat16, 40, 17, 17, 4, 4, 192, true,
                 kNoWindow, 0},
        Sm90Case{"two_key_steps_d192", DType::float16, 4, 700, 150, 16, 16, 192, false,
                 kNoWindow, 0},
        Sm90Case{"two_key_steps_d192_causal", DType::bfloat16, 12, 150, 150, 16, 8, 192, true,
                 kNoWindow, 8},
        // Masked D = 256 launches of one-key-step tiles, ~3 per CTA: O is staged in the V ring
        // right after the tile's only P·V, so every tile's first V waits on the previous O's
        // store (perf-notes "v22", "v27"), into a row-padded output, and with tail columns
        // (D = 250: ordinary stores read the last column block) and GQA.
        Sm90Case{"one_step_tiles_d256_causal", DType::bfloat16, 12, 77, 77, 32, 16, 256,
                 true, kNoWindow, 8},
        Sm90Case{"one_step_tiles_d250_tail", DType::float16, 12, 77, 77, 32, 8, 250, true,
                 kNoWindow, 6},
        // Windows unbounded on one side (apply_mask's Mask::is_masked_unbranched: the band of
        // offsets from the diagonal reaches INT_MIN or INT_MAX): unbounded left with more
        // queries than keys (the first 260 rows see nothing), unbounded right with more keys
        // than queries, a ragged last key tile, GQA.
        Sm90Case{"window_unbounded_left_d128_more_queries", DType::bfloat16, 2, 900, 600, 4, 2,
                 128, false, Window{-1, 40}, 0},
        Sm90Case{"window_unbounded_right_d64_more_keys", DType::float16, 2, 500, 1013, 4, 2, 64,
                 false, Window{150, -1}, 0}),
    [](const ::testing::TestParamInfo<Sm90Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace fattn::testing
