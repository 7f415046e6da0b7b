// GPU kernel records from CUPTI's activity API: every kernel the process launches between
// start and collect, with its name, start and end (CUPTI's nanosecond clock), launch shape and
// resources. Without CUPTI in the build, constructing a tracer throws a ToolError saying so.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fattn::cli {

struct KernelRecord {
  std::string name;  // demangled
  std::uint64_t start_ns = 0, end_ns = 0;
  std::array<std::int64_t, 3> grid{}, block{};
  int registers_per_thread = 0;
  std::int64_t static_shared_bytes = 0, dynamic_shared_bytes = 0;
  std::uint32_t stream = 0;
};

// True when this build can trace GPU kernels (CUDA and CUPTI were found at configure time).
bool kernel_tracing_built();

class KernelTracer {
 public:
  KernelTracer();  // starts recording kernel activity
  ~KernelTracer();
  KernelTracer(const KernelTracer&) = delete;
  KernelTracer& operator=(const KernelTracer&) = delete;

  // CUPTI's clock, the one kernel records are stamped with, so host phases line up with them.
  std::uint64_t now_ns() const;
  // Flushes CUPTI's buffers and hands over every kernel recorded so far.
  std::vector<KernelRecord> collect();
};

// "void fattn::detail::sm90::forward_kernel<128, __nv_bfloat16>(Params)" -> "forward_kernel":
// the function's own name without namespaces, template arguments or parameters.
std::string short_kernel_name(const std::string& demangled);

}  // namespace fattn::cli
