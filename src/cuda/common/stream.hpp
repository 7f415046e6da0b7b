// The stream a call runs on, and the bookkeeping every CUDA backend shares (RunStats).
#pragma once

#include <cuda_runtime.h>

#include "api/attention_args.hpp"

namespace fattn::detail {

// ExecutionContext carries the stream as void* so the public API needs no CUDA headers;
// nullptr is the legacy default stream.
inline cudaStream_t stream_of(const ExecutionContext& context) {
  return static_cast<cudaStream_t>(context.cuda_stream);
}
inline cudaStream_t stream_of(const AttentionArgs& args) { return stream_of(args.context); }

// Counts one kernel launch (or library call that launches kernels) in the caller's RunStats.
inline void count_launches(const AttentionArgs& args, int launches = 1) {
  if (args.context.stats) args.context.stats->kernel_launches += launches;
}

// Makes the tensors' device current for the duration of a call and restores the caller's.
class ScopedDevice {
 public:
  explicit ScopedDevice(int ordinal) {
    if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != ordinal) {
      if (cudaSetDevice(ordinal) == cudaSuccess) switched_ = true;
    }
  }
  ~ScopedDevice() {
    if (switched_) cudaSetDevice(previous_);
  }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

}  // namespace fattn::detail
