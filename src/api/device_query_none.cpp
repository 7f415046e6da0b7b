// Device queries for a build without CUDA: there are no CUDA devices, and any tensor that
// claims to be on one is refused with a message that says why.
#include <string>

#include "api/device_query.hpp"

namespace fattn::detail {

DeviceInfo query_cuda_device(int /*ordinal*/) { return {}; }

void cap_shared_bytes_per_block(int /*ordinal*/, int /*bytes*/) {}

Status verify_pointer_location(const TensorView& tensor, const char* argument) {
  if (tensor.device.type == DeviceType::cuda) {
    return Status::Unsupported(std::string(argument) +
                               ": is a CUDA tensor, but this build of fattn has no CUDA support "
                               "(rebuild with a CUDA toolkit present)");
  }
  return Status::Ok();
}

}  // namespace fattn::detail
