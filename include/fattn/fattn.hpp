// fattn: exact attention, computed the IO-aware way (FlashAttention).
//
//   O   = softmax(Q·Kᵀ·scale + mask) · V
//   LSE = log(sum_j exp(S_ij))           (natural log, per query row)
//
// Layout: q (B, Nq, Hq, D), k and v (B, Nk, Hkv, D), out like q, lse (B, Hq, Nq) float32.
// GQA/MQA: Hq must be a multiple of Hkv; query head h reads key/value head h / (Hq / Hkv).
//
// Masks follow flash_attn (>= 2.1). Query row i may attend to key column j iff
//   j <= i + (Nk - Nq) + window.right   (when window.right >= 0)
//   j >= i + (Nk - Nq) - window.left    (when window.left  >= 0)
// `causal` is window.right = 0, i.e. causal is aligned to the bottom-right corner of the
// score matrix when Nq != Nk. A row with no visible key (possible when Nq > Nk and causal,
// or with a narrow window) gives out = 0 and lse = -inf; its gradients are 0.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fattn/types.hpp"

namespace fattn {

// Every backend that fattn can compile. `automatic` lets the selector choose.
enum class Backend : std::uint8_t {
  automatic,
  cpu_reference,  // fp64 accumulation, materializes S and P: the oracle for every test
  cpu_standard,   // separate passes S=QKᵀ, P=softmax(S), O=PV over materialized N×N matrices
  cpu_flash,      // tiled online softmax, threaded and SIMD, O(N) extra memory
  cuda_standard,  // cuBLAS GEMMs + softmax kernel, S and P materialized in device memory
  cuda_simt,      // CUDA-core fp32 flash kernel (GPUs without tensor cores)
  cuda_sm80,      // FlashAttention-2-class tensor-core kernels (mma.sync, ldmatrix, cp.async)
  cuda_sm90,      // Hopper kernels (TMA, wgmma, warp specialization)
};

const char* to_string(Backend backend);
// Accepts the names printed by to_string ("cpu_flash", ...) and "auto".
std::optional<Backend> backend_from_string(std::string_view name);

inline constexpr std::int64_t kUnboundedWindow = -1;

struct Window {
  std::int64_t left = kUnboundedWindow;   // keys visible to the left of the diagonal
  std::int64_t right = kUnboundedWindow;  // keys visible to the right of the diagonal
};

struct Options {
  std::optional<float> softmax_scale;  // default 1/sqrt(head_dim)
  bool causal = false;                 // implies window.right = 0 (flash_attn semantics)
  Window window{};
  Backend backend = Backend::automatic;
  bool deterministic = false;  // backward: bitwise-identical results from run to run
};

// What a call actually did; filled in when ExecutionContext::stats is set.
struct RunStats {
  Backend backend = Backend::automatic;
  std::size_t workspace_bytes = 0;  // peak extra memory the call allocated beyond its outputs
  int kernel_launches = 0;          // GPU kernels (or CPU passes) launched
};

// Where and how to run. Both fields are optional.
struct ExecutionContext {
  void* cuda_stream = nullptr;  // a cudaStream_t; nullptr = the legacy default stream
  int num_threads = 0;          // CPU backends: 0 = all hardware threads
  RunStats* stats = nullptr;
};

enum class Direction : std::uint8_t { forward, backward };

// Everything the selector needs to know about a call, without the data.
struct Problem {
  std::int64_t batch = 0;
  std::int64_t seqlen_q = 0;
  std::int64_t seqlen_k = 0;
  std::int64_t heads_q = 0;
  std::int64_t heads_kv = 0;
  std::int64_t head_dim = 0;
  DType dtype = DType::float32;
  Device device{};
  Direction direction = Direction::forward;
  Options options{};
  // Smallest pointer alignment (bytes) over all tensors and the alignment of every row
  // stride in bytes; fast kernels need 16-byte vectors.
  std::size_t alignment_bytes = 16;
  // The same over the sequence and batch strides alone (the pointer and head stride left out),
  // where every tensor's heads lie side by side inside its sequence rows and each query head
  // starts at the same offset within a 16-byte word as its key head; 1 where not, 0 where not
  // described. cuda_sm90's forward reads a row's heads as the columns of one TMA row
  // (src/cuda/sm90/heads_as_columns.hpp), which needs only these 16-byte aligned: packed odd
  // head dims (D = 129 with 8 heads: rows 2,064 bytes apart, heads 258) and slices of a fused
  // qkv tensor.
  std::size_t row_alignment_bytes = 0;

  // Describe a call from its inputs (shapes are read from q and k).
  static Problem describe(const TensorView& q, const TensorView& k, const Options& options,
                          Direction direction);
};

// The answer to "what would run this problem?" — a backend, or a reason none can.
struct Selection {
  std::optional<Backend> backend;
  std::string reason;  // why no backend (or why the requested one) cannot run it
  bool ok() const { return backend.has_value(); }
};

// The single selector: forward() and backward() call the same function.
Selection supports(const Problem& problem);

// Which backends this build of the library contains (CUDA ones only when compiled in).
bool backend_compiled(Backend backend);

// Largest head dimension any backend accepts.
inline constexpr std::int64_t kMaxHeadDim = 256;

Status forward(const TensorView& q, const TensorView& k, const TensorView& v,
               const TensorView& out, const TensorView& lse, const Options& options = {},
               const ExecutionContext& context = {});

// Gradients of the forward pass. `out` and `lse` are what forward() returned.
// dq like q; dk, dv like k, v (summed over the query heads of each group under GQA).
Status backward(const TensorView& q, const TensorView& k, const TensorView& v,
                const TensorView& out, const TensorView& dout, const TensorView& lse,
                const TensorView& dq, const TensorView& dk, const TensorView& dv,
                const Options& options = {}, const ExecutionContext& context = {});

// The library's version string, e.g. "0.1.0".
const char* version();

}  // namespace fattn
