// Facts about devices that the selector and validation need. Implemented by the CUDA layer when
// it is compiled in (src/cuda/common/device_query.cpp), else by src/api/device_query_none.cpp.
#pragma once

#include "fattn/fattn.hpp"

namespace fattn::detail {

struct DeviceInfo {
  bool present = false;        // a usable device with this ordinal exists
  int compute_capability = 0;  // 80 for sm_80, 90 for sm_90; 0 when absent
  std::string name;
};

DeviceInfo query_cuda_device(int ordinal);

// Checks that `tensor.data` really lives where `tensor.device` says (a host pointer passed as a
// CUDA tensor, or a device pointer passed as a CPU tensor, is an error naming `argument`).
Status verify_pointer_location(const TensorView& tensor, const char* argument);

}  // namespace fattn::detail
