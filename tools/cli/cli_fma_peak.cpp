// The CPU's fused multiply-add peak, measured with Highway for the widest instruction set this
// CPU runs (the same run-time dispatch the CPU backends use), so the ceiling is the one the
// backends can reach. This file is compiled once per instruction set (foreach_target.h).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "cli_ceilings.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cli_fma_peak.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace fattn::cli {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Twelve independent FMA chains: enough to cover the FMA latency (4 cycles) on both FMA pipes
// (8 in flight), and few enough to stay in registers with 16 vector registers (AVX2).
float FmaChains(std::int64_t iterations) {
  const hn::ScalableTag<float> d;
  const auto m = hn::Set(d, 0.999999f), c = hn::Set(d, 1e-7f);
  auto a0 = hn::Set(d, 1.0f), a1 = hn::Set(d, 1.1f), a2 = hn::Set(d, 1.2f), a3 = hn::Set(d, 1.3f);
  auto a4 = hn::Set(d, 1.4f), a5 = hn::Set(d, 1.5f), a6 = hn::Set(d, 1.6f), a7 = hn::Set(d, 1.7f);
  auto a8 = hn::Set(d, 1.8f), a9 = hn::Set(d, 1.9f), a10 = hn::Set(d, 2.0f), a11 = hn::Set(d, 2.1f);
  for (std::int64_t i = 0; i < iterations; ++i) {
    a0 = hn::MulAdd(a0, m, c), a1 = hn::MulAdd(a1, m, c), a2 = hn::MulAdd(a2, m, c);
    a3 = hn::MulAdd(a3, m, c), a4 = hn::MulAdd(a4, m, c), a5 = hn::MulAdd(a5, m, c);
    a6 = hn::MulAdd(a6, m, c), a7 = hn::MulAdd(a7, m, c), a8 = hn::MulAdd(a8, m, c);
    a9 = hn::MulAdd(a9, m, c), a10 = hn::MulAdd(a10, m, c), a11 = hn::MulAdd(a11, m, c);
  }
  const auto sum = hn::Add(
      hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)),
      hn::Add(hn::Add(hn::Add(a4, a5), hn::Add(a6, a7)), hn::Add(hn::Add(a8, a9), hn::Add(a10, a11))));
  return hn::GetLane(hn::SumOfLanes(d, sum));
}

std::int64_t FloatLanes() { return static_cast<std::int64_t>(hn::Lanes(hn::ScalableTag<float>())); }

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace fattn::cli
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fattn::cli {

HWY_EXPORT(FmaChains);
HWY_EXPORT(FloatLanes);
HWY_EXPORT(TargetName);

namespace {
constexpr int kChains = 12;  // FmaChains' accumulators
constexpr int kFlopsPerFma = 2;
constexpr std::int64_t kFmaIterations = std::int64_t{1} << 23;
constexpr int kAttempts = 3;  // best of: the first attempt also wakes the cores up
}  // namespace

CpuPeak measure_cpu_fma_peak(int threads) {
  const std::int64_t lanes = HWY_DYNAMIC_DISPATCH(FloatLanes)();
  double best_seconds = 0;
  volatile float sink = 0;  // keeps the chains' results alive
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const auto start = std::chrono::steady_clock::now();
    float total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    total += HWY_DYNAMIC_DISPATCH(FmaChains)(kFmaIterations);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    sink = sink + total;
    if (attempt == 0 || seconds < best_seconds) best_seconds = seconds;
  }
  const double flops = static_cast<double>(threads) * kFmaIterations * kChains * lanes * kFlopsPerFma;
  return {flops / best_seconds, HWY_DYNAMIC_DISPATCH(TargetName)(), lanes};
}

}  // namespace fattn::cli
#endif
