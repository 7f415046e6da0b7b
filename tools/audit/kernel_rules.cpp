#include "kernel_rules.hpp"

#include <algorithm>
#include <map>

#include "kernel_names.hpp"

namespace fattn::audit {
namespace {

using IC = InstructionClass;

constexpr const char* kFattnNamespace = "fattn";

// Every family: local memory is a few hundred cycles away, so an LDL/STL in a flash kernel's
// inner loop (a spill, or a register array indexed at run time) erases what the tiling saved.
InstructionRule no_local_memory() {
  return {"no local memory: no spills, no run-time-indexed arrays", Requirement::absent, {IC::ldl, IC::stl}};
}

// The CUDA-core family exists for GPUs without tensor cores: one tensor-core instruction and
// it cannot run there.
InstructionRule no_tensor_cores() {
  return {"no tensor cores: it must run on GPUs that have none", Requirement::absent, {IC::hmma, IC::hgmma, IC::qgmma}};
}

std::vector<KernelFamily> make_families() {
  std::vector<KernelFamily> families;
  // The materializing baseline: its GEMMs are cuBLAS's (not in libfattn); its own kernels are
  // the softmax passes, which only need to stream rows without spilling.
  families.push_back({"cuda_standard", "standard", {}, {no_local_memory()}, {}});
  // The tensor-core families' backward passes run two row-wise kernels around the main one:
  // dot(dO, O) before it, and the fp32 dQ accumulator's scaling and conversion after it. They
  // stream rows and do no MMA; only the local-memory rule applies to them. The Hopper backward's
  // register-order dQ accumulator has a postprocess of its own (sm90/backward.cuh).
  const HelperKernels kBackwardHelpers{{"backward_preprocess_kernel", "backward_postprocess_kernel",
                                        "register_order_dq_postprocess_kernel"},
                                       {no_local_memory()}};
  // Without FFMA the CUDA-core kernel is not doing its math on the CUDA cores.
  families.push_back({"cuda_simt",
                      "simt",
                      {},
                      {{"fp32 math on the CUDA cores", Requirement::present, {IC::ffma}},
                       no_tensor_cores(),
                       no_local_memory()},
                      // The backward pass's row-wise dot(dO, O) ahead of the main kernels.
                      {{"preprocess_kernel"}, {no_tensor_cores(), no_local_memory()}}});
  // FlashAttention-2 class: mma.sync fed by ldmatrix from tiles that cp.async filled. Compiled
  // for sm_80 and, because sm_80 machine code does not run on Hopper, for sm_90a too.
  families.push_back({"cuda_sm80",
                      "sm80",
                      {},
                      {{"tensor-core MMA via mma.sync", Requirement::present, {IC::hmma}},
                       {"fragments loaded with ldmatrix", Requirement::present, {IC::ldsm}},
                       {"tiles filled with cp.async", Requirement::present, {IC::ldgsts}},
                       no_local_memory()},
                      // forward_kernel_unaligned_rows (rows only 2-byte aligned) is held to the
                      // same rules: it copies the aligned words covering its rows with cp.async
                      // and realigns them in shared memory (forward v11).
                      kBackwardHelpers});
  // Hopper: warpgroup MMA (wgmma) on tiles that TMA brought in; wgmma exists only in sm_90a.
  families.push_back({"cuda_sm90",
                      "sm90",
                      {"sm_90a"},
                      {{"warpgroup MMA: wgmma", Requirement::present, {IC::hgmma}},
                       {"tiles loaded by TMA", Requirement::present, {IC::utmaldg}},
                       no_local_memory()},
                      kBackwardHelpers});
  return families;
}

// The name without namespace and template arguments: "sm80::forward_kernel<Cfg<64> >" -> "forward_kernel".
std::string base_name(const std::string& qualified) {
  std::string last = name_components(qualified).back();
  return last.substr(0, last.find('<'));
}

bool contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// "LDL=3 STL=2"
std::string counts_text(const InstructionRule& rule, const InstructionCounts& counts) {
  std::string text;
  for (IC instruction_class : rule.classes) {
    if (!text.empty()) text += ' ';
    text += std::string(class_name(instruction_class)) + "=" + std::to_string(count_of(counts, instruction_class));
  }
  return text;
}

bool rule_holds(const InstructionRule& rule, const InstructionCounts& counts) {
  for (IC instruction_class : rule.classes) {
    const bool present = count_of(counts, instruction_class) > 0;
    if (rule.requirement == Requirement::present && !present) return false;
    if (rule.requirement == Requirement::absent && present) return false;
  }
  return true;
}

bool family_targets(const KernelFamily& family, const std::string& arch) {
  return family.archs.empty() || contains(family.archs, arch);
}

// Which families the build says it has, against which kernels the library holds: a compiled
// family needs kernels, and in every arch of the library that it targets (a family with no
// sm_90a kernels cannot run on Hopper however good its sm_80 ones are).
std::vector<std::string> find_missing_families(const std::vector<AuditedKernel>& kernels,
                                               const std::vector<KernelFamily>& families,
                                               const std::set<std::string>& compiled_families) {
  std::set<std::string> library_archs;
  std::map<std::string, std::set<std::string>> family_archs;
  for (const AuditedKernel& kernel : kernels) {
    library_archs.insert(kernel.report.arch);
    if (kernel.family != nullptr) family_archs[kernel.family->name].insert(kernel.report.arch);
  }
  std::vector<std::string> missing;
  for (const KernelFamily& family : families) {
    if (compiled_families.count(family.name) == 0) continue;
    const std::set<std::string>& found = family_archs[family.name];
    if (found.empty()) {
      missing.push_back(family.name + ": the library says it is compiled, but it has no kernel in fattn::...::" +
                        family.namespace_token + "::");
      continue;
    }
    for (const std::string& arch : library_archs) {
      if (family_targets(family, arch) && found.count(arch) == 0) {
        missing.push_back(family.name + ": no kernel in the " + arch + " cubins (the library is built for " + arch + ")");
      }
    }
  }
  return missing;
}

}  // namespace

const std::vector<KernelFamily>& declared_families() {
  static const std::vector<KernelFamily> families = make_families();
  return families;
}

const std::vector<InstructionRule>& KernelFamily::rules_for(const std::string& qualified_name) const {
  const std::string base = base_name(qualified_name);
  if (contains(variants.base_names, base)) return variants.rules;
  return contains(helpers.base_names, base) ? helpers.rules : rules;
}

std::string describe(const InstructionRule& rule) {
  std::string text = rule.requirement == Requirement::present ? "present" : "absent";
  for (IC instruction_class : rule.classes) text += " " + std::string(class_name(instruction_class));
  return text + " — " + rule.name;
}

bool belongs_to_fattn(const KernelReport& kernel) {
  return name_components(kernel.qualified_name).front() == kFattnNamespace;
}

const KernelFamily* family_of(const KernelReport& kernel, const std::vector<KernelFamily>& families) {
  if (!belongs_to_fattn(kernel)) return nullptr;
  const std::vector<std::string> path = name_components(kernel.qualified_name);
  // The namespaces between "fattn" and the kernel's own name.
  const std::vector<std::string> namespaces(path.begin() + 1, path.end() - 1);
  for (const KernelFamily& family : families) {
    if (contains(namespaces, family.namespace_token)) return &family;
  }
  const KernelFamily* only_match = nullptr;
  for (const KernelFamily& family : families) {
    if (kernel.demangled_name.find("::" + family.namespace_token + "::") == std::string::npos) continue;
    if (only_match != nullptr) return nullptr;  // two families named: neither can claim it
    only_match = &family;
  }
  return only_match;
}

const char* to_string(KernelStatus status) {
  switch (status) {
    case KernelStatus::passed: return "ok";
    case KernelStatus::violated: return "violated";
    case KernelStatus::undeclared: return "undeclared";
    case KernelStatus::other_arch: return "other-arch";
  }
  return "?";
}

std::int64_t AuditResult::count(KernelStatus status) const {
  return std::count_if(kernels.begin(), kernels.end(),
                       [status](const AuditedKernel& kernel) { return kernel.status == status; });
}

bool AuditResult::passed(bool strict) const {
  if (count(KernelStatus::violated) > 0 || !missing_families.empty()) return false;
  return !strict || count(KernelStatus::undeclared) == 0;
}

AuditResult audit_kernels(std::vector<KernelReport> reports, const std::vector<KernelFamily>& families,
                          const std::optional<std::set<std::string>>& compiled_families) {
  AuditResult result;
  for (KernelReport& report : reports) {
    if (!belongs_to_fattn(report)) {
      ++result.ignored_outside_fattn;
      continue;
    }
    AuditedKernel kernel;
    kernel.family = family_of(report, families);
    if (kernel.family == nullptr) {
      kernel.status = KernelStatus::undeclared;
    } else if (!family_targets(*kernel.family, report.arch)) {
      kernel.status = KernelStatus::other_arch;
    } else {
      for (const InstructionRule& rule : kernel.family->rules_for(report.qualified_name)) {
        if (!rule_holds(rule, report.counts)) {
          kernel.broken_rules.push_back(describe(rule) + "; found " + counts_text(rule, report.counts));
        }
      }
      kernel.status = kernel.broken_rules.empty() ? KernelStatus::passed : KernelStatus::violated;
    }
    kernel.report = std::move(report);
    result.kernels.push_back(std::move(kernel));
  }
  if (compiled_families) {
    result.family_presence_checked = true;
    result.missing_families = find_missing_families(result.kernels, families, *compiled_families);
  }
  return result;
}

}  // namespace fattn::audit
