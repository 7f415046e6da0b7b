#include "cuda_tools.hpp"

#include <elf.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <streambuf>

namespace fattn::audit {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDefaultCudaBin = "/usr/local/cuda/bin";
constexpr const char* kPipNvidiaFolder = "nvidia";
constexpr int kExecFailedExitCode = 127;  // what shells report for a command that cannot run
constexpr std::size_t kPipeBufferBytes = 1 << 16;

// Section names under which nvcc stores fat binaries in a host object or library.
constexpr std::array<const char*, 2> kFatbinSections = {".nv_fatbin", "__nv_relfatbin"};

// The site-packages of a Python, one per line: site's and sysconfig's (a venv, --user, pyenv).
constexpr const char* kSitePackagesScript =
    "import site, sysconfig\n"
    "dirs = list(getattr(site, 'getsitepackages', lambda: [])())\n"
    "dirs.append(site.getusersitepackages())\n"
    "dirs.append(sysconfig.get_paths()['purelib'])\n"
    "print('\\n'.join(dict.fromkeys(dirs)))\n";

bool is_executable_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

std::vector<std::string> split_path_variable(const char* value) {
  std::vector<std::string> dirs;
  if (value == nullptr) return dirs;
  std::stringstream stream(value);
  std::string dir;
  while (std::getline(stream, dir, ':')) {
    if (!dir.empty()) dirs.push_back(dir);
  }
  return dirs;
}

// A read-only stream buffer over a file descriptor (the read end of a pipe).
class FdStreamBuffer : public std::streambuf {
 public:
  explicit FdStreamBuffer(int fd) : fd_(fd), buffer_(kPipeBufferBytes) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    ssize_t bytes = 0;
    do {
      bytes = ::read(fd_, buffer_.data(), buffer_.size());
    } while (bytes < 0 && errno == EINTR);
    if (bytes <= 0) return traits_type::eof();
    setg(buffer_.data(), buffer_.data(), buffer_.data() + bytes);
    return traits_type::to_int_type(*gptr());
  }

 private:
  int fd_;
  std::vector<char> buffer_;
};

std::string read_whole_file(std::FILE* file) {
  std::string text;
  std::rewind(file);
  std::array<char, kPipeBufferBytes> chunk{};
  std::size_t bytes = 0;
  while ((bytes = std::fread(chunk.data(), 1, chunk.size(), file)) > 0) text.append(chunk.data(), bytes);
  return text;
}

template <typename Header>
bool read_at(std::ifstream& file, std::uint64_t offset, Header& header) {
  file.seekg(static_cast<std::streamoff>(offset));
  file.read(reinterpret_cast<char*>(&header), sizeof(header));
  return static_cast<bool>(file);
}

}  // namespace

std::vector<fs::path> pip_tool_candidates(const std::vector<fs::path>& site_dirs, const std::string& tool) {
  std::vector<fs::path> candidates;
  for (const fs::path& site : site_dirs) {
    std::error_code error;
    const fs::path nvidia = site / kPipNvidiaFolder;
    if (!fs::is_directory(nvidia, error)) continue;
    std::vector<fs::path> packages;
    for (const fs::directory_entry& entry : fs::directory_iterator(nvidia, error)) packages.push_back(entry.path());
    // Newest CUDA first when several are installed (cu13 before cu12): names sort that way.
    std::sort(packages.rbegin(), packages.rend());
    for (const fs::path& package : packages) {
      const fs::path candidate = package / "bin" / tool;
      if (is_executable_file(candidate)) candidates.push_back(candidate);
    }
  }
  return candidates;
}

std::vector<fs::path> python_site_packages(const std::string& python) {
  std::vector<fs::path> dirs;
  const CommandResult result = run_streaming({python, "-c", kSitePackagesScript}, [&](std::istream& out) {
    std::string line;
    while (std::getline(out, line)) {
      if (!line.empty()) dirs.emplace_back(line);
    }
  });
  if (result.exit_code != 0) dirs.clear();
  return dirs;
}

void put_first_on_path(const fs::path& folder) {
  const char* current = std::getenv("PATH");
  const std::vector<std::string> dirs = split_path_variable(current);
  if (std::find(dirs.begin(), dirs.end(), folder.string()) != dirs.end()) return;
  std::string value = folder.string();
  if (current != nullptr && *current) value += std::string(":") + current;
  setenv("PATH", value.c_str(), 1);
}

ToolSearch find_cuda_tool(const std::string& tool, const std::string& override_variable) {
  ToolSearch search;
  auto try_path = [&](const fs::path& candidate) {
    search.searched.push_back(candidate.string());
    if (!search.found && is_executable_file(candidate)) search.found = candidate;
    return search.found.has_value();
  };

  if (const char* explicit_path = std::getenv(override_variable.c_str()); explicit_path != nullptr && *explicit_path) {
    if (try_path(explicit_path)) return search;
  }
  const std::vector<std::string> path_dirs = split_path_variable(std::getenv("PATH"));
  for (const std::string& dir : path_dirs) {
    if (is_executable_file(fs::path(dir) / tool)) {
      search.searched.push_back("PATH");
      search.found = fs::path(dir) / tool;
      return search;
    }
  }
  search.searched.push_back("PATH");
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* root = std::getenv(variable); root != nullptr && *root) {
      if (try_path(fs::path(root) / "bin" / tool)) return search;
    }
  }
  if (try_path(fs::path(kDefaultCudaBin) / tool)) return search;

  // pip's NVIDIA packages put their tools in site-packages, which is never on PATH.
  for (const char* python : {"python3", "python"}) {
    for (const std::string& dir : path_dirs) {
      const fs::path interpreter = fs::path(dir) / python;
      if (!is_executable_file(interpreter)) continue;
      const std::vector<fs::path> sites = python_site_packages(interpreter.string());
      for (const fs::path& site : sites) search.searched.push_back((site / kPipNvidiaFolder / "*" / "bin" / tool).string());
      const std::vector<fs::path> candidates = pip_tool_candidates(sites, tool);
      if (!candidates.empty()) {
        search.found = candidates.front();
        return search;
      }
      break;  // the first interpreter of that name on PATH is the one pip installs for
    }
  }
  return search;
}

std::optional<bool> elf_has_device_code(const fs::path& path, std::string* error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    if (error) *error = "cannot open " + path.string();
    return std::nullopt;
  }
  Elf64_Ehdr header{};
  if (!read_at(file, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64) {
    if (error) *error = path.string() + " is not a 64-bit ELF file";
    return std::nullopt;
  }
  Elf64_Shdr names_section{};
  if (header.e_shstrndx == SHN_UNDEF ||
      !read_at(file, header.e_shoff + std::uint64_t{header.e_shstrndx} * header.e_shentsize, names_section)) {
    if (error) *error = path.string() + " has no section name table";
    return std::nullopt;
  }
  std::string names(names_section.sh_size, '\0');
  file.seekg(static_cast<std::streamoff>(names_section.sh_offset));
  file.read(names.data(), static_cast<std::streamsize>(names.size()));
  for (std::uint16_t index = 0; index < header.e_shnum; ++index) {
    Elf64_Shdr section{};
    if (!read_at(file, header.e_shoff + std::uint64_t{index} * header.e_shentsize, section)) break;
    if (section.sh_name >= names.size()) continue;
    const char* name = names.c_str() + section.sh_name;
    for (const char* fatbin : kFatbinSections) {
      if (std::strcmp(name, fatbin) == 0) return true;
    }
  }
  return false;
}

CommandResult run_streaming(const std::vector<std::string>& argv,
                            const std::function<void(std::istream&)>& consume) {
  CommandResult result;
  // stderr goes to an anonymous file rather than a second pipe: reading one pipe to its end
  // while the other fills up would deadlock.
  std::FILE* error_file = std::tmpfile();
  int pipe_fds[2];
  if (error_file == nullptr || ::pipe(pipe_fds) != 0) {
    if (error_file) std::fclose(error_file);
    return {kExecFailedExitCode, std::string("cannot create a pipe: ") + std::strerror(errno)};
  }
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(::fileno(error_file), STDERR_FILENO);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    std::vector<char*> arguments;
    for (const std::string& argument : argv) arguments.push_back(const_cast<char*>(argument.c_str()));
    arguments.push_back(nullptr);
    ::execvp(arguments[0], arguments.data());
    std::fprintf(stderr, "cannot run %s: %s\n", arguments[0], std::strerror(errno));
    std::_Exit(kExecFailedExitCode);
  }
  ::close(pipe_fds[1]);
  if (child < 0) {
    ::close(pipe_fds[0]);
    std::fclose(error_file);
    return {kExecFailedExitCode, std::string("cannot fork: ") + std::strerror(errno)};
  }
  {
    FdStreamBuffer buffer(pipe_fds[0]);
    std::istream output(&buffer);
    consume(output);
    // Drain what the consumer left, so that the child never blocks on a full pipe.
    output.ignore(std::numeric_limits<std::streamsize>::max());
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : kExecFailedExitCode;
  result.error_output = read_whole_file(error_file);
  std::fclose(error_file);
  return result;
}

}  // namespace fattn::audit
