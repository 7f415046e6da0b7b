// The cuda_sm80 backend's entry points: pick the compiled head-dim bucket (the registry takes
// the smallest bucket >= head_dim among the instances this build kept) and launch it.
#include "api/backends.hpp"
#include "cuda/common/instances.hpp"

namespace fattn::detail {

Status cuda_sm80_forward(const AttentionArgs& args) {
  return launch_instance(KernelFamily::sm80, args);
}

Status cuda_sm80_backward(const AttentionArgs& args) {
  return launch_instance(KernelFamily::sm80, args);
}

}  // namespace fattn::detail
