// `fattn bench`: flash vs standard attention side by side — time, throughput, extra memory and
// error against the float64 reference — on a default problem or one given by flags;
// `--sweep head-dim` repeats it over head dimensions (the alignment experiment).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "api/device_query.hpp"  // cap_shared_bytes_per_block: --shared-memory-per-block
#include "cli_args.hpp"
#include "cli_device.hpp"
#include "cli_format.hpp"
#include "cli_problem.hpp"
#include "cli_timing.hpp"
#include "command.hpp"

namespace fattn::cli {
namespace {

constexpr std::uint64_t kInputSeed = 20261122;
constexpr double kGiga = 1e9;
constexpr double kTera = 1e12;
constexpr double kMillisecondsPerSecond = 1e3;

// The head dimensions of the alignment sweep: the multiples of 64 and the odd values between.
const std::vector<std::int64_t> kSweepHeadDims = {64, 72, 80, 96, 128, 129, 136, 192, 200, 256};
// Sweep defaults: many runs per point, so a shorter sequence than a single bench on the CPU.
constexpr std::int64_t kSweepSeqlenCpu = 1024;
constexpr std::int64_t kSweepSeqlenGpu = 2048;
constexpr std::int64_t kSweepBatchGpu = 16;

struct BenchSettings {
  TimingSettings timing;
  bool check = true;
  double reference_budget = kReferenceFlopBudget;
};

struct BenchResult {
  Backend requested = Backend::automatic;
  Status status;
  RunStats stats;  // backend that ran, peak workspace, kernel launches
  std::vector<double> times_ms;
  double median_ms = 0;
  ReferenceErrors errors;
  bool checked = false;
};

BenchResult bench_backend(const ProblemSpec& spec, Backend backend, AttentionBuffers& buffers,
                          const BenchSettings& settings) {
  Timing timing = time_workload(spec, backend, buffers, settings.timing);
  BenchResult result;
  result.requested = backend;
  result.status = timing.status;
  result.stats = timing.stats;
  result.times_ms = std::move(timing.times_ms);
  result.median_ms = timing.median_ms;
  return result;
}

// One backend named on the command line. "flash" stays symbolic until a problem is known: the
// selector's pick depends on D, dtype and alignment, so a head-dim sweep resolves it per point.
struct BackendChoice {
  bool flash = false;
  Backend backend = Backend::automatic;  // when not flash

  Backend for_problem(const ProblemSpec& spec) const { return flash ? flash_backend_for(spec) : backend; }
  std::string name() const { return flash ? "flash" : to_string(backend); }
};

// Backends named on the command line; "flash" and "standard" mean the device's own.
std::vector<BackendChoice> backends_to_run(const ArgParser& parser, const ProblemSpec& spec) {
  const bool on_gpu = spec.device.type == DeviceType::cuda;
  const BackendChoice standard{false, on_gpu ? Backend::cuda_standard : Backend::cpu_standard};
  const BackendChoice flash{true};
  std::vector<BackendChoice> backends;
  for (const std::string& name : parser.list_value("backend")) {
    if (name == "flash") {
      backends.push_back(flash);
    } else if (name == "standard") {
      backends.push_back(standard);
    } else if (auto backend = backend_from_string(name)) {
      backends.push_back({false, *backend});
    } else {
      throw UsageError("--backend: unknown backend '" + name +
                       "' (expected flash, standard, auto, cpu_flash, cpu_standard, cpu_reference, "
                       "cuda_standard, cuda_simt, cuda_sm80 or cuda_sm90)");
    }
  }
  if (backends.empty()) backends = {flash, standard};
  return backends;
}

double throughput(const ProblemSpec& spec, const BenchResult& r) {
  return r.median_ms > 0 ? attention_flops(spec, spec.workload) / (r.median_ms / kMillisecondsPerSecond) : 0;
}

std::string backend_label(const BenchResult& r) {
  std::string label = to_string(r.requested);
  if (r.requested == Backend::automatic && r.status.ok())
    label += " → " + std::string(to_string(r.stats.backend));
  return label;
}

std::string error_text(const BenchResult& r) {
  if (!r.checked) return "—";
  return format_error(r.errors.worst());
}

void print_table(const ProblemSpec& spec, const std::vector<BenchResult>& results,
                 const std::optional<Reference>& reference, const BenchSettings& settings) {
  const bool on_gpu = spec.device.type == DeviceType::cuda;
  const double unit = on_gpu ? kTera : kGiga;
  std::printf("fattn %s bench: %s\n", version(), spec.summary().c_str());
  if (on_gpu) std::printf("device: %s\n", cuda_device_description(spec.device.index).c_str());
  std::printf("\n");
  Table table(
      {"backend", "time", on_gpu ? "TFLOP/s" : "GFLOP/s", "extra memory", "launches", "error vs fp64"});
  for (const BenchResult& r : results) {
    if (!r.status.ok()) {
      table.add_row({backend_label(r), "failed", "—", "—", "—", "—"});
      continue;
    }
    table.add_row({backend_label(r), format_milliseconds(r.median_ms),
                   format_fixed(throughput(spec, r) / unit, 1),
                   format_bytes(static_cast<double>(r.stats.workspace_bytes)),
                   std::to_string(r.stats.kernel_launches), error_text(r)});
  }
  table.print(stdout);
  for (const BenchResult& r : results) {
    if (!r.status.ok()) {
      std::printf("\n%s: %s: %s", to_string(r.requested), to_string(r.status.code()),
                  r.status.message().c_str());
    }
  }
  std::printf("\n");
  if (results.size() == 2 && results[0].status.ok() && results[1].status.ok() && results[0].median_ms > 0) {
    const BenchResult &a = results[0], &b = results[1];
    std::printf("%s is %.2f× as fast as %s", to_string(a.stats.backend), b.median_ms / a.median_ms,
                to_string(b.stats.backend));
    if (b.stats.workspace_bytes > 0) {
      std::printf(" and needs %s of extra memory where %s needs %s",
                  format_bytes(static_cast<double>(a.stats.workspace_bytes)).c_str(),
                  to_string(b.stats.backend),
                  format_bytes(static_cast<double>(b.stats.workspace_bytes)).c_str());
    }
    std::printf(".\n");
  }
  std::string runs;
  for (const BenchResult& r : results) {
    if (r.status.ok()) runs += (runs.empty() ? "" : ", ") + std::to_string(r.times_ms.size());
  }
  if (runs.empty()) return;  // nothing ran: the messages above say why
  std::printf("time: median of %s runs after %d warm-up run%s%s; FLOPs: %.3g (4·B·H·Nq·Nk·D%s%s).\n",
              runs.c_str(), settings.timing.warmup, settings.timing.warmup == 1 ? "" : "s",
              on_gpu ? " (CUDA events)" : "", attention_flops(spec, spec.workload),
              spec.causal ? ", halved for causal" : "",
              spec.workload == Workload::backward           ? ", ×2.5 for bwd"
              : spec.workload == Workload::forward_backward ? ", ×3.5 for fwd+bwd"
                                                            : "");
  if (!settings.check) {
    std::printf("error: not checked (--no-check).\n");
  } else if (reference && !reference->status().ok()) {
    std::printf("error: the reference failed: %s\n", reference->status().message().c_str());
  } else if (reference) {
    std::printf(
        "error: relative ‖x − ref‖/‖ref‖, worst of out, lse%s, against cpu_reference (fp64) %s.\n",
        spec.workload == Workload::forward ? "" : ", dq, dk, dv",
        reference->slice().whole
            ? "on the whole problem"
            : ("on " + reference->slice().description + " (a slice keeps the fp64 reference fast)").c_str());
  }
}

void write_result_json(JsonWriter& json, const ProblemSpec& spec, const BenchResult& r) {
  json.begin_object().key("backend").value(to_string(r.requested)).key("ok").value(r.status.ok());
  if (!r.status.ok()) {
    json.key("code").value(to_string(r.status.code())).key("message").value(r.status.message());
    json.end_object();
    return;
  }
  json.key("ran").value(to_string(r.stats.backend)).key("median_ms").value(r.median_ms);
  json.key("times_ms").begin_array();
  for (double t : r.times_ms) json.value(t);
  json.end_array();
  json.key("flops_per_second").value(throughput(spec, r));
  json.key("workspace_bytes").value(static_cast<std::int64_t>(r.stats.workspace_bytes));
  json.key("kernel_launches").value(r.stats.kernel_launches);
  if (r.checked) {
    json.key("relative_error").begin_object();
    if (r.errors.has_forward) json.key("out").value(r.errors.out).key("lse").value(r.errors.lse);
    if (r.errors.has_backward) {
      json.key("dq").value(r.errors.dq).key("dk").value(r.errors.dk).key("dv").value(r.errors.dv);
    }
    json.end_object();
  }
  json.end_object();
}

void write_problem_json(JsonWriter& json, const ProblemSpec& spec) {
  json.key("problem").begin_object();
  json.key("batch").value(spec.batch).key("heads_q").value(spec.heads_q).key("heads_kv").value(spec.heads_kv);
  json.key("seqlen_q").value(spec.seqlen_q).key("seqlen_k").value(spec.seqlen_k);
  json.key("head_dim").value(spec.head_dim).key("dtype").value(short_name(spec.dtype));
  json.key("causal")
      .value(spec.causal)
      .key("window")
      .begin_array()
      .value(spec.window.left)
      .value(spec.window.right)
      .end_array();
  json.key("direction").value(to_string(spec.workload)).key("device").value(to_string(spec.device));
  if (spec.device.type == DeviceType::cuda)
    json.key("device_name").value(cuda_device_description(spec.device.index));
  json.key("threads").value(spec.threads).key("flops").value(attention_flops(spec, spec.workload));
  json.end_object();
}

// Runs every backend on one problem (same inputs for all) and checks each against one reference.
std::vector<BenchResult> bench_problem(const ProblemSpec& spec, const std::vector<BackendChoice>& backends,
                                       const BenchSettings& settings, std::optional<Reference>& reference) {
  AttentionBuffers buffers(spec, spec.workload != Workload::forward, kInputSeed);
  std::vector<BenchResult> results;
  for (const BackendChoice& choice : backends) {
    BenchResult r = bench_backend(spec, choice.for_problem(spec), buffers, settings);
    if (r.status.ok() && settings.check) {
      buffers.download_outputs();
      if (!reference)
        reference.emplace(spec, choose_reference_slice(spec, settings.reference_budget), buffers);
      if (reference->status().ok()) {
        r.errors = reference->errors_of(buffers);
        r.checked = true;
      }
    }
    results.push_back(std::move(r));
  }
  return results;
}

bool all_ok(const std::vector<BenchResult>& results) {
  return std::all_of(results.begin(), results.end(), [](const BenchResult& r) { return r.status.ok(); });
}

int run_single(const ProblemSpec& spec, const std::vector<BackendChoice>& backends,
               const BenchSettings& settings, bool json_output) {
  std::optional<Reference> reference;
  const std::vector<BenchResult> results = bench_problem(spec, backends, settings, reference);
  if (json_output) {
    JsonWriter json;
    json.begin_object().key("fattn_version").value(version()).key("command").value("bench");
    write_problem_json(json, spec);
    if (reference) {
      json.key("reference").begin_object().key("whole_problem").value(reference->slice().whole);
      json.key("slice")
          .value(reference->slice().description)
          .key("ok")
          .value(reference->status().ok())
          .end_object();
    }
    json.key("results").begin_array();
    for (const BenchResult& r : results) write_result_json(json, spec, r);
    json.end_array().end_object();
    std::printf("%s\n", json.str().c_str());
  } else {
    print_table(spec, results, reference, settings);
  }
  const bool reference_ok = !reference || reference->status().ok();
  return all_ok(results) && reference_ok ? 0 : 1;
}

int run_head_dim_sweep(const ArgParser& parser, ProblemSpec spec, const std::vector<BackendChoice>& backends,
                       const BenchSettings& settings, bool json_output) {
  std::vector<std::int64_t> dims = kSweepHeadDims;
  if (parser.has("sweep-values")) {
    dims.clear();
    for (const std::string& text : parser.list_value("sweep-values"))
      dims.push_back(parse_int(text, "--sweep-values"));
  }
  const bool on_gpu = spec.device.type == DeviceType::cuda;
  const double unit = on_gpu ? kTera : kGiga;
  JsonWriter json;
  json.begin_object().key("fattn_version").value(version()).key("command").value("bench --sweep head-dim");
  write_problem_json(json, spec);
  json.key("points").begin_array();
  // "flash" is resolved at every point, so the backend that ran gets a column of its own.
  const bool has_flash =
      std::any_of(backends.begin(), backends.end(), [](const BackendChoice& c) { return c.flash; });
  std::vector<std::string> headers{"D"};
  if (has_flash) headers.push_back("flash backend");
  for (const BackendChoice& b : backends) headers.push_back(b.name() + (on_gpu ? " TFLOP/s" : " GFLOP/s"));
  headers.push_back("worst error");
  Table table(headers);
  bool ok = true;
  const bool progress = !json_output && stdout_is_terminal();
  for (std::int64_t dim : dims) {
    if (progress) std::printf("\r  D=%lld …", static_cast<long long>(dim)), std::fflush(stdout);
    ProblemSpec point = spec;
    point.head_dim = dim;
    std::optional<Reference> reference;
    const std::vector<BenchResult> results = bench_problem(point, backends, settings, reference);
    std::vector<std::string> row{std::to_string(dim)};
    if (has_flash) {
      std::string ran;
      for (std::size_t i = 0; i < backends.size(); ++i) {
        if (backends[i].flash) ran += (ran.empty() ? "" : ", ") + backend_label(results[i]);
      }
      row.push_back(ran);
    }
    double worst = 0;
    json.begin_object().key("head_dim").value(dim).key("flops").value(attention_flops(point, point.workload));
    json.key("results").begin_array();
    for (const BenchResult& r : results) {
      row.push_back(r.status.ok() ? format_fixed(throughput(point, r) / unit, 1) : "failed");
      if (r.checked) worst = std::max(worst, r.errors.worst());
      write_result_json(json, point, r);
      ok = ok && r.status.ok();
    }
    json.end_array().end_object();
    row.push_back(settings.check ? format_error(worst) : "—");
    table.add_row(row);
  }
  json.end_array().end_object();
  if (json_output) {
    std::printf("%s\n", json.str().c_str());
    return ok ? 0 : 1;
  }
  if (progress) std::printf("\r");
  std::printf("fattn %s bench --sweep head-dim: %s\n", version(), spec.summary(false).c_str());
  std::printf("throughput counted with the real D (FLOPs = 4·B·H·Nq·Nk·D%s).\n\n", spec.causal ? " / 2" : "");
  table.print(stdout);
  if (!ok) std::printf("\nsome points failed: run one with `fattn bench --head-dim D` to see why.\n");
  return ok ? 0 : 1;
}

int bench_main(const std::vector<std::string>& args) {
  ArgParser parser("bench",
                   "Flash vs standard attention side by side: time, throughput, extra memory and the\n"
                   "error against the float64 reference. With no options: B=1 H=16 N=4096 D=128,\n"
                   "fp32 on the CPU, or bf16 on the GPU when one is present and CUDA is compiled in.");
  add_problem_options(parser);
  parser.add_option("backend", "NAMES", "comma-separated: flash, standard, auto or a backend name",
                    "flash,standard of the device");
  parser.add_option("repeats", "N", "timed runs; the median is reported", "3 to 10, about 5 s");
  parser.add_option("warmup", "N", "untimed runs first", std::to_string(kDefaultWarmup));
  parser.add_flag("no-check", "skip the comparison with the float64 reference");
  parser.add_option("reference-budget", "FLOP", "largest slice the fp64 reference runs on, in FLOPs", "2e9");
  parser.add_option("sweep", "WHAT",
                    "head-dim: repeat over D = 64…256 with the odd values 72, 80, 96, 129, 136, 200");
  parser.add_option("sweep-values", "LIST", "the values of the sweep, comma-separated");
  parser.add_option("shared-memory-per-block", "BYTES",
                    "run the tiles of a GPU whose blocks take at most BYTES of shared memory on\n"
                    "this one (101376: RTX 30xx/40xx, A10, L4, L40; 166912: A100)",
                    "the device's own limit");
  parser.add_flag("json", "print JSON instead of a table");
  return run_reporting_errors("bench", [&]() -> int {
    if (!parser.parse(args)) return 0;
    ProblemSpec defaults;
    defaults.device = default_device();
    if (parser.has("device")) defaults.device = read_problem_options(parser, defaults).device;
    if (defaults.device.type == DeviceType::cuda) defaults.dtype = DType::bfloat16;
    const std::string sweep = parser.string_value("sweep", "");
    if (!sweep.empty() && sweep != "head-dim")
      throw UsageError("--sweep: expected head-dim, got '" + sweep + "'");
    if (!sweep.empty() && !parser.has("seqlen") && !parser.has("seqlen-q") && !parser.has("seqlen-k")) {
      const bool gpu = defaults.device.type == DeviceType::cuda;
      defaults.seqlen_q = defaults.seqlen_k = gpu ? kSweepSeqlenGpu : kSweepSeqlenCpu;
      if (gpu) defaults.batch = kSweepBatchGpu;
    }
    const ProblemSpec spec = read_problem_options(parser, defaults);
    BenchSettings settings;
    settings.timing.repeats = static_cast<int>(parser.int_value("repeats", 0));
    settings.timing.warmup = static_cast<int>(parser.int_value("warmup", kDefaultWarmup));
    settings.check = !parser.has("no-check");
    settings.reference_budget = parser.double_value("reference-budget", kReferenceFlopBudget);
    if (settings.timing.repeats < 0 || settings.timing.warmup < 0)
      throw UsageError("--repeats and --warmup must be >= 0");
    if (parser.has("shared-memory-per-block")) {
      const auto bytes = parser.int_value("shared-memory-per-block", 0);
      if (spec.device.type != DeviceType::cuda || bytes <= 0)
        throw UsageError("--shared-memory-per-block: expected a positive byte count and a CUDA device");
      detail::cap_shared_bytes_per_block(spec.device.index, static_cast<int>(bytes));
    }
    const std::vector<BackendChoice> backends = backends_to_run(parser, spec);
    if (!sweep.empty()) return run_head_dim_sweep(parser, spec, backends, settings, parser.has("json"));
    return run_single(spec, backends, settings, parser.has("json"));
  });
}

}  // namespace

FATTN_CLI_COMMAND("bench", "flash vs standard attention: time, GFLOP/s, memory, error", bench_main);

}  // namespace fattn::cli
