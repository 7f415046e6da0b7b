// bench/sm90_shim.cu's entry point for the 192 bucket alone (D = 129..192, bf16 and fp16), so a
// timing shim needs only the two d192 instantiation TUs. Other head dims return Unsupported.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "api/attention_args.hpp"
#include "kernel_shim_common.hpp"
#include "cuda/sm90/launch.hpp"
#include "cuda/sm90/tile_config.hpp"

using fattn::DType;
using fattn::detail::AttentionArgs;
using namespace fattn_shim;

extern "C" int fattn_sm90_forward(void* q, void* k, void* v, void* out, void* lse, int dtype,
                                  std::int64_t batch, std::int64_t seqlen_q, std::int64_t seqlen_k,
                                  std::int64_t heads_q, std::int64_t heads_kv, std::int64_t head_dim,
                                  const std::int64_t* q_strides, const std::int64_t* k_strides,
                                  const std::int64_t* v_strides, const std::int64_t* out_strides,
                                  float scale, int causal, int window_left, int window_right,
                                  void* stream, char* error, int error_bytes) {
  const AttentionArgs args = forward_args(q, k, v, out, lse, dtype, batch, seqlen_q, seqlen_k,
                                          heads_q, heads_kv, head_dim, q_strides, k_strides,
                                          v_strides, out_strides, scale, causal, window_left,
                                          window_right, stream);
  fattn::Status status = fattn::Status::Unsupported("the d192 shim has D = 129..192 only");
  if (fattn::detail::sm90::head_dim_bucket(args.problem.head_dim) == 192) {
    status = args.problem.dtype == DType::bfloat16
                 ? fattn::detail::sm90::launch_forward<192, __nv_bfloat16>(args)
                 : fattn::detail::sm90::launch_forward<192, __half>(args);
  }
  return finish(status, error, error_bytes);
}
