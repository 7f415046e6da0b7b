#include <sstream>

#include "fattn/fattn.hpp"

namespace fattn {

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::float32: return "float32";
    case DType::float16: return "float16";
    case DType::bfloat16: return "bfloat16";
    case DType::float8_e4m3: return "float8_e4m3";
  }
  return "unknown dtype";
}

std::size_t size_of(DType dtype) {
  switch (dtype) {
    case DType::float32: return 4;
    case DType::float16:
    case DType::bfloat16: return 2;
    case DType::float8_e4m3: return 1;
  }
  return 0;
}

std::string to_string(const Device& device) {
  return device.type == DeviceType::cpu ? "cpu" : "cuda:" + std::to_string(device.index);
}

const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::ok: return "ok";
    case StatusCode::invalid_argument: return "invalid argument";
    case StatusCode::unsupported: return "unsupported";
    case StatusCode::device_error: return "device error";
    case StatusCode::internal: return "internal error";
  }
  return "unknown status";
}

TensorView TensorView::contiguous(void* data, DType dtype, Device device,
                                  std::initializer_list<std::int64_t> shape) {
  TensorView view;
  view.data = data;
  view.dtype = dtype;
  view.device = device;
  view.rank = static_cast<int>(shape.size());
  int d = 0;
  for (std::int64_t extent : shape) view.shape[d++] = extent;
  std::int64_t stride = 1;
  for (int i = view.rank - 1; i >= 0; --i) {
    view.stride[i] = stride;
    stride *= view.shape[i];
  }
  return view;
}

TensorView TensorView::strided(void* data, DType dtype, Device device,
                               std::initializer_list<std::int64_t> shape,
                               std::initializer_list<std::int64_t> strides) {
  TensorView view = contiguous(data, dtype, device, shape);
  int d = 0;
  for (std::int64_t s : strides) {
    if (d < kMaxRank) view.stride[d] = s;
    ++d;
  }
  // A mismatched stride list leaves the view with an invalid rank, which validation reports.
  if (d != view.rank) view.rank = -1;
  return view;
}

std::int64_t TensorView::numel() const {
  if (rank <= 0) return 0;
  std::int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= shape[d];
  return n;
}

std::string TensorView::shape_string() const {
  std::ostringstream s;
  s << "(";
  for (int d = 0; d < rank; ++d) s << (d ? ", " : "") << shape[d];
  s << ")";
  return s.str();
}

}  // namespace fattn
