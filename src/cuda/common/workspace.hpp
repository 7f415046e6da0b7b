// Stream-ordered scratch memory for one call. Allocated with cudaMallocAsync on the call's
// stream and freed with cudaFreeAsync on the same stream when the owner goes out of scope, so
// the memory is reused by the pool without a device synchronization and is never freed while a
// kernel queued before the free could still read it.
//
//   Workspace scratch(args);
//   FATTN_RETURN_IF_ERROR(scratch.allocate(bytes));
//   float* buffer = scratch.as<float>();
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/stream.hpp"

namespace fattn::detail {

class Workspace {
 public:
  explicit Workspace(const AttentionArgs& args) : stream_(stream_of(args)), stats_(args.context.stats) {}
  ~Workspace() {
    // Errors cannot be reported from a destructor; a failed free also leaves nothing to undo.
    if (data_) cudaFreeAsync(data_, stream_);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // Allocates `bytes` (once per Workspace). Adds them to RunStats::workspace_bytes: the stats
  // report the sum of the workspaces a call held, which is its peak because a call keeps each
  // workspace until it returns.
  Status allocate(std::size_t bytes) {
    if (data_ != nullptr) return Status::Internal("Workspace::allocate called twice");
    if (bytes == 0) return Status::Ok();
    FATTN_CUDA_TRY(cudaMallocAsync(&data_, bytes, stream_));
    bytes_ = bytes;
    if (stats_) stats_->workspace_bytes += bytes;
    return Status::Ok();
  }

  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  cudaStream_t stream_;
  RunStats* stats_;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace fattn::detail
