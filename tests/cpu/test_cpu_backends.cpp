// cpu_flash and cpu_standard against the float64 reference: forward (out, lse) and backward
// (dq, dk, dv) on fresh random inputs, outputs poisoned with NaN before every run, every element
// compared through the relative error of the whole tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/simd_kernels.hpp"
#include "support/test_tensors.hpp"

namespace fattn::testing {
namespace {

// Gradients use the same tolerances as the forward, tolerance_for(dtype). Observed worst cases
// over this file's shapes: fp32 3e-6, fp16 3e-4, bf16 2e-3 (dS = P∘(dP − D) takes D from the
// rounded O, which costs 16-bit gradients a few times the error of the output) — 3-5× margin.
// lse is float32 for every dtype and is computed from the same (rounded) inputs as the reference.
constexpr double kLseTolerance = 1e-5;

struct Case {
  DType dtype = DType::float32;
  std::int64_t batch = 1, seqlen_q = 17, seqlen_k = 17, heads_q = 2, heads_kv = 2, head_dim = 64;
  bool causal = false;
  Window window{};
  std::int64_t row_padding = 0;
  int threads = 0;
  bool deterministic = false;
};

std::string describe(const Case& c) {
  std::string s = std::string(to_string(c.dtype)) + " B" + std::to_string(c.batch) + " Nq" +
                  std::to_string(c.seqlen_q) + " Nk" + std::to_string(c.seqlen_k) + " H" +
                  std::to_string(c.heads_q) + "/" + std::to_string(c.heads_kv) + " D" +
                  std::to_string(c.head_dim);
  if (c.causal) s += " causal";
  if (c.window.left >= 0 || c.window.right >= 0) {
    s += " window(" + std::to_string(c.window.left) + "," + std::to_string(c.window.right) + ")";
  }
  if (c.row_padding) s += " padded";
  return s;
}

Options options_for(const Case& c, Backend backend) {
  Options o;
  o.backend = backend;
  o.causal = c.causal;
  o.window = c.window;
  o.deterministic = c.deterministic;
  return o;
}

struct Gradients {
  HostTensor dq, dk, dv;
};

// Runs everything for one case and one backend; `seed` makes the inputs fresh per case.
class CaseRun {
 public:
  CaseRun(const Case& c, std::uint64_t seed)
      : c_(c), t_(c.dtype, c.batch, c.seqlen_q, c.seqlen_k, c.heads_q, c.heads_kv, c.head_dim, seed, c.row_padding),
        dout_(poisoned_like(t_.q, c.row_padding)) {
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
    fill_random(dout_, rng);
  }

  ExecutionContext context() const {
    ExecutionContext ctx;
    ctx.num_threads = c_.threads;
    return ctx;
  }

  void forward_into(Backend backend, HostTensor& out, HostTensor& lse) {
    poison(out);
    poison(lse);
    const Status s = forward(t_.q.view, t_.k.view, t_.v.view, out.view, lse.view, options_for(c_, backend), context());
    ASSERT_TRUE(s.ok()) << to_string(backend) << ": " << s.message();
  }

  // The backend's own forward output feeds its backward, as it would for a user.
  Gradients backward_of(Backend backend, const HostTensor& out, const HostTensor& lse) {
    Gradients g{poisoned_like(t_.q, c_.row_padding), poisoned_like(t_.k, c_.row_padding),
                poisoned_like(t_.v, c_.row_padding)};
    const Status s = backward(t_.q.view, t_.k.view, t_.v.view, out.view, dout_.view, lse.view, g.dq.view, g.dk.view,
                              g.dv.view, options_for(c_, backend), context());
    EXPECT_TRUE(s.ok()) << to_string(backend) << ": " << s.message();
    return g;
  }

  void check_against_reference(Backend backend, bool with_backward) {
    SCOPED_TRACE(std::string(to_string(backend)) + " " + describe(c_));
    HostTensor ref_out = poisoned_like(t_.out, c_.row_padding), ref_lse = poisoned_like(t_.lse, 0);
    forward_into(Backend::cpu_reference, ref_out, ref_lse);
    HostTensor out = poisoned_like(t_.out, c_.row_padding), lse = poisoned_like(t_.lse, 0);
    forward_into(backend, out, lse);
    EXPECT_LE(relative_error(out, ref_out), tolerance_for(c_.dtype)) << "out";
    EXPECT_LE(relative_error(lse, ref_lse), kLseTolerance) << "lse";
    if (!with_backward) return;
    const Gradients ref = backward_of(Backend::cpu_reference, ref_out, ref_lse);
    const Gradients got = backward_of(backend, out, lse);
    const double tol = tolerance_for(c_.dtype);
    EXPECT_LE(relative_error(got.dq, ref.dq), tol) << "dq";
    EXPECT_LE(relative_error(got.dk, ref.dk), tol) << "dk";
    EXPECT_LE(relative_error(got.dv, ref.dv), tol) << "dv";
  }

  AttentionTensors& tensors() { return t_; }
  const Case& spec() const { return c_; }

 private:
  Case c_;
  AttentionTensors t_;
  HostTensor dout_;
};

constexpr Backend kFastBackends[] = {Backend::cpu_flash, Backend::cpu_standard};

std::uint64_t seed_of(const Case& c) {
  return std::hash<std::string>{}(describe(c)) ^ static_cast<std::uint64_t>(c.threads);
}

class CpuBackends : public ::testing::TestWithParam<Case> {};

TEST_P(CpuBackends, MatchReference) {
  for (Backend backend : kFastBackends) {
    CaseRun run(GetParam(), seed_of(GetParam()));
    run.check_against_reference(backend, /*with_backward=*/true);
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string s = describe(info.param);
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return s + "_" + std::to_string(info.index);
}

std::vector<Case> head_dim_cases() {
  std::vector<Case> cases;
  for (DType dtype : {DType::float32, DType::float16, DType::bfloat16}) {
    for (std::int64_t dim : {1, 8, 64, 72, 128, 129, 256}) {
      Case c;
      c.dtype = dtype, c.batch = 2, c.seqlen_q = 17, c.seqlen_k = 128, c.heads_q = 2, c.heads_kv = 1;
      c.head_dim = dim;
      cases.push_back(c);
    }
  }
  return cases;
}
INSTANTIATE_TEST_SUITE_P(HeadDims, CpuBackends, ::testing::ValuesIn(head_dim_cases()), case_name);

std::vector<Case> mask_cases() {
  std::vector<Case> cases;
  const std::pair<std::int64_t, std::int64_t> lengths[] = {{17, 128}, {128, 128}, {128, 17}, {1, 1}, {1, 128}, {128, 1}};
  for (DType dtype : {DType::float32, DType::bfloat16}) {
    for (auto [nq, nk] : lengths) {
      for (int mask = 0; mask < 4; ++mask) {
        Case c;
        c.dtype = dtype, c.seqlen_q = nq, c.seqlen_k = nk, c.head_dim = 72;
        if (mask == 1) c.causal = true;
        if (mask == 2) c.window = {16, 8};
        if (mask == 3) c.window = {0, -1};  // keys at or after the diagonal only
        if (mask == 0 && dtype == DType::bfloat16) c.causal = true, c.window = {70, -1};  // causal + left window
        cases.push_back(c);
      }
    }
  }
  return cases;
}
INSTANTIATE_TEST_SUITE_P(Masks, CpuBackends, ::testing::ValuesIn(mask_cases()), case_name);

std::vector<Case> gqa_cases() {
  std::vector<Case> cases;
  for (std::int64_t heads_kv : {2, 1}) {
    for (bool causal : {false, true}) {
      Case c;
      c.dtype = causal ? DType::float16 : DType::float32;
      c.batch = 2, c.seqlen_q = 128, c.seqlen_k = 100, c.heads_q = 8, c.heads_kv = heads_kv, c.head_dim = 64;
      c.causal = causal;
      cases.push_back(c);
    }
  }
  return cases;
}
INSTANTIATE_TEST_SUITE_P(GroupedQueryAttention, CpuBackends, ::testing::ValuesIn(gqa_cases()), case_name);

std::vector<Case> long_cases() {
  std::vector<Case> cases;
  Case causal;
  causal.seqlen_q = causal.seqlen_k = 1013, causal.heads_q = 2, causal.heads_kv = 1, causal.head_dim = 64;
  causal.causal = true;
  cases.push_back(causal);
  Case window = causal;
  window.dtype = DType::bfloat16, window.causal = false, window.window = {300, 40}, window.head_dim = 128;
  window.seqlen_q = 517, window.heads_q = 1;
  cases.push_back(window);
  Case decode;
  decode.seqlen_q = 3, decode.seqlen_k = 1013, decode.head_dim = 129, decode.dtype = DType::float16;
  cases.push_back(decode);
  return cases;
}
INSTANTIATE_TEST_SUITE_P(LongSequences, CpuBackends, ::testing::ValuesIn(long_cases()), case_name);

std::vector<Case> layout_cases() {
  std::vector<Case> cases;
  for (DType dtype : {DType::float32, DType::float16}) {
    Case c;  // rows padded by 5 elements: strides that are not multiples of any vector width
    c.dtype = dtype, c.batch = 2, c.seqlen_q = 65, c.seqlen_k = 70, c.heads_q = 4, c.heads_kv = 2, c.head_dim = 72;
    c.row_padding = 5, c.causal = true;
    cases.push_back(c);
  }
  for (int threads : {1, 3}) {  // other team sizes than the machine's: split and balance logic
    Case c;
    c.seqlen_q = 200, c.seqlen_k = 190, c.heads_q = 3, c.heads_kv = 1, c.head_dim = 40, c.causal = true;
    c.threads = threads;
    cases.push_back(c);
  }
  return cases;
}
INSTANTIATE_TEST_SUITE_P(Layouts, CpuBackends, ::testing::ValuesIn(layout_cases()), case_name);

// ---- degenerate shapes ---------------------------------------------------------------------

bool is_minus_infinity(float x) { return std::isinf(x) && x < 0; }

TEST(CpuBackendsEdge, FullyMaskedRowsGiveZerosAndNoNaNGradients) {
  // Causal with Nq > Nk: the first Nq − Nk rows see nothing. A narrow window adds more.
  for (Backend backend : kFastBackends) {
    for (bool window : {false, true}) {
      Case c;
      c.seqlen_q = 100, c.seqlen_k = 30, c.head_dim = 24, c.causal = true;
      if (window) c.window = {3, -1};
      CaseRun run(c, 7 + window);
      run.check_against_reference(backend, true);
      HostTensor out = poisoned_like(run.tensors().out, 0), lse = poisoned_like(run.tensors().lse, 0);
      run.forward_into(backend, out, lse);
      for (std::int64_t h = 0; h < c.heads_q; ++h) {
        for (std::int64_t i = 0; i < c.seqlen_q - c.seqlen_k; ++i) {
          EXPECT_TRUE(is_minus_infinity(lse.at(h * c.seqlen_q + i))) << "row " << i;
          for (std::int64_t d = 0; d < c.head_dim; ++d) {
            ASSERT_EQ(out.at((i * c.heads_q + h) * c.head_dim + d), 0.0f) << "row " << i;
          }
        }
      }
      const Gradients g = run.backward_of(backend, out, lse);
      EXPECT_TRUE(all_finite(g.dq) && all_finite(g.dk) && all_finite(g.dv)) << to_string(backend);
    }
  }
}

TEST(CpuBackendsEdge, NoKeysGiveZeroOutputMinusInfinityLseAndZeroDq) {
  for (Backend backend : kFastBackends) {
    Case c;
    c.seqlen_q = 9, c.seqlen_k = 0, c.head_dim = 16;
    CaseRun run(c, 21);
    HostTensor out = poisoned_like(run.tensors().out, 0), lse = poisoned_like(run.tensors().lse, 0);
    run.forward_into(backend, out, lse);
    for (std::int64_t i = 0; i < out.numel(); ++i) ASSERT_EQ(out.at(i), 0.0f) << to_string(backend);
    for (std::int64_t i = 0; i < lse.numel(); ++i) ASSERT_TRUE(is_minus_infinity(lse.at(i))) << to_string(backend);
    const Gradients g = run.backward_of(backend, out, lse);
    for (std::int64_t i = 0; i < g.dq.numel(); ++i) ASSERT_EQ(g.dq.at(i), 0.0f) << to_string(backend);
  }
}

TEST(CpuBackendsEdge, NoQueriesGiveZeroKeyAndValueGradients) {
  for (Backend backend : kFastBackends) {
    Case c;
    c.seqlen_q = 0, c.seqlen_k = 33, c.head_dim = 16;
    CaseRun run(c, 22);
    HostTensor out = poisoned_like(run.tensors().out, 0), lse = poisoned_like(run.tensors().lse, 0);
    const Gradients g = run.backward_of(backend, out, lse);
    for (std::int64_t i = 0; i < g.dk.numel(); ++i) ASSERT_EQ(g.dk.at(i), 0.0f) << to_string(backend);
    for (std::int64_t i = 0; i < g.dv.numel(); ++i) ASSERT_EQ(g.dv.at(i), 0.0f) << to_string(backend);
  }
}

// ---- determinism and memory ----------------------------------------------------------------

bool bitwise_equal(const HostTensor& a, const HostTensor& b) {
  return a.storage.size() == b.storage.size() && std::memcmp(a.storage.data(), b.storage.data(), a.storage.size()) == 0;
}

TEST(CpuBackendsEdge, BackwardIsBitwiseDeterministic) {
  // 7 threads on 5 key tiles × 2 kv heads: threads share pairs and some get no tile at all.
  for (int threads : {2, 7}) {
    for (Backend backend : kFastBackends) {
      Case c;
      c.batch = 2, c.seqlen_q = 300, c.seqlen_k = 260, c.heads_q = 4, c.heads_kv = 1, c.head_dim = 64;
      c.causal = true, c.threads = threads, c.deterministic = true;
      CaseRun run(c, 31);
      HostTensor out = poisoned_like(run.tensors().out, 0), lse = poisoned_like(run.tensors().lse, 0);
      run.forward_into(backend, out, lse);
      const Gradients first = run.backward_of(backend, out, lse);
      const Gradients second = run.backward_of(backend, out, lse);
      SCOPED_TRACE(std::string(to_string(backend)) + ", threads " + std::to_string(threads));
      EXPECT_TRUE(bitwise_equal(first.dq, second.dq));
      EXPECT_TRUE(bitwise_equal(first.dk, second.dk));
      EXPECT_TRUE(bitwise_equal(first.dv, second.dv));
    }
  }
}

RunStats forward_stats(Backend backend, std::int64_t seqlen) {
  AttentionTensors t(DType::float32, 1, seqlen, seqlen, 2, 2, 64, 41);
  RunStats stats;
  ExecutionContext ctx;
  ctx.num_threads = 2;
  ctx.stats = &stats;
  Options o;
  o.backend = backend;
  EXPECT_TRUE(forward(t.q.view, t.k.view, t.v.view, t.out.view, t.lse.view, o, ctx).ok());
  return stats;
}

TEST(CpuBackendsEdge, FlashWorkspaceGrowsLinearlyStandardQuadratically) {
  const RunStats flash_short = forward_stats(Backend::cpu_flash, 512);
  const RunStats flash_long = forward_stats(Backend::cpu_flash, 2048);
  const RunStats standard_short = forward_stats(Backend::cpu_standard, 512);
  const RunStats standard_long = forward_stats(Backend::cpu_standard, 2048);
  EXPECT_EQ(flash_long.kernel_launches, 1);
  EXPECT_EQ(standard_long.kernel_launches, 3);
  // 4× the sequence: flash's O(N) workspace grows at most 4× (per-thread tiles don't grow at
  // all); standard's N×N matrix grows ~16×.
  EXPECT_LE(flash_long.workspace_bytes, 4 * flash_short.workspace_bytes);
  EXPECT_GE(standard_long.workspace_bytes, 8 * standard_short.workspace_bytes);
  EXPECT_GE(standard_long.workspace_bytes, std::size_t{2048} * 2048 * sizeof(float));
}

TEST(CpuBackendsEdge, StandardReportsAnImpossibleAllocation) {
  // S would need 2^23 × 2^24 floats = 512 TiB, beyond any address space: a Status, not a crash.
  constexpr std::int64_t kQueries = std::int64_t{1} << 23, kKeys = std::int64_t{1} << 24;
  HostTensor q = make_tensor(DType::float32, {1, kQueries, 1, 1}), out = make_tensor(DType::float32, {1, kQueries, 1, 1});
  HostTensor k = make_tensor(DType::float32, {1, kKeys, 1, 1}), v = make_tensor(DType::float32, {1, kKeys, 1, 1});
  HostTensor lse = make_tensor(DType::float32, {1, 1, kQueries});
  Options o;
  o.backend = Backend::cpu_standard;
  const Status s = forward(q.view, k.view, v.view, out.view, lse.view, o);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("could not allocate"), std::string::npos) << s.message();
}

// Run-time dispatch picks the best instruction set; the others (AVX2, SSE4, the portable
// fallback, ...) are checked here by pinning each in turn on a shape with edge tiles.
TEST(CpuBackendsEdge, EveryCompiledInstructionSetMatchesReference) {
  const std::vector<std::int64_t> targets = detail::simd::usable_instruction_sets();
  ASSERT_FALSE(targets.empty());
  for (std::int64_t target : targets) {
    detail::simd::pin_instruction_set(target);
    for (DType dtype : {DType::float32, DType::float16}) {
      Case c;
      c.dtype = dtype, c.seqlen_q = 70, c.seqlen_k = 77, c.heads_q = 2, c.heads_kv = 1, c.head_dim = 72;
      c.causal = true;
      SCOPED_TRACE(detail::simd::instruction_set_name(target));
      for (Backend backend : kFastBackends) CaseRun(c, 51).check_against_reference(backend, true);
    }
  }
  detail::simd::pin_instruction_set(0);
}

}  // namespace
}  // namespace fattn::testing
