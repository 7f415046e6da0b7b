#include "cli_ceilings.hpp"

#include <omp.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "cli_device.hpp"
#include "host_tensor.hpp"

#if FATTN_HAS_CUDA
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#endif

namespace fattn::cli {
namespace {

// Each buffer is much larger than any last-level cache, so the copy streams from memory.
constexpr std::size_t kCpuCopyBytes = std::size_t{512} << 20;
constexpr int kCopyAttempts = 4;                  // best of; the first also faults the pages in
constexpr double kBytesMovedPerCopiedByte = 2.0;  // one read, one write
constexpr std::size_t kGpuCopyBytes = std::size_t{1} << 30;
constexpr int kGemmSize = 8192;  // square GEMM: large enough to reach the tensor-core peak
constexpr int kGemmAttempts = 5;
constexpr double kFlopsPerMultiplyAdd = 2.0;
constexpr std::uint64_t kGemmInputSeed = 20261122;

std::string gib_text(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

Ceilings measure_cpu_ceilings(int threads) {
  Ceilings c;
  const CpuPeak peak = measure_cpu_fma_peak(threads);
  c.peak_flops = peak.flops;
  c.peak_method = "FMA microbenchmark, " + peak.target + " (" + std::to_string(peak.float_lanes) +
                  " floats per vector), " + std::to_string(threads) + " threads";

  std::unique_ptr<std::uint8_t[]> source(new std::uint8_t[kCpuCopyBytes]);
  std::unique_ptr<std::uint8_t[]> destination(new std::uint8_t[kCpuCopyBytes]);
  std::memset(source.get(), 1, kCpuCopyBytes);
  double best = 0;
  for (int attempt = 0; attempt < kCopyAttempts; ++attempt) {
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    {
      const std::size_t share = kCpuCopyBytes / static_cast<std::size_t>(omp_get_num_threads());
      const std::size_t begin = share * static_cast<std::size_t>(omp_get_thread_num());
      std::memcpy(destination.get() + begin, source.get() + begin, share);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (attempt == 0 || seconds < best) best = seconds;
  }
  c.bandwidth = kBytesMovedPerCopiedByte * static_cast<double>(kCpuCopyBytes) / best;
  c.bandwidth_method = "memcpy of " + gib_text(kCpuCopyBytes) + " on " + std::to_string(threads) +
                       " threads (bytes read + written)";
  return c;
}

#if FATTN_HAS_CUDA

namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw ToolError(std::string(what) + " failed with cuBLAS status " + std::to_string(status));
}

cudaDataType_t cublas_type(DType dtype) {
  switch (dtype) {
    case DType::float16:
      return CUDA_R_16F;
    case DType::bfloat16:
      return CUDA_R_16BF;
    default:
      return CUDA_R_32F;
  }
}

}  // namespace

Ceilings measure_gpu_ceilings(DType dtype, int ordinal) {
  cuda_set_device(ordinal);
  Ceilings c;
  {
    DeviceBuffer source = DeviceBuffer::allocate(kGpuCopyBytes);
    DeviceBuffer destination = DeviceBuffer::allocate(kGpuCopyBytes);
    Stopwatch stopwatch(true);
    double best = 0;
    for (int attempt = 0; attempt < kCopyAttempts; ++attempt) {
      stopwatch.start();
      if (cudaMemcpyAsync(destination.data(), source.data(), kGpuCopyBytes, cudaMemcpyDeviceToDevice,
                          nullptr) != cudaSuccess) {
        throw ToolError("cudaMemcpyAsync (device to device) failed");
      }
      const double ms = stopwatch.stop_ms();
      if (attempt == 0 || ms < best) best = ms;
    }
    c.bandwidth = kBytesMovedPerCopiedByte * static_cast<double>(kGpuCopyBytes) / (best * 1e-3);
    c.bandwidth_method = "device-to-device copy of " + gib_text(kGpuCopyBytes) + " (bytes read + written)";
  }
  const std::size_t elements = static_cast<std::size_t>(kGemmSize) * kGemmSize;
  const std::size_t bytes = elements * size_of(dtype == DType::float32 ? DType::float32 : dtype);
  DeviceBuffer a = DeviceBuffer::allocate(bytes), b = DeviceBuffer::allocate(bytes),
               out = DeviceBuffer::allocate(bytes);
  // Random inputs, as attention sees: on constant or zero operands the tensor cores toggle fewer
  // bits, draw less power and clock higher, which overstated the peak (892 against 787 TFLOP/s
  // on random data, H100 bf16). One random matrix serves as both operands.
  tools::HostTensor random = tools::make_tensor(dtype, {kGemmSize, kGemmSize});
  tools::fill_random_parallel(random, kGemmInputSeed);
  for (DeviceBuffer* buffer : {&a, &b}) buffer->upload(random.storage.data(), bytes);
  cublasHandle_t handle = nullptr;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  const std::unique_ptr<cublasContext, cublasStatus_t (*)(cublasHandle_t)> owned(handle, cublasDestroy);
  const float alpha = 1.0f, beta = 0.0f;
  const cudaDataType_t type = cublas_type(dtype);
  auto gemm = [&] {
    check_cublas(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, kGemmSize, kGemmSize, kGemmSize, &alpha,
                              a.data(), type, kGemmSize, b.data(), type, kGemmSize, &beta, out.data(), type,
                              kGemmSize, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  };
  gemm();  // warm-up: heuristics, clocks
  Stopwatch stopwatch(true);
  double best = 0;
  for (int attempt = 0; attempt < kGemmAttempts; ++attempt) {
    stopwatch.start();
    gemm();
    const double ms = stopwatch.stop_ms();
    if (attempt == 0 || ms < best) best = ms;
  }
  const double flops = kFlopsPerMultiplyAdd * kGemmSize * static_cast<double>(kGemmSize) * kGemmSize;
  c.peak_flops = flops / (best * 1e-3);
  c.peak_method = "cuBLAS GEMM " + std::to_string(kGemmSize) + "³, " + to_string(dtype) +
                  (dtype == DType::float32 ? " (FP32 cores, no TF32)" : " (tensor cores, fp32 accumulate)");
  return c;
}

#else

Ceilings measure_gpu_ceilings(DType, int) {
  throw ToolError("this build of fattn has no CUDA support, so it cannot measure GPU ceilings");
}

#endif

}  // namespace fattn::cli
