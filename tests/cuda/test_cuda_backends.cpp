// Every CUDA backend (cuda_standard, cuda_simt, cuda_sm80, cuda_sm90) against the float64 CPU
// reference: forward (out, lse) and, where the backend has one, backward (dq, dk, dv). Fresh
// random inputs per case, device outputs poisoned with NaN (all bytes 0xFF) before every run,
// every element compared: the relative error of the whole tensor, plus a per-element bound so a
// few wrong elements cannot hide in the norm. A backend that is not compiled, or that supports()
// refuses for a case, is skipped with the reason printed; without a GPU everything is skipped.
//
// Test names carry "small" or "large": scripts/gpu-check runs the sanitizers on "small" only.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cuda/common/shared_memory_limit.hpp"
#include "device_buffer.hpp"
#include "shared_memory_cap.hpp"
#include "support/pruning.hpp"
#include "api/selector.hpp"
#include "support/simulated_device.hpp"
#include "support/test_tensors.hpp"

namespace fattn::testing {
namespace {

// lse is fp32 for every dtype and computed from the same rounded inputs as the reference.
constexpr double kLseTolerance = 1e-5;
// Gradients: 16-bit backends round P and dS (standard) or O (the D = rowsum(dO∘O) term) to the
// storage type, which costs a few times the output's rounding error.
constexpr double kGradientToleranceFactor = 3.0;
// Per-element bound |x − ref| <= kElementAbs·rms(ref) + kElementRel·|ref|, in units of the
// dtype's tolerance: loose enough for rounding, tight enough to catch a wrong row or column.
constexpr double kElementAbs = 20.0;
constexpr double kElementRel = 20.0;
// Scale floor of the per-element bound, in data units: where the exact result is (nearly) all
// zeros — dq and dk with a single visible key — rounding noise must not count as a violation.
constexpr double kElementScaleFloor = 1e-2;

struct Case {
  std::string size;  // "small" or "large"
  DType dtype = DType::float32;
  std::int64_t batch = 1, seqlen_q = 17, seqlen_k = 17, heads_q = 2, heads_kv = 2, head_dim = 64;
  bool causal = false;
  Window window{};
  std::int64_t row_padding = 0;
  // The device's shared memory per block as the test shows it to fattn (ScopedSharedMemoryCap):
  // 0 as it is; detail::kA100SharedBytesPerBlock or kConsumerAmpereSharedBytesPerBlock to run the
  // tiles of those devices on whatever GPU runs the test.
  int shared_cap = 0;
};

std::string describe(const Case& c) {
  std::string s = c.size + "_" + to_string(c.dtype) + "_B" + std::to_string(c.batch) + "_Nq" +
                  std::to_string(c.seqlen_q) + "_Nk" + std::to_string(c.seqlen_k) + "_H" +
                  std::to_string(c.heads_q) + "x" + std::to_string(c.heads_kv) + "_D" +
                  std::to_string(c.head_dim);
  if (c.causal) s += "_causal";
  if (c.window.left >= 0 || c.window.right >= 0) {
    s += "_window" + std::to_string(c.window.left) + "x" + std::to_string(c.window.right);
  }
  if (c.row_padding) s += "_pad" + std::to_string(c.row_padding);
  if (c.shared_cap) s += "_smem" + std::to_string(c.shared_cap);
  return s;
}

// gtest prints parameters with this instead of a byte dump.
void PrintTo(const Case& c, std::ostream* os) { *os << describe(c); }

Options options_for(const Case& c, Backend backend) {
  Options o;
  o.backend = backend;
  o.causal = c.causal;
  o.window = c.window;
  return o;
}

// Largest |x − ref| / (abs·rms(ref) + rel·|ref|) over all logical elements (> 1 fails);
// matching infinities count as equal, a NaN anywhere is +inf.
double element_violation(const HostTensor& got, const HostTensor& ref, double tolerance) {
  double sum_squares = 0.0;
  std::int64_t finite = 0;
  for (std::int64_t i = 0; i < ref.numel(); ++i) {
    const double y = ref.at(i);
    if (std::isfinite(y)) sum_squares += y * y, ++finite;
  }
  const double rms = std::max(finite ? std::sqrt(sum_squares / static_cast<double>(finite)) : 0.0,
                              kElementScaleFloor);
  double worst = 0.0;
  for (std::int64_t i = 0; i < ref.numel(); ++i) {
    const double x = got.at(i), y = ref.at(i);
    if (std::isinf(y) && x == y) continue;
    if (!std::isfinite(x)) return INFINITY;
    const double bound = tolerance * (kElementAbs * rms + kElementRel * std::fabs(y));
    const double diff = std::fabs(x - y);
    if (diff == 0.0) continue;
    worst = std::max(worst, bound > 0.0 ? diff / bound : INFINITY);
  }
  return worst;
}

void expect_close(const HostTensor& got, const HostTensor& ref, double tolerance, const char* what) {
  EXPECT_LE(relative_error(got, ref), tolerance) << what << ": relative error of the tensor";
  EXPECT_LE(element_violation(got, ref, tolerance), 1.0) << what << ": worst element vs its bound";
}

class CudaBackends : public ::testing::TestWithParam<std::tuple<Backend, Case>> {
 protected:
  void SetUp() override {
    if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
    const auto& [backend, c] = GetParam();
    if (!backend_compiled(backend)) {
      GTEST_SKIP() << to_string(backend) << " is not compiled into this build";
    }
  }

  // Skips (with the selector's reason) when `backend` does not take the case in `direction`.
  bool supported(Backend backend, const Case& c, Direction direction, const AttentionTensors& t,
                 const TensorView& q_device, const TensorView& k_device) {
    return supported(backend, c, direction, t, q_device, k_device, options_for(c, backend));
  }
  bool supported(Backend backend, const Case& c, Direction direction, const AttentionTensors& t,
                 const TensorView& q_device, const TensorView& k_device, const Options& options) {
    (void)c;
    const Selection s = supports(Problem::describe(q_device, k_device, options, direction));
    if (!s.ok()) {
      std::printf("[  SKIPPED ] %s %s: %s\n", to_string(backend),
                  direction == Direction::forward ? "forward" : "backward", s.reason.c_str());
    }
    (void)t;
    return s.ok();
  }
};

std::uint64_t seed_of(const Case& c) { return std::hash<std::string>{}(describe(c)); }

struct ReferenceResults {
  bool forward_done = false, backward_done = false;
  HostTensor out, lse, dq, dk, dv;
};

ReferenceResults& reference_for(const Case& c) {
  static std::map<std::string, ReferenceResults> cache;
  return cache[describe(c)];
}

TEST_P(CudaBackends, MatchesReference) {
  const auto& [backend, c] = GetParam();
  const ScopedSharedMemoryCap cap(0, c.shared_cap);
  AttentionTensors t(c.dtype, c.batch, c.seqlen_q, c.seqlen_k, c.heads_q, c.heads_kv, c.head_dim, seed_of(c),
                     c.row_padding);
  HostTensor dout = poisoned_like(t.q, c.row_padding);
  std::mt19937_64 rng(seed_of(c) ^ 0x9e3779b97f4a7c15ull);
  fill_random(dout, rng);

  DeviceBuffer q(t.q), k(t.k), v(t.v), out(t.out), lse(t.lse), dout_d(dout);
  if (!supported(backend, c, Direction::forward, t, q.view, k.view)) {
    GTEST_SKIP() << to_string(backend) << " does not support this forward";
  }

  // Reference on the host, computed once per case and shared by the backends (same seed, same
  // inputs): at N = 4096 the float64 reference costs seconds per call.
  ReferenceResults& ref = reference_for(c);
  const Options ref_options = options_for(c, Backend::cpu_reference);
  if (!ref.forward_done) {
    ref.out = poisoned_like(t.out, c.row_padding);
    ref.lse = poisoned_like(t.lse, 0);
    ASSERT_TRUE(forward(t.q.view, t.k.view, t.v.view, ref.out.view, ref.lse.view, ref_options).ok());
    ref.forward_done = true;
  }
  const HostTensor& ref_out = ref.out;
  const HostTensor& ref_lse = ref.lse;

  out.poison();
  lse.poison();
  const Status fs = forward(q.view, k.view, v.view, out.view, lse.view, options_for(c, backend));
  ASSERT_TRUE(fs.ok()) << to_string(backend) << " forward: " << fs.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double tol = tolerance_for(c.dtype);
  const HostTensor got_out = out.to_host(t.out), got_lse = lse.to_host(t.lse);
  expect_close(got_out, ref_out, tol, "out");
  EXPECT_LE(relative_error(got_lse, ref_lse), kLseTolerance) << "lse";

  if (!supported(backend, c, Direction::backward, t, q.view, k.view)) return;
  if (!ref.backward_done) {
    ref.dq = poisoned_like(t.q, c.row_padding);
    ref.dk = poisoned_like(t.k, c.row_padding);
    ref.dv = poisoned_like(t.v, c.row_padding);
    ASSERT_TRUE(backward(t.q.view, t.k.view, t.v.view, ref_out.view, dout.view, ref_lse.view, ref.dq.view,
                         ref.dk.view, ref.dv.view, ref_options).ok());
    ref.backward_done = true;
  }
  const HostTensor &ref_dq = ref.dq, &ref_dk = ref.dk, &ref_dv = ref.dv;
  DeviceBuffer dq(ref_dq), dk(ref_dk), dv(ref_dv);
  dq.poison();
  dk.poison();
  dv.poison();
  const Status bs = backward(q.view, k.view, v.view, out.view, dout_d.view, lse.view, dq.view,
                             dk.view, dv.view, options_for(c, backend));
  ASSERT_TRUE(bs.ok()) << to_string(backend) << " backward: " << bs.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double gtol = tol * kGradientToleranceFactor;
  expect_close(dq.to_host(ref_dq), ref_dq, gtol, "dq");
  expect_close(dk.to_host(ref_dk), ref_dk, gtol, "dk");
  expect_close(dv.to_host(ref_dv), ref_dv, gtol, "dv");

  // Deterministic mode: a second run gives the same bits.
  Options deterministic = options_for(c, backend);
  deterministic.deterministic = true;
  // A backend without a deterministic mode (cuda_sm90's backward) refuses it with a reason;
  // automatic selection then picks one that has it.
  if (!supported(backend, c, Direction::backward, t, q.view, k.view, deterministic)) return;
  const HostTensor first = dq.to_host(ref_dq);
  dq.poison();
  ASSERT_TRUE(backward(q.view, k.view, v.view, out.view, dout_d.view, lse.view, dq.view, dk.view,
                       dv.view, deterministic).ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const HostTensor second = dq.to_host(ref_dq);
  if (first.storage == second.storage) return;
  const HostTensor third = [&] {
    dq.poison();
    EXPECT_TRUE(backward(q.view, k.view, v.view, out.view, dout_d.view, lse.view, dq.view, dk.view,
                         dv.view, deterministic).ok());
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    return dq.to_host(ref_dq);
  }();
  EXPECT_TRUE(second.storage == third.storage) << "dq differs between two deterministic runs";
}

std::vector<Case> cases() {
  std::vector<Case> all;
  auto add = [&](Case c) { all.push_back(c); };
  const DType kDTypes[] = {DType::float32, DType::float16, DType::bfloat16};
  // Head dims, odd and even, with GQA (2 query heads per kv head) and batch 2.
  for (DType dtype : kDTypes) {
    for (std::int64_t d : {1, 8, 64, 72, 128, 129, 256}) {
      add({"small", dtype, 2, 17, 17, 4, 2, d});
    }
  }
  // Sequence lengths, causal and not.
  for (DType dtype : kDTypes) {
    for (bool causal : {false, true}) {
      add({"small", dtype, 1, 1, 1, 2, 1, 64, causal});
      add({"small", dtype, 1, 1013, 1013, 2, 2, 72, causal});
      // N = 4096: the fp64 reference of one head costs ~5-25 s; fp16 runs causal only.
      if (dtype != DType::float16 || causal) add({"large", dtype, 1, 4096, 4096, 1, 1, 64, causal});
    }
  }
  for (DType dtype : kDTypes) {
    // Causal with Nq != Nk, both ways (bottom-right aligned; Nq > Nk gives fully masked rows).
    add({"small", dtype, 1, 17, 1013, 2, 1, 72, true});
    add({"small", dtype, 1, 1013, 17, 2, 1, 72, true});
    // The same at head dims whose sm80 forward stores O through shared memory: whole CTAs of
    // fully masked rows write their zeros into Q rows that other warps' copies may still fill.
    for (std::int64_t d : {128, 256}) add({"small", dtype, 1, 1013, 17, 2, 1, d, true});
    add({"small", dtype, 2, 40, 9, 2, 2, 8, true});
    // Sliding window, narrow enough that some rows see nothing.
    add({"small", dtype, 1, 300, 517, 2, 2, 64, false, {31, 7}});
    add({"small", dtype, 1, 200, 100, 2, 2, 128, false, {3, 0}});
    // GQA 4:1 and MQA.
    add({"small", dtype, 2, 129, 77, 8, 2, 128});
    add({"small", dtype, 1, 65, 130, 4, 1, 64, true});
    // Strided rows: padding keeps (8) and breaks (3) 16-byte alignment of the rows.
    add({"small", dtype, 2, 33, 47, 2, 1, 64, false, {}, 8});
    add({"small", dtype, 1, 33, 47, 2, 2, 72, true, {}, 3});
    // Empty sequences: seqlen_k = 0 (out = 0, lse = -inf, dq = 0); seqlen_q = 0 (dk = dv = 0).
    add({"small", dtype, 1, 5, 0, 2, 2, 64});
    add({"small", dtype, 1, 0, 5, 2, 2, 64});
  }
  // The tiles of GPUs with less shared memory per block, run on this one under a cap: an sm_86 /
  // sm_89 card (99 KB: the sm80 and simt families' smallest tiles) at every bucket, GQA, causal
  // with Nq != Nk both ways and a window; an A100 (163 KB) where the simt (fp32) tiles shrink.
  for (DType dtype : kDTypes) {
    const int ada = detail::kConsumerAmpereSharedBytesPerBlock;
    for (std::int64_t d : {8, 64, 72, 128, 129, 192, 200, 256}) {
      Case c{"small", dtype, 2, 77, 77, 4, 2, d};
      c.shared_cap = ada;
      add(c);
    }
    for (std::int64_t d : {64, 128, 256}) {
      Case longer_keys{"small", dtype, 1, 33, 300, 2, 1, d, true};
      longer_keys.shared_cap = ada;
      add(longer_keys);
      Case longer_queries{"small", dtype, 1, 300, 33, 2, 1, d, true};
      longer_queries.shared_cap = ada;
      add(longer_queries);
    }
    Case window{"small", dtype, 1, 200, 260, 2, 2, 128, false, {31, 7}};
    window.shared_cap = ada;
    add(window);
    Case long_rows{"small", dtype, 1, 1013, 1013, 2, 1, 96, true};
    long_rows.shared_cap = ada;
    add(long_rows);
  }
  for (std::int64_t d : {128, 256}) {
    Case c{"small", DType::float32, 2, 77, 77, 4, 2, d, true};
    c.shared_cap = detail::kA100SharedBytesPerBlock;
    add(c);
  }
  return all;
}

constexpr Backend kCudaBackends[] = {Backend::cuda_standard, Backend::cuda_simt, Backend::cuda_sm80,
                                     Backend::cuda_sm90};

std::string case_name(const ::testing::TestParamInfo<std::tuple<Backend, Case>>& info) {
  std::string s = std::string(to_string(std::get<0>(info.param))) + "_" + describe(std::get<1>(info.param));
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, CudaBackends,
                         ::testing::Combine(::testing::ValuesIn(kCudaBackends), ::testing::ValuesIn(cases())),
                         case_name);

// Pointers that lie about their device are refused with the argument named.
TEST(CudaValidation, HostPointerDeclaredOnDeviceIsRefused) {
  if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
  AttentionTensors t(DType::float32, 1, 4, 4, 1, 1, 8, 1);
  DeviceBuffer k(t.k), v(t.v), out(t.out), lse(t.lse);
  TensorView q_host_as_device = t.q.view;
  q_host_as_device.device = Device::cuda(0);
  const Status s = forward(q_host_as_device, k.view, v.view, out.view, lse.view);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("q"), std::string::npos) << s.message();
}

TEST(CudaValidation, DevicePointerDeclaredOnHostIsRefused) {
  if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
  AttentionTensors t(DType::float32, 1, 4, 4, 1, 1, 8, 2);
  DeviceBuffer k(t.k);
  TensorView k_device_as_host = k.view;
  k_device_as_host.device = Device::cpu();
  Options o;
  o.backend = Backend::cpu_reference;
  const Status s = forward(t.q.view, k_device_as_host, t.v.view, t.out.view, t.lse.view, o);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("k:"), std::string::npos) << s.message();
}

// The standard path materializes S: its workspace grows with Nq·Nk; flash's does not.
TEST(CudaStats, StandardReportsQuadraticWorkspaceAndLaunches) {
  if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
  AttentionTensors t(DType::float32, 1, 256, 256, 2, 2, 64, 3);
  DeviceBuffer q(t.q), k(t.k), v(t.v), out(t.out), lse(t.lse);
  RunStats stats;
  ExecutionContext ctx;
  ctx.stats = &stats;
  Options o;
  o.backend = Backend::cuda_standard;
  ASSERT_TRUE(forward(q.view, k.view, v.view, out.view, lse.view, o, ctx).ok());
  EXPECT_GE(stats.workspace_bytes, std::size_t{256} * 256 * 2 * sizeof(float));
  EXPECT_EQ(stats.kernel_launches, 3);
  o.backend = Backend::cuda_simt;
  if (auto pruned = pruned_from_build(Backend::cuda_simt,
                                      Problem::describe(q.view, k.view, o, Direction::forward))) {
    GTEST_SKIP() << *pruned;
  }
  ASSERT_TRUE(forward(q.view, k.view, v.view, out.view, lse.view, o, ctx).ok());
  EXPECT_EQ(stats.workspace_bytes, 0u);
  EXPECT_EQ(stats.kernel_launches, 1);
}

// A launch whose blocks need more shared memory than the device allows is refused before the
// driver sees it, with both sizes named (sm_86 / sm_89 cards allow 99 KB per block, fewer than
// the sm80 backward's and the simt backward's tiles at D >= 128 ask); exactly the limit passes.
TEST(CudaSharedMemoryLimit, RefusesBlocksLargerThanTheDeviceAllowsNamingBothSizes) {
  if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
  int shared_optin = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
            cudaSuccess);
  detail::AttentionArgs args;
  args.problem.device = Device::cuda(0);
  args.problem.head_dim = 129;
  const Status refused = detail::require_shared_bytes(args, shared_optin + 1, "test_kernel");
  EXPECT_EQ(refused.code(), StatusCode::unsupported);
  for (const std::string& part : {std::string("test_kernel"), std::to_string(shared_optin + 1),
                                  std::to_string(shared_optin), std::string("head_dim 129")}) {
    EXPECT_NE(refused.message().find(part), std::string::npos) << refused.message();
  }
  EXPECT_TRUE(detail::require_shared_bytes(args, shared_optin, "test_kernel").ok());
}


// The selector knows each family's smallest tiles (shared_memory_needs.hpp), with devices made up
// for it (select_backend is pure, so this runs without a GPU): an A100 and an sm_89 card (99 KB
// per block) run cuda_sm80 forward at every bucket and its backward up to D = 192 (no 256 tile
// fits 99 KB: backward_small_tile_config.hpp), where automatic selection takes cuda_simt
// instead, and cuda_simt for fp32 everywhere; a device below the smallest tiles is refused with
// both sizes named.
Problem problem_on(DType dtype, std::int64_t head_dim, Direction direction, Backend backend) {
  Problem p;
  p.batch = 1;
  p.seqlen_q = p.seqlen_k = 128;
  p.heads_q = p.heads_kv = 2;
  p.head_dim = head_dim;
  p.dtype = dtype;
  p.device = Device::cuda(0);
  p.direction = direction;
  p.options.backend = backend;
  p.alignment_bytes = 16;
  p.row_alignment_bytes = 16;
  return p;
}

TEST(SharedMemorySelector, SmallDevicesRunTheSmallestTilesAndSmallerOnesAreRefused) {
  constexpr int kBelowEverySmallTile = 16 * 1024;
  constexpr std::int64_t kWidestSm80BackwardOn99KB = 192;
  for (Direction direction : {Direction::forward, Direction::backward}) {
    for (std::int64_t d : {8, 64, 72, 128, 129, 192, 200, 256}) {
      for (auto [backend, dtype] : {std::pair{Backend::cuda_sm80, DType::bfloat16},
                                    std::pair{Backend::cuda_simt, DType::float32}}) {
        const Problem p = problem_on(dtype, d, direction, backend);
        if (!backend_compiled(backend) || pruned_from_build(backend, p)) continue;
        EXPECT_TRUE(detail::select_backend(p, simulated_a100()).ok()) << to_string(backend) << " D = " << d;
        const Selection on_ada = detail::select_backend(p, simulated_ada());
        const bool sm80_backward_too_wide = backend == Backend::cuda_sm80 &&
                                            direction == Direction::backward &&
                                            d > kWidestSm80BackwardOn99KB;
        EXPECT_EQ(on_ada.ok(), !sm80_backward_too_wide) << to_string(backend) << " D = " << d << ": " << on_ada.reason;
        if (sm80_backward_too_wide) {
          EXPECT_NE(on_ada.reason.find(std::to_string(detail::kConsumerAmpereSharedBytesPerBlock)),
                    std::string::npos) << on_ada.reason;
          Problem automatic = p;
          automatic.options.backend = Backend::automatic;
          const Selection fallback = detail::select_backend(automatic, simulated_ada());
          if (backend_compiled(Backend::cuda_simt) && !pruned_from_build(Backend::cuda_simt, p)) {
            ASSERT_TRUE(fallback.ok()) << fallback.reason;
            EXPECT_EQ(fallback.backend, Backend::cuda_simt);
          }
        }
        const Selection refused = detail::select_backend(
            p, simulated_device(kAdaComputeCapability, kBelowEverySmallTile, "tiny (simulated)"));
        ASSERT_FALSE(refused.ok()) << to_string(backend) << " D = " << d;
        EXPECT_NE(refused.reason.find("shared memory per block"), std::string::npos)
            << refused.reason;
        EXPECT_NE(refused.reason.find(std::to_string(kBelowEverySmallTile)), std::string::npos)
            << refused.reason;
      }
    }
  }
  // cuda_sm90's tiles are sized for a full Hopper only.
  const Problem hopper = problem_on(DType::bfloat16, 128, Direction::forward, Backend::cuda_sm90);
  if (backend_compiled(Backend::cuda_sm90) && !pruned_from_build(Backend::cuda_sm90, hopper)) {
    detail::DeviceInfo capped = simulated_hopper();
    capped.shared_bytes_per_block = detail::kA100SharedBytesPerBlock;
    EXPECT_TRUE(detail::select_backend(hopper, simulated_hopper()).ok());
    const Selection refused = detail::select_backend(hopper, capped);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.reason.find("shared memory per block"), std::string::npos) << refused.reason;
  }
}

// The same through supports() on the machine's GPU under a cap (ScopedSharedMemoryCap), so the
// launchers and the selector read one number: below the smallest tiles every CUDA family but
// cuda_standard is refused, and an explicit cuda_sm80 forward is refused before any launch with
// the output untouched.
TEST(SharedMemorySelector, ACappedDeviceRefusesBeforeLaunching) {
  if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
  constexpr int kBelowEverySmallTile = 16 * 1024;
  AttentionTensors t(DType::float16, 1, 17, 17, 2, 2, 64, 7);
  DeviceBuffer q(t.q), k(t.k), v(t.v), out(t.out), lse(t.lse);
  const ScopedSharedMemoryCap cap(0, kBelowEverySmallTile);
  Options o;
  o.backend = Backend::cuda_sm80;
  const Selection s = supports(Problem::describe(q.view, k.view, o, Direction::forward));
  if (!backend_compiled(Backend::cuda_sm80)) GTEST_SKIP() << "cuda_sm80 is not compiled";
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.reason.find(std::to_string(kBelowEverySmallTile)), std::string::npos) << s.reason;
  out.poison();
  EXPECT_FALSE(forward(q.view, k.view, v.view, out.view, lse.view, o).ok());
  const HostTensor untouched = out.to_host(t.out);
  for (std::uint8_t byte : untouched.storage) ASSERT_EQ(byte, kNaNByte);
}

}  // namespace
}  // namespace fattn::testing
