// cuda_sm80-specific checks, beside the shared matrix in test_cuda_backends.cpp:
// - deterministic=true: the backward gives bitwise-identical dq, dk, dv from run to run (the dQ
//   accumulation is ordered by per-query-tile semaphores), for the ascending order (no mask,
//   window) and the descending one (causal), with GQA so that several query heads add into one
//   K/V tile's CTA, and for the query walk from the last tile down (128 and 256 on Hopper-sized
//   shared memory); and it still matches the float64 reference;
// - a negative softmax scale (applied inside the kernels by negating a 16-bit operand's sign
//   bits, or in the backward's lean full-width kernels by a signed exponent scale) matches the
//   reference, forward and backward;
// - the copy paths for rows narrower than 16-byte aligned: odd head dims in packed tensors
//   (2-byte rows) and padded rows of 4- and 8-byte alignment;
// - on a device capped to an sm_86 / sm_89 card's 99 KB per block (ScopedSharedMemoryCap) the
//   backward runs the small table (SmallSharedMemoryBackwardConfig) as accurately and as
//   repeatably, and below that table's bytes it is refused, naming them.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <string>

#include "api/device_query.hpp"
#include "cuda/sm80/backward_small_tile_config.hpp"
#include "device_buffer.hpp"
#include "shared_memory_cap.hpp"
#include "support/pruning.hpp"
#include "support/test_tensors.hpp"

namespace fattn::testing {
namespace {

constexpr double kLseTolerance = 1e-5;
constexpr double kGradientToleranceFactor = 3.0;  // as in test_cuda_backends.cpp

struct Sm80Case {
  const char* name;
  DType dtype;
  std::int64_t batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim;
  bool causal;
  Window window;
  std::int64_t row_padding;
  float scale;  // 0: the default 1/sqrt(head_dim)
};

class Sm80Backward : public ::testing::TestWithParam<Sm80Case> {
 protected:
  void SetUp() override {
    if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
    if (!backend_compiled(Backend::cuda_sm80)) GTEST_SKIP() << "cuda_sm80 is not compiled";
  }
};

// Forward and backward on the device (default and deterministic, the latter twice), against the
// float64 reference; the two deterministic runs must agree bit for bit. The backward runs once
// per entry of `backward_caps`: under ScopedSharedMemoryCap(0, cap) (0: the device as it is);
// the forward always uncapped.
void check_forward_and_backward(const Sm80Case& c, std::initializer_list<int> backward_caps) {
  AttentionTensors t(c.dtype, c.batch, c.seqlen_q, c.seqlen_k, c.heads_q, c.heads_kv, c.head_dim,
                     std::hash<std::string>{}(c.name), c.row_padding);
  std::mt19937_64 rng(std::hash<std::string>{}(c.name) + 1);
  HostTensor dout = clone(t.out);
  fill_random(dout, rng);
  HostTensor dq = clone(t.q), dk = clone(t.k), dv = clone(t.v);

  Options options;
  options.causal = c.causal;
  options.window = c.window;
  if (c.scale != 0.0f) options.softmax_scale = c.scale;

  // Reference: forward (out, lse), then the backward of that forward.
  options.backend = Backend::cpu_reference;
  HostTensor ref_out = clone(t.out), ref_lse = clone(t.lse);
  ASSERT_TRUE(forward(t.q.view, t.k.view, t.v.view, ref_out.view, ref_lse.view, options).ok());
  HostTensor ref_dq = clone(dq), ref_dk = clone(dk), ref_dv = clone(dv);
  ASSERT_TRUE(backward(t.q.view, t.k.view, t.v.view, ref_out.view, dout.view, ref_lse.view,
                       ref_dq.view, ref_dk.view, ref_dv.view, options)
                  .ok());

  poison(t.out);
  poison(t.lse);
  DeviceBuffer q(t.q), k(t.k), v(t.v), out(t.out), lse(t.lse), d_out(dout);
  options.backend = Backend::cuda_sm80;
  for (const Direction direction : {Direction::forward, Direction::backward}) {
    if (auto pruned = pruned_from_build(Backend::cuda_sm80,
                                        Problem::describe(q.view, k.view, options, direction))) {
      GTEST_SKIP() << *pruned;
    }
  }
  Status s = forward(q.view, k.view, v.view, out.view, lse.view, options);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double tolerance = tolerance_for(c.dtype);
  EXPECT_LE(relative_error(out.to_host(t.out), ref_out), tolerance) << "out";
  EXPECT_LE(relative_error(lse.to_host(t.lse), ref_lse), kLseTolerance) << "lse";

  poison(dq);
  poison(dk);
  poison(dv);
  DeviceBuffer g_dq(dq), g_dk(dk), g_dv(dv);
  const char* names[3] = {"dq", "dk", "dv"};
  for (const int cap : backward_caps) {
    SCOPED_TRACE(cap == 0 ? std::string("device's shared memory")
                          : "shared memory capped to " + std::to_string(cap) + " bytes");
    ScopedSharedMemoryCap capped(0, cap);
    HostTensor runs[2][3];
    for (int run = 0; run < 3; ++run) {
      options.deterministic = run > 0;
      g_dq.poison();
      g_dk.poison();
      g_dv.poison();
      s = backward(q.view, k.view, v.view, out.view, d_out.view, lse.view, g_dq.view, g_dk.view,
                   g_dv.view, options);
      ASSERT_TRUE(s.ok()) << s.message();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const HostTensor got[3] = {g_dq.to_host(dq), g_dk.to_host(dk), g_dv.to_host(dv)};
      const HostTensor* refs[3] = {&ref_dq, &ref_dk, &ref_dv};
      for (int g = 0; g < 3; ++g) {
        EXPECT_LE(relative_error(got[g], *refs[g]), kGradientToleranceFactor * tolerance)
            << names[g] << (run > 0 ? " (deterministic)" : "");
        if (run > 0) runs[run - 1][g] = clone(got[g]);
      }
    }
    for (int g = 0; g < 3; ++g) {
      ASSERT_EQ(runs[0][g].bytes(), runs[1][g].bytes());
      EXPECT_EQ(
          std::memcmp(runs[0][g].storage.data(), runs[1][g].storage.data(), runs[0][g].bytes()),
          0)
          << names[g] << " differs between two deterministic runs";
    }
  }
}

TEST_P(Sm80Backward, DeterministicIsBitwiseAndAccurate) {
  check_forward_and_backward(GetParam(), {0});
}

constexpr Window kNoWindow{};

INSTANTIATE_TEST_SUITE_P(
    Sm80, Sm80Backward,
    ::testing::Values(
        // Ascending dQ order, GQA 4 -> 2, several key tiles per query tile.
        Sm80Case{"nomask_gqa_d64", DType::bfloat16, 2, 700, 900, 4, 2, 64, false, kNoWindow, 0, 0},
        // v33: the deterministic NoMask launch at 64 (N <= 16k) with the spread dQ reductions in
        // the ordered chain (OrderedDqAtomicsInPhaseB): strided copies, whole query tiles then a
        // partial one, 12 key tiles per query tile, 18 (KV head, batch) pairs (head groups of 16
        // and 2).
        Sm80Case{"ordered_spread_nomask_d64", DType::float16, 3, 1000, 1500, 6, 6, 64, false,
                 kNoWindow, 0, 0},
        // v34: the deterministic masked launches at 64 (DeterministicMaskedBackward) with the
        // spread dQ reductions in the ordered chain: causal (descending dQ order) with Nq < Nk,
        // strided copies, whole query tiles then a partial one (1000 rows), a partial last key
        // tile (1300 keys); a window bounded on the left only (ascending order in a masked
        // kernel) with GQA 4 -> 2 (several query heads per CTA), Nq > Nk.
        Sm80Case{"ordered_spread_causal_d64", DType::float16, 2, 1000, 1300, 3, 3, 64, true,
                 kNoWindow, 0, 0},
        Sm80Case{"ordered_spread_left_window_gqa_d64", DType::bfloat16, 1, 900, 700, 4, 2, 64,
                 false, Window{300, kUnboundedWindow}, 0, 0},
        // Descending dQ order (causal), Nq > Nk (fully masked rows), odd head dim in the 128
        // bucket, rows padded to 8 bytes (8-byte cp.async).
        Sm80Case{"causal_d72_rows8", DType::float16, 1, 600, 450, 4, 1, 72, true, kNoWindow, 4, 0},
        // Window, 2-byte rows (odd head dim, packed): the register copy path.
        Sm80Case{"window_d129_packed", DType::bfloat16, 1, 333, 500, 2, 2, 129, false,
                 Window{64, 16}, 0, 0},
        // Negative softmax scale; rows padded to 4 bytes (4-byte cp.async), 256 bucket.
        Sm80Case{"negative_scale_d200_rows4", DType::float16, 1, 257, 300, 2, 2, 200, true,
                 kNoWindow, 2, -0.09f},
        // Negative scale in the full-width kernels of the lean loop (LeanTileLoop), which fold
        // the sign into the exponent and mask diagonal tiles in a pass of their own: causal at
        // 128 and 256 (partial and whole tiles, Nq > Nk: fully masked rows), a window at 64.
        Sm80Case{"negative_scale_causal_d128", DType::bfloat16, 1, 300, 200, 2, 2, 128, true,
                 kNoWindow, 0, -0.07f},
        Sm80Case{"negative_scale_window_d64", DType::float16, 2, 333, 260, 4, 2, 64, false,
                 Window{40, 8}, 0, -0.11f},
        Sm80Case{"negative_scale_causal_d256", DType::bfloat16, 1, 150, 190, 2, 1, 256, true,
                 kNoWindow, 0, -0.05f},
        // Strided item copies (StridedItemLoads: no GQA group, whole chunks, whole query tiles
        // then a partial last one): D = 120 in the 128 bucket's full-width kernel (its last
        // chunk zero-filled by the predicate copy), causal D = 64 (descending dQ order: the
        // first key tile of each order skips the poll with LightDqRelease), a window at 256.
        Sm80Case{"strided_nomask_d120", DType::bfloat16, 2, 1000, 700, 3, 3, 120, false,
                 kNoWindow, 0, 0},
        Sm80Case{"strided_causal_d64", DType::float16, 1, 1100, 1100, 2, 2, 64, true, kNoWindow,
                 0, 0},
        // The 128 bucket's step classes (NarrowStepClasses, Hopper's table): 16-byte rows of 5
        // k-steps (D = 80, phase B split 2 + 3, the dQ slices past the class skipped) and of 6
        // (D = 88 and 96, 3 + 3), NoMask and masked kernels, a negative scale, partial last key
        // and query tiles, GQA. The deterministic runs take the deterministic table's class
        // kernels (v47d): ordered dQ reductions, bitwise repeatable. D = 104 and 112 (7 k-steps)
        // run the full-width kernel: a class-7 candidate failed these two cases (perf-notes
        // "Backward v47d"), which stay as its guard.
        Sm80Case{"step_class5_nomask_gqa_d80", DType::float16, 2, 700, 900, 4, 2, 80, false,
                 kNoWindow, 0, 0},
        Sm80Case{"step_class5_causal_negative_scale_d72", DType::bfloat16, 1, 600, 450, 2, 2, 72,
                 true, kNoWindow, 0, -0.08f},
        Sm80Case{"step_class6_nomask_d96", DType::bfloat16, 1, 333, 500, 3, 3, 96, false,
                 kNoWindow, 0, 0},
        Sm80Case{"step_class6_window_d88", DType::float16, 1, 500, 333, 2, 1, 88, false,
                 Window{64, 16}, 0, 0},
        // The class kernels' work cut to the class (ClassDqSlicesUnsent, ClassDqChunkTests,
        // ClassTileCopies): head dims that end inside a 16-byte chunk, rows padded to 16 bytes
        // (D = 66 + 6, 84 + 4 elements): the class's last chunks copied in part and zero-filled
        // inside the class, the chunks past it not copied at all; at class 5 the dQ slice that
        // the class ends inside reduced by its first four chunks only (whole and partial query
        // tiles), the slice past the class unsent; causal at class 6.
        Sm80Case{"step_class5_nomask_padded_d66", DType::float16, 1, 1000, 700, 2, 2, 66, false,
                 kNoWindow, 6, 0},
        Sm80Case{"step_class6_causal_padded_d84", DType::bfloat16, 1, 700, 700, 3, 1, 84, true,
                 kNoWindow, 4, 0},
        // Class 6's dQ product on 4 query x 2 head-dim warps (ClassDqQueryWarps: 16 x 48 warp
        // tiles, the periodic line rounds' 12-chunk rows, both modes' tables): GQA in the NoMask
        // and the causal kernel, a window; last query tiles of 40 rows (query warps 2 and 3 in
        // part and not at all) and of 10 (warp 0 in part: its second 8-row round cut).
        Sm80Case{"class6_dq_warps_nomask_gqa_d88", DType::float16, 2, 1000, 700, 4, 2, 88, false,
                 kNoWindow, 0, 0},
        Sm80Case{"class6_dq_warps_causal_gqa_d96", DType::float16, 1, 650, 650, 4, 1, 96, true,
                 kNoWindow, 0, 0},
        Sm80Case{"class6_dq_warps_window_gqa_d96", DType::bfloat16, 1, 1000, 800, 6, 2, 96, false,
                 Window{200, 50}, 0, 0},
        // The 256 bucket's dQ step classes (DqStepClasses with ClassDqChunkTests, the default
        // mode of Hopper's table): 13 steps (D = 200: the last slice's product 1 of 4 steps, its
        // REDG.128 by the first 4 of 16 chunks) and 14 (D = 216, causal, GQA), whole and partial
        // query tiles.
        Sm80Case{"dq_class13_nomask_d200", DType::float16, 1, 1000, 520, 2, 2, 200, false,
                 kNoWindow, 0, 0},
        Sm80Case{"dq_class14_causal_gqa_d216", DType::bfloat16, 1, 700, 700, 4, 2, 216, true,
                 kNoWindow, 0, 0},
        Sm80Case{"steps7_nomask_gqa_d112", DType::float16, 2, 700, 900, 4, 2, 112, false,
                 kNoWindow, 0, 0},
        Sm80Case{"steps7_causal_negative_scale_d104", DType::bfloat16, 1, 600, 450, 2, 2,
                 104, true, kNoWindow, 0, -0.08f},
        Sm80Case{"strided_window_d256", DType::bfloat16, 1, 520, 600, 2, 2, 256, false,
                 Window{100, 30}, 0, 0},
        // v6 at 256: strided item copies in the NoMask kernel (UnmaskedStridedItemLoads), each
        // product's first k-step from a zero C (ZeroStartAccumulators), and on a device with
        // Hopper's shared memory the two-stage tile (LargeSharedMemoryBackwardConfig): whole
        // query tiles, then a partial last one, fp16.
        Sm80Case{"strided_nomask_d256", DType::float16, 2, 900, 520, 2, 2, 256, false, kNoWindow,
                 0, 0},
        // The deterministic mode at 256 on Hopper-sized shared memory (v8's dQ-first kernel
        // until v13; the table's DqReductionsByLine kernel since): causal (descending order)
        // with odd N, GQA 4 -> 2, many key tiles per query tile, a partial last query tile.
        Sm80Case{"deterministic_causal_gqa_d256_odd", DType::bfloat16, 1, 1013, 1013, 4, 2, 256,
                 true, kNoWindow, 0, 0},
        // v13 at 128 (on a device with Hopper's shared memory): the dQ reductions by whole
        // accumulator lines through each warp's staging tile (DqReductionsByLine), whole query
        // tiles and a partial last one whose 53 rows end inside a REDG.128's 4 rows (per-lane
        // row tests), GQA; and causal fp16.
        Sm80Case{"lines_nomask_gqa_d128_odd", DType::bfloat16, 2, 1013, 777, 4, 2, 128, false,
                 kNoWindow, 0, 0},
        // v15 causal options: KeyTilesSlowestInHeadGroups (128) over 9 (KV head, batch) pairs
        // (two groups of 4 and one of 1), GQA 2, Nq < Nk; WarpSearchedQueryRange (128, 256)
        // past the first 32 query tiles and under a two-sided window.
        Sm80Case{"head_groups_causal_gqa_d128", DType::bfloat16, 3, 700, 900, 6, 3, 128, true,
                 kNoWindow, 0, 0},
        Sm80Case{"range_search_causal_d256", DType::float16, 1, 2500, 2300, 2, 2, 256, true,
                 kNoWindow, 0, 0},
        Sm80Case{"range_search_window_d128", DType::bfloat16, 2, 2200, 2200, 2, 1, 128, false,
                 Window{300, 200}, 0, 0},
        Sm80Case{"lines_causal_d128", DType::float16, 1, 1100, 1100, 2, 2, 128, true, kNoWindow,
                 0, 0},
        // v16: the deterministic mode's query tiles walked from the last down at 128 and 256
        // (QueryTilesDescending, ascending dQ order): strided copies stepping backwards from a
        // partial last query tile, Nq > Nk (fully masked rows, the walk ends above row 0);
        // head groups over 5 (KV head, batch) pairs at 256 with GQA; a window bounded on the left
        // only (not right-bounded: grid order, no head groups).
        Sm80Case{"descending_walk_causal_d128_odd", DType::bfloat16, 2, 1013, 900, 2, 2, 128,
                 true, kNoWindow, 0, 0},
        Sm80Case{"descending_walk_causal_gqa_d256", DType::float16, 5, 450, 600, 2, 1, 256, true,
                 kNoWindow, 0, 0},
        Sm80Case{"descending_walk_left_window_gqa_d128", DType::float16, 1, 1300, 1200, 4, 2, 128,
                 false, Window{250, kUnboundedWindow}, 0, 0},
        // s26-det: the deterministic tables' dQ chain with the hand-over at the next item's loop
        // top (DeferredDqHandOver; at 256 in the NoMask kernel then, past the 1k keys of
        // DeterministicUnmaskedBackward<256>): long chains (21 key tiles at 256, 12 at 128),
        // GQA (the previous item's counter recomputed across a head change), whole query tiles
        // then a partial last one; a two-sided window in the 128 bucket's class-5 kernel
        // (D = 80), GQA, Nq > Nk.
        Sm80Case{"burst_chain_nomask_gqa_d256", DType::bfloat16, 1, 700, 1300, 4, 2, 256, false,
                 kNoWindow, 0, 0},
        Sm80Case{"burst_chain_nomask_gqa_d128", DType::float16, 2, 1013, 1500, 4, 2, 128, false,
                 kNoWindow, 0, 0},
        Sm80Case{"burst_chain_window_d80", DType::bfloat16, 1, 900, 800, 4, 2, 80, false,
                 Window{200, 100}, 0, 0},
        // s26-det256: the hand-over at the next item's loop top in the 256 table's masked
        // kernel (DeferredDqHandOver with MaskedDqTurnSlot: thread 0 releases the counter that
        // it wrote into the shared-memory slot at the previous item's start): causal
        // (descending walk, ascending dQ order) with Nq < Nk, GQA 4 -> 2 (the slot across a
        // head change), 2 batches (head groups over 4 pairs), up to 18 key tiles per query
        // tile; a two-sided window with GQA 6 -> 2, Nq > Nk (fully masked rows), ~10 key tiles
        // per query tile; whole query tiles then a partial last one in both.
        Sm80Case{"burst_chain_causal_gqa_d256", DType::float16, 2, 900, 1100, 4, 2, 256, true,
                 kNoWindow, 0, 0},
        Sm80Case{"burst_chain_window_gqa_d256", DType::bfloat16, 1, 1100, 1000, 6, 2, 256, false,
                 Window{400, 150}, 0, 0},
        // s27-det256: the 256 table's NoMask kernel with the turn taken before the dQ product
        // (UnmaskedDqTurnBeforeDqProduct, sm_90a: warp 0 polls and arrives on the mbarrier, the
        // other warps wait on its phase; thread 0 hands over the counter that its poll wrote into
        // the slot), fp16 beside burst_chain_nomask_gqa_d256's bf16: past the 1k keys of
        // DeterministicUnmaskedBackward<256> (18 key tiles per query tile), GQA 6 -> 2 (the slot
        // across head changes), 2 batches, 16 query tiles per head, the last one partial (53
        // rows), so 48 items per CTA: the wait's parity over many phases.
        Sm80Case{"turn_before_dq_nomask_gqa_d256_odd", DType::float16, 2, 1013, 1100, 6, 2, 256,
                 false, kNoWindow, 0, 0},
        // The same in the table's WindowMask kernel (MaskedDqTurnBeforeDqProduct: warp 0 polls
        // the counter and turn from MaskedDqTurnSlot's slot): causal bf16, GQA 4 -> 2, 3 batches
        // (head groups over 6 pairs), Nq < Nk with a partial last query tile: 21 key tiles, each
        // CTA's turn its key tile (0-20; at turn 0 the other warps skip the wait, warp 0 still
        // arrives); burst_chain_window_gqa_d256 has turns that change from item to item.
        Sm80Case{"turn_before_dq_causal_gqa_d256_odd", DType::bfloat16, 3, 1013, 1300, 4, 2, 256,
                 true, kNoWindow, 0, 0},
        // s28-bwd128mask: the default table's masked kernels at 128 (Hopper's shared memory)
        // test a partial tile's scores against the mask's band of diagonals (DiagonalBandMaskPass:
        // a per-thread offset plus a constant per score, the sequence end per key row). A band 9
        // diagonals wide inside one key tile, Nq > Nk (rows above the band fully masked), partial
        // last key and query tiles (389 = 3·128 + 5 keys, 517 = 8·64 + 5 rows), a negative scale
        // (the +inf that the signed exponent turns into p = 0); a window bounded on the right
        // only (lowest diagonal INT_MIN), Nq < Nk, GQA 4 -> 2; a narrow left window in the
        // class-6 kernel (D = 88) with Nq < Nk.
        Sm80Case{"band_pass_narrow_window_negative_scale_d128", DType::bfloat16, 1, 517, 389, 2,
                 2, 128, false, Window{5, 3}, 0, -0.06f},
        Sm80Case{"band_pass_right_window_gqa_d128", DType::float16, 2, 300, 700, 4, 2, 128, false,
                 Window{kUnboundedWindow, 40}, 0, 0},
        Sm80Case{"band_pass_left_window_step_class6_d88", DType::bfloat16, 1, 450, 600, 2, 2, 88,
                 false, Window{20, 0}, 0, 0},
        // The same pass in the 256 deterministic table's WindowMask kernel: a band 9 diagonals
        // wide, Nq < Nk, partial last key and query tiles, a negative scale.
        Sm80Case{"band_pass_narrow_window_negative_scale_d256", DType::float16, 1, 389, 517, 2, 2,
                 256, false, Window{3, 5}, 0, -0.05f}),
    [](const ::testing::TestParamInfo<Sm80Case>& info) { return std::string(info.param.name); });

// Backward v37: 16-byte rows of a head dim short of the 128 or 256 bucket run the bucket's
// full-width kernel over zero-filled columns, in both modes (the deterministic tables' kernels
// too): D = 72 causal with GQA (Nq > Nk: fully masked rows), D = 104 unmasked with a partial last
// query tile, D = 200 with a window and a negative scale, D = 232 causal bf16.
INSTANTIATE_TEST_SUITE_P(
    FullWidthOverZeros, Sm80Backward,
    ::testing::Values(
        Sm80Case{"d72_causal_gqa", DType::float16, 1, 600, 450, 4, 2, 72, true, kNoWindow, 0, 0},
        Sm80Case{"d104_nomask_partial_tile", DType::bfloat16, 2, 1013, 700, 2, 2, 104, false,
                 kNoWindow, 0, 0},
        Sm80Case{"d200_window_negative_scale", DType::float16, 1, 333, 500, 2, 2, 200, false,
                 Window{64, 16}, 0, -0.08f},
        Sm80Case{"d232_causal", DType::bfloat16, 1, 300, 300, 2, 2, 232, true, kNoWindow, 0,
                 0}),
    [](const ::testing::TestParamInfo<Sm80Case>& info) { return std::string(info.param.name); });

// Backward v39: the 192 bucket's lean full-width kernel (packed Pᵀ, lean loop, rolled phase B
// with the five-register Q / dO address, strided copies, one-address dQ atomics) where the head
// dim fills the bucket, in both modes: D = 192 unmasked with a partial last query and key tile,
// causal with GQA (no strided copies, Nq > Nk: fully masked rows), D = 184 (its last chunk
// zero-filled) under a window with a negative scale, D = 177 in rows padded to 16 bytes (not
// whole chunks: no strided copies) causal with Nq < Nk, D = 176 causal over many query tiles.
// D = 160 / 144 / 136 run the general kernel (or, where min_head_dim_over_zeros takes them,
// the full-width one over zero-filled columns): a window with GQA, unmasked partial tiles,
// causal.
// Backward v41: on a device with Hopper's shared memory the full-width kernel is
// LargeSharedMemoryBackwardConfig<192>'s, whose dQ leaves by DqPeriodicLineRounds (8-row rounds,
// REDG.128 over 32 consecutive chunks of 2-3 rows): the last query tile's rows per query warp
// (32 rows each) end inside a round's first load (645 = 10·64 + 5: warp 0 keeps 5 rows, warp 1
// none; a window with GQA, bf16), at a round's end (1000: 40 rows, warp 1 one round, GQA 3 over
// zero-filled columns at D = 152, a partial key tile), mid-round (1013: 53, 1100: 12) and at a
// round's end of warp 0 (600: 24), in both modes.
INSTANTIATE_TEST_SUITE_P(
    Bucket192, Sm80Backward,
    ::testing::Values(
        Sm80Case{"d192_nomask_partial_tiles", DType::bfloat16, 2, 1013, 700, 2, 2, 192, false,
                 kNoWindow, 0, 0},
        Sm80Case{"d192_causal_gqa_fully_masked_rows", DType::float16, 1, 600, 450, 4, 2, 192,
                 true, kNoWindow, 0, 0},
        Sm80Case{"d184_window_negative_scale", DType::float16, 1, 333, 500, 2, 2, 184, false,
                 Window{64, 16}, 0, -0.08f},
        Sm80Case{"d177_rows16_causal_more_keys", DType::bfloat16, 1, 300, 517, 2, 2, 177, true,
                 kNoWindow, 7, 0},
        Sm80Case{"d176_causal", DType::float16, 1, 1100, 1100, 2, 2, 176, true, kNoWindow, 0, 0},
        Sm80Case{"d160_window_gqa", DType::bfloat16, 2, 700, 900, 4, 2, 160, false,
                 Window{300, 200}, 0, 0},
        Sm80Case{"d144_nomask_partial_tiles", DType::float16, 2, 1013, 520, 2, 2, 144, false,
                 kNoWindow, 0, 0},
        Sm80Case{"d136_causal", DType::bfloat16, 1, 1013, 900, 2, 2, 136, true, kNoWindow, 0,
                 0},
        Sm80Case{"d192_lines_window_gqa_5_rows_left", DType::bfloat16, 1, 645, 700, 4, 2, 192,
                 false, Window{150, 40}, 0, 0},
        Sm80Case{"d152_lines_nomask_gqa_round_end", DType::float16, 1, 1000, 333, 6, 2, 152,
                 false, kNoWindow, 0, 0}),
    [](const ::testing::TestParamInfo<Sm80Case>& info) { return std::string(info.param.name); });

// Backward v36's shifted windows (backward_windows.cuh, uses_backward_windows in backward.cuh):
// packed tensors of 8 heads (row strides of whole 16-byte words) with rows off 16-byte words, no
// GQA group. D = 129 and 201 are 1 mod 8, so head h starts h elements into its word: every shift
// 0..7; D = 74 and 130 (rows 4-byte aligned: shifts 0, 2, 4, 6), D = 76 (8-byte: 0, 4). Every
// bucket: 64 (D = 33), 128 (74, 89, and 121 whose window fills the bucket), 192 (129, 130,
// 135), 256 (201, and 249 whose window fills it); partial first and last tiles (N = 17, 257,
// 1013), one query row, causal with Nq > Nk (fully masked rows) and Nq < Nk, windows, a
// negative scale. GQA keeps the 16-bit copies (the last case). Backward v38 runs the windows of
// the 128 and 256 buckets in their full-width (lean) kernels; the cases after the GQA one aim at
// that kernel's own paths: the NoMask kernels (strided copies and the staged epilogue off for
// windows) with partial last query tiles, the lean loop's signed exponent with a masked diagonal,
// the two-stage tile at 256, a window; and D = 45 / 161 in the 64 and 192 buckets.
INSTANTIATE_TEST_SUITE_P(
    ShiftedWindows, Sm80Backward,
    ::testing::Values(
        Sm80Case{"windows_d129_shifts_0_to_7", DType::bfloat16, 2, 257, 1013, 8, 8, 129, false,
                 kNoWindow, 0, 0},
        Sm80Case{"windows_d74_rows4_causal_fully_masked_rows", DType::float16, 1, 1013, 700, 8,
                 8, 74, true, kNoWindow, 0, 0},
        Sm80Case{"windows_d89_causal_more_keys", DType::bfloat16, 1, 300, 517, 8, 8, 89, true,
                 kNoWindow, 0, 0},
        Sm80Case{"windows_d121_full_bucket", DType::float16, 1, 257, 300, 8, 8, 121, false,
                 kNoWindow, 0, 0},
        Sm80Case{"windows_d33_causal", DType::float16, 2, 300, 300, 8, 8, 33, true, kNoWindow, 0,
                 0},
        Sm80Case{"windows_d76_rows8_one_query_17_keys", DType::bfloat16, 2, 1, 17, 8, 8, 76,
                 false, kNoWindow, 0, 0},
        Sm80Case{"windows_d130_rows4_window", DType::float16, 1, 600, 700, 8, 8, 130, false,
                 Window{200, 50}, 0, 0},
        Sm80Case{"windows_d135_17_queries", DType::bfloat16, 1, 17, 1013, 8, 8, 135, false,
                 kNoWindow, 0, 0},
        Sm80Case{"windows_d201_window_negative_scale", DType::bfloat16, 1, 130, 200, 8, 8, 201,
                 false, Window{64, 16}, 0, -0.08f},
        Sm80Case{"windows_d249_full_bucket_causal", DType::float16, 1, 300, 300, 8, 8, 249, true,
                 kNoWindow, 0, 0},
        Sm80Case{"gqa_d129_packed_keeps_16_bit_copies", DType::float16, 1, 300, 300, 16, 8, 129,
                 true, kNoWindow, 0, 0},
        Sm80Case{"windows_d90_rows4_nomask_partial_tiles", DType::bfloat16, 2, 1013, 700, 8, 8,
                 90, false, kNoWindow, 0, 0},
        Sm80Case{"windows_d75_negative_scale_causal", DType::float16, 1, 300, 200, 8, 8, 75, true,
                 kNoWindow, 0, -0.07f},
        Sm80Case{"windows_d236_rows8_nomask", DType::float16, 1, 900, 520, 8, 8, 236, false,
                 kNoWindow, 0, 0},
        Sm80Case{"windows_d217_window", DType::bfloat16, 1, 600, 520, 8, 8, 217, false,
                 Window{100, 30}, 0, 0},
        Sm80Case{"windows_d45_nomask_partial_tiles", DType::float16, 1, 1013, 300, 8, 8, 45,
                 false, kNoWindow, 0, 0},
        Sm80Case{"windows_d161_causal", DType::bfloat16, 1, 700, 700, 8, 8, 161, true, kNoWindow,
                 0, 0}),
    [](const ::testing::TestParamInfo<Sm80Case>& info) { return std::string(info.param.name); });

// FusedDqConversion (backward_tile_config.hpp, backward_dq_tickets.cuh): in the default mode the
// NoMask full-width kernels of Hopper's 128 table (D = 65..128 on 16-byte rows, step classes
// included) convert dQ themselves (the last key-tile CTA of each query tile), without the
// postprocess, where the head group has at most 16 query tiles and rows are whole 16-byte
// chunks. dQ is poisoned before each run, so a query tile that no CTA converts fails. One query
// row, 17 with GQA (one partial tile), 1013 rows (16 tiles, the last 53 rows), GQA 4 -> 1 (a CTA
// converts tiles of four query heads), head dims short of the bucket over zero-filled columns
// (104) and both step classes (72, 96), a negative scale. The rule's fallbacks keep the
// postprocess: masks (causal, a window; fused they measured x0.95-0.98, the last CTA of the
// diagonal walks the longest), more than 16 query tiles, the 64 and 256 tables, a partial last
// chunk (D = 124), and the deterministic runs of every case.
INSTANTIATE_TEST_SUITE_P(
    FusedDqConversion, Sm80Backward,
    ::testing::Values(
        Sm80Case{"fused_one_query_d128", DType::bfloat16, 2, 1, 300, 2, 2, 128, false,
                 kNoWindow, 0, 0},
        Sm80Case{"fused_17_queries_gqa_d128", DType::float16, 1, 17, 200, 4, 2, 128, false,
                 kNoWindow, 0, 0},
        Sm80Case{"fused_partial_tile_d128_odd", DType::float16, 2, 1013, 700, 2, 2, 128, false,
                 kNoWindow, 0, 0},
        Sm80Case{"fused_gqa4_d128", DType::bfloat16, 2, 250, 300, 8, 2, 128, false, kNoWindow, 0,
                 0},
        Sm80Case{"fused_over_zeros_d104", DType::bfloat16, 1, 700, 500, 2, 2, 104, false,
                 kNoWindow, 0, 0},
        Sm80Case{"fused_step_class5_d72", DType::float16, 1, 333, 400, 2, 2, 72, false,
                 kNoWindow, 0, 0},
        Sm80Case{"fused_step_class6_d96", DType::bfloat16, 1, 700, 700, 3, 3, 96, false,
                 kNoWindow, 0, 0},
        Sm80Case{"fused_negative_scale_d128", DType::float16, 1, 900, 900, 2, 2, 128, false,
                 kNoWindow, 0, -0.1f},
        Sm80Case{"fallback_causal_gqa_d128", DType::bfloat16, 2, 250, 300, 8, 2, 128, true,
                 kNoWindow, 0, 0},
        Sm80Case{"fallback_window_d128", DType::float16, 1, 500, 500, 2, 2, 128, false,
                 Window{64, 16}, 0, 0},
        Sm80Case{"fallback_causal_more_queries_d128", DType::bfloat16, 1, 600, 450, 2, 2, 128,
                 true, kNoWindow, 0, 0},
        Sm80Case{"fallback_many_tiles_d128", DType::float16, 1, 1100, 700, 2, 2, 128, false,
                 kNoWindow, 0, 0},
        Sm80Case{"fallback_table64_d64", DType::float16, 1, 900, 900, 2, 2, 64, false, kNoWindow,
                 0, -0.1f},
        Sm80Case{"fallback_table256_d256", DType::bfloat16, 1, 17, 200, 2, 2, 256, false,
                 kNoWindow, 0, 0},
        Sm80Case{"fallback_partial_chunk_d124", DType::float16, 1, 500, 500, 2, 2, 124, false,
                 kNoWindow, 4, 0}),
    [](const ::testing::TestParamInfo<Sm80Case>& info) { return std::string(info.param.name); });

// s29-bwdsmall: the small table (SmallSharedMemoryBackwardConfig, backward_small_tile_config.hpp)
// that launch_backward takes where the device's blocks may not take the base table's shared
// memory (148-163 KB; sm_86 / sm_89 cards allow 99 KB): each case's backward runs on the device
// as it is and capped to 99 KB (ScopedSharedMemoryCap), the forward uncapped. Under the cap the
// base, large and deterministic tables cannot launch (require_shared_bytes would refuse them), so
// a capped pass ran the small table's general kernel, in both modes. The buckets that have one
// (D = 8 and 64 at 64; 72 and 128 at 128; 129 and 192 at 192; 256 has none, the refusal test
// below), fp16 and bf16, causal with Nq > Nk (fully masked rows) and Nq < Nk, windows, GQA,
// N = 1 / 17 / 1013 (partial query and key tiles of the 64 x 128, 64 x 64 and 64 x 32 tiles), a
// negative scale; packed D = 129 in 8 heads, which takes the shifted windows on the device as it
// is and the general kernel's 16-bit copies under the cap, with and without GQA.
// s29-bwdlean: under the cap the small tiles' lean full-width kernels run the head dims that fill
// the bucket (64, 128, 192) and, with 16-byte rows, those from min_head_dim_over_zeros on (48 at
// 64; 72, 96 at 128; 136, 160 at 192), GQA or not (without GQA: the strided item copies), NoMask,
// causal and windows, and a negative scale; D = 8 and packed 129 stay on the general kernel.
class Sm80SmallSharedMemoryBackward : public Sm80Backward {};

TEST_P(Sm80SmallSharedMemoryBackward, SmallTableIsAccurateAndBitwiseDeterministic) {
  check_forward_and_backward(GetParam(), {0, detail::kConsumerAmpereSharedBytesPerBlock});
}

INSTANTIATE_TEST_SUITE_P(
    SmallSharedMemory, Sm80SmallSharedMemoryBackward,
    ::testing::Values(
        Sm80Case{"small_nomask_d8_one_query", DType::float16, 2, 1, 1013, 2, 2, 8, false,
                 kNoWindow, 0, 0},
        Sm80Case{"small_window_d8", DType::bfloat16, 1, 1013, 1013, 2, 2, 8, false,
                 Window{64, 16}, 0, 0},
        Sm80Case{"small_causal_d64_more_queries", DType::bfloat16, 1, 1013, 700, 2, 2, 64, true,
                 kNoWindow, 0, 0},
        Sm80Case{"small_nomask_gqa_d64_17_keys", DType::float16, 2, 300, 17, 4, 2, 64, false,
                 kNoWindow, 0, 0},
        Sm80Case{"small_causal_gqa_d72_more_keys", DType::float16, 1, 300, 1013, 4, 2, 72, true,
                 kNoWindow, 0, 0},
        Sm80Case{"small_window_d128", DType::bfloat16, 2, 1013, 1013, 2, 2, 128, false,
                 Window{200, 50}, 0, 0},
        Sm80Case{"small_nomask_gqa_d128_17_queries", DType::float16, 1, 17, 700, 6, 2, 128,
                 false, kNoWindow, 0, 0},
        Sm80Case{"small_causal_negative_scale_d128", DType::bfloat16, 1, 450, 300, 2, 2, 128,
                 true, kNoWindow, 0, -0.07f},
        Sm80Case{"small_packed_d129_windows_on_large_devices", DType::bfloat16, 2, 257, 1013, 8,
                 8, 129, false, kNoWindow, 0, 0},
        Sm80Case{"small_packed_causal_gqa_d129", DType::float16, 1, 300, 300, 16, 8, 129, true,
                 kNoWindow, 0, 0},
        Sm80Case{"small_causal_d192_more_queries", DType::float16, 1, 1013, 600, 2, 2, 192, true,
                 kNoWindow, 0, 0},
        Sm80Case{"small_window_gqa_d192", DType::bfloat16, 1, 700, 900, 4, 2, 192, false,
                 Window{300, 200}, 0, 0},
        Sm80Case{"small_causal_d192_17_queries_more_keys", DType::bfloat16, 2, 17, 1013, 2, 2,
                 192, true, kNoWindow, 0, 0},
        Sm80Case{"small_nomask_d136_17_keys", DType::float16, 2, 1013, 17, 2, 2, 136, false,
                 kNoWindow, 0, 0},
        Sm80Case{"small_nomask_d64", DType::bfloat16, 2, 1013, 700, 2, 2, 64, false, kNoWindow,
                 0, 0},
        Sm80Case{"small_window_d48_over_zeros", DType::float16, 1, 700, 1013, 2, 2, 48, false,
                 Window{100, 30}, 0, 0},
        Sm80Case{"small_nomask_d96_narrower_than_bucket", DType::bfloat16, 1, 1013, 1013, 2, 2, 96, false,
                 kNoWindow, 0, 0},
        Sm80Case{"small_nomask_d128", DType::float16, 2, 700, 1013, 2, 2, 128, false, kNoWindow,
                 0, 0},
        Sm80Case{"small_nomask_negative_scale_d192", DType::bfloat16, 1, 900, 700, 2, 2, 192,
                 false, kNoWindow, 0, -0.05f},
        Sm80Case{"small_causal_d160_narrower_than_bucket", DType::float16, 1, 1013, 1013, 2, 2, 160, true,
                 kNoWindow, 0, 0}),
    [](const ::testing::TestParamInfo<Sm80Case>& info) { return std::string(info.param.name); });

// The least shared memory the backward of each bucket runs in (smallest_backward_shared_bytes:
// the small table's, at 256 the base table's): capped to exactly that it runs, in both modes;
// one byte less and it is refused as unsupported, naming those bytes (launch_backward asks
// before its first launch; the selector, once it knows the limit, refuses first). D = 200 and
// 256 on a 99 KB card are refused that way.
TEST(Sm80SmallSharedMemory, BackwardRunsInItsLeastSharedMemoryAndIsRefusedBelowNamingIt) {
  if (const std::string reason = cuda_device_absent_reason(); !reason.empty()) GTEST_SKIP() << reason;
  if (!backend_compiled(Backend::cuda_sm80)) GTEST_SKIP() << "cuda_sm80 is not compiled";
  struct BucketCase {
    std::int64_t head_dim;
    int bucket;  // in a build of every bucket; a pruned build runs the smallest compiled above
  };
  for (BucketCase b : {BucketCase{64, 64}, BucketCase{128, 128}, BucketCase{192, 192},
                       BucketCase{200, 256}, BucketCase{256, 256}}) {
    SCOPED_TRACE("head_dim " + std::to_string(b.head_dim));
    const detail::KernelInstance* instance = detail::find_instance(
        detail::KernelFamily::sm80, Direction::backward, b.head_dim, DType::bfloat16);
    if (instance == nullptr) continue;  // pruned from this build
    b.bucket = instance->head_dim_bucket;
    const int least = detail::sm80::smallest_backward_shared_bytes(b.bucket);
    ASSERT_GT(least, 0);
    if (b.bucket == 256) EXPECT_GT(least, detail::kConsumerAmpereSharedBytesPerBlock);
    if (b.bucket != 256) EXPECT_LE(least, detail::kConsumerAmpereSharedBytesPerBlock);
    AttentionTensors t(DType::bfloat16, 1, 100, 130, 2, 2, b.head_dim, 7, 0);
    std::mt19937_64 rng(11);
    HostTensor dout = clone(t.out);
    fill_random(dout, rng);
    HostTensor dq = clone(t.q), dk = clone(t.k), dv = clone(t.v);
    Options options;
    options.causal = true;
    options.backend = Backend::cuda_sm80;
    DeviceBuffer q(t.q), k(t.k), v(t.v), out(t.out), lse(t.lse), d_out(dout);
    if (auto pruned = pruned_from_build(
            Backend::cuda_sm80, Problem::describe(q.view, k.view, options, Direction::backward))) {
      continue;
    }
    Status s = forward(q.view, k.view, v.view, out.view, lse.view, options);
    ASSERT_TRUE(s.ok()) << s.message();
    DeviceBuffer g_dq(dq), g_dk(dk), g_dv(dv);
    for (const bool deterministic : {false, true}) {
      options.deterministic = deterministic;
      {
        ScopedSharedMemoryCap capped(0, least);
        s = backward(q.view, k.view, v.view, out.view, d_out.view, lse.view, g_dq.view,
                     g_dk.view, g_dv.view, options);
        EXPECT_TRUE(s.ok()) << "capped to " << least << " bytes: " << s.message();
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      }
      ScopedSharedMemoryCap capped(0, least - 1);
      s = backward(q.view, k.view, v.view, out.view, d_out.view, lse.view, g_dq.view, g_dk.view,
                   g_dv.view, options);
      EXPECT_EQ(s.code(), StatusCode::unsupported) << s.message();
      EXPECT_NE(s.message().find(std::to_string(least)), std::string::npos) << s.message();
    }
  }
}

}  // namespace
}  // namespace fattn::testing
