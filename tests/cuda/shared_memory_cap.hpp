// A test's stand-in for a GPU with less shared memory per block: while a ScopedSharedMemoryCap
// lives, device `ordinal` reports at most `bytes` per block to the selector and to every launcher
// (detail::cap_shared_bytes_per_block), so an H100 runs the tiles and refusals of an
// sm_86 / sm_89 card (99 KB) or an A100 (163 KB). 0 bytes: no cap.
#pragma once

#include "api/device_query.hpp"

namespace fattn::testing {

class ScopedSharedMemoryCap {
 public:
  ScopedSharedMemoryCap(int ordinal, int bytes) : ordinal_(ordinal), active_(bytes > 0) {
    if (active_) detail::cap_shared_bytes_per_block(ordinal_, bytes);
  }
  ~ScopedSharedMemoryCap() {
    if (active_) detail::cap_shared_bytes_per_block(ordinal_, 0);
  }
  ScopedSharedMemoryCap(const ScopedSharedMemoryCap&) = delete;
  ScopedSharedMemoryCap& operator=(const ScopedSharedMemoryCap&) = delete;

 private:
  int ordinal_;
  bool active_;
};

}  // namespace fattn::testing
