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

#include "api/attention_args.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/common/launch_kernel.cuh"
#include "cuda/common/stream.hpp"
#include "cuda/common/workspace.hpp"
#include "cuda/sm80/backward_kernel.cuh"
#include "cuda/sm80/forward.cuh"
#include "cuda/sm90/backward_kernel.cuh"
#include "cuda/sm90/launch.hpp"
#include "cuda/sm90/tensor_map.hpp"

namespace fattn::detail::sm90 {

inline constexpr float kBackwardLog2e = 1.4426950408889634f;
inline constexpr std::size_t kBackwardWorkspaceAlignment = 256;  // bulk copies need 16 bytes
inline constexpr int kDqAccumulatorColumnStep = 16;              // the sm80 preprocess's layout

inline std::size_t backward_aligned_bytes(std::size_t bytes) {
  return (bytes + kBackwardWorkspaceAlignment - 1) / kBackwardWorkspaceAlignment *
         kBackwardWorkspaceAlignment;
}

// The backward with the tile shape TileConfig::kShape (any row backward_tile_config.hpp could
// hold): the library calls it with the bucket's row (launch_backward below),
// bench/sm90_bwd_variants.cu with alternatives, to time them side by side.
template <int kHeadDim, class Element, class TileConfig>
Status launch_backward_with(const AttentionArgs& args) {
  using Traits = BackwardTraits<kHeadDim, Element, TileConfig>;
  const Problem& problem = args.problem;
  const cudaStream_t stream = stream_of(args);
  const std::int64_t batch = problem.batch;
  const std::int64_t heads_q = problem.heads_q;

  // The preprocess and postprocess are the sm80 family's, on its parameter block.
  sm80::BackwardParams rows;
  rows.out = args.out.data;
  rows.dout = args.dout.data;
  rows.lse = static_cast<const float*>(args.lse.data);
  rows.dq = args.dq.data;
  rows.out_strides = sm80::strides_of(args.out);
  rows.dout_strides = sm80::strides_of(args.dout);
  rows.dq_strides = sm80::strides_of(args.dq);
  rows.seqlen_q = static_cast<int>(problem.seqlen_q);
  rows.seqlen_k = static_cast<int>(problem.seqlen_k);
  rows.heads_q = static_cast<int>(heads_q);
  rows.group_size = args.group_size();
  rows.head_dim = static_cast<int>(problem.head_dim);
  rows.scale = args.scale;
  rows.dq_accum_stride = (rows.head_dim + kDqAccumulatorColumnStep - 1) /
                         kDqAccumulatorColumnStep * kDqAccumulatorColumnStep;
  const int m_blocks = (rows.seqlen_q + Traits::kBlockM - 1) / Traits::kBlockM;
  const int n_blocks = (rows.seqlen_k + Traits::kBlockN - 1) / Traits::kBlockN;
  rows.rows_rounded = m_blocks * Traits::kBlockM;

  const std::size_t accum_bytes = backward_aligned_bytes(sizeof(float) * batch * heads_q *
                                                         problem.seqlen_q * rows.dq_accum_stride);
  const std::size_t stat_bytes =
      backward_aligned_bytes(sizeof(float) * batch * heads_q * rows.rows_rounded);
  Workspace workspace(args);
  FATTN_RETURN_IF_ERROR(workspace.allocate(accum_bytes + 2 * stat_bytes));
  auto* base = workspace.as<unsigned char>();
  rows.dq_accum = reinterpret_cast<float*>(base);
  rows.lse_log2 = reinterpret_cast<float*>(base + accum_bytes);
  rows.delta = reinterpret_cast<float*>(base + accum_bytes + stat_bytes);

  if (m_blocks > 0) {
    const dim3 grid((rows.rows_rounded + sm80::kPreprocessWarps - 1) / sm80::kPreprocessWarps,
                    static_cast<unsigned>(heads_q), static_cast<unsigned>(batch));
    sm80::backward_preprocess_kernel<Element>
        <<<grid, sm80::kPreprocessWarps * sm80::kWarpSize, 0, stream>>>(rows);
    FATTN_CUDA_TRY_LAUNCH("sm80::backward_preprocess_kernel (for sm90::backward_kernel)");
    count_launches(args);
  }

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
    params.scale_log2 = args.scale * kBackwardLog2e;

    const dim3 grid(static_cast<unsigned>(n_blocks), static_cast<unsigned>(problem.heads_kv),
                    static_cast<unsigned>(batch));
    FATTN_RETURN_IF_ERROR(with_mask(args, [&](auto mask) -> Status {
      return launch_with_shared_memory(
          &backward_kernel<kHeadDim, Element, decltype(mask), TileConfig>, "sm90::backward_kernel",
          grid, dim3(Traits::kThreads), Traits::kSmemBytes, args, tma_q, tma_k, tma_v, tma_dout,
          tma_dq_accum, mask, params);
    }));
  }

  if (m_blocks > 0) {
    const int row_blocks =
        (rows.seqlen_q + sm80::kPostprocessRows - 1) / sm80::kPostprocessRows;
    const dim3 grid(static_cast<unsigned>(row_blocks), static_cast<unsigned>(heads_q),
                    static_cast<unsigned>(batch));
    sm80::backward_postprocess_kernel<Element><<<grid, sm80::kPostprocessThreads, 0, stream>>>(rows);
    FATTN_CUDA_TRY_LAUNCH("sm80::backward_postprocess_kernel (for sm90::backward_kernel)");
    count_launches(args);
  }
  return Status::Ok();
}

template <int kHeadDim, class Element>
Status launch_backward(const AttentionArgs& args) {
  return launch_backward_with<kHeadDim, Element, BackwardTileConfig<kHeadDim>>(args);
}

}  // namespace fattn::detail::sm90
