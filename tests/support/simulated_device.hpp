// Device descriptions for the selector tests: select_backend() is pure, so a rule for a GPU
// generation can be checked on any machine (CI has no GPU) by handing it a made-up DeviceInfo.
#pragma once

#include "api/device_query.hpp"

namespace fattn::testing {

constexpr int kHopperComputeCapability = 90;

inline detail::DeviceInfo simulated_hopper() {
  detail::DeviceInfo device;
  device.present = true;
  device.compute_capability = kHopperComputeCapability;
  device.name = "Hopper (simulated)";
  return device;
}

}  // namespace fattn::testing
