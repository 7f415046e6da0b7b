#include "cli_problem.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

namespace fattn::cli {
namespace {

// FlashAttention's FLOP convention: the backward does 2.5× the forward's matrix work
// (five GEMMs of the forward's two, counted with the recomputation of S).
constexpr double kBackwardFlopFactor = 2.5;
constexpr double kForwardFlopsPerPairPerDim = 4.0;  // two GEMMs (QKᵀ, PV), 2 FLOPs per FMA

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// A view of rows [b0, b0+nb) × [s0, s0+ns) × [h0, h0+nh) of a (batch, seqlen, heads, dim) view.
TensorView slice_bshd(const TensorView& t, std::int64_t b0, std::int64_t nb, std::int64_t s0, std::int64_t ns,
                      std::int64_t h0, std::int64_t nh) {
  TensorView s = t;
  const std::int64_t offset = b0 * t.stride[0] + s0 * t.stride[1] + h0 * t.stride[2];
  s.data = static_cast<std::uint8_t*>(t.data) + offset * static_cast<std::int64_t>(size_of(t.dtype));
  s.shape[0] = nb, s.shape[1] = ns, s.shape[2] = nh;
  return s;
}

// The same for a (batch, heads, seqlen) log-sum-exp view.
TensorView slice_bhs(const TensorView& t, std::int64_t b0, std::int64_t nb, std::int64_t h0, std::int64_t nh,
                     std::int64_t s0, std::int64_t ns) {
  TensorView s = t;
  const std::int64_t offset = b0 * t.stride[0] + h0 * t.stride[1] + s0 * t.stride[2];
  s.data = static_cast<std::uint8_t*>(t.data) + offset * static_cast<std::int64_t>(size_of(t.dtype));
  s.shape[0] = nb, s.shape[1] = nh, s.shape[2] = ns;
  return s;
}

bool has_backward(Workload w) { return w != Workload::forward; }

}  // namespace

const char* to_string(Workload workload) {
  switch (workload) {
    case Workload::forward:
      return "fwd";
    case Workload::backward:
      return "bwd";
    case Workload::forward_backward:
      return "fwdbwd";
  }
  return "?";
}

std::optional<Workload> workload_from_string(const std::string& name) {
  const std::string n = lower(name);
  if (n == "fwd" || n == "forward") return Workload::forward;
  if (n == "bwd" || n == "backward") return Workload::backward;
  if (n == "fwdbwd" || n == "fwd+bwd" || n == "both") return Workload::forward_backward;
  return std::nullopt;
}

std::optional<DType> dtype_from_string(const std::string& name) {
  const std::string n = lower(name);
  if (n == "fp32" || n == "float32" || n == "f32") return DType::float32;
  if (n == "fp16" || n == "float16" || n == "f16" || n == "half") return DType::float16;
  if (n == "bf16" || n == "bfloat16") return DType::bfloat16;
  if (n == "fp8" || n == "float8_e4m3" || n == "e4m3") return DType::float8_e4m3;
  return std::nullopt;
}

const char* short_name(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return "fp32";
    case DType::float16:
      return "fp16";
    case DType::bfloat16:
      return "bf16";
    case DType::float8_e4m3:
      return "fp8";
  }
  return "?";
}

std::optional<Device> device_from_string(const std::string& name) {
  const std::string n = lower(name);
  if (n == "cpu") return Device::cpu();
  if (n == "cuda" || n == "gpu") return Device::cuda(0);
  if (n.rfind("cuda:", 0) == 0) {
    const std::string ordinal = n.substr(5);
    if (ordinal.empty() || ordinal.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return Device::cuda(std::stoi(ordinal));
  }
  return std::nullopt;
}

Device default_device() {
  const bool gpu_backend = backend_compiled(Backend::cuda_standard);
  return gpu_backend && cuda_device_count() > 0 ? Device::cuda(0) : Device::cpu();
}

Backend flash_backend_for(const ProblemSpec& spec) {
  if (spec.device.type != DeviceType::cuda) return Backend::cpu_flash;
  const Selection selection = supports(spec.problem(Backend::automatic, Direction::forward));
  if (!selection.ok()) return Backend::automatic;
  const bool needs_backward = spec.workload != Workload::forward;
  if (needs_backward && !supports(spec.problem(*selection.backend, Direction::backward)).ok())
    return Backend::automatic;
  return *selection.backend;
}

Options ProblemSpec::options(Backend backend) const {
  Options o;
  o.causal = causal;
  o.window = window;
  o.backend = backend;
  return o;
}

namespace {

// A packed (batch, seqlen, heads, head_dim) view of the shape this program allocates, for
// Problem::describe. Only its pointer's offset within 16 bytes reaches the description (the
// alignment the selector sees), and device allocations are 256-byte aligned: a null pointer has
// that offset.
TensorView packed_shape(std::int64_t batch, std::int64_t seqlen, std::int64_t heads,
                        std::int64_t head_dim, DType dtype, Device device) {
  return TensorView::contiguous(nullptr, dtype, device, {batch, seqlen, heads, head_dim});
}

}  // namespace

Problem ProblemSpec::problem(Backend backend, Direction direction) const {
  // Through Problem::describe, as the library describes a call: the vector and row alignments
  // of packed tensors (an odd head dim in 16-bit storage gives 2-byte vectors, which the TMA
  // kernels read only as heads side by side in a row, Problem::row_alignment_bytes).
  return Problem::describe(packed_shape(batch, seqlen_q, heads_q, head_dim, dtype, device),
                           packed_shape(batch, seqlen_k, heads_kv, head_dim, dtype, device),
                           options(backend), direction);
}

ExecutionContext ProblemSpec::context(RunStats* stats) const {
  ExecutionContext c;
  c.num_threads = threads;
  c.stats = stats;
  return c;
}

std::string ProblemSpec::mask_text() const {
  if (causal && window.left < 0) return "causal";
  const std::int64_t right = causal ? 0 : window.right;
  if (window.left < 0 && right < 0) return "no mask";
  return "window (" + std::to_string(window.left) + ", " + std::to_string(right) + ")";
}

std::string ProblemSpec::summary(bool with_head_dim) const {
  std::string heads = heads_kv == heads_q ? std::to_string(heads_q)
                                          : std::to_string(heads_q) + "/" + std::to_string(heads_kv);
  std::string lengths = seqlen_q == seqlen_k
                            ? "N=" + std::to_string(seqlen_q)
                            : "Nq=" + std::to_string(seqlen_q) + " Nk=" + std::to_string(seqlen_k);
  std::string text = "B=" + std::to_string(batch) + " H=" + heads + " " + lengths +
                     (with_head_dim ? " D=" + std::to_string(head_dim) : std::string(" D swept")) + " " +
                     short_name(dtype) + ", " + mask_text() + ", " + to_string(workload) + " on " +
                     to_string(device);
  if (device.type == DeviceType::cpu) {
    text += " (" + std::to_string(threads > 0 ? threads : omp_get_max_threads()) + " threads)";
  }
  return text;
}

void add_problem_options(ArgParser& parser) {
  parser.add_option("batch", "B", "batch size");
  parser.add_option("heads", "H", "query heads");
  parser.add_option("heads-kv", "H", "key/value heads (GQA/MQA); must divide --heads", "--heads");
  parser.add_option("seqlen", "N", "query and key length");
  parser.add_option("seqlen-q", "N", "query length");
  parser.add_option("seqlen-k", "N", "key/value length");
  parser.add_option("head-dim", "D", "head dimension (1..256)");
  parser.add_option("dtype", "T", "fp32, fp16 or bf16");
  parser.add_flag("causal", "causal mask, aligned to the bottom-right corner when Nq != Nk");
  parser.add_option("window", "L,R",
                    "sliding window: keys visible left/right of the diagonal (-1 = unbounded)");
  parser.add_option("device", "DEV", "cpu or cuda[:N]", "the GPU when present, else cpu");
  parser.add_option("threads", "T", "CPU threads", "all hardware threads");
  parser.add_option("direction", "DIR", "fwd, bwd or fwdbwd", "fwd");
}

ProblemSpec read_problem_options(const ArgParser& parser, ProblemSpec spec) {
  spec.batch = parser.int_value("batch", spec.batch);
  const bool heads_kv_follows = !parser.has("heads-kv");
  spec.heads_q = parser.int_value("heads", spec.heads_q);
  spec.heads_kv = heads_kv_follows ? spec.heads_q : parser.int_value("heads-kv", spec.heads_kv);
  if (parser.has("seqlen")) spec.seqlen_q = spec.seqlen_k = parser.int_value("seqlen", 0);
  spec.seqlen_q = parser.int_value("seqlen-q", spec.seqlen_q);
  spec.seqlen_k = parser.int_value("seqlen-k", spec.seqlen_k);
  spec.head_dim = parser.int_value("head-dim", spec.head_dim);
  for (auto [value, name] : {std::pair{spec.batch, "--batch"},
                             {spec.heads_q, "--heads"},
                             {spec.heads_kv, "--heads-kv"},
                             {spec.seqlen_q, "--seqlen-q"},
                             {spec.seqlen_k, "--seqlen-k"},
                             {spec.head_dim, "--head-dim"}}) {
    // Zero sizes are valid problems (the library handles them); negative ones cannot be allocated.
    if (value < 0)
      throw UsageError(std::string(name) + ": expected a size >= 0, got " + std::to_string(value));
  }
  if (auto text = parser.value("dtype")) {
    auto dtype = dtype_from_string(*text);
    if (!dtype) throw UsageError("--dtype: expected fp32, fp16 or bf16, got '" + *text + "'");
    spec.dtype = *dtype;
  }
  if (auto text = parser.value("device")) {
    auto device = device_from_string(*text);
    if (!device) throw UsageError("--device: expected cpu or cuda[:N], got '" + *text + "'");
    spec.device = *device;
  }
  spec.causal = spec.causal || parser.has("causal");
  if (auto text = parser.value("window")) {
    const auto parts = split(*text, ',');
    if (parts.size() != 2) throw UsageError("--window: expected L,R (e.g. 256,0), got '" + *text + "'");
    spec.window.left = parse_int(parts[0], "--window");
    spec.window.right = parse_int(parts[1], "--window");
  }
  spec.threads = static_cast<int>(parser.int_value("threads", spec.threads));
  if (spec.threads < 0)
    throw UsageError("--threads: expected a count >= 0, got " + std::to_string(spec.threads));
  if (auto text = parser.value("direction")) {
    auto workload = workload_from_string(*text);
    if (!workload) throw UsageError("--direction: expected fwd, bwd or fwdbwd, got '" + *text + "'");
    spec.workload = *workload;
  }
  return spec;
}

double attended_pairs(const ProblemSpec& spec) {
  const double nq = static_cast<double>(spec.seqlen_q), nk = static_cast<double>(spec.seqlen_k);
  const std::int64_t right = spec.causal ? 0 : spec.window.right;
  if (spec.window.left < 0 && right < 0) return nq * nk;
  if (spec.window.left < 0 && right == 0 && spec.seqlen_q == spec.seqlen_k) return nq * nk / 2;
  // Exact count: row i sees keys [i + Nk - Nq - left, i + Nk - Nq + right] ∩ [0, Nk).
  double pairs = 0;
  const std::int64_t shift = spec.seqlen_k - spec.seqlen_q;
  for (std::int64_t i = 0; i < spec.seqlen_q; ++i) {
    const std::int64_t first =
        spec.window.left < 0 ? 0 : std::max<std::int64_t>(0, i + shift - spec.window.left);
    const std::int64_t last = right < 0 ? spec.seqlen_k - 1 : std::min(spec.seqlen_k - 1, i + shift + right);
    if (last >= first) pairs += static_cast<double>(last - first + 1);
  }
  return pairs;
}

double attention_flops(const ProblemSpec& spec, Workload workload) {
  const double forward = kForwardFlopsPerPairPerDim * static_cast<double>(spec.batch) *
                         static_cast<double>(spec.heads_q) * attended_pairs(spec) *
                         static_cast<double>(spec.head_dim);
  switch (workload) {
    case Workload::forward:
      return forward;
    case Workload::backward:
      return kBackwardFlopFactor * forward;
    case Workload::forward_backward:
      return (1.0 + kBackwardFlopFactor) * forward;
  }
  return forward;
}

AttentionBuffers::AttentionBuffers(const ProblemSpec& spec, bool with_gradients, std::uint64_t seed)
    : with_gradients_(with_gradients), on_device_(spec.device.type == DeviceType::cuda) {
  const std::int64_t b = spec.batch, d = spec.head_dim;
  const std::vector<std::int64_t> q_shape{b, spec.seqlen_q, spec.heads_q, d};
  const std::vector<std::int64_t> kv_shape{b, spec.seqlen_k, spec.heads_kv, d};
  const std::vector<std::int64_t> none{0, 0, 0, 0};
  q = tools::make_tensor(spec.dtype, q_shape);
  k = tools::make_tensor(spec.dtype, kv_shape);
  v = tools::make_tensor(spec.dtype, kv_shape);
  out = tools::make_tensor(spec.dtype, q_shape);
  lse = tools::make_tensor(DType::float32, {b, spec.heads_q, spec.seqlen_q});
  dout = tools::make_tensor(spec.dtype, with_gradients ? q_shape : none);
  dq = tools::make_tensor(spec.dtype, with_gradients ? q_shape : none);
  dk = tools::make_tensor(spec.dtype, with_gradients ? kv_shape : none);
  dv = tools::make_tensor(spec.dtype, with_gradients ? kv_shape : none);
  if (on_device_) cuda_set_device(spec.device.index);
  std::uint64_t input_seed = seed;
  for (tools::HostTensor* input : {&q, &k, &v, &dout}) {
    tools::fill_random_parallel(*input, input_seed++);
  }
  for (tools::HostTensor* output : outputs()) tools::poison(*output);

  std::vector<TensorView*> views{&views_.q,    &views_.k,  &views_.v,  &views_.out, &views_.lse,
                                 &views_.dout, &views_.dq, &views_.dk, &views_.dv};
  const auto tensors = all();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    *views[i] = tensors[i]->view;
    if (!on_device_) continue;
    device_.push_back(DeviceBuffer::allocate(tensors[i]->bytes()));
    device_.back().upload(tensors[i]->storage.data(), tensors[i]->bytes());
    views[i]->data = device_.back().data();
    views[i]->device = spec.device;
  }
}

std::vector<tools::HostTensor*> AttentionBuffers::all() {
  return {&q, &k, &v, &out, &lse, &dout, &dq, &dk, &dv};
}

std::vector<tools::HostTensor*> AttentionBuffers::outputs() { return {&out, &lse, &dq, &dk, &dv}; }

void AttentionBuffers::poison_outputs() {
  const auto tensors = all();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    tools::HostTensor* t = tensors[i];
    const bool is_output = t == &out || t == &lse || t == &dq || t == &dk || t == &dv;
    if (!is_output) continue;
    tools::poison(*t);
    if (on_device_) device_[i].upload(t->storage.data(), t->bytes());
  }
}

void AttentionBuffers::download_outputs() {
  if (!on_device_) return;
  const auto tensors = all();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    tools::HostTensor* t = tensors[i];
    const bool is_output = t == &out || t == &lse || t == &dq || t == &dk || t == &dv;
    if (is_output) device_[i].download(t->storage.data(), t->bytes());
  }
}

Status run_forward(const ProblemSpec& spec, Backend backend, const AttentionBuffers& buffers,
                   RunStats* stats) {
  const auto& t = buffers.views();
  return forward(t.q, t.k, t.v, t.out, t.lse, spec.options(backend), spec.context(stats));
}

Status run_backward(const ProblemSpec& spec, Backend backend, const AttentionBuffers& buffers,
                    RunStats* stats) {
  const auto& t = buffers.views();
  return backward(t.q, t.k, t.v, t.out, t.dout, t.lse, t.dq, t.dk, t.dv, spec.options(backend),
                  spec.context(stats));
}

ReferenceSlice choose_reference_slice(const ProblemSpec& spec, double flop_budget) {
  const std::int64_t group = spec.heads_kv > 0 ? spec.heads_q / spec.heads_kv : 1;
  auto cost = [&](std::int64_t batch, std::int64_t kv_heads, std::int64_t rows) {
    ProblemSpec sub = spec;
    sub.batch = batch, sub.heads_kv = kv_heads, sub.heads_q = kv_heads * group, sub.seqlen_q = rows;
    return attention_flops(
        sub, spec.workload == Workload::forward ? Workload::forward : Workload::forward_backward);
  };
  ReferenceSlice slice{spec.batch, spec.heads_kv, spec.seqlen_q, true, {}};
  if (cost(slice.batch, slice.kv_heads, slice.query_rows) <= flop_budget) return slice;
  slice.whole = false;
  slice.batch = std::min<std::int64_t>(spec.batch, 1);
  // Keep enough heads to give every thread of the reference one, then shed rows (forward only:
  // every query row contributes to dk and dv), then heads.
  const std::int64_t threads = spec.threads > 0 ? spec.threads : omp_get_max_threads();
  while (cost(slice.batch, slice.kv_heads, slice.query_rows) > flop_budget &&
         (slice.kv_heads - 1) * group >= threads) {
    slice.kv_heads = (slice.kv_heads + 1) / 2;
  }
  if (!has_backward(spec.workload)) {
    while (cost(slice.batch, slice.kv_heads, slice.query_rows) > flop_budget && slice.query_rows > 1) {
      slice.query_rows = (slice.query_rows + 1) / 2;
    }
  }
  while (cost(slice.batch, slice.kv_heads, slice.query_rows) > flop_budget && slice.kv_heads > 1) {
    slice.kv_heads = (slice.kv_heads + 1) / 2;
  }
  const std::int64_t heads_q = slice.kv_heads * group;
  slice.description =
      "batch row 0 of " + std::to_string(spec.batch) + ", query heads 0–" + std::to_string(heads_q - 1) +
      " of " + std::to_string(spec.heads_q) + ", " +
      (slice.query_rows == spec.seqlen_q ? std::string("all query rows")
                                         : "the last " + std::to_string(slice.query_rows) + " of " +
                                               std::to_string(spec.seqlen_q) + " query rows");
  return slice;
}

double ReferenceErrors::worst() const {
  double w = 0;
  if (has_forward) w = std::max({w, out, lse});
  if (has_backward) w = std::max({w, dq, dk, dv});
  return w;
}

Reference::Reference(const ProblemSpec& spec, const ReferenceSlice& slice, const AttentionBuffers& inputs)
    : spec_(spec), slice_(slice) {
  const std::int64_t group = spec.heads_kv > 0 ? spec.heads_q / spec.heads_kv : 1;
  const std::int64_t nb = slice.batch, hkv = slice.kv_heads, hq = hkv * group;
  const std::int64_t rows = slice.query_rows, row0 = spec.seqlen_q - rows, nk = spec.seqlen_k;
  const TensorView q = slice_bshd(inputs.q.view, 0, nb, row0, rows, 0, hq);
  const TensorView k = slice_bshd(inputs.k.view, 0, nb, 0, nk, 0, hkv);
  const TensorView v = slice_bshd(inputs.v.view, 0, nb, 0, nk, 0, hkv);

  ProblemSpec on_host = spec;
  on_host.device = Device::cpu();
  const Options options = on_host.options(Backend::cpu_reference);
  const ExecutionContext context = on_host.context(nullptr);
  out_ = tools::make_tensor(spec.dtype, {nb, rows, hq, spec.head_dim});
  lse_ = tools::make_tensor(DType::float32, {nb, hq, rows});
  status_ = forward(q, k, v, out_.view, lse_.view, options, context);
  if (!status_.ok() || !inputs.has_gradients() || !has_backward(spec.workload)) return;

  // Every query row feeds dk and dv, so a backward slice always spans all rows.
  const TensorView dout = slice_bshd(inputs.dout.view, 0, nb, 0, rows, 0, hq);
  dq_ = tools::make_tensor(spec.dtype, {nb, rows, hq, spec.head_dim});
  dk_ = tools::make_tensor(spec.dtype, {nb, nk, hkv, spec.head_dim});
  dv_ = tools::make_tensor(spec.dtype, {nb, nk, hkv, spec.head_dim});
  status_ = backward(q, k, v, out_.view, dout, lse_.view, dq_.view, dk_.view, dv_.view, options, context);
  has_backward_ = status_.ok();
}

ReferenceErrors Reference::errors_of(const AttentionBuffers& results) const {
  ReferenceErrors errors;
  if (!status_.ok()) return errors;
  const std::int64_t group = spec_.heads_kv > 0 ? spec_.heads_q / spec_.heads_kv : 1;
  const std::int64_t nb = slice_.batch, hkv = slice_.kv_heads, hq = hkv * group;
  const std::int64_t rows = slice_.query_rows, row0 = spec_.seqlen_q - rows, nk = spec_.seqlen_k;
  errors.has_forward = true;
  errors.out = tools::relative_error(slice_bshd(results.out.view, 0, nb, row0, rows, 0, hq), out_.view);
  errors.lse = tools::relative_error(slice_bhs(results.lse.view, 0, nb, 0, hq, row0, rows), lse_.view);
  if (!has_backward_ || !results.has_gradients()) return errors;
  errors.has_backward = true;
  errors.dq = tools::relative_error(slice_bshd(results.dq.view, 0, nb, 0, rows, 0, hq), dq_.view);
  errors.dk = tools::relative_error(slice_bshd(results.dk.view, 0, nb, 0, nk, 0, hkv), dk_.view);
  errors.dv = tools::relative_error(slice_bshd(results.dv.view, 0, nb, 0, nk, 0, hkv), dv_.view);
  return errors;
}

}  // namespace fattn::cli
