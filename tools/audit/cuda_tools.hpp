// Finding and running cuobjdump, and asking a host binary whether it carries device code.
#pragma once

#include <filesystem>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace fattn::audit {

// Where a CUDA binary tool was looked for, in order, and where it was found.
struct ToolSearch {
  std::optional<std::filesystem::path> found;
  std::vector<std::string> searched;  // each place tried, for the error message
};

// Looks for `tool` ("cuobjdump") in, in order: the environment variable `override_variable`
// (a full path, e.g. FATTN_CUOBJDUMP), PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin,
// and the bin/ folders of NVIDIA's pip packages (nvidia-cuda-cuobjdump installs
// site-packages/nvidia/cu13/bin/cuobjdump; CUDA 12's wheels used nvidia/cuda_cuobjdump/bin) in
// the site-packages of every python3 on PATH.
ToolSearch find_cuda_tool(const std::string& tool, const std::string& override_variable);

// Puts `folder` first on this process's PATH (children inherit it), unless it is on PATH already.
// cuobjdump --dump-sass runs nvdisasm, which it looks for only on PATH (or NVDISASM_PATH), and
// NVIDIA's pip wheels ship the two in separate packages, neither on PATH.
void put_first_on_path(const std::filesystem::path& folder);

// The site-packages folders that `python` reports (site and sysconfig), empty if it cannot run.
std::vector<std::filesystem::path> python_site_packages(const std::string& python);

// The pip package layout, separated out so that it can be tested on a fake tree: every
// <site>/nvidia/<package>/bin/<tool> that exists and is executable.
std::vector<std::filesystem::path> pip_tool_candidates(const std::vector<std::filesystem::path>& site_dirs,
                                                       const std::string& tool);

// True when the ELF file at `path` has a section holding CUDA fat binaries (.nv_fatbin, or the
// older __nv_relfatbin). A CPU-only libfattn has none, and then cuobjdump is not needed at all.
// Fails (nullopt) when the file cannot be read as ELF.
std::optional<bool> elf_has_device_code(const std::filesystem::path& path, std::string* error);

struct CommandResult {
  int exit_code = 0;
  std::string error_output;  // the command's stderr
};

// Runs `argv` (no shell) and hands its standard output to `consume` as a stream while it runs,
// so that a dump of hundreds of megabytes is parsed without being held in memory.
CommandResult run_streaming(const std::vector<std::string>& argv,
                            const std::function<void(std::istream&)>& consume);

}  // namespace fattn::audit
