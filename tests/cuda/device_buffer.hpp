// Device-side helpers shared by the CUDA tests: a device copy of a host tensor (same layout,
// padding included), a deep copy of a host tensor, and the reason a test must skip without a GPU.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "support/test_tensors.hpp"

namespace fattn::testing {

// All bytes 0xFF: 0xFFFF... is a NaN in fp32, fp16 and bf16.
inline constexpr unsigned char kNaNByte = 0xFF;

// A deep copy: HostTensor's implicit copy duplicates the storage but leaves the view pointing
// into the original's.
inline HostTensor clone(const HostTensor& t) {
  HostTensor c = t;
  c.view.data = c.storage.data() + (static_cast<const std::uint8_t*>(t.view.data) - t.storage.data());
  return c;
}

// Empty when a CUDA device is present; otherwise why not (for GTEST_SKIP).
inline std::string cuda_device_absent_reason() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return std::string("no CUDA device: ") + cudaGetErrorString(error);
  }
  if (count == 0) return "no CUDA device: cudaGetDeviceCount reports 0 devices";
  return {};
}

// A device copy of a host tensor's bytes, with the same layout (strides, padding).
struct DeviceBuffer {
  void* data = nullptr;
  std::size_t bytes = 0;
  TensorView view;

  explicit DeviceBuffer(const HostTensor& host) : bytes(host.bytes()) {
    EXPECT_EQ(cudaMalloc(&data, bytes), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data, host.storage.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    view = host.view;
    view.data = static_cast<char*>(data) +
                (static_cast<const std::uint8_t*>(host.view.data) - host.storage.data());
    view.device = Device::cuda(0);
  }
  ~DeviceBuffer() { cudaFree(data); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void poison() { EXPECT_EQ(cudaMemset(data, kNaNByte, bytes), cudaSuccess); }
  // The device contents, in a host tensor of the same layout as `like`.
  HostTensor to_host(const HostTensor& like) const {
    HostTensor h = clone(like);
    EXPECT_EQ(cudaMemcpy(h.storage.data(), data, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

}  // namespace fattn::testing
