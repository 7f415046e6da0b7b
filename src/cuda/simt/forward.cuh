// CUDA-core (SIMT) flash attention forward: fp32 arithmetic on the FMA pipes, no tensor cores.
//
// One block of 256 threads owns a tile of 64 query rows of one (batch, head). The Q tile stays
// in shared memory; K and V tiles stream through two shared-memory stages (tile t+1 is copied
// with cp.async while tile t is computed). Per key tile:
//   S = Q·Kᵀ               register-blocked: each thread 4 rows x kCols columns
//   online softmax          running max m and sum l per row, in base 2 (log2(e)·scale folded
//                           into one multiply), row max by 16-lane shuffles
//   P -> shared, O += P·V   each thread 4 rows x head_dim/16 output columns
// Key tiles that the mask hides entirely are never visited; tiles it hides partly are masked
// per element. The output is divided by l once at the end; lse = (m + log2 l)·ln 2.
//
// The head-dim bucket 128, and 64 in fp32 storage where two of its blocks fit on an SM (sm_90),
// run the 128-row variant in forward_wide.cuh instead (8 rows per thread: fewer shared-memory
// loads per FMA). This kernel serves the other buckets and storage types.
// Tile shapes: 64 x 64 (64 x 32 at head_dim 256, where two stages of 64-row K/V tiles would not
// fit in shared memory). 4 x 4 per thread keeps the S accumulators, the output columns and the
// operand registers under ~128 registers at head_dim 128, and 8 16-byte loads feed 64 FMAs.
// On a device whose blocks get less shared memory (an A100, an sm_86 / sm_89 card) the launcher
// runs a smaller ForwardTiles of tile_config.hpp: one K/V stage, then fewer rows or keys.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/launch_kernel.cuh"
#include "cuda/common/stream.hpp"
#include "cuda/simt/forward_params.cuh"
#include "cuda/simt/forward_wide.cuh"
#include "cuda/simt/launch.hpp"
#include "cuda/simt/tile_ops.cuh"

namespace fattn::detail::simt {

// T is one of the ForwardTiles of tile_config.hpp.
template <class T, class Element>
__global__ void __launch_bounds__(kThreads, T::kBlocksPerSm)
    forward_kernel(const ForwardParams<Element> p) {
  constexpr int kHeadDim = T::kBucket;
  constexpr int kRows = T::kRows, kCols = T::kCols, kOut = kOutColumns<kHeadDim>;
  extern __shared__ float4 shared_storage[];
  float* q_tile = reinterpret_cast<float*>(shared_storage);
  float* k_tiles = q_tile + T::kQFloats;
  float* v_tiles = k_tiles + T::kStages * T::kKVFloats;
  float* p_tile = v_tiles + T::kStages * T::kKVFloats;

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
  for (int s = 0; s < 2 * T::kStages; ++s) {
    zero_padding_columns<kHeadDim>(k_tiles + s * T::kKVFloats, T::kBlockCols, p.head_dim);
  }
  __syncthreads();

  auto load_kv = [&](int tile, int stage) {
    load_key_tile<kHeadDim, T::kBlockCols>(k_tiles + stage * T::kKVFloats, p.k, p, b, h_kv, tile);
    load_key_tile<kHeadDim, T::kBlockCols>(v_tiles + stage * T::kKVFloats, p.v, p, b, h_kv, tile);
  };
  auto load_k = [&](int tile) {
    load_key_tile<kHeadDim, T::kBlockCols>(k_tiles, p.k, p, b, h_kv, tile);
  };
  auto load_v = [&](int tile) {
    load_key_tile<kHeadDim, T::kBlockCols>(v_tiles, p.v, p, b, h_kv, tile);
  };
  // cp.async groups, oldest first. Two stages: {Q, K(first), V(first)}, then per tile
  // {K(t+1), V(t+1)}. One stage: {Q, K(first)}, {V(first)}, then per tile {K(t+1)} (requested
  // once S(t) is done), {V(t+1)} (once P·V(t) is). Every commit happens whether or not it copied
  // anything, so the wait counts below hold on the last tile.
  load_tile<kHeadDim>(q_tile, T::kBlockRows, p.q, b, h, row0, p.seqlen_q, p.head_dim, p.vectors_ok);
  if constexpr (T::kStages == kTwoStages) {
    if (first_tile < end_tile) load_kv(first_tile, 0);
    cp_async_commit();
  } else {
    if (first_tile < end_tile) load_k(first_tile);
    cp_async_commit();
    if (first_tile < end_tile) load_v(first_tile);
    cp_async_commit();
  }

  float o[kRows][kOut];
  float m[kRows], l[kRows];
  start_online_softmax(o, m, l);

  for (int tile = first_tile; tile < end_tile; ++tile) {
    const int stage = T::kStages == kTwoStages ? (tile - first_tile) & 1 : 0;
    if constexpr (T::kStages == kTwoStages) {
      if (tile + 1 < end_tile) load_kv(tile + 1, stage ^ 1);
      cp_async_commit();
    }
    cp_async_wait<1>();  // two stages: all but the tile just requested; one: K(tile), not V(tile)
    __syncthreads();

    float s[kRows][kCols];
#pragma unroll
    for (int i = 0; i < kRows; ++i)
#pragma unroll
      for (int j = 0; j < kCols; ++j) s[i][j] = 0.0f;
    product_abt<kRows, kCols, kHeadDim, T::kRowStride, T::kRowStride>(
        s, q_tile + ty * kRows * T::kRowStride, k_tiles + stage * T::kKVFloats + tx * T::kRowStride);

    const int key0 = tile * T::kBlockCols;
    const bool needs_mask = key0 + T::kBlockCols > p.seqlen_k ||
                            !p.mask.tile_is_unmasked(row0, row0 + T::kBlockRows, key0, key0 + T::kBlockCols);
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      const int row = row0 + ty * kRows + i;
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
        const float pij = fast_exp2(s[i][j] - m_use);
        row_sum += pij;
        p_tile[(ty * kRows + i) * T::kPStride + tx + j * kThreadsX] = pij;
      }
      // Each thread keeps the partial sum of its own columns; the 16 partials are added once
      // at the end (alpha scales them all alike).
      l[i] = l[i] * alpha + row_sum;
#pragma unroll
      for (int c = 0; c < kOut; ++c) o[i][c] *= alpha;
    }
    if constexpr (T::kStages == kOneStage) cp_async_wait<0>();  // V(tile) has landed
    __syncthreads();
    if constexpr (T::kStages == kOneStage) {
      if (tile + 1 < end_tile) load_k(tile + 1);  // S(tile) is done: K is free
      cp_async_commit();
    }
    product_ab<kRows, T::kBlockCols, kHeadDim, T::kPStride, T::kRowStride>(
        o, p_tile + ty * kRows * T::kPStride, v_tiles + stage * T::kKVFloats, tx);
    __syncthreads();  // the next iteration overwrites this stage and the P tile
    if constexpr (T::kStages == kOneStage) {
      if (tile + 1 < end_tile) load_v(tile + 1);
      cp_async_commit();
    }
  }

#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int row = row0 + ty * kRows + i;
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


// A forward kernel and the tile geometry its launch needs.
template <class Element>
struct ForwardChoice {
  void (*kernel)(ForwardParams<Element>);
  const char* name;
  int block_rows;
  int shared_bytes;
};
template <class T, class Element>
constexpr ForwardChoice<Element> forward_choice() {
  return {&forward_kernel<T, Element>, "simt::forward_kernel", T::kBlockRows,
          static_cast<int>(T::kSharedBytes)};
}

// The 64-row kernel's configuration for a device whose blocks may have `shared_optin` bytes: the
// largest of the bucket's SimtTileSet that fits (the smallest where none does, so that the
// launch refuses naming its size). Where the wide kernel serves Hopper alone (D = 128), S::Forward
// is skipped: no device between the two sizes is worth a kernel.
template <int kHeadDim, class Element>
ForwardChoice<Element> pick_forward(int shared_optin) {
  using S = SimtTileSet<kHeadDim>;
  constexpr bool kWideOnly =
      kUseWideForward<kHeadDim, Element> && WideForwardTiles<kHeadDim>::kBlocksPerSm == 1;
  using Largest = std::conditional_t<kWideOnly, typename S::ForwardA100, typename S::Forward>;
  return make_largest_fitting<Largest, typename S::ForwardA100, typename S::ForwardSmall>(
      shared_optin, [](auto tiles) { return forward_choice<decltype(tiles), Element>(); });
}

template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs& args) {
  const Problem& pr = args.problem;
  if (pr.seqlen_q == 0 || pr.batch == 0 || pr.heads_q == 0) return Status::Ok();
  ForwardParams<Element> p;
  p.q = device_tensor<const Element>(args.q);
  p.k = device_tensor<const Element>(args.k);
  p.v = device_tensor<const Element>(args.v);
  p.out = device_tensor<Element>(args.out);
  p.lse = static_cast<float*>(args.lse.data);
  p.seqlen_q = static_cast<int>(pr.seqlen_q);
  p.seqlen_k = static_cast<int>(pr.seqlen_k);
  p.heads_q = static_cast<int>(pr.heads_q);
  p.group_size = args.group_size();
  p.head_dim = static_cast<int>(pr.head_dim);
  p.scale_log2 = args.scale * kLog2e;
  p.mask = window_mask_of(p.seqlen_q, p.seqlen_k, args.mask.left, args.mask.right);
  p.vectors_ok = pr.alignment_bytes >= static_cast<std::size_t>(kVectorBytes);

  auto launch = [&](auto kernel, const char* name, int block_rows, std::size_t shared_bytes) {
    const auto q_blocks = static_cast<unsigned>((p.seqlen_q + block_rows - 1) / block_rows);
    p.longest_first = use_longest_first(q_blocks, p.mask);
    const dim3 grid = forward_grid(q_blocks, static_cast<unsigned>(pr.heads_q),
                                   static_cast<unsigned>(pr.batch), p.longest_first);
    return launch_with_shared_memory(kernel, name, grid, kThreads, static_cast<int>(shared_bytes),
                                     args, p);
  };
  auto launch_choice = [&](const ForwardChoice<Element>& c) {
    return launch(c.kernel, c.name, c.block_rows, static_cast<std::size_t>(c.shared_bytes));
  };
  int shared_optin = 0;
  FATTN_RETURN_IF_ERROR(device_shared_bytes_optin(args, &shared_optin));
  if constexpr (kUseWideForward<kHeadDim, Element>) {
    using W = WideForwardTiles<kHeadDim>;
    const auto wide = &wide_forward_kernel<kHeadDim, Element>;
    if (static_cast<int>(W::kSharedBytes) > shared_optin) {
      return launch_choice(pick_forward<kHeadDim, Element>(shared_optin));
    }
    if constexpr (W::kBlocksPerSm == 1) {
      return launch(wide, "simt::wide_forward_kernel", W::kBlockRows, W::kSharedBytes);
    } else {
      // An SM's shared memory is its per-block limit plus the 1 KB reserve on every device the
      // tiles are sized for; taking the smaller of the two keeps a test's cap (which lowers the
      // per-block limit only) from claiming two wide blocks on a device it makes look smaller.
      int device = 0, shared_per_sm = 0;
      FATTN_CUDA_TRY(cudaGetDevice(&device));
      FATTN_CUDA_TRY(cudaDeviceGetAttribute(&shared_per_sm,
                                            cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
      const std::size_t usable_per_sm =
          std::min(static_cast<std::size_t>(shared_per_sm),
                   static_cast<std::size_t>(shared_optin) + kSharedBytesReservedPerBlock);
      if (usable_per_sm < W::kBlocksPerSm * (W::kSharedBytes + kSharedBytesReservedPerBlock)) {
        return launch_choice(pick_forward<kHeadDim, Element>(shared_optin));
      }
      // Ask for the largest shared-memory carveout rather than rely on the driver's choice:
      // kBlocksPerSm blocks must be resident at once.
      FATTN_CUDA_TRY(cudaFuncSetAttribute(wide, cudaFuncAttributePreferredSharedMemoryCarveout,
                                          cudaSharedmemCarveoutMaxShared));
      return launch(wide, "simt::wide_forward_kernel", W::kBlockRows, W::kSharedBytes);
    }
  } else {
    return launch_choice(pick_forward<kHeadDim, Element>(shared_optin));
  }
}

}  // namespace fattn::detail::simt
