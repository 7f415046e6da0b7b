// The run-time registry of the kernel instances compiled into this build.
//
// tools/codegen/generate_instantiations.py writes one .cu per (family, direction, head-dim
// bucket, dtype); src/cuda/CMakeLists.txt compiles those the pruning options keep and writes a
// table of them (build dir: generated/instance_table.inc). This registry answers, from that
// table, both "which instance runs this problem?" (a family's dispatcher) and "why can't
// anything of this family run it?" (the selector), so the two cannot disagree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/attention_args.hpp"

namespace fattn::detail {

enum class KernelFamily : std::uint8_t { simt, sm80, sm90 };

using LaunchFunction = Status (*)(const AttentionArgs&);

struct KernelInstance {
  KernelFamily family;
  Direction direction;
  int head_dim_bucket;  // the instance accepts every head_dim <= head_dim_bucket
  DType dtype;
  LaunchFunction launch;
};

// The kernel family a backend runs, or nullopt for one without instances (cuda_standard, CPU).
std::optional<KernelFamily> family_of(Backend backend);

// The instance with the smallest compiled bucket >= head_dim, or nullptr.
const KernelInstance* find_instance(KernelFamily family, Direction direction,
                                    std::int64_t head_dim, DType dtype);

// Why no compiled instance of `backend`'s family fits the problem (naming the pruning option
// when the build left it out), or nullopt when one does or the backend has no instances
// (cuda_standard).
std::optional<std::string> why_no_compiled_instance(Backend backend, const Problem& problem);

// The words why_no_compiled_instance uses when a full build has the kernel and this build's
// pruning options (FATTN_CUDA_FAMILIES / _HEAD_DIMS / _DTYPES / _ARCHS) left it out, so that a
// caller (the GPU test suites) can tell "pruned here" from "fattn has no such kernel".
inline constexpr const char* kPrunedFromBuild = "was left out of this build by its pruning options";

// Runs the instance that fits args, or returns Unsupported with the reason above.
Status launch_instance(KernelFamily family, const AttentionArgs& args);

}  // namespace fattn::detail
