// What each kernel family declares about its machine code, and the check of every kernel of the
// library against its family's declaration.
//
// A declaration is what the design promises: the CUDA-core kernel must really be FFMA on CUDA
// cores (no tensor cores), the sm80 kernels must really use mma.sync fed by ldmatrix and
// cp.async, the Hopper kernels wgmma fed by TMA; and no family may touch local memory, because
// a spill or a run-time-indexed register array in an inner loop costs more than the kernel's
// whole arithmetic. The compiler changes none of that silently once the audit runs in CI.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "instruction_classes.hpp"
#include "kernel_report.hpp"

namespace fattn::audit {

enum class Requirement : std::uint8_t {
  present,  // every listed class occurs at least once
  absent,   // no listed class occurs
};

struct InstructionRule {
  std::string name;  // "tensor-core MMA via mma.sync", said when the rule breaks
  Requirement requirement;
  std::vector<InstructionClass> classes;
};

// Small kernels that serve a family's main kernels (a backward pass's preprocessing, a dq
// conversion) do no MMA and are declared apart, by their base name (no namespace, no template
// arguments), with rules of their own.
struct HelperKernels {
  std::vector<std::string> base_names;
  std::vector<InstructionRule> rules;
};

struct KernelFamily {
  std::string name;             // the backend's name: "cuda_sm80"
  std::string namespace_token;  // kernels live in fattn::...::<token>:: ("sm80")
  // The archs whose cubins the rules apply to; empty: every arch the library was built for.
  std::vector<std::string> archs;
  std::vector<InstructionRule> rules;  // for the family's main kernels
  HelperKernels helpers;
  // Main kernels that differ from `rules` by design, declared apart by base name like helpers.
  HelperKernels variants;

  // The rules that apply to a kernel of this family, by its qualified name.
  const std::vector<InstructionRule>& rules_for(const std::string& qualified_name) const;
};

// The declarations of the four CUDA kernel families (cuda_standard, cuda_simt, cuda_sm80,
// cuda_sm90).
const std::vector<KernelFamily>& declared_families();

// "absent LDL STL — no local memory: ...": what a rule asks, in one line.
std::string describe(const InstructionRule& rule);

// The family a kernel belongs to, from its qualified name: a kernel of fattn:: whose namespace
// path holds the family's token (fattn::detail::sm80::kernel), or, failing that, whose full name
// holds "::<token>::" for exactly one family (a generic kernel templated on sm80::Traits).
// Null for kernels outside fattn:: and for fattn kernels of no family (undeclared).
const KernelFamily* family_of(const KernelReport& kernel, const std::vector<KernelFamily>& families);

bool belongs_to_fattn(const KernelReport& kernel);

enum class KernelStatus : std::uint8_t {
  passed,       // its family's rules hold
  violated,     // a rule of its family broke
  undeclared,   // a fattn kernel that matches no family
  other_arch,   // a family kernel in a cubin its family does not target (rules not applied)
};

const char* to_string(KernelStatus status);

struct AuditedKernel {
  KernelReport report;
  const KernelFamily* family = nullptr;
  KernelStatus status = KernelStatus::passed;
  std::vector<std::string> broken_rules;  // "absent LDL STL — no local memory: ...; found LDL=3 STL=2"
};

struct AuditResult {
  std::vector<AuditedKernel> kernels;       // the kernels of fattn::, in dump order
  std::int64_t ignored_outside_fattn = 0;   // cuBLAS-like kernels of other namespaces
  // Families the build says are compiled but that have no kernel (at all, or in an arch the
  // library was built for): "cuda_sm90: no kernel in the sm_90a cubins".
  std::vector<std::string> missing_families;
  bool family_presence_checked = false;  // false when the build could not be asked

  std::int64_t count(KernelStatus status) const;
  // No violation and no missing family; with `strict`, no undeclared kernel either.
  bool passed(bool strict) const;
};

// Checks every kernel against its family. `compiled_families` holds the names of the families
// the library says it contains (fattn::backend_compiled); nullopt skips the presence check.
AuditResult audit_kernels(std::vector<KernelReport> reports, const std::vector<KernelFamily>& families,
                          const std::optional<std::set<std::string>>& compiled_families);

}  // namespace fattn::audit
