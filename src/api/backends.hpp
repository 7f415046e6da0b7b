// The entry point of every backend. Each is called only after validation and selection, with
// at least one non-empty output, and must write every element of its outputs. Degenerate but
// valid shapes reach the backends: seqlen_k = 0 (out = 0, lse = -inf, dq = 0), seqlen_q = 0 in
// a backward (dk = dv = 0), and fully masked rows (out = 0, lse = -inf, no gradient).
#pragma once

#include "api/attention_args.hpp"

namespace fattn::detail {

Status cpu_reference_forward(const AttentionArgs& args);
Status cpu_reference_backward(const AttentionArgs& args);
Status cpu_standard_forward(const AttentionArgs& args);
Status cpu_standard_backward(const AttentionArgs& args);
Status cpu_flash_forward(const AttentionArgs& args);
Status cpu_flash_backward(const AttentionArgs& args);

#if FATTN_HAS_CUDA
Status cuda_standard_forward(const AttentionArgs& args);
Status cuda_standard_backward(const AttentionArgs& args);
Status cuda_simt_forward(const AttentionArgs& args);
Status cuda_simt_backward(const AttentionArgs& args);
#endif
#if FATTN_HAS_SM80
Status cuda_sm80_forward(const AttentionArgs& args);
Status cuda_sm80_backward(const AttentionArgs& args);
#endif
#if FATTN_HAS_SM90
Status cuda_sm90_forward(const AttentionArgs& args);
Status cuda_sm90_backward(const AttentionArgs& args);
#endif

}  // namespace fattn::detail
