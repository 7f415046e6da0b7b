// Device descriptions for the selector tests: select_backend() is pure, so a rule for a GPU
// generation can be checked on any machine (CI has no GPU) by handing it a made-up DeviceInfo.
#pragma once

#include "api/device_query.hpp"

namespace fattn::testing {

constexpr int kHopperComputeCapability = 90;
constexpr int kA100ComputeCapability = 80;
constexpr int kAdaComputeCapability = 89;  // an RTX 40xx / L4 / L40: 99 KB per block

inline detail::DeviceInfo simulated_device(int compute_capability, int shared_bytes_per_block,
                                           const char* name) {
  detail::DeviceInfo device;
  device.present = true;
  device.compute_capability = compute_capability;
  device.shared_bytes_per_block = shared_bytes_per_block;
  device.name = name;
  return device;
}

inline detail::DeviceInfo simulated_hopper() {
  return simulated_device(kHopperComputeCapability, detail::kHopperSharedBytesPerBlock,
                          "Hopper (simulated)");
}
inline detail::DeviceInfo simulated_a100() {
  return simulated_device(kA100ComputeCapability, detail::kA100SharedBytesPerBlock,
                          "A100 (simulated)");
}
inline detail::DeviceInfo simulated_ada() {
  return simulated_device(kAdaComputeCapability, detail::kConsumerAmpereSharedBytesPerBlock,
                          "Ada (simulated)");
}

}  // namespace fattn::testing
