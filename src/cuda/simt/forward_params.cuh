// The arguments of the simt forward kernels (forward.cuh, forward_wide.cuh).
#pragma once

#include "common/mask.hpp"
#include "cuda/common/device_tensor.hpp"

namespace fattn::detail::simt {

template <class Element>
struct ForwardParams {
  DeviceTensor<const Element> q, k, v;
  DeviceTensor<Element> out;
  float* lse;  // (batch, heads_q, seqlen_q), contiguous
  int seqlen_q, seqlen_k, heads_q, group_size, head_dim;
  float scale_log2;  // softmax scale · log2(e)
  WindowMask mask;
  bool vectors_ok;     // every pointer and row stride is 16-byte aligned
  bool longest_first;  // grid order of forward_block (tile_ops.cuh)
};

}  // namespace fattn::detail::simt
