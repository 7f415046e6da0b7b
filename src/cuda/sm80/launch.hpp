// Declarations of the sm80 family's launchers (host-compilable). The generated instantiation
// files (src/cuda/instantiations/sm80_*.cu) define one <head-dim bucket, element> pair each;
// the registry in src/cuda/common/instances.cu calls them through launch_instance().
#pragma once

#include "api/attention_args.hpp"

namespace fattn::detail::sm80 {

// kHeadDim is the bucket: the launcher accepts every head_dim <= kHeadDim.
template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs& args);

template <int kHeadDim, class Element>
Status launch_backward(const AttentionArgs& args);

}  // namespace fattn::detail::sm80
