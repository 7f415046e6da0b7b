// Definition of sm80::launch_forward (included by the generated instantiation files).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/launch_kernel.cuh"
#include "cuda/common/stream.hpp"
#include "cuda/sm80/forward_kernel.cuh"
#include "cuda/sm80/launch.hpp"
#include "cuda/sm80/mask_kind.hpp"

namespace fattn::detail::sm80 {

inline Strides strides_of(const TensorView& view) {
  return {view.stride[0], view.stride[1], view.stride[2]};
}

// One past the last byte of a view (non-negative strides, validated centrally): the highest
// element offset is the sum of (extent - 1)·stride over the dimensions.
template <class Element>
const void* end_of(const TensorView& view) {
  std::int64_t last = 0;
  for (int d = 0; d < view.rank; ++d) {
    if (view.shape[d] == 0) return view.data;
    last += (view.shape[d] - 1) * view.stride[d];
  }
  return static_cast<const Element*>(view.data) + last + 1;
}

inline constexpr float kLog2e = 1.4426950408889634f;

// The fields ForwardParams and BackwardParams share (q/k/v/out views, sizes, scale, alignment),
// filled once for both launches.
template <class Params>
void fill_shared_params(Params& params, const AttentionArgs& args) {
  const Problem& problem = args.problem;
  params.q = args.q.data;
  params.k = args.k.data;
  params.v = args.v.data;
  params.out = args.out.data;
  params.q_strides = strides_of(args.q);
  params.k_strides = strides_of(args.k);
  params.v_strides = strides_of(args.v);
  params.out_strides = strides_of(args.out);
  params.seqlen_q = static_cast<int>(problem.seqlen_q);
  params.seqlen_k = static_cast<int>(problem.seqlen_k);
  params.heads_q = static_cast<int>(problem.heads_q);
  params.group_size = args.group_size();
  params.head_dim = static_cast<int>(problem.head_dim);
  params.scale_log2 = std::fabs(args.scale) * kLog2e;
  params.sign_flip = args.scale < 0.0f ? kNegatePair : 0u;
  params.alignment = static_cast<int>(problem.alignment_bytes);
}

// CTAs of one head-group tile resident on an SM: the table's head-group tiles (64, 128, 256) all
// take 4 warps at 255 registers, so the register file holds two.
inline constexpr int kHeadGroupCtasPerSm = 2;

// The query heads of a group under QueryTilesSlowestInHeadGroups (tile_config.hpp,
// HeadGroupSize): the largest power of two <= kGroupHeads that divides heads_q (fixed: kGroupHeads
// or, where it does not divide, 1 = the grid order), then halved while the rule allows.
template <class Config, class Element>
unsigned head_group_heads(const ForwardParams& params, unsigned m_blocks) {
  const auto heads = static_cast<unsigned>(params.heads_q);
  if constexpr (!head_group_size_at_launch<Config>()) {
    return heads % Config::kGroupHeads == 0 ? Config::kGroupHeads : 1u;
  } else {
    unsigned group = Config::kGroupHeads;
    while (heads % group != 0) group /= 2;
    int device = 0, sm_count = 0, l2_bytes = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess) {
      return group;  // no device properties (the launch reports the error): the largest group
    }
    const std::int64_t slots = std::int64_t{sm_count} * kHeadGroupCtasPerSm;
    // K and V of one KV head; a group of G query heads reads ceil(G / group_size) of them.
    const std::int64_t kv_bytes_per_head =
        2 * std::int64_t{params.seqlen_k} * params.head_dim * std::int64_t{sizeof(Element)};
    auto smaller_is_enough = [&](unsigned smaller) {
      const std::int64_t ctas = std::int64_t{smaller} * m_blocks;
      switch (Config::kGroupSize) {
        case HeadGroupSize::fill_half: return 2 * ctas >= slots;
        case HeadGroupSize::fill_once: return ctas >= slots;
        default: {
          const std::int64_t kv_heads = (group + params.group_size - 1) / params.group_size;
          return 2 * kv_heads * kv_bytes_per_head > l2_bytes;  // the current group is too big
        }
      }
    };
    while (group > 1 && smaller_is_enough(group / 2)) group /= 2;
    return group;
  }
}

// (query tiles, query heads, batch); QueryTilesSlowestInHeadGroups under a right-bounded mask:
// (G·query tiles, query heads / G, batch) for the group size G of head_group_heads, which the
// kernel reads back from its y extent (forward_kernel.cuh: in_head_group_grid for a fixed G,
// query_tile_slowest_in_run_time_group for one chosen here).
template <class Config, class Element, class Mask>
dim3 forward_grid(const ForwardParams& params, const Problem& problem, const Mask& mask) {
  const unsigned m_blocks = (params.seqlen_q + Config::kBlockM - 1) / Config::kBlockM;
  const auto heads = static_cast<unsigned>(problem.heads_q);
  const auto batch = static_cast<unsigned>(problem.batch);
  if constexpr (query_tiles_slowest_in_head_groups<Config>()) {
    if (work_grows_with_query_tile(mask)) {
      const unsigned group = head_group_heads<Config, Element>(params, m_blocks);
      return dim3(m_blocks * group, heads / group, batch);
    }
  }
  return dim3(m_blocks, heads, batch);
}

// Any tile configuration; launch_forward uses the table's. bench/sm80_shim.cu also runs
// alternatives through this to measure the table's choices against them. StagedConfig is the
// tile of the kernel for 2-byte-aligned rows (uses_staged_loads), NarrowConfig the one for head
// dims of at most its largest step class (tile_config.hpp).
template <class Config, class Element, class StagedConfig = Config, class NarrowConfig = Config>
Status launch_forward_with(const AttentionArgs& args) {
  const Problem& problem = args.problem;
  ScopedDevice device(problem.device.index);

  ForwardParams params;
  fill_shared_params(params, args);
  params.lse = static_cast<float*>(args.lse.data);
  params.q_end = end_of<Element>(args.q);
  params.k_end = end_of<Element>(args.k);
  params.v_end = end_of<Element>(args.v);

  if (problem.seqlen_q == 0 || problem.batch == 0 || problem.heads_q == 0) return Status::Ok();
  const bool staged = uses_staged_loads(params.alignment);
  // A NarrowConfig derived from Config is the same tile: no second kernel.
  constexpr bool kSeparateNarrowTile = !std::is_base_of_v<Config, NarrowConfig>;
  constexpr int kNarrowSteps = largest_step_class(typename NarrowConfig::NarrowStepClassList{});
  const bool narrow = (params.head_dim + kMmaK - 1) / kMmaK <= kNarrowSteps;
  return with_kernel_mask(args, [&](auto mask) -> Status {
    using Mask = decltype(mask);
    if (staged) {
      return launch_with_shared_memory(&forward_kernel_unaligned_rows<StagedConfig, Element, Mask>,
                                       "sm80::forward_kernel_unaligned_rows",
                                       forward_grid<StagedConfig, Element>(params, problem, mask),
                                       StagedConfig::kThreads, StagedConfig::kSharedBytes, args,
                                       params, mask);
    }
    if constexpr (kSeparateNarrowTile) {
      if (narrow) {
        return launch_with_shared_memory(
            &forward_kernel<NarrowConfig, Element, Mask>, "sm80::forward_kernel",
            forward_grid<NarrowConfig, Element>(params, problem, mask), NarrowConfig::kThreads,
            NarrowConfig::kSharedBytes, args, params, mask);
      }
    }
    return launch_with_shared_memory(&forward_kernel<Config, Element, Mask>,
                                     "sm80::forward_kernel",
                                     forward_grid<Config, Element>(params, problem, mask),
                                     Config::kThreads, Config::kSharedBytes, args, params, mask);
  });
}

template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs& args) {
  return launch_forward_with<ForwardConfig<kHeadDim>, Element, StagedForwardConfig<kHeadDim>,
                             NarrowForwardConfig<kHeadDim>>(args);
}

}  // namespace fattn::detail::sm80
