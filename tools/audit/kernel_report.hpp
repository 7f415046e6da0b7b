// One row of the audit: a kernel in one cubin, with its instruction-class counts, resources and
// spills, joined from the three cuobjdump dumps.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cuobjdump_parsers.hpp"
#include "instruction_classes.hpp"

namespace fattn::audit {

struct SpillBytes {
  std::int64_t store_bytes = 0;  // registers written to local memory
  std::int64_t load_bytes = 0;   // and read back
  std::int64_t total() const { return store_bytes + load_bytes; }
};

struct KernelReport {
  std::string mangled_name;
  std::string demangled_name;
  std::string qualified_name;  // no return type, no parameters
  std::string short_name;      // what the table shows
  std::string arch;            // "sm_80", "sm_90a"
  InstructionCounts counts{};
  std::int64_t instruction_count = 0;
  std::map<std::string, std::int64_t> opcode_counts;  // every opcode, for --json
  std::optional<ResourceUsage> resources;  // none when the resource dump lacks the kernel
  std::optional<SpillBytes> spills;        // none when the ELF dump lacks the kernel
};

// Counts of the classes the audit tracks, from a function's opcode histogram.
InstructionCounts count_classes(const std::map<std::string, std::int64_t>& opcode_counts);

// Bytes moved by one LDL/STL ("STL.64" -> 8, "LDL.LU.128" -> 16, "LDL.U8" -> 1, "STL" -> 4).
std::int64_t local_access_bytes(const std::string& opcode);

// The spilled bytes of `function`: the widths of its LDL/STL at the annotated offsets.
SpillBytes measure_spills(const SassFunction& function, const std::vector<std::uint32_t>& spill_offsets);

// Joins the dumps. A function is matched across them by (arch, mangled name, occurrence), so
// the k-th copy of a name in one arch's SASS meets the k-th copy in the other dumps. Every
// function of the SASS dump gives one report, in the dump's order. A function without a stack
// frame has no spills, so the ELF dump is only needed for functions with one.
std::vector<KernelReport> build_kernel_reports(const std::vector<SassCubin>& sass,
                                               const std::vector<ResourceCubin>& resources,
                                               const std::vector<ElfInfoCubin>& elf_info);

}  // namespace fattn::audit
