// `fattn audit`: which machine instructions each kernel compiled into libfattn really contains.
// Reads the library's own binary with cuobjdump (SASS, resource usage, ELF info), counts the
// instruction classes that reveal the hardware path (FFMA, HMMA, HGMMA, cp.async, ldmatrix,
// TMA, ...) and local-memory traffic, and checks every kernel against what its family declares
// (tools/audit/kernel_rules.cpp). `--check` makes a broken declaration an exit status for CI.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "audit/cuda_tools.hpp"
#include "audit/cuobjdump_parsers.hpp"
#include "audit/kernel_report.hpp"
#include "audit/kernel_rules.hpp"
#include "cli_args.hpp"
#include "cli_format.hpp"
#include "command.hpp"
#include "fattn/fattn.hpp"

namespace fattn::cli {
namespace {

namespace fs = std::filesystem;
using audit::AuditedKernel;
using audit::AuditResult;
using audit::InstructionClass;
using audit::KernelFamily;
using audit::KernelStatus;

constexpr int kExitPassed = 0;
constexpr int kExitCheckFailed = 1;
constexpr int kExitCannotRun = 2;
constexpr const char* kCuobjdumpVariable = "FATTN_CUOBJDUMP";
constexpr const char* kNvdisasmVariable = "FATTN_NVDISASM";
constexpr const char* kLibraryFileName = "libfattn.so";
// fattn::backend_compiled(fattn::Backend), looked up by its mangled name in a library given
// with --library that this process did not load.
constexpr const char* kBackendCompiledSymbol = "_ZN5fattn16backend_compiledENS_7BackendE";

struct AuditSettings {
  bool json = false;
  bool check = false;
  bool strict = false;
  bool require_cuda = false;
  bool full_names = false;
  std::string filter;
};

// ---- the library and what it says about itself ---------------------------------------------

// The libfattn this program runs with: the default audit target, so that `fattn audit` from any
// build tree audits that tree's library.
std::optional<fs::path> loaded_library() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&fattn::version), &info) == 0 || info.dli_fname == nullptr) {
    return std::nullopt;
  }
  std::error_code error;
  const fs::path path = fs::canonical(info.dli_fname, error);
  if (error) return std::nullopt;
  return path;
}

fs::path default_library() {
  if (std::optional<fs::path> loaded = loaded_library()) return *loaded;
  std::error_code error;
  const fs::path executable_dir = fs::canonical("/proc/self/exe", error).parent_path();
  for (const fs::path& candidate : {executable_dir / kLibraryFileName, executable_dir / ".." / "lib" / kLibraryFileName}) {
    if (fs::exists(candidate, error)) return candidate;
  }
  return executable_dir / kLibraryFileName;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code error;
  return fs::equivalent(a, b, error);
}

// The families the library says it contains, by asking its fattn::backend_compiled. The
// declaration check needs the library's own answer: a family that is compiled but has no
// kernels is as much a failure as a kernel that breaks its rules.
std::optional<std::set<std::string>> compiled_families(const fs::path& library, std::string& why_not) {
  using BackendCompiled = bool (*)(Backend);
  BackendCompiled query = &fattn::backend_compiled;
  void* handle = nullptr;
  const std::optional<fs::path> loaded = loaded_library();
  if (!loaded || !same_file(*loaded, library)) {
    handle = ::dlopen(library.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = ::dlerror();
      why_not = std::string("cannot load ") + library.string() + ": " + (error ? error : "unknown error");
      return std::nullopt;
    }
    query = reinterpret_cast<BackendCompiled>(::dlsym(handle, kBackendCompiledSymbol));
    if (query == nullptr) {
      why_not = library.string() + " has no fattn::backend_compiled";
      ::dlclose(handle);
      return std::nullopt;
    }
  }
  std::set<std::string> families;
  for (const KernelFamily& family : audit::declared_families()) {
    // A family is named after its backend ("cuda_sm80").
    const std::optional<Backend> backend = backend_from_string(family.name);
    if (backend && query(*backend)) families.insert(family.name);
  }
  if (handle != nullptr) ::dlclose(handle);
  return families;
}

// ---- running cuobjdump ---------------------------------------------------------------------

struct Dumps {
  std::vector<audit::SassCubin> sass;
  std::vector<audit::ResourceCubin> resources;
  std::vector<audit::ElfInfoCubin> elf_info;
};

template <typename Parsed>
bool dump(const fs::path& cuobjdump, const char* option, const fs::path& library,
          Parsed (*parse)(std::istream&), Parsed& parsed, std::string& error) {
  const audit::CommandResult result =
      audit::run_streaming({cuobjdump.string(), option, library.string()},
                           [&](std::istream& output) { parsed = parse(output); });
  if (result.exit_code == 0) return true;
  error = cuobjdump.string() + " " + option + " failed (exit " + std::to_string(result.exit_code) +
          "): " + result.error_output;
  return false;
}

bool any_stack_frame(const std::vector<audit::ResourceCubin>& resources) {
  for (const audit::ResourceCubin& cubin : resources) {
    for (const audit::ResourceFunction& function : cubin.functions) {
      if (function.usage.stack_bytes > 0) return true;
    }
  }
  return false;
}

bool read_dumps(const fs::path& cuobjdump, const fs::path& library, Dumps& dumps, std::string& error) {
  if (!dump(cuobjdump, "--dump-sass", library, &audit::parse_sass, dumps.sass, error) ||
      !dump(cuobjdump, "--dump-resource-usage", library, &audit::parse_resource_usage, dumps.resources, error)) {
    return false;
  }
  // The ELF dump (all code again, in hex) only serves to measure spills, which need a stack
  // frame: skip it when no kernel has one.
  return !any_stack_frame(dumps.resources) ||
         dump(cuobjdump, "--dump-elf", library, &audit::parse_elf_info, dumps.elf_info, error);
}

// ---- output --------------------------------------------------------------------------------

std::vector<std::string> table_headers() {
  std::vector<std::string> headers = {"kernel", "arch", "status", "regs", "smem", "stack", "spill"};
  for (InstructionClass instruction_class : audit::all_classes()) {
    headers.emplace_back(audit::class_name(instruction_class));
  }
  return headers;
}

std::string optional_number(bool known, std::int64_t value) { return known ? std::to_string(value) : "?"; }

// Violations in capitals, so that they stand out of a long table.
std::string status_cell(KernelStatus status) {
  return status == KernelStatus::violated ? "VIOLATED" : audit::to_string(status);
}

std::vector<std::string> table_row(const AuditedKernel& kernel, bool full_names) {
  const audit::KernelReport& r = kernel.report;
  const bool has_resources = r.resources.has_value();
  std::vector<std::string> row = {
      full_names ? r.demangled_name : r.short_name,
      r.arch,
      status_cell(kernel.status),
      optional_number(has_resources, has_resources ? r.resources->registers : 0),
      optional_number(has_resources, has_resources ? r.resources->shared_bytes : 0),
      optional_number(has_resources, has_resources ? r.resources->stack_bytes : 0),
      optional_number(r.spills.has_value(), r.spills ? r.spills->total() : 0),
  };
  for (InstructionClass instruction_class : audit::all_classes()) {
    row.push_back(std::to_string(audit::count_of(r.counts, instruction_class)));
  }
  return row;
}

std::string family_heading(const KernelFamily& family) {
  std::string text = family.name + " (fattn::…::" + family.namespace_token + "::";
  if (!family.archs.empty()) {
    text += ", checked in";
    for (const std::string& arch : family.archs) text += " " + arch;
  }
  text += "):";
  for (const audit::InstructionRule& rule : family.rules) text += "\n  " + audit::describe(rule);
  if (!family.helpers.base_names.empty()) {
    text += "\n  helper kernels (";
    for (std::size_t i = 0; i < family.helpers.base_names.size(); ++i) {
      text += (i ? ", " : "") + family.helpers.base_names[i];
    }
    text += "):";
    for (const audit::InstructionRule& rule : family.helpers.rules) text += "\n    " + audit::describe(rule);
  }
  return text;
}

bool shown(const AuditedKernel& kernel, const AuditSettings& settings) {
  return settings.filter.empty() || kernel.report.demangled_name.find(settings.filter) != std::string::npos;
}

void print_tables(const AuditResult& result, const AuditSettings& settings) {
  std::map<const KernelFamily*, std::vector<const AuditedKernel*>> by_family;
  for (const AuditedKernel& kernel : result.kernels) {
    if (shown(kernel, settings)) by_family[kernel.family].push_back(&kernel);
  }
  // By name, then arch: a kernel's sm_80 and sm_90a rows side by side.
  for (auto& [family, kernels] : by_family) {
    std::stable_sort(kernels.begin(), kernels.end(), [](const AuditedKernel* a, const AuditedKernel* b) {
      return std::tie(a->report.short_name, a->report.arch) < std::tie(b->report.short_name, b->report.arch);
    });
  }
  for (const KernelFamily& family : audit::declared_families()) {
    const auto it = by_family.find(&family);
    std::printf("\n%s\n", family_heading(family).c_str());
    if (it == by_family.end()) {
      std::printf("  (no kernels%s)\n", settings.filter.empty() ? "" : " match the filter");
      continue;
    }
    Table table(table_headers());
    for (const AuditedKernel* kernel : it->second) table.add_row(table_row(*kernel, settings.full_names));
    table.print(stdout);
  }
  if (const auto it = by_family.find(nullptr); it != by_family.end()) {
    std::printf("\nundeclared: kernels of fattn:: that match no family (add them to a family's "
                "namespace or to tools/audit/kernel_rules.cpp)\n");
    Table table(table_headers());
    for (const AuditedKernel* kernel : it->second) table.add_row(table_row(*kernel, settings.full_names));
    table.print(stdout);
  }
}

std::string joined(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text.empty() ? "none" : text;
}

void print_summary(const AuditResult& result, const AuditSettings& settings,
                   const std::optional<std::set<std::string>>& families, const std::string& presence_note) {
  std::printf("\n%zu kernels of fattn:: (%lld ok, %lld violated, %lld undeclared, %lld in an arch their "
              "family does not target); %lld kernels outside fattn:: not audited.\n",
              result.kernels.size(), static_cast<long long>(result.count(KernelStatus::passed)),
              static_cast<long long>(result.count(KernelStatus::violated)),
              static_cast<long long>(result.count(KernelStatus::undeclared)),
              static_cast<long long>(result.count(KernelStatus::other_arch)),
              static_cast<long long>(result.ignored_outside_fattn));
  std::printf("smem = static shared memory (dynamic shared memory is set at launch); stack = the stack "
              "frame; spill = bytes ptxas spilled and refilled; all per thread except smem.\n");
  for (const AuditedKernel& kernel : result.kernels) {
    for (const std::string& broken : kernel.broken_rules) {
      std::printf("VIOLATED %s [%s]: %s\n", kernel.report.short_name.c_str(), kernel.report.arch.c_str(),
                  broken.c_str());
    }
  }
  for (const std::string& missing : result.missing_families) std::printf("MISSING %s\n", missing.c_str());
  for (const AuditedKernel& kernel : result.kernels) {
    if (kernel.status == KernelStatus::undeclared) {
      std::printf("%s %s [%s]: matches no kernel family\n", settings.strict ? "ERROR" : "warning",
                  kernel.report.short_name.c_str(), kernel.report.arch.c_str());
    }
    if (kernel.status == KernelStatus::other_arch) {
      std::printf("warning %s [%s]: its family %s does not target this arch; rules not applied\n",
                  kernel.report.short_name.c_str(), kernel.report.arch.c_str(), kernel.family->name.c_str());
    }
  }
  if (families) {
    std::printf("families the library says it contains (fattn::backend_compiled): %s\n", joined(*families).c_str());
  } else {
    std::printf("not run: the check that every compiled family has kernels (%s)\n", presence_note.c_str());
  }
}

void write_kernel_json(JsonWriter& json, const AuditedKernel& kernel) {
  const audit::KernelReport& r = kernel.report;
  json.begin_object();
  json.key("name").value(r.short_name);
  json.key("demangled").value(r.demangled_name);
  json.key("mangled").value(r.mangled_name);
  json.key("arch").value(r.arch);
  json.key("family");
  if (kernel.family != nullptr) json.value(kernel.family->name);
  else json.null();
  json.key("status").value(audit::to_string(kernel.status));
  json.key("broken_rules").begin_array();
  for (const std::string& broken : kernel.broken_rules) json.value(broken);
  json.end_array();
  json.key("instructions").value(r.instruction_count);
  json.key("counts").begin_object();
  for (InstructionClass instruction_class : audit::all_classes()) {
    json.key(audit::class_name(instruction_class)).value(audit::count_of(r.counts, instruction_class));
  }
  json.end_object();
  json.key("resources");
  if (r.resources) {
    json.begin_object();
    json.key("registers").value(r.resources->registers);
    json.key("shared_bytes").value(r.resources->shared_bytes);
    json.key("stack_bytes").value(r.resources->stack_bytes);
    json.key("local_bytes").value(r.resources->local_bytes);
    json.key("constant_bank0_bytes").value(r.resources->constant_bank0_bytes);
    json.end_object();
  } else {
    json.null();
  }
  json.key("spills");
  if (r.spills) {
    json.begin_object();
    json.key("store_bytes").value(r.spills->store_bytes);
    json.key("load_bytes").value(r.spills->load_bytes);
    json.end_object();
  } else {
    json.null();
  }
  json.key("opcodes").begin_object();
  for (const auto& [opcode, count] : r.opcode_counts) json.key(opcode).value(count);
  json.end_object();
  json.end_object();
}

void print_json(const fs::path& library, const AuditResult& result, const AuditSettings& settings,
                const std::optional<std::set<std::string>>& compiled) {
  JsonWriter json;
  json.begin_object();
  json.key("library").value(library.string());
  json.key("passed").value(result.passed(settings.strict));
  json.key("families").begin_array();
  for (const KernelFamily& family : audit::declared_families()) {
    json.begin_object();
    json.key("name").value(family.name);
    json.key("namespace").value(family.namespace_token);
    json.key("archs").begin_array();
    for (const std::string& arch : family.archs) json.value(arch);
    json.end_array();
    json.key("rules").begin_array();
    for (const audit::InstructionRule& rule : family.rules) json.value(audit::describe(rule));
    json.end_array();
    json.key("helper_kernels").begin_array();
    for (const std::string& name : family.helpers.base_names) json.value(name);
    json.end_array();
    json.key("helper_rules").begin_array();
    for (const audit::InstructionRule& rule : family.helpers.rules) json.value(audit::describe(rule));
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.key("kernels").begin_array();
  for (const AuditedKernel& kernel : result.kernels) {
    if (shown(kernel, settings)) write_kernel_json(json, kernel);
  }
  json.end_array();
  json.key("ignored_outside_fattn").value(result.ignored_outside_fattn);
  json.key("missing_families").begin_array();
  for (const std::string& missing : result.missing_families) json.value(missing);
  json.end_array();
  json.key("family_presence_checked").value(result.family_presence_checked);
  json.key("compiled_families");
  if (compiled) {
    json.begin_array();
    for (const std::string& name : *compiled) json.value(name);
    json.end_array();
  } else {
    json.null();
  }
  json.end_object();
  std::printf("%s\n", json.str().c_str());
}

// A library with no device code: the CPU-only build. Fine unless CUDA was required, or the
// library claims CUDA families it does not contain.
int report_no_kernels(const fs::path& library, const AuditSettings& settings,
                      const std::optional<std::set<std::string>>& families) {
  const bool claims_cuda = families && !families->empty();
  const bool failed = settings.require_cuda || (settings.check && claims_cuda);
  if (settings.json) {
    JsonWriter json;
    json.begin_object().key("library").value(library.string()).key("passed").value(!failed);
    json.key("kernels").begin_array().end_array().end_object();
    std::printf("%s\n", json.str().c_str());
  } else {
    std::printf("fattn audit: %s\nno CUDA kernels in this build.\n", library.string().c_str());
    if (claims_cuda) std::printf("MISSING the library says it has CUDA backends, but it holds no device code\n");
    if (settings.require_cuda) std::printf("--require-cuda: failing.\n");
  }
  return failed ? kExitCheckFailed : kExitPassed;
}

int audit_main(const std::vector<std::string>& args) {
  ArgParser parser("audit",
                   "Which machine instructions each kernel of libfattn really contains: counts of\n"
                   "FFMA, HMMA, HGMMA, QGMMA, LDGSTS (cp.async), LDSM/STSM, TMA, BAR, SHFL, MUFU.EX2\n"
                   "and local memory (LDL/STL), with registers, shared memory, stack and spills,\n"
                   "read from the library's binary with cuobjdump; every kernel is checked against\n"
                   "what its family declares (tools/audit/kernel_rules.cpp). No GPU needed.");
  parser.add_option("library", "PATH", "the library to audit", "the libfattn this program runs with");
  parser.add_option("cuobjdump", "PATH", "the cuobjdump to use",
                    std::string("$") + kCuobjdumpVariable + ", PATH, CUDA_HOME, pip's nvidia-cuda-cuobjdump");
  parser.add_flag("check", "exit 1 when a kernel breaks its family's declaration or a compiled family has no kernels");
  parser.add_flag("strict", "kernels of fattn:: that match no family are errors, not warnings");
  parser.add_flag("require-cuda", "fail when the library has no CUDA kernels (the CPU-only build)");
  parser.add_option("filter", "TEXT", "show only kernels whose demangled name contains TEXT");
  parser.add_flag("full-names", "show full demangled names (with parameters)");
  parser.add_flag("json", "print JSON instead of tables");
  AuditSettings settings;
  fs::path library;
  std::optional<fs::path> cuobjdump;
  try {
    if (!parser.parse(args)) return kExitPassed;
    settings.json = parser.has("json");
    settings.check = parser.has("check");
    settings.strict = parser.has("strict");
    settings.require_cuda = parser.has("require-cuda");
    settings.full_names = parser.has("full-names");
    settings.filter = parser.string_value("filter", "");
    // Absolute: dlopen reads a bare file name as a name to search for, not as this file.
    library = fs::absolute(parser.has("library") ? fs::path(*parser.value("library")) : default_library());
    if (parser.has("cuobjdump")) cuobjdump = fs::path(*parser.value("cuobjdump"));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "fattn audit: %s\n(see `fattn audit --help`)\n", e.what());
    return kExitCannotRun;
  }

  std::string presence_note;
  const std::optional<std::set<std::string>> families = compiled_families(library, presence_note);
  std::string elf_error;
  const std::optional<bool> has_device_code = audit::elf_has_device_code(library, &elf_error);
  if (!has_device_code) {
    std::fprintf(stderr, "fattn audit: %s\n", elf_error.c_str());
    return kExitCannotRun;
  }
  if (!*has_device_code) return report_no_kernels(library, settings, families);

  if (!cuobjdump) {
    const audit::ToolSearch search = audit::find_cuda_tool("cuobjdump", kCuobjdumpVariable);
    if (!search.found) {
      std::fprintf(stderr, "fattn audit: %s holds CUDA kernels, but cuobjdump was not found. Looked in:\n",
                   library.string().c_str());
      for (const std::string& place : search.searched) std::fprintf(stderr, "  %s\n", place.c_str());
      std::fprintf(stderr, "Install it with `python3 -m pip install nvidia-cuda-cuobjdump`, or pass "
                           "--cuobjdump PATH.\n");
      return kExitCannotRun;
    }
    cuobjdump = *search.found;
  }

  // The SASS dump runs nvdisasm, which cuobjdump finds only on PATH: put the one found (PATH,
  // CUDA_HOME, pip's nvidia-cuda-nvdisasm) there for it.
  const audit::ToolSearch disassembler = audit::find_cuda_tool("nvdisasm", kNvdisasmVariable);
  if (disassembler.found) audit::put_first_on_path(disassembler.found->parent_path());

  Dumps dumps;
  std::string dump_error;
  if (!read_dumps(*cuobjdump, library, dumps, dump_error)) {
    std::fprintf(stderr, "fattn audit: %s\n", dump_error.c_str());
    if (!disassembler.found) {
      std::fprintf(stderr, "nvdisasm (which cuobjdump runs for the SASS) was not found either; install "
                           "it with `python3 -m pip install nvidia-cuda-nvdisasm`, or set $%s.\n",
                   kNvdisasmVariable);
    }
    return kExitCannotRun;
  }
  const AuditResult result = audit::audit_kernels(
      audit::build_kernel_reports(dumps.sass, dumps.resources, dumps.elf_info), audit::declared_families(), families);
  if (result.kernels.empty() && result.ignored_outside_fattn == 0) {
    return report_no_kernels(library, settings, families);
  }

  if (settings.json) {
    print_json(library, result, settings, families);
  } else {
    std::printf("fattn audit: %s (read with %s)\n", library.string().c_str(), cuobjdump->string().c_str());
    print_tables(result, settings);
    print_summary(result, settings, families, presence_note);
  }
  if (!settings.check) return kExitPassed;
  const bool passed = result.passed(settings.strict);
  if (!settings.json) std::printf("audit %s\n", passed ? "passed" : "FAILED");
  return passed ? kExitPassed : kExitCheckFailed;
}

}  // namespace

FATTN_CLI_COMMAND("audit", "the machine instructions of every compiled kernel, checked", audit_main);

}  // namespace fattn::cli
