#include "cli_device.hpp"

#include <chrono>
#include <utility>

#if FATTN_HAS_CUDA
#include <cuda_runtime_api.h>
#include "api/device_query.hpp"  // the shared memory per block fattn sees (a bench cap)
#endif

namespace fattn::cli {
namespace {

double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr double kMillisecondsPerSecond = 1e3;

#if FATTN_HAS_CUDA
void check_cuda(cudaError_t error, const char* what) {
  if (error != cudaSuccess) {
    throw ToolError(std::string(what) + " failed: " + cudaGetErrorString(error));
  }
}
#endif

}  // namespace

#if FATTN_HAS_CUDA

bool cuda_build() { return true; }

int cuda_device_count() {
  // Asked once: without a driver every query takes milliseconds, and the answer cannot change
  // during a run.
  static const int count = [] {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess) {
      cudaGetLastError();  // clear the "no device" error so later calls start clean
      return 0;
    }
    return devices;
  }();
  return count;
}

std::string cuda_device_description(int ordinal) {
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, ordinal) != cudaSuccess) return {};
  std::string text = std::string(properties.name) + " (sm_" + std::to_string(properties.major) +
                     std::to_string(properties.minor) + ")";
  // A cap (bench --shared-memory-per-block) shows: the tiles timed are that device's.
  const int shared = detail::query_cuda_device(ordinal).shared_bytes_per_block;
  if (shared < static_cast<int>(properties.sharedMemPerBlockOptin)) {
    text += ", shared memory per block capped at " + std::to_string(shared) + " bytes (the device has " +
            std::to_string(properties.sharedMemPerBlockOptin) + ")";
  }
  return text;
}

void cuda_synchronize() {
  // A CUDA build on a machine without a GPU (CI) runs CPU work only: nothing to wait for.
  if (cuda_device_count() == 0) return;
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

void cuda_set_device(int ordinal) {
  const int count = cuda_device_count();
  if (count == 0) throw ToolError("no CUDA device is available on this machine (no GPU or no driver)");
  if (ordinal >= count) {
    throw ToolError("no CUDA device " + std::to_string(ordinal) + " on this machine (it has " +
                    std::to_string(count) + ")");
  }
  check_cuda(cudaSetDevice(ordinal), "cudaSetDevice");
}

DeviceBuffer DeviceBuffer::allocate(std::size_t bytes) {
  DeviceBuffer buffer;
  if (cuda_device_count() == 0) throw ToolError("no CUDA device is available on this machine");
  check_cuda(cudaMalloc(&buffer.data_, bytes), ("cudaMalloc of " + std::to_string(bytes) + " bytes").c_str());
  buffer.bytes_ = bytes;
  return buffer;
}

DeviceBuffer::~DeviceBuffer() {
  if (data_) cudaFree(data_);
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  check_cuda(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  check_cuda(cudaMemcpy(host, data_, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
}

Stopwatch::Stopwatch(bool on_device) : on_device_(on_device) {
  if (!on_device_) return;
  cudaEvent_t start = nullptr, stop = nullptr;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  start_event_ = start;
  stop_event_ = stop;
}

Stopwatch::~Stopwatch() {
  if (start_event_) cudaEventDestroy(static_cast<cudaEvent_t>(start_event_));
  if (stop_event_) cudaEventDestroy(static_cast<cudaEvent_t>(stop_event_));
}

void Stopwatch::start() {
  if (on_device_) {
    check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(start_event_), nullptr), "cudaEventRecord");
  } else {
    host_start_s_ = host_seconds();
  }
}

double Stopwatch::stop_ms() {
  if (!on_device_) return (host_seconds() - host_start_s_) * kMillisecondsPerSecond;
  auto stop = static_cast<cudaEvent_t>(stop_event_);
  check_cuda(cudaEventRecord(stop, nullptr), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float elapsed_ms = 0.0f;
  check_cuda(cudaEventElapsedTime(&elapsed_ms, static_cast<cudaEvent_t>(start_event_), stop),
             "cudaEventElapsedTime");
  return elapsed_ms;
}

#else  // a build without CUDA: no device, and every device request says why

namespace {
constexpr const char* kNoCuda =
    "this build of fattn has no CUDA support (rebuild with a CUDA toolkit present)";
}

bool cuda_build() { return false; }
int cuda_device_count() { return 0; }
std::string cuda_device_description(int) { return {}; }
void cuda_synchronize() {}
void cuda_set_device(int) { throw ToolError(kNoCuda); }

DeviceBuffer DeviceBuffer::allocate(std::size_t) { throw ToolError(kNoCuda); }
DeviceBuffer::~DeviceBuffer() = default;
void DeviceBuffer::upload(const void*, std::size_t) { throw ToolError(kNoCuda); }
void DeviceBuffer::download(void*, std::size_t) const { throw ToolError(kNoCuda); }

Stopwatch::Stopwatch(bool on_device) : on_device_(on_device) {
  if (on_device_) throw ToolError(kNoCuda);
}
Stopwatch::~Stopwatch() = default;
void Stopwatch::start() { host_start_s_ = host_seconds(); }
double Stopwatch::stop_ms() { return (host_seconds() - host_start_s_) * kMillisecondsPerSecond; }

#endif

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(bytes_, other.bytes_);
  return *this;
}

}  // namespace fattn::cli
