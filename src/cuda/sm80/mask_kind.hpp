// The masks the sm80 kernels are compiled for: NoMask and WindowMask. Causal is the window
// (unbounded, 0), so it shares WindowMask's code: one instantiation fewer per kernel (CI compile
// time) at the cost of one extra comparison on the diagonal tiles only.
#pragma once

#include "api/attention_args.hpp"

namespace fattn::detail::sm80 {

template <class Body>
decltype(auto) with_kernel_mask(const AttentionArgs& args, Body&& body) {
  const int nq = static_cast<int>(args.problem.seqlen_q);
  const int nk = static_cast<int>(args.problem.seqlen_k);
  switch (args.mask.kind) {
    case MaskKind::causal:
      return body(WindowMask{nq, nk, static_cast<int>(kUnboundedWindow), 0});
    case MaskKind::window:
      return body(WindowMask{nq, nk, args.mask.left, args.mask.right});
    case MaskKind::none:
    default:
      return body(NoMask{nq, nk});
  }
}

}  // namespace fattn::detail::sm80
