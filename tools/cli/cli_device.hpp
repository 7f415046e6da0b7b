// Device memory, copies and timing for the tools. In a build without CUDA there is no device:
// cuda_device_count() is 0 and DeviceBuffer::allocate throws a ToolError that says so, so a
// command asked for the GPU fails with a clear message instead of pretending.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace fattn::cli {

// A failure outside the library (allocation, a CUDA runtime call): printed, exit code 1.
class ToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// True when this build links the CUDA runtime (the CUDA backends were compiled in).
bool cuda_build();
// Number of usable CUDA devices; 0 without CUDA in the build or without a GPU.
int cuda_device_count();
// "NVIDIA H100 80GB HBM3 (sm_90)", or an empty string when absent.
std::string cuda_device_description(int ordinal);
// Waits for all work queued on the device (no-op without CUDA or without a device).
void cuda_synchronize();
// Makes `ordinal` the current device (allocations, events and the default stream follow it).
void cuda_set_device(int ordinal);

// Owns `bytes` of device memory on the current CUDA device.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static DeviceBuffer allocate(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Wall time of a piece of work. For device work it records CUDA events on the legacy default
// stream (the stream the library uses when ExecutionContext::cuda_stream is null), so the
// time is the GPU's, not the launch overhead's.
class Stopwatch {
 public:
  explicit Stopwatch(bool on_device);
  ~Stopwatch();
  Stopwatch(const Stopwatch&) = delete;
  Stopwatch& operator=(const Stopwatch&) = delete;
  void start();
  double stop_ms();  // waits for the device when timing device work

 private:
  bool on_device_;
  void* start_event_ = nullptr;
  void* stop_event_ = nullptr;
  double host_start_s_ = 0.0;
};

}  // namespace fattn::cli
