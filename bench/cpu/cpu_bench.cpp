// GFLOP/s of the CPU backends (flash, standard, reference), forward and backward, on one problem.
// A developer's tool for tuning the CPU kernels; `fattn bench` is the user-facing benchmark.
//
//   fattn_cpu_bench [--batch 1] [--heads 16] [--heads-kv H] [--seqlen 4096] [--seqlen-k N]
//                   [--head-dim 128] [--dtype fp32|fp16|bf16] [--causal] [--threads 0]
//                   [--repeats 3] [--backends flash,standard,reference] [--direction fwd|bwd|both]
//
// FLOPs follow the FlashAttention convention: forward 4·B·H·Nq·Nk·D (halved when causal),
// backward 2.5 × forward. Time is the median of --repeats runs after one warm-up run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "common/float_convert.hpp"
#include "fattn/fattn.hpp"

namespace {

struct Config {
  std::int64_t batch = 1, heads = 16, heads_kv = 0, seqlen = 4096, seqlen_k = 0, head_dim = 128;
  fattn::DType dtype = fattn::DType::float32;
  bool causal = false;
  int threads = 0, repeats = 3;
  std::string backends = "flash,standard";
  std::string direction = "both";
};

// A dense host tensor filled with uniform values in [-1, 1).
struct Buffer {
  std::vector<std::uint16_t> storage;  // 16-bit units; a float32 takes two
  fattn::TensorView view;
  Buffer(fattn::DType dtype, std::initializer_list<std::int64_t> shape, std::mt19937& rng) {
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    const std::size_t units = static_cast<std::size_t>(n) * fattn::size_of(dtype) / 2 + 2;
    storage.resize(units);
    view = fattn::TensorView::contiguous(storage.data(), dtype, fattn::Device::cpu(), shape);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (std::int64_t i = 0; i < n; ++i) fattn::detail::store_from_float(storage.data(), dtype, i, uniform(rng));
  }
};

bool parse(int argc, char** argv, Config& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--batch") c.batch = std::atoll(next());
    else if (arg == "--heads") c.heads = std::atoll(next());
    else if (arg == "--heads-kv") c.heads_kv = std::atoll(next());
    else if (arg == "--seqlen") c.seqlen = std::atoll(next());
    else if (arg == "--seqlen-k") c.seqlen_k = std::atoll(next());
    else if (arg == "--head-dim") c.head_dim = std::atoll(next());
    else if (arg == "--causal") c.causal = true;
    else if (arg == "--threads") c.threads = std::atoi(next());
    else if (arg == "--repeats") c.repeats = std::max(1, std::atoi(next()));
    else if (arg == "--backends") c.backends = next();
    else if (arg == "--direction") c.direction = next();
    else if (arg == "--dtype") {
      const std::string d = next();
      c.dtype = d == "bf16" ? fattn::DType::bfloat16 : d == "fp16" ? fattn::DType::float16 : fattn::DType::float32;
    } else {
      std::fprintf(stderr, "unknown argument %s (see the comment at the top of cpu_bench.cpp)\n", arg.c_str());
      return false;
    }
  }
  if (c.heads_kv == 0) c.heads_kv = c.heads;
  if (c.seqlen_k == 0) c.seqlen_k = c.seqlen;
  return true;
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Median and best wall time and median process CPU time of `repeats` runs. On a busy shared
// machine the best wall time and, for 1 thread, the CPU time (which excludes time spent
// preempted) are the better measures of the kernel.
struct Timing {
  double wall = 0, best = 0, cpu = 0;
};

template <class Run>
Timing median_seconds(int repeats, Run&& run) {
  run();  // warm-up: first-touch of buffers, CPU dispatch, thread pool start
  std::vector<double> wall, cpu;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = process_cpu_seconds();
    run();
    cpu.push_back(process_cpu_seconds() - cpu_start);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], wall.front(), cpu[cpu.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  if (!parse(argc, argv, c)) return 2;
  std::mt19937 rng(1234);
  const auto B = c.batch, Nq = c.seqlen, Nk = c.seqlen_k, H = c.heads, Hkv = c.heads_kv, D = c.head_dim;
  Buffer q(c.dtype, {B, Nq, H, D}, rng), k(c.dtype, {B, Nk, Hkv, D}, rng), v(c.dtype, {B, Nk, Hkv, D}, rng);
  Buffer out(c.dtype, {B, Nq, H, D}, rng), dout(c.dtype, {B, Nq, H, D}, rng);
  Buffer dq(c.dtype, {B, Nq, H, D}, rng), dk(c.dtype, {B, Nk, Hkv, D}, rng), dv(c.dtype, {B, Nk, Hkv, D}, rng);
  Buffer lse(fattn::DType::float32, {B, H, Nq}, rng);

  const double forward_flops = 4.0 * B * H * Nq * Nk * D * (c.causal ? 0.5 : 1.0);
  std::printf("B=%lld H=%lld Hkv=%lld Nq=%lld Nk=%lld D=%lld %s%s threads=%d\n", (long long)B, (long long)H,
              (long long)Hkv, (long long)Nq, (long long)Nk, (long long)D, fattn::to_string(c.dtype),
              c.causal ? " causal" : "", c.threads);
  std::printf("%-10s %-4s %10s %10s %10s %12s %10s %14s\n", "backend", "dir", "ms", "GFLOP/s", "best ms",
              "best GFLOP/s", "cpu ms", "workspace MiB");

  std::string list = c.backends + ",";
  for (std::size_t pos; (pos = list.find(',')) != std::string::npos; list.erase(0, pos + 1)) {
    const std::string name = list.substr(0, pos);
    if (name.empty()) continue;
    const auto backend = fattn::backend_from_string("cpu_" + name);
    if (!backend) {
      std::fprintf(stderr, "unknown backend %s\n", name.c_str());
      return 2;
    }
    fattn::Options o;
    o.backend = *backend;
    o.causal = c.causal;
    fattn::RunStats stats;
    fattn::ExecutionContext ctx;
    ctx.num_threads = c.threads;
    ctx.stats = &stats;
    fattn::Status status;
    auto report = [&](const char* dir, Timing t, double flops) {
      if (!status.ok()) {
        std::printf("%-10s %-4s failed: %s\n", name.c_str(), dir, status.message().c_str());
        return;
      }
      std::printf("%-10s %-4s %10.2f %10.1f %10.2f %12.1f %10.2f %14.1f\n", name.c_str(), dir, t.wall * 1e3,
                  flops / t.wall * 1e-9, t.best * 1e3, flops / t.best * 1e-9, t.cpu * 1e3,
                  static_cast<double>(stats.workspace_bytes) / (1024.0 * 1024.0));
    };
    // The backward needs this backend's forward output anyway.
    const Timing fwd = median_seconds(c.repeats, [&] { status = fattn::forward(q.view, k.view, v.view, out.view, lse.view, o, ctx); });
    if (c.direction != "bwd") report("fwd", fwd, forward_flops);
    if (c.direction != "fwd" && status.ok()) {
      const Timing bwd = median_seconds(c.repeats, [&] {
        status = fattn::backward(q.view, k.view, v.view, out.view, dout.view, lse.view, dq.view, dk.view, dv.view, o, ctx);
      });
      report("bwd", bwd, 2.5 * forward_flops);
    }
  }
  return 0;
}
