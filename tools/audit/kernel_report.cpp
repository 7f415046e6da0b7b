#include "kernel_report.hpp"

#include <map>
#include <string_view>
#include <tuple>
#include <unordered_set>

#include "kernel_names.hpp"

namespace fattn::audit {
namespace {

constexpr std::int64_t kDefaultLocalAccessBytes = 4;  // LDL/STL without a width modifier: 32 bits

struct WidthModifier {
  std::string_view modifier;
  std::int64_t bytes;
};
constexpr WidthModifier kWidthModifiers[] = {
    {"U8", 1}, {"S8", 1}, {"U16", 2}, {"S16", 2}, {"32", 4}, {"64", 8}, {"128", 16},
};

// Finds, for each (arch, name), the k-th entry of a dump in the order the dump listed them.
template <typename Entry>
class OccurrenceIndex {
 public:
  void add(const std::string& arch, const std::string& name, const Entry* entry) {
    entries_[{arch, name}].push_back(entry);
  }
  const Entry* find(const std::string& arch, const std::string& name, std::size_t occurrence) const {
    const auto it = entries_.find({arch, name});
    if (it == entries_.end() || occurrence >= it->second.size()) return nullptr;
    return it->second[occurrence];
  }

 private:
  std::map<std::pair<std::string, std::string>, std::vector<const Entry*>> entries_;
};

}  // namespace

InstructionCounts count_classes(const std::map<std::string, std::int64_t>& opcode_counts) {
  InstructionCounts counts{};
  for (const auto& [opcode, count] : opcode_counts) {
    if (const std::optional<InstructionClass> instruction_class = classify_opcode(opcode)) {
      count_of(counts, *instruction_class) += count;
    }
  }
  return counts;
}

std::int64_t local_access_bytes(const std::string& opcode) {
  std::string_view rest = opcode;
  for (std::size_t dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
    rest.remove_prefix(dot + 1);
    const std::string_view modifier = rest.substr(0, rest.find('.'));
    for (const WidthModifier& width : kWidthModifiers) {
      if (modifier == width.modifier) return width.bytes;
    }
  }
  return kDefaultLocalAccessBytes;
}

SpillBytes measure_spills(const SassFunction& function, const std::vector<std::uint32_t>& spill_offsets) {
  const std::unordered_set<std::uint32_t> annotated(spill_offsets.begin(), spill_offsets.end());
  SpillBytes spills;
  for (const SassInstruction& access : function.local_memory_accesses) {
    if (annotated.count(access.offset) == 0) continue;
    const std::int64_t bytes = local_access_bytes(access.opcode);
    if (access.opcode.rfind("STL", 0) == 0) spills.store_bytes += bytes;
    else spills.load_bytes += bytes;
  }
  return spills;
}

std::vector<KernelReport> build_kernel_reports(const std::vector<SassCubin>& sass,
                                               const std::vector<ResourceCubin>& resources,
                                               const std::vector<ElfInfoCubin>& elf_info) {
  OccurrenceIndex<ResourceUsage> resource_index;
  for (const ResourceCubin& cubin : resources) {
    for (const ResourceFunction& function : cubin.functions) {
      resource_index.add(cubin.arch, function.mangled_name, &function.usage);
    }
  }
  OccurrenceIndex<SpillAnnotations> spill_index;
  for (const ElfInfoCubin& cubin : elf_info) {
    for (const SpillAnnotations& function : cubin.functions) {
      spill_index.add(cubin.arch, function.mangled_name, &function);
    }
  }

  std::vector<KernelReport> reports;
  std::map<std::pair<std::string, std::string>, std::size_t> seen;  // occurrences so far
  for (const SassCubin& cubin : sass) {
    for (const SassFunction& function : cubin.functions) {
      const std::size_t occurrence = seen[{cubin.arch, function.mangled_name}]++;
      KernelReport report;
      report.mangled_name = function.mangled_name;
      report.demangled_name = demangle(function.mangled_name);
      report.qualified_name = qualified_name(report.demangled_name);
      report.short_name = short_name(report.qualified_name);
      report.arch = cubin.arch;
      report.opcode_counts = function.opcode_counts;
      report.counts = count_classes(function.opcode_counts);
      report.instruction_count = function.instruction_count;
      if (const ResourceUsage* usage = resource_index.find(cubin.arch, function.mangled_name, occurrence)) {
        report.resources = *usage;
      }
      if (const SpillAnnotations* annotations =
              spill_index.find(cubin.arch, function.mangled_name, occurrence)) {
        report.spills = measure_spills(function, annotations->offsets);
      } else if (report.resources && report.resources->stack_bytes == 0) {
        report.spills = SpillBytes{};  // spills live in the stack frame: none without one
      }
      reports.push_back(std::move(report));
    }
  }
  return reports;
}

}  // namespace fattn::audit
