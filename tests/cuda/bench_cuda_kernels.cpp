// fattn_cuda_bench: a benchmark driver (not a test) for the CUDA backends on one problem —
// median time over CUDA-event-timed runs, TFLOP/s (FlashAttention's FLOP convention), the
// fraction of the GPU's fp32 FMA peak, and what RunStats reports (extra memory, launches).
//
//   fattn_cuda_bench --backends cuda_simt,cuda_standard --dtype fp32 --batch 4 --heads 16 \
//                    --seqlen 4096 --head-dim 128 [--causal] [--direction fwd|bwd] [--repeats 10]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/float_convert.hpp"
#include "fattn/fattn.hpp"

namespace {

constexpr int kWarmupRuns = 2;
constexpr int kCapabilityDigits = 10;
constexpr double kFlopsPerFma = 2.0;
constexpr double kKiloHertz = 1e3;
constexpr double kTera = 1e12;
constexpr double kBackwardFlopFactor = 2.5;  // FlashAttention convention: bwd = 2.5 × fwd
constexpr double kBytesPerMiB = 1048576.0;
constexpr double kSecondsPerMillisecond = 1e-3;
constexpr unsigned kInputSeed = 20261122;

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t error_ = (call);                                                           \
    if (error_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(error_));          \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (false)

struct Settings {
  std::vector<std::string> backends = {"cuda_simt", "cuda_standard"};
  fattn::DType dtype = fattn::DType::float32;
  std::int64_t batch = 4, heads = 16, seqlen = 4096, head_dim = 128;
  bool causal = false;
  bool backward = false;
  int repeats = 10;
};

// FP32 lanes per SM: 64 on sm_80 (A100), 128 on sm_86/89/90.
int fp32_lanes_per_sm(int capability) { return capability == 80 ? 64 : 128; }

double fp32_peak_tflops() {
  int device = 0, sms = 0, clock_khz = 0, major = 0, minor = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const int lanes = fp32_lanes_per_sm(major * kCapabilityDigits + minor);
  return sms * lanes * kFlopsPerFma * clock_khz * kKiloHertz / kTera;
}

struct DeviceBuffer {
  void* data = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { CHECK_CUDA(cudaMalloc(&data, std::max<std::size_t>(bytes, 1))); }
  ~DeviceBuffer() { cudaFree(data); }
};

// Uniform random values in [-1, 1) (never zeros: they can run faster than real data).
void fill_random(DeviceBuffer& buffer, std::size_t elements, fattn::DType dtype, std::mt19937& rng) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const std::size_t bytes = elements * fattn::size_of(dtype);
  std::vector<unsigned char> host(bytes);
  for (std::size_t i = 0; i < elements; ++i) {
    const float value = uniform(rng);
    if (dtype == fattn::DType::float32) {
      std::memcpy(&host[i * 4], &value, 4);
    } else {
      const std::uint16_t half = dtype == fattn::DType::bfloat16 ? fattn::detail::float_to_bfloat16(value)
                                                                  : fattn::detail::float_to_float16(value);
      std::memcpy(&host[i * 2], &half, 2);
    }
  }
  CHECK_CUDA(cudaMemcpy(buffer.data, host.data(), bytes, cudaMemcpyHostToDevice));
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) parts.push_back(part);
  return parts;
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (flag == "--backends") s.backends = split(next());
    else if (flag == "--dtype") {
      const std::string t = next();
      s.dtype = t == "fp16" ? fattn::DType::float16 : t == "bf16" ? fattn::DType::bfloat16 : fattn::DType::float32;
    } else if (flag == "--batch") s.batch = std::stoll(next());
    else if (flag == "--heads") s.heads = std::stoll(next());
    else if (flag == "--seqlen") s.seqlen = std::stoll(next());
    else if (flag == "--head-dim") s.head_dim = std::stoll(next());
    else if (flag == "--causal") s.causal = true;
    else if (flag == "--direction") s.backward = next() == "bwd";
    else if (flag == "--repeats") s.repeats = std::stoi(next());
    else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse(argc, argv);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("not run: no CUDA device\n");
    return 0;
  }
  const std::size_t elements = static_cast<std::size_t>(s.batch * s.seqlen * s.heads * s.head_dim);
  const std::size_t bytes = elements * fattn::size_of(s.dtype);
  std::mt19937 rng(kInputSeed);
  DeviceBuffer q(bytes), k(bytes), v(bytes), out(bytes), dout(bytes), dq(bytes), dk(bytes), dv(bytes);
  DeviceBuffer lse(static_cast<std::size_t>(s.batch * s.heads * s.seqlen) * sizeof(float));
  fill_random(q, elements, s.dtype, rng);
  fill_random(k, elements, s.dtype, rng);
  fill_random(v, elements, s.dtype, rng);
  fill_random(dout, elements, s.dtype, rng);
  const fattn::Device gpu = fattn::Device::cuda(0);
  auto view = [&](DeviceBuffer& b) {
    return fattn::TensorView::contiguous(b.data, s.dtype, gpu, {s.batch, s.seqlen, s.heads, s.head_dim});
  };
  const fattn::TensorView lse_view =
      fattn::TensorView::contiguous(lse.data, fattn::DType::float32, gpu, {s.batch, s.heads, s.seqlen});

  const double forward_flops = 4.0 * s.batch * s.heads * s.seqlen * s.seqlen * s.head_dim * (s.causal ? 0.5 : 1.0);
  const double flops = s.backward ? kBackwardFlopFactor * forward_flops : forward_flops;
  const double peak = fp32_peak_tflops();
  cudaDeviceProp props{};
  CHECK_CUDA(cudaGetDeviceProperties(&props, 0));
  std::printf("%s, fp32 FMA peak %.1f TFLOP/s; %s B=%lld H=%lld N=%lld D=%lld %s %s\n", props.name, peak,
              fattn::to_string(s.dtype), static_cast<long long>(s.batch), static_cast<long long>(s.heads),
              static_cast<long long>(s.seqlen), static_cast<long long>(s.head_dim), s.causal ? "causal" : "full",
              s.backward ? "bwd" : "fwd");
  std::printf("%-14s %10s %9s %9s %14s %9s\n", "backend", "ms", "TFLOP/s", "% fp32", "extra MiB", "launches");

  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  for (const std::string& name : s.backends) {
    const auto backend = fattn::backend_from_string(name);
    if (!backend) {
      std::printf("%-14s unknown backend\n", name.c_str());
      continue;
    }
    fattn::Options options;
    options.backend = *backend;
    options.causal = s.causal;
    fattn::RunStats stats;
    fattn::ExecutionContext context;
    auto run_once = [&](fattn::ExecutionContext ctx) {
      if (!s.backward) return fattn::forward(view(q), view(k), view(v), view(out), lse_view, options, ctx);
      return fattn::backward(view(q), view(k), view(v), view(out), view(dout), lse_view, view(dq), view(dk),
                             view(dv), options, ctx);
    };
    if (s.backward) {
      const fattn::Status f = fattn::forward(view(q), view(k), view(v), view(out), lse_view, options);
      if (!f.ok()) {
        std::printf("%-14s n/a: %s\n", name.c_str(), f.message().c_str());
        continue;
      }
    }
    fattn::Status status;
    for (int i = 0; i < kWarmupRuns && status.ok(); ++i) status = run_once(context);
    if (!status.ok()) {
      std::printf("%-14s n/a: %s\n", name.c_str(), status.message().c_str());
      continue;
    }
    context.stats = &stats;
    run_once(context);
    context.stats = nullptr;
    std::vector<float> times;
    for (int i = 0; i < s.repeats; ++i) {
      CHECK_CUDA(cudaEventRecord(start));
      run_once(context);
      CHECK_CUDA(cudaEventRecord(stop));
      CHECK_CUDA(cudaEventSynchronize(stop));
      float ms = 0.0f;
      CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      times.push_back(ms);
    }
    CHECK_CUDA(cudaGetLastError());
    std::sort(times.begin(), times.end());
    const double ms = times[times.size() / 2];
    const double tflops = flops / (ms * kSecondsPerMillisecond) / kTera;
    std::printf("%-14s %10.3f %9.2f %8.1f%% %14.1f %9d\n", name.c_str(), ms, tflops, 100.0 * tflops / peak,
                stats.workspace_bytes / kBytesPerMiB, stats.kernel_launches);
  }
  return 0;
}
