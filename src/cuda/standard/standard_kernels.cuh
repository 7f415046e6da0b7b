// The element-wise and row-wise kernels between the cuBLAS GEMMs of standard attention.
// S and dP arrive as fp32 row-major (rows x seqlen_k) matrices, one per query head of a chunk.
#pragma once

#include <cuda_runtime.h>

#include "common/mask.hpp"
#include "cuda/common/device_tensor.hpp"
#include "cuda/common/element.cuh"

namespace fattn::detail::standard {

inline constexpr int kRowThreads = 256;
inline constexpr int kWarp = 32;
inline constexpr float kLog2e = 1.4426950408889634f;
inline constexpr float kLn2 = 0.6931471805599453f;

// Which rows of S a launch covers: heads [head0, head0 + heads) of batch b, all seqlen_q rows.
struct RowBlock {
  int b = 0;
  int head0 = 0;
  int heads_q = 0;  // total query heads (lse layout)
  int seqlen_q = 0;
  int seqlen_k = 0;
  WindowMask mask;

  __device__ std::int64_t lse_index(int local_row) const {
    const int head = head0 + local_row / seqlen_q;
    return (static_cast<std::int64_t>(b) * heads_q + head) * seqlen_q + local_row % seqlen_q;
  }
};

// Combines two online-softmax states (max m, sum l of exp2(x - m)).
__device__ __forceinline__ void combine(float& m, float& l, float m_other, float l_other) {
  const float m_new = fmaxf(m, m_other);
  if (m_new == -INFINITY) return;
  l = l * exp2f(m - m_new) + l_other * exp2f(m_other - m_new);
  m = m_new;
}

// P = softmax(S·scale) over the visible keys of each row, written as PElement (in place when
// PElement is float and p aliases s); lse per row. One block per row.
template <class PElement>
__global__ void __launch_bounds__(kRowThreads) softmax_forward(const float* s, PElement* p, float* lse,
                                                               RowBlock rows, float scale_log2) {
  __shared__ float shared_m[kRowThreads / kWarp], shared_l[kRowThreads / kWarp];
  const int local_row = blockIdx.x;
  const int row = local_row % rows.seqlen_q;
  const std::int64_t base = static_cast<std::int64_t>(local_row) * rows.seqlen_k;
  const int begin = rows.mask.key_begin(row), end = rows.mask.key_end(row + 1);

  float m = -INFINITY, l = 0.0f;
  for (int col = begin + threadIdx.x; col < end; col += kRowThreads) {
    combine(m, l, s[base + col] * scale_log2, 1.0f);
  }
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    const float m_other = __shfl_xor_sync(0xffffffffu, m, offset);
    const float l_other = __shfl_xor_sync(0xffffffffu, l, offset);
    combine(m, l, m_other, l_other);
  }
  if (threadIdx.x % kWarp == 0) shared_m[threadIdx.x / kWarp] = m, shared_l[threadIdx.x / kWarp] = l;
  __syncthreads();
  m = shared_m[0], l = shared_l[0];
  for (int w = 1; w < kRowThreads / kWarp; ++w) combine(m, l, shared_m[w], shared_l[w]);

  const float inverse = l > 0.0f ? 1.0f / l : 0.0f;
  for (int col = threadIdx.x; col < rows.seqlen_k; col += kRowThreads) {
    const bool visible = col >= begin && col < end;
    const float value = visible ? exp2f(s[base + col] * scale_log2 - m) * inverse : 0.0f;
    p[base + col] = from_float<PElement>(value);
  }
  if (threadIdx.x == 0) lse[rows.lse_index(local_row)] = l > 0.0f ? (m + log2f(l)) * kLn2 : -INFINITY;
}

// Backward: from S and dP (fp32), P = exp(S·scale − lse) and dS = P∘(dP − D)·scale, written as
// GEMM operands of type OElement (in place when OElement is float: p_out aliases s, ds_out
// aliases dp). One block per row.
template <class OElement>
__global__ void __launch_bounds__(kRowThreads) softmax_backward(const float* s, const float* dp,
                                                                OElement* p_out, OElement* ds_out,
                                                                const float* lse, const float* delta,
                                                                RowBlock rows, float scale) {
  const int local_row = blockIdx.x;
  const int row = local_row % rows.seqlen_q;
  const std::int64_t base = static_cast<std::int64_t>(local_row) * rows.seqlen_k;
  const int begin = rows.mask.key_begin(row), end = rows.mask.key_end(row + 1);
  const std::int64_t stat = rows.lse_index(local_row);
  const float lse2 = lse[stat] * kLog2e, d = delta[stat];
  const float scale_log2 = scale * kLog2e;
  for (int col = threadIdx.x; col < rows.seqlen_k; col += kRowThreads) {
    const bool visible = col >= begin && col < end && lse2 != -INFINITY;
    const float p = visible ? exp2f(s[base + col] * scale_log2 - lse2) : 0.0f;
    const float ds = p * (dp[base + col] - d) * scale;
    p_out[base + col] = from_float<OElement>(p);
    ds_out[base + col] = from_float<OElement>(ds);
  }
}

// D_i = rowsum(dO ∘ O), one warp per (b, h, row); layout like lse.
template <class Element>
__global__ void row_dot(DeviceTensor<const Element> out, DeviceTensor<const Element> dout, float* delta,
                        int batch, int heads, int seqlen, int head_dim) {
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (warp >= static_cast<std::int64_t>(batch) * heads * seqlen) return;
  const int row = static_cast<int>(warp % seqlen);
  const int h = static_cast<int>((warp / seqlen) % heads);
  const int b = static_cast<int>(warp / (static_cast<std::int64_t>(seqlen) * heads));
  const Element* o = out.row(b, row, h);
  const Element* g = dout.row(b, row, h);
  float sum = 0.0f;
  for (int dcol = lane; dcol < head_dim; dcol += kWarp) sum += to_float(o[dcol]) * to_float(g[dcol]);
  for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0) delta[warp] = sum;
}

// dst[b, s, h, :] = src (contiguous fp32 (batch, heads, seqlen, head_dim)) rounded to Element;
// with src == nullptr, zeros. One thread per element.
template <class Element>
__global__ void store_rows(DeviceTensor<Element> dst, const float* src, int batch, int seqlen,
                           int heads, int head_dim) {
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t total = static_cast<std::int64_t>(batch) * heads * seqlen * head_dim;
  if (index >= total) return;
  const int d = static_cast<int>(index % head_dim);
  const int s = static_cast<int>((index / head_dim) % seqlen);
  const int h = static_cast<int>((index / (static_cast<std::int64_t>(head_dim) * seqlen)) % heads);
  const int b = static_cast<int>(index / (static_cast<std::int64_t>(head_dim) * seqlen * heads));
  dst.row(b, s, h)[d] = from_float<Element>(src ? src[index] : 0.0f);
}

// lse = -inf for a whole (batch, heads, seqlen) tensor (seqlen_k = 0).
__global__ void fill_minus_infinity(float* lse, std::int64_t count) {
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index < count) lse[index] = -INFINITY;
}

}  // namespace fattn::detail::standard
