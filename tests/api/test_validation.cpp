// Every bad input is refused before any work, with a status whose message names the argument,
// what was expected and what was given — and no output is touched. Degenerate but valid inputs
// (empty sequences, empty batch, fully masked rows) succeed with zeros / -inf and no NaN.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "support/test_tensors.hpp"

namespace fattn::testing {
namespace {

constexpr std::int64_t kBatch = 2, kSeqQ = 5, kSeqK = 7, kHeadsQ = 4, kHeadsKv = 2, kDim = 8;

// A valid forward+backward problem with poisoned outputs; each test breaks one thing.
struct Problem {
  HostTensor q, k, v, out, lse, dout, dq, dk, dv;
  Options options;

  explicit Problem(DType dtype = DType::float32, std::int64_t seq_q = kSeqQ, std::int64_t seq_k = kSeqK,
                   std::int64_t batch = kBatch)
      : q(make_tensor(dtype, {batch, seq_q, kHeadsQ, kDim})),
        k(make_tensor(dtype, {batch, seq_k, kHeadsKv, kDim})),
        v(make_tensor(dtype, {batch, seq_k, kHeadsKv, kDim})),
        out(make_tensor(dtype, {batch, seq_q, kHeadsQ, kDim})),
        lse(make_tensor(DType::float32, {batch, kHeadsQ, seq_q})),
        dout(make_tensor(dtype, {batch, seq_q, kHeadsQ, kDim})),
        dq(make_tensor(dtype, {batch, seq_q, kHeadsQ, kDim})),
        dk(make_tensor(dtype, {batch, seq_k, kHeadsKv, kDim})),
        dv(make_tensor(dtype, {batch, seq_k, kHeadsKv, kDim})) {
    std::mt19937_64 rng(42);
    for (HostTensor* t : {&q, &k, &v, &dout}) fill_random(*t, rng);
    for (HostTensor* t : {&out, &lse, &dq, &dk, &dv}) poison(*t);
    options.backend = Backend::cpu_reference;
  }

  Status forward_call() { return forward(q.view, k.view, v.view, out.view, lse.view, options); }
  Status backward_call() {
    return backward(q.view, k.view, v.view, out.view, dout.view, lse.view, dq.view, dk.view, dv.view,
                    options);
  }
  std::vector<std::vector<std::uint8_t>> output_bytes() const {
    return {out.storage, lse.storage, dq.storage, dk.storage, dv.storage};
  }
};

// Asserts the status code and that the message holds every fragment (the argument's name, the
// expected and the given value).
void expect_error(const Status& status, StatusCode code, std::initializer_list<const char*> fragments) {
  ASSERT_FALSE(status.ok()) << "the call succeeded";
  EXPECT_EQ(status.code(), code) << to_string(status.code()) << ": " << status.message();
  for (const char* fragment : fragments) {
    EXPECT_NE(status.message().find(fragment), std::string::npos)
        << "message \"" << status.message() << "\" lacks \"" << fragment << "\"";
  }
}

// Runs `call` on `p`, expects the error, and checks that no output byte changed.
template <class Call>
void expect_refused(Problem& p, Call call, StatusCode code, std::initializer_list<const char*> fragments) {
  const auto before = p.output_bytes();
  expect_error(call(p), code, fragments);
  EXPECT_TRUE(p.output_bytes() == before) << "an output was written although the call failed";
}

Status fwd(Problem& p) { return p.forward_call(); }
Status bwd(Problem& p) { return p.backward_call(); }

// ASSERT_TRUE(status.ok()) that prints the library's message when it fails.
#define ASSERT_OK(expression)                                                            \
  do {                                                                                   \
    const Status status_ = (expression);                                                 \
    ASSERT_TRUE(status_.ok()) << to_string(status_.code()) << ": " << status_.message(); \
  } while (false)

constexpr StatusCode kInvalid = StatusCode::invalid_argument;
constexpr StatusCode kUnsupported = StatusCode::unsupported;

TEST(Validation, ValidProblemRuns) {
  Problem p;
  ASSERT_OK(p.forward_call());
  ASSERT_OK(p.backward_call());
  EXPECT_TRUE(all_finite(p.out) && all_finite(p.lse) && all_finite(p.dq) && all_finite(p.dk) &&
              all_finite(p.dv));
}

TEST(Validation, WrongRank) {
  Problem p;
  p.q.view =
      TensorView::contiguous(p.q.view.data, DType::float32, Device::cpu(), {kBatch * kSeqQ, kHeadsQ, kDim});
  expect_refused(p, fwd, kInvalid, {"q:", "rank-4", "(batch, seqlen, heads, head_dim)", "got rank 3"});
}

TEST(Validation, NegativeDimension) {
  Problem p;
  p.k.view.shape[1] = -1;
  expect_refused(p, fwd, kInvalid, {"k:", "negative", "(2, -1, 2, 8)"});
}

TEST(Validation, KeyBatchMismatch) {
  Problem p;
  p.k.view.shape[0] = 1;
  p.v.view.shape[0] = 1;
  expect_refused(p, fwd, kInvalid, {"k:", "expected batch 2", "got 1"});
}

TEST(Validation, KeyHeadDimMismatch) {
  Problem p;
  p.k.view.shape[3] = 4;
  expect_refused(p, fwd, kInvalid, {"k:", "expected head_dim 8", "got 4"});
}

TEST(Validation, ValueShapeMismatch) {
  Problem p;
  p.v.view.shape[1] = kSeqK - 1;
  expect_refused(p, fwd, kInvalid, {"v:", "expected shape (2, 7, 2, 8)", "that of k", "got (2, 6, 2, 8)"});
}

TEST(Validation, OutShapeMismatch) {
  Problem p;
  p.out.view.shape[2] = kHeadsQ - 1;
  expect_refused(p, fwd, kInvalid, {"out:", "expected shape (2, 5, 4, 8)", "that of q", "got (2, 5, 3, 8)"});
}

TEST(Validation, GradientShapeMismatches) {
  {
    Problem p;
    p.dout.view.shape[1] = kSeqQ + 1;
    expect_refused(p, bwd, kInvalid, {"dout:", "expected shape (2, 5, 4, 8)", "got (2, 6, 4, 8)"});
  }
  {
    Problem p;
    p.dq.view.shape[0] = 1;
    expect_refused(p, bwd, kInvalid, {"dq:", "expected shape (2, 5, 4, 8)", "got (1, 5, 4, 8)"});
  }
  {
    Problem p;
    p.dk.view.shape[2] = 1;
    expect_refused(p, bwd, kInvalid, {"dk:", "expected shape (2, 7, 2, 8)", "got (2, 7, 1, 8)"});
  }
  {
    Problem p;
    p.dv.view.shape[3] = 4;
    expect_refused(p, bwd, kInvalid, {"dv:", "expected shape (2, 7, 2, 8)", "got (2, 7, 2, 4)"});
  }
}

TEST(Validation, DtypeMismatch) {
  Problem p;
  p.k.view.dtype = DType::float16;
  expect_refused(p, fwd, kInvalid, {"k:", "expected dtype float32", "that of q", "got float16"});
  Problem g;
  g.dq.view.dtype = DType::bfloat16;
  expect_refused(g, bwd, kInvalid, {"dq:", "expected dtype float32", "got bfloat16"});
}

TEST(Validation, UnsupportedDtype) {
  Problem p;
  for (HostTensor* t : {&p.q, &p.k, &p.v, &p.out}) t->view.dtype = DType::float8_e4m3;
  expect_refused(p, fwd, kInvalid, {"q:", "expected dtype float32, float16 or bfloat16", "got float8_e4m3"});
}

TEST(Validation, UnsupportedHeadDim) {
  for (std::int64_t dim : {std::int64_t{0}, kMaxHeadDim + 1}) {
    Problem p;
    for (HostTensor* t : {&p.q, &p.k, &p.v, &p.out}) t->view.shape[3] = dim;
    const std::string given = "got " + std::to_string(dim);
    expect_refused(p, fwd, kInvalid, {"q:", "head_dim", "expected 1 to 256", given.c_str()});
  }
}

TEST(Validation, HeadsNotAMultipleOfKvHeads) {
  Problem p;
  for (HostTensor* t : {&p.k, &p.v}) t->view.shape[2] = 3;
  expect_refused(p, fwd, kInvalid, {"k:", "multiple of heads_kv", "q has 4 heads", "k has 3"});
}

TEST(Validation, NonContiguousLastDimension) {
  Problem p;
  p.q.view.stride[3] = 2;
  p.q.view.shape[3] = kDim;
  expect_refused(p, fwd, kInvalid, {"q:", "last dimension must be contiguous", "stride 2"});
}

TEST(Validation, NegativeStride) {
  Problem p;
  p.v.view.stride[1] = -p.v.view.stride[1];
  expect_refused(p, fwd, kInvalid, {"v:", "non-negative strides", "dimension 1"});
}

TEST(Validation, MisalignedPointer) {
  Problem p;
  p.k.view.data = p.k.storage.data() + 1;
  expect_refused(p, fwd, kInvalid, {"k:", "misaligned", "multiple of 4 bytes", "float32"});
}

TEST(Validation, NullPointer) {
  Problem p;
  p.out.view.data = nullptr;
  expect_refused(p, fwd, kInvalid, {"out:", "null", "(2, 5, 4, 8)"});
  Problem g;
  g.dk.view.data = nullptr;
  expect_refused(g, bwd, kInvalid, {"dk:", "null"});
}

TEST(Validation, CudaTensorIsRefusedClearly) {
  // A host pointer labelled as a CUDA tensor: without CUDA in the build the message says the
  // build has no CUDA support; with CUDA it says where the pointer really lives. Either way it
  // names the argument and nothing runs.
  Problem p;
  p.q.view.device = Device::cuda(0);
  const auto before = p.output_bytes();
  const Status s = p.forward_call();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("q:"), std::string::npos) << s.message();
  std::string lower = s.message();
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_NE(lower.find("cuda"), std::string::npos) << s.message();
  if (!backend_compiled(Backend::cuda_standard)) {
    expect_error(s, kUnsupported, {"q:", "no CUDA support"});
  }
  EXPECT_TRUE(p.output_bytes() == before);
}

TEST(Validation, MixedDevices) {
  Problem p;
  p.v.view.device = Device::cuda(0);
  const auto before = p.output_bytes();
  const Status s = p.forward_call();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("v:"), std::string::npos) << s.message();
  EXPECT_TRUE(p.output_bytes() == before);
}

TEST(Validation, LseWrongShape) {
  Problem p;
  p.lse.view.shape[2] = kSeqQ + 1;
  expect_refused(p, fwd, kInvalid,
                 {"lse:", "expected shape (2, 4, 5)", "(batch, heads_q, seqlen_q)", "got (2, 4, 6)"});
}

TEST(Validation, LseWrongRank) {
  Problem p;
  p.lse.view =
      TensorView::contiguous(p.lse.view.data, DType::float32, Device::cpu(), {kBatch, kHeadsQ, kSeqQ, 1});
  expect_refused(p, fwd, kInvalid, {"lse:", "rank-3", "got rank 4"});
}

TEST(Validation, LseWrongDtype) {
  Problem p;
  p.lse.view.dtype = DType::float16;
  expect_refused(p, fwd, kInvalid, {"lse:", "expected dtype float32", "got float16"});
}

TEST(Validation, LseNotContiguous) {
  Problem p;
  HostTensor wide = make_tensor(DType::float32, {kBatch, kHeadsQ, kSeqQ + 3});
  poison(wide);
  p.lse.view = wide.view;
  p.lse.view.shape[2] = kSeqQ;  // rows of 8 floats holding 5: strides (32, 8, 1)
  expect_refused(p, fwd, kInvalid, {"lse:", "contiguous", "(32, 8, 1)"});
}

TEST(Validation, BadWindow) {
  Problem p;
  p.options.window = {-2, 0};
  expect_refused(p, fwd, kInvalid, {"window:", "-1 for unbounded", "(-2, 0)"});
}

TEST(Validation, WindowWiderThanKernelsIndex) {
  Problem p;
  p.options.window = {std::int64_t{1} << 40, 0};
  expect_refused(p, fwd, kInvalid, {"window:", "at most 2147483647", "1099511627776"});
}

TEST(Validation, NonFiniteScale) {
  for (float scale : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    Problem p;
    p.options.softmax_scale = scale;
    expect_refused(p, fwd, kInvalid, {"softmax_scale:", "finite"});
    expect_refused(p, bwd, kInvalid, {"softmax_scale:", "finite"});
  }
}

TEST(Validation, SequenceLongerThanKernelsIndex) {
  Problem p;
  const std::int64_t too_long = std::int64_t{1} << 31;
  for (HostTensor* t : {&p.k, &p.v}) t->view.shape[1] = too_long;
  expect_refused(p, fwd, kInvalid, {"seqlen", "2147483647", "2147483648"});
}

TEST(Validation, BackendNotInThisBuildOrNotForThisDevice) {
  // cuda_sm90 on CPU tensors: "not compiled" in a CPU build, "runs on CUDA devices" otherwise.
  Problem p;
  p.options.backend = Backend::cuda_sm90;
  expect_refused(p, fwd, kUnsupported, {"cuda_sm90"});
  Problem q;
  q.options.backend = Backend::cuda_standard;
  expect_refused(q, bwd, kUnsupported, {"cuda_standard"});
}

TEST(Validation, SupportsExplainsCpuBackendOnGpuTensors) {
  fattn::Problem problem;
  problem.batch = 1, problem.seqlen_q = problem.seqlen_k = 16, problem.heads_q = problem.heads_kv = 1;
  problem.head_dim = 64;
  problem.device = Device::cuda(0);
  problem.options.backend = Backend::cpu_flash;
  const Selection s = supports(problem);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.reason.find("cpu_flash"), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("cuda:0"), std::string::npos) << s.reason;
}

TEST(Validation, SupportsWithoutCudaDeviceGivesAReason) {
  fattn::Problem problem;
  problem.batch = 1, problem.seqlen_q = problem.seqlen_k = 16, problem.heads_q = problem.heads_kv = 1;
  problem.head_dim = 64;
  problem.dtype = DType::bfloat16;
  problem.device = Device::cuda(7);
  const Selection s = supports(problem);
  if (s.ok()) GTEST_SKIP() << "this machine has a CUDA device 7";
  EXPECT_FALSE(s.reason.empty());
}

// ---- degenerate but valid inputs, for every CPU backend --------------------------------------

class Degenerate : public ::testing::TestWithParam<Backend> {
 protected:
  Problem make(std::int64_t seq_q, std::int64_t seq_k, std::int64_t batch = kBatch) {
    Problem p(DType::float32, seq_q, seq_k, batch);
    p.options.backend = GetParam();
    return p;
  }
};

bool all_zero(const HostTensor& t) {
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    if (t.at(i) != 0.0f) return false;
  }
  return true;
}

bool all_minus_infinity(const HostTensor& t) {
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    if (!(std::isinf(t.at(i)) && t.at(i) < 0)) return false;
  }
  return true;
}

TEST_P(Degenerate, EmptyKeysGiveZeroOutputAndMinusInfinity) {
  Problem p = make(kSeqQ, 0);
  ASSERT_OK(p.forward_call());
  EXPECT_TRUE(all_zero(p.out));
  EXPECT_TRUE(all_minus_infinity(p.lse));
  ASSERT_OK(p.backward_call());
  EXPECT_TRUE(all_zero(p.dq));
}

TEST_P(Degenerate, EmptyQueriesGiveZeroKeyGradients) {
  Problem p = make(0, kSeqK);
  ASSERT_OK(p.forward_call());
  ASSERT_OK(p.backward_call());
  EXPECT_TRUE(all_zero(p.dk));
  EXPECT_TRUE(all_zero(p.dv));
}

TEST_P(Degenerate, EmptyBatchIsANoOp) {
  Problem p = make(kSeqQ, kSeqK, 0);
  ASSERT_OK(p.forward_call());
  ASSERT_OK(p.backward_call());
}

TEST_P(Degenerate, FullyMaskedRowsGiveZerosAndNoNaN) {
  // Causal with Nq = 9 > Nk = 4: rows 0..4 see no key (bottom-right alignment).
  constexpr std::int64_t kRows = 9, kKeys = 4, kMaskedRows = kRows - kKeys;
  Problem p = make(kRows, kKeys);
  p.options.causal = true;
  ASSERT_OK(p.forward_call());
  ASSERT_OK(p.backward_call());
  for (std::int64_t b = 0; b < kBatch; ++b) {
    for (std::int64_t h = 0; h < kHeadsQ; ++h) {
      for (std::int64_t i = 0; i < kRows; ++i) {
        const float lse = p.lse.at((b * kHeadsQ + h) * kRows + i);
        if (i < kMaskedRows) {
          EXPECT_TRUE(std::isinf(lse) && lse < 0) << "row " << i << " lse " << lse;
        } else {
          EXPECT_TRUE(std::isfinite(lse)) << "row " << i;
        }
        for (std::int64_t d = 0; d < kDim; ++d) {
          const std::int64_t index = ((b * kRows + i) * kHeadsQ + h) * kDim + d;
          if (i < kMaskedRows) {
            EXPECT_EQ(p.out.at(index), 0.0f);
            EXPECT_EQ(p.dq.at(index), 0.0f);
          }
        }
      }
    }
  }
  EXPECT_TRUE(all_finite(p.out) && all_finite(p.dq) && all_finite(p.dk) && all_finite(p.dv));
}

TEST_P(Degenerate, WindowThatHidesEveryKeyGivesZeros) {
  // Window (0, 0) with Nq = 5 and Nk = 7 leaves each row its one diagonal key; shifting it out
  // of range with Nk = 2 < Nq hides every key from the first 3 rows.
  Problem p = make(kSeqQ, 2);
  p.options.window = {0, 0};
  ASSERT_OK(p.forward_call());
  ASSERT_OK(p.backward_call());
  EXPECT_TRUE(all_finite(p.out) && all_finite(p.dq) && all_finite(p.dk) && all_finite(p.dv));
  EXPECT_TRUE(std::isinf(p.lse.at(0)) && p.lse.at(0) < 0);
}

std::vector<Backend> cpu_backends() {
  std::vector<Backend> backends;
  for (Backend b : {Backend::cpu_reference, Backend::cpu_standard, Backend::cpu_flash}) {
    if (backend_compiled(b)) backends.push_back(b);
  }
  return backends;
}

INSTANTIATE_TEST_SUITE_P(CpuBackends, Degenerate, ::testing::ValuesIn(cpu_backends()),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return std::string(to_string(info.param));
                         });

}  // namespace
}  // namespace fattn::testing
