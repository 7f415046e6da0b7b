// cuda_standard: attention the textbook way, the baseline flash is measured against.
//   forward:  S = Q·Kᵀ (cuBLAS, fp32)  ->  P = softmax(S·scale), lse (kernel)  ->  O = P·V (cuBLAS)
//   backward: S = Q·Kᵀ, dP = dO·Vᵀ (cuBLAS) -> P, dS = P∘(dP − D)·scale (kernel, D = rowsum(dO∘O))
//             -> dV += Pᵀ·dO, dK += dSᵀ·Q (fp32 accumulators), dQ = dS·K (cuBLAS)
// S, P, dP and dS are materialized in device memory: seqlen_q x seqlen_k fp32 per head (plus a
// copy in the input dtype for the 16-bit GEMM operands), for as many heads at a time as fit in a
// fixed budget. That quadratic memory and the extra passes over it are exactly what the flash
// kernels avoid; RunStats reports both (workspace_bytes, kernel_launches).
//
// cuBLAS is column-major: a row-major (rows x cols, leading dimension ld) matrix is its
// transpose in column-major, so each product below is written for the transposes. One (b, h)
// slice of a (batch, seqlen, heads, head_dim) tensor is a row-major (seqlen x head_dim) matrix
// with ld = stride[1]; heads are batched with stride[2]. Under GQA the query heads of one kv
// group share K and V, batched with stride 0 (no copies).
#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>

#include "api/backends.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/common/stream.hpp"
#include "cuda/common/workspace.hpp"
#include "cuda/standard/cublas_handle.hpp"
#include "cuda/standard/standard_kernels.cuh"

namespace fattn::detail {
namespace {

using standard::kRowThreads;
using standard::RowBlock;

// S/P/dP/dS buffers are sized for as many heads as fit here (at least one head).
constexpr std::size_t kScoreBudgetBytes = std::size_t{1} << 30;
constexpr int kElementwiseThreads = 256;

cudaDataType_t cuda_type(DType dtype) {
  switch (dtype) {
    case DType::float16: return CUDA_R_16F;
    case DType::bfloat16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

// A row-major (rows x cols) matrix batch as cuBLAS sees it.
struct Operand {
  const void* data;
  cudaDataType_t type;
  long long ld;
  long long batch_stride;
};

// C = alpha·op(A)·op(B) + beta·C in column-major terms, fp32 accumulation (no TF32: the
// baseline computes what it claims, in full fp32).
Status gemm(cublasHandle_t handle, cublasOperation_t op_a, cublasOperation_t op_b, int m, int n,
            int k, Operand a, Operand b, void* c, cudaDataType_t c_type, long long ldc,
            long long c_stride, int batch, float beta) {
  const float alpha = 1.0f;
  FATTN_CUBLAS_TRY(cublasGemmStridedBatchedEx(handle, op_a, op_b, m, n, k, &alpha, a.data, a.type,
                                              a.ld, a.batch_stride, b.data, b.type, b.ld,
                                              b.batch_stride, &beta, c, c_type, ldc, c_stride,
                                              batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return Status::Ok();
}

// Leading dimension of a (b, h) slice; a single-row slice may have any stride.
long long leading_dimension(const TensorView& t) {
  return t.shape[1] > 1 ? t.stride[1] : std::max<std::int64_t>(t.shape[3], 1);
}

const char* byte_pointer_at(const TensorView& t, std::int64_t b, std::int64_t s, std::int64_t h) {
  return static_cast<const char*>(t.data) +
         (b * t.stride[0] + s * t.stride[1] + h * t.stride[2]) * static_cast<std::int64_t>(size_of(t.dtype));
}

// Query heads are processed in chunks [h0, h0 + count) that never cross a GQA group when groups
// have more than one head (so K/V are shared with batch stride 0) and otherwise may span heads.
struct HeadChunk {
  int h0, count;
};

int heads_per_chunk(const AttentionArgs& args, std::size_t bytes_per_head) {
  const auto fit = static_cast<int>(std::max<std::size_t>(1, kScoreBudgetBytes / std::max<std::size_t>(bytes_per_head, 1)));
  const int limit = args.group_size() > 1 ? args.group_size() : static_cast<int>(args.problem.heads_q);
  return std::min(fit, limit);
}

template <class Body>
Status for_each_chunk(const AttentionArgs& args, int chunk, Body&& body) {
  const int heads = static_cast<int>(args.problem.heads_q), group = args.group_size();
  for (std::int64_t b = 0; b < args.problem.batch; ++b) {
    for (int h0 = 0; h0 < heads;) {
      const int group_end = group > 1 ? (h0 / group + 1) * group : heads;
      const HeadChunk c{h0, std::min(chunk, group_end - h0)};
      FATTN_RETURN_IF_ERROR(body(static_cast<int>(b), c));
      h0 += c.count;
    }
  }
  return Status::Ok();
}

RowBlock row_block(const AttentionArgs& args, int b, const HeadChunk& c) {
  RowBlock r;
  r.b = b;
  r.head0 = c.h0;
  r.heads_q = static_cast<int>(args.problem.heads_q);
  r.seqlen_q = static_cast<int>(args.problem.seqlen_q);
  r.seqlen_k = static_cast<int>(args.problem.seqlen_k);
  r.mask = WindowMask{r.seqlen_q, r.seqlen_k, args.mask.left, args.mask.right};
  return r;
}

unsigned blocks_for(std::int64_t threads) {
  return static_cast<unsigned>((threads + kElementwiseThreads - 1) / kElementwiseThreads);
}

// Writes zeros into every element of a (batch, seqlen, heads, head_dim) tensor, or the rounded
// values of a contiguous fp32 (batch, heads, seqlen, head_dim) buffer.
template <class Element>
Status store_tensor(const AttentionArgs& args, const TensorView& t, const float* values) {
  const std::int64_t total = t.numel();
  if (total == 0) return Status::Ok();
  standard::store_rows<Element><<<blocks_for(total), kElementwiseThreads, 0, stream_of(args)>>>(
      device_tensor<Element>(t), values, static_cast<int>(t.shape[0]), static_cast<int>(t.shape[1]),
      static_cast<int>(t.shape[2]), static_cast<int>(t.shape[3]));
  count_launches(args);
  FATTN_CUDA_TRY_LAUNCH("standard::store_rows");
  return Status::Ok();
}

template <class Element>
Status forward(const AttentionArgs& args) {
  const Problem& pr = args.problem;
  const cudaStream_t stream = stream_of(args);
  if (pr.seqlen_k == 0) {
    FATTN_RETURN_IF_ERROR(store_tensor<Element>(args, args.out, nullptr));
    const std::int64_t count = args.lse.numel();
    standard::fill_minus_infinity<<<blocks_for(count), kElementwiseThreads, 0, stream>>>(
        static_cast<float*>(args.lse.data), count);
    count_launches(args);
    FATTN_CUDA_TRY_LAUNCH("standard::fill_minus_infinity");
    return Status::Ok();
  }
  constexpr bool kSeparateP = !std::is_same_v<Element, float>;  // 16-bit P for the P·V GEMM
  const std::size_t scores = static_cast<std::size_t>(pr.seqlen_q * pr.seqlen_k);
  const std::size_t per_head = scores * (sizeof(float) + (kSeparateP ? sizeof(Element) : 0));
  const int chunk = heads_per_chunk(args, per_head);

  Workspace s_buffer(args), p_buffer(args);
  FATTN_RETURN_IF_ERROR(s_buffer.allocate(scores * chunk * sizeof(float)));
  if (kSeparateP) FATTN_RETURN_IF_ERROR(p_buffer.allocate(scores * chunk * sizeof(Element)));
  float* s = s_buffer.as<float>();
  Element* p = kSeparateP ? p_buffer.as<Element>() : reinterpret_cast<Element*>(s);

  cublasHandle_t handle;
  FATTN_RETURN_IF_ERROR(cublas_handle_for(pr.device.index, stream, handle));
  const cudaDataType_t type = cuda_type(pr.dtype);
  const int nq = static_cast<int>(pr.seqlen_q), nk = static_cast<int>(pr.seqlen_k);
  const int d = static_cast<int>(pr.head_dim);
  const bool shared_kv = args.group_size() > 1;
  const long long k_stride = shared_kv ? 0 : args.k.stride[2];
  const long long v_stride = shared_kv ? 0 : args.v.stride[2];
  const long long score_stride = static_cast<long long>(scores);
  const float scale_log2 = args.scale * standard::kLog2e;

  return for_each_chunk(args, chunk, [&](int b, const HeadChunk& c) -> Status {
    const int kv_head = c.h0 / args.group_size();
    // Sᵀ (nk x nq, column-major) = K (viewed as Kᵀ, transposed back) · Qᵀ.
    FATTN_RETURN_IF_ERROR(gemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, nk, nq, d,
                               {byte_pointer_at(args.k, b, 0, kv_head), type, leading_dimension(args.k), k_stride},
                               {byte_pointer_at(args.q, b, 0, c.h0), type, leading_dimension(args.q), args.q.stride[2]},
                               s, CUDA_R_32F, nk, score_stride, c.count, 0.0f));
    count_launches(args);
    standard::softmax_forward<Element><<<c.count * nq, kRowThreads, 0, stream>>>(
        s, p, static_cast<float*>(args.lse.data), row_block(args, b, c), scale_log2);
    count_launches(args);
    FATTN_CUDA_TRY_LAUNCH("standard::softmax_forward");
    // Oᵀ (d x nq) = Vᵀ · Pᵀ.
    FATTN_RETURN_IF_ERROR(gemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, d, nq, nk,
                               {byte_pointer_at(args.v, b, 0, kv_head), type, leading_dimension(args.v), v_stride},
                               {p, type, nk, score_stride},
                               const_cast<char*>(byte_pointer_at(args.out, b, 0, c.h0)), type,
                               leading_dimension(args.out), args.out.stride[2], c.count, 0.0f));
    count_launches(args);
    return Status::Ok();
  });
}

template <class Element>
Status backward(const AttentionArgs& args) {
  const Problem& pr = args.problem;
  const cudaStream_t stream = stream_of(args);
  const std::int64_t nq64 = pr.seqlen_q, nk64 = pr.seqlen_k;
  if (nk64 == 0) return store_tensor<Element>(args, args.dq, nullptr);
  if (nq64 == 0) {
    FATTN_RETURN_IF_ERROR(store_tensor<Element>(args, args.dk, nullptr));
    return store_tensor<Element>(args, args.dv, nullptr);
  }
  constexpr bool kSeparate = !std::is_same_v<Element, float>;
  const std::size_t scores = static_cast<std::size_t>(nq64 * nk64);
  const std::size_t per_head = scores * (2 * sizeof(float) + (kSeparate ? 2 * sizeof(Element) : 0));
  const int chunk = heads_per_chunk(args, per_head);
  const std::int64_t kv_elements = pr.batch * pr.heads_kv * nk64 * pr.head_dim;
  const std::int64_t stat_rows = pr.batch * pr.heads_q * nq64;

  Workspace s_buffer(args), dp_buffer(args), p_buffer(args), ds_buffer(args);
  Workspace dk_buffer(args), dv_buffer(args), delta_buffer(args);
  FATTN_RETURN_IF_ERROR(s_buffer.allocate(scores * chunk * sizeof(float)));
  FATTN_RETURN_IF_ERROR(dp_buffer.allocate(scores * chunk * sizeof(float)));
  if (kSeparate) {
    FATTN_RETURN_IF_ERROR(p_buffer.allocate(scores * chunk * sizeof(Element)));
    FATTN_RETURN_IF_ERROR(ds_buffer.allocate(scores * chunk * sizeof(Element)));
  }
  FATTN_RETURN_IF_ERROR(dk_buffer.allocate(kv_elements * sizeof(float)));
  FATTN_RETURN_IF_ERROR(dv_buffer.allocate(kv_elements * sizeof(float)));
  FATTN_RETURN_IF_ERROR(delta_buffer.allocate(stat_rows * sizeof(float)));
  float* s = s_buffer.as<float>();
  float* dp = dp_buffer.as<float>();
  Element* p = kSeparate ? p_buffer.as<Element>() : reinterpret_cast<Element*>(s);
  Element* ds = kSeparate ? ds_buffer.as<Element>() : reinterpret_cast<Element*>(dp);
  float* dk_acc = dk_buffer.as<float>();
  float* dv_acc = dv_buffer.as<float>();
  float* delta = delta_buffer.as<float>();

  // dK, dV accumulate over the query heads of each group (beta = 1 after zeroing).
  FATTN_CUDA_TRY(cudaMemsetAsync(dk_acc, 0, kv_elements * sizeof(float), stream));
  FATTN_CUDA_TRY(cudaMemsetAsync(dv_acc, 0, kv_elements * sizeof(float), stream));
  standard::row_dot<Element><<<blocks_for(stat_rows * standard::kWarp), kElementwiseThreads, 0, stream>>>(
      device_tensor<const Element>(args.out), device_tensor<const Element>(args.dout), delta,
      static_cast<int>(pr.batch), static_cast<int>(pr.heads_q), static_cast<int>(nq64),
      static_cast<int>(pr.head_dim));
  count_launches(args);
  FATTN_CUDA_TRY_LAUNCH("standard::row_dot");

  cublasHandle_t handle;
  FATTN_RETURN_IF_ERROR(cublas_handle_for(pr.device.index, stream, handle));
  const cudaDataType_t type = cuda_type(pr.dtype);
  const int nq = static_cast<int>(nq64), nk = static_cast<int>(nk64), d = static_cast<int>(pr.head_dim);
  const int group = args.group_size();
  const bool shared_kv = group > 1;
  const long long score_stride = static_cast<long long>(scores);
  const long long kv_slice = nk64 * pr.head_dim;  // one (b, kv head) of the fp32 accumulators

  auto per_chunk = [&](int b, const HeadChunk& c) -> Status {
    const int kv_head = c.h0 / group;
    const Operand k_op{byte_pointer_at(args.k, b, 0, kv_head), type, leading_dimension(args.k), shared_kv ? 0 : args.k.stride[2]};
    const Operand v_op{byte_pointer_at(args.v, b, 0, kv_head), type, leading_dimension(args.v), shared_kv ? 0 : args.v.stride[2]};
    const Operand q_op{byte_pointer_at(args.q, b, 0, c.h0), type, leading_dimension(args.q), args.q.stride[2]};
    const Operand do_op{byte_pointer_at(args.dout, b, 0, c.h0), type, leading_dimension(args.dout), args.dout.stride[2]};
    // Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ (column-major nk x nq).
    FATTN_RETURN_IF_ERROR(gemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, nk, nq, d, k_op, q_op, s, CUDA_R_32F,
                               nk, score_stride, c.count, 0.0f));
    FATTN_RETURN_IF_ERROR(gemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, nk, nq, d, v_op, do_op, dp, CUDA_R_32F,
                               nk, score_stride, c.count, 0.0f));
    count_launches(args, 2);
    standard::softmax_backward<Element><<<c.count * nq, kRowThreads, 0, stream>>>(
        s, dp, p, ds, static_cast<const float*>(args.lse.data), delta, row_block(args, b, c), args.scale);
    count_launches(args);
    FATTN_CUDA_TRY_LAUNCH("standard::softmax_backward");

    // dQᵀ (d x nq) = Kᵀ · dSᵀ.
    FATTN_RETURN_IF_ERROR(gemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, d, nq, nk, k_op, {ds, type, nk, score_stride},
                               const_cast<char*>(byte_pointer_at(args.dq, b, 0, c.h0)), type,
                               leading_dimension(args.dq), args.dq.stride[2], c.count, 0.0f));
    count_launches(args);
    // dVᵀ (d x nk) += dOᵀ · P and dKᵀ += Qᵀ · dS. Heads of one group add into the same
    // accumulator, which a batched GEMM must not do: they go one GEMM per head.
    float* dk_slice = dk_acc + (static_cast<std::int64_t>(b) * pr.heads_kv + kv_head) * kv_slice;
    float* dv_slice = dv_acc + (static_cast<std::int64_t>(b) * pr.heads_kv + kv_head) * kv_slice;
    const int batched = shared_kv ? 1 : c.count;
    const long long acc_stride = shared_kv ? 0 : kv_slice;
    for (int first = 0; first < c.count; first += batched) {
      const long long head_offset = first;
      const Operand do_h{static_cast<const char*>(do_op.data) + head_offset * args.dout.stride[2] * size_of(pr.dtype), type, do_op.ld, do_op.batch_stride};
      const Operand q_h{static_cast<const char*>(q_op.data) + head_offset * args.q.stride[2] * size_of(pr.dtype), type, q_op.ld, q_op.batch_stride};
      const Operand p_h{p + head_offset * score_stride, type, nk, score_stride};
      const Operand ds_h{ds + head_offset * score_stride, type, nk, score_stride};
      FATTN_RETURN_IF_ERROR(gemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, d, nk, nq, do_h, p_h, dv_slice + (shared_kv ? 0 : first * kv_slice),
                                 CUDA_R_32F, d, acc_stride, batched, 1.0f));
      FATTN_RETURN_IF_ERROR(gemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, d, nk, nq, q_h, ds_h, dk_slice + (shared_kv ? 0 : first * kv_slice),
                                 CUDA_R_32F, d, acc_stride, batched, 1.0f));
      count_launches(args, 2);
    }
    return Status::Ok();
  };
  FATTN_RETURN_IF_ERROR(for_each_chunk(args, chunk, per_chunk));
  FATTN_RETURN_IF_ERROR(store_tensor<Element>(args, args.dk, dk_acc));
  return store_tensor<Element>(args, args.dv, dv_acc);
}

template <template <class> class Body>
Status dispatch_dtype(const AttentionArgs& args) {
  ScopedDevice device(args.problem.device.index);
  switch (args.problem.dtype) {
    case DType::float32: return Body<float>::run(args);
    case DType::float16: return Body<__half>::run(args);
    case DType::bfloat16: return Body<__nv_bfloat16>::run(args);
    default: return Status::Unsupported(std::string("cuda_standard does not take ") + to_string(args.problem.dtype));
  }
}

template <class Element>
struct Forward {
  static Status run(const AttentionArgs& args) { return forward<Element>(args); }
};
template <class Element>
struct Backward {
  static Status run(const AttentionArgs& args) { return backward<Element>(args); }
};

}  // namespace

Status cuda_standard_forward(const AttentionArgs& args) { return dispatch_dtype<Forward>(args); }
Status cuda_standard_backward(const AttentionArgs& args) { return dispatch_dtype<Backward>(args); }

}  // namespace fattn::detail
