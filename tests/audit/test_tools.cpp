// Finding cuobjdump (PATH, CUDA_HOME, pip's packages), telling device code from none, and running
// a command with its output streamed.
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "audit/cuda_tools.hpp"
#include "fixture_library.hpp"

namespace fattn::audit {
namespace {

namespace fs = std::filesystem;

// A fresh folder under the system's temporary directory, removed with the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "fattn-audit-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code error;
    fs::remove_all(path_, error);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_file(const fs::path& path, const std::string& text, bool executable) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
  fs::permissions(path, executable ? fs::perms::owner_all : fs::perms::owner_read | fs::perms::owner_write);
}

TEST(PipLayout, FindsToolsInNvidiaPackagesNewestFirst) {
  TempDir site;
  write_file(site.path() / "nvidia" / "cu13" / "bin" / "cuobjdump", "#!/bin/sh\n", true);
  write_file(site.path() / "nvidia" / "cuda_cuobjdump" / "bin" / "cuobjdump", "#!/bin/sh\n", true);
  write_file(site.path() / "nvidia" / "cu12" / "bin" / "nvdisasm", "#!/bin/sh\n", true);
  const std::vector<fs::path> found = pip_tool_candidates({site.path(), site.path() / "absent"}, "cuobjdump");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], site.path() / "nvidia" / "cuda_cuobjdump" / "bin" / "cuobjdump");
  EXPECT_EQ(found[1], site.path() / "nvidia" / "cu13" / "bin" / "cuobjdump");
}

TEST(PipLayout, IgnoresFilesThatCannotRun) {
  TempDir site;
  write_file(site.path() / "nvidia" / "cu13" / "bin" / "cuobjdump", "not a program", false);
  EXPECT_TRUE(pip_tool_candidates({site.path()}, "cuobjdump").empty());
}

TEST(FindTool, TheOverrideVariableWins) {
  TempDir dir;
  const fs::path fake = dir.path() / "my-cuobjdump";
  write_file(fake, "#!/bin/sh\n", true);
  ::setenv("FATTN_TEST_CUOBJDUMP", fake.c_str(), 1);
  const ToolSearch search = find_cuda_tool("cuobjdump", "FATTN_TEST_CUOBJDUMP");
  ::unsetenv("FATTN_TEST_CUOBJDUMP");
  ASSERT_TRUE(search.found.has_value());
  EXPECT_EQ(*search.found, fake);
}

TEST(FindTool, SaysWhereItLookedWhenNotFound) {
  const ToolSearch search = find_cuda_tool("fattn-no-such-tool", "FATTN_TEST_UNSET_VARIABLE");
  EXPECT_FALSE(search.found.has_value());
  ASSERT_FALSE(search.searched.empty());
  EXPECT_NE(std::find(search.searched.begin(), search.searched.end(), "PATH"), search.searched.end());
}

TEST(PutFirstOnPath, PrependsAFolderOnce) {
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", "/usr/bin:/bin", 1);
  put_first_on_path("/opt/fattn-test/bin");
  EXPECT_STREQ(std::getenv("PATH"), "/opt/fattn-test/bin:/usr/bin:/bin");
  put_first_on_path("/opt/fattn-test/bin");  // already there: unchanged
  put_first_on_path("/usr/bin");
  EXPECT_STREQ(std::getenv("PATH"), "/opt/fattn-test/bin:/usr/bin:/bin");
  ::setenv("PATH", saved.c_str(), 1);
}

TEST(PythonSitePackages, ReportsFoldersOrNothing) {
  EXPECT_TRUE(python_site_packages("/nonexistent/python3").empty());
}

// A minimal ELF64 file with a section-name table and one more section called `section_name`.
void write_minimal_elf(const fs::path& path, const std::string& section_name) {
  const std::string names = std::string("\0.shstrtab\0", 11) + section_name + '\0';
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = EM_X86_64;
  header.e_version = EV_CURRENT;
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = 3;
  header.e_shstrndx = 1;
  header.e_shoff = sizeof(Elf64_Ehdr) + names.size();
  Elf64_Shdr sections[3]{};
  sections[1].sh_name = 1;
  sections[1].sh_type = SHT_STRTAB;
  sections[1].sh_offset = sizeof(Elf64_Ehdr);
  sections[1].sh_size = names.size();
  sections[2].sh_name = 11;
  sections[2].sh_type = SHT_PROGBITS;
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(&header), sizeof(header));
  file.write(names.data(), static_cast<std::streamsize>(names.size()));
  file.write(reinterpret_cast<const char*>(sections), sizeof(sections));
}

TEST(DeviceCode, FoundInAnElfWithAFatbinSection) {
  TempDir dir;
  write_minimal_elf(dir.path() / "with.so", ".nv_fatbin");
  write_minimal_elf(dir.path() / "without.so", ".rodata");
  EXPECT_EQ(elf_has_device_code(dir.path() / "with.so", nullptr), std::optional<bool>(true));
  EXPECT_EQ(elf_has_device_code(dir.path() / "without.so", nullptr), std::optional<bool>(false));
}

TEST(DeviceCode, NoneInThisTestProgram) {
  EXPECT_EQ(elf_has_device_code("/proc/self/exe", nullptr), std::optional<bool>(false));
}

TEST(DeviceCode, NotElfIsAnError) {
  std::string error;
  EXPECT_FALSE(elf_has_device_code(testing::fixture_path("sample.res"), &error).has_value());
  EXPECT_NE(error.find("not a 64-bit ELF"), std::string::npos) << error;
  EXPECT_FALSE(elf_has_device_code("/nonexistent/libfattn.so", &error).has_value());
}

TEST(RunStreaming, StreamsStdoutAndKeepsStderrAndExitCode) {
  std::vector<std::string> lines;
  const CommandResult result = run_streaming({"sh", "-c", "echo one; echo two; echo oops >&2; exit 3"},
                                             [&](std::istream& out) {
                                               std::string line;
                                               while (std::getline(out, line)) lines.push_back(line);
                                             });
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.error_output, "oops\n");
}

TEST(RunStreaming, AConsumerThatStopsEarlyDoesNotHang) {
  std::string first;
  const CommandResult result = run_streaming({"sh", "-c", "yes | head -n 200000"},
                                             [&](std::istream& out) { std::getline(out, first); });
  EXPECT_EQ(first, "y");
  EXPECT_EQ(result.exit_code, 0);
}

TEST(RunStreaming, AMissingProgramIsAnExitCodeNotACrash) {
  const CommandResult result = run_streaming({"/nonexistent/cuobjdump"}, [](std::istream&) {});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.error_output.find("cannot run"), std::string::npos);
}

}  // namespace
}  // namespace fattn::audit
