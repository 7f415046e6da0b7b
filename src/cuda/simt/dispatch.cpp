// Entry points of the cuda_simt backend: pick the compiled instance for the problem's head dim
// and dtype (see src/cuda/common/instances.hpp) and run it on the tensors' device.
#include "api/backends.hpp"
#include "cuda/common/instances.hpp"
#include "cuda/common/stream.hpp"

namespace fattn::detail {

Status cuda_simt_forward(const AttentionArgs& args) {
  ScopedDevice device(args.problem.device.index);
  return launch_instance(KernelFamily::simt, args);
}

Status cuda_simt_backward(const AttentionArgs& args) {
  ScopedDevice device(args.problem.device.index);
  return launch_instance(KernelFamily::simt, args);
}

}  // namespace fattn::detail
