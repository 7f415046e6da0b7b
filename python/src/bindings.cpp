// fattn._fattn: the thin nanobind layer between Python and the C++ API (include/fattn).
//
// Every tensor arrives as a DLPack array (numpy, cupy, ...) or, from the torch integration, as a
// torch.Tensor read through its own attributes (forward_torch / backward_torch: a DLPack export
// costs torch a Python call each, 14 of them per fwd+bwd), and is wrapped in a
// fattn::TensorView with its own strides: nothing is copied. The Python package
// allocates the outputs with the caller's array library and passes them in; this layer only
// translates types, releases the GIL while the library runs, and turns a failed Status into
// the Python exception that matches its code, with the library's message unchanged.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fattn/fattn.hpp"

namespace nb = nanobind;

namespace {

// Inputs may be read-only (a numpy array of a frozen buffer, say); outputs must be writable.
using InputArray = nb::ndarray<nb::ro>;
using OutputArray = nb::ndarray<>;

// Every value of the Backend enum, in declaration order.
constexpr fattn::Backend kAllBackends[] = {
    fattn::Backend::cpu_reference, fattn::Backend::cpu_standard, fattn::Backend::cpu_flash,
    fattn::Backend::cuda_standard, fattn::Backend::cuda_simt,    fattn::Backend::cuda_sm80,
    fattn::Backend::cuda_sm90};

constexpr std::uint8_t kBitsHalf = 16;
constexpr std::uint8_t kBitsSingle = 32;

[[noreturn]] void raise_python(PyObject* exception_type, const std::string& message) {
  PyErr_SetString(exception_type, message.c_str());
  throw nb::python_error();
}

// Status codes map onto the exceptions Python code expects: bad arguments are ValueError,
// "valid but nothing compiled can run it" is NotImplementedError (a RuntimeError subclass),
// device and internal failures are RuntimeError.
void raise_if_failed(const fattn::Status& status) {
  if (status.ok()) return;
  switch (status.code()) {
    case fattn::StatusCode::invalid_argument: raise_python(PyExc_ValueError, status.message());
    case fattn::StatusCode::unsupported: raise_python(PyExc_NotImplementedError, status.message());
    default: raise_python(PyExc_RuntimeError, status.message());
  }
}

std::string dlpack_dtype_name(const nb::dlpack::dtype& dtype) {
  std::string kind;
  switch (static_cast<nb::dlpack::dtype_code>(dtype.code)) {
    case nb::dlpack::dtype_code::Int: kind = "int"; break;
    case nb::dlpack::dtype_code::UInt: kind = "uint"; break;
    case nb::dlpack::dtype_code::Float: kind = "float"; break;
    case nb::dlpack::dtype_code::Bfloat: kind = "bfloat"; break;
    case nb::dlpack::dtype_code::Complex: kind = "complex"; break;
    case nb::dlpack::dtype_code::Bool: kind = "bool"; break;
    default: return "DLPack type code " + std::to_string(dtype.code);
  }
  return kind + std::to_string(dtype.bits);
}

fattn::DType to_fattn_dtype(const nb::dlpack::dtype& dtype, const char* name) {
  if (dtype.lanes == 1) {
    if (dtype.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float)) {
      if (dtype.bits == kBitsSingle) return fattn::DType::float32;
      if (dtype.bits == kBitsHalf) return fattn::DType::float16;
    }
    if (dtype.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bfloat) &&
        dtype.bits == kBitsHalf) {
      return fattn::DType::bfloat16;
    }
  }
  raise_python(PyExc_ValueError, std::string(name) +
                                     ": expected dtype float32, float16 or bfloat16, got " +
                                     dlpack_dtype_name(dtype));
}

fattn::Device to_fattn_device(int device_type, int device_id, const char* name) {
  if (device_type == nb::device::cpu::value) return fattn::Device::cpu();
  if (device_type == nb::device::cuda::value) return fattn::Device::cuda(device_id);
  raise_python(PyExc_ValueError,
               std::string(name) + ": expected a CPU or CUDA tensor, got DLPack device type " +
                   std::to_string(device_type) + " (pinned, managed and other memories are "
                                                 "not accepted)");
}

// An empty tensor addresses no memory, and exporters report arbitrary strides for it (numpy
// gives 0): describe it as dense so the layout checks judge only tensors with elements.
fattn::TensorView densify_if_empty(fattn::TensorView view) {
  if (view.empty()) {
    std::int64_t dense_stride = 1;
    for (int d = view.rank - 1; d >= 0; --d) {
      view.stride[d] = dense_stride;
      dense_stride *= std::max<std::int64_t>(view.shape[d], 1);
    }
  }
  return view;
}

// Wraps an array in a TensorView without copying: same pointer, shape and element strides.
template <class Array>
fattn::TensorView to_view(const Array& array, const char* name) {
  fattn::TensorView view;
  if (array.ndim() > static_cast<std::size_t>(fattn::kMaxRank)) {
    std::string shape = "(";
    for (std::size_t d = 0; d < array.ndim(); ++d) {
      shape += (d ? ", " : "") + std::to_string(array.shape(d));
    }
    raise_python(PyExc_ValueError, std::string(name) + ": expected at most " +
                                       std::to_string(fattn::kMaxRank) + " dimensions, got " +
                                       std::to_string(array.ndim()) + " with shape " + shape +
                                       ")");
  }
  view.data = const_cast<void*>(static_cast<const void*>(array.data()));
  view.dtype = to_fattn_dtype(array.dtype(), name);
  view.device = to_fattn_device(array.device_type(), array.device_id(), name);
  view.rank = static_cast<int>(array.ndim());
  for (int d = 0; d < view.rank; ++d) {
    view.shape[d] = static_cast<std::int64_t>(array.shape(d));
    view.stride[d] = static_cast<std::int64_t>(array.stride(d));
  }
  return densify_if_empty(view);
}

// ---- torch tensors, read through their attributes -------------------------------------------

// The torch objects a tensor's attributes are compared with, looked up once (torch is imported
// by the time a torch tensor reaches this layer). Never freed: they live as long as torch does,
// and releasing them after the interpreter is gone would crash at exit.
struct TorchConstants {
  nb::object float32, float16, bfloat16, strided;
};

const TorchConstants& torch_constants() {
  static const TorchConstants* constants = [] {
    nb::module_ torch = nb::module_::import_("torch");
    return new TorchConstants{torch.attr("float32"), torch.attr("float16"),
                              torch.attr("bfloat16"), torch.attr("strided")};
  }();
  return *constants;
}

// str(object), for messages.
std::string text_of(const nb::handle& object) {
  PyObject* text = PyObject_Str(object.ptr());
  if (text == nullptr) throw nb::python_error();
  return nb::steal<nb::str>(text).c_str();
}

// "torch.float64" -> "float64", the name the DLPack path and the library's messages use.
std::string torch_name(const nb::handle& object) {
  constexpr std::string_view kPrefix = "torch.";
  std::string text = text_of(object);
  if (text.rfind(kPrefix, 0) == 0) text.erase(0, kPrefix.size());
  return text;
}

// "(1, 8, 4, 16)": a shape as the DLPack path's messages write it (str(torch.Size) would not).
std::string tuple_text(const nb::handle& tuple) {
  std::string text = "(";
  const Py_ssize_t length = PyTuple_Size(tuple.ptr());
  for (Py_ssize_t d = 0; d < length; ++d) {
    text += (d ? ", " : "") + text_of(PyTuple_GET_ITEM(tuple.ptr(), d));
  }
  return text + ")";
}

// A tuple of Python ints (torch.Size, a stride tuple) into `out`; returns its length.
std::size_t read_int_tuple(const nb::handle& tuple, std::array<std::int64_t, fattn::kMaxRank>& out,
                           const char* name, const char* what) {
  const Py_ssize_t length = PyTuple_Size(tuple.ptr());
  if (length < 0) throw nb::python_error();
  for (Py_ssize_t d = 0; d < length && d < fattn::kMaxRank; ++d) {
    const long long value = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple.ptr(), d));
    if (value == -1 && PyErr_Occurred()) {
      raise_python(PyExc_ValueError, std::string(name) + ": could not read its " + what);
    }
    out[static_cast<std::size_t>(d)] = value;
  }
  return static_cast<std::size_t>(length);
}

// Wraps a torch.Tensor in a TensorView without copying, with the checks a DLPack export would
// make (dense layout, no lazy negation) and the same messages as to_view for what the library
// cannot take. Requires no detach(): nothing is exported, the pointer is only read.
fattn::TensorView torch_view(const nb::handle& tensor, const char* name) {
  const TorchConstants& torch = torch_constants();
  fattn::TensorView view;
  std::array<std::int64_t, fattn::kMaxRank> shape{};
  const std::size_t rank = read_int_tuple(tensor.attr("shape"), shape, name, "shape");
  if (rank > static_cast<std::size_t>(fattn::kMaxRank)) {
    raise_python(PyExc_ValueError, std::string(name) + ": expected at most " +
                                       std::to_string(fattn::kMaxRank) + " dimensions, got " +
                                       std::to_string(rank) + " with shape " +
                                       tuple_text(tensor.attr("shape")));
  }
  const nb::object dtype = tensor.attr("dtype");
  if (dtype.is(torch.float32)) {
    view.dtype = fattn::DType::float32;
  } else if (dtype.is(torch.float16)) {
    view.dtype = fattn::DType::float16;
  } else if (dtype.is(torch.bfloat16)) {
    view.dtype = fattn::DType::bfloat16;
  } else {
    raise_python(PyExc_ValueError, std::string(name) +
                                       ": expected dtype float32, float16 or bfloat16, got " +
                                       torch_name(dtype));
  }
  const nb::object layout = tensor.attr("layout");
  if (!layout.is(torch.strided)) {
    raise_python(PyExc_ValueError, std::string(name) + ": expected a dense (strided) tensor, got "
                                                       "layout " + torch_name(layout));
  }
  if (nb::cast<bool>(tensor.attr("is_neg")())) {
    raise_python(PyExc_ValueError, std::string(name) + ": has its negation bit set (a lazy "
                                                       "negation view); call resolve_neg() first");
  }
  if (nb::cast<bool>(tensor.attr("is_cuda"))) {
    view.device = fattn::Device::cuda(nb::cast<int>(tensor.attr("get_device")()));
  } else if (nb::cast<bool>(tensor.attr("is_cpu"))) {
    view.device = fattn::Device::cpu();
  } else {
    raise_python(PyExc_ValueError, std::string(name) + ": expected a CPU or CUDA tensor, got one "
                                                       "on " + text_of(tensor.attr("device")));
  }
  view.rank = static_cast<int>(rank);
  view.shape = shape;
  read_int_tuple(tensor.attr("stride")(), view.stride, name, "strides");
  view.data = PyLong_AsVoidPtr(tensor.attr("data_ptr")().ptr());
  if (view.data == nullptr && PyErr_Occurred()) throw nb::python_error();
  return densify_if_empty(view);
}

fattn::Backend parse_backend(const std::string& name) {
  if (auto backend = fattn::backend_from_string(name)) return *backend;
  std::string known = "auto";
  for (fattn::Backend b : kAllBackends) known += std::string(", ") + fattn::to_string(b);
  raise_python(PyExc_ValueError, "backend: unknown name '" + name + "', expected one of " + known);
}

fattn::Options make_options(std::optional<float> softmax_scale, bool causal,
                            std::pair<std::int64_t, std::int64_t> window,
                            const std::string& backend, bool deterministic) {
  fattn::Options options;
  options.softmax_scale = softmax_scale;
  options.causal = causal;
  options.window = {window.first, window.second};
  options.backend = parse_backend(backend);
  options.deterministic = deterministic;
  return options;
}

fattn::ExecutionContext make_context(std::uintptr_t cuda_stream, int num_threads,
                                     fattn::RunStats* stats) {
  fattn::ExecutionContext context;
  context.cuda_stream = reinterpret_cast<void*>(cuda_stream);
  context.num_threads = num_threads;
  context.stats = stats;
  return context;
}

// Runs `call(context)` (fattn::forward or fattn::backward) with the GIL released, raises its
// failure as a Python exception, and returns the name of the backend that ran.
template <class Call>
std::string run_without_gil(std::uintptr_t cuda_stream, int num_threads, Call call) {
  fattn::RunStats stats;
  const fattn::ExecutionContext context = make_context(cuda_stream, num_threads, &stats);
  fattn::Status status;
  {
    nb::gil_scoped_release release;
    status = call(context);
  }
  raise_if_failed(status);
  return fattn::to_string(stats.backend);
}

// Runs forward on views and returns the name of the backend that ran.
std::string forward_views(const fattn::TensorView& q, const fattn::TensorView& k,
                          const fattn::TensorView& v, const fattn::TensorView& out,
                          const fattn::TensorView& lse, std::optional<float> softmax_scale,
                          bool causal, std::pair<std::int64_t, std::int64_t> window,
                          const std::string& backend, bool deterministic,
                          std::uintptr_t cuda_stream, int num_threads) {
  const fattn::Options options =
      make_options(softmax_scale, causal, window, backend, deterministic);
  return run_without_gil(cuda_stream, num_threads, [&](const fattn::ExecutionContext& context) {
    return fattn::forward(q, k, v, out, lse, options, context);
  });
}

// Runs backward on views and returns the name of the backend that ran.
std::string backward_views(const fattn::TensorView& q, const fattn::TensorView& k,
                           const fattn::TensorView& v, const fattn::TensorView& out,
                           const fattn::TensorView& dout, const fattn::TensorView& lse,
                           const fattn::TensorView& dq, const fattn::TensorView& dk,
                           const fattn::TensorView& dv, std::optional<float> softmax_scale,
                           bool causal, std::pair<std::int64_t, std::int64_t> window,
                           const std::string& backend, bool deterministic,
                           std::uintptr_t cuda_stream, int num_threads) {
  const fattn::Options options =
      make_options(softmax_scale, causal, window, backend, deterministic);
  return run_without_gil(cuda_stream, num_threads, [&](const fattn::ExecutionContext& context) {
    return fattn::backward(q, k, v, out, dout, lse, dq, dk, dv, options, context);
  });
}

// forward / backward on DLPack arrays (numpy, cupy, ...). The views are made one statement at a
// time, in argument order, so that the first bad argument is the one reported.
std::string forward(const InputArray& q, const InputArray& k, const InputArray& v,
                    const OutputArray& out, const OutputArray& lse,
                    std::optional<float> softmax_scale, bool causal,
                    std::pair<std::int64_t, std::int64_t> window, const std::string& backend,
                    bool deterministic, std::uintptr_t cuda_stream, int num_threads) {
  const fattn::TensorView q_view = to_view(q, "q"), k_view = to_view(k, "k"),
                          v_view = to_view(v, "v"), out_view = to_view(out, "out"),
                          lse_view = to_view(lse, "lse");
  return forward_views(q_view, k_view, v_view, out_view, lse_view, softmax_scale, causal, window,
                       backend, deterministic, cuda_stream, num_threads);
}

std::string backward(const InputArray& q, const InputArray& k, const InputArray& v,
                     const InputArray& out, const InputArray& dout, const InputArray& lse,
                     const OutputArray& dq, const OutputArray& dk, const OutputArray& dv,
                     std::optional<float> softmax_scale, bool causal,
                     std::pair<std::int64_t, std::int64_t> window, const std::string& backend,
                     bool deterministic, std::uintptr_t cuda_stream, int num_threads) {
  const fattn::TensorView q_view = to_view(q, "q"), k_view = to_view(k, "k"),
                          v_view = to_view(v, "v"), out_view = to_view(out, "out"),
                          dout_view = to_view(dout, "dout"), lse_view = to_view(lse, "lse"),
                          dq_view = to_view(dq, "dq"), dk_view = to_view(dk, "dk"),
                          dv_view = to_view(dv, "dv");
  return backward_views(q_view, k_view, v_view, out_view, dout_view, lse_view, dq_view, dk_view,
                        dv_view, softmax_scale, causal, window, backend, deterministic,
                        cuda_stream, num_threads);
}

// The same on torch tensors (any requires_grad: nothing is exported, so no detach is needed).
std::string forward_torch(const nb::handle& q, const nb::handle& k, const nb::handle& v,
                          const nb::handle& out, const nb::handle& lse,
                          std::optional<float> softmax_scale, bool causal,
                          std::pair<std::int64_t, std::int64_t> window,
                          const std::string& backend, bool deterministic,
                          std::uintptr_t cuda_stream, int num_threads) {
  const fattn::TensorView q_view = torch_view(q, "q"), k_view = torch_view(k, "k"),
                          v_view = torch_view(v, "v"), out_view = torch_view(out, "out"),
                          lse_view = torch_view(lse, "lse");
  return forward_views(q_view, k_view, v_view, out_view, lse_view, softmax_scale, causal, window,
                       backend, deterministic, cuda_stream, num_threads);
}

std::string backward_torch(const nb::handle& q, const nb::handle& k, const nb::handle& v,
                           const nb::handle& out, const nb::handle& dout, const nb::handle& lse,
                           const nb::handle& dq, const nb::handle& dk, const nb::handle& dv,
                           std::optional<float> softmax_scale, bool causal,
                           std::pair<std::int64_t, std::int64_t> window,
                           const std::string& backend, bool deterministic,
                           std::uintptr_t cuda_stream, int num_threads) {
  const fattn::TensorView q_view = torch_view(q, "q"), k_view = torch_view(k, "k"),
                          v_view = torch_view(v, "v"), out_view = torch_view(out, "out"),
                          dout_view = torch_view(dout, "dout"), lse_view = torch_view(lse, "lse"),
                          dq_view = torch_view(dq, "dq"), dk_view = torch_view(dk, "dk"),
                          dv_view = torch_view(dv, "dv");
  return backward_views(q_view, k_view, v_view, out_view, dout_view, lse_view, dq_view, dk_view,
                        dv_view, softmax_scale, causal, window, backend, deterministic,
                        cuda_stream, num_threads);
}

// The selector's answer for these inputs: (backend name or None, reason when None).
std::pair<std::optional<std::string>, std::string> supports(
    const InputArray& q, const InputArray& k, std::optional<float> softmax_scale, bool causal,
    std::pair<std::int64_t, std::int64_t> window, const std::string& backend,
    bool deterministic, bool backward_direction) {
  constexpr int kAttentionRank = 4;
  const fattn::TensorView q_view = to_view(q, "q"), k_view = to_view(k, "k");
  for (const auto& [view, name] : {std::pair{&q_view, "q"}, {&k_view, "k"}}) {
    if (view->rank != kAttentionRank) {
      raise_python(PyExc_ValueError, std::string(name) +
                                         ": expected a rank-4 tensor (batch, seqlen, heads, "
                                         "head_dim), got shape " + view->shape_string());
    }
  }
  const fattn::Options options =
      make_options(softmax_scale, causal, window, backend, deterministic);
  const fattn::Problem problem = fattn::Problem::describe(
      q_view, k_view, options,
      backward_direction ? fattn::Direction::backward : fattn::Direction::forward);
  const fattn::Selection selection = fattn::supports(problem);
  if (!selection.ok()) return {std::nullopt, selection.reason};
  return {std::string(fattn::to_string(*selection.backend)), std::string()};
}

std::vector<std::string> backend_names(bool compiled_only) {
  std::vector<std::string> names;
  for (fattn::Backend b : kAllBackends) {
    if (!compiled_only || fattn::backend_compiled(b)) names.emplace_back(fattn::to_string(b));
  }
  return names;
}

}  // namespace

NB_MODULE(_fattn, m) {
  m.doc() = "Low-level bindings of the fattn C++ library; use the functions of `fattn` instead.";
  m.attr("__version__") = fattn::version();

  const auto window_default = std::pair<std::int64_t, std::int64_t>{-1, -1};
  m.def("forward", &forward, nb::arg("q"), nb::arg("k"), nb::arg("v"), nb::arg("out"),
        nb::arg("lse"), nb::arg("softmax_scale").none() = nb::none(), nb::arg("causal") = false,
        nb::arg("window") = window_default, nb::arg("backend") = "auto",
        nb::arg("deterministic") = false, nb::arg("cuda_stream") = 0,
        nb::arg("num_threads") = 0,
        "Writes out and lse in place; returns the name of the backend that ran.");
  m.def("backward", &backward, nb::arg("q"), nb::arg("k"), nb::arg("v"), nb::arg("out"),
        nb::arg("dout"), nb::arg("lse"), nb::arg("dq"), nb::arg("dk"), nb::arg("dv"),
        nb::arg("softmax_scale").none() = nb::none(), nb::arg("causal") = false,
        nb::arg("window") = window_default, nb::arg("backend") = "auto",
        nb::arg("deterministic") = false, nb::arg("cuda_stream") = 0,
        nb::arg("num_threads") = 0,
        "Writes dq, dk and dv in place; returns the name of the backend that ran.");
  m.def("forward_torch", &forward_torch, nb::arg("q"), nb::arg("k"), nb::arg("v"),
        nb::arg("out"), nb::arg("lse"), nb::arg("softmax_scale").none(), nb::arg("causal"),
        nb::arg("window"), nb::arg("backend"), nb::arg("deterministic"),
        nb::arg("cuda_stream"), nb::arg("num_threads"),
        "forward on torch tensors, read through their attributes instead of DLPack.");
  m.def("backward_torch", &backward_torch, nb::arg("q"), nb::arg("k"), nb::arg("v"),
        nb::arg("out"), nb::arg("dout"), nb::arg("lse"), nb::arg("dq"), nb::arg("dk"),
        nb::arg("dv"), nb::arg("softmax_scale").none(), nb::arg("causal"), nb::arg("window"),
        nb::arg("backend"), nb::arg("deterministic"), nb::arg("cuda_stream"),
        nb::arg("num_threads"),
        "backward on torch tensors, read through their attributes instead of DLPack.");
  m.def("supports", &supports, nb::arg("q"), nb::arg("k"),
        nb::arg("softmax_scale").none() = nb::none(), nb::arg("causal") = false,
        nb::arg("window") = window_default, nb::arg("backend") = "auto",
        nb::arg("deterministic") = false, nb::arg("backward") = false,
        "(backend name, '') if a compiled backend can run the problem, else (None, reason).");
  m.def("backends", &backend_names, nb::arg("compiled_only") = true,
        "Names of the backends this build contains (or of every backend fattn knows).");
}
