// The argument plumbing shared by the ctypes shims of single kernel families (bench/sm80_shim.cu,
// bench/sm90_shim.cu): they turn the flat C arguments of the Python benches into the
// AttentionArgs the launch templates take. Views are filled in by hand so that a shim needs none
// of the library's object files.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "api/attention_args.hpp"

namespace fattn_shim {

using fattn::DType;
using fattn::TensorView;
using fattn::detail::AttentionArgs;

inline constexpr std::size_t kWidestVector = 16;

// A (batch, seq, head, head_dim) view; strides in elements for the first three dimensions, the
// last one contiguous.
inline TensorView view4(void* data, DType dtype, std::int64_t b, std::int64_t s, std::int64_t h,
                        std::int64_t d, const std::int64_t* strides) {
  TensorView view;
  view.data = data;
  view.dtype = dtype;
  view.device = fattn::Device::cuda(0);
  view.rank = 4;
  view.shape = {b, s, h, d};
  view.stride = {strides[0], strides[1], strides[2], 1};
  return view;
}

// The (batch, heads_q, seqlen_q) float32 log-sum-exp, contiguous.
inline TensorView lse_view(void* data, std::int64_t b, std::int64_t h, std::int64_t s) {
  TensorView view;
  view.data = data;
  view.dtype = DType::float32;
  view.device = fattn::Device::cuda(0);
  view.rank = 3;
  view.shape = {b, h, s, 0};
  view.stride = {h * s, s, 1, 0};
  return view;
}

// Same rule as the library's validation: the widest power of two (<= 16 bytes) dividing every
// pointer and every byte stride (of 2-byte elements).
inline std::size_t alignment_of(std::initializer_list<const TensorView*> views) {
  std::size_t alignment = kWidestVector;
  auto limit = [&alignment](std::uint64_t bytes) {
    while (alignment > 1 && bytes % alignment != 0) alignment /= 2;
  };
  for (const TensorView* v : views) {
    if (v->data == nullptr) continue;
    limit(reinterpret_cast<std::uintptr_t>(v->data));
    for (int d = 0; d < 3; ++d) limit(static_cast<std::uint64_t>(v->stride[d]) * 2);
  }
  return alignment;
}

// The problem, scale, mask and stream; window bounds < 0 mean unbounded, causal forces right = 0.
inline void describe(AttentionArgs& args, DType type, std::int64_t batch, std::int64_t seqlen_q,
                     std::int64_t seqlen_k, std::int64_t heads_q, std::int64_t heads_kv,
                     std::int64_t head_dim, float scale, int causal, int left, int right,
                     void* stream) {
  args.problem.batch = batch;
  args.problem.seqlen_q = seqlen_q;
  args.problem.seqlen_k = seqlen_k;
  args.problem.heads_q = heads_q;
  args.problem.heads_kv = heads_kv;
  args.problem.head_dim = head_dim;
  args.problem.dtype = type;
  args.problem.device = fattn::Device::cuda(0);
  args.scale = scale;
  if (causal) right = 0;
  if (left < 0 && right < 0) {
    args.mask = {fattn::detail::MaskKind::none, -1, -1};
  } else if (left < 0 && right == 0) {
    args.mask = {fattn::detail::MaskKind::causal, -1, 0};
  } else {
    args.mask = {fattn::detail::MaskKind::window, left, right};
  }
  args.context.cuda_stream = stream;
}

// The arguments of a forward call as the shims' C entry points receive them: dtype 0 = float16,
// 1 = bfloat16; strides in elements for (batch, seq, head); lse (B, Hq, Nq) float32.
inline AttentionArgs forward_args(void* q, void* k, void* v, void* out, void* lse, int dtype,
                                  std::int64_t batch, std::int64_t seqlen_q, std::int64_t seqlen_k,
                                  std::int64_t heads_q, std::int64_t heads_kv,
                                  std::int64_t head_dim, const std::int64_t* q_strides,
                                  const std::int64_t* k_strides, const std::int64_t* v_strides,
                                  const std::int64_t* out_strides, float scale, int causal,
                                  int window_left, int window_right, void* stream) {
  const DType type = dtype == 1 ? DType::bfloat16 : DType::float16;
  AttentionArgs args;
  describe(args, type, batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim, scale, causal,
           window_left, window_right, stream);
  args.q = view4(q, type, batch, seqlen_q, heads_q, head_dim, q_strides);
  args.k = view4(k, type, batch, seqlen_k, heads_kv, head_dim, k_strides);
  args.v = view4(v, type, batch, seqlen_k, heads_kv, head_dim, v_strides);
  args.out = view4(out, type, batch, seqlen_q, heads_q, head_dim, out_strides);
  args.lse = lse_view(lse, batch, heads_q, seqlen_q);
  args.problem.alignment_bytes = alignment_of({&args.q, &args.k, &args.v, &args.out});
  return args;
}

// The C return convention: 0 on success, else 1 with the message copied into `error`.
inline int finish(const fattn::Status& status, char* error, int error_bytes) {
  if (status.ok()) return 0;
  if (error != nullptr && error_bytes > 0) {
    std::strncpy(error, status.message().c_str(), static_cast<std::size_t>(error_bytes - 1));
    error[error_bytes - 1] = '\0';
  }
  return 1;
}

}  // namespace fattn_shim
