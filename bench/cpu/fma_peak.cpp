// The float32 FMA peak of this machine, for context next to the attention GFLOP/s: each thread
// runs independent chains of vector FMAs (enough of them to cover FMA latency × FMA pipes) on
// registers only. Built with -march=native so the vectors are the widest the CPU has.
//   fattn_fma_peak [max_threads]
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kLanes = 16;  // 512-bit vectors; the compiler splits them on narrower machines
typedef float Vector __attribute__((vector_size(kLanes * sizeof(float))));
// 24 independent accumulators: more than latency (4 cycles) × pipes (2) on current x86 cores,
// and few enough to stay in the 32 vector registers of AVX-512.
constexpr int kChains = 24;
constexpr long kIterations = 100000000;
constexpr double kFlopsPerFma = 2.0;

double run(int threads) {
  const auto start = std::chrono::steady_clock::now();
  float sink = 0.0f;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
  {
    Vector acc[kChains], multiplier, addend;
    for (int i = 0; i < kLanes; ++i) multiplier[i] = 0.999999f, addend[i] = 1e-7f;
    for (int c = 0; c < kChains; ++c) {
      for (int i = 0; i < kLanes; ++i) acc[c][i] = static_cast<float>(c + i);
    }
    for (long it = 0; it < kIterations; ++it) {
#pragma GCC unroll 24
      for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * multiplier + addend;
    }
    for (int c = 0; c < kChains; ++c) sink += acc[c][0];
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (sink == 0.0f) std::printf(" ");  // keeps the loop alive
  return threads * kIterations * kChains * kLanes * kFlopsPerFma / seconds * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  const int max_threads = argc > 1 ? std::atoi(argv[1]) : omp_get_max_threads();
  for (int threads = 1; threads <= max_threads; threads *= 2) {
    std::printf("threads %3d: %8.1f GFLOP/s float32 FMA peak\n", threads, run(threads));
  }
  return 0;
}
