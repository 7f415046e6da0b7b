// Definition of sm80::launch_forward (included by the generated instantiation files).
#pragma once

#include <cuda_runtime.h>

#include <cmath>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/launch_kernel.cuh"
#include "cuda/common/stream.hpp"
#include "cuda/sm80/forward_kernel.cuh"
#include "cuda/sm80/launch.hpp"
#include "cuda/sm80/mask_kind.hpp"

namespace fattn::detail::sm80 {

inline Strides strides_of(const TensorView& view) {
  return {view.stride[0], view.stride[1], view.stride[2]};
}

inline constexpr float kLog2e = 1.4426950408889634f;

// Any tile configuration; launch_forward uses the table's. bench/sm80_shim.cu also runs
// alternatives through this to measure the table's choices against them.
template <class Config, class Element>
Status launch_forward_with(const AttentionArgs& args) {
  const Problem& problem = args.problem;
  ScopedDevice device(problem.device.index);

  ForwardParams params;
  params.q = args.q.data;
  params.k = args.k.data;
  params.v = args.v.data;
  params.out = args.out.data;
  params.lse = static_cast<float*>(args.lse.data);
  params.q_strides = strides_of(args.q);
  params.k_strides = strides_of(args.k);
  params.v_strides = strides_of(args.v);
  params.out_strides = strides_of(args.out);
  params.seqlen_q = static_cast<int>(problem.seqlen_q);
  params.seqlen_k = static_cast<int>(problem.seqlen_k);
  params.heads_q = static_cast<int>(problem.heads_q);
  params.group_size = args.group_size();
  params.head_dim = static_cast<int>(problem.head_dim);
  params.scale_log2 = std::fabs(args.scale) * kLog2e;
  params.sign_flip = args.scale < 0.0f ? kNegatePair : 0u;
  params.alignment = static_cast<int>(problem.alignment_bytes);

  if (problem.seqlen_q == 0 || problem.batch == 0 || problem.heads_q == 0) return Status::Ok();
  const dim3 grid((params.seqlen_q + Config::kBlockM - 1) / Config::kBlockM,
                  static_cast<unsigned>(problem.heads_q), static_cast<unsigned>(problem.batch));
  return with_kernel_mask(args, [&](auto mask) -> Status {
    return launch_with_shared_memory(&forward_kernel<Config, Element, decltype(mask)>,
                                     "sm80::forward_kernel", grid, Config::kThreads,
                                     Config::kSharedBytes, args, params, mask);
  });
}

template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs& args) {
  return launch_forward_with<ForwardConfig<kHeadDim>, Element>(args);
}

}  // namespace fattn::detail::sm80
