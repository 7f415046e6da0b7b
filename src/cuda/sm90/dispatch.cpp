// Entry point of the cuda_sm90 backend: pick the compiled instance for the problem's head dim
// and dtype (see src/cuda/common/instances.hpp) and run it on the tensors' device.
#include "api/backends.hpp"
#include "cuda/common/instances.hpp"
#include "cuda/common/stream.hpp"

namespace fattn::detail {

Status cuda_sm90_forward(const AttentionArgs& args) {
  ScopedDevice device(args.problem.device.index);
  return launch_instance(KernelFamily::sm90, args);
}

Status cuda_sm90_backward(const AttentionArgs& args) {
  ScopedDevice device(args.problem.device.index);
  return launch_instance(KernelFamily::sm90, args);
}

}  // namespace fattn::detail
