// Host tensors shared by the tests and the `fattn` tools: fresh random inputs, poisoned outputs,
// and error measures against the float64 reference. Framework-free and test-framework-free, so
// the CLI can use it without linking GoogleTest.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

#include "fattn/fattn.hpp"

namespace fattn::tools {

// A host buffer and a view of it. `row_padding` extra elements per row of the last dimension
// give a non-packed layout (row stride > head_dim) to exercise strided access.
struct HostTensor {
  std::vector<std::uint8_t> storage;
  TensorView view;

  std::int64_t numel() const { return view.numel(); }
  float at(std::int64_t flat_index) const;  // logical (row-major) index over the shape
  void set(std::int64_t flat_index, float value);
  std::size_t bytes() const { return storage.size(); }
};

HostTensor make_tensor(DType dtype, std::initializer_list<std::int64_t> shape, std::int64_t row_padding = 0);
HostTensor make_tensor(DType dtype, const std::vector<std::int64_t>& shape, std::int64_t row_padding = 0);
// Uniform values in [-scale, scale) from a generator seeded by the caller (never all zeros).
void fill_random(HostTensor& tensor, std::mt19937_64& rng, float scale = 1.0f);
// Uniform values in [-scale, scale) that depend on (seed, logical index) only, filled row by row
// on all cores (OpenMP): the same tensor whatever the thread count. For the `fattn` tools, whose
// inputs are large: at B = 16, N = 2048, H = 16, D = 256 a tensor has 134 M elements, which
// fill_random above takes 2.5 s for on one core, most of a `fattn bench --sweep` process's time.
void fill_random_parallel(HostTensor& tensor, std::uint64_t seed, float scale = 1.0f);
// Every element (padding included) set to NaN, so an unwritten output cannot pass.
void poison(HostTensor& tensor);

// Element `flat_index` (logical, row-major over the shape) of any host view, as float.
float element_at(const TensorView& view, std::int64_t flat_index);

// ||a - b|| / ||b|| over all logical elements; +inf if a holds a NaN/inf where b does not.
// Matching infinities (lse = -inf of fully masked rows) count as equal.
double relative_error(const TensorView& a, const TensorView& b);
double relative_error(const HostTensor& a, const HostTensor& b);
// True when every logical element is finite.
bool all_finite(const TensorView& view);
bool all_finite(const HostTensor& tensor);

// Tolerance of a backend's relative error against the float64 reference for a storage dtype.
double tolerance_for(DType dtype);

}  // namespace fattn::tools
