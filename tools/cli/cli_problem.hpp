// One attention problem as the tools see it: its sizes and options (read from the command line),
// its tensors on the host and, for a GPU, on the device, the calls that run it through a named
// backend, and the comparison of the results with the float64 reference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "cli_device.hpp"
#include "fattn/fattn.hpp"
#include "host_tensor.hpp"

namespace fattn::cli {

enum class Workload : std::uint8_t { forward, backward, forward_backward };
const char* to_string(Workload workload);
std::optional<Workload> workload_from_string(const std::string& name);
std::optional<DType> dtype_from_string(const std::string& name);
const char* short_name(DType dtype);  // "fp32", "fp16", "bf16"

struct ProblemSpec {
  std::int64_t batch = 1;
  std::int64_t heads_q = 16;
  std::int64_t heads_kv = 16;
  std::int64_t seqlen_q = 4096;
  std::int64_t seqlen_k = 4096;
  std::int64_t head_dim = 128;
  DType dtype = DType::float32;
  Device device = Device::cpu();
  bool causal = false;
  Window window{};
  Workload workload = Workload::forward;
  int threads = 0;  // CPU backends; 0 = every hardware thread

  Options options(Backend backend) const;
  // What the selector is asked about (for supports()).
  Problem problem(Backend backend, Direction direction) const;
  ExecutionContext context(RunStats* stats) const;
  std::string mask_text() const;  // "none", "causal", "window (128, 0)"
  // "B=1 H=16 N=4096 D=128 fp32, no mask, fwd on cpu (2 threads)"; without the head dim for a
  // sweep over it.
  std::string summary(bool with_head_dim = true) const;
};

// The backend that "flash" means for this problem: cpu_flash on the CPU; on a GPU the selector's
// pick for this very problem (sm90, sm80 or simt: it changes with D, dtype and alignment, so a
// sweep asks again at every point). Backend::automatic when the selector picks none (running
// `auto` then prints its reason), and also when the workload has a backward the forward's pick
// lacks (sm90 on Hopper): `auto` then gives each direction the selector's own choice.
Backend flash_backend_for(const ProblemSpec& spec);

// The problem options shared by bench, check, trace and roofline.
void add_problem_options(ArgParser& parser);
// Reads them over `defaults`; --seqlen sets both lengths, --heads-kv defaults to --heads.
ProblemSpec read_problem_options(const ArgParser& parser, ProblemSpec defaults);

// The device to run on when the user did not say: the GPU when the build has CUDA and a device
// is present, else the CPU.
Device default_device();
// Parses "cpu", "cuda", "cuda:1".
std::optional<Device> device_from_string(const std::string& name);

// (query, key) pairs per (batch, head) that take part. FlashAttention's convention counts causal
// as exactly half of the full Nq·Nk; windows are counted exactly.
double attended_pairs(const ProblemSpec& spec);
// FLOPs: forward 4·B·Hq·pairs·D; backward 2.5× that; forward+backward 3.5×.
double attention_flops(const ProblemSpec& spec, Workload workload);

// The tensors of one problem. Host copies hold the random inputs and, after
// download_outputs(), the results; on a CUDA device the library runs on device copies.
class AttentionBuffers {
 public:
  AttentionBuffers(const ProblemSpec& spec, bool with_gradients, std::uint64_t seed);

  struct Views {
    TensorView q, k, v, out, lse, dout, dq, dk, dv;
  };
  // The views handed to the library (on the problem's device).
  const Views& views() const { return views_; }
  void poison_outputs();    // NaN into every output, so an unwritten element cannot pass
  void download_outputs();  // device results into the host copies (no-op on the CPU)
  bool has_gradients() const { return with_gradients_; }

  tools::HostTensor q, k, v, out, lse, dout, dq, dk, dv;

 private:
  std::vector<tools::HostTensor*> outputs();
  std::vector<tools::HostTensor*> all();
  bool with_gradients_;
  bool on_device_;
  std::vector<DeviceBuffer> device_;  // parallel to all(), on a CUDA device only
  Views views_;
};

Status run_forward(const ProblemSpec& spec, Backend backend, const AttentionBuffers& buffers,
                   RunStats* stats = nullptr);
Status run_backward(const ProblemSpec& spec, Backend backend, const AttentionBuffers& buffers,
                    RunStats* stats = nullptr);

// Which part of a problem the float64 reference is computed on. The reference materializes S
// and P one head at a time in double precision, so on a large problem it runs on a slice that
// keeps the comparison fast: one batch row, the first groups of heads, and (forward only) the
// last query rows — bottom-right mask alignment makes a suffix of rows a problem of its own
// with the same mask.
struct ReferenceSlice {
  std::int64_t batch = 0, kv_heads = 0, query_rows = 0;
  bool whole = true;
  std::string description;  // empty when whole
};
ReferenceSlice choose_reference_slice(const ProblemSpec& spec, double flop_budget);

// Relative errors (‖x − ref‖ / ‖ref‖) of a backend's results against the reference.
struct ReferenceErrors {
  double out = 0, lse = 0, dq = 0, dk = 0, dv = 0;
  bool has_forward = false, has_backward = false;
  double worst() const;
};

// The float64 reference on a slice of a problem, computed once from the buffers' inputs and
// compared with any number of backends' results.
class Reference {
 public:
  Reference(const ProblemSpec& spec, const ReferenceSlice& slice, const AttentionBuffers& inputs);
  const Status& status() const { return status_; }  // not ok when the reference could not run
  const ReferenceSlice& slice() const { return slice_; }
  // `results` must hold a backend's outputs in its host copies (download_outputs()).
  ReferenceErrors errors_of(const AttentionBuffers& results) const;

 private:
  ProblemSpec spec_;
  ReferenceSlice slice_;
  Status status_;
  bool has_backward_ = false;
  tools::HostTensor out_, lse_, dq_, dk_, dv_;
};

// The default flop budget of the reference comparison: a few seconds of the fp64 oracle.
inline constexpr double kReferenceFlopBudget = 2e9;

}  // namespace fattn::cli
