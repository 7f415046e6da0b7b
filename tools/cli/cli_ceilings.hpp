// The machine's ceilings, measured on the spot by small built-in microbenchmarks: the peak
// FLOP rate and the memory bandwidth the roofline is drawn against.
#pragma once

#include <cstdint>
#include <string>

#include "fattn/types.hpp"

namespace fattn::cli {

struct Ceilings {
  double peak_flops = 0;         // FLOP/s
  double bandwidth = 0;          // bytes/s, counting bytes read plus bytes written
  std::string peak_method;       // how the peak was measured
  std::string bandwidth_method;  // how the bandwidth was measured
};

// CPU: an FMA microbenchmark (Highway, widest instruction set of this CPU) on every thread,
// and a multi-threaded copy of buffers much larger than the caches.
Ceilings measure_cpu_ceilings(int threads);

// GPU: a cuBLAS GEMM in the problem's dtype (fp32: SGEMM without TF32) and a device-to-device
// copy. Throws ToolError without CUDA or without a device.
Ceilings measure_gpu_ceilings(DType dtype, int ordinal);

struct CpuPeak {
  double flops = 0;
  std::string target;  // Highway's name of the instruction set, e.g. "AVX3"
  std::int64_t float_lanes = 0;
};
CpuPeak measure_cpu_fma_peak(int threads);  // cli_fma_peak.cpp

}  // namespace fattn::cli
