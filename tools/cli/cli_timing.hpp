// Timing one backend on one problem: warm-up runs, then timed runs (CUDA events on a GPU, the
// steady clock on a CPU), reported as the median. Shared by bench and roofline.
#pragma once

#include <vector>

#include "cli_problem.hpp"

namespace fattn::cli {

// When `repeats` is 0 the count is automatic: at least kMinRepeats runs, more (up to
// kMaxRepeats) while the total stays under kAutoBudgetMs — a slow baseline is not run ten times.
inline constexpr int kMinRepeats = 3;
inline constexpr int kMaxRepeats = 10;
inline constexpr double kAutoBudgetMs = 5000.0;
inline constexpr int kDefaultWarmup = 1;

struct TimingSettings {
  int warmup = kDefaultWarmup;
  int repeats = 0;  // 0 = automatic
};

struct Timing {
  Status status;
  RunStats stats;  // from the warm-up: backend that ran, peak workspace, launches (fwd + bwd)
  std::vector<double> times_ms;
  double median_ms = 0;
};

// Runs spec.workload (forward, backward, or both) with `backend`. A backward-only workload gets
// its out and lse from one untimed forward first. Outputs are poisoned before the first run.
Timing time_workload(const ProblemSpec& spec, Backend backend, AttentionBuffers& buffers,
                     const TimingSettings& settings);

double median(std::vector<double> values);

}  // namespace fattn::cli
