// The sm80 backward's parameter block and its two row passes, which the Hopper backward runs
// too (src/cuda/sm90/backward.cuh):
//   preprocess   D_i = rowsum(dO∘O), LSE in the log2 domain (+inf for fully masked rows, so
//                that P = 2^(S - LSE) is 0 there, never NaN), dQ accumulator zeroed
//   postprocess  dQ = scale · accumulator, converted to the storage type
// Both run at the copy rate (ncu, eleventh session: 2.95 and 3.2 TB/s at D = 128 N = 4k;
// docs/perf-notes.md "Backward v21"), so what is left to gain there is fewer bytes, not a
// better access pattern. Split out of backward_kernel.cuh, which holds the main kernel.
#pragma once

#include <cstdint>

#include "cuda/common/ptx_sm80.cuh"
#include "cuda/sm80/backward_timeline.cuh"
#include "cuda/sm80/forward_kernel.cuh"
#include "cuda/sm80/tile_io.cuh"

namespace fattn::detail::sm80 {

struct BackwardParams {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* out = nullptr;
  const void* dout = nullptr;
  const float* lse = nullptr;  // (batch, heads_q, seqlen_q)
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  Strides q_strides, k_strides, v_strides, out_strides, dout_strides, dq_strides, dk_strides,
      dv_strides;
  float* dq_accum = nullptr;  // (batch, heads_q, seqlen_q, dq_accum_stride), fp32
  // round_up(head_dim, 16): every column a k-step of the dQ product touches exists, so the
  // atomics need no column tests, and each row starts 64-byte aligned (vector reductions).
  // With shifted windows (backward_windows.cuh) the window's width instead, and dQ's column c is
  // the accumulator's column c + s, s the Q row's element offset within its 16-byte word.
  int dq_accum_stride = 0;
  bool dq_accum_shifted = false;
  // FusedDqConversion (backward_tile_config.hpp): the main kernel converts dQ itself
  // (backward_dq_tickets.cuh, its tickets at dq_tickets_of) and no postprocess runs. In the
  // padding after dq_accum_shifted: no other field moves, so the kernels that do not read it
  // keep their SASS (a new field at the end moves the kernels' second parameter).
  bool dq_fused = false;
  int dq_accum_min_width = 0;  // the launcher's: a full-width kernel's rows are kWidth floats
  float* lse_log2 = nullptr;  // (batch, heads_q, rows_rounded): LSE·log2(e), +inf if masked
  float* delta = nullptr;     // (batch, heads_q, rows_rounded): rowsum(dO∘O)
  int* semaphores = nullptr;  // (batch, heads_q, query tiles); deterministic mode only
  int seqlen_q = 0, seqlen_k = 0, heads_q = 0, group_size = 1, head_dim = 0;
  int rows_rounded = 0;       // seqlen_q rounded up to the query tile
  float scale_log2 = 0.0f;    // |scale|·log2(e)
  std::uint32_t sign_flip = 0;
  float scale = 0.0f;         // signed softmax scale, applied to dK and dQ
  int alignment = 16;
  // One past the last byte of q, k, v and dout: shifted windows copy only words inside them.
  const void* q_end = nullptr;
  const void* k_end = nullptr;
  const void* v_end = nullptr;
  const void* dout_end = nullptr;
  FATTN_SM80_BWD_TIMELINE_FIELD  // bench builds only (backward_timeline.cuh)
};

inline constexpr float kLog2eDevice = 1.4426950408889634f;
constexpr float kPositiveInfinity = __builtin_huge_valf();

// The pre- and postprocess walk the query rows of every (batch, head) with a group of threads
// per row, each on one 16-byte chunk (8 elements) of it, so that a row is read with one vector
// load per thread instead of one 2-byte element per lane and loop trip: one warp per row with
// 2-byte loads ran the preprocess at 1.0 TB/s at D = 64 and 2.1 at D = 128 (H100, fattn trace
// of the N = 1k backward: 253 µs and 129 µs, 28 % and 22 % of the backward with the
// postprocess), where its 268 MB of traffic take ~90 µs at the copy rate. Threads per row: the
// row's chunks rounded up to a power of two (D = 64: 8, 128: 16, 256: 32), so that a row's
// group is an aligned part of a warp and reduces with xor shuffles.
inline constexpr int kRowPassThreads = 256;
inline constexpr int kRowChunkElements = 8;  // 16 bytes of 16-bit elements
inline constexpr int kAccumulatorVectorFloats = 4;
constexpr int row_pass_threads_per_row(int head_dim) {
  int threads = 1;
  while (threads * kRowChunkElements < head_dim) threads *= 2;
  return threads;
}

// Eight elements from a 16-byte-aligned address, as floats.
template <class Element>
__device__ __forceinline__ void load_chunk(const Element* source, float (&values)[kRowChunkElements]) {
  const uint4 bits = *reinterpret_cast<const uint4*>(source);
  Element elements[kRowChunkElements];
  __builtin_memcpy(elements, &bits, sizeof(bits));
#pragma unroll
  for (int i = 0; i < kRowChunkElements; ++i) values[i] = ElementTraits<Element>::to_float(elements[i]);
}

// Eight floats of an accumulator row from a 16-byte-aligned address, as two float4 loads;
// kL2Only: ld.global.cg (past L1), for the main kernel's fused conversion
// (backward_dq_tickets.cuh), which reads rows that other SMs reduced into.
template <bool kL2Only = false>
__device__ __forceinline__ void load_accumulator_chunk(const float* source,
                                                       float (&values)[kRowChunkElements]) {
  float4 low, high;
  if constexpr (kL2Only) {
    low = __ldcg(reinterpret_cast<const float4*>(source));
    high = __ldcg(reinterpret_cast<const float4*>(source + kAccumulatorVectorFloats));
  } else {
    low = *reinterpret_cast<const float4*>(source);
    high = *reinterpret_cast<const float4*>(source + kAccumulatorVectorFloats);
  }
  values[0] = low.x;
  values[1] = low.y;
  values[2] = low.z;
  values[3] = low.w;
  values[4] = high.x;
  values[5] = high.y;
  values[6] = high.z;
  values[7] = high.w;
}

// scale · values[0, 8) as eight elements to a 16-byte-aligned address (load_chunk's way back);
// the dQ postprocesses' store (this file's and the Hopper register-order one).
template <class Element>
__device__ __forceinline__ void store_scaled_chunk(Element* destination, const float* values,
                                                   float scale) {
  Element elements[kRowChunkElements];
#pragma unroll
  for (int i = 0; i < kRowChunkElements; ++i) {
    elements[i] = ElementTraits<Element>::from_float(values[i] * scale);
  }
  uint4 bits;
  __builtin_memcpy(&bits, elements, sizeof(bits));
  *reinterpret_cast<uint4*>(destination) = bits;
}

// D_i = rowsum(dO∘O), LSE·log2(e) (+inf for fully masked rows and the padding rows of the last
// query tile, which contribute nothing), and the row's dQ accumulator zeroed. The threads of a
// row run the shuffles together, so no thread leaves before them.
template <class Element>
__global__ void __launch_bounds__(kRowPassThreads)
    backward_preprocess_kernel(const BackwardParams params, int threads_per_row) {
  using Traits = ElementTraits<Element>;
  const int thread_in_row = static_cast<int>(threadIdx.x) % threads_per_row;
  const int row = static_cast<int>(blockIdx.x) * (kRowPassThreads / threads_per_row) +
                  static_cast<int>(threadIdx.x) / threads_per_row;
  const int head = static_cast<int>(blockIdx.y);
  const int batch = static_cast<int>(blockIdx.z);
  const std::int64_t head_index = static_cast<std::int64_t>(batch) * params.heads_q + head;
  const bool real_row = row < params.seqlen_q;
  float sum = 0.0f;
  if (real_row) {
    const auto* o = static_cast<const Element*>(params.out) + batch * params.out_strides.batch +
                    row * params.out_strides.row + head * params.out_strides.head;
    const auto* d_o = static_cast<const Element*>(params.dout) +
                      batch * params.dout_strides.batch + row * params.dout_strides.row +
                      head * params.dout_strides.head;
    const int column0 = thread_in_row * kRowChunkElements;
    if (params.alignment >= kWidest && column0 + kRowChunkElements <= params.head_dim) {
      float o_values[kRowChunkElements], d_o_values[kRowChunkElements];
      load_chunk(o + column0, o_values);
      load_chunk(d_o + column0, d_o_values);
#pragma unroll
      for (int i = 0; i < kRowChunkElements; ++i) sum += o_values[i] * d_o_values[i];
    } else {
      const int column_end = min(column0 + kRowChunkElements, params.head_dim);
      for (int d = column0; d < column_end; ++d) {
        sum += Traits::to_float(o[d]) * Traits::to_float(d_o[d]);
      }
    }
    // dq_accum_stride is a multiple of 16 floats and each row starts 64-byte aligned.
    float4* accumulator = reinterpret_cast<float4*>(
        params.dq_accum + (head_index * params.seqlen_q + row) * params.dq_accum_stride);
    for (int v = thread_in_row; v < params.dq_accum_stride / kAccumulatorVectorFloats;
         v += threads_per_row) {
      accumulator[v] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
  }
  for (int offset = threads_per_row / 2; offset > 0; offset /= 2) {
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  }
  if (thread_in_row == 0 && row < params.rows_rounded) {
    const std::int64_t stat_index = head_index * params.rows_rounded + row;
    if (real_row) {
      const float lse = params.lse[head_index * params.seqlen_q + row];
      params.lse_log2[stat_index] =
          lse == kNegativeInfinity ? kPositiveInfinity : lse * kLog2eDevice;
      params.delta[stat_index] = sum;
    } else {
      params.lse_log2[stat_index] = kPositiveInfinity;
      params.delta[stat_index] = 0.0f;
    }
  }
}

// The postprocess of a shifted-window backward (dq_accum_shifted, backward_windows.cuh): the
// accumulator row holds the row's window, dQ's column c at c + query_shift. Where dQ's row starts
// at Q's shift (Q and dQ of one layout, as autograd gives them), the accumulator's window word w
// is dQ's aligned word w: two float4 loads, and one 16-byte store where the word lies inside the
// row, 16-bit stores of the row's elements in its first and last words (a neighbour's elements
// share them). Elsewhere element by element. Element-by-element everywhere ran the D = 129
// postprocess at 0.42 ms against 0.15 at D = 136 (H100, B = 16, H = 16, N = 2048).
template <class Element>
__device__ __forceinline__ void store_window_dq_row(Element* dq, const float* accumulator,
                                                    int query_shift, int head_dim, float scale,
                                                    int thread_in_row, int threads_per_row) {
  using Traits = ElementTraits<Element>;
  const int dq_shift = element_shift(dq);
  if (dq_shift != query_shift) {
    for (int d = thread_in_row; d < head_dim; d += threads_per_row) {
      dq[d] = Traits::from_float(accumulator[d + query_shift] * scale);
    }
    return;
  }
  const int words = (dq_shift + head_dim + kRowChunkElements - 1) / kRowChunkElements;
  for (int word = thread_in_row; word < words; word += threads_per_row) {
    const float* source = accumulator + word * kRowChunkElements;
    const float4 low = *reinterpret_cast<const float4*>(source);
    const float4 high = *reinterpret_cast<const float4*>(source + kAccumulatorVectorFloats);
    const float values[kRowChunkElements] = {low.x, low.y, low.z, low.w,
                                             high.x, high.y, high.z, high.w};
    const int first = word * kRowChunkElements - dq_shift;  // dQ's column of the word's element 0
    if (first >= 0 && first + kRowChunkElements <= head_dim) {
      store_scaled_chunk(dq + first, values, scale);
    } else {
      for (int e = 0; e < kRowChunkElements; ++e) {
        if (first + e >= 0 && first + e < head_dim) {
          dq[first + e] = Traits::from_float(values[e] * scale);
        }
      }
    }
  }
}

// dQ = scale · accumulator, converted to the storage type: each thread one 16-byte chunk of a
// row (two float4 loads, one 16-byte store) where the output is 16-byte aligned.
template <class Element>
__global__ void __launch_bounds__(kRowPassThreads)
    backward_postprocess_kernel(const BackwardParams params, int threads_per_row) {
  using Traits = ElementTraits<Element>;
  const int thread_in_row = static_cast<int>(threadIdx.x) % threads_per_row;
  const int row = static_cast<int>(blockIdx.x) * (kRowPassThreads / threads_per_row) +
                  static_cast<int>(threadIdx.x) / threads_per_row;
  if (row >= params.seqlen_q) return;
  const int head = static_cast<int>(blockIdx.y);
  const int batch = static_cast<int>(blockIdx.z);
  const std::int64_t head_index = static_cast<std::int64_t>(batch) * params.heads_q + head;
  const float* accumulator =
      params.dq_accum + (head_index * params.seqlen_q + row) * params.dq_accum_stride;
  auto* dq = static_cast<Element*>(params.dq) + batch * params.dq_strides.batch +
             row * params.dq_strides.row + head * params.dq_strides.head;
  const int column0 = thread_in_row * kRowChunkElements;
  if (params.alignment >= kWidest && column0 + kRowChunkElements <= params.head_dim) {
    float values[kRowChunkElements];
    load_accumulator_chunk(accumulator + column0, values);
    store_scaled_chunk(dq + column0, values, params.scale);
  } else if (params.dq_accum_shifted) {
    const int query_shift = element_shift(static_cast<const Element*>(params.q) +
                                          batch * params.q_strides.batch +
                                          row * params.q_strides.row + head * params.q_strides.head);
    store_window_dq_row(dq, accumulator, query_shift, params.head_dim, params.scale,
                        thread_in_row, threads_per_row);
  } else {
    const int column_end = min(column0 + kRowChunkElements, params.head_dim);
    for (int d = column0; d < column_end; ++d) {
      dq[d] = Traits::from_float(accumulator[d] * params.scale);
    }
  }
}

}  // namespace fattn::detail::sm80
