#include "cuda/standard/cublas_handle.hpp"

#include <unordered_map>

#include "cuda/common/cuda_check.hpp"

namespace fattn::detail {

Status cublas_handle_for(int device, cudaStream_t stream, cublasHandle_t& handle) {
  thread_local std::unordered_map<int, cublasHandle_t> handles;
  auto it = handles.find(device);
  if (it == handles.end()) {
    cublasHandle_t created = nullptr;
    FATTN_CUBLAS_TRY(cublasCreate(&created));
    it = handles.emplace(device, created).first;
  }
  handle = it->second;
  FATTN_CUBLAS_TRY(cublasSetStream(handle, stream));
  return Status::Ok();
}

}  // namespace fattn::detail
