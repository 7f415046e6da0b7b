#include "cli_timing.hpp"

#include <algorithm>

namespace fattn::cli {
namespace {

// One pass of the workload; the stats of the forward and the backward are merged (peak
// workspace, launches added).
Status run_workload(const ProblemSpec& spec, Backend backend, const AttentionBuffers& buffers,
                    RunStats* stats) {
  RunStats fwd_stats, bwd_stats;
  if (spec.workload != Workload::backward) {
    if (Status s = run_forward(spec, backend, buffers, &fwd_stats); !s.ok()) return s;
  }
  if (spec.workload != Workload::forward) {
    if (Status s = run_backward(spec, backend, buffers, &bwd_stats); !s.ok()) return s;
  }
  if (stats) {
    const bool has_bwd = spec.workload != Workload::forward;
    stats->backend = has_bwd ? bwd_stats.backend : fwd_stats.backend;
    stats->workspace_bytes = std::max(fwd_stats.workspace_bytes, bwd_stats.workspace_bytes);
    stats->kernel_launches = fwd_stats.kernel_launches + bwd_stats.kernel_launches;
  }
  return Status::Ok();
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

Timing time_workload(const ProblemSpec& spec, Backend backend, AttentionBuffers& buffers,
                     const TimingSettings& settings) {
  Timing result;
  buffers.poison_outputs();
  if (spec.workload == Workload::backward) {
    result.status = run_forward(spec, backend, buffers, nullptr);
    if (!result.status.ok()) return result;
  }
  Stopwatch stopwatch(spec.device.type == DeviceType::cuda);
  for (int i = 0; i < settings.warmup; ++i) {
    result.status = run_workload(spec, backend, buffers, &result.stats);
    if (!result.status.ok()) return result;
  }
  if (settings.warmup == 0) result.stats.backend = backend;
  double total_ms = 0;
  const int wanted = settings.repeats > 0 ? settings.repeats : kMaxRepeats;
  for (int i = 0; i < wanted; ++i) {
    if (settings.repeats == 0 && i >= kMinRepeats && total_ms > kAutoBudgetMs) break;
    stopwatch.start();
    // Timed calls pass no stats: the numbers reported come from the warm-up.
    result.status = run_workload(spec, backend, buffers, nullptr);
    const double ms = stopwatch.stop_ms();
    if (!result.status.ok()) return result;
    result.times_ms.push_back(ms);
    total_ms += ms;
  }
  result.median_ms = median(result.times_ms);
  return result;
}

}  // namespace fattn::cli
