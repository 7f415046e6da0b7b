// Parsers for the three texts cuobjdump prints about a binary's embedded cubins:
//   --dump-sass            the machine code of every function,
//   --dump-resource-usage  registers, shared/local/stack bytes per function,
//   --dump-elf             the .nv.info attributes, where ptxas marks spill/refill instructions.
// Each returns one entry per cubin, in the order cuobjdump printed them. The same mangled name
// can occur in several cubins (one per arch, and one per translation unit for a template
// instantiated twice), so a function is identified by (arch, mangled name, occurrence).
//
// The parsers accept a whole fatbin dump ("Fatbin elf code:" blocks, PTX blocks skipped) or the
// dump of a single .cubin file (no Fatbin header). Lines they do not recognise are ignored, so
// that new fields in a newer cuobjdump do not break the audit.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fattn::audit {

struct SassInstruction {
  std::uint32_t offset = 0;  // byte offset within the function, as printed in /*0a40*/
  std::string opcode;        // mnemonic with modifiers, without predicate or operands
};

// A function's instructions, kept compactly: a big kernel has tens of thousands, and the audit
// needs only how many of each opcode there are and where the local-memory accesses sit (to
// measure the spills marked by offset in the ELF info).
struct SassFunction {
  std::string mangled_name;
  std::map<std::string, std::int64_t> opcode_counts;  // "HMMA.16816.F32" -> 128
  std::int64_t instruction_count = 0;
  std::vector<SassInstruction> local_memory_accesses;  // every LDL and STL, in address order
};

struct SassCubin {
  std::string arch;  // "sm_80", "sm_90a"
  std::vector<SassFunction> functions;
};

std::vector<SassCubin> parse_sass(std::istream& text);

// One SASS line's instruction, or none for headers, blank lines and the encoding-only lines.
std::optional<SassInstruction> parse_sass_instruction(const std::string& line);

struct ResourceUsage {
  int registers = 0;
  std::int64_t shared_bytes = 0;  // static shared memory; dynamic shared memory is set at launch
  std::int64_t stack_bytes = 0;   // the per-thread stack frame (local arrays and spills live here)
  std::int64_t local_bytes = 0;   // local memory outside the stack frame
  std::int64_t constant_bank0_bytes = 0;  // kernel parameters and driver constants
};

struct ResourceFunction {
  std::string mangled_name;
  ResourceUsage usage;
};

struct ResourceCubin {
  std::string arch;
  std::vector<ResourceFunction> functions;
};

std::vector<ResourceCubin> parse_resource_usage(std::istream& text);

// Offsets of the instructions ptxas annotated as register spills or refills (EIATTR_ANNOTATIONS
// "SpillRefill"): the spilled bytes are the widths of the LDL/STL at those offsets.
struct SpillAnnotations {
  std::string mangled_name;
  std::vector<std::uint32_t> offsets;
};

struct ElfInfoCubin {
  std::string arch;
  std::vector<SpillAnnotations> functions;  // every function with a .nv.info section
};

std::vector<ElfInfoCubin> parse_elf_info(std::istream& text);

// "sm_90a" from either form cuobjdump prints: "sm_90a" (fatbin headers) or "sm=90a" (ELF header).
std::string normalize_arch(const std::string& text);

}  // namespace fattn::audit
