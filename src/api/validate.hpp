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

// Largest power of two (capped at 16) dividing the tensor's sequence and batch strides in bytes,
// where its heads lie side by side inside each sequence row (the span from the pointer's 16-byte
// word to the last head's last element fits in the row stride); else 1 (Problem's
// row_alignment_bytes).
std::size_t row_alignment_bytes(const TensorView& tensor);

// Whether every query head starts at the same offset within a 16-byte word as the key head it
// reads (GQA: query head h reads key head h / (Hq / Hkv)). A kernel that loads each head from
// the 16-byte word holding its first element (cuda_sm90's forward, heads as columns) finds a
// query row's and its key rows' columns at the same shift, so Q·Kᵀ needs no realignment.
bool head_phases_agree(const TensorView& q, const TensorView& k);

}  // namespace fattn::detail
