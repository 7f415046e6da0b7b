// What a backend receives once validation and selection are done: resolved scale and mask,
// and views of every tensor. Backends never see Options directly.
#pragma once

#include "common/mask.hpp"
#include "fattn/fattn.hpp"

namespace fattn::detail {

enum class MaskKind : std::uint8_t { none, causal, window };

// The mask after flash_attn's rules are applied: causal forces right = 0; a causal mask with
// an unbounded left side is the plain CausalMask; a window with both sides unbounded is none.
struct MaskSpec {
  MaskKind kind = MaskKind::none;
  int left = -1;
  int right = -1;
};

MaskSpec resolve_mask(const Options& options);
float resolve_scale(const Options& options, std::int64_t head_dim);

struct AttentionArgs {
  Problem problem{};
  float scale = 1.0f;
  MaskSpec mask{};
  ExecutionContext context{};
  TensorView q, k, v, out, lse;  // forward inputs and outputs
  TensorView dout, dq, dk, dv;   // backward only (dout, dq, dk, dv empty in forward)

  int group_size() const { return static_cast<int>(problem.heads_q / problem.heads_kv); }
};

// Calls `body(mask)` with the policy type of args.mask, so kernels are compiled once per mask.
template <class Body>
decltype(auto) with_mask(const AttentionArgs& args, Body&& body) {
  const int nq = static_cast<int>(args.problem.seqlen_q);
  const int nk = static_cast<int>(args.problem.seqlen_k);
  switch (args.mask.kind) {
    case MaskKind::causal:
      return body(CausalMask{nq, nk});
    case MaskKind::window:
      return body(WindowMask{nq, nk, args.mask.left, args.mask.right});
    case MaskKind::none:
    default:
      return body(NoMask{nq, nk});
  }
}

}  // namespace fattn::detail
