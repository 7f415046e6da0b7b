// The public entry points: validate, describe, select, then hand over to one backend.
#include <algorithm>
#include <cmath>

#include "api/backends.hpp"
#include "api/device_query.hpp"
#include "api/selector.hpp"
#include "api/validate.hpp"
#include "fattn/fattn.hpp"

#ifndef FATTN_VERSION
#define FATTN_VERSION "0.0.0"
#endif

namespace fattn {

const char* version() { return FATTN_VERSION; }

const char* to_string(Backend backend) {
  switch (backend) {
    case Backend::automatic: return "auto";
    case Backend::cpu_reference: return "cpu_reference";
    case Backend::cpu_standard: return "cpu_standard";
    case Backend::cpu_flash: return "cpu_flash";
    case Backend::cuda_standard: return "cuda_standard";
    case Backend::cuda_simt: return "cuda_simt";
    case Backend::cuda_sm80: return "cuda_sm80";
    case Backend::cuda_sm90: return "cuda_sm90";
  }
  return "unknown";
}

std::optional<Backend> backend_from_string(std::string_view name) {
  constexpr Backend kAll[] = {Backend::automatic,     Backend::cpu_reference, Backend::cpu_standard,
                              Backend::cpu_flash,     Backend::cuda_standard, Backend::cuda_simt,
                              Backend::cuda_sm80,     Backend::cuda_sm90};
  if (name == "automatic") return Backend::automatic;
  for (Backend b : kAll) {
    if (name == to_string(b)) return b;
  }
  return std::nullopt;
}

bool backend_compiled(Backend backend) {
  switch (backend) {
    case Backend::cpu_reference:
    case Backend::cpu_standard:
    case Backend::cpu_flash: return true;
    case Backend::cuda_standard: return FATTN_HAS_CUDA != 0;
    case Backend::cuda_simt: return FATTN_HAS_SIMT != 0;
    case Backend::cuda_sm80: return FATTN_HAS_SM80 != 0;
    case Backend::cuda_sm90: return FATTN_HAS_SM90 != 0;
    case Backend::automatic: return true;
  }
  return false;
}

Problem Problem::describe(const TensorView& q, const TensorView& k, const Options& options,
                          Direction direction) {
  Problem p;
  p.batch = q.shape[0];
  p.seqlen_q = q.shape[1];
  p.heads_q = q.shape[2];
  p.head_dim = q.shape[3];
  p.seqlen_k = k.shape[1];
  p.heads_kv = k.shape[2];
  p.dtype = q.dtype;
  p.device = q.device;
  p.direction = direction;
  p.options = options;
  p.alignment_bytes = std::min(detail::vector_alignment_bytes(q), detail::vector_alignment_bytes(k));
  p.row_alignment_bytes =
      detail::head_phases_agree(q, k)
          ? std::min(detail::row_alignment_bytes(q), detail::row_alignment_bytes(k))
          : 1;
  return p;
}

Selection supports(const Problem& problem) {
  const detail::DeviceInfo device = problem.device.type == DeviceType::cuda
                                        ? detail::query_cuda_device(problem.device.index)
                                        : detail::DeviceInfo{};
  return detail::select_backend(problem, device);
}

namespace detail {

MaskSpec resolve_mask(const Options& options) {
  const int left = static_cast<int>(std::max<std::int64_t>(options.window.left, -1));
  const int right = options.causal ? 0 : static_cast<int>(std::max<std::int64_t>(options.window.right, -1));
  if (left < 0 && right < 0) return {MaskKind::none, -1, -1};
  if (left < 0 && right == 0) return {MaskKind::causal, -1, 0};
  return {MaskKind::window, left, right};
}

float resolve_scale(const Options& options, std::int64_t head_dim) {
  return options.softmax_scale ? *options.softmax_scale
                               : 1.0f / std::sqrt(static_cast<float>(head_dim));
}

namespace {

// Narrows the problem's alignment by every other tensor of the call.
void narrow_alignment(Problem& problem, std::initializer_list<const TensorView*> tensors) {
  for (const TensorView* t : tensors) {
    problem.alignment_bytes = std::min(problem.alignment_bytes, vector_alignment_bytes(*t));
    problem.row_alignment_bytes = std::min(problem.row_alignment_bytes, row_alignment_bytes(*t));
  }
}

Status run_selected(Backend backend, const AttentionArgs& args) {
  const bool fwd = args.problem.direction == Direction::forward;
  switch (backend) {
    case Backend::cpu_reference: return fwd ? cpu_reference_forward(args) : cpu_reference_backward(args);
    case Backend::cpu_standard: return fwd ? cpu_standard_forward(args) : cpu_standard_backward(args);
    case Backend::cpu_flash: return fwd ? cpu_flash_forward(args) : cpu_flash_backward(args);
#if FATTN_HAS_CUDA
    case Backend::cuda_standard: return fwd ? cuda_standard_forward(args) : cuda_standard_backward(args);
    case Backend::cuda_simt: return fwd ? cuda_simt_forward(args) : cuda_simt_backward(args);
#endif
#if FATTN_HAS_SM80
    case Backend::cuda_sm80: return fwd ? cuda_sm80_forward(args) : cuda_sm80_backward(args);
#endif
#if FATTN_HAS_SM90
    case Backend::cuda_sm90: return fwd ? cuda_sm90_forward(args) : cuda_sm90_backward(args);
#endif
    default: break;
  }
  return Status::Internal(std::string("the selector chose ") + to_string(backend) +
                          ", which has no entry point for this direction");
}

Status select_and_run(AttentionArgs& args) {
  const Selection selection = supports(args.problem);
  if (!selection.ok()) return Status::Unsupported(selection.reason);
  if (args.context.stats) *args.context.stats = RunStats{*selection.backend, 0, 0};
  // Nothing to write. (With seqlen_q = 0 but keys present, a backward still runs: it must
  // zero dk and dv.)
  const bool nothing_to_write = args.problem.direction == Direction::forward
                                    ? args.out.numel() == 0
                                    : args.dq.numel() == 0 && args.dk.numel() == 0;
  if (nothing_to_write) return Status::Ok();
  return run_selected(*selection.backend, args);
}

}  // namespace
}  // namespace detail

Status forward(const TensorView& q, const TensorView& k, const TensorView& v,
               const TensorView& out, const TensorView& lse, const Options& options,
               const ExecutionContext& context) {
  if (Status s = detail::validate_forward(q, k, v, out, lse, options); !s.ok()) return s;
  detail::AttentionArgs args;
  args.problem = Problem::describe(q, k, options, Direction::forward);
  detail::narrow_alignment(args.problem, {&v, &out});
  args.scale = detail::resolve_scale(options, args.problem.head_dim);
  args.mask = detail::resolve_mask(options);
  args.context = context;
  args.q = q, args.k = k, args.v = v, args.out = out, args.lse = lse;
  return detail::select_and_run(args);
}

Status backward(const TensorView& q, const TensorView& k, const TensorView& v,
                const TensorView& out, const TensorView& dout, const TensorView& lse,
                const TensorView& dq, const TensorView& dk, const TensorView& dv,
                const Options& options, const ExecutionContext& context) {
  if (Status s = detail::validate_backward(q, k, v, out, dout, lse, dq, dk, dv, options); !s.ok()) {
    return s;
  }
  detail::AttentionArgs args;
  args.problem = Problem::describe(q, k, options, Direction::backward);
  detail::narrow_alignment(args.problem, {&v, &out, &dout, &dq, &dk, &dv});
  args.scale = detail::resolve_scale(options, args.problem.head_dim);
  args.mask = detail::resolve_mask(options);
  args.context = context;
  args.q = q, args.k = k, args.v = v, args.out = out, args.lse = lse;
  args.dout = dout, args.dq = dq, args.dk = dk, args.dv = dv;
  return detail::select_and_run(args);
}

}  // namespace fattn
