// Turning CUDA runtime and cuBLAS errors into fattn::Status. Every runtime call and every kernel
// launch in the CUDA layer goes through these, so a failure surfaces as Status::DeviceError
// naming the call and the runtime's own message instead of a silent wrong result.
//
//   FATTN_CUDA_TRY(cudaMemsetAsync(ptr, 0, bytes, stream));   // returns on error
//   my_kernel<<<grid, block, smem, stream>>>(...);
//   FATTN_CUDA_TRY_LAUNCH("my_kernel");                        // launch-configuration errors
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "fattn/types.hpp"

namespace fattn::detail {

inline Status cuda_status(cudaError_t error, const char* call) {
  if (error == cudaSuccess) return Status::Ok();
  return Status::DeviceError(std::string(call) + " failed: " + cudaGetErrorName(error) + " (" +
                             cudaGetErrorString(error) + ")");
}

inline Status cublas_status(cublasStatus_t error, const char* call) {
  if (error == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  return Status::DeviceError(std::string(call) + " failed: " + cublasGetStatusName(error) + " (" +
                             cublasGetStatusString(error) + ")");
}

// After a <<<...>>> launch: configuration errors (too much shared memory, bad grid) are reported
// by cudaGetLastError. Execution errors surface at the next synchronizing call of the caller.
inline Status launch_status(const char* kernel_name) {
  return cuda_status(cudaGetLastError(), kernel_name);
}

}  // namespace fattn::detail

// Forwards a non-ok Status from a helper.
#define FATTN_RETURN_IF_ERROR(expr)                                 \
  do {                                                              \
    if (::fattn::Status fattn_status_ = (expr); !fattn_status_.ok()) \
      return fattn_status_;                                         \
  } while (false)

#define FATTN_CUDA_TRY(call) FATTN_RETURN_IF_ERROR(::fattn::detail::cuda_status((call), #call))
#define FATTN_CUBLAS_TRY(call) FATTN_RETURN_IF_ERROR(::fattn::detail::cublas_status((call), #call))
#define FATTN_CUDA_TRY_LAUNCH(kernel_name) \
  FATTN_RETURN_IF_ERROR(::fattn::detail::launch_status(kernel_name))
