// cuda_sm90 backward checks, beside the shared matrix in test_cuda_backends.cpp (which runs
// cuda_sm90's backward on every case the selector lets it take); these cases aim at the
// kernel's structural edges (docs/design/sm90-backward.md).
// - selector (no GPU needed): the backward is taken for every head dim up to 256 (buckets 64,
//   128 and 256, the columns past D zero-filled by TMA; 129..192 run the 256 bucket) on Hopper,
//   refused with a reason for deterministic mode and for head dims whose bucket this build
//   pruned, and automatic selection then falls back to cuda_sm80;
// - on the GPU, against the float64 reference, with poisoned outputs:
//   one key tile (a single CTA per head, ragged keys), several query heads per KV head (GQA:
//   dK/dV summed over the group inside one CTA), causal with Nq < Nk and Nq > Nk (the latter
//   has fully masked rows: zero dQ, no NaN), a sliding window, ragged query tiles, head dims
//   padded inside each bucket (TMA zero-fill; D = 72 is the odd one of the project's test
//   shapes), both dQ splits of the default shapes (queries at D <= 64 with 128-query tiles, head
//   dim at D <= 128), the head-dim split of dK/dV at D = 256 (backward_kernel_wide.cuh: 64-key
//   CTAs, Pᵀ/dSᵀ exchanged between the consumers) with D = 192 and 200 padded into it, fp16 and
//   bf16.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "api/selector.hpp"
#include "device_buffer.hpp"
#include "support/pruning.hpp"
#include "support/simulated_device.hpp"
#include "support/test_tensors.hpp"

namespace fattn::testing {
namespace {

constexpr double kGradientToleranceFactor = 3.0;  // as in test_cuda_backends.cpp
constexpr std::size_t kAlignedBytes = 16;

// ---- selector (CPU) ----------------------------------------------------------------------

Problem hopper_backward(std::int64_t head_dim) {
  Problem p;
  p.batch = 2;
  p.seqlen_q = 256;
  p.seqlen_k = 256;
  p.heads_q = 4;
  p.heads_kv = 2;
  p.head_dim = head_dim;
  p.dtype = DType::bfloat16;
  p.device = Device::cuda(0);
  p.direction = Direction::backward;
  p.alignment_bytes = kAlignedBytes;
  return p;
}

bool sm90_backward_compiled(std::int64_t head_dim) {
  Problem p = hopper_backward(head_dim);
  p.options.backend = Backend::cuda_sm90;
  return detail::select_backend(p, simulated_hopper()).ok();
}

TEST(Sm90BackwardSelector, TakesEveryBucket) {
  if (!backend_compiled(Backend::cuda_sm90)) GTEST_SKIP() << "cuda_sm90 is not compiled";
  // With 16-byte-aligned strides every head dim up to 256 is taken; a packed D = 100 (200-byte
  // rows) is refused by the TMA alignment rule instead (Sm90Selector's unaligned-stride test).
  for (std::int64_t d : {64, 128, 40, 72, 80, 96, 100, 120, 129, 192, 200, 256}) {
    Problem p = hopper_backward(d);
    const Selection s = detail::select_backend(p, simulated_hopper());
    if (!sm90_backward_compiled(d)) continue;  // pruned from this build (reason tested below)
    ASSERT_TRUE(s.ok()) << s.reason;
    EXPECT_EQ(s.backend, Backend::cuda_sm90) << "head_dim " << d;
  }
}

TEST(Sm90BackwardSelector, RefusesDeterministicWithAReason) {
  if (!backend_compiled(Backend::cuda_sm90)) GTEST_SKIP() << "cuda_sm90 is not compiled";
  Problem p = hopper_backward(128);
  p.options.deterministic = true;
  p.options.backend = Backend::cuda_sm90;
  const Selection refused = detail::select_backend(p, simulated_hopper());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.reason.find("deterministic"), std::string::npos) << refused.reason;
  p.options.backend = Backend::automatic;
  const Selection automatic = detail::select_backend(p, simulated_hopper());
  if (automatic.ok()) EXPECT_NE(automatic.backend, Backend::cuda_sm90);
}

TEST(Sm90BackwardSelector, PrunedBucketsFallBackToSm80) {
  if (!backend_compiled(Backend::cuda_sm90)) GTEST_SKIP() << "cuda_sm90 is not compiled";
  // Every head dim has a Hopper bucket since the D = 256 backward; one this build pruned is
  // refused with the option's name, and automatic selection runs it on cuda_sm80 instead.
  for (std::int64_t d : {64, 129, 192, 256}) {
    Problem p = hopper_backward(d);
    p.options.backend = Backend::cuda_sm90;
    const Selection sm90 = detail::select_backend(p, simulated_hopper());
    if (sm90.ok()) continue;
    EXPECT_NE(sm90.reason.find("backward"), std::string::npos) << sm90.reason;
    p.options.backend = Backend::cuda_sm80;
    const bool sm80_takes_it = detail::select_backend(p, simulated_hopper()).ok();
    p.options.backend = Backend::automatic;
    const Selection automatic = detail::select_backend(p, simulated_hopper());
    if (sm80_takes_it) {
      ASSERT_TRUE(automatic.ok()) << automatic.reason;
      EXPECT_EQ(automatic.backend, Backend::cuda_sm80) << "head_dim " << d;
    } else if (automatic.ok()) {
      EXPECT_NE(automatic.backend, Backend::cuda_sm90) << "head_dim " << d;
    }
  }
}

// ---- GPU ---------------------------------------------------------------------------------

struct Sm90BackwardCase {
  const char* name;
  DType dtype;
  std::int64_t batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim;
  bool causal;
  Window window;
};

class Sm90Backward : public ::testing::TestWithParam<Sm90BackwardCase> {
 protected:
  void SetUp() override {
    if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
    if (!backend_compiled(Backend::cuda_sm90)) GTEST_SKIP() << "cuda_sm90 is not compiled";
  }
};

// The reference forward's out and lse feed both backwards, so the comparison isolates the
// backward kernel; cuda_sm90 is named explicitly (a refusal is a failure here, not a skip,
// unless this build pruned the bucket).
TEST_P(Sm90Backward, MatchesReference) {
  const Sm90BackwardCase& c = GetParam();
  AttentionTensors t(c.dtype, c.batch, c.seqlen_q, c.seqlen_k, c.heads_q, c.heads_kv, c.head_dim,
                     std::hash<std::string>{}(c.name));
  std::mt19937_64 rng(std::hash<std::string>{}(c.name) + 1);
  HostTensor dout = clone(t.out);
  fill_random(dout, rng);

  Options options;
  options.causal = c.causal;
  options.window = c.window;
  options.backend = Backend::cpu_reference;
  HostTensor out = clone(t.out), lse = clone(t.lse);
  ASSERT_TRUE(forward(t.q.view, t.k.view, t.v.view, out.view, lse.view, options).ok());
  HostTensor ref_dq = clone(t.q), ref_dk = clone(t.k), ref_dv = clone(t.v);
  ASSERT_TRUE(backward(t.q.view, t.k.view, t.v.view, out.view, dout.view, lse.view, ref_dq.view,
                       ref_dk.view, ref_dv.view, options)
                  .ok());

  DeviceBuffer q(t.q), k(t.k), v(t.v), d_out_buffer(out), d_lse(lse), d_dout(dout);
  HostTensor dq = clone(t.q), dk = clone(t.k), dv = clone(t.v);
  DeviceBuffer g_dq(dq), g_dk(dk), g_dv(dv);
  g_dq.poison();
  g_dk.poison();
  g_dv.poison();
  options.backend = Backend::cuda_sm90;
  const Problem problem = Problem::describe(q.view, k.view, options, Direction::backward);
  if (auto pruned = pruned_from_build(Backend::cuda_sm90, problem)) GTEST_SKIP() << *pruned;
  const Selection selection = supports(problem);
  ASSERT_TRUE(selection.ok()) << selection.reason;
  const Status s = backward(q.view, k.view, v.view, d_out_buffer.view, d_dout.view, d_lse.view,
                            g_dq.view, g_dk.view, g_dv.view, options);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double tolerance = kGradientToleranceFactor * tolerance_for(c.dtype);
  EXPECT_LE(relative_error(g_dq.to_host(dq), ref_dq), tolerance) << "dq";
  EXPECT_LE(relative_error(g_dk.to_host(dk), ref_dk), tolerance) << "dk";
  EXPECT_LE(relative_error(g_dv.to_host(dv), ref_dv), tolerance) << "dv";
}

constexpr Window kNoWindow{};

INSTANTIATE_TEST_SUITE_P(
    Sm90, Sm90Backward,
    ::testing::Values(
        // One key tile (seqlen_k < 128: one CTA per head, ragged keys), ragged query tiles.
        Sm90BackwardCase{"one_key_tile_d128", DType::bfloat16, 1, 197, 100, 2, 2, 128, false,
                         kNoWindow},
        Sm90BackwardCase{"one_key_tile_d64", DType::float16, 2, 65, 1, 2, 2, 64, false, kNoWindow},
        // A single query row against several key tiles.
        Sm90BackwardCase{"one_query_d128", DType::bfloat16, 1, 1, 300, 2, 1, 128, false,
                         kNoWindow},
        // GQA 6 -> 2: dK/dV summed over 3 query heads inside one CTA; both dQ splits.
        Sm90BackwardCase{"gqa_d128", DType::bfloat16, 2, 300, 420, 6, 2, 128, false, kNoWindow},
        Sm90BackwardCase{"gqa_d64", DType::float16, 1, 257, 513, 8, 2, 64, false, kNoWindow},
        // Causal, Nq < Nk (bottom-right: every row sees keys) and Nq > Nk (the first
        // Nq - Nk rows see none: zero dQ, never NaN; key tiles with no visible query).
        Sm90BackwardCase{"causal_nq_lt_nk_d128", DType::float16, 1, 300, 700, 2, 2, 128, true,
                         kNoWindow},
        Sm90BackwardCase{"causal_nq_gt_nk_d128", DType::bfloat16, 1, 700, 300, 4, 2, 128, true,
                         kNoWindow},
        Sm90BackwardCase{"causal_nq_gt_nk_d64", DType::bfloat16, 2, 513, 130, 2, 1, 64, true,
                         kNoWindow},
        // Sliding window: key tiles whose query range starts mid-sequence.
        Sm90BackwardCase{"window_d64", DType::bfloat16, 1, 600, 600, 2, 2, 64, false,
                         Window{100, 30}},
        // Head dims padded inside their bucket (TMA zero-fill of the columns past D).
        Sm90BackwardCase{"padded_d40", DType::bfloat16, 1, 333, 333, 2, 2, 40, true, kNoWindow},
        Sm90BackwardCase{"padded_d96", DType::float16, 1, 200, 333, 4, 4, 96, false, kNoWindow},
        Sm90BackwardCase{"padded_d72_gqa", DType::bfloat16, 2, 257, 390, 6, 2, 72, true,
                         kNoWindow},
        // Several query tiles and key tiles per head, long enough for the stage ring to wrap.
        Sm90BackwardCase{"long_d128", DType::bfloat16, 1, 1013, 1013, 2, 2, 128, true,
                         kNoWindow},
        // D = 256 (head-dim split of dK/dV, 64-key CTAs, Pᵀ/dSᵀ exchanged): the D = 128 matrix.
        Sm90BackwardCase{"one_key_tile_d256", DType::bfloat16, 1, 17, 17, 2, 2, 256, false,
                         kNoWindow},
        Sm90BackwardCase{"one_query_d256", DType::float16, 1, 1, 300, 2, 1, 256, false,
                         kNoWindow},
        Sm90BackwardCase{"one_key_d256", DType::bfloat16, 2, 65, 1, 2, 2, 256, false,
                         kNoWindow},
        Sm90BackwardCase{"gqa_d256", DType::bfloat16, 2, 300, 420, 6, 2, 256, false, kNoWindow},
        Sm90BackwardCase{"causal_nq_lt_nk_d256", DType::float16, 1, 300, 700, 2, 2, 256, true,
                         kNoWindow},
        Sm90BackwardCase{"causal_nq_eq_nk_d256", DType::bfloat16, 1, 333, 333, 2, 1, 256, true,
                         kNoWindow},
        Sm90BackwardCase{"causal_nq_gt_nk_d256", DType::bfloat16, 1, 700, 300, 4, 2, 256, true,
                         kNoWindow},
        Sm90BackwardCase{"window_d256", DType::float16, 1, 600, 600, 2, 2, 256, false,
                         Window{100, 30}},
        Sm90BackwardCase{"long_d256", DType::bfloat16, 1, 1013, 1013, 2, 2, 256, true,
                         kNoWindow},
        Sm90BackwardCase{"long_d256_fp16", DType::float16, 1, 1013, 1013, 2, 2, 256, false,
                         kNoWindow},
        // D = 192 and 200 run the 256 bucket (TMA zero-fills the columns past D; the second
        // consumer's dK/dV/dQ columns are partly or, at 192 + 64 = 256, wholly past D).
        Sm90BackwardCase{"padded_d192_causal_gqa", DType::bfloat16, 2, 257, 390, 6, 2, 192, true,
                         kNoWindow},
        Sm90BackwardCase{"padded_d192_fp16", DType::float16, 1, 1013, 1013, 2, 2, 192, false,
                         kNoWindow},
        Sm90BackwardCase{"padded_d200_window", DType::bfloat16, 1, 500, 520, 2, 2, 200, false,
                         Window{64, 200}},
        // Grids of several key tiles, KV heads and batches (each CTA's job from its block
        // index): causal with GQA in every bucket, and a window bounded on the left only.
        Sm90BackwardCase{"cta_order_causal_d64", DType::bfloat16, 3, 400, 520, 6, 3, 64, true,
                         kNoWindow},
        Sm90BackwardCase{"cta_order_causal_d128", DType::bfloat16, 3, 520, 520, 6, 3, 128, true,
                         kNoWindow},
        Sm90BackwardCase{"cta_order_causal_d256", DType::bfloat16, 3, 260, 300, 4, 2, 256, true,
                         kNoWindow},
        Sm90BackwardCase{"cta_order_left_window_d64", DType::bfloat16, 2, 400, 650, 4, 2, 64,
                         false, Window{150, kUnboundedWindow}}),
    [](const ::testing::TestParamInfo<Sm90BackwardCase>& info) {
      return std::string(info.param.name);
    });

}  // namespace
}  // namespace fattn::testing
