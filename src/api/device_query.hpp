// Facts about devices that the selector and validation need. Implemented by the CUDA layer when
// it is compiled in (src/cuda/common/device_query.cpp), else by src/api/device_query_none.cpp.
#pragma once

#include "fattn/fattn.hpp"

namespace fattn::detail {

struct DeviceInfo {
  bool present = false;        // a usable device with this ordinal exists
  int compute_capability = 0;  // 80 for sm_80, 90 for sm_90; 0 when absent
  // The most shared memory one block may take (the opt-in limit), or less where a test set a
  // cap (cap_shared_bytes_per_block); 0 when absent.
  int shared_bytes_per_block = 0;
  std::string name;
};

// The opt-in limits on one block's shared memory of the devices the tile tables are sized for.
inline constexpr int kHopperSharedBytesPerBlock = 232448;         // sm_90: 227 KB
inline constexpr int kA100SharedBytesPerBlock = 166912;           // sm_80, sm_87: 163 KB
inline constexpr int kConsumerAmpereSharedBytesPerBlock = 101376;  // sm_86, sm_89: 99 KB

DeviceInfo query_cuda_device(int ordinal);

// Makes device `ordinal` report at most `bytes` of shared memory per block from now on, to the
// selector and to every launcher (0 lifts the cap), so that a test or `fattn bench
// --shared-memory-per-block` on a Hopper or an A100 runs the tiles and the refusals of a device
// with less (an sm_86 / sm_89 card: 99 KB). A no-op in a build without CUDA.
void cap_shared_bytes_per_block(int ordinal, int bytes);

// Checks that `tensor.data` really lives where `tensor.device` says (a host pointer passed as a
// CUDA tensor, or a device pointer passed as a CPU tensor, is an error naming `argument`).
Status verify_pointer_location(const TensorView& tensor, const char* argument);

}  // namespace fattn::detail
