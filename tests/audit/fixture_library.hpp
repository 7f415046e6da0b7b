// The audit fixtures: cuobjdump's dumps of a small library compiled from fixtures/src for sm_80
// and sm_90a (see fixtures/regenerate.sh), parsed once for every test.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "audit/cuobjdump_parsers.hpp"
#include "audit/kernel_report.hpp"

namespace fattn::audit::testing {

inline std::string fixture_path(const std::string& name) { return std::string(FATTN_AUDIT_FIXTURES) + "/" + name; }

inline std::ifstream open_fixture(const std::string& name) {
  std::ifstream file(fixture_path(name));
  if (!file) throw std::runtime_error("missing audit fixture " + fixture_path(name));
  return file;
}

struct FixtureLibrary {
  std::vector<SassCubin> sass;
  std::vector<ResourceCubin> resources;
  std::vector<ElfInfoCubin> elf_info;
  std::vector<KernelReport> reports;

  static const FixtureLibrary& get() {
    static const FixtureLibrary library = [] {
      FixtureLibrary parsed;
      std::ifstream sass = open_fixture("sample.sass");
      parsed.sass = parse_sass(sass);
      std::ifstream resources = open_fixture("sample.res");
      parsed.resources = parse_resource_usage(resources);
      std::ifstream elf = open_fixture("sample.elf");
      parsed.elf_info = parse_elf_info(elf);
      parsed.reports = build_kernel_reports(parsed.sass, parsed.resources, parsed.elf_info);
      return parsed;
    }();
    return library;
  }

  // The report of `mangled` in `arch`; throws when there is none (a test bug or stale fixture).
  const KernelReport& report(const std::string& mangled, const std::string& arch) const {
    for (const KernelReport& r : reports) {
      if (r.mangled_name == mangled && r.arch == arch) return r;
    }
    throw std::runtime_error("no kernel " + mangled + " for " + arch + " in the fixtures");
  }
};

// The sample kernels' mangled names (fixtures/src).
inline const std::string kFfmaLoop = "_ZN5fattn6detail4simt9ffma_loopIfLi4EEEvPKT_PS3_i";
inline const std::string kLocalArray = "_ZN5fattn6detail4simt11local_arrayEPKiPfi";
inline const std::string kMmaTile = "_ZN5fattn6detail4sm808mma_tileEPK5uint4Pf";
inline const std::string kWgmmaTile = "_ZN5fattn6detail4sm9010wgmma_tileEmPKfPfmm";
inline const std::string kSpillingSoftmax = "_ZN5fattn6detail8standard16spilling_softmaxEPKfPf";
inline const std::string kMysteryKernel = "_ZN5fattn6detail14mystery_kernelEPf";
inline const std::string kThirdPartyScale = "_ZN10thirdparty5scaleEPff";

// What ptxas -v said about each (kernel, arch) when the fixtures were made: the spill bytes the
// audit must reproduce from the SASS and the ELF annotations.
struct PtxasSpills {
  std::int64_t stack_bytes = 0;
  std::int64_t store_bytes = 0;
  std::int64_t load_bytes = 0;
};

inline std::map<std::pair<std::string, std::string>, PtxasSpills> ptxas_spills() {
  std::ifstream file = open_fixture("ptxas_spills.txt");
  std::map<std::pair<std::string, std::string>, PtxasSpills> spills;
  std::pair<std::string, std::string> current;
  std::string line;
  const std::string entry = "Compiling entry function '";
  while (std::getline(file, line)) {
    if (const std::size_t at = line.find(entry); at != std::string::npos) {
      const std::size_t name_begin = at + entry.size();
      const std::size_t name_end = line.find('\'', name_begin);
      const std::size_t arch_begin = line.find('\'', name_end + 1) + 1;
      const std::size_t arch_end = line.find('\'', arch_begin);
      current = {line.substr(name_begin, name_end - name_begin), line.substr(arch_begin, arch_end - arch_begin)};
      continue;
    }
    // "    408 bytes stack frame, 636 bytes spill stores, 640 bytes spill loads"
    long long stack = 0, stores = 0, loads = 0;
    if (std::sscanf(line.c_str(), " %lld bytes stack frame, %lld bytes spill stores, %lld bytes spill loads",
                    &stack, &stores, &loads) == 3) {
      spills[current] = {stack, stores, loads};
    }
  }
  return spills;
}

}  // namespace fattn::audit::testing
