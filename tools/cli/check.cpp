// `fattn check`: every available backend against the float64 reference over deliberately odd
// shapes (N = 1, 17, 1013; D = 1, 72, 129, 256; Nq ≠ Nk under causal; windows; GQA/MQA) and
// every dtype, forward and backward. Prints a pass/fail table; exits 1 on any failure.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "cli_device.hpp"
#include "cli_format.hpp"
#include "cli_problem.hpp"
#include "command.hpp"

namespace fattn::cli {
namespace {

constexpr std::uint64_t kCaseSeedBase = 7001;
// Gradients go through longer reductions than the output (dK sums over every query row, and
// dS = P∘(dP − D) cancels), so they get twice the output's tolerance.
constexpr double kGradientToleranceFactor = 2.0;
// The reference runs on the whole problem in a check: the cases are sized for it.
constexpr double kUnlimitedReferenceBudget = 1e300;

struct CheckCase {
  std::string name;
  ProblemSpec spec;
};

ProblemSpec shape(std::int64_t batch, std::int64_t heads_q, std::int64_t heads_kv, std::int64_t seqlen_q,
                  std::int64_t seqlen_k, std::int64_t head_dim) {
  ProblemSpec s;
  s.batch = batch, s.heads_q = heads_q, s.heads_kv = heads_kv;
  s.seqlen_q = seqlen_q, s.seqlen_k = seqlen_k, s.head_dim = head_dim;
  s.workload = Workload::forward_backward;
  return s;
}

// The cases of one dtype. `quick` keeps a representative third (for CI's smoke run).
std::vector<CheckCase> cases_for(DType dtype, bool quick) {
  std::vector<CheckCase> cases;
  auto add = [&](std::string name, ProblemSpec spec) {
    spec.dtype = dtype;
    cases.push_back({std::move(name), spec});
  };
  const std::vector<std::int64_t> lengths =
      quick ? std::vector<std::int64_t>{1, 17, 1013} : std::vector<std::int64_t>{1, 17, 128, 1013};
  for (std::int64_t n : lengths) add("seqlen", shape(1, 2, 2, n, n, 64));
  const std::vector<std::int64_t> dims = quick ? std::vector<std::int64_t>{1, 72, 129, 256}
                                               : std::vector<std::int64_t>{1, 8, 64, 72, 128, 129, 256};
  for (std::int64_t d : dims) add("head dim", shape(1, 2, 2, 77, 77, d));
  for (auto [nq, nk] : {std::pair<std::int64_t, std::int64_t>{65, 200}, {200, 200}, {200, 65}}) {
    ProblemSpec s = shape(2, 2, 1, nq, nk, 72);
    s.causal = true;
    add(nq < nk ? "causal Nq<Nk" : nq == nk ? "causal Nq=Nk" : "causal Nq>Nk", s);
  }
  ProblemSpec window = shape(1, 2, 2, 300, 300, 64);
  window.window = {32, 8};
  add("window", window);
  if (!quick) {
    ProblemSpec left_only = shape(1, 2, 2, 150, 257, 64);
    left_only.window = {16, -1};
    add("window left", left_only);
    ProblemSpec diagonal = shape(1, 2, 2, 96, 64, 32);
    diagonal.window = {0, 0};
    add("window (0,0)", diagonal);
  }
  add("GQA 8/2", shape(1, 8, 2, 129, 129, 64));
  ProblemSpec mqa = shape(1, 8, 1, 129, 140, 64);
  mqa.causal = true;
  add("MQA 8/1", mqa);
  add("empty keys", shape(1, 2, 2, 17, 0, 64));
  return cases;
}

std::string case_label(const CheckCase& c) {
  const ProblemSpec& s = c.spec;
  std::string text = c.name + ": B=" + std::to_string(s.batch) + " H=" + std::to_string(s.heads_q);
  if (s.heads_kv != s.heads_q) text += "/" + std::to_string(s.heads_kv);
  text += s.seqlen_q == s.seqlen_k
              ? " N=" + std::to_string(s.seqlen_q)
              : " Nq=" + std::to_string(s.seqlen_q) + " Nk=" + std::to_string(s.seqlen_k);
  text += " D=" + std::to_string(s.head_dim);
  if (s.mask_text() != "no mask") text += " " + s.mask_text();
  return text;
}

enum class Verdict : std::uint8_t { pass, fail, error, not_applicable };

struct Outcome {
  Verdict verdict = Verdict::not_applicable;
  ReferenceErrors errors;
  bool backward_checked = false;
  std::string message;  // why it failed, errored or was not applicable
};

std::string cell(const Outcome& o) {
  switch (o.verdict) {
    case Verdict::pass:
      return "pass " + format_error(o.errors.worst()) + (o.backward_checked ? "" : " (fwd)");
    case Verdict::fail:
      return "FAIL " + format_error(o.errors.worst());
    case Verdict::error:
      return "ERROR";
    case Verdict::not_applicable:
      return "n/a";
  }
  return "?";
}

// Forward, then (when the selector allows) backward, compared with the reference.
Outcome check_backend(const CheckCase& c, Backend backend, AttentionBuffers& buffers,
                      const Reference& reference) {
  Outcome o;
  const Selection fwd = supports(c.spec.problem(backend, Direction::forward));
  if (!fwd.ok()) {
    o.message = fwd.reason;
    return o;
  }
  const bool bwd_supported = supports(c.spec.problem(backend, Direction::backward)).ok();
  buffers.poison_outputs();
  Status s = run_forward(c.spec, backend, buffers);
  if (s.ok() && bwd_supported) s = run_backward(c.spec, backend, buffers);
  if (!s.ok()) {
    o.verdict = Verdict::error;
    o.message = std::string(to_string(s.code())) + ": " + s.message();
    return o;
  }
  buffers.download_outputs();
  o.errors = reference.errors_of(buffers);
  o.errors.has_backward = o.errors.has_backward && bwd_supported;
  o.backward_checked = o.errors.has_backward;
  const double tolerance = tools::tolerance_for(c.spec.dtype);
  const double forward_error = std::max(o.errors.out, o.errors.lse);
  const double gradient_error =
      o.errors.has_backward ? std::max({o.errors.dq, o.errors.dk, o.errors.dv}) : 0.0;
  const bool pass = forward_error <= tolerance && gradient_error <= kGradientToleranceFactor * tolerance;
  o.verdict = pass ? Verdict::pass : Verdict::fail;
  if (!pass) {
    o.message = "out " + format_error(o.errors.out) + ", lse " + format_error(o.errors.lse);
    if (o.errors.has_backward) {
      o.message += ", dq " + format_error(o.errors.dq) + ", dk " + format_error(o.errors.dk) + ", dv " +
                   format_error(o.errors.dv);
    }
    o.message += " (tolerance " + format_error(tolerance) + ", gradients " +
                 format_error(kGradientToleranceFactor * tolerance) + ")";
  }
  return o;
}

std::vector<Backend> backends_under_test(const ArgParser& parser) {
  std::vector<Backend> backends;
  for (const std::string& name : parser.list_value("backend")) {
    auto b = backend_from_string(name);
    if (!b || *b == Backend::automatic) throw UsageError("--backend: unknown backend '" + name + "'");
    backends.push_back(*b);
  }
  if (!backends.empty()) return backends;
  for (Backend b : {Backend::cpu_standard, Backend::cpu_flash, Backend::cuda_standard, Backend::cuda_simt,
                    Backend::cuda_sm80, Backend::cuda_sm90}) {
    if (backend_compiled(b)) backends.push_back(b);
  }
  return backends;
}

bool is_cuda_backend(Backend b) {
  return b != Backend::cpu_reference && b != Backend::cpu_standard && b != Backend::cpu_flash;
}

int check_main(const std::vector<std::string>& args) {
  ArgParser parser("check",
                   "Every available backend against the float64 reference, forward and backward, over\n"
                   "odd shapes, masks, GQA and every dtype. Exits 1 if anything fails.");
  parser.add_option("backend", "NAMES", "comma-separated backends to check", "every compiled backend");
  parser.add_option("dtype", "LIST", "comma-separated dtypes", "fp32,fp16,bf16");
  parser.add_option("threads", "T", "CPU threads", "all hardware threads");
  parser.add_flag("quick", "a representative subset (CI's smoke run)");
  parser.add_flag("failures-only", "list only the cases that did not pass");
  return run_reporting_errors("check", [&]() -> int {
    if (!parser.parse(args)) return 0;
    const std::vector<Backend> backends = backends_under_test(parser);
    std::vector<DType> dtypes;
    for (const std::string& name : parser.list_value("dtype")) {
      auto d = dtype_from_string(name);
      if (!d) throw UsageError("--dtype: expected fp32, fp16 or bf16, got '" + name + "'");
      dtypes.push_back(*d);
    }
    if (dtypes.empty()) dtypes = {DType::float32, DType::float16, DType::bfloat16};
    const int threads = static_cast<int>(parser.int_value("threads", 0));
    std::vector<CheckCase> cases;
    for (DType d : dtypes) {
      for (CheckCase& c : cases_for(d, parser.has("quick"))) {
        c.spec.threads = threads;
        cases.push_back(std::move(c));
      }
    }
    const bool any_cuda = std::any_of(backends.begin(), backends.end(), is_cuda_backend);
    const bool gpu_present = any_cuda && cuda_device_count() > 0;

    const bool progress = stdout_is_terminal();
    std::printf(
        "fattn %s check: %zu cases × %zu backends, forward and backward, against cpu_reference (fp64)\n",
        version(), cases.size(), backends.size());
    std::vector<std::string> headers{"case", "dtype"};
    for (Backend b : backends) headers.push_back(to_string(b));
    Table table(headers);
    std::map<Backend, std::map<Verdict, int>> counts;
    std::vector<std::string> problems;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const CheckCase& c = cases[i];
      if (progress) {
        std::printf("\r\033[K[%3zu/%zu] %s %s", i + 1, cases.size(), short_name(c.spec.dtype),
                    case_label(c).c_str());
        std::fflush(stdout);
      }
      AttentionBuffers host(c.spec, true, kCaseSeedBase + i);
      const Reference reference(c.spec, choose_reference_slice(c.spec, kUnlimitedReferenceBudget), host);
      if (!reference.status().ok()) {
        problems.push_back(case_label(c) + ": the reference failed: " + reference.status().message());
        counts[Backend::cpu_reference][Verdict::error]++;
        continue;
      }
      std::optional<AttentionBuffers> device_buffers;
      std::vector<std::string> row{case_label(c), short_name(c.spec.dtype)};
      bool all_pass = true;
      for (Backend b : backends) {
        ProblemSpec spec = c.spec;
        if (is_cuda_backend(b)) spec.device = Device::cuda(0);
        const CheckCase device_case{c.name, spec};
        if (is_cuda_backend(b) && gpu_present && !device_buffers) {
          device_buffers.emplace(spec, true, kCaseSeedBase + i);  // same seed: the same inputs
        }
        AttentionBuffers& buffers = is_cuda_backend(b) && device_buffers ? *device_buffers : host;
        const Outcome o = check_backend(device_case, b, buffers, reference);
        counts[b][o.verdict]++;
        all_pass = all_pass && (o.verdict == Verdict::pass || o.verdict == Verdict::not_applicable);
        if (o.verdict == Verdict::fail || o.verdict == Verdict::error) {
          problems.push_back(std::string(to_string(b)) + " " + short_name(c.spec.dtype) + " " +
                             case_label(c) + ": " + o.message);
        }
        row.push_back(cell(o));
      }
      if (!parser.has("failures-only") || !all_pass) table.add_row(row);
    }
    if (progress) std::printf("\r\033[K");
    std::printf("\n");
    table.print(stdout);
    std::printf(
        "\nerror: relative ‖x − ref‖/‖ref‖, worst of out, lse, dq, dk, dv; tolerance fp32 %s, "
        "fp16 %s, bf16 %s (gradients ×%.0f). (fwd) = the backend has no backward pass.\n",
        format_error(tools::tolerance_for(DType::float32)).c_str(),
        format_error(tools::tolerance_for(DType::float16)).c_str(),
        format_error(tools::tolerance_for(DType::bfloat16)).c_str(), kGradientToleranceFactor);
    if (any_cuda && !gpu_present) {
      std::printf("CUDA backends are compiled in, but there is no CUDA device here: they show n/a.\n");
    }
    int failures = 0, passes = 0;
    for (Backend b : backends) {
      auto& n = counts[b];
      std::printf("%-14s %3d passed, %d failed, %d errors, %d not applicable\n", to_string(b),
                  n[Verdict::pass], n[Verdict::fail], n[Verdict::error], n[Verdict::not_applicable]);
      failures += n[Verdict::fail] + n[Verdict::error];
      passes += n[Verdict::pass];
    }
    failures += counts[Backend::cpu_reference][Verdict::error];
    for (const std::string& p : problems) std::printf("  %s\n", p.c_str());
    std::printf("check: %d passed, %d failed\n", passes, failures);
    return failures == 0 && passes > 0 ? 0 : 1;
  });
}

}  // namespace

FATTN_CLI_COMMAND("check", "every backend vs the fp64 reference over odd shapes; exit 1 on failure",
                  check_main);

}  // namespace fattn::cli
