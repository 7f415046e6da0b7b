// Test tensors: random attention problems on the host, on top of tools/common/host_tensor.hpp.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

#include "fattn/fattn.hpp"
#include "host_tensor.hpp"

namespace fattn::testing {

// The host-tensor helpers live in tools/common (shared with the `fattn` CLI, which must not link
// GoogleTest); tests keep using them under their familiar names.
using tools::all_finite;
using tools::fill_random;
using tools::HostTensor;
using tools::make_tensor;
using tools::poison;
using tools::relative_error;
using tools::tolerance_for;

// A random attention problem (q, k, v, out, lse) with given sizes, allocated on the host.
struct AttentionTensors {
  HostTensor q, k, v, out, lse;
  AttentionTensors(DType dtype, std::int64_t batch, std::int64_t seqlen_q, std::int64_t seqlen_k,
                   std::int64_t heads_q, std::int64_t heads_kv, std::int64_t head_dim,
                   std::uint64_t seed, std::int64_t row_padding = 0);
};

// A NaN-poisoned output of t's shape and dtype (4-D tensors with `row_padding` elements after
// each row), so that an element the backend fails to write cannot pass.
HostTensor poisoned_like(const HostTensor& t, std::int64_t row_padding);

}  // namespace fattn::testing
