// Host-side launch of the Hopper backward for one (head-dim bucket, element type): the sm80
// family's preprocess (D_i = rowsum(dO∘O), LSE·log2e, dQ accumulator zeroed), the sm90 main
// kernel (backward_kernel.cuh), and the postprocess (dQ = scale · accumulator: the sm80 one, or
// register_order_dq_postprocess_kernel below for DqReduce::bulk_register_order). The
// generated files src/cuda/instantiations/sm90_bwd_d<D>_<dtype>.cu include this header and
// instantiate launch_backward explicitly.
//
// Verified on an H100 (GPU tests, memcheck, racecheck; docs/design/sm90-backward.md, "Measured").
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "api/attention_args.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/common/launch_kernel.cuh"
#include "cuda/common/stream.hpp"
#include "cuda/common/workspace.hpp"
#include "cuda/sm80/backward.cuh"
#include "cuda/sm80/forward.cuh"
#include "cuda/sm90/backward_kernel.cuh"
#include "cuda/sm90/backward_kernel_wide.cuh"
#include "cuda/sm90/launch.hpp"
#include "cuda/sm90/tensor_map.hpp"

namespace fattn::detail::sm90 {

// DqReduce::bulk_register_order's postprocess: dQ = scale · accumulator, converted to the
// storage type, from the register-order accumulator (backward_kernel.cuh,
// store_dq_register_order): one CTA per (64-query tile · column block, head, batch) reads its
// 16 KB block coalesced (float4 j of thread t at j·128 + t), puts it in row order in shared
// memory and writes the tile's rows below seqlen_q, columns below head_dim.
inline constexpr int kRegisterOrderPostThreads = backward::kWarpgroupThreads;
template <class Element, int kColumnBlocks>
__global__ void __launch_bounds__(kRegisterOrderPostThreads)
    register_order_dq_postprocess_kernel(const sm80::BackwardParams params) {
  using namespace backward;
  constexpr int kRows = kWgmmaM;
  constexpr int kColumns = kDqColumns;
  constexpr int kPitch = kColumns + 4;  // floats per shared row: float4-aligned, fewer conflicts
  __shared__ __align__(16) float tile[kRows * kPitch];
  const int thread = static_cast<int>(threadIdx.x);
  const int row_tile = static_cast<int>(blockIdx.x) / kColumnBlocks;
  const int column_block = static_cast<int>(blockIdx.x) % kColumnBlocks;
  const int head = static_cast<int>(blockIdx.y);
  const int batch = static_cast<int>(blockIdx.z);
  const std::int64_t head_index = static_cast<std::int64_t>(batch) * params.heads_q + head;
  const std::int64_t block =
      (head_index * (params.rows_rounded / kRows) + row_tile) * kColumnBlocks + column_block;
  const auto* source =
      reinterpret_cast<const float4*>(params.dq_accum + block * kDqRegisterOrderBlockFloats);
  {
    const int warp = thread / kWarpSize;
    const int lane = thread % kWarpSize;
    const int row = warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < kColumns / 8; ++j) {
      const float4 v = source[j * kRegisterOrderPostThreads + thread];
      const int column = 8 * j + 2 * (lane % 4);
      *reinterpret_cast<float2*>(&tile[row * kPitch + column]) = make_float2(v.x, v.y);
      *reinterpret_cast<float2*>(&tile[(row + 8) * kPitch + column]) = make_float2(v.z, v.w);
    }
  }
  __syncthreads();
  using Traits = sm80::ElementTraits<Element>;
  constexpr int kChunks = kColumns / sm80::kRowChunkElements;  // 8 chunks of 8 per row
  for (int index = thread; index < kRows * kChunks; index += kRegisterOrderPostThreads) {
    const int row = index / kChunks;
    const int query = row_tile * kRows + row;
    if (query >= params.seqlen_q) break;  // rows grow with index
    const int in_tile = (index % kChunks) * sm80::kRowChunkElements;
    const int column0 = column_block * kColumns + in_tile;
    if (column0 >= params.head_dim) continue;
    auto* dq = static_cast<Element*>(params.dq) + batch * params.dq_strides.batch +
               query * params.dq_strides.row + head * params.dq_strides.head;
    const float* values = &tile[row * kPitch + in_tile];
    if (params.alignment >= sm80::kWidest &&
        column0 + sm80::kRowChunkElements <= params.head_dim) {
      sm80::store_scaled_chunk(dq + column0, values, params.scale);
    } else {
      const int column_end = min(column0 + sm80::kRowChunkElements, params.head_dim);
      for (int d = column0; d < column_end; ++d) {
        dq[d] = Traits::from_float(values[d - column0] * params.scale);
      }
    }
  }
}

// The backward with the tile shape TileConfig::kShape (any row backward_tile_config.hpp could
// hold) for masked problems and UnmaskedTileConfig::kShape for unmasked ones (NoMask): the
// library calls it with the bucket's rows (launch_backward below), bench/sm90_bwd_variants.cu
// with one alternative for every mask, to time them side by side. The two rows may differ only
// inside the kernel: the workspace, tensor maps, grid and postprocess here are shared.
template <int kHeadDim, class Element, class TileConfig, class UnmaskedTileConfig = TileConfig>
Status launch_backward_with(const AttentionArgs& args) {
  // GradSplit::head_dim (D = 256) runs backward_kernel_wide.cuh's kernel; the launch is the same.
  constexpr bool kWide = TileConfig::kShape.grad_split == GradSplit::head_dim;
  using Traits = std::conditional_t<kWide, WideBackwardTraits<kHeadDim, Element, TileConfig>,
                                    BackwardTraits<kHeadDim, Element, TileConfig>>;
  using UnmaskedTraits =
      std::conditional_t<kWide, WideBackwardTraits<kHeadDim, Element, UnmaskedTileConfig>,
                         BackwardTraits<kHeadDim, Element, UnmaskedTileConfig>>;
  static_assert(UnmaskedTileConfig::kShape.grad_split == TileConfig::kShape.grad_split &&
                    UnmaskedTileConfig::kShape.dq_reduce == TileConfig::kShape.dq_reduce &&
                    UnmaskedTraits::kBlockM == Traits::kBlockM &&
                    UnmaskedTraits::kBlockN == Traits::kBlockN &&
                    UnmaskedTraits::kDqBulk == Traits::kDqBulk,
                "the unmasked row keeps the masked row's kernel family, blocks, workspace and "
                "postprocess");
  const Problem& problem = args.problem;
  const std::int64_t batch = problem.batch;
  const std::int64_t heads_q = problem.heads_q;

  // The parameter block, workspace, preprocess and postprocess are the sm80 family's, except the
  // register-order dQ accumulator's postprocess (and its size: whole 64-query tiles, kHeadDim
  // columns).
  constexpr bool kRegisterOrder = TileConfig::kShape.dq_reduce == DqReduce::bulk_register_order;
  sm80::BackwardParams rows;
  Workspace workspace(args);
  std::size_t accum_floats = 0;
  if constexpr (kRegisterOrder) {
    const std::int64_t rows_rounded =
        (problem.seqlen_q + Traits::kBlockM - 1) / Traits::kBlockM * Traits::kBlockM;
    accum_floats = static_cast<std::size_t>(batch * heads_q * rows_rounded) * kHeadDim;
  }
  FATTN_RETURN_IF_ERROR(
      sm80::start_backward<Element>(args, Traits::kBlockM, workspace, rows, accum_floats));
  const int n_blocks = (rows.seqlen_k + Traits::kBlockN - 1) / Traits::kBlockN;

  if (n_blocks > 0) {
    CUtensorMap tma_q{};
    CUtensorMap tma_k{};
    CUtensorMap tma_v{};
    CUtensorMap tma_dout{};
    if (Status s = make_attention_tensor_map(&tma_k, args.k, Traits::kBlockN); !s.ok()) return s;
    if (Status s = make_attention_tensor_map(&tma_v, args.v, Traits::kBlockN); !s.ok()) return s;
    if (problem.seqlen_q > 0) {
      if (Status s = make_attention_tensor_map(&tma_q, args.q, Traits::kBlockM); !s.ok()) return s;
      if (Status s = make_attention_tensor_map(&tma_dout, args.dout, Traits::kBlockM); !s.ok()) {
        return s;
      }
    } else {
      // No query tile is ever loaded (every CTA writes dK = dV = 0); any valid map will do.
      tma_q = tma_k;
      tma_dout = tma_k;
    }
    // The dQ accumulator as TMA reductions see it (DqReduce::bulk_tensor only; otherwise unused).
    CUtensorMap tma_dq_accum = tma_k;
    if (Traits::kDqBulk && !kRegisterOrder && problem.seqlen_q > 0) {
      if (Status s = make_fp32_rows_tensor_map(&tma_dq_accum, rows.dq_accum, rows.dq_accum_stride,
                                               problem.seqlen_q, heads_q, batch,
                                               backward::kDqBoxColumns, backward::kWgmmaM);
          !s.ok()) {
        return s;
      }
    }

    BackwardParams params;
    params.dk = args.dk.data;
    params.dv = args.dv.data;
    params.dk_stride_batch = args.dk.stride[0];
    params.dk_stride_seq = args.dk.stride[1];
    params.dk_stride_head = args.dk.stride[2];
    params.dv_stride_batch = args.dv.stride[0];
    params.dv_stride_seq = args.dv.stride[1];
    params.dv_stride_head = args.dv.stride[2];
    params.dq_accum = rows.dq_accum;
    params.dq_accum_stride = rows.dq_accum_stride;
    params.lse_log2 = rows.lse_log2;
    params.delta = rows.delta;
    params.rows_rounded = rows.rows_rounded;
    params.seqlen_q = rows.seqlen_q;
    params.seqlen_k = rows.seqlen_k;
    params.heads_q = rows.heads_q;
    params.group_size = rows.group_size;
    params.head_dim = rows.head_dim;
    params.scale = args.scale;
    params.scale_log2 = args.scale * sm80::kLog2e;

    const dim3 grid(static_cast<unsigned>(n_blocks), static_cast<unsigned>(problem.heads_kv),
                    static_cast<unsigned>(batch));
    FATTN_RETURN_IF_ERROR(with_mask(args, [&](auto mask) -> Status {
      using Mask = decltype(mask);
      constexpr bool kUnmasked = std::is_same_v<Mask, NoMask>;
      using Config = std::conditional_t<kUnmasked, UnmaskedTileConfig, TileConfig>;
      using MaskTraits = std::conditional_t<kUnmasked, UnmaskedTraits, Traits>;
      if constexpr (kWide) {
        return launch_with_shared_memory(
            &wide_backward_kernel<kHeadDim, Element, Mask, Config>, "sm90::wide_backward_kernel",
            grid, dim3(MaskTraits::kThreads), MaskTraits::kSmemBytes, args, tma_q, tma_k, tma_v,
            tma_dout, tma_dq_accum, mask, params);
      } else {
        return launch_with_shared_memory(
            &backward_kernel<kHeadDim, Element, Mask, Config>, "sm90::backward_kernel", grid,
            dim3(MaskTraits::kThreads), MaskTraits::kSmemBytes, args, tma_q, tma_k, tma_v,
            tma_dout, tma_dq_accum, mask, params);
      }
    }));
  }

  if constexpr (kRegisterOrder) {
    if (problem.seqlen_q == 0) return Status::Ok();
    constexpr int kColumnBlocks = kHeadDim / backward::kDqColumns;
    const dim3 grid(static_cast<unsigned>(rows.rows_rounded / backward::kWgmmaM * kColumnBlocks),
                    static_cast<unsigned>(heads_q), static_cast<unsigned>(batch));
    register_order_dq_postprocess_kernel<Element, kColumnBlocks>
        <<<grid, kRegisterOrderPostThreads, 0, stream_of(args)>>>(rows);
    FATTN_CUDA_TRY_LAUNCH("sm90::register_order_dq_postprocess_kernel");
    count_launches(args);
    return Status::Ok();
  } else {
    return sm80::finish_backward<Element>(args, rows);
  }
}

// The bucket's row for masked problems, UnmaskedBackwardTileConfig's for unmasked ones (D = 128:
// DqSplit::alternate, backward_tile_config.hpp).
template <int kHeadDim, class Element>
Status launch_backward(const AttentionArgs& args) {
  return launch_backward_with<kHeadDim, Element, BackwardTileConfig<kHeadDim>,
                              typename UnmaskedBackwardTileConfig<kHeadDim>::type>(args);
}

}  // namespace fattn::detail::sm90
