// Basic vocabulary of the public API: element types, devices, tensor views, status.
// Framework-free on purpose: no torch, no CUDA headers. Bindings translate into these.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace fattn {

// Element types. float8_e4m3 is reserved for the fp8 kernels; no backend accepts it yet.
enum class DType : std::uint8_t { float32, float16, bfloat16, float8_e4m3 };

const char* to_string(DType dtype);
std::size_t size_of(DType dtype);

enum class DeviceType : std::uint8_t { cpu, cuda };

struct Device {
  DeviceType type = DeviceType::cpu;
  int index = 0;  // CUDA ordinal; ignored for the CPU

  static Device cpu() { return {DeviceType::cpu, 0}; }
  static Device cuda(int ordinal = 0) { return {DeviceType::cuda, ordinal}; }
  friend bool operator==(const Device& a, const Device& b) {
    return a.type == b.type && (a.type == DeviceType::cpu || a.index == b.index);
  }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }
};

std::string to_string(const Device& device);

inline constexpr int kMaxRank = 4;

// A non-owning view of a strided tensor. Strides are counted in elements, not bytes.
// Attention tensors use flash_attn's layout (batch, seqlen, heads, head_dim) with any
// strides on the first three dimensions and a contiguous last dimension.
// The log-sum-exp tensor is (batch, heads_q, seqlen_q), float32.
struct TensorView {
  void* data = nullptr;
  DType dtype = DType::float32;
  Device device{};
  int rank = 0;
  std::array<std::int64_t, kMaxRank> shape{};
  std::array<std::int64_t, kMaxRank> stride{};

  // A densely packed (row-major) view of `shape`.
  static TensorView contiguous(void* data, DType dtype, Device device,
                               std::initializer_list<std::int64_t> shape);
  // A view with explicit strides (in elements); `strides` must have as many entries as `shape`.
  static TensorView strided(void* data, DType dtype, Device device,
                            std::initializer_list<std::int64_t> shape,
                            std::initializer_list<std::int64_t> strides);

  std::int64_t numel() const;
  bool empty() const { return numel() == 0; }
  // "(2, 128, 8, 64)" — used in error messages.
  std::string shape_string() const;
};

enum class StatusCode : std::uint8_t {
  ok,
  invalid_argument,  // the caller passed something wrong; the message says what
  unsupported,       // valid, but no compiled backend can run it; the message says why
  device_error,      // the CUDA runtime or a library reported an error
  internal,          // a bug in fattn
};

const char* to_string(StatusCode code);

// Result of every public entry point. On anything but ok, outputs were not written.
class Status {
 public:
  Status() = default;
  static Status Ok() { return {}; }
  static Status InvalidArgument(std::string message) {
    return Status(StatusCode::invalid_argument, std::move(message));
  }
  static Status Unsupported(std::string message) {
    return Status(StatusCode::unsupported, std::move(message));
  }
  static Status DeviceError(std::string message) {
    return Status(StatusCode::device_error, std::move(message));
  }
  static Status Internal(std::string message) {
    return Status(StatusCode::internal, std::move(message));
  }

  bool ok() const { return code_ == StatusCode::ok; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  StatusCode code_ = StatusCode::ok;
  std::string message_;
};

}  // namespace fattn
