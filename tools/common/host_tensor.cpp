#include "host_tensor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/float_convert.hpp"

namespace fattn::tools {
namespace {

// Slack after the last element: lets a test build a deliberately misaligned view inside the
// buffer without reading past it.
constexpr std::size_t kSlackBytes = 16;

// Offset in elements of the logical (row-major) index `flat` in `view`.
std::int64_t element_offset(const TensorView& view, std::int64_t flat) {
  std::int64_t offset = 0;
  for (int d = view.rank - 1; d >= 0; --d) {
    const std::int64_t extent = view.shape[d];
    offset += (flat % extent) * view.stride[d];
    flat /= extent;
  }
  return offset;
}

}  // namespace

float element_at(const TensorView& view, std::int64_t flat_index) {
  return detail::load_as_float(view.data, view.dtype, element_offset(view, flat_index));
}

float HostTensor::at(std::int64_t flat_index) const { return element_at(view, flat_index); }

void HostTensor::set(std::int64_t flat_index, float value) {
  detail::store_from_float(view.data, view.dtype, element_offset(view, flat_index), value);
}

HostTensor make_tensor(DType dtype, const std::vector<std::int64_t>& dims, std::int64_t row_padding) {
  HostTensor t;
  std::vector<std::int64_t> strides(dims.size());
  std::int64_t stride = 1;
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= dims[d] + (d == static_cast<int>(dims.size()) - 1 ? row_padding : 0);
  }
  // At least one element, so that an empty tensor still has a valid (non-null) pointer.
  const std::int64_t elements = std::max<std::int64_t>(stride, 1);
  t.storage.resize(static_cast<std::size_t>(elements) * size_of(dtype) + kSlackBytes);
  t.view.data = t.storage.data();
  t.view.dtype = dtype;
  t.view.device = Device::cpu();
  t.view.rank = static_cast<int>(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    t.view.shape[d] = dims[d];
    t.view.stride[d] = strides[d];
  }
  return t;
}

HostTensor make_tensor(DType dtype, std::initializer_list<std::int64_t> shape, std::int64_t row_padding) {
  return make_tensor(dtype, std::vector<std::int64_t>(shape), row_padding);
}

void fill_random(HostTensor& tensor, std::mt19937_64& rng, float scale) {
  std::uniform_real_distribution<float> uniform(-scale, scale);
  for (std::int64_t i = 0; i < tensor.numel(); ++i) tensor.set(i, uniform(rng));
}

namespace {

// splitmix64's output function: a bijection of 64-bit words whose outputs for consecutive inputs
// look independent, so element i's bits can come from (key, i) alone: a counter-based generator
// that threads share without a common state.
std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Random bits per value: a float's 24-bit significand holds k / 2^24 exactly.
constexpr int kUnitBits = 24;
constexpr float kUnitStep = 1.0f / static_cast<float>(1u << kUnitBits);

}  // namespace

void fill_random_parallel(HostTensor& tensor, std::uint64_t seed, float scale) {
  const TensorView& view = tensor.view;
  const std::int64_t elements = view.numel();
  if (elements == 0) return;
  const std::int64_t row_length = view.rank > 0 ? view.shape[view.rank - 1] : 1;
  const std::int64_t column_stride = view.rank > 0 ? view.stride[view.rank - 1] : 1;
  const std::int64_t rows = elements / row_length;
  const std::uint64_t key = mix64(seed);
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t first = row * row_length;
    const std::int64_t offset = element_offset(view, first);
    for (std::int64_t column = 0; column < row_length; ++column) {
      const std::uint64_t bits = mix64(key ^ static_cast<std::uint64_t>(first + column));
      const float unit = static_cast<float>(bits >> (64 - kUnitBits)) * kUnitStep;  // [0, 1)
      detail::store_from_float(view.data, view.dtype, offset + column * column_stride,
                               scale * (2.0f * unit - 1.0f));
    }
  }
}

void poison(HostTensor& tensor) {
  const std::size_t elements = (tensor.storage.size() - kSlackBytes) / size_of(tensor.view.dtype);
  for (std::size_t i = 0; i < elements; ++i) {
    detail::store_from_float(tensor.storage.data(), tensor.view.dtype, static_cast<std::int64_t>(i),
                             std::numeric_limits<float>::quiet_NaN());
  }
}

double relative_error(const TensorView& a, const TensorView& b) {
  double diff = 0.0, norm = 0.0;
  for (std::int64_t i = 0; i < b.numel(); ++i) {
    const double x = element_at(a, i), y = element_at(b, i);
    if (std::isinf(y) && x == y) continue;  // matching -inf in lse of fully masked rows
    if (!std::isfinite(x)) return std::numeric_limits<double>::infinity();
    diff += (x - y) * (x - y);
    norm += y * y;
  }
  if (norm == 0.0) return diff == 0.0 ? 0.0 : std::sqrt(diff);
  return std::sqrt(diff / norm);
}

double relative_error(const HostTensor& a, const HostTensor& b) { return relative_error(a.view, b.view); }

bool all_finite(const TensorView& view) {
  for (std::int64_t i = 0; i < view.numel(); ++i) {
    if (!std::isfinite(element_at(view, i))) return false;
  }
  return true;
}

bool all_finite(const HostTensor& tensor) { return all_finite(tensor.view); }

double tolerance_for(DType dtype) {
  // fp32 arithmetic lands far under 1e-5 against fp64; 16-bit storage rounding of the inputs is
  // shared with the reference, but the output's own rounding is ~2^-9 (fp16) / 2^-8 (bf16).
  switch (dtype) {
    case DType::float32:
      return 1e-5;
    case DType::float16:
      return 5e-3;
    case DType::bfloat16:
      return 1e-2;
    default:
      return 0.0;
  }
}

}  // namespace fattn::tools
