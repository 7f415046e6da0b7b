#include "api/selector.hpp"

#include <array>
#include <string>

#if FATTN_HAS_CUDA
#include "cuda/common/instances.hpp"  // which generated kernel instances this build kept
#include "cuda/common/shared_memory_needs.hpp"  // the families' smallest tiles per block
#endif
#include "cuda/sm90/heads_as_columns.hpp"  // host-only: the forward's unaligned-rows rule

namespace fattn::detail {
namespace {

constexpr int kAmpereCapability = 80;  // mma.sync m16n8k16, ldmatrix, cp.async
constexpr int kHopperCapability = 90;  // wgmma/TMA kernels are built as sm_90a: exactly 9.0
constexpr std::int64_t kMaxGridYZ = 65535;  // CUDA's limit on gridDim.y and gridDim.z
constexpr std::size_t kTmaAlignmentBytes = 16;  // TMA: global address and strides

// Preference order for Backend::automatic. The standard backends materialize S and P; they
// exist to be compared against and run only when asked for by name.
constexpr std::array kCpuPreference = {Backend::cpu_flash};
constexpr std::array kCudaPreference = {Backend::cuda_sm90, Backend::cuda_sm80,
                                        Backend::cuda_simt};

bool is_cpu_backend(Backend b) {
  return b == Backend::cpu_reference || b == Backend::cpu_standard || b == Backend::cpu_flash;
}

bool is_half_precision(DType dtype) {
  return dtype == DType::float16 || dtype == DType::bfloat16;
}

std::string name(Backend backend) { return to_string(backend); }

}  // namespace

// The backend's own rules; why_backend_cannot_run adds the check for a compiled instance.
static std::optional<std::string> why_backend_rules_refuse(Backend backend, const Problem& problem,
                                                           const DeviceInfo& device) {
  if (!backend_compiled(backend)) {
    return name(backend) + " is not compiled into this build of fattn";
  }
  const bool on_cpu = problem.device.type == DeviceType::cpu;
  if (is_cpu_backend(backend)) {
    if (!on_cpu) return name(backend) + " runs on the CPU, but the tensors are on " +
                        to_string(problem.device);
    return std::nullopt;
  }
  if (on_cpu) return name(backend) + " runs on CUDA devices, but the tensors are on the CPU";
  if (!device.present) return "no CUDA device " + to_string(problem.device) + " is available";

  switch (backend) {
    case Backend::cuda_standard:
      return std::nullopt;
    case Backend::cuda_simt:
      // One grid row per head and one grid layer per batch entry, as in cuda_sm80.
      if (problem.heads_q > kMaxGridYZ || problem.batch > kMaxGridYZ) {
        return name(backend) + " runs one grid row per head and batch entry, at most " +
               std::to_string(kMaxGridYZ) + " each; got heads_q " +
               std::to_string(problem.heads_q) + ", batch " + std::to_string(problem.batch);
      }
      return std::nullopt;
    case Backend::cuda_sm80:
      if (device.compute_capability < kAmpereCapability) {
        return name(backend) + " needs compute capability 8.0 or newer, the device has " +
               std::to_string(device.compute_capability / 10) + "." +
               std::to_string(device.compute_capability % 10);
      }
      if (!is_half_precision(problem.dtype)) {
        return name(backend) + " takes float16 or bfloat16, got " + to_string(problem.dtype);
      }
      // Heads and batch index the grid's y and z dimensions (at most 65535 each).
      if (problem.heads_q > kMaxGridYZ || problem.batch > kMaxGridYZ) {
        return name(backend) + " runs one grid row per head and batch entry, at most " +
               std::to_string(kMaxGridYZ) + " each; got heads_q " +
               std::to_string(problem.heads_q) + ", batch " + std::to_string(problem.batch);
      }
      return std::nullopt;
    case Backend::cuda_sm90:
      if (device.compute_capability != kHopperCapability) {
        return name(backend) + " needs a Hopper GPU (compute capability 9.0), the device has " +
               std::to_string(device.compute_capability / 10) + "." +
               std::to_string(device.compute_capability % 10);
      }
      if (!is_half_precision(problem.dtype)) {
        return name(backend) + " takes float16 or bfloat16, got " + to_string(problem.dtype);
      }
      // The backward accumulates dQ with fp32 atomics in no fixed order; cuda_sm80 has the
      // ordered (deterministic) variant. Its grid is (key tiles, KV heads, batch).
      if (problem.direction == Direction::backward && problem.options.deterministic) {
        return name(backend) + " has no deterministic backward yet (cuda_sm80 has one)";
      }
      // The forward's online softmax takes the running max of the raw scores and folds the
      // scale into the exponent; with a negative scale every exponent is >= 0 and grows with
      // the scores' spread times |scale| (fp32 exp2 overflows past 128). cuda_sm80 negates the
      // Q tile once instead, which keeps every exponent <= 0.
      if (problem.direction == Direction::forward && problem.options.softmax_scale &&
          *problem.options.softmax_scale < 0.0f) {
        return name(backend) + " takes a positive softmax_scale in the forward (its running "
               "max is of the unscaled scores); got " +
               std::to_string(*problem.options.softmax_scale) + ", which cuda_sm80 runs";
      }
      if (problem.direction == Direction::backward &&
          (problem.heads_kv > kMaxGridYZ || problem.batch > kMaxGridYZ)) {
        return name(backend) + " runs its backward with one grid row per KV head and batch entry, "
               "at most " + std::to_string(kMaxGridYZ) + " each; got heads_kv " +
               std::to_string(problem.heads_kv) + ", batch " + std::to_string(problem.batch);
      }
      // TMA descriptors need 16-byte-aligned base pointers and row/head/batch strides (an odd
      // head dim in a packed layout breaks this). The forward also reads tensors whose sequence
      // and batch strides alone are aligned, heads as columns of one row
      // (sm90/heads_as_columns.hpp); other inputs fall back to cuda_sm80.
      if (problem.alignment_bytes < kTmaAlignmentBytes &&
          !sm90::forward_reads_heads_as_columns(problem)) {
        return name(backend) + " loads tiles with TMA, which needs 16-byte-aligned pointers and "
               "strides; these tensors are aligned to " + std::to_string(problem.alignment_bytes) +
               " bytes (pad the head dimension to a multiple of 8)";
      }
      return std::nullopt;
    default:
      return "unknown backend";
  }
}

std::optional<std::string> why_backend_cannot_run(Backend backend, const Problem& problem,
                                                  const DeviceInfo& device) {
  if (auto reason = why_backend_rules_refuse(backend, problem, device)) return reason;
#if FATTN_HAS_CUDA
  // Kernel families whose instances the build options pruned refuse what they left out.
  if (auto missing = why_no_compiled_instance(backend, problem)) return missing;
  // A device whose blocks take less shared memory than the family's smallest tiles (a test's
  // cap below an sm_86 card's 99 KB, or cuda_sm90 on anything but a full Hopper).
  if (auto short_of = why_shared_memory_is_short(backend, problem, device)) return short_of;
#endif
  return std::nullopt;
}

Selection select_backend(const Problem& problem, const DeviceInfo& device) {
  const Backend requested = problem.options.backend;
  if (requested != Backend::automatic) {
    if (auto reason = why_backend_cannot_run(requested, problem, device)) return {{}, *reason};
    return {requested, {}};
  }
  std::string reasons;
  auto try_in_order = [&](const auto& preference) -> Selection {
    for (Backend candidate : preference) {
      auto reason = why_backend_cannot_run(candidate, problem, device);
      if (!reason) return {candidate, {}};
      reasons += (reasons.empty() ? "" : "; ") + *reason;
    }
    return {{}, "no backend can run this problem: " + reasons};
  };
  return problem.device.type == DeviceType::cpu ? try_in_order(kCpuPreference)
                                                : try_in_order(kCudaPreference);
}

}  // namespace fattn::detail
