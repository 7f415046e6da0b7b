// Opt-in phase tracing of the CPU backends, read by `fattn trace`. Off unless a tool installs a
// sink; when off, a PhaseScope costs one relaxed atomic load and a never-taken branch, so the
// scopes stay in the backends' loops at the granularity of one work item (a query block, a key
// tile, a pass over a block), never inside the inner kernels.
#pragma once

#include <omp.h>

#include <cstdint>

namespace fattn::detail {

// Receives one record per finished phase, from the worker threads themselves (so it must be
// thread-safe). Times are nanoseconds of phase_clock_ns().
class PhaseSink {
 public:
  virtual ~PhaseSink() = default;
  virtual void record(const char* phase, int thread, std::int64_t begin_ns, std::int64_t end_ns) = 0;
};

// Installs (or, with nullptr, removes) the process-wide sink. Not meant to change while a call
// is running.
void set_phase_sink(PhaseSink* sink);
PhaseSink* phase_sink();
// std::chrono::steady_clock in nanoseconds: the clock of every record.
std::int64_t phase_clock_ns();

// Records the lifetime of the scope as `phase` (a string literal) on the calling OpenMP thread.
class PhaseScope {
 public:
  explicit PhaseScope(const char* phase) : sink_(phase_sink()), phase_(phase) {
    if (sink_) begin_ns_ = phase_clock_ns();
  }
  ~PhaseScope() {
    if (sink_) sink_->record(phase_, omp_get_thread_num(), begin_ns_, phase_clock_ns());
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  PhaseSink* sink_;
  const char* phase_;
  std::int64_t begin_ns_ = 0;
};

}  // namespace fattn::detail
