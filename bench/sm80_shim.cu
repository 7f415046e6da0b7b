// C entry points to the sm80 forward and backward kernels alone, for bench/sm80_vs_torch.py
// (ctypes): the kernels are checked against a torch reference and timed beside PyTorch's SDPA
// backends in one process on the GPU machine, without building the whole library. They call
// exactly the launch templates that the library's cuda_sm80 backend runs (one bucket per head
// dim, as the registry picks them). Build: nvcc -shared (see the script's docstring).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "api/attention_args.hpp"
#include "kernel_shim_common.hpp"
#include "cuda/sm80/launch.hpp"

namespace fattn_sm80_bench {
// Alternative forward tile configurations (bench/sm80_variants.cu), bf16 only.
fattn::Status forward_variant(const fattn::detail::AttentionArgs& args, int bucket, int variant);
// Alternative backward tile configurations (bench/sm80_bwd_variants.cu), bf16 only.
fattn::Status backward_variant(const fattn::detail::AttentionArgs& args, int bucket, int variant);
}  // namespace fattn_sm80_bench

namespace {

using fattn::DType;
using fattn::TensorView;
using fattn::detail::AttentionArgs;
using namespace fattn_shim;

constexpr std::int64_t kBuckets[] = {64, 128, 192, 256};
int forward_variant = 0;  // 0: the tile table; else an alternative of bench/sm80_variants.cu
int backward_variant = 0;  // 0: the tile table; else an alternative of bench/sm80_bwd_variants.cu

template <class Element>
fattn::Status run(const AttentionArgs& args, bool backward) {
  namespace sm80 = fattn::detail::sm80;
  const std::int64_t d = args.problem.head_dim;
  const std::int64_t bucket = *std::find_if(std::begin(kBuckets), std::end(kBuckets),
                                            [d](std::int64_t b) { return b >= d; });
  if (!backward && forward_variant != 0) {
    if constexpr (std::is_same_v<Element, __nv_bfloat16>) {
      return fattn_sm80_bench::forward_variant(args, static_cast<int>(bucket), forward_variant);
    }
    return fattn::Status::Unsupported("forward variants are built for bf16 only");
  }
  if (backward && backward_variant != 0) {
    if constexpr (std::is_same_v<Element, __nv_bfloat16>) {
      return fattn_sm80_bench::backward_variant(args, static_cast<int>(bucket), backward_variant);
    }
    return fattn::Status::Unsupported("backward variants are built for bf16 only");
  }
  switch (bucket) {
    case 64: return backward ? sm80::launch_backward<64, Element>(args) : sm80::launch_forward<64, Element>(args);
    case 128: return backward ? sm80::launch_backward<128, Element>(args) : sm80::launch_forward<128, Element>(args);
    case 192: return backward ? sm80::launch_backward<192, Element>(args) : sm80::launch_forward<192, Element>(args);
    default: return backward ? sm80::launch_backward<256, Element>(args) : sm80::launch_forward<256, Element>(args);
  }
}

}  // namespace

// Selects the forward tile configuration of later calls: 0 = the table of tile_config.hpp.
extern "C" void fattn_sm80_set_forward_variant(int variant) { forward_variant = variant; }
// The same for the backward: 0 = the table's BackwardConfig.
extern "C" void fattn_sm80_set_backward_variant(int variant) { backward_variant = variant; }

// dtype: 0 = float16, 1 = bfloat16. Strides in elements for (batch, seq, head); the last
// dimension is contiguous. lse is (B, Hq, Nq) float32, contiguous. window_left/right < 0 mean
// unbounded; causal forces right = 0. Returns 0 on success, else writes a message to `error`.
extern "C" int fattn_sm80_forward(void* q, void* k, void* v, void* out, void* lse, int dtype,
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
  const fattn::Status status = bf16 ? run<__nv_bfloat16>(args, false) : run<__half>(args, false);
  return finish(status, error, error_bytes);
}

// strides: 9 groups of 3 (q, k, v, out, dout, dq, dk, dv) — 8 used, in that order.
extern "C" int fattn_sm80_backward(void* q, void* k, void* v, void* out, void* dout, void* lse,
                                   void* dq, void* dk, void* dv, int dtype, std::int64_t batch,
                                   std::int64_t seqlen_q, std::int64_t seqlen_k,
                                   std::int64_t heads_q, std::int64_t heads_kv,
                                   std::int64_t head_dim, const std::int64_t* strides, float scale,
                                   int causal, int window_left, int window_right,
                                   int deterministic, void* stream, char* error, int error_bytes) {
  const DType type = dtype == 1 ? DType::bfloat16 : DType::float16;
  AttentionArgs args;
  describe(args, type, batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim, scale, causal,
           window_left, window_right, stream);
  args.problem.direction = fattn::Direction::backward;
  args.problem.options.deterministic = deterministic != 0;
  args.q = view4(q, type, batch, seqlen_q, heads_q, head_dim, strides + 0);
  args.k = view4(k, type, batch, seqlen_k, heads_kv, head_dim, strides + 3);
  args.v = view4(v, type, batch, seqlen_k, heads_kv, head_dim, strides + 6);
  args.out = view4(out, type, batch, seqlen_q, heads_q, head_dim, strides + 9);
  args.dout = view4(dout, type, batch, seqlen_q, heads_q, head_dim, strides + 12);
  args.dq = view4(dq, type, batch, seqlen_q, heads_q, head_dim, strides + 15);
  args.dk = view4(dk, type, batch, seqlen_k, heads_kv, head_dim, strides + 18);
  args.dv = view4(dv, type, batch, seqlen_k, heads_kv, head_dim, strides + 21);
  args.lse = lse_view(lse, batch, heads_q, seqlen_q);
  args.problem.alignment_bytes = alignment_of(
      {&args.q, &args.k, &args.v, &args.out, &args.dout, &args.dq, &args.dk, &args.dv});
  const fattn::Status status = type == DType::bfloat16 ? run<__nv_bfloat16>(args, true)
                                                       : run<__half>(args, true);
  return finish(status, error, error_bytes);
}
