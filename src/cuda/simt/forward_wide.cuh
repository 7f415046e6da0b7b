// CUDA-core (SIMT) flash forward with 8-row register tiles: the variant for the head-dim bucket 128.
//
// Why a second kernel: the 64-row kernel in forward.cuh gives each thread 4 x 4 of S and
// 4 rows x head_dim/16 of O, so every FMA needs 1/2 (S) or 3/8 (O) of a shared-memory load, and
// the H100 measured 38-43 % of the fp32 FMA peak (docs/perf-notes.md). Here a block of the same
// 16 x 16 threads owns 128 query rows, each thread 8 of them:
//   S = Q·Kᵀ   8 rows x 4 keys per thread: per 4-deep step 8 broadcast + 4 distinct LDS.128
//              feed 128 FFMA (3/8 load per FMA instead of 1/2);
//   O += P·V   P is written transposed (key-major), so per key 2 broadcast LDS.128 of P and
//              head_dim/64 LDS.128 of V feed 8 x head_dim/16 FFMA (1/4 load per FMA at D = 128).
// Thread ty owns query rows ty + 16·i (i < 8): the two half-warps of a warp then read
// neighbouring Q rows (4 banks apart, one wavefront) instead of rows 8 apart (same banks). In the
// transposed P tile the same rows are stored at columns ty·8 + i, so a thread's 8 P values of one
// key are contiguous (two float4 loads); the permutation never leaves shared memory.
//
// Shared memory (D = 128: 198 KB): Q 128 rows, K in two stages, V in one, P transposed. V has a
// single stage to fit: V(t+1) is requested right after P·V(t) finishes and lands while S(t+1) and
// its softmax are computed, which is as much overlap as a second stage would give.
#pragma once

#include <cuda_runtime.h>

#include "cuda/simt/forward_params.cuh"
#include "cuda/simt/tile_ops.cuh"

namespace fattn::detail::simt {

template <int kHeadDim>
struct WideForwardTiles {
  static constexpr int kRows = 8;                               // query rows per thread
  static constexpr int kCols = 4;                               // key columns per thread
  static constexpr int kBlockRows = kRows * kThreadsY;          // 128 query rows per block
  static constexpr int kBlockCols = kCols * kThreadsX;          // 64 keys per tile
  static constexpr int kRowStride = kHeadDim + kPad;            // floats per Q/K/V tile row
  static constexpr int kPStride = kBlockRows + kPad;            // floats per key of the P tile
  static constexpr int kQFloats = kBlockRows * kRowStride;
  static constexpr int kKVFloats = kBlockCols * kRowStride;
  static constexpr int kPFloats = kBlockCols * kPStride;
  static constexpr int kKStages = 2;
  static constexpr size_t kSharedBytes =
      sizeof(float) * (kQFloats + (kKStages + 1) * kKVFloats + kPFloats);
};

// The head-dim buckets that run the wide kernel: only 128. Measured on an H100 (docs/perf-notes.md):
// at 128 it took fp32 from 39 % to 49-50 % of the FMA peak; at 64 it was 1-7 % slower than the
// 64-row kernel, whose 93 KB of shared memory fit two blocks (16 warps) per SM where this one's
// 121 KB fit one, and whose P·V already reads only 3 LDS.128 per 32 FFMA. 32 has too few output
// columns to gain, and 256 would need 390 KB of shared memory for a 128-row Q tile.
template <int kHeadDim>
inline constexpr bool kUseWideForward = kHeadDim == 128;

// acc[i][slot] += sum_k pt[k*kPStride + i] * v[k*kStrideV + out_column(slot)], k < kDepth.
// `pt` points at this thread's first P column (ty·8) of the key-major P tile.
template <int kRows, int kDepth, int kHeadDim, int kPStride, int kStrideV>
__device__ __forceinline__ void product_ptv(float (&acc)[kRows][kOutColumns<kHeadDim>],
                                            const float* pt, const float* v, int tx) {
  constexpr int kVec = kOutVector<kHeadDim>;
  constexpr int kGroups = kOutColumns<kHeadDim> / kVec;
  static_assert(kRows == 8, "a thread's P values of one key are read as two float4");
#pragma unroll 8
  for (int k = 0; k < kDepth; ++k) {
    const float4 lo = *reinterpret_cast<const float4*>(pt + k * kPStride);
    const float4 hi = *reinterpret_cast<const float4*>(pt + k * kPStride + 4);
    const float pk[kRows] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      float vv[kVec];
      load_vector<kVec>(vv, v + k * kStrideV + g * kThreadsX * kVec + tx * kVec);
#pragma unroll
      for (int i = 0; i < kRows; ++i) {
#pragma unroll
        for (int x = 0; x < kVec; ++x) acc[i][g * kVec + x] = fmaf(pk[i], vv[x], acc[i][g * kVec + x]);
      }
    }
  }
}

template <int kHeadDim, class Element>
__global__ void __launch_bounds__(kThreads, 1) wide_forward_kernel(const ForwardParams<Element> p) {
  using T = WideForwardTiles<kHeadDim>;
  constexpr int kRows = T::kRows, kCols = T::kCols, kOut = kOutColumns<kHeadDim>;
  extern __shared__ float4 shared_storage[];
  float* q_tile = reinterpret_cast<float*>(shared_storage);
  float* k_tiles = q_tile + T::kQFloats;
  float* v_tile = k_tiles + T::kKStages * T::kKVFloats;
  float* p_tile = v_tile + T::kKVFloats;

  const int tx = threadIdx.x % kThreadsX, ty = threadIdx.x / kThreadsX;
  // Under a causal/window mask later query tiles see more keys: start them first.
  const int q_block = p.mask.right >= 0 ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int h = blockIdx.y, b = blockIdx.z, h_kv = h / p.group_size;
  const int row0 = q_block * T::kBlockRows;
  const int row_end = min(row0 + T::kBlockRows, p.seqlen_q);
  const int key_begin = p.mask.key_begin(row0);
  const int key_end = p.mask.key_end(row_end);
  const int first_tile = key_begin / T::kBlockCols;
  const int end_tile = key_end > key_begin ? (key_end + T::kBlockCols - 1) / T::kBlockCols : first_tile;

  zero_padding_columns<kHeadDim>(q_tile, T::kBlockRows, p.head_dim);
  for (int s = 0; s < T::kKStages + 1; ++s) {
    zero_padding_columns<kHeadDim>(k_tiles + s * T::kKVFloats, T::kBlockCols, p.head_dim);
  }
  __syncthreads();

  auto load_k = [&](int tile, int stage) {
    load_tile<kHeadDim>(k_tiles + stage * T::kKVFloats, T::kBlockCols, p.k, b, h_kv,
                        tile * T::kBlockCols, p.seqlen_k, p.head_dim, p.vectors_ok);
  };
  auto load_v = [&](int tile) {
    load_tile<kHeadDim>(v_tile, T::kBlockCols, p.v, b, h_kv, tile * T::kBlockCols, p.seqlen_k,
                        p.head_dim, p.vectors_ok);
  };
  // cp.async groups, oldest first: {Q, K(first)}, {V(first)}, then per tile {K(t+1)} and
  // {V(t+1)}. Every commit happens whether or not it copied anything, so the wait counts below
  // hold on the last tile too.
  load_tile<kHeadDim>(q_tile, T::kBlockRows, p.q, b, h, row0, p.seqlen_q, p.head_dim, p.vectors_ok);
  if (first_tile < end_tile) load_k(first_tile, 0);
  cp_async_commit();
  if (first_tile < end_tile) load_v(first_tile);
  cp_async_commit();

  float o[kRows][kOut];
  float m[kRows], l[kRows];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    m[i] = -INFINITY;
    l[i] = 0.0f;
#pragma unroll
    for (int c = 0; c < kOut; ++c) o[i][c] = 0.0f;
  }

  for (int tile = first_tile; tile < end_tile; ++tile) {
    const int stage = (tile - first_tile) & 1;
    if (tile + 1 < end_tile) load_k(tile + 1, stage ^ 1);
    cp_async_commit();
    cp_async_wait<2>();  // K(tile) has landed; V(tile) and K(tile + 1) may still be in flight
    __syncthreads();

    float s[kRows][kCols];
#pragma unroll
    for (int i = 0; i < kRows; ++i)
#pragma unroll
      for (int j = 0; j < kCols; ++j) s[i][j] = 0.0f;
    product_abt<kRows, kCols, kHeadDim, kThreadsY * T::kRowStride, T::kRowStride>(
        s, q_tile + ty * T::kRowStride, k_tiles + stage * T::kKVFloats + tx * T::kRowStride);

    const int key0 = tile * T::kBlockCols;
    const bool needs_mask = key0 + T::kBlockCols > p.seqlen_k ||
                            !p.mask.tile_is_unmasked(row0, row0 + T::kBlockRows, key0, key0 + T::kBlockCols);
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      const int row = row0 + ty + i * kThreadsY;
      float tile_max = -INFINITY;
#pragma unroll
      for (int j = 0; j < kCols; ++j) {
        const int col = key0 + tx + j * kThreadsX;
        const bool hidden = needs_mask && (col >= p.seqlen_k || p.mask.is_masked(row, col));
        s[i][j] = hidden ? -INFINITY : s[i][j] * p.scale_log2;
        tile_max = fmaxf(tile_max, s[i][j]);
      }
      const float m_new = fmaxf(m[i], row_max16(tile_max));
      // A row that has seen no visible key yet keeps m = -inf; use 0 so exp2 gives 0, not NaN.
      const float m_use = m_new == -INFINITY ? 0.0f : m_new;
      const float alpha = fast_exp2(m[i] - m_use);
      m[i] = m_new;
      float row_sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kCols; ++j) {
        s[i][j] = fast_exp2(s[i][j] - m_use);
        row_sum += s[i][j];
      }
      // Each thread keeps the partial sum of its own columns; the 16 partials are added once
      // at the end (alpha scales them all alike).
      l[i] = l[i] * alpha + row_sum;
#pragma unroll
      for (int c = 0; c < kOut; ++c) o[i][c] *= alpha;
    }
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      float* dst = p_tile + (tx + j * kThreadsX) * T::kPStride + ty * kRows;
      *reinterpret_cast<float4*>(dst) = make_float4(s[0][j], s[1][j], s[2][j], s[3][j]);
      *reinterpret_cast<float4*>(dst + 4) = make_float4(s[4][j], s[5][j], s[6][j], s[7][j]);
    }
    cp_async_wait<1>();  // V(tile) has landed; K(tile + 1) may still be in flight
    __syncthreads();
    product_ptv<kRows, T::kBlockCols, kHeadDim, T::kPStride, T::kRowStride>(
        o, p_tile + ty * kRows, v_tile, tx);
    __syncthreads();  // V, P and this K stage are free for the next copies
    if (tile + 1 < end_tile) load_v(tile + 1);
    cp_async_commit();
  }

#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int row = row0 + ty + i * kThreadsY;
    const float total = row_sum16(l[i]);
    if (row >= p.seqlen_q) continue;
    const float inverse = total > 0.0f ? 1.0f / total : 0.0f;
    Element* out_row = p.out.row(b, row, h);
#pragma unroll
    for (int c = 0; c < kOut; ++c) {
      const int col = out_column<kHeadDim>(c, tx);
      if (col < p.head_dim) out_row[col] = from_float<Element>(o[i][c] * inverse);
    }
    if (tx == 0) {
      p.lse[(static_cast<std::int64_t>(b) * p.heads_q + h) * p.seqlen_q + row] =
          total > 0.0f ? (m[i] + __log2f(total)) * kLn2 : -INFINITY;
    }
  }
}

}  // namespace fattn::detail::simt
