#include "instruction_classes.hpp"

namespace fattn::audit {
namespace {

struct ClassSpelling {
  InstructionClass instruction_class;
  std::string_view name;
};

constexpr std::array<ClassSpelling, kInstructionClassCount> kSpellings{{
    {InstructionClass::ffma, "FFMA"},
    {InstructionClass::hmma, "HMMA"},
    {InstructionClass::hgmma, "HGMMA"},
    {InstructionClass::qgmma, "QGMMA"},
    {InstructionClass::ldgsts, "LDGSTS"},
    {InstructionClass::ldsm, "LDSM"},
    {InstructionClass::stsm, "STSM"},
    {InstructionClass::utmaldg, "UTMALDG"},
    {InstructionClass::utmastg, "UTMASTG"},
    {InstructionClass::ublkcp, "UBLKCP"},
    {InstructionClass::bar, "BAR"},
    {InstructionClass::shfl, "SHFL"},
    {InstructionClass::mufu_ex2, "MUFU.EX2"},
    {InstructionClass::ldl, "LDL"},
    {InstructionClass::stl, "STL"},
}};

// The mnemonic without its modifiers: "HMMA.16816.F32" -> "HMMA".
std::string_view base_mnemonic(std::string_view opcode) {
  return opcode.substr(0, opcode.find('.'));
}

}  // namespace

std::string_view class_name(InstructionClass instruction_class) {
  return kSpellings[static_cast<std::size_t>(instruction_class)].name;
}

std::optional<InstructionClass> class_from_name(std::string_view name) {
  for (const ClassSpelling& spelling : kSpellings) {
    if (spelling.name == name) return spelling.instruction_class;
  }
  return std::nullopt;
}

const std::array<InstructionClass, kInstructionClassCount>& all_classes() {
  static const auto classes = [] {
    std::array<InstructionClass, kInstructionClassCount> result{};
    for (std::size_t i = 0; i < kInstructionClassCount; ++i) result[i] = kSpellings[i].instruction_class;
    return result;
  }();
  return classes;
}

std::optional<InstructionClass> classify_opcode(std::string_view opcode) {
  const std::string_view base = base_mnemonic(opcode);
  // FFMA32I is FFMA with a 32-bit immediate operand: the same CUDA-core FMA. HFMA2.MMA is not
  // here on purpose: ptxas uses it as a register move, it is neither fp32 math nor an MMA.
  if (base == "FFMA" || base == "FFMA32I") return InstructionClass::ffma;
  if (base == "HMMA") return InstructionClass::hmma;
  if (base == "HGMMA") return InstructionClass::hgmma;
  if (base == "QGMMA") return InstructionClass::qgmma;
  if (base == "LDGSTS") return InstructionClass::ldgsts;
  if (base == "LDSM") return InstructionClass::ldsm;
  if (base == "STSM") return InstructionClass::stsm;
  if (base == "UTMALDG") return InstructionClass::utmaldg;
  if (base == "UTMASTG") return InstructionClass::utmastg;
  if (base == "UBLKCP") return InstructionClass::ublkcp;
  if (base == "BAR") return InstructionClass::bar;
  if (base == "SHFL") return InstructionClass::shfl;
  if (base == "LDL") return InstructionClass::ldl;
  if (base == "STL") return InstructionClass::stl;
  if (base == "MUFU") {
    const std::string_view function = opcode.substr(base.size());
    if (function.rfind(".EX2", 0) == 0) return InstructionClass::mufu_ex2;
  }
  return std::nullopt;
}

}  // namespace fattn::audit
