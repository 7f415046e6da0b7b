#include "api/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "api/device_query.hpp"

namespace fattn::detail {
namespace {

// Kernels index rows and columns with 32-bit integers.
constexpr std::int64_t kMaxSeqlen = std::numeric_limits<std::int32_t>::max();
constexpr std::size_t kMaxVectorBytes = 16;

constexpr const char* kLayout = "(batch, seqlen, heads, head_dim)";

bool is_attention_dtype(DType dtype) {
  return dtype == DType::float32 || dtype == DType::float16 || dtype == DType::bfloat16;
}

// Checks that do not depend on any other tensor: rank, pointer, layout, location.
Status check_tensor(const TensorView& t, const char* name, int rank, const char* layout) {
  if (t.rank != rank) {
    return Status::InvalidArgument(std::string(name) + ": expected a rank-" +
                                   std::to_string(rank) + " tensor " + layout + ", got rank " +
                                   std::to_string(t.rank) + " with shape " + t.shape_string());
  }
  for (int d = 0; d < rank; ++d) {
    if (t.shape[d] < 0) {
      return Status::InvalidArgument(std::string(name) + ": dimension " + std::to_string(d) +
                                     " is negative in shape " + t.shape_string());
    }
    if (t.stride[d] < 0) {
      return Status::InvalidArgument(std::string(name) + ": expected non-negative strides, got " +
                                     std::to_string(t.stride[d]) + " in dimension " +
                                     std::to_string(d));
    }
  }
  if (t.shape[rank - 1] > 1 && t.stride[rank - 1] != 1) {
    return Status::InvalidArgument(std::string(name) +
                                   ": the last dimension must be contiguous (stride 1), got "
                                   "stride " + std::to_string(t.stride[rank - 1]));
  }
  if (t.numel() > 0) {
    if (t.data == nullptr) {
      return Status::InvalidArgument(std::string(name) + ": data pointer is null for a tensor of "
                                     "shape " + t.shape_string());
    }
    const auto address = reinterpret_cast<std::uintptr_t>(t.data);
    if (address % size_of(t.dtype) != 0) {
      return Status::InvalidArgument(std::string(name) + ": data pointer is misaligned: expected "
                                     "a multiple of " + std::to_string(size_of(t.dtype)) +
                                     " bytes for " + to_string(t.dtype) + ", got address " +
                                     std::to_string(address));
    }
    if (Status location = verify_pointer_location(t, name); !location.ok()) return location;
  }
  return Status::Ok();
}

Status expect_shape(const TensorView& t, const char* name, const TensorView& like,
                    const char* like_name) {
  for (int d = 0; d < 4; ++d) {
    if (t.shape[d] != like.shape[d]) {
      return Status::InvalidArgument(std::string(name) + ": expected shape " + like.shape_string() +
                                     " (that of " + like_name + "), got " + t.shape_string());
    }
  }
  return Status::Ok();
}

Status expect_same_dtype_device(const TensorView& t, const char* name, const TensorView& q) {
  if (t.dtype != q.dtype) {
    return Status::InvalidArgument(std::string(name) + ": expected dtype " + to_string(q.dtype) +
                                   " (that of q), got " + to_string(t.dtype));
  }
  if (t.device != q.device) {
    return Status::InvalidArgument(std::string(name) + ": expected a tensor on " +
                                   to_string(q.device) + " (where q is), got one on " +
                                   to_string(t.device));
  }
  return Status::Ok();
}

Status check_options(const Options& options) {
  if (options.softmax_scale && !std::isfinite(*options.softmax_scale)) {
    return Status::InvalidArgument("softmax_scale: expected a finite number, got " +
                                   std::to_string(*options.softmax_scale));
  }
  if (options.window.left < kUnboundedWindow || options.window.right < kUnboundedWindow) {
    return Status::InvalidArgument("window: expected each side >= 0, or -1 for unbounded, got (" +
                                   std::to_string(options.window.left) + ", " +
                                   std::to_string(options.window.right) + ")");
  }
  // Masks index keys with 32-bit integers; a wider window is not clamped silently.
  if (options.window.left > kMaxSeqlen || options.window.right > kMaxSeqlen) {
    return Status::InvalidArgument("window: expected each side at most " + std::to_string(kMaxSeqlen) +
                                   " (or -1 for unbounded), got (" + std::to_string(options.window.left) +
                                   ", " + std::to_string(options.window.right) + ")");
  }
  return Status::Ok();
}

// The checks shared by forward and backward on q, k, v, out, lse.
Status check_attention_inputs(const TensorView& q, const TensorView& k, const TensorView& v,
                              const TensorView& out, const TensorView& lse,
                              const Options& options) {
  for (const auto& [t, name] : {std::pair{&q, "q"}, {&k, "k"}, {&v, "v"}, {&out, "out"}}) {
    if (Status s = check_tensor(*t, name, 4, kLayout); !s.ok()) return s;
  }
  if (!is_attention_dtype(q.dtype)) {
    return Status::InvalidArgument(std::string("q: expected dtype float32, float16 or bfloat16, "
                                               "got ") + to_string(q.dtype));
  }
  for (const auto& [t, name] : {std::pair{&k, "k"}, {&v, "v"}, {&out, "out"}}) {
    if (Status s = expect_same_dtype_device(*t, name, q); !s.ok()) return s;
  }
  const std::int64_t batch = q.shape[0], seqlen_q = q.shape[1], heads_q = q.shape[2];
  const std::int64_t head_dim = q.shape[3];
  if (k.shape[0] != batch) {
    return Status::InvalidArgument("k: expected batch " + std::to_string(batch) +
                                   " (that of q), got " + std::to_string(k.shape[0]) +
                                   " in shape " + k.shape_string());
  }
  if (k.shape[3] != head_dim) {
    return Status::InvalidArgument("k: expected head_dim " + std::to_string(head_dim) +
                                   " (that of q), got " + std::to_string(k.shape[3]) +
                                   " in shape " + k.shape_string());
  }
  if (Status s = expect_shape(v, "v", k, "k"); !s.ok()) return s;
  if (Status s = expect_shape(out, "out", q, "q"); !s.ok()) return s;
  if (head_dim < 1 || head_dim > kMaxHeadDim) {
    return Status::InvalidArgument("q: unsupported head_dim: expected 1 to " +
                                   std::to_string(kMaxHeadDim) + ", got " +
                                   std::to_string(head_dim));
  }
  const std::int64_t heads_kv = k.shape[2];
  if (heads_q > 0 && (heads_kv == 0 || heads_q % heads_kv != 0)) {
    return Status::InvalidArgument("k: heads_q must be a multiple of heads_kv (GQA/MQA): q has " +
                                   std::to_string(heads_q) + " heads, k has " +
                                   std::to_string(heads_kv));
  }
  if (seqlen_q > kMaxSeqlen || k.shape[1] > kMaxSeqlen) {
    return Status::InvalidArgument("q/k: sequence length over the supported " +
                                   std::to_string(kMaxSeqlen) + ": got seqlen_q " +
                                   std::to_string(seqlen_q) + ", seqlen_k " +
                                   std::to_string(k.shape[1]));
  }
  if (Status s = check_tensor(lse, "lse", 3, "(batch, heads_q, seqlen_q)"); !s.ok()) return s;
  if (lse.dtype != DType::float32) {
    return Status::InvalidArgument(std::string("lse: expected dtype float32, got ") +
                                   to_string(lse.dtype));
  }
  if (lse.device != q.device) {
    return Status::InvalidArgument("lse: expected a tensor on " + to_string(q.device) +
                                   " (where q is), got one on " + to_string(lse.device));
  }
  if (lse.shape[0] != batch || lse.shape[1] != heads_q || lse.shape[2] != seqlen_q) {
    return Status::InvalidArgument("lse: expected shape (" + std::to_string(batch) + ", " +
                                   std::to_string(heads_q) + ", " + std::to_string(seqlen_q) +
                                   ") = (batch, heads_q, seqlen_q), got " + lse.shape_string());
  }
  const bool lse_contiguous = lse.numel() == 0 ||
                              ((lse.shape[2] <= 1 || lse.stride[2] == 1) &&
                               (lse.shape[1] <= 1 || lse.stride[1] == lse.shape[2]) &&
                               (lse.shape[0] <= 1 || lse.stride[0] == lse.shape[1] * lse.shape[2]));
  if (!lse_contiguous) {
    return Status::InvalidArgument("lse: expected a contiguous tensor, got strides (" +
                                   std::to_string(lse.stride[0]) + ", " +
                                   std::to_string(lse.stride[1]) + ", " +
                                   std::to_string(lse.stride[2]) + ")");
  }
  return check_options(options);
}

}  // namespace

namespace {

// The largest power of two, at most `alignment`, that divides `bytes`.
std::size_t narrowed_alignment(std::size_t alignment, std::uint64_t bytes) {
  while (alignment > 1 && bytes % alignment != 0) alignment /= 2;
  return alignment;
}

// Where the tensor's first element lies in its 16-byte word, in elements.
std::int64_t lead_elements(const TensorView& tensor) {
  return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(tensor.data) %
                                   kMaxVectorBytes / size_of(tensor.dtype));
}

}  // namespace

std::size_t vector_alignment_bytes(const TensorView& tensor) {
  std::size_t alignment =
      narrowed_alignment(kMaxVectorBytes, reinterpret_cast<std::uintptr_t>(tensor.data));
  for (int d = 0; d + 1 < tensor.rank; ++d) {
    if (tensor.shape[d] > 1) {
      alignment = narrowed_alignment(alignment, static_cast<std::uint64_t>(tensor.stride[d]) *
                                                    size_of(tensor.dtype));
    }
  }
  return alignment;
}

std::size_t row_alignment_bytes(const TensorView& tensor) {
  constexpr int kBatchDim = 0, kSeqDim = 1, kHeadDim = 2, kColumnDim = 3;
  constexpr std::int64_t kMaxColumnCoordinate = std::numeric_limits<std::int32_t>::max();
  const std::uint64_t element_bytes = size_of(tensor.dtype);
  std::size_t alignment = kMaxVectorBytes;
  for (int d : {kBatchDim, kSeqDim}) {
    if (tensor.shape[d] > 1) {
      alignment = narrowed_alignment(alignment,
                                     static_cast<std::uint64_t>(tensor.stride[d]) * element_bytes);
    }
  }
  // One row's heads, from the 16-byte word holding the first element, in elements.
  const std::int64_t row_span = lead_elements(tensor) +
                                (tensor.shape[kHeadDim] - 1) * tensor.stride[kHeadDim] +
                                tensor.shape[kColumnDim];
  if (row_span > kMaxColumnCoordinate) return 1;
  // The next stepped dimension must start past the row's heads.
  for (int d : {kSeqDim, kBatchDim}) {
    if (tensor.shape[d] > 1) return row_span <= tensor.stride[d] ? alignment : 1;
  }
  return alignment;
}

bool head_phases_agree(const TensorView& q, const TensorView& k) {
  constexpr int kHeadDim = 2;
  const std::int64_t word = static_cast<std::int64_t>(kMaxVectorBytes / size_of(q.dtype));
  auto phase = [&](const TensorView& t, std::int64_t head) {
    return (lead_elements(t) + head * t.stride[kHeadDim]) % word;
  };
  const std::int64_t group =
      k.shape[kHeadDim] > 0 ? std::max<std::int64_t>(q.shape[kHeadDim] / k.shape[kHeadDim], 1) : 1;
  // Both phases repeat after `word` key heads, i.e. `word` groups of query heads.
  const std::int64_t heads = std::min(q.shape[kHeadDim], word * group);
  for (std::int64_t h = 0; h < heads; ++h) {
    if (phase(q, h) != phase(k, h / group)) return false;
  }
  return true;
}

Status validate_forward(const TensorView& q, const TensorView& k, const TensorView& v,
                        const TensorView& out, const TensorView& lse, const Options& options) {
  return check_attention_inputs(q, k, v, out, lse, options);
}

Status validate_backward(const TensorView& q, const TensorView& k, const TensorView& v,
                         const TensorView& out, const TensorView& dout, const TensorView& lse,
                         const TensorView& dq, const TensorView& dk, const TensorView& dv,
                         const Options& options) {
  if (Status s = check_attention_inputs(q, k, v, out, lse, options); !s.ok()) return s;
  const std::pair<const TensorView*, const char*> grads[] = {
      {&dout, "dout"}, {&dq, "dq"}, {&dk, "dk"}, {&dv, "dv"}};
  for (const auto& [t, name] : grads) {
    if (Status s = check_tensor(*t, name, 4, kLayout); !s.ok()) return s;
    if (Status s = expect_same_dtype_device(*t, name, q); !s.ok()) return s;
  }
  if (Status s = expect_shape(dout, "dout", q, "q"); !s.ok()) return s;
  if (Status s = expect_shape(dq, "dq", q, "q"); !s.ok()) return s;
  if (Status s = expect_shape(dk, "dk", k, "k"); !s.ok()) return s;
  return expect_shape(dv, "dv", v, "v");
}

}  // namespace fattn::detail
