// The sm90 family's launch template, one explicit instantiation per (head-dim bucket, element)
// in src/cuda/instantiations/sm90_{fwd,bwd}_*.cu. Host-compilable: the instance registry includes it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "api/attention_args.hpp"

namespace fattn::detail::sm90 {

// kHeadDim is the bucket (64, 128, 192, 256): any head_dim <= kHeadDim runs, the head dimension
// being zero-padded in shared memory by TMA. Element is __half or __nv_bfloat16.
template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs& args);

// The backward (backward.cuh): buckets 64, 128 and 256 (tools/codegen lists them); head dims
// 129..256 run the 256 bucket (backward_kernel_wide.cuh), the columns past D zero-filled by TMA.
template <int kHeadDim, class Element>
Status launch_backward(const AttentionArgs& args);

}  // namespace fattn::detail::sm90
