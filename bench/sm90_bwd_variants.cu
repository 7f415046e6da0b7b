// Alternative tile shapes of the Hopper backward (src/cuda/sm90/backward_tile_config.hpp), bf16,
// built into one ctypes shim so that bench/sm90_bwd_variants.py can check and time them side by
// side with the committed shape, cuDNN and flash in one device call. Not part of the library.
//
// Built by bench/sm90_bwd_variants_build.sh: this file once per variant with
// -DFATTN_BWD_VARIANT=<index> (one kernel set per nvcc process, compiled in parallel), and once
// without it for the table and the C entry points.
#include <cuda_bf16.h>

#include <cstdint>
#include <utility>

#include "kernel_shim_common.hpp"
#include "cuda/sm90/backward.cuh"

namespace fattn_sm90_bwd_bench {

using fattn::detail::AttentionArgs;
using fattn::detail::sm90::BackwardTileShape;
using fattn::detail::sm90::DqSplit;
using fattn::detail::sm90::DqReduce;
using fattn::detail::sm90::GradSplit;

constexpr DqReduce kBulk = DqReduce::bulk_tensor;
// The dQ partial in register order, one 1-D bulk reduction per consumer step (the D = 128 row;
// d64_regorder: the same at D = 64, DqSplit::queries, 128-query steps).
constexpr DqReduce kRegOrder = DqReduce::bulk_register_order;
// GradIssue (backward_tile_config.hpp): around_dq = dV issued behind dPᵀ, dK behind the dQ
// product (the D = 128 row).
constexpr fattn::detail::sm90::GradIssue kAroundDq = fattn::detail::sm90::GradIssue::around_dq;

struct Variant {
  const char* name;
  int bucket;
  BackwardTileShape shape;
};

// Each bucket's committed row (backward_tile_config.hpp); a candidate shape goes beside its
// bucket's row, one row per line (bench/sm90_bwd_variants_build.sh counts the lines), and
// --bench prints its ratio to the bucket's first row. Earlier calls' rows (atomics against TMA
// reductions, the D = 64 query split, the D = 256 stage budgets, the CTA orders of
// bench/results/sm90-bwd-h100-2026-11-22-s6b/ and -s7/) are in this file's history.
constexpr Variant kVariants[] = {
    {"d64", 64, {128, 128, 2, DqSplit::queries, kBulk, GradSplit::keys}},
    {"d64_regorder", 64, {128, 128, 2, DqSplit::queries, kRegOrder, GradSplit::keys}},
    {"d128", 128,
     {64, 128, 2, DqSplit::head_dim, DqReduce::bulk_register_order, GradSplit::keys, kAroundDq}},
    {"d128_tensor", 128, {64, 128, 2, DqSplit::head_dim, kBulk, GradSplit::keys, kAroundDq}},
    {"d256", 256, {64, 64, 1, DqSplit::head_dim, kBulk, GradSplit::head_dim}},
    // DqSplit::alternate: per step one consumer computes the whole 64 × 128 dQ (m64n128 over
    // all 128 keys), in turns; the other arrives at the dS barrier and runs on (s16e). The
    // library's unmasked D = 128 row since session 17 (BackwardTileConfig128Unmasked: its NoMask
    // kernel is SASS-identical to this row's); "d128" above stays the masked kernels' row.
    {"d128_alt", 128,
     {64, 128, 2, DqSplit::alternate, kRegOrder, GradSplit::keys, kAroundDq}},
};

// The tile configuration type the kernel template takes (a namespace-scope type: a kernel's
// template argument may not be a local class).
template <int kIndex>
struct VariantConfig {
  static constexpr BackwardTileShape kShape = kVariants[kIndex].shape;
};

// Defined (and explicitly instantiated) only in the per-variant compilations; the entry points'
// compilation sees the declaration and links against them.
template <int kIndex>
fattn::Status launch_variant(const AttentionArgs& args)
#ifdef FATTN_BWD_VARIANT
{
  return fattn::detail::sm90::launch_backward_with<kVariants[kIndex].bucket, __nv_bfloat16,
                                                   VariantConfig<kIndex>>(args);
}
template fattn::Status launch_variant<FATTN_BWD_VARIANT>(const AttentionArgs& args);
#else
;

constexpr int kVariantCount = sizeof(kVariants) / sizeof(kVariants[0]);

template <int... kIndex>
fattn::Status launch_by_index(int index, const AttentionArgs& args,
                              std::integer_sequence<int, kIndex...>) {
  fattn::Status status = fattn::Status::Unsupported("no such backward variant");
  ((index == kIndex ? (status = launch_variant<kIndex>(args), true) : false) || ...);
  return status;
}
#endif

}  // namespace fattn_sm90_bwd_bench

#ifndef FATTN_BWD_VARIANT
using namespace fattn_sm90_bwd_bench;

extern "C" int fattn_sm90_bwd_variant_count() { return kVariantCount; }
extern "C" const char* fattn_sm90_bwd_variant_name(int index) { return kVariants[index].name; }
extern "C" int fattn_sm90_bwd_variant_bucket(int index) { return kVariants[index].bucket; }

// The backward of one variant, bf16. Strides in elements for (batch, seq, head) of q/k/v/out/dout
// and of dq/dk/dv (same shapes as q/k/v); lse (B, Hq, Nq) float32, natural log. Returns 0 on
// success, else 1 with the message in `error`.
extern "C" int fattn_sm90_bwd_variant_run(
    int index, void* q, void* k, void* v, void* out, void* dout, void* lse, void* dq, void* dk,
    void* dv, std::int64_t batch, std::int64_t seqlen_q, std::int64_t seqlen_k,
    std::int64_t heads_q, std::int64_t heads_kv, std::int64_t head_dim,
    const std::int64_t* q_strides, const std::int64_t* k_strides, const std::int64_t* v_strides,
    const std::int64_t* out_strides, const std::int64_t* dout_strides,
    const std::int64_t* dq_strides, const std::int64_t* dk_strides,
    const std::int64_t* dv_strides, float scale, int causal, void* stream, char* error,
    int error_bytes) {
  constexpr int kBf16 = 1;
  constexpr int kUnbounded = -1;
  AttentionArgs args = fattn_shim::forward_args(
      q, k, v, out, lse, kBf16, batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim, q_strides,
      k_strides, v_strides, out_strides, scale, causal, kUnbounded, kUnbounded, stream);
  const fattn::DType type = fattn::DType::bfloat16;
  args.dout = fattn_shim::view4(dout, type, batch, seqlen_q, heads_q, head_dim, dout_strides);
  args.dq = fattn_shim::view4(dq, type, batch, seqlen_q, heads_q, head_dim, dq_strides);
  args.dk = fattn_shim::view4(dk, type, batch, seqlen_k, heads_kv, head_dim, dk_strides);
  args.dv = fattn_shim::view4(dv, type, batch, seqlen_k, heads_kv, head_dim, dv_strides);
  args.problem.direction = fattn::Direction::backward;
  const fattn::Status status =
      index >= 0 && index < kVariantCount && kVariants[index].bucket >= head_dim
          ? launch_by_index(index, args, std::make_integer_sequence<int, kVariantCount>{})
          : fattn::Status::Unsupported("no such variant for this head dim");
  return fattn_shim::finish(status, error, error_bytes);
}
#endif
