// `fattn trace`: runs one problem through flash and standard attention and writes a
// Chrome/Perfetto trace (chrome://tracing JSON): every GPU kernel from CUPTI's activity API
// (name, start, end, grid, block, registers, shared memory) on a GPU, the per-thread phases of
// the CPU backends on a CPU, and the host-side phases of both. Prints a summary per
// implementation: how many kernels (or phases) ran and how long they took.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "cli_cupti.hpp"
#include "cli_device.hpp"
#include "cli_format.hpp"
#include "cli_problem.hpp"
#include "command.hpp"
#include "cpu/phase_trace.hpp"

namespace fattn::cli {
namespace {

constexpr std::uint64_t kInputSeed = 20261122;
constexpr double kNanosecondsPerMicrosecond = 1e3;
constexpr double kNanosecondsPerMillisecond = 1e6;
constexpr const char* kDefaultOutput = "fattn-trace.json";
// A CPU trace records one event per work item; this problem gives a few thousand events, enough
// to see the threads' schedule without a huge file.
constexpr std::int64_t kCpuTraceHeads = 4;
constexpr std::int64_t kCpuTraceSeqlen = 2048;
// Chrome trace process ids: the host's phases, the GPU's streams, then one per CPU backend.
constexpr int kHostPid = 1;
constexpr int kGpuPid = 2;
constexpr int kFirstCpuBackendPid = 10;

struct Span {
  std::string name;
  std::int64_t begin_ns = 0, end_ns = 0;
  int thread = 0;
};

// Collects the CPU backends' phase records (from every worker thread).
class PhaseCollector : public detail::PhaseSink {
 public:
  void record(const char* phase, int thread, std::int64_t begin_ns, std::int64_t end_ns) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    spans_.push_back({phase, begin_ns, end_ns, thread});
  }
  std::vector<Span> take() {
    const std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Span> spans;
    spans.swap(spans_);
    return spans;
  }

 private:
  std::mutex mutex_;
  std::vector<Span> spans_;
};

// Installs a sink for the lifetime of the object.
class SinkInstalled {
 public:
  explicit SinkInstalled(detail::PhaseSink* sink) { detail::set_phase_sink(sink); }
  ~SinkInstalled() { detail::set_phase_sink(nullptr); }
};

struct ImplementationTrace {
  Backend requested = Backend::automatic;
  Backend ran = Backend::automatic;
  Status status;
  std::vector<Span> host_phases;      // forward / backward calls, on the host clock
  std::vector<Span> thread_phases;    // CPU backends: per-thread work items
  std::vector<KernelRecord> kernels;  // GPU backends
  std::int64_t wall_ns = 0;
};

std::string dims_text(const std::array<std::int64_t, 3>& d) {
  return std::to_string(d[0]) + "×" + std::to_string(d[1]) + "×" + std::to_string(d[2]);
}

// One traced pass: forward and/or backward, each as a host phase; the clock is CUPTI's on a GPU
// (so host phases and kernels share it) and the phase clock on a CPU.
ImplementationTrace trace_backend(const ProblemSpec& spec, Backend backend, AttentionBuffers& buffers,
                                  KernelTracer* tracer, PhaseCollector* collector) {
  ImplementationTrace t;
  t.requested = backend;
  auto now = [&]() -> std::int64_t {
    return tracer ? static_cast<std::int64_t>(tracer->now_ns()) : detail::phase_clock_ns();
  };
  const bool forward_timed = spec.workload != Workload::backward;
  const bool backward_timed = spec.workload != Workload::forward;
  // Untraced warm-up (first-call costs: handles, page faults) and, for a backward, its inputs.
  buffers.poison_outputs();
  t.status = run_forward(spec, backend, buffers);
  if (t.status.ok() && backward_timed) t.status = run_backward(spec, backend, buffers);
  if (!t.status.ok()) return t;
  cuda_synchronize();
  if (tracer) tracer->collect();  // drop the warm-up's kernels
  if (collector) collector->take();

  const std::optional<SinkInstalled> sink =
      collector ? std::optional<SinkInstalled>(std::in_place, collector) : std::nullopt;
  RunStats stats;
  const std::int64_t start = now();
  if (forward_timed) {
    const std::int64_t begin = now();
    t.status = run_forward(spec, backend, buffers, &stats);
    cuda_synchronize();
    t.host_phases.push_back({std::string(to_string(stats.backend)) + " forward", begin, now(), 0});
    if (!t.status.ok()) return t;
  }
  if (backward_timed) {
    const std::int64_t begin = now();
    t.status = run_backward(spec, backend, buffers, &stats);
    cuda_synchronize();
    t.host_phases.push_back({std::string(to_string(stats.backend)) + " backward", begin, now(), 0});
    if (!t.status.ok()) return t;
  }
  t.wall_ns = now() - start;
  t.ran = stats.backend;
  if (tracer) t.kernels = tracer->collect();
  if (collector) t.thread_phases = collector->take();
  return t;
}

void write_event(JsonWriter& json, const std::string& name, const char* category, int pid, int tid,
                 std::int64_t begin_ns, std::int64_t end_ns, std::int64_t origin_ns) {
  json.begin_object().key("name").value(name).key("cat").value(category).key("ph").value("X");
  json.key("ts").value(static_cast<double>(begin_ns - origin_ns) / kNanosecondsPerMicrosecond);
  json.key("dur").value(static_cast<double>(end_ns - begin_ns) / kNanosecondsPerMicrosecond);
  json.key("pid").value(pid).key("tid").value(tid);
}

void write_name(JsonWriter& json, const char* what, int pid, int tid, const std::string& name) {
  json.begin_object().key("name").value(what).key("ph").value("M").key("pid").value(pid);
  json.key("tid").value(tid).key("args").begin_object().key("name").value(name).end_object().end_object();
}

std::string chrome_trace(const ProblemSpec& spec, const std::vector<ImplementationTrace>& traces,
                         bool on_gpu) {
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  for (const auto& t : traces) {
    for (const Span& s : t.host_phases) origin = std::min(origin, s.begin_ns);
    for (const KernelRecord& k : t.kernels) origin = std::min(origin, static_cast<std::int64_t>(k.start_ns));
  }
  if (origin == std::numeric_limits<std::int64_t>::max()) origin = 0;
  JsonWriter json;
  json.begin_object().key("displayTimeUnit").value("ms");
  json.key("otherData")
      .begin_object()
      .key("fattn_version")
      .value(version())
      .key("problem")
      .value(spec.summary());
  json.end_object();
  json.key("traceEvents").begin_array();
  write_name(json, "process_name", kHostPid, 0, "host: fattn trace");
  write_name(json, "thread_name", kHostPid, 0, "calls");
  if (on_gpu)
    write_name(json, "process_name", kGpuPid, 0, "GPU: " + cuda_device_description(spec.device.index));
  std::map<std::uint32_t, bool> streams;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const ImplementationTrace& t = traces[i];
    const std::string implementation = to_string(t.ran);
    for (const Span& s : t.host_phases) {
      write_event(json, s.name, "host", kHostPid, 0, s.begin_ns, s.end_ns, origin);
      json.key("args").begin_object().key("implementation").value(implementation).end_object().end_object();
    }
    for (const KernelRecord& k : t.kernels) {
      if (!streams[k.stream]) {
        write_name(json, "thread_name", kGpuPid, static_cast<int>(k.stream),
                   "stream " + std::to_string(k.stream));
        streams[k.stream] = true;
      }
      write_event(json, short_kernel_name(k.name), "kernel", kGpuPid, static_cast<int>(k.stream),
                  static_cast<std::int64_t>(k.start_ns), static_cast<std::int64_t>(k.end_ns), origin);
      json.key("args").begin_object().key("implementation").value(implementation).key("kernel").value(k.name);
      json.key("grid").value(dims_text(k.grid)).key("block").value(dims_text(k.block));
      json.key("registers_per_thread").value(k.registers_per_thread);
      json.key("static_shared_bytes").value(k.static_shared_bytes);
      json.key("dynamic_shared_bytes").value(k.dynamic_shared_bytes).end_object().end_object();
    }
    if (!t.thread_phases.empty()) {
      const int pid = kFirstCpuBackendPid + static_cast<int>(i);
      write_name(json, "process_name", pid, 0, implementation + " threads");
      std::map<int, bool> named;
      for (const Span& s : t.thread_phases) {
        if (!named[s.thread]) {
          write_name(json, "thread_name", pid, s.thread, "thread " + std::to_string(s.thread));
          named[s.thread] = true;
        }
        write_event(json, s.name, "phase", pid, s.thread, s.begin_ns, s.end_ns, origin);
        json.key("args").begin_object().key("implementation").value(implementation).end_object().end_object();
      }
    }
  }
  json.end_array().end_object();
  return json.str();
}

struct NameTotals {
  int count = 0;
  std::int64_t total_ns = 0;
  const KernelRecord* example = nullptr;
};

std::int64_t busy_ns(const ImplementationTrace& t) {
  std::int64_t total = 0;
  for (const KernelRecord& k : t.kernels) total += static_cast<std::int64_t>(k.end_ns - k.start_ns);
  for (const Span& s : t.thread_phases) total += s.end_ns - s.begin_ns;
  return total;
}

std::map<std::string, NameTotals> totals_by_name(const ImplementationTrace& t) {
  std::map<std::string, NameTotals> totals;
  for (const KernelRecord& k : t.kernels) {
    NameTotals& n = totals[short_kernel_name(k.name)];
    ++n.count;
    n.total_ns += static_cast<std::int64_t>(k.end_ns - k.start_ns);
    n.example = &k;
  }
  for (const Span& s : t.thread_phases) {
    NameTotals& n = totals[s.name];
    ++n.count;
    n.total_ns += s.end_ns - s.begin_ns;
  }
  return totals;
}

void print_summary(const ProblemSpec& spec, const std::vector<ImplementationTrace>& traces, bool on_gpu,
                   const std::string& output) {
  std::printf("fattn %s trace: %s\n", version(), spec.summary().c_str());
  if (on_gpu) std::printf("device: %s\n", cuda_device_description(spec.device.index).c_str());
  std::printf("\n");
  Table summary({"implementation", "wall time", on_gpu ? "kernels" : "phases",
                 on_gpu ? "GPU time" : "thread time", on_gpu ? "GPU busy" : "threads busy"});
  // Busy share: of the GPU's time, or of every thread's.
  const double lanes =
      on_gpu ? 1.0 : static_cast<double>(spec.threads > 0 ? spec.threads : omp_get_max_threads());
  for (const ImplementationTrace& t : traces) {
    if (!t.status.ok()) {
      summary.add_row({to_string(t.requested), "failed", "—", "—", "—"});
      continue;
    }
    const std::int64_t busy = busy_ns(t);
    const std::size_t count = on_gpu ? t.kernels.size() : t.thread_phases.size();
    summary.add_row(
        {to_string(t.ran), format_milliseconds(static_cast<double>(t.wall_ns) / kNanosecondsPerMillisecond),
         std::to_string(count), format_milliseconds(static_cast<double>(busy) / kNanosecondsPerMillisecond),
         t.wall_ns > 0
             ? format_fixed(100.0 * static_cast<double>(busy) / lanes / static_cast<double>(t.wall_ns), 0) +
                   " %"
             : "—"});
  }
  summary.print(stdout);
  std::printf("\n");
  Table detail_table(on_gpu ? std::vector<std::string>{"implementation", "kernel", "count", "total", "mean",
                                                       "grid", "block", "regs", "shared mem"}
                            : std::vector<std::string>{"implementation", "phase", "count", "total", "mean"});
  for (const ImplementationTrace& t : traces) {
    if (!t.status.ok()) continue;
    for (const auto& [name, n] : totals_by_name(t)) {
      std::vector<std::string> row{
          to_string(t.ran), name, std::to_string(n.count),
          format_milliseconds(static_cast<double>(n.total_ns) / kNanosecondsPerMillisecond),
          format_milliseconds(static_cast<double>(n.total_ns) / n.count / kNanosecondsPerMillisecond)};
      if (on_gpu && n.example) {
        row.push_back(dims_text(n.example->grid));
        row.push_back(dims_text(n.example->block));
        row.push_back(std::to_string(n.example->registers_per_thread));
        row.push_back(format_bytes(
            static_cast<double>(n.example->static_shared_bytes + n.example->dynamic_shared_bytes)));
      }
      detail_table.add_row(row);
    }
  }
  detail_table.print(stdout);
  for (const ImplementationTrace& t : traces) {
    if (!t.status.ok()) {
      std::printf("\n%s: %s: %s", to_string(t.requested), to_string(t.status.code()),
                  t.status.message().c_str());
    }
  }
  std::printf("\n%s\nwrote %s — open it in chrome://tracing or https://ui.perfetto.dev\n",
              on_gpu ? "GPU time: the sum of kernel durations (CUPTI activity records)."
                     : "thread time: the sum over threads of the phases' durations (barrier waits included).",
              output.c_str());
}

std::string summary_json(const ProblemSpec& spec, const std::vector<ImplementationTrace>& traces, bool on_gpu,
                         const std::string& output) {
  JsonWriter json;
  json.begin_object().key("fattn_version").value(version()).key("command").value("trace");
  json.key("problem").value(spec.summary()).key("device").value(to_string(spec.device));
  json.key("trace_file").value(output).key("implementations").begin_array();
  for (const ImplementationTrace& t : traces) {
    json.begin_object().key("backend").value(to_string(t.requested)).key("ok").value(t.status.ok());
    if (!t.status.ok()) {
      json.key("message").value(t.status.message()).end_object();
      continue;
    }
    json.key("ran")
        .value(to_string(t.ran))
        .key("wall_ms")
        .value(static_cast<double>(t.wall_ns) / kNanosecondsPerMillisecond);
    json.key(on_gpu ? "kernel_count" : "phase_count")
        .value(static_cast<std::int64_t>(on_gpu ? t.kernels.size() : t.thread_phases.size()));
    json.key(on_gpu ? "gpu_ms" : "thread_ms")
        .value(static_cast<double>(busy_ns(t)) / kNanosecondsPerMillisecond);
    json.key("by_name").begin_object();
    for (const auto& [name, n] : totals_by_name(t)) {
      json.key(name).begin_object().key("count").value(n.count);
      json.key("total_ms").value(static_cast<double>(n.total_ns) / kNanosecondsPerMillisecond).end_object();
    }
    json.end_object().end_object();
  }
  json.end_array().end_object();
  return json.str();
}

int trace_main(const std::vector<std::string>& args) {
  ArgParser parser("trace",
                   "Runs a problem through flash and standard attention and writes a Chrome/Perfetto trace:\n"
                   "every GPU kernel (from CUPTI) on a GPU, the per-thread phases of the CPU backends on a\n"
                   "CPU, and the host-side calls. Default problem: bench's on a GPU; B=1 H=4 N=2048 D=128\n"
                   "fp32 on a CPU.");
  add_problem_options(parser);
  parser.add_option("backend", "NAMES", "comma-separated: flash, standard or backend names",
                    "flash,standard");
  parser.add_option("output", "FILE", "where to write the trace", kDefaultOutput);
  parser.add_flag("json", "print the summary as JSON");
  return run_reporting_errors("trace", [&]() -> int {
    if (!parser.parse(args)) return 0;
    ProblemSpec defaults;
    defaults.device = default_device();
    if (parser.has("device")) defaults.device = read_problem_options(parser, defaults).device;
    const bool on_gpu = defaults.device.type == DeviceType::cuda;
    if (on_gpu) {
      defaults.dtype = DType::bfloat16;
    } else {
      defaults.heads_q = defaults.heads_kv = kCpuTraceHeads;
      defaults.seqlen_q = defaults.seqlen_k = kCpuTraceSeqlen;
    }
    const ProblemSpec spec = read_problem_options(parser, defaults);
    const Backend standard = on_gpu ? Backend::cuda_standard : Backend::cpu_standard;
    // The same "flash" as bench: never a forward-only pick (sm90) for a workload with a backward.
    const Backend flash = flash_backend_for(spec);
    std::vector<Backend> backends;
    for (const std::string& name : parser.list_value("backend")) {
      if (name == "flash") {
        backends.push_back(flash);
      } else if (name == "standard") {
        backends.push_back(standard);
      } else if (auto b = backend_from_string(name)) {
        backends.push_back(*b);
      } else {
        throw UsageError("--backend: unknown backend '" + name + "'");
      }
    }
    if (backends.empty()) backends = {flash, standard};
    const std::string output = parser.string_value("output", kDefaultOutput);

    AttentionBuffers buffers(spec, spec.workload != Workload::forward, kInputSeed);
    std::optional<KernelTracer> tracer;
    PhaseCollector collector;
    if (on_gpu) tracer.emplace();
    std::vector<ImplementationTrace> traces;
    for (Backend b : backends) {
      traces.push_back(
          trace_backend(spec, b, buffers, tracer ? &*tracer : nullptr, on_gpu ? nullptr : &collector));
    }
    write_text_file(output, chrome_trace(spec, traces, on_gpu));
    if (parser.has("json")) {
      std::printf("%s\n", summary_json(spec, traces, on_gpu, output).c_str());
    } else {
      print_summary(spec, traces, on_gpu, output);
    }
    const bool ok =
        std::all_of(traces.begin(), traces.end(), [](const ImplementationTrace& t) { return t.status.ok(); });
    return ok ? 0 : 1;
  });
}

}  // namespace

FATTN_CLI_COMMAND("trace", "Chrome/Perfetto trace of flash vs standard: GPU kernels or CPU thread phases",
                  trace_main);

}  // namespace fattn::cli
