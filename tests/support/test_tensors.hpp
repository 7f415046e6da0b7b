// Host tensors for tests: fresh random inputs, poisoned outputs, and error measures.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

#include "fattn/fattn.hpp"

namespace fattn::testing {

// A host buffer and a view of it. `padding` extra elements per row of the last dimension
// give a non-packed layout (row stride > head_dim) to exercise strided access.
struct HostTensor {
  std::vector<std::uint8_t> storage;
  TensorView view;

  std::int64_t numel() const { return view.numel(); }
  float at(std::int64_t flat_index) const;  // logical (row-major) index over the shape
  void set(std::int64_t flat_index, float value);
};

HostTensor make_tensor(DType dtype, std::initializer_list<std::int64_t> shape,
                       std::int64_t row_padding = 0);
// Uniform values in [-1, 1) from a generator seeded by the test (never zeros).
void fill_random(HostTensor& tensor, std::mt19937_64& rng, float scale = 1.0f);
// Every element (padding included) set to NaN, so an unwritten output cannot pass.
void poison(HostTensor& tensor);

// ||a - b|| / ||b|| over all logical elements; +inf if a holds a NaN/inf where b does not.
double relative_error(const HostTensor& a, const HostTensor& b);
// True when every logical element is finite (lse may be -inf only where expected).
bool all_finite(const HostTensor& tensor);

// A random attention problem (q, k, v, out, lse) with given sizes, allocated on the host.
struct AttentionTensors {
  HostTensor q, k, v, out, lse;
  AttentionTensors(DType dtype, std::int64_t batch, std::int64_t seqlen_q, std::int64_t seqlen_k,
                   std::int64_t heads_q, std::int64_t heads_kv, std::int64_t head_dim,
                   std::uint64_t seed, std::int64_t row_padding = 0);
};

// Tolerance of a backend's relative error against the float64 reference for a storage dtype.
double tolerance_for(DType dtype);

}  // namespace fattn::testing
