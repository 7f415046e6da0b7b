// Host-side launch of the Hopper forward kernel for one (head-dim bucket, element type); it picks
// the kernel's work width from D at run time (tile_config.hpp, "Work widths"). The
// generated files src/cuda/instantiations/sm90_fwd_d<D>_<dtype>.cu include this header and
// instantiate launch_forward explicitly; the instance registry (cuda/common/instances.hpp)
// picks the instantiation for a problem.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "api/attention_args.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/common/launch_kernel.cuh"
#include "cuda/common/stream.hpp"
#include "cuda/sm90/forward_kernel.cuh"
#include "cuda/sm90/heads_as_columns.hpp"
#include "cuda/sm90/launch.hpp"
#include "cuda/sm90/tensor_map.hpp"

namespace fattn::detail::sm90 {

inline constexpr float kLog2e = 1.4426950408889634f;
// The kernel parameter space of every CUDA version (12.1 raised it to 32,764 bytes, which fattn
// does not rely on).
inline constexpr std::size_t kKernelParameterLimitBytes = 4096;

// The four tensor maps of one launch. Maps the kernel never reads get any valid map.
struct ForwardMaps {
  CUtensorMap q{};
  CUtensorMap k{};
  CUtensorMap v{};
  CUtensorMap o{};
};

// Maps for tensors that are 16-byte aligned throughout: one box per 64 columns of one head.
// `out_tma_columns`: the output columns the TMA-store epilogue stores (tile_config.hpp), each
// consumer's 64 rows one box per 64 columns. TMA writes whole 16-byte units, so its map stops at
// the last full unit of a row; the kernel stores the few columns past it itself
// (ForwardParams::out_tma_columns).
template <class Traits>
Status make_aligned_maps(const AttentionArgs& args, long long out_tma_columns, ForwardMaps* maps) {
  if (Status s = make_attention_tensor_map(&maps->q, args.q, Traits::kBlockM); !s.ok()) return s;
  if (out_tma_columns > 0) {
    TensorView out_columns = args.out;
    out_columns.shape[3] = out_tma_columns;
    if (Status s = make_attention_tensor_map(&maps->o, out_columns, kWgmmaM); !s.ok()) return s;
  } else {
    maps->o = maps->q;
  }
  if (args.problem.seqlen_k > 0) {
    if (Status s = make_attention_tensor_map(&maps->k, args.k, Traits::kBlockN); !s.ok()) return s;
    if (Status s = make_attention_tensor_map(&maps->v, args.v, Traits::kBlockN); !s.ok()) return s;
  } else {
    // No key tile is ever loaded (every row is fully masked).
    maps->k = maps->q;
    maps->v = maps->q;
  }
  return Status::Ok();
}

// Maps for the heads-as-columns kernels (heads_as_columns.hpp), boxes of `box_columns`, and
// where each tensor's heads start in their rows. O leaves by the kernel's own stores
// (output_staging.cuh): no output map.
template <class Traits>
Status make_heads_as_columns_maps(const AttentionArgs& args, int box_columns, ForwardMaps* maps,
                                  ForwardParams* params) {
  if (Status s = make_heads_as_columns_tensor_map(&maps->q, &params->q_columns, args.q,
                                                  Traits::kBlockM, box_columns);
      !s.ok()) {
    return s;
  }
  maps->o = maps->q;
  if (args.problem.seqlen_k == 0) {
    maps->k = maps->q;
    maps->v = maps->q;
    return Status::Ok();
  }
  if (Status s = make_heads_as_columns_tensor_map(&maps->k, &params->k_columns, args.k,
                                                  Traits::kBlockN, box_columns);
      !s.ok()) {
    return s;
  }
  return make_heads_as_columns_tensor_map(&maps->v, &params->v_columns, args.v, Traits::kBlockN,
                                          box_columns);
}

// The tail maps of a heads-as-columns kernel of width kWidth (forward_kernel.cuh, TailBoxMaps):
// boxes of the kWidth % 64 columns its last column block holds; empty where there are none.
template <class Traits, int kWidth>
Status make_tail_box_maps(const AttentionArgs& args, TailBoxMapsOf<true, kWidth>* tails) {
  if constexpr (tail_boxes<true, kWidth>) {
    ForwardMaps maps;
    ForwardParams params;
    if (Status s = make_heads_as_columns_maps<Traits>(args, kWidth % kTmaColumns, &maps, &params);
        !s.ok()) {
      return s;
    }
    tails->q = maps.q;
    tails->k = maps.k;
    tails->v = maps.v;
  }
  return Status::Ok();
}

// Sector-aligned boxes (forward_kernel.cuh, kSectorBoxes): `bits->step` = kSectorShiftColumns
// where the tensor's head stride is an odd multiple of 16 bytes (every other head's rows start
// 16 bytes into a 32-byte sector), else 0. False where the base address, the sequence stride or
// the batch stride is not a 32-byte multiple (strides of extent-1 dimensions do not count): the
// kernel tells the rows' sector phase from the head alone.
inline bool sector_box_bits(const TensorView& tensor, HeadColumns* bits) {
  constexpr std::uint64_t kSector = 32;
  const std::uint64_t element = size_of(tensor.dtype);
  const auto bytes = [&](int d) { return static_cast<std::uint64_t>(tensor.stride[d]) * element; };
  if (reinterpret_cast<std::uintptr_t>(tensor.data) % kSector != 0) return false;
  for (int d : {0, 1}) {
    if (tensor.shape[d] > 1 && bytes(d) % kSector != 0) return false;
  }
  bits->origin = 0;
  bits->step = tensor.shape[2] > 1 && bytes(2) % kSector != 0 ? kSectorShiftColumns : 0;
  return true;
}

// Query tiles per pair from which the causal launches of partial-box rows take one-pair groups
// (launch_forward_shape): N = 4k at 128-row tiles.
inline constexpr int kPartialBoxOnePairGroupsMinQueryTiles = 32;

// One tile shape's launch: the bucket's, or (kFitShape) its fit shape, which is compiled only at
// the bucket's full width, for the masks it names and for tensors that TMA addresses throughout
// (launch_forward).
template <int kHeadDim, class Element, bool kFitShape>
Status launch_forward_shape(const AttentionArgs& args) {
  using Traits = ForwardTraits<kHeadDim, Element, kHeadDim, kFitShape>;
  const Problem& problem = args.problem;
  if (problem.seqlen_q == 0) return Status::Ok();

  // Tensors that are 16-byte aligned throughout run the kernels they always ran (the output
  // needs it only for TMA stores); the others (the selector checked their sequence and batch
  // strides: forward_reads_heads_as_columns) read heads as columns and store O by their own
  // stores (output_staging.cuh).
  const bool heads_as_columns =
      !(tensor_map_can_address(args.q) && tensor_map_can_address(args.k) &&
        tensor_map_can_address(args.v) &&
        (!Traits::kTmaStoreAny || tensor_map_can_address(args.out)));
  if (heads_as_columns && (kFitShape || !heads_as_columns_compiled(kHeadDim))) {
    return Status::Unsupported("cuda_sm90: the " + std::to_string(kHeadDim) +
                               " bucket has no kernels for tensors that are not 16-byte aligned");
  }
  ForwardParams params;
  ForwardMaps maps;
  constexpr long long kTmaStoreUnitElements = 16 / sizeof(Element);
  const long long out_tma_columns =
      Traits::kTmaStoreAny && !heads_as_columns
          ? problem.head_dim / kTmaStoreUnitElements * kTmaStoreUnitElements
          : 0;
  if (Status s = heads_as_columns
                     ? make_heads_as_columns_maps<Traits>(args, kTmaColumns, &maps, &params)
                     : make_aligned_maps<Traits>(args, out_tma_columns, &maps);
      !s.ok()) {
    return s;
  }

  // D = 16·k + 8 (the work width W = D + 8 holds the head from column 8) with K's or V's rows
  // off the 32-byte grid at some head: the sector-aligned-box kernels (tile_config.hpp,
  // sector_boxes_compiled), whose output leaves by TMA stores.
  bool sector_boxes = false;
  if (!heads_as_columns && Traits::kTmaStoreAny && problem.head_dim % 16 == 8 &&
      out_tma_columns == problem.head_dim && problem.seqlen_k > 0 &&
      sector_boxes_compiled(kHeadDim, work_width(problem.head_dim))) {
    HeadColumns k_bits, v_bits;
    if (sector_box_bits(args.k, &k_bits) && sector_box_bits(args.v, &v_bits) &&
        (k_bits.step | v_bits.step) != 0) {
      sector_boxes = true;
      params.k_columns = k_bits;
      params.v_columns = v_bits;
    }
  }

  params.out = args.out.data;
  params.lse = static_cast<float*>(args.lse.data);
  params.out_stride_batch = args.out.stride[0];
  params.out_stride_seq = args.out.stride[1];
  params.out_stride_head = args.out.stride[2];
  params.lse_stride_batch = args.lse.stride[0];
  params.lse_stride_head = args.lse.stride[1];
  params.seqlen_q = static_cast<int>(problem.seqlen_q);
  params.seqlen_k = static_cast<int>(problem.seqlen_k);
  params.heads_q = static_cast<int>(problem.heads_q);
  params.group_size = args.group_size();
  params.head_dim = static_cast<int>(problem.head_dim);
  params.num_m_blocks = static_cast<int>((problem.seqlen_q + Traits::kBlockM - 1) / Traits::kBlockM);
  params.out_tma_columns = static_cast<int>(out_tma_columns);
  // Causal: the padding of the last query tile, in whole 64-row slices, moves before row 0
  // (forward_kernel.cuh, causal_padding_first).
  if (causal_padding_first<Traits> && args.mask.kind == MaskKind::causal) {
    const std::int64_t padding =
        std::int64_t{params.num_m_blocks} * Traits::kBlockM - problem.seqlen_q;
    params.row_offset = static_cast<int>(padding / kWgmmaM * kWgmmaM);
  }
  params.scale = args.scale;
  params.scale_log2 = args.scale * kLog2e;

  params.batch = static_cast<int>(problem.batch);

  // Persistent grid: one CTA per SM (each needs a whole SM's shared memory and registers), or
  // fewer when there are fewer tiles.
  int device = 0;
  int sm_count = 0;
  int l2_bytes = 0;
  FATTN_CUDA_TRY(cudaGetDevice(&device));
  FATTN_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  FATTN_CUDA_TRY(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  const std::int64_t kv_bytes_per_pair =
      2 * problem.seqlen_k * problem.head_dim * static_cast<std::int64_t>(sizeof(Element));
  const std::int64_t pairs = problem.batch * problem.heads_q;
  const std::int64_t total_tiles = std::int64_t{params.num_m_blocks} * pairs;
  // Small balanced groups (tile_scheduler.hpp balanced_small_group) for the causal launches whose
  // rows end in a partial 64-column TMA box (a work width that is not whole boxes, sector boxes,
  // heads as columns), where the rule's groups of 33 pairs past 8 query tiles read K/V from DRAM
  // far more than small groups do: sector boxes at every N, the other partial widths from
  // kPartialBoxOnePairGroupsMinQueryTiles query tiles.
  // - v36 (twenty-fifth session, perf-notes "v36"; bench/results/gpu-check-h100-2026-11-24-
  //   session25/call6, call8, call9) gave them one pair per group: at B = 4, H = 16 (64 pairs,
  //   balance 0.97) packed D = 136 / 152 4k x1.30-1.34, 8k / 16k x1.55-2.15, 16k D = 144 x1.35,
  //   160 x1.16, 240 x2.19, packed 105 / 129 / 161 / 234 x1.42-1.73; at 2k mixed (112 / 129 0.92,
  //   80 / 240 1.03-1.04), so not below 4k.
  // - v37 (twenty-sixth session, perf-notes "v37"; bench/results/gpu-check-h100-2026-11-24-
  //   session26/call2): with few pairs one pair per group is unbalanced (D = 144 16k B = 1 H = 14
  //   386 TFLOP/s against 613 for one group of all 14 pairs; D = 240 B = 1 H = 8 413 against 745;
  //   D = 160 B = 1 H = 12 398 against 667), so they take the smallest balanced group instead.
  // Whole-box launches keep the rule (but the 256 bucket's, below): one-pair groups lost 24-36 %
  // at D = 64 / 128 / 256 16k causal (call 8; v14 before), which the simulated balance explains
  // (0.56-0.79 there).
  const bool partial_box_causal =
      args.mask.kind == MaskKind::causal &&
      (sector_boxes || ((heads_as_columns ||
                         work_width(problem.head_dim) % kSwizzleSpanColumns != 0) &&
                        params.num_m_blocks >= kPartialBoxOnePairGroupsMinQueryTiles));
  const int rule_pairs = heads_per_group(
      l2_bytes, kv_bytes_per_pair, pairs, params.num_m_blocks, sm_count,
      args.mask.kind != MaskKind::none, Traits::kShape.one_pair_groups_max_m_blocks,
      Traits::kShape.small_n_pairs_per_query_tile);
  // The 256 bucket's whole-box causal launches too (TileShape::balanced_small_causal_groups).
  const bool small_causal_groups =
      partial_box_causal ||
      (Traits::kShape.balanced_small_causal_groups && args.mask.kind == MaskKind::causal &&
       params.num_m_blocks > Traits::kShape.one_pair_groups_max_m_blocks);
  params.heads_per_group =
      small_causal_groups
          ? balanced_small_group(params.num_m_blocks, static_cast<int>(pairs), sm_count,
                                 problem.seqlen_q, problem.seqlen_k, Traits::kBlockM,
                                 Traits::kBlockN, params.row_offset, rule_pairs)
          : rule_pairs;
  if (total_tiles > std::numeric_limits<int>::max()) {
    return Status::Unsupported("cuda_sm90: more than 2^31 query tiles (batch x heads x seqlen_q / " +
                               std::to_string(Traits::kBlockM) + ")");
  }
  const dim3 grid(static_cast<unsigned>(std::min<std::int64_t>(total_tiles, sm_count)));
  const dim3 block(Traits::kThreads);

  // The narrowest compiled work width that covers D (the bucket's list ends with the bucket).
  // Heads as columns: D columns at any phase their alignment allows within their first word.
  const int needed_width = heads_as_columns
                               ? heads_as_columns_width(problem.head_dim, problem.alignment_bytes)
                               : work_width(problem.head_dim);
  if (needed_width > (heads_as_columns ? std::min(kHeadDim, kHeadsAsColumnsMaxWidth) : kHeadDim)) {
    return Status::Unsupported("cuda_sm90: head_dim " + std::to_string(problem.head_dim) +
                               " at its tensors' phases needs more than the " +
                               std::to_string(kHeadDim) + " bucket's columns");
  }
  auto launch_width = [&]<int kWidth>(std::integer_sequence<int, kWidth>) -> Status {
    using WidthTraits = ForwardTraits<kHeadDim, Element, kWidth, kFitShape>;
    static_assert(WidthTraits::kSmemBytes == Traits::kSmemBytes &&
                      WidthTraits::kBlockM == Traits::kBlockM &&
                      WidthTraits::kBlockN == Traits::kBlockN &&
                      WidthTraits::kTmaStoreAny == Traits::kTmaStoreAny,
                  "a work width keeps its bucket's shared-memory layout and TMA boxes");
    const auto launch_mask = [&](auto mask) -> Status {
      using Mask = decltype(mask);
      // Every kernel parameter, with the padding in front of each aligned one, inside the 4 KB
      // that a launch passes in constant memory on every CUDA version.
      constexpr std::size_t kParameterBytes =
          4 * sizeof(CUtensorMap) + sizeof(Mask) + alignof(ForwardParams) +
          sizeof(ForwardParams) + alignof(TailBoxMaps) + sizeof(TailBoxMaps);
      static_assert(kParameterBytes <= kKernelParameterLimitBytes,
                    "the kernel's parameters fit a launch's parameter space");
      if constexpr (kFitShape) {
        using Fit = FitTileConfig<kHeadDim>;
        constexpr bool kFitHasMask = (std::is_same_v<Mask, NoMask> && Fit::kUnmasked) ||
                                     (std::is_same_v<Mask, CausalMask> && Fit::kCausal);
        if constexpr (kFitHasMask && kWidth == kHeadDim) {
          return launch_with_shared_memory(
              &forward_kernel<kHeadDim, kWidth, Element, Mask, false, false, false, true>,
              "sm90::forward_kernel", grid, block, Traits::kSmemBytes, args, maps.q, maps.k,
              maps.v, maps.o, mask, params, NoTailBoxMaps{});
        } else {
          return Status::Unsupported("cuda_sm90: the fit tile shape has no kernel for this mask "
                                     "or work width");
        }
      }
      if constexpr (heads_as_columns_compiled(kHeadDim) && kWidth <= kHeadsAsColumnsMaxWidth) {
        if (heads_as_columns) {
          TailBoxMapsOf<true, kWidth> tails;
          if (Status s = make_tail_box_maps<Traits, kWidth>(args, &tails); !s.ok()) return s;
          return launch_with_shared_memory(
              &forward_kernel<kHeadDim, kWidth, Element, Mask, true, true>,
              "sm90::forward_kernel", grid, block, Traits::kSmemBytes, args, maps.q, maps.k, maps.v,
              maps.o, mask, params, tails);
        }
      }
      if constexpr (sector_boxes_compiled(kHeadDim, kWidth, std::is_same_v<Mask, WindowMask>) &&
                    (std::is_same_v<Mask, NoMask> ? Traits::kShape.tma_store
                                                  : Traits::kShape.tma_store_masked)) {
        if (sector_boxes) {
          return launch_with_shared_memory(
              &forward_kernel<kHeadDim, kWidth, Element, Mask, false, false, true>,
              "sm90::forward_kernel", grid, block, Traits::kSmemBytes, args, maps.q, maps.k,
              maps.v, maps.o, mask, params, NoTailBoxMaps{});
        }
      }
      // A producer-store kernel (tile_config.hpp, producer_stores) has no path for the columns
      // past the last 16-byte unit: such head dims run the register-store kernel.
      if constexpr (kProducerStoresOutput<WidthTraits, Mask>) {
        if (out_tma_columns < problem.head_dim) {
          return launch_with_shared_memory(
              &forward_kernel<kHeadDim, kWidth, Element, Mask, true>, "sm90::forward_kernel",
              grid, block, Traits::kSmemBytes, args, maps.q, maps.k, maps.v, maps.o, mask, params,
              NoTailBoxMaps{});
        }
      }
      return launch_with_shared_memory(&forward_kernel<kHeadDim, kWidth, Element, Mask>,
                                       "sm90::forward_kernel", grid, block, Traits::kSmemBytes,
                                       args, maps.q, maps.k, maps.v, maps.o, mask, params,
                                       NoTailBoxMaps{});
    };
    return with_mask(args, launch_mask);
  };
  Status status = Status::Ok();
  bool launched = false;
  [&]<int... kWidths>(std::integer_sequence<int, kWidths...>) {
    ((!launched && needed_width <= kWidths
          ? (status = launch_width(std::integer_sequence<int, kWidths>{}), launched = true)
          : false),
     ...);
  }(typename WorkWidths<kHeadDim>::List{});
  return status;
}

template <int kHeadDim, class Element>
Status launch_forward(const AttentionArgs& args) {
  if constexpr (FitTileConfig<kHeadDim>::kCompiled) {
    using Fit = FitTileConfig<kHeadDim>;
    constexpr TileShape kBucket = TileConfig<kHeadDim>::kShape;
    const Problem& problem = args.problem;
    const bool causal = args.mask.kind == MaskKind::causal;
    const bool fit_has_mask =
        (args.mask.kind == MaskKind::none && Fit::kUnmasked) || (causal && Fit::kCausal);
    if (fit_has_mask && work_width(problem.head_dim) == kHeadDim && tensor_map_can_address(args.q) &&
        tensor_map_can_address(args.k) && tensor_map_can_address(args.v) &&
        tensor_map_can_address(args.out) &&
        fit_shape_pays(problem.seqlen_q,
                       walked_tile_area(problem.seqlen_q, problem.seqlen_k, kBucket.block_m,
                                        kBucket.block_n, causal),
                       walked_tile_area(problem.seqlen_q, problem.seqlen_k, Fit::kShape.block_m,
                                        Fit::kShape.block_n, causal))) {
      return launch_forward_shape<kHeadDim, Element, true>(args);
    }
  }
  return launch_forward_shape<kHeadDim, Element, false>(args);
}

}  // namespace fattn::detail::sm90
