// Host-side launch of the Hopper backward for one (head-dim bucket, element type): the sm80
// family's preprocess (D_i = rowsum(dO∘O), LSE·log2e, dQ accumulator zeroed), the sm90 main
// kernel (backward_kernel.cuh), and the sm80 postprocess (dQ = scale · accumulator). The
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

// The backward with the tile shape TileConfig::kShape (any row backward_tile_config.hpp could
// hold): the library calls it with the bucket's row (launch_backward below),
// bench/sm90_bwd_variants.cu with alternatives, to time them side by side.
template <int kHeadDim, class Element, class TileConfig>
Status launch_backward_with(const AttentionArgs& args) {
  // GradSplit::head_dim (D = 256) runs backward_kernel_wide.cuh's kernel; the launch is the same.
  constexpr bool kWide = TileConfig::kShape.grad_split == GradSplit::head_dim;
  using Traits = std::conditional_t<kWide, WideBackwardTraits<kHeadDim, Element, TileConfig>,
                                    BackwardTraits<kHeadDim, Element, TileConfig>>;
  const Problem& problem = args.problem;
  const std::int64_t batch = problem.batch;
  const std::int64_t heads_q = problem.heads_q;

  // The parameter block, workspace, preprocess and postprocess are the sm80 family's.
  sm80::BackwardParams rows;
  Workspace workspace(args);
  FATTN_RETURN_IF_ERROR(
      sm80::start_backward<Element>(args, Traits::kBlockM, workspace, rows));
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
    if (Traits::kDqBulk && problem.seqlen_q > 0) {
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
      if constexpr (kWide) {
        return launch_with_shared_memory(
            &wide_backward_kernel<kHeadDim, Element, decltype(mask), TileConfig>,
            "sm90::wide_backward_kernel", grid, dim3(Traits::kThreads), Traits::kSmemBytes, args,
            tma_q, tma_k, tma_v, tma_dout, tma_dq_accum, mask, params);
      } else {
        return launch_with_shared_memory(
            &backward_kernel<kHeadDim, Element, decltype(mask), TileConfig>,
            "sm90::backward_kernel", grid, dim3(Traits::kThreads), Traits::kSmemBytes, args, tma_q,
            tma_k, tma_v, tma_dout, tma_dq_accum, mask, params);
      }
    }));
  }

  return sm80::finish_backward<Element>(args, rows);
}

template <int kHeadDim, class Element>
Status launch_backward(const AttentionArgs& args) {
  return launch_backward_with<kHeadDim, Element, BackwardTileConfig<kHeadDim>>(args);
}

}  // namespace fattn::detail::sm90
