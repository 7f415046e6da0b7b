// The simt family's launch templates, one explicit instantiation per (head-dim bucket, element)
// in src/cuda/instantiations/simt_*.cu. Host-compilable: the instance registry includes it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "api/attention_args.hpp"

namespace fattn::detail::simt {

// kHeadDim is the bucket: any head_dim <= kHeadDim runs (the head dimension is zero-padded in
// shared memory). Element is float, __half or __nv_bfloat16; arithmetic is fp32 throughout.
template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs& args);

template <int kHeadDim, class Element>
Status launch_backward(const AttentionArgs& args);

}  // namespace fattn::detail::simt
