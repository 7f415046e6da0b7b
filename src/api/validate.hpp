// Validation of every public entry point, before anything runs. Each failure names the argument,
// what was expected and what was given. Nothing is written to any output on failure.
#pragma once

#include "fattn/fattn.hpp"

namespace fattn::detail {

Status validate_forward(const TensorView& q, const TensorView& k, const TensorView& v,
                        const TensorView& out, const TensorView& lse, const Options& options);

Status validate_backward(const TensorView& q, const TensorView& k, const TensorView& v,
                         const TensorView& out, const TensorView& dout, const TensorView& lse,
                         const TensorView& dq, const TensorView& dk, const TensorView& dv,
                         const Options& options);

// Largest power of two (capped at 16) dividing the tensor's address and its row strides in
// bytes: what vector width a kernel may use on it.
std::size_t vector_alignment_bytes(const TensorView& tensor);

}  // namespace fattn::detail
