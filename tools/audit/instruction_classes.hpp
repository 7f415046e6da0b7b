// The machine-instruction classes the audit counts: the ones that say which hardware path a
// kernel really uses (CUDA cores, mma.sync tensor cores, Hopper wgmma, async copies, TMA) and the
// ones that betray trouble (local memory).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace fattn::audit {

enum class InstructionClass : std::uint8_t {
  ffma,      // fp32 fused multiply-add on the CUDA cores
  hmma,      // mma.sync tensor-core MMA (sm_80 class)
  hgmma,     // wgmma with 16-bit inputs (Hopper warpgroup MMA)
  qgmma,     // wgmma with fp8 inputs
  ldgsts,    // cp.async: global -> shared without passing through registers
  ldsm,      // ldmatrix: shared -> registers in the MMA fragment layout
  stsm,      // stmatrix: registers -> shared
  utmaldg,   // TMA tensor load (cp.async.bulk.tensor global -> shared)
  utmastg,   // TMA tensor store (shared -> global)
  ublkcp,    // bulk copy without a tensor map (cp.async.bulk)
  bar,       // CTA barriers (bar.sync / __syncthreads, named barriers)
  shfl,      // warp shuffles
  mufu_ex2,  // the special-function unit's exp2
  ldl,       // loads from local memory (spills, run-time-indexed arrays)
  stl,       // stores to local memory
};

inline constexpr std::size_t kInstructionClassCount = 15;

using InstructionCounts = std::array<std::int64_t, kInstructionClassCount>;

// The column/JSON name of a class: the SASS mnemonic ("FFMA", "MUFU.EX2", ...).
std::string_view class_name(InstructionClass instruction_class);
std::optional<InstructionClass> class_from_name(std::string_view name);

// Every class, in the order of the enum (the order of the table's columns).
const std::array<InstructionClass, kInstructionClassCount>& all_classes();

// The class of one SASS opcode with its modifiers ("HMMA.16816.F32", "MUFU.EX2", "LDL.64"),
// or none for the instructions the audit does not count.
std::optional<InstructionClass> classify_opcode(std::string_view opcode);

inline std::int64_t& count_of(InstructionCounts& counts, InstructionClass instruction_class) {
  return counts[static_cast<std::size_t>(instruction_class)];
}
inline std::int64_t count_of(const InstructionCounts& counts, InstructionClass instruction_class) {
  return counts[static_cast<std::size_t>(instruction_class)];
}

}  // namespace fattn::audit
