// Definition of sm80::launch_backward (included by the generated instantiation files).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/launch_kernel.cuh"
#include "cuda/common/stream.hpp"
#include "cuda/common/workspace.hpp"
#include "cuda/sm80/backward_deterministic_tables.hpp"
#include "cuda/sm80/backward_kernel.cuh"
#include "cuda/sm80/backward_small_tile_config.hpp"
#include "cuda/sm80/forward.cuh"
#include "cuda/sm80/launch.hpp"
#include "cuda/sm80/mask_kind.hpp"

namespace fattn::detail::sm80 {

inline std::size_t aligned_bytes(std::size_t bytes) {
  return static_cast<std::size_t>(workspace_aligned_bytes(static_cast<std::int64_t>(bytes)));
}

// The grid of the pre- and postprocess over `rows` query rows of every (head, batch), and the
// threads each row takes (backward_row_passes.cuh, kRowPassThreads).
struct RowPassLaunch {
  dim3 grid;
  int threads_per_row;
};
inline RowPassLaunch row_pass_launch(int rows, const Problem& problem, int head_dim) {
  const int threads_per_row = row_pass_threads_per_row(head_dim);
  const int rows_per_block = kRowPassThreads / threads_per_row;
  return {dim3(static_cast<unsigned>((rows + rows_per_block - 1) / rows_per_block),
               static_cast<unsigned>(problem.heads_q), static_cast<unsigned>(problem.batch)),
          threads_per_row};
}

// The parts of a backward around its main kernel, shared with the Hopper backward (which runs
// these same pre- and postprocess kernels around its wgmma main kernel): the parameter block,
// the workspace (fp32 dQ accumulator, LSE·log2e and D_i per row padded to `block_m`, and the
// deterministic mode's semaphores) and the preprocess launch. `workspace` must outlive every
// kernel that reads it (the caller's scope). `accum_floats` (the Hopper backward's register-order
// dQ accumulator, padded to whole query tiles): the accumulator's size in floats when larger
// than the row layout's; the floats past the rows the preprocess zeroes are zeroed here.
// `dq_tickets` (FusedDqConversion, default mode only): the main kernel converts dQ
// (params.dq_fused); a zeroed ticket per (batch, head, query tile) where the deterministic
// semaphores go (dq_tickets_of).
template <class Element>
Status start_backward(const AttentionArgs& args, int block_m, Workspace& workspace,
                      BackwardParams& params, std::size_t accum_floats = 0,
                      bool dq_tickets = false) {
  const Problem& problem = args.problem;
  const cudaStream_t stream = stream_of(args);
  fill_shared_params(params, args);
  params.dout = args.dout.data;
  params.lse = static_cast<const float*>(args.lse.data);
  params.dq = args.dq.data;
  params.dk = args.dk.data;
  params.dv = args.dv.data;
  params.dout_strides = strides_of(args.dout);
  params.dq_strides = strides_of(args.dq);
  params.dk_strides = strides_of(args.dk);
  params.dv_strides = strides_of(args.dv);
  params.scale = args.scale;
  params.q_end = end_of<Element>(args.q);
  params.k_end = end_of<Element>(args.k);
  params.v_end = end_of<Element>(args.v);
  params.dout_end = end_of<Element>(args.dout);
  const int accum_columns = std::max(params.dq_accum_shifted
                                         ? widest_window(params.head_dim, params.alignment)
                                         : params.head_dim,
                                     params.dq_accum_min_width);
  params.dq_accum_stride = (accum_columns + kMmaK - 1) / kMmaK * kMmaK;

  const std::int64_t batch = problem.batch;
  const std::int64_t heads_q = problem.heads_q;
  const int m_blocks = (params.seqlen_q + block_m - 1) / block_m;
  params.rows_rounded = m_blocks * block_m;
  const bool deterministic = problem.options.deterministic;

  const std::size_t row_accum_floats =
      static_cast<std::size_t>(batch * heads_q * problem.seqlen_q) * params.dq_accum_stride;
  const std::size_t accum_bytes =
      aligned_bytes(sizeof(float) * (accum_floats > row_accum_floats ? accum_floats
                                                                      : row_accum_floats));
  // The tickets' place is derived from this in the main kernel (dq_tickets_of).
  const auto stat_bytes =
      static_cast<std::size_t>(row_statistics_bytes(batch, heads_q, params.rows_rounded));
  const std::size_t semaphore_bytes =
      deterministic || dq_tickets ? aligned_bytes(sizeof(int) * batch * heads_q * m_blocks) : 0;
  FATTN_RETURN_IF_ERROR(workspace.allocate(accum_bytes + 2 * stat_bytes + semaphore_bytes));
  auto* base = workspace.as<unsigned char>();
  params.dq_accum = reinterpret_cast<float*>(base);
  params.lse_log2 = reinterpret_cast<float*>(base + accum_bytes);
  params.delta = reinterpret_cast<float*>(base + accum_bytes + stat_bytes);
  if (deterministic || dq_tickets) {
    int* const counters = reinterpret_cast<int*>(base + accum_bytes + 2 * stat_bytes);
    if (deterministic) {
      params.semaphores = counters;
    } else {
      params.dq_fused = true;
    }
    FATTN_CUDA_TRY(cudaMemsetAsync(counters, 0, semaphore_bytes, stream));
  }
  if (accum_floats > row_accum_floats) {
    FATTN_CUDA_TRY(cudaMemsetAsync(params.dq_accum + row_accum_floats, 0,
                                   sizeof(float) * (accum_floats - row_accum_floats), stream));
  }

  if (m_blocks > 0) {
    const RowPassLaunch launch =
        row_pass_launch(params.rows_rounded, args.problem, params.head_dim);
    backward_preprocess_kernel<Element>
        <<<launch.grid, kRowPassThreads, 0, stream>>>(params, launch.threads_per_row);
    FATTN_CUDA_TRY_LAUNCH("sm80::backward_preprocess_kernel");
    count_launches(args);
  }
  return Status::Ok();
}

// dQ = scale · accumulator, converted to the storage type (after the main kernel), unless the
// main kernel did (params.dq_fused, FusedDqConversion).
template <class Element>
Status finish_backward(const AttentionArgs& args, const BackwardParams& params) {
  if (params.seqlen_q == 0 || params.dq_fused) return Status::Ok();
  const RowPassLaunch launch = row_pass_launch(params.seqlen_q, args.problem, params.head_dim);
  backward_postprocess_kernel<Element>
      <<<launch.grid, kRowPassThreads, 0, stream_of(args)>>>(params, launch.threads_per_row);
  FATTN_CUDA_TRY_LAUNCH("sm80::backward_postprocess_kernel");
  count_launches(args);
  return Status::Ok();
}

// The full-width kernel of step class kSteps (NarrowStepClasses, DqStepClasses) for a head dim
// of `steps` k-steps, if Config has that class; else nullptr.
template <class Config, class Element, class Mask, int kSteps = Config::kFirstStepClass>
auto narrow_class_kernel(int steps) -> void (*)(BackwardParams, Mask) {
  if constexpr (kSteps > Config::kLastStepClass) {
    return nullptr;
  } else {
    if (steps == kSteps) return &backward_kernel<Config, Element, Mask, true, false, kSteps>;
    return narrow_class_kernel<Config, Element, Mask, kSteps + 1>(steps);
  }
}

// Any tile configuration; launch_backward uses the table's. bench/sm80_bwd_variants.cu and
// bench/sm80_bwd_timeline_shim.cu also run alternatives through this to measure the table's
// choices against them.
// kUnmaskedOnly: a NoMask launch's configuration (DeterministicUnmaskedBackward); the masked
// kernels are not compiled for it. kMaskedOnly: a masked launch's (DeterministicMaskedBackward);
// the NoMask kernels are not compiled for it. kShifted: shifted windows (backward_windows.cuh),
// for the problems uses_backward_windows takes, in Config's full-width kernel from
// min_head_dim_over_zeros on where shifted_windows_over_zeros says so, else in its general one.
template <class Config, class Element, bool kUnmaskedOnly = false, bool kMaskedOnly = false,
          bool kShifted = false>
Status launch_backward_with(const AttentionArgs& args) {
  const Problem& problem = args.problem;
  ScopedDevice device(problem.device.index);

  // The full-width kernel where D fills the bucket, and over zero-filled columns from
  // min_head_dim_over_zeros on for 16-byte rows and, where shifted_windows_over_zeros says so, for
  // shifted windows (backward_tile_config.hpp). Narrower rows that shifted windows do not take
  // (GQA) keep the general kernel, and so do all narrower head dims with FillingHeadDimsOnly.
  constexpr int kMinOverZeros = min_head_dim_over_zeros(Config::kWidth);
  constexpr bool kOverZeros = Config::kFullWidthKernel && kMinOverZeros <= Config::kWidth &&
                              !filling_head_dims_only<Config>() &&
                              (!kShifted || shifted_windows_over_zeros<Config>());
  // Every head dim of the bucket: no general kernel with shifted windows is compiled.
  constexpr bool kShiftedAlwaysFullWidth = kShifted && kOverZeros && kMinOverZeros <= 1;
  const bool over_zeros = kOverZeros && problem.head_dim >= kMinOverZeros;
  const bool full_width =
      kShifted ? over_zeros
               : Config::kFullWidthKernel &&
                     ((problem.head_dim + kMmaK - 1) / kMmaK * kMmaK == Config::kWidth ||
                      (over_zeros && static_cast<int>(problem.alignment_bytes) >= kWidest));
  BackwardParams params;
  params.dq_accum_shifted = kShifted;
  if (full_width) params.dq_accum_min_width = Config::kWidth;
  const int n_blocks =
      static_cast<int>((problem.seqlen_k + Config::kBlockN - 1) / Config::kBlockN);
  // FusedDqConversion (backward_tile_config.hpp): the NoMask full-width kernels convert dQ
  // themselves (no postprocess) in the default mode, for 16-byte-aligned rows of whole 16-byte
  // chunks and few query tiles per head group.
  bool fuse_dq = false;
  if constexpr (fused_dq_conversion<Config>() && Config::kFullWidthKernel && !kShifted) {
    const auto m_blocks =
        (problem.seqlen_q + Config::kBlockM - 1) / Config::kBlockM;
    fuse_dq = full_width && !problem.options.deterministic &&
              static_cast<int>(problem.alignment_bytes) >= kWidest &&
              problem.head_dim % kRowChunkElements == 0 && n_blocks > 0 &&
              m_blocks > 0 && m_blocks * args.group_size() <= kFusedDqMaxTiles &&
              args.mask.kind == MaskKind::none;
  }
  Workspace workspace(args);
  FATTN_RETURN_IF_ERROR(
      start_backward<Element>(args, Config::kBlockM, workspace, params, 0, fuse_dq));

  if (n_blocks > 0) {
    const dim3 grid(static_cast<unsigned>(n_blocks), static_cast<unsigned>(problem.heads_kv),
                    static_cast<unsigned>(problem.batch));
    FATTN_RETURN_IF_ERROR(with_kernel_mask(args, [&](auto mask) -> Status {
      using Mask = decltype(mask);
      if constexpr (kUnmaskedOnly && !std::is_same_v<Mask, NoMask>) {
        return Status::Unsupported("sm80 backward: a NoMask-only configuration got a mask");
      } else if constexpr (kMaskedOnly && std::is_same_v<Mask, NoMask>) {
        return Status::Unsupported("sm80 backward: a masked-only configuration got no mask");
      } else {
        // Only the kernels this configuration can launch are instantiated.
        void (*kernel)(BackwardParams, Mask) = nullptr;
        if constexpr (!kShiftedAlwaysFullWidth) {
          kernel = &backward_kernel<general_kernel_config<Config>, Element, Mask, false, kShifted>;
        }
        if constexpr (Config::kFullWidthKernel && (!kShifted || kOverZeros)) {
          if (full_width) kernel = &backward_kernel<Config, Element, Mask, true, kShifted>;
        }
        // A narrow step class where Config has one for the head dim's k-steps.
        if constexpr (Config::kFullWidthKernel && !kShifted && narrow_step_classes<Config>()) {
          if (full_width) {
            auto* const narrow = narrow_class_kernel<Config, Element, Mask>(
                (problem.head_dim + kMmaK - 1) / kMmaK);
            if (narrow != nullptr) kernel = narrow;
          }
        }
        return launch_with_shared_memory(kernel, "sm80::backward_kernel", grid, Config::kThreads,
                                         Config::kSharedBytes, args, params, mask);
      }
    }));
  }
  return finish_backward<Element>(args, params);
}

// Whether the device's blocks may take Config's shared memory: asked only where it exceeds the
// base table's (BackwardConfig), which launch_backward has found the device to hold.
template <class Config, int kHeadDim>
Status fits_shared_memory(const AttentionArgs& args, bool* fits) {
  *fits = true;
  if constexpr (Config::kSharedBytes != BackwardConfig<kHeadDim>::kSharedBytes) {
    return device_fits_shared_bytes(args, Config::kSharedBytes, fits);
  }
  return Status::Ok();
}

// Whether a backward runs shifted windows (backward_windows.cuh) in a bucket `width` wide: rows
// not on 16-byte words, no GQA group (one Q and one dO shift per CTA), the window inside the
// bucket, Q and dO rows whole words apart (every row of a head at the same shift) and both
// tensors starting and ending on a word (every copied word lies inside them: memcheck counts a
// cp.async as 16 bytes read, whatever its source size). K and V are staged, any rows.
// Elsewhere load_tile's 4- or 8-byte cp.async or 16-bit loads copy such rows.
template <class Element>
bool uses_backward_windows(const AttentionArgs& args, int width) {
  const Problem& problem = args.problem;
  const int alignment = static_cast<int>(problem.alignment_bytes);
  if (alignment >= kWidest || args.group_size() != 1) return false;
  const int window = widest_window(static_cast<int>(problem.head_dim), alignment);
  if ((window + kMmaK - 1) / kMmaK * kMmaK > width) return false;
  if (strides_of(args.q).row % kChunkElements != 0 ||
      strides_of(args.dout).row % kChunkElements != 0) {
    return false;
  }
  return on_word_boundary(args.q.data) && on_word_boundary(end_of<Element>(args.q)) &&
         on_word_boundary(args.dout.data) && on_word_boundary(end_of<Element>(args.dout));
}

// The one place that picks the backward's tile configuration (backward_tile_config.hpp): the
// table's, the large-shared-memory table's where the device's blocks may take its shared memory,
// and on those devices the deterministic mode's own where it differs; deterministic NoMask
// launches of few keys take DeterministicUnmaskedBackward's (key tiles slowest in head groups,
// perf-notes "Backward v24"), deterministic masked launches DeterministicMaskedBackward's where
// it has one (v34). Shifted windows run the table's kernels (the large table's where the device
// fits it; full-width or general, launch_backward_with) in both modes: the deterministic mode is
// a run-time flag of those kernels. On devices whose blocks may not take the base table's shared
// memory (sm_86 / sm_89: 99 KB) every launch, both modes, every mask, GQA and rows off 16-byte
// words alike, takes the bucket's small table (SmallSharedMemoryBackward; the Large and
// deterministic tables are no smaller than the base table): its lean full-width kernel where D
// fills the bucket (at 64 also, with 16-byte rows, from min_head_dim_over_zeros on), else its
// general kernel. No shifted windows there: the general kernel's copies take those rows 4 or 8
// bytes or 16 bits at a time. Below the small table's bytes (the base table's where the bucket
// has no small table: 256) the launch is refused before it writes anything.
template <int kHeadDim, class Element>
Status launch_backward(const AttentionArgs& args) {
  using Small = typename SmallSharedMemoryBackward<kHeadDim>::type;
  bool base_fits = false;
  FATTN_RETURN_IF_ERROR(
      device_fits_shared_bytes(args, BackwardConfig<kHeadDim>::kSharedBytes, &base_fits));
  if (!base_fits) {
    if constexpr (std::is_void_v<Small>) {
      return require_shared_bytes(args, BackwardConfig<kHeadDim>::kSharedBytes,
                                  "sm80::backward_kernel");
    } else {
      // No FusedDqConversion (its tickets are not asked for here) and no shifted windows.
      static_assert(Small::kSharedBytes < BackwardConfig<kHeadDim>::kSharedBytes &&
                    !fused_dq_conversion<Small>());
      FATTN_RETURN_IF_ERROR(
          require_shared_bytes(args, Small::kSharedBytes, "sm80::backward_kernel"));
      return launch_backward_with<Small, Element>(args);
    }
  }
  using Large = LargeSharedMemoryBackwardConfig<kHeadDim>;
  if (uses_backward_windows<Element>(args, kHeadDim)) {
    constexpr bool kShifted = true;
    if constexpr (Large::kSharedBytes != BackwardConfig<kHeadDim>::kSharedBytes) {
      bool fits = false;
      FATTN_RETURN_IF_ERROR((fits_shared_memory<Large, kHeadDim>(args, &fits)));
      if (fits) return launch_backward_with<Large, Element, false, false, kShifted>(args);
    }
    return launch_backward_with<BackwardConfig<kHeadDim>, Element, false, false, kShifted>(args);
  }
  using DeterministicLarge = typename LargeSharedMemoryDeterministicBackward<kHeadDim>::type;
  using Unmasked = DeterministicUnmaskedBackward<kHeadDim>;
  if constexpr (!std::is_void_v<typename Unmasked::type>) {
    using UnmaskedConfig = typename Unmasked::type;
    if (args.problem.options.deterministic && args.mask.kind == MaskKind::none &&
        args.problem.seqlen_k <= Unmasked::kMaxKeys) {
      bool fits = false;
      FATTN_RETURN_IF_ERROR((fits_shared_memory<UnmaskedConfig, kHeadDim>(args, &fits)));
      if (fits) return launch_backward_with<UnmaskedConfig, Element, true>(args);
    }
  }
  using MaskedConfig = typename DeterministicMaskedBackward<kHeadDim>::type;
  if constexpr (!std::is_void_v<MaskedConfig>) {
    if (args.problem.options.deterministic && args.mask.kind != MaskKind::none) {
      bool fits = false;
      FATTN_RETURN_IF_ERROR((fits_shared_memory<MaskedConfig, kHeadDim>(args, &fits)));
      if (fits) return launch_backward_with<MaskedConfig, Element, false, true>(args);
    }
  }
  if constexpr (Large::kSharedBytes != BackwardConfig<kHeadDim>::kSharedBytes) {
    bool fits = false;
    FATTN_RETURN_IF_ERROR((fits_shared_memory<Large, kHeadDim>(args, &fits)));
    if (fits) {
      if constexpr (!std::is_same_v<DeterministicLarge, Large>) {
        if (args.problem.options.deterministic) {
          return launch_backward_with<DeterministicLarge, Element>(args);
        }
      }
      return launch_backward_with<Large, Element>(args);
    }
  }
  return launch_backward_with<BackwardConfig<kHeadDim>, Element>(args);
}

}  // namespace fattn::detail::sm80
