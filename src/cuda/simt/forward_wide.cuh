// CUDA-core (SIMT) flash forward with 8-row register tiles: the variant for the head-dim bucket 128
// and, in fp32 storage on sm_90, 64.
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
// single stage to fit: V(t) is requested as soon as P·V(t-1) has finished and lands while S(t)
// and its softmax are computed, which is as much overlap as a second stage would give.
// D = 64: K has one stage too (101 KB), so that two blocks share an SM.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/simt/forward_params.cuh"
#include "cuda/simt/tile_ops.cuh"

namespace fattn::detail::simt {

// Which (head-dim bucket, storage) instances run the wide kernel (H100 measurements in
// docs/perf-notes.md):
//   128          one block per SM; 39 % -> 49-50 % of the fp32 FMA peak over the 64-row kernel.
//   64, fp32     two blocks per SM (one K stage, 101 KB, 128 registers). With two K stages
//                (121 KB, one block per SM) it was 1-7 % slower than the 64-row kernel.
//   64, 16-bit   no: the synchronous convert-on-load needs registers that 128 do not leave
//                (ptxas spills 80-120 bytes), and one block per SM was slower (above).
//   32, 256      no: too few output columns to gain; a 128-row Q tile at 256 needs 390 KB.
// At 64 the wide kernel only pays with two blocks per SM, which needs the shared memory of an
// sm_90 SM (228 KB; sm_80 has 164 KB, sm_86/89 100 KB, where one 101 KB block would not even
// launch): launch_forward checks the device and otherwise runs the 64-row kernel.
template <int kHeadDim, class Element>
inline constexpr bool kUseWideForward =
    kHeadDim == 128 || (kHeadDim == 64 && std::is_same_v<Element, float>);

// The register budget the kernel is compiled for follows kBlocksPerSm only where two blocks can
// be resident (sm_90); for the other archs' machine code 128 registers would force spills for a
// second block that never fits.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
inline constexpr bool kArchFitsTwoWideBlocks = false;
#else
inline constexpr bool kArchFitsTwoWideBlocks = true;
#endif

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
__global__ void __launch_bounds__(kThreads,
                                  kArchFitsTwoWideBlocks ? WideForwardTiles<kHeadDim>::kBlocksPerSm : 1)
    wide_forward_kernel(const ForwardParams<Element> p) {
  using T = WideForwardTiles<kHeadDim>;
  constexpr int kRows = T::kRows, kCols = T::kCols, kOut = kOutColumns<kHeadDim>;
  extern __shared__ float4 shared_storage[];
  float* q_tile = reinterpret_cast<float*>(shared_storage);
  float* k_tiles = q_tile + T::kQFloats;
  float* v_tile = k_tiles + T::kKStages * T::kKVFloats;
  float* p_tile = v_tile + T::kKVFloats;

  const int tx = threadIdx.x % kThreadsX, ty = threadIdx.x / kThreadsX;
  // Under a causal/window mask later query tiles see more keys: start them first.
  const ForwardBlock block = forward_block(p.longest_first);
  const int q_block = block.q_block, h = block.h, b = block.b, h_kv = h / p.group_size;
  const int row0 = q_block * T::kBlockRows;
  const int row_end = min(row0 + T::kBlockRows, p.seqlen_q);
  const int key_begin = p.mask.key_begin(row0);
  const int key_end = p.mask.key_end(row_end);
  const auto [first_tile, end_tile] = tiles_covering(key_begin, key_end, T::kBlockCols);

  zero_padding_columns<kHeadDim>(q_tile, T::kBlockRows, p.head_dim);
  for (int s = 0; s < T::kKStages + 1; ++s) {
    zero_padding_columns<kHeadDim>(k_tiles + s * T::kKVFloats, T::kBlockCols, p.head_dim);
  }
  __syncthreads();

  auto load_k = [&](int tile, int stage) {
    load_key_tile<kHeadDim, T::kBlockCols>(k_tiles + stage * T::kKVFloats, p.k, p, b, h_kv, tile);
  };
  auto load_v = [&](int tile) {
    load_key_tile<kHeadDim, T::kBlockCols>(v_tile, p.v, p, b, h_kv, tile);
  };
  // cp.async groups, oldest first. Two K stages: {Q, K(first)}, then per tile {V(t)}, {K(t+1)}.
  // One K stage: {Q, K(first)}, {V(first)}, then per tile {K(t+1)}, {V(t+1)}. Every commit
  // happens whether or not it copied anything, so the wait counts below hold on the last tile.
  load_tile<kHeadDim>(q_tile, T::kBlockRows, p.q, b, h, row0, p.seqlen_q, p.head_dim, p.vectors_ok);
  if (first_tile < end_tile) load_k(first_tile, 0);
  cp_async_commit();
  if constexpr (T::kKStages == 1) {
    if (first_tile < end_tile) load_v(first_tile);
    cp_async_commit();
  }

  float o[kRows][kOut];
  float m[kRows], l[kRows];
  start_online_softmax(o, m, l);

  // Two K stages (one block per SM, so every barrier drain idles the SM): two barriers per
  // tile. The top one also ends P·V(t - 1), so V and P are free and V(t) is requested right
  // after it, landing while S(t) and its softmax run; K(t + 1) goes to the stage S(t - 1) read.
  // The middle one publishes P(t) and V(t).
  // One K stage (two blocks per SM): K(t + 1) can only be requested once S(t) is done (after the
  // middle barrier) and V(t + 1) once P·V(t) is (after a third barrier at the end of the tile);
  // issuing V(t) at the top instead made ptxas spill at its 128-register limit.
  for (int tile = first_tile; tile < end_tile; ++tile) {
    const int stage = (tile - first_tile) % T::kKStages;
    if constexpr (T::kKStages == 2) {
      cp_async_wait<0>();  // K(tile) has landed (and everything before it)
      __syncthreads();
      load_v(tile);
      cp_async_commit();
      if (tile + 1 < end_tile) load_k(tile + 1, stage ^ 1);
      cp_async_commit();
    } else {
      cp_async_wait<1>();  // K(tile) has landed; V(tile) may still be in flight
      __syncthreads();
    }

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
    if constexpr (T::kKStages == 2) {
      cp_async_wait<1>();  // V(tile) has landed; K(tile + 1) may still be in flight
    } else {
      cp_async_wait<0>();  // V(tile) has landed
    }
    __syncthreads();
    if constexpr (T::kKStages == 1) {
      if (tile + 1 < end_tile) load_k(tile + 1, 0);
      cp_async_commit();
    }
    product_ptv<kRows, T::kBlockCols, kHeadDim, T::kPStride, T::kRowStride>(
        o, p_tile + ty * kRows, v_tile, tx);
    if constexpr (T::kKStages == 1) {
      __syncthreads();  // V and P are free for the next tile
      if (tile + 1 < end_tile) load_v(tile + 1);
      cp_async_commit();
    }
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
