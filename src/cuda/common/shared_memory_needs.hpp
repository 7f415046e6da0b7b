// What the selector knows of each kernel family's shared memory per block: the least that the
// family's smallest tiles for a problem need. A launcher picks the largest tiles its device
// fits (require_shared_bytes refuses a launch past the device's limit); this lets supports()
// refuse, with the sizes named, a problem that even the smallest tiles cannot run on the device,
// so that automatic selection passes it to the next family instead of failing at the launch.
#pragma once

#include <optional>
#include <string>

#include "api/device_query.hpp"
#include "fattn/fattn.hpp"

namespace fattn::detail {

// Why `backend`'s kernels for `problem` need more shared memory per block than `device` allows,
// or nullopt when its smallest tiles fit (or the backend has no compiled instance for it, which
// why_no_compiled_instance reports).
std::optional<std::string> why_shared_memory_is_short(Backend backend, const Problem& problem,
                                                      const DeviceInfo& device);

}  // namespace fattn::detail
