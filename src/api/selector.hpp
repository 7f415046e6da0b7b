// The one kernel selector. Pure: the same problem, build and device always give the same answer,
// and both supports() and forward()/backward() go through it, so "is this supported?" can never
// drift from what runs.
#pragma once

#include <optional>
#include <string>

#include "api/device_query.hpp"
#include "fattn/fattn.hpp"

namespace fattn::detail {

// Why `backend` cannot run `problem` on `device`, or nullopt when it can.
std::optional<std::string> why_backend_cannot_run(Backend backend, const Problem& problem,
                                                  const DeviceInfo& device);

Selection select_backend(const Problem& problem, const DeviceInfo& device);

}  // namespace fattn::detail
