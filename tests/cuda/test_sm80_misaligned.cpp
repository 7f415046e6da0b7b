// cuda_sm80 forward against the float64 reference, on the shapes that take its special paths
// (and, at the end, the backward's shifted windows beside non-finite neighbour heads).
// Rows that are only 2-byte aligned:
// - odd head dims in packed 16-bit tensors (D = 129: rows 258 bytes apart, each row at a
//   different offset within a 16-byte word), in every head-dim bucket;
// - deliberately misaligned strided views: q, k and v are the slice [..., 1:] of tensors one
//   element wider, so every row starts 2 bytes past a 4-byte boundary or worse.
// These run the shared-memory-staged loader (UnalignedTileStage in src/cuda/sm80/tile_io.cuh):
// cp.async of the aligned 16-byte words covering each row, realigned in shared memory. A row's
// first word reaches before the row and its last past it (read only up to the row's end), so q,
// k and v are copied to device allocations that hold exactly the tensor's bytes: under
// compute-sanitizer memcheck a read outside the tensor is then an error, not a silent read of
// slack. With lead_bytes = 2 the tensor's first word starts before the tensor (the 16-bit
// fallback of that word).
// Step classes (tile_config.hpp): head dims that run a fixed-step walk, exactly (72 -> 5 steps,
// 96 -> 6, 136 -> 9) or rounded up over zero-filled columns (100 -> the 128 bucket's 8 steps,
// 160 -> the 192 bucket's 12), and on the tiles chosen for them (the 64-key narrow tile at 128).
// Full-width walks of forward v4: every head dim of the 64 bucket and D = 193..256 run the
// bucket's full width over zero-filled columns; whole K/V tiles take the short copy and the last
// one the general copy; a negative softmax scale negates the Q tile in shared memory once.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "api/device_query.hpp"
#include "device_buffer.hpp"
#include "shared_memory_cap.hpp"
#include "support/pruning.hpp"
#include "support/test_tensors.hpp"

namespace fattn::testing {
namespace {

constexpr double kLseTolerance = 1e-5;  // as in test_cuda_backends.cpp

// Bytes from a view's first element to one past its last (non-negative strides).
std::size_t extent_bytes(const TensorView& view) {
  std::int64_t last = 0;
  for (int d = 0; d < view.rank; ++d) last += (view.shape[d] - 1) * view.stride[d];
  return static_cast<std::size_t>(last + 1) * size_of(view.dtype);
}

// A device copy of exactly a view's bytes (no slack after the last element), placed
// `lead_bytes` past the start of its allocation so the first row can be made misaligned.
struct ExactDeviceCopy {
  void* allocation = nullptr;
  TensorView view;

  ExactDeviceCopy(const HostTensor& host, std::size_t lead_bytes) {
    const std::size_t bytes = extent_bytes(host.view);
    EXPECT_EQ(cudaMalloc(&allocation, lead_bytes + bytes), cudaSuccess);
    auto* first = static_cast<unsigned char*>(allocation) + lead_bytes;
    EXPECT_EQ(cudaMemcpy(first, host.view.data, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    view = host.view;
    view.data = first;
    view.device = Device::cuda(0);
  }
  ~ExactDeviceCopy() { cudaFree(allocation); }
  ExactDeviceCopy(const ExactDeviceCopy&) = delete;
  ExactDeviceCopy& operator=(const ExactDeviceCopy&) = delete;
};

// A random (batch, seqlen, heads, head_dim) tensor; with `sliced`, the view [..., 1:] of a
// tensor one element wider (rows head_dim + 1 elements apart, starting one element in).
HostTensor random_tensor(DType dtype, std::int64_t batch, std::int64_t seqlen, std::int64_t heads,
                         std::int64_t head_dim, bool sliced, std::mt19937_64& rng) {
  HostTensor t = make_tensor(dtype, {batch, seqlen, heads, head_dim + (sliced ? 1 : 0)});
  fill_random(t, rng);
  if (sliced) {
    t.view.shape[3] = head_dim;
    t.view.data = t.storage.data() + size_of(dtype);
  }
  return t;
}

struct ForwardShapeCase {
  const char* name;
  DType dtype;
  std::int64_t batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim;
  bool causal;
  Window window;
  bool sliced;             // q, k, v are [..., 1:] views of tensors one element wider
  std::size_t lead_bytes;  // where the device copies start in their allocations
  float scale = 0.0f;      // softmax scale; 0: the default 1/sqrt(head_dim)
  int shared_bytes_cap = 0;  // device 0's shared memory per block seen by the forward; 0: its own
};

class Sm80ForwardShapes : public ::testing::TestWithParam<ForwardShapeCase> {
 protected:
  void SetUp() override {
    if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
    if (!backend_compiled(Backend::cuda_sm80)) GTEST_SKIP() << "cuda_sm80 is not compiled";
  }
};

TEST_P(Sm80ForwardShapes, ForwardMatchesReference) {
  const ForwardShapeCase& c = GetParam();
  std::mt19937_64 rng(std::hash<std::string>{}(c.name));
  const HostTensor q = random_tensor(c.dtype, c.batch, c.seqlen_q, c.heads_q, c.head_dim, c.sliced, rng);
  const HostTensor k = random_tensor(c.dtype, c.batch, c.seqlen_k, c.heads_kv, c.head_dim, c.sliced, rng);
  const HostTensor v = random_tensor(c.dtype, c.batch, c.seqlen_k, c.heads_kv, c.head_dim, c.sliced, rng);
  HostTensor out = make_tensor(c.dtype, {c.batch, c.seqlen_q, c.heads_q, c.head_dim});
  HostTensor lse = make_tensor(DType::float32, {c.batch, c.heads_q, c.seqlen_q});
  poison(out);
  poison(lse);

  Options options;
  options.causal = c.causal;
  options.window = c.window;
  if (c.scale != 0.0f) options.softmax_scale = c.scale;
  options.backend = Backend::cpu_reference;
  HostTensor ref_out = clone(out), ref_lse = clone(lse);
  ASSERT_TRUE(forward(q.view, k.view, v.view, ref_out.view, ref_lse.view, options).ok());

  ExactDeviceCopy d_q(q, c.lead_bytes), d_k(k, c.lead_bytes), d_v(v, c.lead_bytes);
  DeviceBuffer d_out(out), d_lse(lse);
  options.backend = Backend::cuda_sm80;
  if (auto pruned = pruned_from_build(Backend::cuda_sm80, Problem::describe(d_q.view, d_k.view,
                                                                            options,
                                                                            Direction::forward))) {
    GTEST_SKIP() << *pruned;
  }
  const Status s = [&] {
    ScopedSharedMemoryCap cap(0, c.shared_bytes_cap);
    return forward(d_q.view, d_k.view, d_v.view, d_out.view, d_lse.view, options);
  }();
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_LE(relative_error(d_out.to_host(out), ref_out), tolerance_for(c.dtype)) << "out";
  EXPECT_LE(relative_error(d_lse.to_host(lse), ref_lse), kLseTolerance) << "lse";
}

constexpr Window kNoWindow{};

INSTANTIATE_TEST_SUITE_P(
    Misaligned, Sm80ForwardShapes,
    ::testing::Values(
        // The alignment trap: 192 bucket, GQA, several key tiles and a partial last one; 4052
        // K/V rows of 258 bytes end 8 bytes into a 16-byte word (the end of the allocation).
        ForwardShapeCase{"d129_packed_gqa", DType::float16, 2, 257, 1013, 4, 2, 129, false, kNoWindow,
                       false, 0},
        // Causal with Nq > Nk (fully masked rows), bf16, MQA.
        ForwardShapeCase{"d129_packed_causal", DType::bfloat16, 1, 1013, 700, 2, 1, 129, true,
                       kNoWindow, false, 0},
        // Every row 2 bytes past a 16-byte boundary or worse, the first one before the tensor's
        // start would be read by an aligned word: the 128 bucket, a row fills all 16 lanes (the
        // word past the last lane), sliding window.
        ForwardShapeCase{"d128_sliced_window", DType::float16, 1, 333, 517, 3, 3, 128, false,
                       Window{64, 16}, true, 2},
        // An odd head dim in a sliced view: rows 146 bytes apart starting at byte 2.
        ForwardShapeCase{"d72_sliced_causal", DType::bfloat16, 2, 100, 130, 2, 1, 72, true, kNoWindow,
                       true, 2},
        // 256 bucket (its staged tile has 64 keys), a row fills all 32 lanes.
        ForwardShapeCase{"d255_packed", DType::float16, 1, 150, 300, 2, 2, 255, false, kNoWindow,
                       false, 0},
        // 64 bucket; a single query row; N = 17 keys.
        ForwardShapeCase{"d33_packed_one_query", DType::float16, 2, 1, 17, 4, 1, 33, false, kNoWindow,
                       false, 0},
        // Head dim 1: a row is one element, always inside one word or straddling two.
        ForwardShapeCase{"d1_packed", DType::bfloat16, 1, 70, 90, 3, 1, 1, true, kNoWindow, false, 2},
        // Forward v11's 128-key staged tile at 192 (LargeSharedMemoryStagedForwardConfig, D <=
        // 144 where the device takes 194 KB per block): tensors starting 2 bytes into a word, a
        // window, a negative scale; the whole 9-step class (D = 143); one query row, 17 keys.
        ForwardShapeCase{"d129_packed_lead2_window_negative_scale", DType::float16, 1, 300, 517, 4,
                       2, 129, false, Window{100, 30}, false, 2, -0.1f},
        ForwardShapeCase{"d143_packed_causal", DType::bfloat16, 2, 260, 300, 2, 1, 143, true,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d129_packed_one_query_17_keys", DType::bfloat16, 2, 1, 17, 2, 2, 129,
                       false, kNoWindow, false, 2},
        // Above the class: the 64-key staged tile's general walk (D = 145..192).
        ForwardShapeCase{"d151_packed_gqa", DType::float16, 1, 300, 700, 4, 2, 151, false,
                       kNoWindow, false, 0}),
    [](const ::testing::TestParamInfo<ForwardShapeCase>& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(
    StepClasses, Sm80ForwardShapes,
    ::testing::Values(
        ForwardShapeCase{"d72_causal", DType::float16, 1, 300, 517, 4, 2, 72, true, kNoWindow, false, 0},
        ForwardShapeCase{"d80_window", DType::bfloat16, 2, 200, 333, 2, 1, 80, false, Window{40, 9},
                       false, 0},
        ForwardShapeCase{"d96", DType::float16, 1, 257, 300, 2, 2, 96, false, kNoWindow, false, 0},
        ForwardShapeCase{"d100_rounds_up", DType::bfloat16, 1, 130, 200, 2, 2, 100, false, kNoWindow,
                       false, 0},
        ForwardShapeCase{"d136_causal", DType::float16, 1, 200, 150, 2, 1, 136, true, kNoWindow,
                       false, 0},
        ForwardShapeCase{"d160_rounds_up", DType::float16, 1, 100, 170, 2, 2, 160, false, kNoWindow,
                       false, 0},
        ForwardShapeCase{"d130_rows4", DType::bfloat16, 1, 150, 170, 2, 2, 130, false, kNoWindow,
                       false, 0}),
    [](const ::testing::TestParamInfo<ForwardShapeCase>& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(
    FullWidth, Sm80ForwardShapes,
    ::testing::Values(
        ForwardShapeCase{"d40_rounds_up_window", DType::bfloat16, 1, 300, 517, 2, 1, 40, false,
                       Window{40, 9}, false, 0},
        ForwardShapeCase{"d64_negative_scale_causal", DType::float16, 2, 257, 600, 4, 2, 64, true,
                       kNoWindow, false, 0, -0.2f},
        ForwardShapeCase{"d200_rounds_up_causal", DType::bfloat16, 1, 130, 700, 2, 2, 200, true,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d256_negative_scale_window", DType::bfloat16, 1, 200, 333, 2, 1, 256,
                       false, Window{100, 20}, false, 0, -0.07f}),
    [](const ::testing::TestParamInfo<ForwardShapeCase>& info) { return std::string(info.param.name); });

// A device with 99 KB of shared memory per block (sm_86 / sm_89: RTX 30xx / 40xx, A10, L4, L40),
// emulated by capping device 0's limit: launch_forward takes the small roles wherever a table
// tile does not fit (tile_config.hpp, SmallSharedMemoryForwardTiles): at 128 the 64-key narrow
// tile for the unmasked D = 65..80 (d72, d80), at 192 the 64-key 8-warp tile in every role
// (d129 its halved 9-step class, d160 the general walk, d192 the full width), at 256 FA2's 64 x
// 64 tile in every role (d200, d201: the narrow head dims on its general walk). Rows only 2-byte
// aligned (packed odd D, sliced views) take the staged kernel at 64 and 128 and, at 192 and
// 256, the table kernels' general copy (16-bit loads); packed odd D with 8 heads (row strides
// of whole words) would take the shifted-window kernels, which do not fit at 192 and 256 and are
// skipped there (d161, d197 with 8 heads; 4-byte rows d138 with 4 heads). Causal with Nq > Nk
// (fully masked rows) and Nq < Nk, windows, GQA / MQA, N = 1, 17, 1013.
constexpr int kSmall = detail::kConsumerAmpereSharedBytesPerBlock;

INSTANTIATE_TEST_SUITE_P(
    SmallSharedMemory, Sm80ForwardShapes,
    ::testing::Values(
        ForwardShapeCase{"small_d8_causal_nq_above_nk", DType::float16, 2, 1013, 700, 4, 2, 8,
                         true, kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d8_sliced_window_17", DType::bfloat16, 1, 17, 17, 2, 1, 8, false,
                         Window{5, 3}, true, 2, 0.0f, kSmall},
        ForwardShapeCase{"small_d64_causal_nk_above_nq", DType::bfloat16, 1, 300, 1013, 4, 2, 64,
                         true, kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d64_sliced_gqa", DType::float16, 2, 257, 300, 4, 1, 64, false,
                         kNoWindow, true, 2, 0.0f, kSmall},
        ForwardShapeCase{"small_d72_unmasked", DType::float16, 1, 1013, 1013, 2, 2, 72, false,
                         kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d72_unmasked_gqa_17", DType::bfloat16, 2, 17, 17, 4, 2, 72, false,
                         kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d80_unmasked", DType::bfloat16, 1, 300, 1013, 2, 1, 80, false,
                         kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d72_sliced_causal", DType::float16, 1, 300, 130, 2, 1, 72, true,
                         kNoWindow, true, 2, 0.0f, kSmall},
        ForwardShapeCase{"small_d96_window", DType::float16, 1, 1013, 700, 2, 2, 96, false,
                         Window{100, 20}, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d96_sliced_causal", DType::bfloat16, 1, 200, 300, 2, 1, 96, true,
                         kNoWindow, true, 2, 0.0f, kSmall},
        ForwardShapeCase{"small_d128_causal_gqa_nq_above_nk", DType::float16, 1, 1013, 300, 8, 2,
                         128, true, kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d128_one_query", DType::bfloat16, 2, 1, 1013, 2, 2, 128, false,
                         kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d129_packed_gqa", DType::float16, 2, 257, 1013, 4, 2, 129, false,
                         kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d129_packed_causal_17", DType::bfloat16, 1, 17, 300, 2, 1, 129,
                         true, kNoWindow, false, 2, 0.0f, kSmall},
        ForwardShapeCase{"small_d136_window", DType::bfloat16, 1, 300, 257, 2, 1, 136, false,
                         Window{50, 0}, false, 0, -0.1f, kSmall},
        // 4-byte rows: D = 130 (row strides of 260 elements) on the 4-byte cp.async; D = 138 with
        // 4 heads (row strides of whole words) would take the shifted-window kernel.
        ForwardShapeCase{"small_d130_rows4", DType::bfloat16, 1, 150, 170, 2, 2, 130, false,
                         kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d138_rows4_4_heads_causal", DType::float16, 1, 300, 257, 4, 4, 138,
                         true, kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d160_window", DType::float16, 1, 700, 1013, 2, 2, 160, false,
                         Window{64, 16}, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d160_causal_nq_above_nk", DType::bfloat16, 1, 1013, 300, 4, 1, 160,
                         true, kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d161_packed_8_heads_causal", DType::float16, 1, 300, 300, 8, 8, 161,
                         true, kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d192_causal_nk_above_nq", DType::float16, 1, 300, 1013, 4, 2, 192,
                         true, kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d192_sliced_window", DType::bfloat16, 1, 257, 300, 2, 1, 192,
                         false, Window{100, 30}, true, 2, 0.0f, kSmall},
        ForwardShapeCase{"small_d192_unmasked_17", DType::float16, 2, 17, 17, 2, 2, 192, false,
                         kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d200_causal_gqa", DType::bfloat16, 1, 300, 700, 8, 2, 200, true,
                         kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d200_unmasked", DType::float16, 1, 1013, 1013, 2, 2, 200, false,
                         kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d197_packed_8_heads_window", DType::bfloat16, 1, 300, 257, 8, 8,
                         197, false, Window{64, 16}, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d201_packed_causal_nq_above_nk", DType::float16, 1, 300, 200, 2, 1,
                         201, true, kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d256_causal_nq_above_nk", DType::float16, 2, 1013, 700, 4, 2, 256,
                         true, kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d256_sliced_window_one_query", DType::bfloat16, 1, 1, 300, 2, 1,
                         256, false, Window{100, 20}, true, 2, 0.0f, kSmall},
        ForwardShapeCase{"small_d256_unmasked_gqa_17", DType::bfloat16, 2, 17, 17, 4, 1, 256,
                         false, kNoWindow, false, 0, 0.0f, kSmall},
        ForwardShapeCase{"small_d255_sliced_unmasked", DType::float16, 1, 300, 1013, 2, 2, 255,
                         false, kNoWindow, true, 2, 0.0f, kSmall}),
    [](const ::testing::TestParamInfo<ForwardShapeCase>& info) { return std::string(info.param.name); });

// Below every small role's tile (40 KB against 53,760 bytes at 64 and 82,944 at 128): the forward
// is refused by the selector (smallest_forward_shared_bytes), naming the device's bytes, and
// writes no output.
TEST(Sm80ForwardSmallSharedMemory, RefusedBelowTheSmallTiles) {
  if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
  if (!backend_compiled(Backend::cuda_sm80)) GTEST_SKIP() << "cuda_sm80 is not compiled";
  constexpr int kTooSmall = 40 * 1024;
  std::mt19937_64 rng(kTooSmall);
  const std::int64_t dim = 128, seqlen = 257, heads = 2;
  const HostTensor q = random_tensor(DType::float16, 1, seqlen, heads, dim, false, rng);
  const HostTensor k = random_tensor(DType::float16, 1, seqlen, heads, dim, false, rng);
  const HostTensor v = random_tensor(DType::float16, 1, seqlen, heads, dim, false, rng);
  HostTensor out = make_tensor(DType::float16, {1, seqlen, heads, dim});
  HostTensor lse = make_tensor(DType::float32, {1, heads, seqlen});
  poison(out);
  ExactDeviceCopy d_q(q, 0), d_k(k, 0), d_v(v, 0);
  DeviceBuffer d_out(out), d_lse(lse);
  Options options;
  options.backend = Backend::cuda_sm80;
  if (auto pruned = pruned_from_build(Backend::cuda_sm80, Problem::describe(d_q.view, d_k.view,
                                                                            options,
                                                                            Direction::forward))) {
    GTEST_SKIP() << *pruned;
  }
  const Status s = [&] {
    ScopedSharedMemoryCap cap(0, kTooSmall);
    return forward(d_q.view, d_k.view, d_v.view, d_out.view, d_lse.view, options);
  }();
  EXPECT_EQ(s.code(), StatusCode::unsupported) << s.message();
  EXPECT_NE(s.message().find(std::to_string(kTooSmall)), std::string::npos) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(d_out.to_host(out).storage == out.storage) << "no output written";
}

// The masked kernels' head-group grid (QueryTilesSlowestInHeadGroups: 8 heads at 64 and 128, 4
// at 256, only where heads_q is a multiple of the group; otherwise the grid order) and the
// halved last k-step (HalfLastStep: D = 72, 136, 200, whose last 16-wide step holds 8 columns).
INSTANTIATE_TEST_SUITE_P(
    HeadGroups, Sm80ForwardShapes,
    ::testing::Values(
        ForwardShapeCase{"d128_causal_gqa_16_heads", DType::bfloat16, 2, 700, 700, 16, 4, 128,
                       true, kNoWindow, false, 0},
        ForwardShapeCase{"d64_causal_8_heads", DType::float16, 3, 300, 517, 8, 8, 64, true,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d256_causal_fully_masked_rows", DType::bfloat16, 2, 333, 200, 4, 2, 256,
                       true, kNoWindow, false, 0},
        ForwardShapeCase{"d128_window_8_heads", DType::float16, 1, 517, 300, 8, 1, 128, false,
                       Window{64, 16}, false, 0, -0.1f},
        ForwardShapeCase{"d128_causal_12_heads_grid_order", DType::bfloat16, 1, 260, 260, 12, 3,
                       128, true, kNoWindow, false, 0},
        ForwardShapeCase{"d72_causal_8_heads", DType::bfloat16, 2, 150, 333, 8, 2, 72, true,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d136_window", DType::bfloat16, 1, 257, 300, 2, 1, 136, false,
                       Window{50, 0}, false, 0},
        ForwardShapeCase{"d200_causal_8_heads", DType::float16, 1, 200, 200, 8, 4, 200, true,
                       kNoWindow, false, 0},
        // The 192 tile's full-width class (12 steps) halved: D = 177..184.
        ForwardShapeCase{"d180_causal", DType::bfloat16, 1, 200, 260, 4, 2, 180, true, kNoWindow,
                       false, 0}),
    [](const ::testing::TestParamInfo<ForwardShapeCase>& info) { return std::string(info.param.name); });

// Forward v9's narrow tiles (tile_config.hpp): D = 65..80 unmasked on 128 keys x 4 warps x 2 row
// tiles (UnmaskedNarrowForwardConfig<128>, whole steps: D = 73..80), D = 129..144 on 128 keys x 8
// warps (NarrowForwardConfig<192>), D = 193..208 on 128 keys x 8 warps where the device takes 192
// KB per block (LargeSharedMemoryNarrowForwardConfig<256>; the 64-key tile elsewhere). Whole and
// partial 128-key tiles, one query row, GQA, fully masked rows (causal, Nq > Nk), windows, a
// negative scale, and each class's halved and whole last step. Forward v10: D = 65..72 unmasked on
// the same 128-key tile with the halved fifth step, in a kernel of its own
// (HalvedUnmaskedNarrowForwardConfig<128>): d65, d66, d72 cases.
INSTANTIATE_TEST_SUITE_P(
    NarrowTiles, Sm80ForwardShapes,
    ::testing::Values(
        ForwardShapeCase{"d80_gqa_1013", DType::bfloat16, 1, 1013, 1013, 4, 2, 80, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d72_one_query_17_keys", DType::float16, 2, 1, 17, 4, 1, 72, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d65_negative_scale", DType::float16, 1, 300, 517, 2, 2, 65, false,
                       kNoWindow, false, 0, -0.15f},
        ForwardShapeCase{"d80_17_queries_1013_keys", DType::bfloat16, 2, 17, 1013, 2, 1, 80,
                       false, kNoWindow, false, 0},
        ForwardShapeCase{"d72_gqa_1013", DType::bfloat16, 1, 1013, 1013, 4, 2, 72, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d72_17_queries_1013_keys", DType::float16, 2, 17, 1013, 2, 1, 72,
                       false, kNoWindow, false, 0},
        // ClassWideKvCopies (twenty-third session): whole 128-key tiles only (1024 keys), copied
        // on 10 lanes x 12 rows per pass; D = 80 whole chunks, D = 72 with the class's tenth
        // chunk zero-filled; GQA, K/V row strides of 4 and 6 heads, two batches.
        ForwardShapeCase{"d80_class_wide_copies", DType::float16, 2, 300, 1024, 8, 4, 80, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d72_class_wide_copies", DType::bfloat16, 2, 257, 1024, 6, 6, 72, false,
                       kNoWindow, false, 0, -0.11f},
        // KeyCopiesUnderPv (twenty-third session): D = 193..208 where the device takes 192 KB
        // per block, the next K tile copied between P·V's key steps: whole tiles only (1024
        // keys), then a partial last tile (1013 keys, the copy right after the barrier), causal.
        ForwardShapeCase{"d200_key_copies_under_pv", DType::float16, 2, 300, 1024, 4, 2, 200,
                       false, kNoWindow, false, 0},
        ForwardShapeCase{"d208_key_copies_under_pv_causal", DType::bfloat16, 1, 1013, 1013, 4, 1,
                       208, true, kNoWindow, false, 0},
        // Rows of 132 bytes: 4-byte aligned, not whole 16-byte chunks (the general copy, O
        // stored from the registers).
        ForwardShapeCase{"d66_packed_rows", DType::bfloat16, 2, 300, 517, 2, 1, 66, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d136_gqa_1013", DType::float16, 1, 1013, 1013, 4, 2, 136, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d136_one_query", DType::bfloat16, 1, 1, 300, 2, 1, 136, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d144_causal_fully_masked_rows", DType::float16, 1, 1013, 300, 2, 1, 144,
                       true, kNoWindow, false, 0},
        ForwardShapeCase{"d200_gqa_1013", DType::float16, 1, 1013, 1013, 4, 2, 200, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d200_causal_17_queries", DType::bfloat16, 1, 17, 1013, 2, 2, 200, true,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d208_window_negative_scale", DType::bfloat16, 1, 300, 517, 2, 1, 208,
                       false, Window{130, 20}, false, 0, -0.1f},
        ForwardShapeCase{"d200_causal_fully_masked_rows", DType::float16, 2, 700, 257, 2, 1, 200,
                       true, kNoWindow, false, 0}),
    [](const ::testing::TestParamInfo<ForwardShapeCase>& info) { return std::string(info.param.name); });

// The 192 table's unmasked kernel on 128 keys x 8 warps (ForwardConfig<192>, twenty-fifth
// session), the next K tile copied between P·V's key steps from the source kept in shared memory
// (KeyCopiesUnderPv with KvSourcesInSharedMemory): whole tiles only (1024 keys), a partial last
// tile (1013 keys: the copy right after the barrier, then the general copy), the general walk
// (D = 160), the halved class (D = 184), GQA, a negative scale, one query row, and scores spread
// past the rescale threshold.
INSTANTIATE_TEST_SUITE_P(
    UnmaskedTable192, Sm80ForwardShapes,
    ::testing::Values(
        ForwardShapeCase{"d192_whole_tiles", DType::float16, 2, 300, 1024, 4, 2, 192, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d192_gqa_1013", DType::bfloat16, 1, 1013, 1013, 4, 1, 192, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d184_halved_1013", DType::float16, 1, 257, 1013, 2, 2, 184, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d160_general_walk", DType::bfloat16, 1, 300, 700, 2, 1, 160, false,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d192_one_query", DType::float16, 1, 1, 517, 2, 2, 192, false, kNoWindow,
                       false, 0},
        ForwardShapeCase{"d192_negative_scale5", DType::float16, 1, 700, 1013, 2, 2, 192, false,
                       kNoWindow, false, 0, -5.0f},
        ForwardShapeCase{"d192_scale5", DType::bfloat16, 1, 900, 1024, 2, 1, 192, false,
                       kNoWindow, false, 0, 5.0f}),
    [](const ::testing::TestParamInfo<ForwardShapeCase>& info) { return std::string(info.param.name); });

// The 192 table's masked kernel on the same 128 keys x 8 warps and options (ForwardConfig<192>,
// twenty-fifth session, s25-fwd192c): causal over whole tiles (1024 keys) and with the diagonal
// off the tile grid (Nq < Nk, a partial last tile), rows with no visible key (Nq > Nk, GQA), the
// halved class (D = 184), windows with both edges and a negative scale, and scores spread past
// the rescale threshold on masked tiles.
INSTANTIATE_TEST_SUITE_P(
    MaskedTable192, Sm80ForwardShapes,
    ::testing::Values(
        ForwardShapeCase{"d192_causal_whole_tiles", DType::float16, 2, 1024, 1024, 4, 2, 192,
                       true, kNoWindow, false, 0},
        ForwardShapeCase{"d192_causal_nq_lt_nk_1013", DType::bfloat16, 1, 300, 1013, 4, 1, 192,
                       true, kNoWindow, false, 0},
        ForwardShapeCase{"d176_causal_gqa_fully_masked_rows", DType::float16, 1, 1013, 700, 8, 2,
                       176, true, kNoWindow, false, 0},
        ForwardShapeCase{"d184_halved_causal", DType::bfloat16, 1, 1013, 1013, 2, 2, 184, true,
                       kNoWindow, false, 0},
        ForwardShapeCase{"d192_window", DType::float16, 1, 1013, 1013, 2, 2, 192, false,
                       Window{200, 70}, false, 0},
        ForwardShapeCase{"d160_window_negative_scale", DType::bfloat16, 1, 700, 900, 2, 1, 160,
                       false, Window{300, 0}, false, 0, -0.1f},
        ForwardShapeCase{"d192_causal_negative_scale5", DType::float16, 1, 700, 1013, 2, 2, 192,
                       true, kNoWindow, false, 0, -5.0f}),
    [](const ::testing::TestParamInfo<ForwardShapeCase>& info) { return std::string(info.param.name); });

// Forward v15's RescalePastThreshold (tile_config.hpp): scores spread over ~20 log2 units
// (|scale| 5 on uniform [-1, 1] inputs), so a row's tile max passes its running max by more
// than the threshold (8) on later key tiles and O and the sums are rescaled inside the walk,
// not only on the first tile; between rescales P = 2^(S·c - m) reaches up to 2^8. The kernels
// with the option: the 128 and 192 tables (both masks), the unmasked kernels of the 256 table,
// of the narrow 128 tile (D = 81..96), of the unmasked 128-key tiles (D = 65..72 halved,
// 73..80) and of the large narrow 256 tile (D = 193..208); the other cases (D = 64, 136, the
// masked 256 / D = 72 kernels) run the exact rescale on the same kind of inputs.
INSTANTIATE_TEST_SUITE_P(
    RescalePastThreshold, Sm80ForwardShapes,
    ::testing::Values(
        ForwardShapeCase{"d64_window_scale5", DType::float16, 1, 700, 900, 2, 1, 64, false,
                       Window{300, 40}, false, 0, 5.0f},
        ForwardShapeCase{"d72_scale5", DType::float16, 1, 1013, 1013, 2, 2, 72, false,
                       kNoWindow, false, 0, 5.0f},
        ForwardShapeCase{"d72_causal_scale5", DType::bfloat16, 1, 700, 700, 2, 1, 72, true,
                       kNoWindow, false, 0, 5.0f},
        ForwardShapeCase{"d80_scale5", DType::bfloat16, 1, 700, 1013, 2, 2, 80, false,
                       kNoWindow, false, 0, 5.0f},
        ForwardShapeCase{"d128_causal_scale5", DType::bfloat16, 1, 900, 900, 8, 2, 128, true,
                       kNoWindow, false, 0, 5.0f},
        ForwardShapeCase{"d128_negative_scale5", DType::float16, 1, 700, 1013, 2, 2, 128, false,
                       kNoWindow, false, 0, -5.0f},
        ForwardShapeCase{"d136_scale5", DType::float16, 1, 700, 1013, 2, 1, 136, false,
                       kNoWindow, false, 0, 5.0f},
        ForwardShapeCase{"d192_causal_scale5", DType::bfloat16, 1, 700, 700, 2, 2, 192, true,
                       kNoWindow, false, 0, 5.0f},
        ForwardShapeCase{"d200_scale5", DType::float16, 1, 600, 900, 2, 2, 200, false,
                       kNoWindow, false, 0, 5.0f},
        ForwardShapeCase{"d256_causal_scale5", DType::bfloat16, 1, 700, 700, 4, 2, 256, true,
                       kNoWindow, false, 0, 5.0f}),
    [](const ::testing::TestParamInfo<ForwardShapeCase>& info) { return std::string(info.param.name); });

// Forward v16's shifted windows (forward_kernel_shifted_windows, uses_shifted_windows in
// src/cuda/sm80/forward_kernel.cuh; v19 added the 128 bucket and rows 4- or 8-byte aligned,
// below): packed D = 129 or 137 whose K/V row strides are whole
// 16-byte words (8 or 16 KV heads), tensors starting on a word: head h's rows start h elements
// into their words (129 = 1 mod 8), so 8 heads run every shift 0..7. GQA with 16 query heads
// gives Q another shift than its K head; causal with Nq > Nk, one query row and 17 keys, 1013
// keys (a partial last tile), a window with a negative scale, and D = 137 (a whole last step).
INSTANTIATE_TEST_SUITE_P(
    ShiftedWindows, Sm80ForwardShapes,
    ::testing::Values(
        ForwardShapeCase{"d129_shifts_0_to_7", DType::float16, 2, 257, 1013, 8, 8, 129, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d129_gqa_causal_fully_masked_rows", DType::bfloat16, 1, 1013, 700, 16,
                         8, 129, true, kNoWindow, false, 0},
        ForwardShapeCase{"d129_one_query_17_keys", DType::float16, 2, 1, 17, 8, 8, 129, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d129_17_queries_window_negative_scale", DType::bfloat16, 1, 17, 1013,
                         16, 8, 129, false, Window{300, 20}, false, 0, -0.1f},
        ForwardShapeCase{"d137_causal", DType::float16, 1, 300, 517, 8, 8, 137, true, kNoWindow,
                         false, 0},
        // D = 131..135: at small shifts the row ends a word before the window (covering_width):
        // 8 heads run every shift (131, 133 and 135 are 3, 5 and 7 mod 8); GQA; one query row.
        ForwardShapeCase{"d131_shifts_0_to_7", DType::bfloat16, 2, 257, 1013, 8, 8, 131, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d133_gqa_causal", DType::float16, 1, 700, 517, 16, 8, 133, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d135_one_query_17_keys", DType::bfloat16, 2, 1, 17, 8, 8, 135, false,
                         kNoWindow, false, 0},
        // Forward v19: the 128 bucket's narrow tile (D = 65..89, windows of 72-96 columns in its
        // 5- and 6-step classes) and rows 4- or 8-byte aligned in every bucket (D = 74, 76, 86,
        // 130, 132: shifts 0, 2, 4, 6 or 0, 4). GQA gives Q another shift than its K head, so Q
        // is staged, at 128 rows in two halves (load_rows_at_shift).
        ForwardShapeCase{"d73_shifts_0_to_7", DType::float16, 2, 257, 1013, 8, 8, 73, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d74_rows4_gqa_causal_fully_masked_rows", DType::bfloat16, 1, 1013, 700,
                         16, 8, 74, true, kNoWindow, false, 0},
        ForwardShapeCase{"d76_rows8_one_query_17_keys", DType::float16, 2, 1, 17, 8, 8, 76, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d86_rows4_gqa_window_negative_scale", DType::bfloat16, 1, 17, 1013, 16,
                         8, 86, false, Window{300, 20}, false, 0, -0.1f},
        ForwardShapeCase{"d89_causal", DType::float16, 1, 300, 517, 8, 8, 89, true, kNoWindow,
                         false, 0},
        ForwardShapeCase{"d65_gqa_causal", DType::bfloat16, 1, 700, 517, 16, 8, 65, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d130_rows4_shifts", DType::float16, 2, 257, 1013, 8, 8, 130, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d132_rows8_gqa_causal", DType::bfloat16, 1, 1013, 700, 16, 8, 132, true,
                         kNoWindow, false, 0},
        // The 256 bucket's 13-step narrow tile (D = 193..201; the 128-key tile on devices whose
        // blocks take 192 KB, the 64-key one elsewhere).
        ForwardShapeCase{"d194_rows4_shifts", DType::float16, 2, 257, 1013, 8, 8, 194, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d196_rows8_gqa_causal", DType::bfloat16, 1, 1013, 700, 16, 8, 196, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d201_gqa_window_negative_scale", DType::bfloat16, 1, 17, 1013, 16, 8,
                         201, false, Window{300, 20}, false, 0, -0.1f},
        ForwardShapeCase{"d193_one_query_17_keys", DType::float16, 2, 1, 17, 8, 8, 193, false,
                         kNoWindow, false, 0},
        // Twentieth session: the window by alignment (widest_window: D + 6 at 4-byte rows, D + 4
        // at 8-byte) fits D = 90 / 92, 138 / 140 and 202 / 204 in their step classes (6, 9 and
        // 13 steps, whole), and D = 74 / 76 in the 5-step class instead of the halved 6-step one.
        ForwardShapeCase{"d90_rows4_shifts", DType::float16, 2, 257, 1013, 8, 8, 90, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d92_rows8_gqa_causal", DType::bfloat16, 1, 1013, 700, 16, 8, 92, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d138_rows4_gqa_window_negative_scale", DType::bfloat16, 1, 17, 1013,
                         16, 8, 138, false, Window{300, 20}, false, 0, -0.1f},
        ForwardShapeCase{"d140_rows8_causal", DType::float16, 1, 300, 517, 8, 8, 140, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d202_rows4_one_query_17_keys", DType::float16, 2, 1, 17, 8, 8, 202,
                         false, kNoWindow, false, 0},
        ForwardShapeCase{"d204_rows8_gqa_causal", DType::bfloat16, 1, 700, 517, 16, 8, 204, true,
                         kNoWindow, false, 0}),
    [](const ::testing::TestParamInfo<ForwardShapeCase>& info) { return std::string(info.param.name); });

// Forward v21: windows wider than the narrow tile's largest class, up to the bucket, on
// WideWindowForwardConfig (one class per window width: 10-12 steps at 192, 14-16 at 256; v22:
// 7-8 at 128). Packed
// odd D (2-byte rows; 8 KV heads run every shift 0..7) and D = 210 / 234 (4-byte rows), causal and
// not, 17 and 1013 keys (a partial last tile), one query row, GQA (Q staged at K's shift), a
// window with a negative scale. D = 139 / 171 / 203: windows of 16·steps - 8 (halved last step)
// whose rows end in the step before it at small shifts; D = 185 / 249 fill the bucket's window.
INSTANTIATE_TEST_SUITE_P(
    WideWindows, Sm80ForwardShapes,
    ::testing::Values(
        ForwardShapeCase{"d161_shifts_0_to_7", DType::float16, 2, 257, 1013, 8, 8, 161, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d161_gqa_causal_fully_masked_rows", DType::bfloat16, 1, 1013, 1013, 16,
                         8, 161, true, kNoWindow, false, 0},
        ForwardShapeCase{"d161_one_query_17_keys", DType::bfloat16, 2, 1, 17, 8, 8, 161, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d185_shifts_0_to_7", DType::bfloat16, 2, 257, 1013, 8, 8, 185, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d185_causal_17_keys", DType::float16, 1, 300, 17, 8, 8, 185, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d139_17_queries_window_negative_scale", DType::float16, 1, 17, 1013, 16,
                         8, 139, false, Window{300, 20}, false, 0, -0.1f},
        ForwardShapeCase{"d171_causal", DType::bfloat16, 1, 1013, 1013, 8, 8, 171, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d210_rows4_shifts", DType::float16, 2, 257, 1013, 8, 8, 210, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d210_rows4_one_query_17_keys", DType::bfloat16, 2, 1, 17, 8, 8, 210,
                         false, kNoWindow, false, 0},
        ForwardShapeCase{"d233_shifts_0_to_7", DType::bfloat16, 2, 257, 1013, 8, 8, 233, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d233_gqa_causal", DType::float16, 1, 1013, 1013, 16, 8, 233, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d233_causal_17_keys", DType::bfloat16, 1, 300, 17, 8, 8, 233, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d234_rows4_causal", DType::float16, 1, 1013, 1013, 8, 8, 234, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d234_rows4_17_keys", DType::bfloat16, 2, 257, 17, 8, 8, 234, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d203_gqa_window_negative_scale", DType::bfloat16, 1, 17, 1013, 16, 8,
                         203, false, Window{300, 20}, false, 0, -0.1f},
        ForwardShapeCase{"d249_one_query_17_keys", DType::float16, 2, 1, 17, 8, 8, 249, false,
                         kNoWindow, false, 0},
        // Forward v22: the 128 bucket's classes 7 and 8 (windows 104..128: odd D = 91..121 with
        // 2-byte rows, D = 110 / 122 with 4-byte, 124 with 8-byte), on the table's 4-warp,
        // 2-row-tile layout with the head-group grid (causal, 8 or 16 query heads). D = 91 / 97
        // / 113 / 110: windows of 16·steps - 8 (halved last step; class 8's since v23 on the
        // whole walk); at shift 0 D = 91 and 110 end in the second half of the step before it.
        // D = 105 / 121 / 122 / 124: whole last step.
        ForwardShapeCase{"d97_shifts_0_to_7", DType::float16, 2, 257, 1013, 8, 8, 97, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d97_gqa_causal_fully_masked_rows", DType::bfloat16, 1, 1013, 700, 16,
                         8, 97, true, kNoWindow, false, 0},
        ForwardShapeCase{"d91_causal", DType::float16, 1, 1013, 1013, 8, 8, 91, true, kNoWindow,
                         false, 0},
        ForwardShapeCase{"d105_shifts_0_to_7", DType::bfloat16, 2, 257, 1013, 8, 8, 105, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d105_one_query_17_keys", DType::float16, 2, 1, 17, 8, 8, 105, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d105_causal_17_keys", DType::bfloat16, 1, 300, 17, 8, 8, 105, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d113_17_queries_window_negative_scale", DType::float16, 1, 17, 1013,
                         16, 8, 113, false, Window{300, 20}, false, 0, -0.1f},
        ForwardShapeCase{"d121_shifts_0_to_7", DType::float16, 2, 257, 1013, 8, 8, 121, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d121_gqa_causal", DType::bfloat16, 1, 1013, 1013, 16, 8, 121, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d110_rows4_shifts", DType::bfloat16, 2, 257, 1013, 8, 8, 110, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d110_rows4_causal", DType::float16, 1, 1013, 1013, 8, 8, 110, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d122_rows4_one_query_17_keys", DType::bfloat16, 2, 1, 17, 8, 8, 122,
                         false, kNoWindow, false, 0},
        ForwardShapeCase{"d124_rows8_gqa_causal", DType::float16, 1, 700, 517, 16, 8, 124, true,
                         kNoWindow, false, 0},
        // v23: class 8 (windows 120 and 128) on the table's whole 8-step walk, K's columns outside
        // the row zeroed in shared memory per K tile (KeyWindowEdgesInSharedMemory), windows of
        // 120 over the copy's zero-filled last chunk. D = 107: the class's smallest head dim (at
        // shift 0 its row ends in the window's 14th chunk); 17 keys: a partial K tile, copied by
        // load_tile_narrow, zeroed by the same lanes; D = 118 / 116: 4- and 8-byte rows.
        ForwardShapeCase{"d113_shifts_0_to_7", DType::float16, 2, 257, 1013, 8, 8, 113, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d107_gqa_causal_fully_masked_rows", DType::bfloat16, 1, 1013, 700, 16,
                         8, 107, true, kNoWindow, false, 0},
        ForwardShapeCase{"d107_shifts_0_to_7", DType::float16, 2, 257, 1013, 8, 8, 107, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d115_causal_17_keys", DType::bfloat16, 1, 300, 17, 8, 8, 115, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d119_one_query_17_keys", DType::float16, 2, 1, 17, 8, 8, 119, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d117_shifts_0_to_7", DType::bfloat16, 2, 257, 1013, 8, 8, 117, false,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d121_gqa_window_negative_scale", DType::float16, 1, 17, 1013, 16, 8,
                         121, false, Window{300, 20}, false, 0, -0.1f},
        ForwardShapeCase{"d118_rows4_gqa_causal", DType::bfloat16, 1, 1013, 700, 16, 8, 118, true,
                         kNoWindow, false, 0},
        ForwardShapeCase{"d116_rows8_shifts", DType::float16, 2, 257, 1013, 8, 8, 116, false,
                         kNoWindow, false, 0}),
    [](const ::testing::TestParamInfo<ForwardShapeCase>& info) { return std::string(info.param.name); });

// Shifted windows read the words around each row: the elements before a row (its shift) belong
// to the previous head and those after its end to the next one. The tensors here are 14 heads,
// every third head of a 40-head packed tensor (rows 40·D elements apart: whole words; shifts
// 3jD mod 8, every one of 0..7 at odd D; the tensor's last byte ends a word), and the heads
// between them hold +Inf and NaN: the results must be finite and match the reference, which
// never reads them.
constexpr std::int64_t kNeighbourSeq = 300, kStoredHeads = 40, kNeighbourHeads = 14,
                       kEveryThirdHead = 3;

HostTensor interleaved_with_non_finite_heads(DType dtype, std::int64_t dim, std::mt19937_64& rng) {
  HostTensor t = make_tensor(dtype, {1, kNeighbourSeq, kStoredHeads, dim});
  fill_random(t, rng);
  for (std::int64_t row = 0; row < kNeighbourSeq; ++row)
    for (std::int64_t head = 0; head < kStoredHeads; ++head) {
      if (head % kEveryThirdHead == 0 && head / kEveryThirdHead < kNeighbourHeads) continue;
      const float filler = head % kEveryThirdHead == 1 ? std::numeric_limits<float>::infinity()
                                                      : std::numeric_limits<float>::quiet_NaN();
      for (std::int64_t d = 0; d < dim; ++d) t.set((row * kStoredHeads + head) * dim + d, filler);
    }
  t.view.shape[2] = kNeighbourHeads;
  t.view.stride[2] = kEveryThirdHead * dim;
  return t;
}

struct NeighbourLayout {
  DType dtype;
  std::int64_t dim;
};

// The forward of `options` on the float64 reference and on cuda_sm80, from the same inputs into
// copies of the same poisoned outputs; compares O and LSE by relative error and returns the
// device's O (the caller may check its bytes), or nothing where the build prunes the problem
// (`skip` says why).
std::optional<HostTensor> sm80_forward_against_reference(const HostTensor& q, const HostTensor& k,
                                                         const HostTensor& v, const HostTensor& out,
                                                         const HostTensor& lse, Options options,
                                                         std::string* skip) {
  options.backend = Backend::cpu_reference;
  HostTensor ref_out = clone(out), ref_lse = clone(lse);
  EXPECT_TRUE(forward(q.view, k.view, v.view, ref_out.view, ref_lse.view, options).ok());
  ExactDeviceCopy d_q(q, 0), d_k(k, 0), d_v(v, 0);
  DeviceBuffer d_out(out), d_lse(lse);
  options.backend = Backend::cuda_sm80;
  if (auto pruned = pruned_from_build(
          Backend::cuda_sm80, Problem::describe(d_q.view, d_k.view, options, Direction::forward))) {
    *skip = *pruned;
    return std::nullopt;
  }
  const Status s = forward(d_q.view, d_k.view, d_v.view, d_out.view, d_lse.view, options);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::int64_t dim = q.view.shape[3];
  HostTensor got = d_out.to_host(out);
  EXPECT_LE(relative_error(got, ref_out), tolerance_for(out.view.dtype)) << "out, D = " << dim;
  EXPECT_LE(relative_error(d_lse.to_host(lse), ref_lse), kLseTolerance) << "lse, D = " << dim;
  return got;
}

// The forward's shifted windows (K and V copied as words, Q at K's shift). D = 129: the window's
// last word ends the row; D = 135: at shifts 0 and 1 the row ends a word before the window (the
// copy stops there, covering_width). The 128 bucket's narrow tile (v19): D = 74 (rows 4-byte
// aligned: shifts 0, 2, 4, 6) and D = 89 (its whole 6-step class); the 256 bucket's: D = 197.
// D = 90 and 202 (4-byte rows) fill their 6- and 13-step classes at shift 6. Forward v21's wide
// windows: D = 161, 171 (a halved 12-step window), 203 (halved 14-step), 233, 234 (4-byte rows);
// v22's at 128: D = 91 (a halved 7-step window) and 121 (the whole 8-step one); v23's class 8,
// whose K tiles are zeroed outside the row in shared memory: D = 113 and 107 (windows of 120).
TEST(Sm80ForwardShiftedWindows, NonFiniteNeighbourHeads) {
  if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
  if (!backend_compiled(Backend::cuda_sm80)) GTEST_SKIP() << "cuda_sm80 is not compiled";
  for (const NeighbourLayout layout :
       {NeighbourLayout{DType::float16, 129}, NeighbourLayout{DType::bfloat16, 129},
        NeighbourLayout{DType::float16, 135}, NeighbourLayout{DType::bfloat16, 74},
        NeighbourLayout{DType::float16, 89}, NeighbourLayout{DType::float16, 197},
        NeighbourLayout{DType::bfloat16, 90}, NeighbourLayout{DType::float16, 202},
        NeighbourLayout{DType::float16, 161}, NeighbourLayout{DType::bfloat16, 171},
        NeighbourLayout{DType::bfloat16, 203}, NeighbourLayout{DType::float16, 233},
        NeighbourLayout{DType::bfloat16, 234}, NeighbourLayout{DType::float16, 91},
        NeighbourLayout{DType::bfloat16, 121}, NeighbourLayout{DType::float16, 113},
        NeighbourLayout{DType::bfloat16, 107}}) {
    const DType dtype = layout.dtype;
    const std::int64_t dim = layout.dim;
    std::mt19937_64 rng(kNeighbourSeq + static_cast<int>(dtype));
    const HostTensor q = interleaved_with_non_finite_heads(dtype, dim, rng);
    const HostTensor k = interleaved_with_non_finite_heads(dtype, dim, rng);
    const HostTensor v = interleaved_with_non_finite_heads(dtype, dim, rng);
    HostTensor out = make_tensor(dtype, {1, kNeighbourSeq, kNeighbourHeads, dim});
    HostTensor lse = make_tensor(DType::float32, {1, kNeighbourHeads, kNeighbourSeq});
    poison(out);
    poison(lse);
    Options options;
    options.causal = true;
    std::string skip;
    if (!sm80_forward_against_reference(q, k, v, out, lse, options, &skip)) GTEST_SKIP() << skip;
  }
}

// The shifted windows' O stores (16-bit, from the window's columns less V's shift) write only the
// head's D columns: O is every third head of a 40-head tensor poisoned with NaN bytes, and the
// heads between stay untouched. Narrow (D = 129, 197) and wide (161, 185, 210, 233, 249; at 128:
// 97, 110, 121) windows.
TEST(Sm80ForwardShiftedWindows, StoresOnlyTheHeadsColumns) {
  if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
  if (!backend_compiled(Backend::cuda_sm80)) GTEST_SKIP() << "cuda_sm80 is not compiled";
  for (const NeighbourLayout layout :
       {NeighbourLayout{DType::float16, 129}, NeighbourLayout{DType::bfloat16, 161},
        NeighbourLayout{DType::float16, 185}, NeighbourLayout{DType::bfloat16, 197},
        NeighbourLayout{DType::float16, 210}, NeighbourLayout{DType::bfloat16, 233},
        NeighbourLayout{DType::float16, 249}, NeighbourLayout{DType::float16, 97},
        NeighbourLayout{DType::bfloat16, 110}, NeighbourLayout{DType::float16, 121}}) {
    const DType dtype = layout.dtype;
    const std::int64_t dim = layout.dim;
    std::mt19937_64 rng(kNeighbourSeq + dim);
    const HostTensor q = interleaved_with_non_finite_heads(dtype, dim, rng);
    const HostTensor k = interleaved_with_non_finite_heads(dtype, dim, rng);
    const HostTensor v = interleaved_with_non_finite_heads(dtype, dim, rng);
    HostTensor out = make_tensor(dtype, {1, kNeighbourSeq, kStoredHeads, dim});
    poison(out);
    out.view.shape[2] = kNeighbourHeads;
    out.view.stride[2] = kEveryThirdHead * dim;
    HostTensor lse = make_tensor(DType::float32, {1, kNeighbourHeads, kNeighbourSeq});
    poison(lse);
    std::string skip;
    const std::optional<HostTensor> got =
        sm80_forward_against_reference(q, k, v, out, lse, Options{}, &skip);
    if (!got) GTEST_SKIP() << skip;
    // Every byte of the heads between the output's is still the poison's (NaN) bytes.
    const std::size_t element_bytes = size_of(dtype);
    std::int64_t overwritten = 0;
    for (std::int64_t row = 0; row < kNeighbourSeq; ++row)
      for (std::int64_t head = 0; head < kStoredHeads; ++head) {
        if (head % kEveryThirdHead == 0 && head / kEveryThirdHead < kNeighbourHeads) continue;
        const std::size_t first = static_cast<std::size_t>((row * kStoredHeads + head) * dim) *
                                  element_bytes;
        for (std::size_t b = 0; b < static_cast<std::size_t>(dim) * element_bytes; ++b) {
          overwritten += got->storage[first + b] != out.storage[first + b];
        }
      }
    EXPECT_EQ(overwritten, 0) << "bytes written outside the heads' columns, D = " << dim;
  }
}

// The backward's shifted windows (backward v36: Q and dO copied as words per query tile, K and V
// staged at their shifts once per CTA), with Q, K, V and dO interleaved between non-finite heads
// and O, dQ, dK, dV dense; default and deterministic mode. Every bucket but 64 (D = 74, 129,
// 135, 201); D = 89 fills its 6 k-steps, 135 ends a word before its window at shifts 0 and 1.
TEST(Sm80BackwardShiftedWindows, NonFiniteNeighbourHeads) {
  if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
  if (!backend_compiled(Backend::cuda_sm80)) GTEST_SKIP() << "cuda_sm80 is not compiled";
  constexpr double kGradientToleranceFactor = 3.0;  // as in test_cuda_backends.cpp
  for (const NeighbourLayout layout :
       {NeighbourLayout{DType::bfloat16, 129}, NeighbourLayout{DType::float16, 135},
        NeighbourLayout{DType::float16, 74}, NeighbourLayout{DType::bfloat16, 89},
        NeighbourLayout{DType::bfloat16, 201}}) {
    const DType dtype = layout.dtype;
    const std::int64_t dim = layout.dim;
    std::mt19937_64 rng(kNeighbourSeq + dim + static_cast<int>(dtype));
    const HostTensor q = interleaved_with_non_finite_heads(dtype, dim, rng);
    const HostTensor k = interleaved_with_non_finite_heads(dtype, dim, rng);
    const HostTensor v = interleaved_with_non_finite_heads(dtype, dim, rng);
    const HostTensor dout = interleaved_with_non_finite_heads(dtype, dim, rng);
    HostTensor out = make_tensor(dtype, {1, kNeighbourSeq, kNeighbourHeads, dim});
    HostTensor lse = make_tensor(DType::float32, {1, kNeighbourHeads, kNeighbourSeq});
    HostTensor dq = clone(out), dk = clone(out), dv = clone(out);
    Options options;
    options.causal = true;
    options.backend = Backend::cpu_reference;
    ASSERT_TRUE(forward(q.view, k.view, v.view, out.view, lse.view, options).ok());
    HostTensor ref_dq = clone(dq), ref_dk = clone(dk), ref_dv = clone(dv);
    ASSERT_TRUE(backward(q.view, k.view, v.view, out.view, dout.view, lse.view, ref_dq.view,
                         ref_dk.view, ref_dv.view, options)
                    .ok());
    ExactDeviceCopy d_q(q, 0), d_k(k, 0), d_v(v, 0), d_dout(dout, 0);
    DeviceBuffer d_out(out), d_lse(lse), d_dq(dq), d_dk(dk), d_dv(dv);
    options.backend = Backend::cuda_sm80;
    if (auto pruned = pruned_from_build(Backend::cuda_sm80, Problem::describe(d_q.view, d_k.view,
                                                                              options,
                                                                              Direction::backward))) {
      GTEST_SKIP() << *pruned;
    }
    for (const bool deterministic : {false, true}) {
      options.deterministic = deterministic;
      d_dq.poison();
      d_dk.poison();
      d_dv.poison();
      const Status s = backward(d_q.view, d_k.view, d_v.view, d_out.view, d_dout.view,
                                d_lse.view, d_dq.view, d_dk.view, d_dv.view, options);
      ASSERT_TRUE(s.ok()) << s.message();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const double tolerance = kGradientToleranceFactor * tolerance_for(dtype);
      const char* mode = deterministic ? " (deterministic)" : "";
      EXPECT_LE(relative_error(d_dq.to_host(dq), ref_dq), tolerance) << "dq D=" << dim << mode;
      EXPECT_LE(relative_error(d_dk.to_host(dk), ref_dk), tolerance) << "dk D=" << dim << mode;
      EXPECT_LE(relative_error(d_dv.to_host(dv), ref_dv), tolerance) << "dv D=" << dim << mode;
    }
  }
}

}  // namespace
}  // namespace fattn::testing
