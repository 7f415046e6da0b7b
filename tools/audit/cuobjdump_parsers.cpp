#include "cuobjdump_parsers.hpp"

#include <cctype>
#include <charconv>
#include <string_view>

namespace fattn::audit {
namespace {

constexpr std::string_view kFatbinElfHeader = "Fatbin elf code:";
constexpr std::string_view kFatbinPtxHeader = "Fatbin ptx code:";
constexpr std::string_view kArchField = "arch = ";
constexpr std::string_view kCodeForField = "code for ";
constexpr std::string_view kSassFunctionField = "Function : ";
constexpr std::string_view kResourceHeader = "Resource usage:";
constexpr std::string_view kResourceFunctionField = "Function ";
constexpr std::string_view kElfInfoSectionPrefix = ".nv.info.";
constexpr std::string_view kSpillAnnotation = "SpillRefill";
constexpr std::string_view kOffsetField = "Offset";
constexpr int kHexBase = 16;
constexpr int kDecimalBase = 10;
constexpr std::string_view kElfArchPrefix = "sm=";  // the ELF header's spelling: "sm=90a"

std::string_view trim(std::string_view text) {
  std::size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  std::size_t end = text.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The first whitespace-delimited word of `text`.
std::string_view first_word(std::string_view text) {
  text = trim(text);
  std::size_t end = 0;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  return text.substr(0, end);
}

std::optional<std::int64_t> parse_integer(std::string_view text, int base) {
  if (base == kHexBase && (starts_with(text, "0x") || starts_with(text, "0X"))) text.remove_prefix(2);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

// Which kind of block a fatbin dump is in: a cubin (parsed) or PTX (skipped).
enum class Block { none, cubin, ptx };

// Tracks the "Fatbin elf code:" / "Fatbin ptx code:" headers and their "arch = " lines, which
// all three dumps share, and the list of cubins found so far.
template <typename Cubin>
class CubinSequence {
 public:
  // Returns true when the line was a block header or an arch line (nothing else to parse).
  bool consume_header(std::string_view line) {
    if (starts_with(line, kFatbinElfHeader)) {
      cubins_.emplace_back();
      block_ = Block::cubin;
      return true;
    }
    if (starts_with(line, kFatbinPtxHeader)) {
      block_ = Block::ptx;
      return true;
    }
    if (starts_with(line, kArchField)) {
      if (block_ == Block::cubin && cubins_.back().arch.empty()) {
        cubins_.back().arch = normalize_arch(std::string(trim(line.substr(kArchField.size()))));
      }
      return true;
    }
    return false;
  }

  bool in_ptx() const { return block_ == Block::ptx; }

  // The cubin that lines belong to; a dump of a lone .cubin has no Fatbin header, so its first
  // content line opens one.
  Cubin& current() {
    if (block_ != Block::cubin) {
      cubins_.emplace_back();
      block_ = Block::cubin;
    }
    return cubins_.back();
  }
  bool has_current() const { return block_ == Block::cubin; }
  void start_new() {
    cubins_.emplace_back();
    block_ = Block::cubin;
  }

  // Appends a function named `name` to the current cubin and returns it, for the lines that
  // follow to fill in.
  auto* add_function(std::string_view name) {
    Cubin& cubin = current();
    cubin.functions.push_back({std::string(name), {}});
    return &cubin.functions.back();
  }

  std::vector<Cubin> take() { return std::move(cubins_); }

 private:
  std::vector<Cubin> cubins_;
  Block block_ = Block::none;
};

// The loop all three parsers share: reads `text` line by line; block headers and arch lines go
// to `cubins` and then to `on_header(trimmed)` (where a parser drops its per-function state),
// PTX blocks are skipped, and every other line goes to `on_line(line, trimmed)`.
template <typename Cubin, typename OnHeader, typename OnLine>
void read_cubin_lines(std::istream& text, CubinSequence<Cubin>& cubins, OnHeader on_header, OnLine on_line) {
  std::string line;
  while (std::getline(text, line)) {
    const std::string_view trimmed = trim(line);
    if (cubins.consume_header(trimmed)) {
      on_header(trimmed);
      continue;
    }
    if (cubins.in_ptx()) continue;
    on_line(line, trimmed);
  }
}

bool is_local_memory_access(std::string_view opcode) {
  const std::string_view base = opcode.substr(0, opcode.find('.'));
  return base == "LDL" || base == "STL";
}

void set_arch_if_unknown(std::string& arch, std::string_view text) {
  if (arch.empty()) arch = normalize_arch(std::string(trim(text)));
}

}  // namespace

std::string normalize_arch(const std::string& text) {
  std::string arch = std::string(first_word(text));
  if (starts_with(arch, kElfArchPrefix)) arch = "sm_" + arch.substr(kElfArchPrefix.size());
  while (!arch.empty() && (arch.back() == ',' || arch.back() == ';')) arch.pop_back();
  return arch;
}

std::optional<SassInstruction> parse_sass_instruction(const std::string& line) {
  // "        /*0a40*/   @!P0 HMMA.16816.F32 R4, R8, R12, R4 ;   /* 0x... */"
  const std::string_view text = trim(line);
  if (!starts_with(text, "/*")) return std::nullopt;
  const std::size_t offset_end = text.find("*/");
  if (offset_end == std::string_view::npos) return std::nullopt;
  const std::optional<std::int64_t> offset = parse_integer(text.substr(2, offset_end - 2), kHexBase);
  if (!offset) return std::nullopt;  // the encoding lines hold "/* 0x000fe2... */": no offset

  std::string_view rest = trim(text.substr(offset_end + 2));
  // A predicate guard ("@P0", "@!UPT") and, in dumps of older archs, the "{" of a dual-issue pair.
  while (!rest.empty() && (rest.front() == '@' || rest.front() == '{')) {
    const std::string_view guard = rest.front() == '{' ? std::string_view("{") : first_word(rest);
    rest = trim(rest.substr(guard.size()));
  }
  std::string_view opcode = first_word(rest);
  while (!opcode.empty() && (opcode.back() == ';' || opcode.back() == '}')) opcode.remove_suffix(1);
  if (opcode.empty()) return std::nullopt;
  return SassInstruction{static_cast<std::uint32_t>(*offset), std::string(opcode)};
}

std::vector<SassCubin> parse_sass(std::istream& text) {
  CubinSequence<SassCubin> cubins;
  SassFunction* function = nullptr;
  read_cubin_lines(
      text, cubins, [&](std::string_view) { function = nullptr; },
      [&](const std::string& line, std::string_view trimmed) {
        if (starts_with(trimmed, kCodeForField)) {
          set_arch_if_unknown(cubins.current().arch, trimmed.substr(kCodeForField.size()));
          return;
        }
        if (starts_with(trimmed, kSassFunctionField)) {
          function = cubins.add_function(trim(trimmed.substr(kSassFunctionField.size())));
          return;
        }
        if (function == nullptr) return;
        if (std::optional<SassInstruction> instruction = parse_sass_instruction(line)) {
          ++function->opcode_counts[instruction->opcode];
          ++function->instruction_count;
          if (is_local_memory_access(instruction->opcode)) {
            function->local_memory_accesses.push_back(std::move(*instruction));
          }
        }
      });
  return cubins.take();
}

namespace {

// "REG:32 STACK:0 SHARED:4096 LOCAL:0 CONSTANT[0]:372 TEXTURE:0 SURFACE:0 SAMPLER:0"
ResourceUsage parse_resource_fields(std::string_view text) {
  ResourceUsage usage;
  while (!(text = trim(text)).empty()) {
    const std::string_view field = first_word(text);
    text.remove_prefix(field.size());
    const std::size_t colon = field.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = field.substr(0, colon);
    const std::optional<std::int64_t> value = parse_integer(field.substr(colon + 1), kDecimalBase);
    if (!value) continue;
    if (key == "REG") usage.registers = static_cast<int>(*value);
    else if (key == "SHARED") usage.shared_bytes = *value;
    else if (key == "STACK") usage.stack_bytes = *value;
    else if (key == "LOCAL") usage.local_bytes = *value;
    else if (key == "CONSTANT[0]") usage.constant_bank0_bytes = *value;
  }
  return usage;
}

}  // namespace

std::vector<ResourceCubin> parse_resource_usage(std::istream& text) {
  CubinSequence<ResourceCubin> cubins;
  ResourceFunction* function = nullptr;
  read_cubin_lines(
      text, cubins, [&](std::string_view) { function = nullptr; },
      [&](const std::string&, std::string_view trimmed) {
        if (starts_with(trimmed, kResourceHeader)) {
          cubins.current();
          function = nullptr;
          return;
        }
        if (starts_with(trimmed, kResourceFunctionField) && trimmed.back() == ':') {
          std::string_view name = trimmed.substr(kResourceFunctionField.size());
          name.remove_suffix(1);
          function = cubins.add_function(trim(name));
          return;
        }
        if (function != nullptr && starts_with(trimmed, "REG:")) {
          function->usage = parse_resource_fields(trimmed);
          function = nullptr;
        }
      });
  return cubins.take();
}

std::vector<ElfInfoCubin> parse_elf_info(std::istream& text) {
  CubinSequence<ElfInfoCubin> cubins;
  bool elf_header_seen = false;  // per cubin: a second ELF header without a Fatbin one is a new cubin
  SpillAnnotations* function = nullptr;
  const auto on_header = [&](std::string_view trimmed) {
    if (starts_with(trimmed, kFatbinElfHeader)) elf_header_seen = false;
    function = nullptr;
  };
  read_cubin_lines(text, cubins, on_header, [&](const std::string& line, std::string_view trimmed) {
    // "64-bit ELF: type=ET_EXEC, ABI=8, sm=90a, toolkit=13.0, flags=0x6005a04"
    if (starts_with(trimmed, "64-bit ELF:") || starts_with(trimmed, "32-bit ELF:")) {
      if (!cubins.has_current() || elf_header_seen) cubins.start_new();
      elf_header_seen = true;
      const std::size_t sm = trimmed.find(kElfArchPrefix);
      if (sm != std::string_view::npos) set_arch_if_unknown(cubins.current().arch, trimmed.substr(sm));
      function = nullptr;
      return;
    }
    // Section titles start in column 0; attribute lines are indented.
    if (!line.empty() && line.front() == '.') {
      function = nullptr;
      if (starts_with(trimmed, kElfInfoSectionPrefix)) {
        function = cubins.add_function(trimmed.substr(kElfInfoSectionPrefix.size()));
      }
      return;
    }
    if (function == nullptr) return;
    // "Value:	SpillRefill : 	Offset : 0x150" (the first), "	SpillRefill : 	Offset : 0x180"
    const std::size_t annotation = trimmed.find(kSpillAnnotation);
    if (annotation == std::string_view::npos) return;
    const std::size_t offset_field = trimmed.find(kOffsetField, annotation);
    if (offset_field == std::string_view::npos) return;
    const std::size_t colon = trimmed.find(':', offset_field);
    if (colon == std::string_view::npos) return;
    if (const std::optional<std::int64_t> offset =
            parse_integer(first_word(trimmed.substr(colon + 1)), kHexBase)) {
      function->offsets.push_back(static_cast<std::uint32_t>(*offset));
    }
  });
  return cubins.take();
}

}  // namespace fattn::audit
