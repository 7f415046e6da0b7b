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

// The forward's kernel parameters.
template <class Element>
ForwardParams forward_params(const AttentionArgs& args) {
  ForwardParams params;
  fill_shared_params(params, args);
  params.lse = static_cast<float*>(args.lse.data);
  params.q_end = end_of<Element>(args.q);
  params.window = widest_window(params.head_dim, params.alignment);
  params.k_end = end_of<Element>(args.k);
  params.v_end = end_of<Element>(args.v);
  return params;
}

// (query tiles, query heads, batch); QueryTilesSlowestInHeadGroups under a right-bounded mask,
// where kGroupHeads divides heads_q: (G·query tiles, query heads / G, batch) with G =
// kGroupHeads, which the kernel recognizes by its y extent (forward_kernel.cuh,
// in_head_group_grid).
template <class Config, class Mask>
dim3 forward_grid(const ForwardParams& params, const Problem& problem, const Mask& mask) {
  const unsigned m_blocks = (params.seqlen_q + Config::kBlockM - 1) / Config::kBlockM;
  const auto heads = static_cast<unsigned>(problem.heads_q);
  const auto batch = static_cast<unsigned>(problem.batch);
  if constexpr (query_tiles_slowest_in_head_groups<Config>()) {
    constexpr unsigned kGroup = Config::kGroupHeads;
    if (work_grows_with_query_tile(mask) && heads % kGroup == 0) {
      return dim3(m_blocks * kGroup, heads / kGroup, batch);
    }
  }
  return dim3(m_blocks, heads, batch);
}

// Whether a head dim runs a HalvedWalkOnly tile: it takes the tile's largest step class, whose
// last 16-wide step it fills to at most 8 columns.
template <class Config>
constexpr bool halves_largest_class(int head_dim) {
  constexpr int kSteps = largest_step_class(typename Config::NarrowStepClassList{});
  return (head_dim + kMmaK - 1) / kMmaK == kSteps && head_dim + kMmaN <= kSteps * kMmaK;
}

// Any tile configuration; launch_forward uses the table's. bench/sm80_shim.cu also runs
// alternatives through this to measure the table's choices against them. StagedConfig is the
// tile of the kernel for 2-byte-aligned rows (uses_staged_loads; NoStagedTile: none, those rows
// take the other kernels' general copy), NarrowConfig the one for head
// dims of at most its largest step class (tile_config.hpp), UnmaskedNarrowConfig the same for the
// unmasked kernel (NoMask) where it differs, and UnmaskedHalvedConfig, where it is a
// HalvedWalkOnly tile, the unmasked kernel of the head dims that halve its largest class, and
// UnmaskedConfig the unmasked kernel's tile for the head dims none of those take (Config where
// it derives from it).
// `params`: forward_params<Element>(args), built once by the caller (launch_forward's selector
// reads them too).
template <class Config, class Element, class StagedConfig = Config, class NarrowConfig = Config,
          class UnmaskedNarrowConfig = NarrowConfig,
          class UnmaskedHalvedConfig = UnmaskedNarrowConfig, class UnmaskedConfig = Config>
Status launch_forward_with(const AttentionArgs& args, const ForwardParams& params) {
  const Problem& problem = args.problem;
  ScopedDevice device(problem.device.index);

  if (problem.seqlen_q == 0 || problem.batch == 0 || problem.heads_q == 0) return Status::Ok();
  [[maybe_unused]] const bool staged = uses_staged_loads(params.alignment);
  // A NarrowConfig derived from Config is the same tile: no second kernel.
  constexpr bool kSeparateNarrowTile = !std::is_base_of_v<Config, NarrowConfig>;
  constexpr int kNarrowSteps = largest_step_class(typename NarrowConfig::NarrowStepClassList{});
  const int steps = (params.head_dim + kMmaK - 1) / kMmaK;
  const bool narrow = steps <= kNarrowSteps;
  constexpr bool kSeparateUnmaskedTile = !std::is_base_of_v<NarrowConfig, UnmaskedNarrowConfig>;
  constexpr int kUnmaskedNarrowSteps =
      largest_step_class(typename UnmaskedNarrowConfig::NarrowStepClassList{});
  // An UnmaskedConfig derived from Config is the same tile: no second kernel.
  constexpr bool kSeparateUnmaskedTableTile = !std::is_base_of_v<Config, UnmaskedConfig>;
  return with_kernel_mask(args, [&](auto mask) -> Status {
    using Mask = decltype(mask);
    // NoStagedTile (tile_config.hpp): 2-byte rows take the kernels below, on their general copy.
    if constexpr (!std::is_same_v<StagedConfig, NoStagedTile>) {
      if (staged) {
        return launch_with_shared_memory(
            &forward_kernel_unaligned_rows<StagedConfig, Element, Mask>,
            "sm80::forward_kernel_unaligned_rows",
            forward_grid<StagedConfig>(params, problem, mask), StagedConfig::kThreads,
            StagedConfig::kSharedBytes, args, params, mask);
      }
    }
    if constexpr (halved_walk_only<UnmaskedHalvedConfig>() && std::is_same_v<Mask, NoMask>) {
      if (halves_largest_class<UnmaskedHalvedConfig>(params.head_dim)) {
        return launch_with_shared_memory(
            &forward_kernel<UnmaskedHalvedConfig, Element, Mask>, "sm80::forward_kernel",
            forward_grid<UnmaskedHalvedConfig>(params, problem, mask),
            UnmaskedHalvedConfig::kThreads, UnmaskedHalvedConfig::kSharedBytes, args, params,
            mask);
      }
    }
    if constexpr (kSeparateUnmaskedTile && std::is_same_v<Mask, NoMask>) {
      if (steps <= kUnmaskedNarrowSteps) {
        return launch_with_shared_memory(
            &forward_kernel<UnmaskedNarrowConfig, Element, Mask>, "sm80::forward_kernel",
            forward_grid<UnmaskedNarrowConfig>(params, problem, mask),
            UnmaskedNarrowConfig::kThreads, UnmaskedNarrowConfig::kSharedBytes, args, params,
            mask);
      }
    }
    if constexpr (kSeparateNarrowTile) {
      if (narrow) {
        return launch_with_shared_memory(
            &forward_kernel<NarrowConfig, Element, Mask>, "sm80::forward_kernel",
            forward_grid<NarrowConfig>(params, problem, mask), NarrowConfig::kThreads,
            NarrowConfig::kSharedBytes, args, params, mask);
      }
    }
    // Not both: the table's unmasked kernel would be compiled and never launched.
    if constexpr (kSeparateUnmaskedTableTile && std::is_same_v<Mask, NoMask>) {
      return launch_with_shared_memory(
          &forward_kernel<UnmaskedConfig, Element, Mask>, "sm80::forward_kernel",
          forward_grid<UnmaskedConfig>(params, problem, mask), UnmaskedConfig::kThreads,
          UnmaskedConfig::kSharedBytes, args, params, mask);
    } else {
      return launch_with_shared_memory(&forward_kernel<Config, Element, Mask>,
                                       "sm80::forward_kernel",
                                       forward_grid<Config>(params, problem, mask),
                                       Config::kThreads, Config::kSharedBytes, args, params, mask);
    }
  });
}

template <class Config, class Element, class StagedConfig = Config, class NarrowConfig = Config,
          class UnmaskedNarrowConfig = NarrowConfig,
          class UnmaskedHalvedConfig = UnmaskedNarrowConfig, class UnmaskedConfig = Config>
Status launch_forward_with(const AttentionArgs& args) {
  return launch_forward_with<Config, Element, StagedConfig, NarrowConfig, UnmaskedNarrowConfig,
                             UnmaskedHalvedConfig, UnmaskedConfig>(args,
                                                                   forward_params<Element>(args));
}

// Shifted windows (forward_kernel_shifted_windows) on tile Config, for the rows
// uses_shifted_windows takes.
template <class Config, class Element>
Status launch_forward_shifted_windows(const AttentionArgs& args, const ForwardParams& params) {
  const Problem& problem = args.problem;
  ScopedDevice device(problem.device.index);
  if (problem.seqlen_q == 0 || problem.batch == 0 || problem.heads_q == 0) return Status::Ok();
  return with_kernel_mask(args, [&](auto mask) -> Status {
    using Mask = decltype(mask);
    return launch_with_shared_memory(&forward_kernel_shifted_windows<Config, Element, Mask>,
                                     "sm80::forward_kernel_shifted_windows",
                                     forward_grid<Config>(params, problem, mask), Config::kThreads,
                                     Config::kSharedBytes, args, params, mask);
  });
}

// Shifted windows of `steps` k-steps on WideWindowForwardConfig<kHeadDim, steps>, one kernel per
// class from kSteps to the bucket's width (launch_forward sends only windows in that range).
template <int kHeadDim, class Element, int kSteps>
Status launch_forward_wide_windows(const AttentionArgs& args, const ForwardParams& params,
                                   int steps) {
  static_assert(kSteps <= kHeadDim / kMmaK, "no class past the bucket's width");
  if constexpr (kSteps < kHeadDim / kMmaK) {
    if (steps != kSteps) {
      return launch_forward_wide_windows<kHeadDim, Element, kSteps + 1>(args, params, steps);
    }
  }
  return launch_forward_shifted_windows<WideWindowForwardConfig<kHeadDim, kSteps>, Element>(
      args, params);
}

// The most shared memory of the wide-window kernels from class kSteps to the bucket's width.
template <int kHeadDim, int kSteps>
constexpr int wide_window_shared_bytes() {
  constexpr int kBytes = WideWindowForwardConfig<kHeadDim, kSteps>::kSharedBytes;
  if constexpr (kSteps < kHeadDim / kMmaK) {
    constexpr int kWider = wide_window_shared_bytes<kHeadDim, kSteps + 1>();
    return kWider > kBytes ? kWider : kBytes;
  } else {
    return kBytes;
  }
}

// The buckets whose narrow tile runs shifted windows (uses_shifted_windows): D = 129..137 on
// the aligned D = 129..144 tile (forward v16), D = 65..89 on the 128 bucket's 64-key narrow
// tile (forward v19, whose 5- and 6-step classes span windows of up to 96 columns) and
// D = 193..201 on the 256 bucket's 13-step narrow tile (v19; the 128-key one where the device's
// blocks take its 192 KB). The 64 bucket has no step class to run a window in.
constexpr bool shifted_windows_compiled(int head_dim_bucket) {
  return head_dim_bucket == 128 || head_dim_bucket == 192 || head_dim_bucket == 256;
}

// The buckets that also run windows wider than their narrow tile's largest step class, up to
// the bucket, on WideWindowForwardConfig (tile_config.hpp; forward v21): D = 138..185 at 192 and
// 202..249 at 256 with 2-byte rows (to 186 / 250 with 4-byte, 188 / 252 with 8-byte ones), which
// took the staged kernel before; and at 128 (forward v22, classes 7-8 past the narrow tile's 6)
// D = 90..121 with 2-byte rows (to 122 with 4-byte, 124 with 8-byte ones).
constexpr bool wide_windows_compiled(int head_dim_bucket) {
  return head_dim_bucket == 128 || head_dim_bucket == 192 || head_dim_bucket == 256;
}

// Whether the problem's device lets one block take `bytes` of shared memory (Hopper's 227 KB
// against sm_80's 163 KB): what the large-shared-memory tiles of the forward and the backward
// ask before they launch.
inline Status device_fits_shared_bytes(const AttentionArgs& args, int bytes, bool* fits) {
  int shared_optin = 0;
  FATTN_RETURN_IF_ERROR(device_shared_bytes_optin(args, &shared_optin));
  *fits = shared_optin >= bytes;
  return Status::Ok();
}

// The one place that picks the forward's tiles: the table's, and for narrow head dims the
// large-shared-memory narrow tile where the device's blocks may take its shared memory
// (tile_config.hpp; asked only for head dims that tile covers, and only in buckets where it
// differs). Buckets have a large narrow tile or an unmasked narrow tile, not both. Rows only
// 2-byte aligned take the large-shared-memory staged tile the same way. On a device whose blocks
// take less than some tile of the table's roles needs (sm_86 / sm_89: 99 KB), the small roles
// (SmallSharedMemoryForwardTiles), and the shifted-window kernels only where they fit (their
// rows, not on 16-byte words, are then the roles' rows: 4- and 8-byte cp.async or the staged /
// general copy, as before the shifted kernels; forward_kernel.cuh's unshifted kernels take the
// alignment at run time).
// Whether a shifted window of `window_steps` k-steps has a class of its own in `Classes`. A class's
// walk masks K only where the row ends (its last step, or the second half of the one before), so
// a class wider than the window would multiply K's columns past the row, which may hold another
// head's non-finite values. In a build of every bucket each window in a bucket's shifted ranges
// has its class; with buckets pruned (FATTN_CUDA_HEAD_DIMS) a narrower head dim reaches a larger
// bucket, and its window takes the staged kernel there.
template <int... kClasses>
constexpr bool has_step_class(int window_steps, StepClasses<kClasses...>) {
  return ((window_steps == kClasses) || ...);
}

template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs& args) {
  using Narrow = NarrowForwardConfig<kHeadDim>;
  using LargeNarrow = LargeSharedMemoryNarrowForwardConfig<kHeadDim>;
  using UnmaskedNarrow = UnmaskedNarrowForwardConfig<kHeadDim>;
  using UnmaskedHalved = HalvedUnmaskedNarrowForwardConfig<kHeadDim>;
  using LargeStaged = LargeSharedMemoryStagedForwardConfig<kHeadDim>;
  using Unmasked = UnmaskedForwardConfig<kHeadDim>;
  // The most any role takes on a device with less shared memory per block than the table's tiles
  // need: tiles past it are asked about first (and skipped where they do not fit).
  constexpr int kSmallTilesBytes = small_tiles_forward_shared_bytes<kHeadDim>();
  const ForwardParams params = forward_params<Element>(args);
  const int window_steps = (params.window + kMmaK - 1) / kMmaK;
  if constexpr (shifted_windows_compiled(kHeadDim)) {
    constexpr int kWindowLimit = largest_step_class(typename Narrow::NarrowStepClassList{}) * kMmaK;
    if (uses_shifted_windows(params, kWindowLimit) &&
        has_step_class(window_steps, typename Narrow::NarrowStepClassList{})) {
      if constexpr (LargeNarrow::kSharedBytes != Narrow::kSharedBytes) {
        bool fits = false;
        FATTN_RETURN_IF_ERROR(device_fits_shared_bytes(args, LargeNarrow::kSharedBytes, &fits));
        if (fits) return launch_forward_shifted_windows<LargeNarrow, Element>(args, params);
      }
      bool fits = true;
      if constexpr (Narrow::kSharedBytes > kSmallTilesBytes) {
        FATTN_RETURN_IF_ERROR(device_fits_shared_bytes(args, Narrow::kSharedBytes, &fits));
      }
      // Where it does not fit, the rows take the small roles below (SmallSharedMemoryForwardTiles).
      if (fits) return launch_forward_shifted_windows<Narrow, Element>(args, params);
    }
  }
  if constexpr (wide_windows_compiled(kHeadDim)) {
    // Windows past the narrow tile's classes but within the bucket: the wide kernels' classes
    // start where the narrow tile's largest ends (narrower windows: has_step_class).
    constexpr int kFirstWideSteps = largest_step_class(typename Narrow::NarrowStepClassList{}) + 1;
    if (uses_shifted_windows(params, kHeadDim) && window_steps >= kFirstWideSteps) {
      constexpr int kWideBytes = wide_window_shared_bytes<kHeadDim, kFirstWideSteps>();
      bool fits = true;
      if constexpr (kWideBytes > kSmallTilesBytes) {
        FATTN_RETURN_IF_ERROR(device_fits_shared_bytes(args, kWideBytes, &fits));
      }
      if (fits) {
        return launch_forward_wide_windows<kHeadDim, Element, kFirstWideSteps>(args, params,
                                                                                window_steps);
      }
    }
  }
  if constexpr (LargeStaged::kSharedBytes != StagedForwardConfig<kHeadDim>::kSharedBytes) {
    constexpr int kLargeStagedSteps =
        largest_step_class(typename LargeStaged::NarrowStepClassList{});
    if (uses_staged_loads(static_cast<int>(args.problem.alignment_bytes)) &&
        (args.problem.head_dim + kMmaK - 1) / kMmaK <= kLargeStagedSteps) {
      bool fits = false;
      FATTN_RETURN_IF_ERROR(device_fits_shared_bytes(args, LargeStaged::kSharedBytes, &fits));
      if (fits) {
        return launch_forward_with<ForwardConfig<kHeadDim>, Element, LargeStaged, Narrow,
                                   UnmaskedNarrow, UnmaskedHalved, Unmasked>(args, params);
      }
    }
  }
  if constexpr (LargeNarrow::kSharedBytes != Narrow::kSharedBytes) {
    static_assert(std::is_base_of_v<Narrow, UnmaskedNarrow>, "one narrow alternative per bucket");
    constexpr int kLargeNarrowSteps =
        largest_step_class(typename LargeNarrow::NarrowStepClassList{});
    if ((args.problem.head_dim + kMmaK - 1) / kMmaK <= kLargeNarrowSteps) {
      bool fits = false;
      FATTN_RETURN_IF_ERROR(device_fits_shared_bytes(args, LargeNarrow::kSharedBytes, &fits));
      if (fits) {
        return launch_forward_with<ForwardConfig<kHeadDim>, Element, StagedForwardConfig<kHeadDim>,
                                   LargeNarrow, LargeNarrow, LargeNarrow, Unmasked>(args, params);
      }
    }
  }
  // A device whose blocks do not take every tile of the table's roles (sm_86 / sm_89: 99 KB) runs
  // the small roles (tile_config.hpp, SmallSharedMemoryForwardTiles).
  if constexpr (table_forward_shared_bytes<kHeadDim>() > kSmallTilesBytes) {
    bool fits = false;
    FATTN_RETURN_IF_ERROR(
        device_fits_shared_bytes(args, table_forward_shared_bytes<kHeadDim>(), &fits));
    if (!fits) {
      using Small = SmallSharedMemoryForwardTiles<kHeadDim>;
      return launch_forward_with<typename Small::Table, Element, typename Small::Staged,
                                 typename Small::Narrow, typename Small::UnmaskedNarrow,
                                 typename Small::UnmaskedHalved, typename Small::Unmasked>(args,
                                                                                          params);
    }
  }
  return launch_forward_with<ForwardConfig<kHeadDim>, Element, StagedForwardConfig<kHeadDim>,
                             Narrow, UnmaskedNarrow, UnmaskedHalved, Unmasked>(args, params);
}

}  // namespace fattn::detail::sm80
