// Scratch memory of the CPU backends: 64-byte aligned float buffers whose sizes are added up by
// a meter, so that RunStats::workspace_bytes reports what a call really allocated (flash: tiles
// and per-head packed operands, O(N); standard: the materialized N×N matrices).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <utility>

#include "fattn/fattn.hpp"

namespace fattn::detail {

// One cache line; also the width of the widest vector (AVX-512) the kernels are compiled for.
inline constexpr std::size_t kBufferAlignmentBytes = 64;

// Running and peak total of the scratch bytes held by one call.
class WorkspaceMeter {
 public:
  void add(std::size_t bytes) {
    current_ += bytes;
    if (current_ > peak_) peak_ = current_;
  }
  void remove(std::size_t bytes) { current_ -= bytes; }
  std::size_t peak() const { return peak_; }

 private:
  std::size_t current_ = 0;
  std::size_t peak_ = 0;
};

// An owning, aligned array of floats (uninitialized). Empty when the allocation failed:
// callers check ok() and turn a failure into a Status instead of crashing. Allocated on the
// calling thread only (the meter is not thread-safe on purpose: buffers are sized up front).
class FloatBuffer {
 public:
  FloatBuffer() = default;
  FloatBuffer(std::size_t count, WorkspaceMeter& meter) : meter_(&meter) {
    if (count == 0) return;
    const std::size_t bytes = round_up(count * sizeof(float));
    if (bytes / sizeof(float) < count) return;  // size overflow
    data_ = static_cast<float*>(std::aligned_alloc(kBufferAlignmentBytes, bytes));
    if (data_ != nullptr) {
      bytes_ = bytes;
      meter.add(bytes);
    }
  }
  FloatBuffer(const FloatBuffer&) = delete;
  FloatBuffer& operator=(const FloatBuffer&) = delete;
  FloatBuffer(FloatBuffer&& other) noexcept { swap(other); }
  FloatBuffer& operator=(FloatBuffer&& other) noexcept {
    FloatBuffer moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~FloatBuffer() {
    if (data_ != nullptr) {
      std::free(data_);
      meter_->remove(bytes_);
    }
  }

  // True when the requested size was 0 or the allocation succeeded.
  bool ok(std::size_t requested) const { return requested == 0 || data_ != nullptr; }
  float* data() const { return data_; }

 private:
  static std::size_t round_up(std::size_t bytes) {
    return (bytes + kBufferAlignmentBytes - 1) / kBufferAlignmentBytes * kBufferAlignmentBytes;
  }
  void swap(FloatBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    std::swap(meter_, other.meter_);
  }

  float* data_ = nullptr;
  std::size_t bytes_ = 0;
  WorkspaceMeter* meter_ = nullptr;
};

// "cpu_standard could not allocate 1.00 GiB for the score matrix (...)".
inline Status allocation_failure(const char* backend, const char* what, std::size_t floats) {
  constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
  const double gib = static_cast<double>(floats) * sizeof(float) / kBytesPerGiB;
  std::string amount = std::to_string(gib);
  amount.resize(amount.find('.') + 3);
  return Status::Unsupported(std::string(backend) + " could not allocate " + amount + " GiB for " +
                             what + "; reduce batch, heads or sequence length" +
                             (std::string(backend) == "cpu_standard"
                                  ? ", or use cpu_flash, which needs O(N) memory"
                                  : ""));
}

}  // namespace fattn::detail
