// cuda_sm90's forward on tensors whose rows are only 2-byte aligned, read heads as columns
// (src/cuda/sm90/heads_as_columns.hpp): packed odd head dims (D = 129 with 8 heads: heads 258
// bytes apart, sequence rows 2,064), q/k/v slices of a fused qkv tensor, and [..., 1:] views
// of tensors one element wider (every head 2 bytes into a 16-byte word, the output too; with
// GQA where every head sits at the same phase). Against the fp64 reference, outputs poisoned;
// the selector must pick cuda_sm90 for each.
// The neighbour tests check that the neighbouring heads' columns, which TMA loads into a tile's
// padding, never reach a result: large values in the next head, NaN in its Q and Inf in its V,
// and NaN in its K between the columns other heads' boxes load (the documented limit: inside
// them a non-finite K gives NaN scores), at work widths whose last box is a tail box (16, 32 or
// 48 columns: forward_kernel.cuh, TailBoxMaps) and at others. The stale-shared-memory test runs
// the tail-box kernels on a shared memory filled with NaN: the columns from the work width to
// the end of the last 64-column block are never loaded and must never be read. Output bytes
// outside the view (the sliced column, the other tensors' rows) must stay untouched.
// The staged-output cases (StagedOutput/...) write O into outputs whose heads have poisoned
// columns right beside them: gaps of more than a 16-byte word on both sides of every head, or
// the heads of a packed tensor with one more head on either side. O leaves the 192 and 256
// buckets' kernels (work widths 144..256) as whole 16-byte words through shared memory
// (src/cuda/sm90/output_staging.cuh), with narrower pieces for each row's ragged first and last
// word, the 128 bucket's as 4-byte pairs from registers: any byte written outside [0, D) of a
// head shows.
// Selector rules (no GPU): which layouts row_alignment_bytes admits, and that the backward, the
// 64 bucket and D = 242..256 keep the 16-byte rule.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "api/device_query.hpp"
#include "api/selector.hpp"
#include "cuda/common/instances.hpp"
#include "cuda/sm90/heads_as_columns.hpp"
#include "device_buffer.hpp"
#include "shared_memory_poison.hpp"
#include "support/pruning.hpp"
#include "support/simulated_device.hpp"
#include "support/test_tensors.hpp"

namespace fattn::testing {
namespace {

constexpr double kLseTolerance = 1e-5;  // as in test_sm90_forward.cpp
constexpr std::size_t kTmaAlignment = 16;

// How a case lays out q, k, v (and the output, for `sliced`).
enum class Layout {
  packed,       // (B, S, H, D) dense
  rows_padded,  // heads packed, each sequence row padded to a 16-byte multiple (GQA, few heads)
  sliced,       // [..., 1:] of a (B, S, H, D + 1) tensor, out too
  fused_qkv,    // q, k, v = [:, :, i] of one (B, S, 3, H, D) tensor
  // Every head at the same phase, that of packed rows' alignment (D = 74: 2 columns into its
  // word, heads 80 apart): query and key heads agree under GQA at the packed rows' alignment.
  word_heads,
  // Outputs only (UnalignedCase::out_layout):
  gapped,       // each head between poisoned gaps wider than a word, packed rows' alignment kept
  inner_heads,  // heads 1..H of a packed (B, S, H + 2, D) tensor: heads 0 and H + 1 poisoned
};

// A strided view over its own host storage; `bytes`: the storage's bytes from its start to one
// past the view's last element, which is all a device copy gets (no slack to hide a read past
// the end under memcheck).
struct StridedTensor {
  HostTensor tensor;
  std::size_t bytes = 0;
};

std::int64_t round_up(std::int64_t value, std::int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// A (batch, seqlen, heads, head_dim) view with the given strides, starting `lead` elements into
// random storage (the gaps between heads and rows are random too).
StridedTensor strided_tensor(DType dtype, std::int64_t batch, std::int64_t seqlen,
                             std::int64_t heads, std::int64_t head_dim, std::int64_t head_stride,
                             std::int64_t seq_stride, std::int64_t lead, std::mt19937_64& rng) {
  const std::int64_t elements = lead + (batch * seqlen - 1) * seq_stride +
                                (heads - 1) * head_stride + head_dim;
  StridedTensor t;
  t.tensor = make_tensor(dtype, {elements});
  fill_random(t.tensor, rng);
  t.bytes = static_cast<std::size_t>(elements) * size_of(dtype);
  t.tensor.view = TensorView::strided(t.tensor.storage.data() + lead * size_of(dtype), dtype,
                                      Device::cpu(), {batch, seqlen, heads, head_dim},
                                      {seqlen * seq_stride, seq_stride, head_stride, 1});
  return t;
}

// The alignment of packed rows of `head_dim` columns: the widest power of two (up to 16 bytes)
// dividing a head's bytes.
std::int64_t packed_alignment(DType dtype, std::int64_t head_dim) {
  auto alignment = static_cast<std::int64_t>(kTmaAlignment);
  while ((head_dim * static_cast<std::int64_t>(size_of(dtype))) % alignment != 0) alignment /= 2;
  return alignment;
}

// Tensor `slot` (0 = q, 1 = k, 2 = v) of a case's layout; `out` for the output (packed unless
// the case is sliced or names its own out_layout).
StridedTensor layout_tensor(Layout layout, int slot, DType dtype, std::int64_t batch,
                            std::int64_t seqlen, std::int64_t heads, std::int64_t head_dim,
                            std::mt19937_64& rng) {
  constexpr std::int64_t kFusedSlots = 3;
  const std::int64_t row_unit = static_cast<std::int64_t>(kTmaAlignment / size_of(dtype));
  switch (layout) {
    case Layout::rows_padded:
      return strided_tensor(dtype, batch, seqlen, heads, head_dim, head_dim,
                            round_up(heads * head_dim, row_unit), 0, rng);
    case Layout::sliced:
      return strided_tensor(dtype, batch, seqlen, heads, head_dim, head_dim + 1,
                            heads * (head_dim + 1), 1, rng);
    case Layout::fused_qkv:
      // Each of q, k, v gets a whole fused tensor of its own, its view at its slot: the columns
      // past q's last head are k's first head, as in the real thing.
      return strided_tensor(dtype, batch, seqlen, heads, head_dim, head_dim,
                            kFusedSlots * heads * head_dim, slot * heads * head_dim, rng);
    case Layout::word_heads: {
      const std::int64_t lead = packed_alignment(dtype, head_dim) / size_of(dtype);
      const std::int64_t head_stride = round_up(head_dim + lead, row_unit);
      return strided_tensor(dtype, batch, seqlen, heads, head_dim, head_stride,
                            heads * head_stride, lead, rng);
    }
    case Layout::gapped: {
      // A word plus the packed rows' alignment: the gap's bytes (16 + alignment) and the head
      // stride keep that alignment, so the work width is the packed tensors' own.
      const std::int64_t gap = row_unit + packed_alignment(dtype, head_dim) / size_of(dtype);
      const std::int64_t head_stride = head_dim + 2 * gap;
      return strided_tensor(dtype, batch, seqlen, heads, head_dim, head_stride,
                            round_up(heads * head_stride, row_unit), gap, rng);
    }
    case Layout::inner_heads:
      // Rows of H + 2 packed heads (a 16-byte multiple where (H + 2) * D * 2 is: the cases pick
      // H so), the view from the second head's first column.
      return strided_tensor(dtype, batch, seqlen, heads, head_dim, head_dim,
                            (heads + 2) * head_dim, head_dim, rng);
    case Layout::packed:
    default:
      return strided_tensor(dtype, batch, seqlen, heads, head_dim, head_dim, heads * head_dim, 0,
                            rng);
  }
}

// A device copy of a strided tensor's exact bytes, with the same view.
struct ExactDeviceCopy {
  void* data = nullptr;
  std::size_t bytes = 0;
  TensorView view;

  explicit ExactDeviceCopy(const StridedTensor& host) : bytes(host.bytes) {
    EXPECT_EQ(cudaMalloc(&data, bytes), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data, host.tensor.storage.data(), bytes, cudaMemcpyHostToDevice),
              cudaSuccess);
    view = host.tensor.view;
    view.data = static_cast<char*>(data) + view_offset(host);
    view.device = Device::cuda(0);
  }
  ~ExactDeviceCopy() { cudaFree(data); }
  ExactDeviceCopy(const ExactDeviceCopy&) = delete;
  ExactDeviceCopy& operator=(const ExactDeviceCopy&) = delete;

  static std::ptrdiff_t view_offset(const StridedTensor& t) {
    return static_cast<const std::uint8_t*>(t.tensor.view.data) - t.tensor.storage.data();
  }
  // The device bytes in a host copy of `like` (same layout).
  StridedTensor to_host(const StridedTensor& like) const {
    StridedTensor h = like;
    EXPECT_EQ(cudaMemcpy(h.tensor.storage.data(), data, bytes, cudaMemcpyDeviceToHost),
              cudaSuccess);
    h.tensor.view.data = h.tensor.storage.data() + view_offset(like);
    return h;
  }
};

// The view of heads [first, first + count) along dimension `head_index` (2 for a (B, S, H, D)
// tensor, 1 for a (B, H, S) LSE).
TensorView heads_of(TensorView view, int head_index, std::int64_t first, std::int64_t count) {
  view.data = static_cast<char*>(view.data) +
              first * view.stride[head_index] * static_cast<std::int64_t>(size_of(view.dtype));
  view.shape[head_index] = count;
  return view;
}
constexpr int kOutHeadIndex = 2;
constexpr int kLseHeadIndex = 1;

// Whether each byte of the storage lies under an element of the view.
std::vector<bool> covered_bytes(const StridedTensor& t) {
  const TensorView& v = t.tensor.view;
  std::vector<bool> covered(t.bytes, false);
  const std::int64_t first = ExactDeviceCopy::view_offset(t);
  const auto element = static_cast<std::int64_t>(size_of(v.dtype));
  for (std::int64_t b = 0; b < v.shape[0]; ++b)
    for (std::int64_t s = 0; s < v.shape[1]; ++s)
      for (std::int64_t h = 0; h < v.shape[2]; ++h)
        for (std::int64_t d = 0; d < v.shape[3]; ++d) {
          const std::int64_t offset =
              first + (b * v.stride[0] + s * v.stride[1] + h * v.stride[2] + d) * element;
          for (std::int64_t i = 0; i < element; ++i) covered[offset + i] = true;
        }
  return covered;
}

struct UnalignedCase {
  const char* name;
  DType dtype;
  std::int64_t batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim;
  Layout layout;
  bool causal = false;
  Window window{};
  // The output's layout where not the inputs' rule (packed, or sliced for sliced inputs).
  std::optional<Layout> out_layout{};
};

// What a test does to the next head (head 1) of the inputs before running.
struct Neighbour {
  // Head 1 of q, k and v scaled by this (1: untouched).
  float loud_scale = 1.0f;
  // Head 1 of q NaN, of v +Inf, of k NaN in columns [first_nonfinite_k_column,
  // end_nonfinite_k_column); head 1's own results are then not compared.
  bool nonfinite = false;
  std::int64_t first_nonfinite_k_column = 0;
  std::int64_t end_nonfinite_k_column = 0;
};
constexpr std::int64_t kNeighbourHead = 1;

// Applies `value(old)` to columns [first_column, end_column) of head `head` of a (B, S, H, D)
// view (end_column < 0: to the end).
template <class Value>
void rewrite_head(HostTensor& t, std::int64_t head, std::int64_t first_column, Value value,
                  std::int64_t end_column = -1) {
  const TensorView& v = t.view;
  const std::int64_t end = end_column < 0 ? v.shape[3] : end_column;
  for (std::int64_t b = 0; b < v.shape[0]; ++b)
    for (std::int64_t s = 0; s < v.shape[1]; ++s)
      for (std::int64_t d = first_column; d < end; ++d) {
        const std::int64_t flat = ((b * v.shape[1] + s) * v.shape[2] + head) * v.shape[3] + d;
        t.set(flat, value(t.at(flat)));
      }
}

// Runs the case on Backend::automatic (which must pick cuda_sm90) into poisoned outputs and
// compares with the fp64 reference: every head, or all but head 1 where it holds non-finite
// inputs. Output bytes outside the view must keep their poison. `before_launch`, if given, runs
// just before the forward; where it returns false the case is skipped.
void expect_sm90_matches_reference(const UnalignedCase& c, const Neighbour& neighbour,
                                   bool (*before_launch)() = nullptr) {
  std::mt19937_64 rng(std::hash<std::string>{}(c.name));
  StridedTensor q = layout_tensor(c.layout, 0, c.dtype, c.batch, c.seqlen_q, c.heads_q, c.head_dim, rng);
  StridedTensor k = layout_tensor(c.layout, 1, c.dtype, c.batch, c.seqlen_k, c.heads_kv, c.head_dim, rng);
  StridedTensor v = layout_tensor(c.layout, 2, c.dtype, c.batch, c.seqlen_k, c.heads_kv, c.head_dim, rng);
  const Layout out_layout =
      c.out_layout.value_or(c.layout == Layout::sliced ? Layout::sliced : Layout::packed);
  StridedTensor out = layout_tensor(out_layout, 0, c.dtype, c.batch, c.seqlen_q, c.heads_q, c.head_dim, rng);
  HostTensor lse = make_tensor(DType::float32, {c.batch, c.heads_q, c.seqlen_q});
  if (neighbour.loud_scale != 1.0f) {
    for (StridedTensor* t : {&q, &k, &v}) {
      rewrite_head(t->tensor, kNeighbourHead, 0, [&](float x) { return x * neighbour.loud_scale; });
    }
  }
  if (neighbour.nonfinite) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    rewrite_head(q.tensor, kNeighbourHead, 0, [&](float) { return nan; });
    rewrite_head(v.tensor, kNeighbourHead, 0, [&](float) { return inf; });
    rewrite_head(k.tensor, kNeighbourHead, neighbour.first_nonfinite_k_column,
                 [&](float) { return nan; }, neighbour.end_nonfinite_k_column);
  }
  poison(out.tensor);
  poison(lse);

  Options options;
  options.causal = c.causal;
  options.window = c.window;
  options.backend = Backend::cpu_reference;
  StridedTensor ref_out = out;
  ref_out.tensor.view.data =
      ref_out.tensor.storage.data() + ExactDeviceCopy::view_offset(out);
  HostTensor ref_lse = clone(lse);
  ASSERT_TRUE(forward(q.tensor.view, k.tensor.view, v.tensor.view, ref_out.tensor.view,
                      ref_lse.view, options)
                  .ok());

  ExactDeviceCopy d_q(q), d_k(k), d_v(v), d_out(out);
  DeviceBuffer d_lse(lse);
  options.backend = Backend::automatic;
  Problem problem = Problem::describe(d_q.view, d_k.view, options, Direction::forward);
  ASSERT_LT(problem.alignment_bytes, kTmaAlignment) << "the case must not be 16-byte aligned";
  if (auto pruned = pruned_from_build(Backend::cuda_sm90, problem)) GTEST_SKIP() << *pruned;
  RunStats stats;
  ExecutionContext context;
  context.stats = &stats;
  if (before_launch != nullptr && !before_launch()) {
    GTEST_SKIP() << "the launch's preparation had nothing to offer on this device";
  }
  const Status s = forward(d_q.view, d_k.view, d_v.view, d_out.view, d_lse.view, options, context);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(stats.backend, Backend::cuda_sm90) << "ran " << to_string(stats.backend);

  const StridedTensor got_out = d_out.to_host(out);
  const HostTensor got_lse = d_lse.to_host(lse);
  auto compare_heads = [&](std::int64_t first, std::int64_t count) {
    if (count <= 0) return;
    EXPECT_LE(relative_error(heads_of(got_out.tensor.view, kOutHeadIndex, first, count),
                             heads_of(ref_out.tensor.view, kOutHeadIndex, first, count)),
              tolerance_for(c.dtype))
        << "out, heads " << first << ".." << first + count - 1;
    EXPECT_LE(relative_error(heads_of(got_lse.view, kLseHeadIndex, first, count),
                             heads_of(ref_lse.view, kLseHeadIndex, first, count)),
              kLseTolerance)
        << "lse, heads " << first << ".." << first + count - 1;
  };
  if (neighbour.nonfinite) {
    compare_heads(0, kNeighbourHead);
    compare_heads(kNeighbourHead + 1, c.heads_q - kNeighbourHead - 1);
  } else {
    compare_heads(0, c.heads_q);
  }
  const std::vector<bool> covered = covered_bytes(out);
  std::size_t clobbered = 0;
  for (std::size_t i = 0; i < out.bytes; ++i) {
    if (!covered[i] && got_out.tensor.storage[i] != out.tensor.storage[i]) ++clobbered;
  }
  EXPECT_EQ(clobbered, 0u) << "bytes outside the output view were written";
}

class Sm90Unaligned : public ::testing::TestWithParam<UnalignedCase> {
 protected:
  void SetUp() override {
    if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
    if (!backend_compiled(Backend::cuda_sm90)) GTEST_SKIP() << "cuda_sm90 is not compiled";
    if (detail::query_cuda_device(0).compute_capability != 90) GTEST_SKIP() << "not a Hopper GPU";
  }
};

TEST_P(Sm90Unaligned, ForwardMatchesReference) { expect_sm90_matches_reference(GetParam(), {}); }

constexpr DType kF16 = DType::float16;
constexpr DType kBf16 = DType::bfloat16;

INSTANTIATE_TEST_SUITE_P(
    HeadsAsColumns, Sm90Unaligned,
    ::testing::Values(
        // D = 129 packed, 8 heads: the alignment trap (work width 144 of the 192 bucket).
        UnalignedCase{"d129_fp16_n1013", kF16, 1, 1013, 1013, 8, 8, 129, Layout::packed},
        UnalignedCase{"d129_bf16_b2_h16", kBf16, 2, 257, 257, 16, 16, 129, Layout::packed},
        UnalignedCase{"d129_bf16_causal", kBf16, 2, 300, 300, 8, 8, 129, Layout::packed, true},
        UnalignedCase{"d129_fp16_causal_nq_lt_nk", kF16, 1, 17, 1013, 8, 8, 129, Layout::packed,
                      true},
        // Rows 0..282 see no key (bottom-right causal): out 0, LSE -inf.
        UnalignedCase{"d129_bf16_causal_nq_gt_nk", kBf16, 1, 300, 17, 8, 8, 129, Layout::packed,
                      true},
        UnalignedCase{"d129_fp16_window", kF16, 1, 400, 400, 8, 8, 129, Layout::packed, false,
                      Window{50, 10}},
        UnalignedCase{"d129_fp16_n1", kF16, 1, 1, 1, 8, 8, 129, Layout::packed},
        UnalignedCase{"d129_bf16_n1_keys1013", kBf16, 1, 1, 1013, 8, 8, 129, Layout::packed},
        UnalignedCase{"d129_fp16_n17", kF16, 3, 17, 17, 8, 8, 129, Layout::packed, true},
        // GQA, 2 KV heads: [..., 1:] views of D = 136 rows, every head at phase 1 (packed
        // D = 129 with GQA puts query and key heads at different phases: cuda_sm80 runs it).
        UnalignedCase{"d135_fp16_gqa_8_2_sliced", kF16, 2, 200, 333, 8, 2, 135, Layout::sliced},
        UnalignedCase{"d135_bf16_gqa_8_2_sliced_causal", kBf16, 1, 333, 200, 8, 2, 135,
                      Layout::sliced, true},
        // q, k, v slices of one (B, S, 3, H, D) tensor: q's last head is followed by k's first.
        UnalignedCase{"d129_bf16_fused_qkv", kBf16, 2, 200, 200, 8, 8, 129, Layout::fused_qkv},
        UnalignedCase{"d129_fp16_fused_qkv_causal", kF16, 1, 190, 190, 8, 8, 129,
                      Layout::fused_qkv, true},
        // [..., 1:] views: every head 2 bytes into a 16-byte word; out too (2-byte stores,
        // even for even D), its sliced column must stay untouched.
        UnalignedCase{"d65_fp16_sliced", kF16, 2, 130, 130, 8, 8, 65, Layout::sliced},
        UnalignedCase{"d233_bf16_sliced_causal", kBf16, 1, 100, 160, 8, 8, 233, Layout::sliced,
                      true},
        UnalignedCase{"d200_fp16_sliced", kF16, 1, 150, 150, 8, 8, 200, Layout::sliced},
        // Other buckets' work widths (D + 7 rounded up to 16): 97 -> 112 (128 bucket), 211 -> 224
        // and 233 (above) -> 240 (256 bucket).
        UnalignedCase{"d97_bf16_packed", kBf16, 1, 160, 160, 8, 8, 97, Layout::packed},
        UnalignedCase{"d211_fp16_packed_causal", kF16, 1, 160, 160, 8, 8, 211, Layout::packed,
                      true},
        // Rows 4- or 8-byte aligned: phases up to 6 or 4 columns, not 7 (largest_word_offset). Packed
        // D = 74 (4-byte: phases 0, 2, 4, 6) and 76 (8-byte: 0, 4) fit width 80 instead of 96,
        // D = 90 (4-byte) width 96 instead of 112, and D = 236 (8-byte) width 240, which at
        // D + 7 = 243 left it to cuda_sm80.
        UnalignedCase{"d74_fp16_packed_rows4", kF16, 2, 257, 257, 8, 8, 74, Layout::packed},
        UnalignedCase{"d76_bf16_packed_rows8_causal", kBf16, 1, 300, 300, 8, 8, 76,
                      Layout::packed, true},
        UnalignedCase{"d90_fp16_packed_rows4_window", kF16, 1, 400, 400, 8, 8, 90, Layout::packed,
                      false, Window{50, 10}},
        UnalignedCase{"d236_bf16_packed_rows8", kBf16, 1, 160, 160, 8, 8, 236, Layout::packed},
        // Tail boxes (forward_kernel.cuh, TailBoxMaps) at the widths the cases above leave out:
        // 160 (tail 32: D = 150, 4-byte rows), 176 (tail 48), 208 packed (tail 16), and width 80
        // windowed.
        UnalignedCase{"d150_fp16_packed_rows4", kF16, 1, 200, 200, 8, 8, 150, Layout::packed},
        UnalignedCase{"d165_bf16_packed_causal", kBf16, 2, 150, 150, 8, 8, 165, Layout::packed,
                      true},
        UnalignedCase{"d201_fp16_packed", kF16, 1, 150, 150, 8, 8, 201, Layout::packed},
        UnalignedCase{"d74_bf16_packed_rows4_window", kBf16, 1, 300, 300, 8, 8, 74,
                      Layout::packed, false, Window{40, 7}}),
    [](const ::testing::TestParamInfo<UnalignedCase>& info) { return std::string(info.param.name); });

// The O stores (staged at widths 144..256: src/cuda/sm90/output_staging.cuh) into outputs whose
// heads have poisoned neighbours: `gapped` (a gap wider than a 16-byte word on either side of every
// head, at the packed rows' alignment) and `inner_heads` (a packed tensor's heads 1..H, heads 0 and
// H + 1 beside them; inputs rows_padded, as six packed heads of D = 74 make rows off the 16-byte
// grid). Every byte outside the heads' D columns must keep its poison. Rows 2-, 4- and 8-byte
// aligned (D = 129 / 201, 74 / 90 / 234, 76), register pairs (128 bucket) and the V ring
// (192, 256 at widths 208 and 240), causal and not, partial query tiles (N = 17, 1013), fully masked tiles
// (bottom-right causal, more queries than keys: their zeros bypass the V ring), a window, and GQA
// (word_heads: query and key heads at one phase).
INSTANTIATE_TEST_SUITE_P(
    StagedOutput, Sm90Unaligned,
    ::testing::Values(
        UnalignedCase{"d74_fp16_rows4_gapped", kF16, 1, 1013, 1013, 8, 8, 74, Layout::packed,
                      false, Window{}, Layout::gapped},
        UnalignedCase{"d74_bf16_rows4_inner_causal_n17", kBf16, 3, 17, 17, 6, 6, 74,
                      Layout::rows_padded, true, Window{}, Layout::inner_heads},
        UnalignedCase{"d76_fp16_rows8_gapped_causal", kF16, 1, 1013, 1013, 8, 8, 76,
                      Layout::packed, true, Window{}, Layout::gapped},
        UnalignedCase{"d76_bf16_rows8_inner", kBf16, 2, 17, 300, 6, 6, 76, Layout::rows_padded,
                      false, Window{}, Layout::inner_heads},
        UnalignedCase{"d90_fp16_rows4_gapped_window", kF16, 1, 300, 300, 8, 8, 90,
                      Layout::packed, false, Window{40, 7}, Layout::gapped},
        UnalignedCase{"d129_bf16_rows2_gapped_causal", kBf16, 1, 1013, 1013, 8, 8, 129,
                      Layout::packed, true, Window{}, Layout::gapped},
        UnalignedCase{"d129_fp16_rows2_inner_n17", kF16, 2, 17, 17, 6, 6, 129,
                      Layout::rows_padded, false, Window{}, Layout::inner_heads},
        UnalignedCase{"d129_fp16_rows2_gapped_causal_nq_gt_nk", kF16, 1, 300, 17, 8, 8, 129,
                      Layout::packed, true, Window{}, Layout::gapped},
        UnalignedCase{"d74_fp16_rows4_gapped_causal_nq_gt_nk", kF16, 1, 300, 17, 8, 8, 74,
                      Layout::packed, true, Window{}, Layout::gapped},
        UnalignedCase{"d201_fp16_rows2_gapped", kF16, 1, 1013, 1013, 8, 8, 201, Layout::packed,
                      false, Window{}, Layout::gapped},
        UnalignedCase{"d201_bf16_rows2_inner_causal_n17", kBf16, 2, 17, 17, 6, 6, 201,
                      Layout::rows_padded, true, Window{}, Layout::inner_heads},
        UnalignedCase{"d234_fp16_rows4_gapped_causal", kF16, 1, 300, 300, 8, 8, 234,
                      Layout::packed, true, Window{}, Layout::gapped},
        UnalignedCase{"d234_bf16_rows4_inner_n17", kBf16, 2, 17, 160, 6, 6, 234,
                      Layout::rows_padded, false, Window{}, Layout::inner_heads},
        UnalignedCase{"d74_fp16_rows4_gqa_8_2_gapped_causal", kF16, 1, 1013, 1013, 8, 2, 74,
                      Layout::word_heads, true, Window{}, Layout::gapped},
        UnalignedCase{"d201_bf16_rows2_gqa_8_2_gapped", kBf16, 1, 17, 333, 8, 2, 201,
                      Layout::word_heads, false, Window{}, Layout::gapped},
        UnalignedCase{"d129_fp16_rows2_gqa_6_3_inner_causal", kF16, 1, 300, 300, 6, 3, 129,
                      Layout::word_heads, true, Window{}, Layout::inner_heads}),
    [](const ::testing::TestParamInfo<UnalignedCase>& info) { return std::string(info.param.name); });

// The next head's columns reach head h's tiles (Q's and K's columns D..W-1, V's too); large
// values there must not show in head h's results, nor in the last head's (TMA's zero fill past
// the row's end).
TEST_F(Sm90Unaligned, LoudNeighbourHeadDoesNotLeak) {
  Neighbour loud;
  loud.loud_scale = 1000.0f;
  expect_sm90_matches_reference({"d129_fp16_loud", kF16, 1, 130, 130, 8, 8, 129, Layout::packed},
                                loud);
  expect_sm90_matches_reference(
      {"d129_bf16_loud_causal", kBf16, 1, 130, 130, 8, 8, 129, Layout::packed, true}, loud);
}

// Non-finite inputs in a neighbouring head: its Q columns are zeroed in shared memory and its V
// columns reach only O's padding, so NaN / Inf there cannot leak. K's columns meet Q's zeros: a
// NaN in the columns a neighbour's boxes load (head 0 loads head 1's first W - D: 15 at the 192
// bucket's width 144, 79 at the 256 bucket's 208 where a pruned build has no 192; head 2 at
// phase 2 its last 2; up to 7 for other phases) would (heads_as_columns.hpp, "Limit"); between
// them it is never read. `alignment_bytes`: the packed rows' alignment (2 for odd D, 4 for
// D = 2 mod 4 with 8 heads), which sets the work width.
void expect_nonfinite_neighbour_does_not_leak(const char* name, DType dtype, std::int64_t head_dim,
                                              std::size_t alignment_bytes) {
  const detail::KernelInstance* instance =
      detail::find_instance(detail::KernelFamily::sm90, Direction::forward, head_dim, dtype);
  if (instance == nullptr) {
    GTEST_SKIP() << "no cuda_sm90 " << to_string(dtype) << " forward for head_dim " << head_dim;
  }
  const std::int64_t work_width = detail::sm90::listed_work_width(
      instance->head_dim_bucket, detail::sm90::heads_as_columns_width(head_dim, alignment_bytes));
  Neighbour nonfinite;
  nonfinite.nonfinite = true;
  nonfinite.first_nonfinite_k_column = work_width - head_dim;
  nonfinite.end_nonfinite_k_column = head_dim - detail::sm90::kMaxHeadPhase;
  if (nonfinite.first_nonfinite_k_column >= nonfinite.end_nonfinite_k_column) {
    // A build without the head dim's own bucket (e.g. --head-dims "192;256" sends D = 74 to
    // width 144) reads every column of head 1 that a NaN could sit in without leaking: the
    // documented limit (heads_as_columns.hpp, "Limit"), not something this case can test.
    GTEST_SKIP() << name << ": width " << work_width << " of the " << instance->head_dim_bucket
                 << " bucket leaves no column of head 1 unread (this build has no smaller bucket)";
  }
  expect_sm90_matches_reference({name, dtype, 1, 130, 130, 8, 8, head_dim, Layout::packed},
                                nonfinite);
}

TEST_F(Sm90Unaligned, NonFiniteNeighbourQAndVDoNotLeak) {
  constexpr std::size_t kOddDAlignmentBytes = 2;  // D = 129: rows 258 bytes apart
  expect_nonfinite_neighbour_does_not_leak("d129_fp16_nan", kF16, 129, kOddDAlignmentBytes);
}

// The same at tail-box widths: 80 (D = 74, tail 16), 96 (D = 90, tail 32), 176 (D = 165,
// tail 48). Before tail boxes head 0's last box also loaded head 1's columns from W to the
// block's end (48, 32 and 16 of them); now nothing past W is loaded at all.
TEST_F(Sm90Unaligned, NonFiniteNeighbourPastTailBoxesDoesNotLeak) {
  constexpr std::size_t kHalfOddDAlignmentBytes = 4;  // D = 74, 90: heads 148, 180 bytes apart
  constexpr std::size_t kOddDAlignmentBytes = 2;
  expect_nonfinite_neighbour_does_not_leak("d74_fp16_nan", kF16, 74, kHalfOddDAlignmentBytes);
  expect_nonfinite_neighbour_does_not_leak("d90_bf16_nan", kBf16, 90, kHalfOddDAlignmentBytes);
  expect_nonfinite_neighbour_does_not_leak("d165_fp16_nan", kF16, 165, kOddDAlignmentBytes);
}

// Tail boxes leave the columns from the work width W to the end of the last 64-column block as
// shared memory held them (forward_kernel.cuh, TailBoxMaps): no wgmma may read them. Every
// shared-memory byte NaN before the launch (poison_shared_memory) must not reach a result, at
// each tail (16, 32, 48 columns) of each bucket and with each mask. Skipped where the device does
// not keep shared memory between launches.
TEST_F(Sm90Unaligned, StaleSharedMemoryPastTheWidthIsNeverRead) {
  for (const UnalignedCase& c : {
           UnalignedCase{"stale_d74_fp16_w80", kF16, 1, 200, 200, 8, 8, 74, Layout::packed},
           UnalignedCase{"stale_d90_bf16_w96_window", kBf16, 1, 200, 200, 8, 8, 90,
                         Layout::packed, false, Window{30, 5}},
           UnalignedCase{"stale_d97_fp16_w112_causal", kF16, 1, 200, 200, 8, 8, 97,
                         Layout::packed, true},
           UnalignedCase{"stale_d129_bf16_w144", kBf16, 1, 200, 200, 8, 8, 129, Layout::packed},
           UnalignedCase{"stale_d150_fp16_w160_causal", kF16, 1, 200, 200, 8, 8, 150,
                         Layout::packed, true},
           UnalignedCase{"stale_d165_bf16_w176", kBf16, 1, 200, 200, 8, 8, 165, Layout::packed},
           UnalignedCase{"stale_d201_fp16_w208", kF16, 1, 150, 150, 8, 8, 201, Layout::packed},
           UnalignedCase{"stale_d211_bf16_w224_window", kBf16, 1, 150, 150, 8, 8, 211,
                         Layout::packed, false, Window{30, 5}},
           UnalignedCase{"stale_d233_fp16_w240_causal", kF16, 1, 150, 150, 8, 8, 233,
                         Layout::sliced, true}}) {
    SCOPED_TRACE(c.name);
    expect_sm90_matches_reference(c, {}, &poison_shared_memory);
  }
}

// ---- selector rules (no GPU) --------------------------------------------------------------

Problem unaligned_problem(std::int64_t head_dim, std::size_t row_alignment, Direction direction) {
  Problem p;
  p.batch = 2;
  p.seqlen_q = 128;
  p.seqlen_k = 128;
  p.heads_q = 8;
  p.heads_kv = 8;
  p.head_dim = head_dim;
  p.dtype = DType::float16;
  p.device = Device::cuda(0);
  p.direction = direction;
  p.alignment_bytes = 2;
  p.row_alignment_bytes = row_alignment;
  p.options.backend = Backend::cuda_sm90;
  return p;
}

TEST(Sm90UnalignedSelector, ForwardTakesRowAlignedTensors) {
  if (!backend_compiled(Backend::cuda_sm90)) GTEST_SKIP() << "cuda_sm90 is not compiled";
  const Problem forward_problem = unaligned_problem(129, kTmaAlignment, Direction::forward);
  if (auto why = detail::why_no_compiled_instance(Backend::cuda_sm90, forward_problem)) {
    GTEST_SKIP() << *why;
  }
  const Selection taken = detail::select_backend(forward_problem, simulated_hopper());
  EXPECT_TRUE(taken.ok()) << taken.reason;
  // D = 236 fits width 240 at the phases of 8-byte-aligned tensors (at most 4), not at 2-byte
  // ones (7: 243 columns).
  Problem d236 = unaligned_problem(236, kTmaAlignment, Direction::forward);
  if (!detail::why_no_compiled_instance(Backend::cuda_sm90, d236)) {
    d236.alignment_bytes = 8;
    EXPECT_TRUE(detail::select_backend(d236, simulated_hopper()).ok());
    d236.alignment_bytes = 2;
    EXPECT_FALSE(detail::select_backend(d236, simulated_hopper()).ok());
  }

  // Rows not 16-byte aligned, the backward, the 64 bucket, and head dims whose columns at a
  // phase need width 256 or more than the bucket (D = 242..256) keep the 16-byte rule.
  for (const Problem& refused :
       {unaligned_problem(129, 8, Direction::forward),
        unaligned_problem(129, 0, Direction::forward),
        unaligned_problem(129, kTmaAlignment, Direction::backward),
        unaligned_problem(63, kTmaAlignment, Direction::forward),
        unaligned_problem(245, kTmaAlignment, Direction::forward),
        unaligned_problem(255, kTmaAlignment, Direction::forward)}) {
    const Selection s = detail::select_backend(refused, simulated_hopper());
    EXPECT_FALSE(s.ok()) << "head_dim " << refused.head_dim << ", rows "
                         << refused.row_alignment_bytes;
    if (!s.ok() && s.reason.find(detail::kPrunedFromBuild) == std::string::npos) {
      EXPECT_NE(s.reason.find("16-byte"), std::string::npos) << s.reason;
    }
  }
}

TEST(Sm90UnalignedSelector, RowAlignmentOfLayouts) {
  std::mt19937_64 rng(7);
  auto row_alignment = [](const StridedTensor& t) {
    return Problem::describe(t.tensor.view, t.tensor.view, {}, Direction::forward)
        .row_alignment_bytes;
  };
  // Packed D = 129: 8 heads make 2,064-byte rows; 2 heads 516 (4-byte aligned).
  EXPECT_EQ(row_alignment(layout_tensor(Layout::packed, 0, kF16, 2, 4, 8, 129, rng)), 16u);
  EXPECT_EQ(row_alignment(layout_tensor(Layout::packed, 0, kF16, 2, 4, 2, 129, rng)), 4u);
  EXPECT_EQ(row_alignment(layout_tensor(Layout::rows_padded, 0, kF16, 2, 4, 2, 129, rng)), 16u);
  EXPECT_EQ(row_alignment(layout_tensor(Layout::sliced, 0, kF16, 2, 4, 8, 200, rng)), 16u);
  EXPECT_EQ(row_alignment(layout_tensor(Layout::fused_qkv, 1, kBf16, 2, 4, 8, 129, rng)), 16u);
  // GQA with packed D = 129 queries (head h at phase h mod 8) and keys whose rows are padded
  // (key head j at phase j mod 8): query head 1 reads key head 0 at another phase.
  const StridedTensor gqa_q = layout_tensor(Layout::packed, 0, kF16, 2, 4, 8, 129, rng);
  const StridedTensor gqa_k = layout_tensor(Layout::rows_padded, 1, kF16, 2, 4, 2, 129, rng);
  EXPECT_EQ(Problem::describe(gqa_q.tensor.view, gqa_k.tensor.view, {}, Direction::forward)
                .row_alignment_bytes,
            1u);
  // Heads outside the sequence rows ((B, H, S, D) memory order): no row holds the heads.
  const StridedTensor heads_outer =
      strided_tensor(kF16, 2, 4, 8, 129, 4 * 136, 136, 0, rng);
  EXPECT_EQ(row_alignment(heads_outer), 1u);
}

}  // namespace
}  // namespace fattn::testing
