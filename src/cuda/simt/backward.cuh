// CUDA-core (SIMT) flash attention backward, fp32 arithmetic, three launches:
//   1. preprocess  D_i = rowsum(dO ∘ O)                (fp32 workspace, one warp per row)
//   2. dk/dv       one block per key tile of one kv head; K and V tiles resident, Q/dO tiles of
//                  every query head of the GQA group streamed through two shared stages:
//                  Sᵀ = K·Qᵀ, dPᵀ = V·dOᵀ, Pᵀ = exp2(Sᵀ·scale·log2e − lse·log2e),
//                  dSᵀ = Pᵀ∘(dPᵀ − D)·scale, dV += Pᵀ·dO, dK += dSᵀ·Q — kept in registers, and
//                  the GQA reduction over the group happens inside the block.
//   3. dq          one block per query tile, the forward's loop structure: S, dP, dS recomputed,
//                  dQ += dS·K in registers, written once.
// No atomics anywhere: every output element is summed by one thread in a fixed order, so the
// backward is bitwise reproducible whether or not Options::deterministic is set. The price is
// recomputing S and dP in pass 3 (about 40 % more arithmetic than an atomic dQ), accepted for a
// fallback path in exchange for no dQ workspace and no nondeterminism.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/launch_kernel.cuh"
#include "cuda/common/stream.hpp"
#include "cuda/common/workspace.hpp"
#include "cuda/simt/launch.hpp"
#include "cuda/simt/tile_ops.cuh"

namespace fattn::detail::simt {

template <class Element>
struct BackwardParams {
  DeviceTensor<const Element> q, k, v, out, dout;
  DeviceTensor<Element> dq, dk, dv;
  const float* lse;  // (batch, heads_q, seqlen_q)
  float* delta;      // D_i, same layout as lse (workspace)
  int batch, seqlen_q, seqlen_k, heads_q, heads_kv, group_size, head_dim;
  float scale, scale_log2;
  WindowMask mask;
  bool vectors_ok;
};

__device__ __forceinline__ std::int64_t lse_index(int b, int h, int heads_q, int seqlen_q, int row) {
  return (static_cast<std::int64_t>(b) * heads_q + h) * seqlen_q + row;
}

// Pass 1: one warp per (b, h, row).
inline constexpr int kWarp = 32;
inline constexpr int kPreprocessWarps = 8;

template <class Element>
__global__ void __launch_bounds__(kPreprocessWarps * kWarp) preprocess_kernel(const BackwardParams<Element> p) {
  const std::int64_t warp = static_cast<std::int64_t>(blockIdx.x) * kPreprocessWarps + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  const std::int64_t rows = static_cast<std::int64_t>(p.batch) * p.heads_q * p.seqlen_q;
  if (warp >= rows) return;
  const int row = static_cast<int>(warp % p.seqlen_q);
  const int h = static_cast<int>((warp / p.seqlen_q) % p.heads_q);
  const int b = static_cast<int>(warp / (static_cast<std::int64_t>(p.seqlen_q) * p.heads_q));
  const Element* o = p.out.row(b, row, h);
  const Element* d_o = p.dout.row(b, row, h);
  float sum = 0.0f;
  for (int d = lane; d < p.head_dim; d += kWarp) sum += to_float(o[d]) * to_float(d_o[d]);
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0) p.delta[warp] = sum;
}

// Loads lse (in base 2) and D of query rows [row0, row0 + count) into shared memory; rows past
// the end get lse = +inf, so that their P is exactly 0.
template <class Element>
__device__ __forceinline__ void load_row_stats(float* lse2, float* delta, const BackwardParams<Element>& p,
                                               int b, int h, int row0, int count) {
  for (int i = threadIdx.x; i < count; i += kThreads) {
    const int row = row0 + i;
    if (row < p.seqlen_q) {
      const std::int64_t index = lse_index(b, h, p.heads_q, p.seqlen_q, row);
      lse2[i] = p.lse[index] * kLog2e;
      delta[i] = p.delta[index];
    } else {
      lse2[i] = INFINITY;
      delta[i] = 0.0f;
    }
  }
}

// P = exp2(s·scale·log2e − lse2) for a visible score; 0 for a hidden one or a fully masked row
// (lse = -inf: exp2 would give +inf·0 = NaN downstream).
__device__ __forceinline__ float probability(float s, float scale_log2, float lse2, bool hidden) {
  if (hidden || lse2 == -INFINITY) return 0.0f;
  return fast_exp2(s * scale_log2 - lse2);
}

template <class Element, int kHeadDim>
__device__ __forceinline__ void store_rows(const DeviceTensor<Element>& t, int b, int h, int row,
                                           int seqlen, int head_dim, const float* values, int tx) {
  if (row >= seqlen) return;
  Element* dst = t.row(b, row, h);
#pragma unroll
  for (int c = 0; c < kOutColumns<kHeadDim>; ++c) {
    const int col = out_column<kHeadDim>(c, tx);
    if (col < head_dim) dst[col] = from_float<Element>(values[c]);
  }
}

// T is one of the KeyTiles of tile_config.hpp.
template <class T, class Element>
__global__ void __launch_bounds__(kThreads, T::kBlocksPerSm) dkdv_kernel(const BackwardParams<Element> p) {
  constexpr int kHeadDim = T::kBucket;
  constexpr int kRows = T::kRows, kCols = T::kCols, kOut = kOutColumns<kHeadDim>;
  extern __shared__ float4 shared_storage[];
  float* k_tile = reinterpret_cast<float*>(shared_storage);
  float* v_tile = k_tile + T::kKVFloats;
  float* q_tiles = v_tile + T::kKVFloats;                  // [stage]
  float* do_tiles = q_tiles + T::kStages * T::kQFloats;    // [stage]
  float* p_tile = do_tiles + T::kStages * T::kQFloats;     // Pᵀ
  float* ds_tile = p_tile + T::kBlockKeys * T::kPStride;   // dSᵀ
  float* lse2_s = ds_tile + T::kBlockKeys * T::kPStride;   // [stage][queries]
  float* delta_s = lse2_s + T::kStages * T::kBlockQueries;

  const int tx = threadIdx.x % kThreadsX, ty = threadIdx.x / kThreadsX;
  const int h_kv = blockIdx.y, b = blockIdx.z;
  const int key0 = blockIdx.x * T::kBlockKeys;
  const int key_end = min(key0 + T::kBlockKeys, p.seqlen_k);
  int query_begin, query_end;
  query_range(p.mask, key0, key_end, query_begin, query_end);
  const auto [first_tile, end_tile] = tiles_covering(query_begin, query_end, T::kBlockQueries);
  const int tiles_per_head = end_tile - first_tile;
  const int total_steps = tiles_per_head * p.group_size;

  zero_padding_columns<kHeadDim>(k_tile, 2 * T::kBlockKeys, p.head_dim);  // K and V are adjacent
  zero_padding_columns<kHeadDim>(q_tiles, 2 * T::kStages * T::kBlockQueries, p.head_dim);
  __syncthreads();

  // Step s covers query tile first_tile + s % tiles_per_head of head h_kv·G + s / tiles_per_head.
  auto load_step = [&](int step, int stage) {
    const int h = h_kv * p.group_size + step / tiles_per_head;
    const int row0 = (first_tile + step % tiles_per_head) * T::kBlockQueries;
    load_tile<kHeadDim>(q_tiles + stage * T::kQFloats, T::kBlockQueries, p.q, b, h, row0,
                        p.seqlen_q, p.head_dim, p.vectors_ok);
    load_tile<kHeadDim>(do_tiles + stage * T::kQFloats, T::kBlockQueries, p.dout, b, h, row0,
                        p.seqlen_q, p.head_dim, p.vectors_ok);
    load_row_stats(lse2_s + stage * T::kBlockQueries, delta_s + stage * T::kBlockQueries, p, b, h,
                   row0, T::kBlockQueries);
  };
  load_tile<kHeadDim>(k_tile, T::kBlockKeys, p.k, b, h_kv, key0, p.seqlen_k, p.head_dim, p.vectors_ok);
  load_tile<kHeadDim>(v_tile, T::kBlockKeys, p.v, b, h_kv, key0, p.seqlen_k, p.head_dim, p.vectors_ok);
  if (total_steps > 0) load_step(0, 0);
  cp_async_commit();

  float dk[kRows][kOut], dv[kRows][kOut];
#pragma unroll
  for (int i = 0; i < kRows; ++i)
#pragma unroll
    for (int c = 0; c < kOut; ++c) dk[i][c] = dv[i][c] = 0.0f;

  // One stage: Q and dO are read to the end of the step (dV += Pᵀ·dO, dK += dSᵀ·Q), so step + 1
  // is requested after its last barrier and waited for at the top.
  for (int step = 0; step < total_steps; ++step) {
    const int stage = T::kStages == kTwoStages ? step & 1 : 0;
    if constexpr (T::kStages == kTwoStages) {
      if (step + 1 < total_steps) load_step(step + 1, stage ^ 1);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();

    float st[kRows][kCols], dpt[kRows][kCols];
#pragma unroll
    for (int i = 0; i < kRows; ++i)
#pragma unroll
      for (int j = 0; j < kCols; ++j) st[i][j] = dpt[i][j] = 0.0f;
    const float* q_stage = q_tiles + stage * T::kQFloats;
    const float* do_stage = do_tiles + stage * T::kQFloats;
    product_abt<kRows, kCols, kHeadDim, T::kRowStride, T::kRowStride>(
        st, k_tile + ty * kRows * T::kRowStride, q_stage + tx * T::kRowStride);
    product_abt<kRows, kCols, kHeadDim, T::kRowStride, T::kRowStride>(
        dpt, v_tile + ty * kRows * T::kRowStride, do_stage + tx * T::kRowStride);

    const int row0 = (first_tile + step % tiles_per_head) * T::kBlockQueries;
    const bool needs_mask = key0 + T::kBlockKeys > p.seqlen_k ||
                            !p.mask.tile_is_unmasked(row0, row0 + T::kBlockQueries, key0, key0 + T::kBlockKeys);
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      const int key = key0 + ty * kRows + i;
#pragma unroll
      for (int j = 0; j < kCols; ++j) {
        const int q_local = tx + j * kThreadsX;
        const int row = row0 + q_local;
        const bool hidden = needs_mask && (key >= p.seqlen_k || p.mask.is_masked(row, key));
        const float pij = probability(st[i][j], p.scale_log2, lse2_s[stage * T::kBlockQueries + q_local], hidden);
        const float dsij = pij * (dpt[i][j] - delta_s[stage * T::kBlockQueries + q_local]) * p.scale;
        p_tile[(ty * kRows + i) * T::kPStride + q_local] = pij;
        ds_tile[(ty * kRows + i) * T::kPStride + q_local] = dsij;
      }
    }
    __syncthreads();
    product_ab<kRows, T::kBlockQueries, kHeadDim, T::kPStride, T::kRowStride>(
        dv, p_tile + ty * kRows * T::kPStride, do_stage, tx);
    product_ab<kRows, T::kBlockQueries, kHeadDim, T::kPStride, T::kRowStride>(
        dk, ds_tile + ty * kRows * T::kPStride, q_stage, tx);
    __syncthreads();
    if constexpr (T::kStages == kOneStage) {
      if (step + 1 < total_steps) load_step(step + 1, 0);
      cp_async_commit();
    }
  }

#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int key = key0 + ty * kRows + i;
    store_rows<Element, kHeadDim>(p.dk, b, h_kv, key, p.seqlen_k, p.head_dim, dk[i], tx);
    store_rows<Element, kHeadDim>(p.dv, b, h_kv, key, p.seqlen_k, p.head_dim, dv[i], tx);
  }
}

// T is one of the QueryTiles of tile_config.hpp.
template <class T, class Element>
__global__ void __launch_bounds__(kThreads, T::kBlocksPerSm) dq_kernel(const BackwardParams<Element> p) {
  constexpr int kHeadDim = T::kBucket;
  constexpr int kRows = T::kRows, kCols = T::kCols, kOut = kOutColumns<kHeadDim>;
  extern __shared__ float4 shared_storage[];
  float* q_tile = reinterpret_cast<float*>(shared_storage);
  float* do_tile = q_tile + T::kQFloats;
  float* k_tiles = do_tile + T::kQFloats;                  // [stage]
  float* v_tiles = k_tiles + T::kStages * T::kKVFloats;    // [stage]
  float* ds_tile = v_tiles + T::kStages * T::kKVFloats;

  const int tx = threadIdx.x % kThreadsX, ty = threadIdx.x / kThreadsX;
  const int q_block = p.mask.right >= 0 ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int h = blockIdx.y, b = blockIdx.z, h_kv = h / p.group_size;
  const int row0 = q_block * T::kBlockRows;
  const int row_end = min(row0 + T::kBlockRows, p.seqlen_q);
  const int key_begin = p.mask.key_begin(row0);
  const int key_end = p.mask.key_end(row_end);
  const auto [first_tile, end_tile] = tiles_covering(key_begin, key_end, T::kBlockCols);

  zero_padding_columns<kHeadDim>(q_tile, 2 * T::kBlockRows, p.head_dim);  // Q and dO are adjacent
  zero_padding_columns<kHeadDim>(k_tiles, 2 * T::kStages * T::kBlockCols, p.head_dim);
  __syncthreads();

  auto load_kv = [&](int tile, int stage) {
    load_key_tile<kHeadDim, T::kBlockCols>(k_tiles + stage * T::kKVFloats, p.k, p, b, h_kv, tile);
    load_key_tile<kHeadDim, T::kBlockCols>(v_tiles + stage * T::kKVFloats, p.v, p, b, h_kv, tile);
  };
  load_tile<kHeadDim>(q_tile, T::kBlockRows, p.q, b, h, row0, p.seqlen_q, p.head_dim, p.vectors_ok);
  load_tile<kHeadDim>(do_tile, T::kBlockRows, p.dout, b, h, row0, p.seqlen_q, p.head_dim, p.vectors_ok);
  if (first_tile < end_tile) load_kv(first_tile, 0);
  cp_async_commit();

  float lse2[kRows], delta[kRows], dq[kRows][kOut];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int row = row0 + ty * kRows + i;
    const bool valid = row < p.seqlen_q;
    const std::int64_t index = lse_index(b, h, p.heads_q, p.seqlen_q, valid ? row : 0);
    lse2[i] = valid ? p.lse[index] * kLog2e : INFINITY;
    delta[i] = valid ? p.delta[index] : 0.0f;
#pragma unroll
    for (int c = 0; c < kOut; ++c) dq[i][c] = 0.0f;
  }

  auto load_k = [&](int tile) {
    load_key_tile<kHeadDim, T::kBlockCols>(k_tiles, p.k, p, b, h_kv, tile);
  };
  auto load_v = [&](int tile) {
    load_key_tile<kHeadDim, T::kBlockCols>(v_tiles, p.v, p, b, h_kv, tile);
  };
  // One stage: V is last read for dP (before the middle barrier), K for dQ += dS·K (before the
  // last one): V(t+1) is requested after the first, K(t+1) after the second, both waited for at
  // the top.
  for (int tile = first_tile; tile < end_tile; ++tile) {
    const int stage = T::kStages == kTwoStages ? (tile - first_tile) & 1 : 0;
    if constexpr (T::kStages == kTwoStages) {
      if (tile + 1 < end_tile) load_kv(tile + 1, stage ^ 1);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();

    float s[kRows][kCols], dp[kRows][kCols];
#pragma unroll
    for (int i = 0; i < kRows; ++i)
#pragma unroll
      for (int j = 0; j < kCols; ++j) s[i][j] = dp[i][j] = 0.0f;
    const float* k_stage = k_tiles + stage * T::kKVFloats;
    product_abt<kRows, kCols, kHeadDim, T::kRowStride, T::kRowStride>(
        s, q_tile + ty * kRows * T::kRowStride, k_stage + tx * T::kRowStride);
    product_abt<kRows, kCols, kHeadDim, T::kRowStride, T::kRowStride>(
        dp, do_tile + ty * kRows * T::kRowStride, v_tiles + stage * T::kKVFloats + tx * T::kRowStride);

    const int key0 = tile * T::kBlockCols;
    const bool needs_mask = key0 + T::kBlockCols > p.seqlen_k ||
                            !p.mask.tile_is_unmasked(row0, row0 + T::kBlockRows, key0, key0 + T::kBlockCols);
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      const int row = row0 + ty * kRows + i;
#pragma unroll
      for (int j = 0; j < kCols; ++j) {
        const int col = key0 + tx + j * kThreadsX;
        const bool hidden = needs_mask && (col >= p.seqlen_k || p.mask.is_masked(row, col));
        const float pij = probability(s[i][j], p.scale_log2, lse2[i], hidden);
        ds_tile[(ty * kRows + i) * T::kPStride + tx + j * kThreadsX] = pij * (dp[i][j] - delta[i]) * p.scale;
      }
    }
    __syncthreads();
    if constexpr (T::kStages == kOneStage) {
      if (tile + 1 < end_tile) load_v(tile + 1);
      cp_async_commit();
    }
    product_ab<kRows, T::kBlockCols, kHeadDim, T::kPStride, T::kRowStride>(
        dq, ds_tile + ty * kRows * T::kPStride, k_stage, tx);
    __syncthreads();
    if constexpr (T::kStages == kOneStage) {
      if (tile + 1 < end_tile) load_k(tile + 1);
      cp_async_commit();
    }
  }

#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    store_rows<Element, kHeadDim>(p.dq, b, h, row0 + ty * kRows + i, p.seqlen_q, p.head_dim, dq[i], tx);
  }
}

// A backward main kernel, the key or query rows one of its blocks covers, and its shared memory.
template <class Element>
struct BackwardChoice {
  void (*kernel)(BackwardParams<Element>);
  int block_size;
  int shared_bytes;
};

// The dK dV and dQ kernels' largest configurations that fit a device whose blocks may have
// `shared_optin` bytes (make_largest_fitting).
template <int kHeadDim, class Element>
BackwardChoice<Element> pick_dkdv(int shared_optin) {
  using S = SimtTileSet<kHeadDim>;
  return make_largest_fitting<typename S::Key, typename S::KeyA100, typename S::KeySmall>(
      shared_optin, [](auto tiles) -> BackwardChoice<Element> {
        using T = decltype(tiles);
        return {&dkdv_kernel<T, Element>, T::kBlockKeys, static_cast<int>(T::kSharedBytes)};
      });
}

template <int kHeadDim, class Element>
BackwardChoice<Element> pick_dq(int shared_optin) {
  using S = SimtTileSet<kHeadDim>;
  return make_largest_fitting<typename S::Query, typename S::QueryA100, typename S::QuerySmall>(
      shared_optin, [](auto tiles) -> BackwardChoice<Element> {
        using T = decltype(tiles);
        return {&dq_kernel<T, Element>, T::kBlockRows, static_cast<int>(T::kSharedBytes)};
      });
}

template <int kHeadDim, class Element>
Status launch_backward(const AttentionArgs& args) {
  const Problem& pr = args.problem;
  if (pr.batch == 0 || pr.heads_q == 0) return Status::Ok();
  BackwardParams<Element> p;
  p.q = device_tensor<const Element>(args.q);
  p.k = device_tensor<const Element>(args.k);
  p.v = device_tensor<const Element>(args.v);
  p.out = device_tensor<const Element>(args.out);
  p.dout = device_tensor<const Element>(args.dout);
  p.dq = device_tensor<Element>(args.dq);
  p.dk = device_tensor<Element>(args.dk);
  p.dv = device_tensor<Element>(args.dv);
  p.lse = static_cast<const float*>(args.lse.data);
  p.batch = static_cast<int>(pr.batch);
  p.seqlen_q = static_cast<int>(pr.seqlen_q);
  p.seqlen_k = static_cast<int>(pr.seqlen_k);
  p.heads_q = static_cast<int>(pr.heads_q);
  p.heads_kv = static_cast<int>(pr.heads_kv);
  p.group_size = args.group_size();
  p.head_dim = static_cast<int>(pr.head_dim);
  p.scale = args.scale;
  p.scale_log2 = args.scale * kLog2e;
  p.mask = window_mask_of(p.seqlen_q, p.seqlen_k, args.mask.left, args.mask.right);
  p.vectors_ok = pr.alignment_bytes >= static_cast<std::size_t>(kVectorBytes);
  const cudaStream_t stream = stream_of(args);

  // Each main kernel runs the largest configuration of the bucket's SimtTileSet that fits the
  // device, and both choices are checked before the first launch, so that a device too small for
  // either leaves dK, dV and dQ untouched.
  int shared_optin = 0;
  FATTN_RETURN_IF_ERROR(device_shared_bytes_optin(args, &shared_optin));
  const BackwardChoice<Element> dkdv = pick_dkdv<kHeadDim, Element>(shared_optin);
  const BackwardChoice<Element> dq = pick_dq<kHeadDim, Element>(shared_optin);
  FATTN_RETURN_IF_ERROR(
      require_shared_bytes(args, std::max(dkdv.shared_bytes, dq.shared_bytes), "simt backward"));
  const std::int64_t rows = pr.batch * pr.heads_q * pr.seqlen_q;
  Workspace delta(args);
  FATTN_RETURN_IF_ERROR(delta.allocate(static_cast<std::size_t>(rows) * sizeof(float)));
  p.delta = delta.as<float>();

  if (rows > 0) {
    const auto blocks = static_cast<unsigned>((rows + kPreprocessWarps - 1) / kPreprocessWarps);
    preprocess_kernel<Element><<<blocks, kPreprocessWarps * kWarp, 0, stream>>>(p);
    count_launches(args);
    FATTN_CUDA_TRY_LAUNCH("simt::preprocess_kernel");
  }
  if (p.seqlen_k > 0) {
    const dim3 grid((p.seqlen_k + dkdv.block_size - 1) / dkdv.block_size, p.heads_kv, p.batch);
    FATTN_RETURN_IF_ERROR(launch_with_shared_memory(dkdv.kernel, "simt::dkdv_kernel", grid,
                                                    kThreads, dkdv.shared_bytes, args, p));
  }
  if (p.seqlen_q > 0) {
    const dim3 grid((p.seqlen_q + dq.block_size - 1) / dq.block_size, p.heads_q, p.batch);
    FATTN_RETURN_IF_ERROR(launch_with_shared_memory(dq.kernel, "simt::dq_kernel", grid, kThreads,
                                                    dq.shared_bytes, args, p));
  }
  return Status::Ok();
}

}  // namespace fattn::detail::simt
