#include "cli_cupti.hpp"

#include "cli_device.hpp"

#if FATTN_HAS_CUPTI
#include <cupti.h>
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#endif

namespace fattn::cli {

namespace {

// Removes a trailing bracketed group ("(...)" or "<...>", nested ones included); false when the
// text does not end with one.
bool strip_trailing_group(std::string& text, char open, char close) {
  if (text.empty() || text.back() != close) return false;
  int depth = 0;
  for (std::size_t i = text.size(); i-- > 0;) {
    if (text[i] == close) ++depth;
    if (text[i] == open && --depth == 0) {
      text.resize(i);
      return true;
    }
  }
  return false;
}

}  // namespace

std::string short_kernel_name(const std::string& demangled) {
  // "void ns::(anonymous namespace)::kernel<64, float>(Params)": drop the parameters and the
  // template arguments from the end, then the scopes and the return type from the front.
  std::string name = demangled;
  strip_trailing_group(name, '(', ')');
  while (strip_trailing_group(name, '<', '>')) {
  }
  if (const auto scope = name.rfind("::"); scope != std::string::npos) name = name.substr(scope + 2);
  if (const auto space = name.rfind(' '); space != std::string::npos) name = name.substr(space + 1);
  return name.empty() ? demangled : name;
}

#if FATTN_HAS_CUPTI

namespace {

// CUPTI fills buffers of this size asynchronously; 8 MiB holds tens of thousands of records.
constexpr std::size_t kActivityBufferBytes = std::size_t{8} << 20;
constexpr std::size_t kActivityBufferAlignment = 8;  // CUPTI's requirement for record buffers

std::mutex records_mutex;
std::vector<KernelRecord> pending_records;

void check_cupti(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  throw ToolError(std::string(what) + " failed: " + (text ? text : "unknown CUPTI error"));
}

std::string demangle(const char* mangled) {
  if (!mangled) return "(unnamed kernel)";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && text ? std::string(text.get()) : std::string(mangled);
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *size = kActivityBufferBytes;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kActivityBufferAlignment, kActivityBufferBytes));
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                               std::size_t valid_bytes) {
  CUpti_Activity* record = nullptr;
  std::vector<KernelRecord> found;
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    KernelRecord r;
    r.name = demangle(kernel->name);
    r.start_ns = kernel->start;
    r.end_ns = kernel->end;
    r.grid = {kernel->gridX, kernel->gridY, kernel->gridZ};
    r.block = {kernel->blockX, kernel->blockY, kernel->blockZ};
    r.registers_per_thread = kernel->registersPerThread;
    r.static_shared_bytes = kernel->staticSharedMemory;
    r.dynamic_shared_bytes = kernel->dynamicSharedMemory;
    r.stream = kernel->streamId;
    found.push_back(std::move(r));
  }
  std::free(buffer);
  const std::lock_guard<std::mutex> lock(records_mutex);
  for (KernelRecord& r : found) pending_records.push_back(std::move(r));
}

}  // namespace

bool kernel_tracing_built() { return true; }

KernelTracer::KernelTracer() {
  if (cuda_device_count() == 0) throw ToolError("no CUDA device is available on this machine");
  check_cupti(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
              "cuptiActivityRegisterCallbacks");
  check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
              "cuptiActivityEnable(CONCURRENT_KERNEL)");
}

KernelTracer::~KernelTracer() {
  cuptiActivityFlushAll(0);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}

std::uint64_t KernelTracer::now_ns() const {
  std::uint64_t timestamp = 0;
  check_cupti(cuptiGetTimestamp(&timestamp), "cuptiGetTimestamp");
  return timestamp;
}

std::vector<KernelRecord> KernelTracer::collect() {
  cuda_synchronize();
  // Forced: also hands over the buffer CUPTI is still filling, so nothing stays behind.
  check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  const std::lock_guard<std::mutex> lock(records_mutex);
  std::vector<KernelRecord> records;
  records.swap(pending_records);
  return records;
}

#else  // no CUPTI in this build

bool kernel_tracing_built() { return false; }

KernelTracer::KernelTracer() {
  throw ToolError(cuda_build()
                      ? "this build of fattn found no CUPTI library (CUDA::cupti) at configure time, so "
                        "it cannot trace GPU kernels"
                      : "this build of fattn has no CUDA support, so it cannot trace GPU kernels");
}
KernelTracer::~KernelTracer() = default;
std::uint64_t KernelTracer::now_ns() const { return 0; }
std::vector<KernelRecord> KernelTracer::collect() { return {}; }

#endif

}  // namespace fattn::cli
