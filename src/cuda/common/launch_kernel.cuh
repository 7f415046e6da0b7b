// The launch every family's main kernels share: dynamic shared memory above the default 48 KiB
// must be opted into per kernel (cudaFuncSetAttribute) before the launch; then launch
// configuration errors are checked and the launch is counted in the caller's RunStats.
#pragma once

#include <cuda_runtime.h>

#include "api/attention_args.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/common/shared_memory_limit.hpp"
#include "cuda/common/stream.hpp"

namespace fattn::detail {

// `name` is what an error message calls the kernel ("sm80::forward_kernel").
template <class... KernelParams, class... Args>
Status launch_with_shared_memory(void (*kernel)(KernelParams...), const char* name, dim3 grid,
                                 dim3 block, int shared_bytes, const AttentionArgs& args,
                                 const Args&... kernel_args) {
  FATTN_RETURN_IF_ERROR(require_shared_bytes(args, shared_bytes, name));
  FATTN_CUDA_TRY(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  kernel<<<grid, block, shared_bytes, stream_of(args)>>>(kernel_args...);
  FATTN_CUDA_TRY_LAUNCH(name);
  count_launches(args);
  return Status::Ok();
}

}  // namespace fattn::detail
