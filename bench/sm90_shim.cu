// A C entry point to the sm90 forward kernels alone, for bench/sm90_vs_cudnn.py (ctypes) and
// bench/sm90_memcheck.cu: it lets the kernels be checked and timed beside PyTorch's SDPA in one
// process on the GPU machine without building the whole library. The library's own path to the
// same kernels is fattn::forward with Backend::cuda_sm90.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "api/attention_args.hpp"
#include "kernel_shim_common.hpp"
#include "cuda/sm90/launch.hpp"
#include "cuda/sm90/tile_config.hpp"

namespace {

using fattn::DType;
using fattn::TensorView;
using fattn::detail::AttentionArgs;
using namespace fattn_shim;

// Built with -DFATTN_SHIM_SM90_BUCKET=<64|128|192|256>, the shim calls (and needs the instances
// of) that head-dim bucket only, for a timing shim of one bucket; the others answer Unsupported.
#ifdef FATTN_SHIM_SM90_BUCKET
inline constexpr int kOnlyBucket = FATTN_SHIM_SM90_BUCKET;
#else
inline constexpr int kOnlyBucket = 0;  // every bucket
#endif

template <int kBucket, class Element>
fattn::Status launch_bucket(const AttentionArgs& args) {
  if constexpr (kOnlyBucket == 0 || kOnlyBucket == kBucket) {
    return fattn::detail::sm90::launch_forward<kBucket, Element>(args);
  } else {
    return fattn::Status::Unsupported("this shim was built for one head-dim bucket only");
  }
}

template <class Element>
fattn::Status run_bucket(const AttentionArgs& args) {
  switch (fattn::detail::sm90::head_dim_bucket(args.problem.head_dim)) {
    case 64: return launch_bucket<64, Element>(args);
    case 128: return launch_bucket<128, Element>(args);
    case 192: return launch_bucket<192, Element>(args);
    case 256: return launch_bucket<256, Element>(args);
    default: return fattn::Status::Unsupported("head dim above 256");
  }
}

}  // namespace

// dtype: 0 = float16, 1 = bfloat16. Strides in elements for (batch, seq, head); the last
// dimension is contiguous. lse is (B, Hq, Nq) float32, contiguous. window_left/right < 0 mean
// unbounded; causal forces right = 0. Returns 0 on success, else writes a message to `error`.
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
  const bool bf16 = args.problem.dtype == DType::bfloat16;
  const fattn::Status status = bf16 ? run_bucket<__nv_bfloat16>(args) : run_bucket<__half>(args);
  return finish(status, error, error_bytes);
}
