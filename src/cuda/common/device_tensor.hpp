// What a kernel needs of a (batch, seqlen, heads, head_dim) TensorView: the pointer and the
// three outer strides (the last dimension is contiguous, checked by validation). Passed to
// kernels by value.
#pragma once

#include <cstdint>

#include "common/host_device.hpp"
#include "fattn/types.hpp"

namespace fattn::detail {

template <class Element>
struct DeviceTensor {
  Element* data = nullptr;
  std::int64_t batch_stride = 0;
  std::int64_t row_stride = 0;  // stride of seqlen
  std::int64_t head_stride = 0;

  FATTN_HOST_DEVICE Element* row(std::int64_t b, std::int64_t s, std::int64_t h) const {
    return data + b * batch_stride + s * row_stride + h * head_stride;
  }
};

template <class Element>
DeviceTensor<Element> device_tensor(const TensorView& view) {
  return {static_cast<Element*>(view.data), view.stride[0], view.stride[1], view.stride[2]};
}

}  // namespace fattn::detail
