// One cuBLAS handle per (thread, device), created on first use and kept for the process.
//
// Per thread because a cuBLAS handle must not be used by two threads at once (the stream it is
// bound to is handle state); per device because a handle belongs to the device that was current
// when it was created. The handles are deliberately never destroyed: destroying them from a
// static destructor can run after the CUDA runtime has torn down its contexts.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "fattn/types.hpp"

namespace fattn::detail {

// The calling thread's handle for `device` (which must be current), bound to `stream`.
Status cublas_handle_for(int device, cudaStream_t stream, cublasHandle_t& handle);

}  // namespace fattn::detail
