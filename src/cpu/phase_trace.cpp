#include "cpu/phase_trace.hpp"

#include <atomic>
#include <chrono>

namespace fattn::detail {
namespace {

std::atomic<PhaseSink*> installed_sink{nullptr};

}  // namespace

void set_phase_sink(PhaseSink* sink) { installed_sink.store(sink, std::memory_order_release); }

PhaseSink* phase_sink() { return installed_sink.load(std::memory_order_relaxed); }

std::int64_t phase_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace fattn::detail
