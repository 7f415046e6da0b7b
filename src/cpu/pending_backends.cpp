// TEMPORARY (scaffolding while the CPU backends are written): delete when standard.cpp and
// flash*.cpp land. Reports the backends as unsupported so nothing silently passes.
#include "api/backends.hpp"

namespace fattn::detail {
Status cpu_standard_forward(const AttentionArgs&) { return Status::Unsupported("cpu_standard is not written yet"); }
Status cpu_standard_backward(const AttentionArgs&) { return Status::Unsupported("cpu_standard is not written yet"); }
Status cpu_flash_forward(const AttentionArgs&) { return Status::Unsupported("cpu_flash is not written yet"); }
Status cpu_flash_backward(const AttentionArgs&) { return Status::Unsupported("cpu_flash is not written yet"); }
}  // namespace fattn::detail
