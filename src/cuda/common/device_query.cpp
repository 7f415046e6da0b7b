// Device facts for the selector and validation, from the CUDA runtime. Safe on a machine with
// the toolkit but no GPU or driver (CI): every query then reports "no device" instead of failing.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "api/device_query.hpp"

namespace fattn::detail {
namespace {

constexpr int kCapabilityDigitsPerMajor = 10;  // compute capability 9.0 -> 90

// Device properties do not change while a process runs; cudaGetDeviceProperties is slow enough
// (it fills a large struct) that supports() should not pay it on every call.
struct DeviceCache {
  std::mutex mutex;
  bool counted = false;
  int device_count = 0;
  std::map<int, DeviceInfo> devices;
  std::map<int, int> shared_bytes_caps;  // cap_shared_bytes_per_block
};

DeviceCache& cache() {
  static DeviceCache instance;
  return instance;
}

// Number of usable devices; 0 without a driver or GPU. The failed query's error is cleared so
// that it cannot surface later as the "last error" of an unrelated kernel launch.
int device_count_locked(DeviceCache& c) {
  if (!c.counted) {
    if (cudaGetDeviceCount(&c.device_count) != cudaSuccess) {
      c.device_count = 0;
      cudaGetLastError();
    }
    c.counted = true;
  }
  return c.device_count;
}

const char* memory_kind(cudaMemoryType type) {
  switch (type) {
    case cudaMemoryTypeHost: return "pinned host memory";
    case cudaMemoryTypeDevice: return "device memory";
    case cudaMemoryTypeManaged: return "managed memory";
    default: return "pageable host memory";
  }
}

}  // namespace

DeviceInfo query_cuda_device(int ordinal) {
  DeviceCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (ordinal < 0 || ordinal >= device_count_locked(c)) return {};
  auto it = c.devices.find(ordinal);
  if (it == c.devices.end()) {
    DeviceInfo info;
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, ordinal) == cudaSuccess) {
      info.present = true;
      info.compute_capability = properties.major * kCapabilityDigitsPerMajor + properties.minor;
      info.shared_bytes_per_block = static_cast<int>(properties.sharedMemPerBlockOptin);
      info.name = properties.name;
    } else {
      cudaGetLastError();
    }
    it = c.devices.emplace(ordinal, info).first;
  }
  DeviceInfo info = it->second;
  if (auto cap = c.shared_bytes_caps.find(ordinal); cap != c.shared_bytes_caps.end()) {
    info.shared_bytes_per_block = std::min(info.shared_bytes_per_block, cap->second);
  }
  return info;
}

void cap_shared_bytes_per_block(int ordinal, int bytes) {
  DeviceCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (bytes > 0) {
    c.shared_bytes_caps[ordinal] = bytes;
  } else {
    c.shared_bytes_caps.erase(ordinal);
  }
}

Status verify_pointer_location(const TensorView& tensor, const char* argument) {
  int devices = 0;
  {
    DeviceCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    devices = device_count_locked(c);
  }
  const bool claims_cuda = tensor.device.type == DeviceType::cuda;
  if (devices == 0) {
    // Without a device no pointer can be device memory: CPU tensors are fine as they are.
    if (!claims_cuda) return Status::Ok();
    return Status::InvalidArgument(std::string(argument) + ": is a CUDA tensor on " +
                                   to_string(tensor.device) +
                                   ", but no CUDA device is available (no GPU or no driver)");
  }
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, tensor.data) != cudaSuccess) {
    cudaGetLastError();
    attributes.type = cudaMemoryTypeUnregistered;
  }
  const bool on_device =
      attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  if (claims_cuda) {
    if (!on_device) {
      return Status::InvalidArgument(std::string(argument) + ": is declared on " +
                                     to_string(tensor.device) + ", but its data pointer is " +
                                     memory_kind(attributes.type));
    }
    if (attributes.type == cudaMemoryTypeDevice && attributes.device != tensor.device.index) {
      return Status::InvalidArgument(std::string(argument) + ": is declared on " +
                                     to_string(tensor.device) + ", but its memory is on " +
                                     to_string(Device::cuda(attributes.device)));
    }
    return Status::Ok();
  }
  if (attributes.type == cudaMemoryTypeDevice) {
    return Status::InvalidArgument(std::string(argument) +
                                   ": is declared as a CPU tensor, but its data pointer is device "
                                   "memory on " + to_string(Device::cuda(attributes.device)));
  }
  return Status::Ok();
}

}  // namespace fattn::detail
