// The ctypes entry points of bench/sm80_bwd_timeline.py: the sm80 backward's D = 64, 128 and 256
// bf16 launches (the table the library runs, src/cuda/instantiations/sm80_bwd_d*_bf16.cu, or a
// candidate tile of bench/sm80_bwd_variants.cu's numbering, fattn_sm80_bwd_timeline_variant), and,
// in a build with FATTN_SM80_BWD_TIMELINE (bench/sm80_bwd_timeline_build.sh), where the main
// kernel's phase stamps go (src/cuda/sm80/backward_timeline.cuh). The same file built without the
// macro is the uninstrumented control timed beside it. Built with FATTN_SM80_BWD_TIMELINE_ONLY_64
// (bench/sm80_bwd_timeline_build.sh with SM80_TIMELINE_ONLY_64=1), the shim holds the D = 64 table
// alone: this file instantiates every launch it names, and the 128/256 candidates are most of its
// compile time.
#include <cuda_bf16.h>

#include <cstdint>

#include "api/attention_args.hpp"
#include "cuda/sm80/backward.cuh"
#include "cuda/sm80/backward_timeline.cuh"
#include "cuda/sm80/launch.hpp"
#include "kernel_shim_common.hpp"

using fattn::detail::AttentionArgs;
using namespace fattn_shim;

namespace {
constexpr std::int64_t kStrideTriples = 8;  // q, k, v, out, dout, dq, dk, dv
constexpr int kTripleSize = 3;
// 0: the table; 90: the eighth session's candidates (bench/sm80_bwd_variants.cu 12890 / 25690;
// 25690 is the table at 256 since, 12890 the whole-slice form at 128, not taken).
constexpr int kLineReductionsVariant = 90;
// The eighth session's causal probe (h8-causal80; backward_tile_config.hpp), on the v13 table's
// tiles: 14 those tiles (the table before v15), 15 with WarpSearchedQueryRange, 16 with
// KeyTilesSlowestInHeadGroups, 17 with both (v15's table: 17 at 128, 15 at 256).
constexpr int kV13TableVariant = 14;
constexpr int kWarpSearchedRangeVariant = 15;
constexpr int kHeadGroupOrderVariant = 16;
constexpr int kBothCausalVariant = 17;
// The tenth session's candidate at 256 (h10-bwd80; backward_tile_config.hpp, v19) on the table's
// 256 tile: 191 LineStagingSwizzleSplit. 192 (DkProductAfterDqReductions) and 193 (both) were
// measured and removed (commit 1c9b5ad has them).
constexpr int kSplitSwizzleVariant = 191;
// The tenth session's second round (h10-bwd80b; v20): DqRoundsInDkSteps on the table's 256 tile
// with 2 (variant 202) or 1 (201) rounds ahead of dK; in the deterministic mode on the
// deterministic table's (head groups, descending walk). Measured 0.980-1.002 bwd / table, 202's
// deterministic mode +2.9 % at 16k causal (bench/results/sm80-bwd-h100-2026-11-23-s10b).
constexpr int kRoundsInDkOneAheadVariant = 201;
constexpr int kRoundsInDkTwoAheadVariant = 202;
// The eleventh session's candidates (h11-bwd80; backward_tile_config.hpp, v21) at 128: 211
// DqBulkReductions and 212 with StagedEpilogue were measured and removed (commit 424beb5 has
// them); 213 StagedEpilogue is the table's since v21.
// Retired (commit 62e6a58 has them), measured and the tables' kernels since: 214
// ZeroStartAccumulators on the 128 table (v22); 221 StagedEpilogue at 64 and 256 (h11-bwd80b,
// v22); 231 the deterministic tables' NoMask kernels staged (h12-bwd80b, v23; at 256 with the
// masked kernels v25 replaced); 251 the deterministic 256 table's staged epilogue in every
// kernel with MaskedPerItemPhaseBAddresses (h12-bwd80d, v25). Variant 0 runs the kernels they
// became; the call scripts of bench/results/sm80-bwd-h100-2026-11-23-s12b and -s12d that name
// them need that commit's shim.
// The twelfth session's third round (h12-bwd80c): the deterministic NoMask launches with the key
// tile slowest in head groups (DeterministicUnmaskedHeadGroups) of 16 (variant 241) or 32 (242)
// pairs: at 64 on the table's kernel in both modes (its deterministic mode is a flag of that
// kernel), at 128 and 256 on the deterministic tables in the deterministic mode (the table in the
// default mode). Non-causal, full width only (the NoMask kernels alone are compiled for them).
// Measured (bench/results/sm80-bwd-h100-2026-11-23-s12c/NOTES.md): the library's deterministic
// NoMask launches run 241's kernels since at 64 (N <= 4k) and 256 (N <= 1k), and the table's
// kernels otherwise (DeterministicUnmaskedBackward), so variant 0 runs them there too.
constexpr int kUnmaskedGroups16Variant = 241;
constexpr int kUnmaskedGroups32Variant = 242;
// The thirteenth session's variants (h13-bwd80; bench/results/sm80-bwd-h100-2026-11-23-s13/
// NOTES.md) 261 StaggeredDqReductions at 256, 262 SpreadReductionsWholeTiles at 64 and 263
// StaggeredDqReductions at 128 were measured (0.94-0.99x the table) and removed with their
// options (commit 258cc20 has them).
// The thirteenth session's second round (h13-bwd80b; bench/results/sm80-bwd-h100-2026-11-23-s13b/
// NOTES.md): 271, MaskedStridedItemLoads on the 256 tables' masked launches, measured and the
// tables' kernels since (v27; commit e3b348b has the variant). Variant 0 runs those kernels.
// The third round (h13-bwd80c; bench/results/sm80-bwd-h100-2026-11-23-s13c/NOTES.md): 281, the
// 256 tables' masked launches with MaskedItemSourcesInSharedMemory, measured 1.000-1.008x the
// tables and removed with the option (commit 4384845 has both).
// The fourteenth session (h14-bwd80; bench/results/sm80-bwd-h100-2026-11-23-s14/NOTES.md): 291 /
// 292, ScoreStatisticsAhead one / two query tiles ahead on the 64 table (default mode; the
// deterministic mode runs the table).
constexpr int kStatisticsAheadVariant = 291;
constexpr int kStatisticsTwoAheadVariant = 292;
// The fourteenth session's second round (h14-bwd80b; bench/results/sm80-bwd-h100-2026-11-23-s14b/
// NOTES.md): ScoreStatisticsAhead on the 128 tables (301 one, 302 two query tiles ahead) and, with
// ScorePassesByQueryTile, on the 256 tables (303, one ahead), in both modes (the deterministic
// mode on the deterministic tables). Measured (v30): 301 is the 128 tables' since (variant 0 runs
// it; 301 / 302 now wrap those tables again, the outer count wins); 303 spills 8 bytes in its NoMask
// kernels. A build with FATTN_SM80_BWD_TIMELINE_AHEAD_ONLY
// (bench/sm80_bwd_timeline_build.sh with SM80_TIMELINE_AHEAD_ONLY=1) holds the tables, these and
// 311-312 below.
constexpr int kAhead128Variant = 301;
constexpr int kTwoAhead128Variant = 302;
constexpr int kAhead256Variant = 303;
// The fifteenth session (h15-bwd80; bench/results/sm80-bwd-h100-2026-11-23-s15/NOTES.md): 303
// without its NoMask spill, ScoreStatisticsAhead with ScorePassesByQueryTile on the 256 tables
// reading ahead in both passes of the masked kernels and in the exponent pass alone of the NoMask
// kernels (AheadPasses::exponent; the dSᵀ pass alone spilled 12 bytes there), one (311) or two
// (312) query tiles ahead; the deterministic NoMask launches of few keys with the library's
// head groups (DeterministicUnmaskedBackward<256>) on that table. Measured (v31): 311 is the 256
// tables' since (variant 0 runs it; 311 / 312 now wrap those tables again, the outer count wins).
constexpr int kExponentAhead256Variant = 311;
constexpr int kExponentTwoAhead256Variant = 312;
// The seventeenth session (h17-bwd256; bench/results/sm80-bwd-h100-2026-11-23-s17/NOTES.md): 171,
// DqStagingPairSwizzle (the dQ line staging without its STS.64 bank conflict) on the 256 tables,
// launch_backward<256>'s choice (the deterministic NoMask launches of few keys with the library's
// head groups); 172 the same with LineStagingSwizzleSplit (the staging offsets as a lane base
// XOR an immediate). In the AHEAD_ONLY build too. Measured (v32): 172 1.014-1.045x the tables
// (geomean 1.023), 171 0.999-1.021x; 172 is the 256 tables' since (variant 0 runs it; 171 / 172 now
// wrap those tables again, which changes nothing: the options are already there).
constexpr int kPairSwizzle256Variant = 171;
constexpr int kPairSwizzleSplit256Variant = 172;
// The seventeenth session, third round (h17-bwd128swz; bench/results/sm80-bwd-h100-2026-11-23-
// s17c/NOTES.md): 181 / 182, the same options on the 128 tables (rows of 8 chunks: XOR
// (2·row) % 8), both modes; 181 the pair swizzle alone, 182 with the split offsets. Measured
// (v35): 182 1.013-1.025x the tables (geomean 1.018), 181 1.003-1.024x; 182 is the 128 tables'
// since d9fa96c (variant 0 runs it; 181 / 182 then wrap those tables again, which changes nothing).
constexpr int kPairSwizzle128Variant = 181;
constexpr int kPairSwizzleSplit128Variant = 182;
// The seventeenth session (h17-det64; bench/results/sm80-det-h100-2026-11-23-s17/NOTES.md), the
// deterministic NoMask launches at 64: 320 runs the kernel the library ran there before v33
// (DeterministicUnmaskedHeadGroups of 16 pairs, N <= 4k; the table beyond), i.e. the baseline
// beside variant 0's launch_backward (v33: OrderedDqAtomicsInPhaseB on it); 321 runs v33's kernel
// at every N up to 16k (measured as the threshold, the library's since: 321 = variant 0), 322 /
// 323 the same with head groups of 8 / 4 pairs instead of 16. Default mode and masks: the table.
constexpr int kHeadDetUnmasked64Variant = 320;
constexpr int kOrderedDqEveryN64Variant = 321;
constexpr int kOrderedDqGroups8Variant = 322;
constexpr int kOrderedDqGroups4Variant = 323;
// The seventeenth session's second round (h17-detmask64; bench/results/sm80-det-h100-2026-11-23-
// s17b/NOTES.md): 330 runs the deterministic masked launches at 64 on the table's kernel (v8's
// order, what the library ran there before v34), i.e. the baseline beside variant 0's
// launch_backward (v34: DeterministicMaskedBackward<64>, OrderedDqAtomicsInPhaseB on the table's
// tile). Default mode and NoMask: launch_backward<64> (variant 0's kernels). Measured (v34):
// variant 0 +5.1 / +8.7 / +9.3 % over 330 at N = 1k / 4k / 16k causal.
constexpr int kTableDetMasked64Variant = 330;
namespace sm80 = fattn::detail::sm80;
template <class Config>
using NoOption = Config;
template <class Config>
using HeadGroupOrder = sm80::KeyTilesSlowestInHeadGroups<Config, sm80::kCausalHeadGroupPairs>;
template <class Config>
using BothCausalOptions = sm80::WarpSearchedQueryRange<HeadGroupOrder<Config>>;
// The v13 table's tile of the head dim's bucket with the option.
template <template <class> class Option>
fattn::Status launch_with_option(const AttentionArgs& args) {
  using E = __nv_bfloat16;
  constexpr std::int64_t kBucket128 = 128;
  return args.problem.head_dim <= kBucket128
             ? sm80::launch_backward_with<Option<sm80::LineReductionsTile128>, E>(args)
             : sm80::launch_backward_with<Option<sm80::LineReductionsTile256>, E>(args);
}
// DqRoundsInDkSteps (variants 201, 202) in both modes.
template <int kRoundsAhead>
fattn::Status launch_rounds_in_dk(const AttentionArgs& args) {
  using E = __nv_bfloat16;
  using RoundsInDk =
      sm80::DqRoundsInDkSteps<sm80::LargeSharedMemoryBackwardConfig<256>, kRoundsAhead>;
  using DeterministicRoundsInDk = sm80::QueryTilesDescending<
      sm80::KeyTilesSlowestInHeadGroups<RoundsInDk, sm80::kCausalHeadGroupPairs>>;
  return args.problem.options.deterministic
             ? sm80::launch_backward_with<DeterministicRoundsInDk, E>(args)
             : sm80::launch_backward_with<RoundsInDk, E>(args);
}
// A NoMask-only configuration (launch_backward_with's kUnmaskedOnly, as the library launches
// DeterministicUnmaskedBackward), full width only: the kernel the variants measure.
template <class Config>
fattn::Status launch_unmasked(const AttentionArgs& args) {
  if (args.mask.kind != fattn::detail::MaskKind::none ||
      args.problem.head_dim != Config::kWidth) {
    return fattn::Status::Unsupported("variants 241/242: non-causal, full width only");
  }
  return sm80::launch_backward_with<Config, __nv_bfloat16, true>(args);
}
template <int kPairs>
fattn::Status launch_unmasked_groups(const AttentionArgs& args) {
  using E = __nv_bfloat16;
  constexpr std::int64_t kBucket64 = 64;
  constexpr std::int64_t kBucket128 = 128;
  const std::int64_t head_dim = args.problem.head_dim;
  if (head_dim <= kBucket64) {
    using Groups64 = sm80::DeterministicUnmaskedHeadGroups<sm80::BackwardConfig<64>, kPairs>;
    return launch_unmasked<Groups64>(args);
  }
  if (!args.problem.options.deterministic) {
    return head_dim <= kBucket128 ? sm80::launch_backward<128, E>(args)
                                  : sm80::launch_backward<256, E>(args);
  }
  using Det128 = sm80::LargeSharedMemoryDeterministicBackward<128>::type;
  using Det256 = sm80::LargeSharedMemoryDeterministicBackward<256>::type;
  return head_dim <= kBucket128
             ? launch_unmasked<sm80::DeterministicUnmaskedHeadGroups<Det128, kPairs>>(args)
             : launch_unmasked<sm80::DeterministicUnmaskedHeadGroups<Det256, kPairs>>(args);
}
constexpr int kPairs16 = 16;
constexpr int kPairs32 = 32;
int variant = 0;

#ifndef FATTN_SM80_BWD_TIMELINE_ONLY_64
// Variants 301-303: the option on the table of the mode (default or deterministic).
template <template <class> class Option, int kBucket>
fattn::Status launch_tables_with(const AttentionArgs& args) {
  using E = __nv_bfloat16;
  using Default = Option<sm80::LargeSharedMemoryBackwardConfig<kBucket>>;
  using Deterministic = Option<typename sm80::LargeSharedMemoryDeterministicBackward<kBucket>::type>;
  return args.problem.options.deterministic ? sm80::launch_backward_with<Deterministic, E>(args)
                                            : sm80::launch_backward_with<Default, E>(args);
}
template <class Config>
using OneAhead = sm80::ScoreStatisticsAhead<Config, 1>;
template <class Config>
using TwoAhead = sm80::ScoreStatisticsAhead<Config, 2>;
template <class Config>
using PassesOneAhead = sm80::ScoreStatisticsAhead<sm80::ScorePassesByQueryTile<Config>, 1>;
template <int kAhead>
struct UnmaskedExponentAhead {
  template <class Config>
  using Option = sm80::ScoreStatisticsAhead<sm80::ScorePassesByQueryTile<Config>, kAhead,
                                            sm80::AheadPasses::exponent>;
};
// Variants 311 / 312: launch_backward<256>'s choice on the 256 tables with the option.
template <int kAhead>
fattn::Status launch_exponent_ahead_256(const AttentionArgs& args) {
  using Deterministic = typename UnmaskedExponentAhead<kAhead>::template Option<
      sm80::LargeSharedMemoryDeterministicBackward<256>::type>;
  using Unmasked =
      sm80::DeterministicUnmaskedHeadGroups<Deterministic, sm80::kUnmaskedHeadGroupPairs>;
  if (args.problem.options.deterministic && args.mask.kind == fattn::detail::MaskKind::none &&
      args.problem.seqlen_k <= sm80::DeterministicUnmaskedBackward<256>::kMaxKeys) {
    return sm80::launch_backward_with<Unmasked, __nv_bfloat16, true>(args);
  }
  return launch_tables_with<UnmaskedExponentAhead<kAhead>::template Option, 256>(args);
}
// Variants 171 / 172: launch_backward<256>'s choice on the 256 tables with the option.
template <class Config>
using PairSwizzleSplit = sm80::LineStagingSwizzleSplit<sm80::DqStagingPairSwizzle<Config>>;
template <template <class> class Option>
fattn::Status launch_pair_swizzle_256(const AttentionArgs& args) {
  using Deterministic = Option<sm80::LargeSharedMemoryDeterministicBackward<256>::type>;
  using Unmasked =
      sm80::DeterministicUnmaskedHeadGroups<Deterministic, sm80::kUnmaskedHeadGroupPairs>;
  if (args.problem.options.deterministic && args.mask.kind == fattn::detail::MaskKind::none &&
      args.problem.seqlen_k <= sm80::DeterministicUnmaskedBackward<256>::kMaxKeys) {
    return sm80::launch_backward_with<Unmasked, __nv_bfloat16, true>(args);
  }
  return launch_tables_with<Option, 256>(args);
}
#endif

fattn::Status launch(const AttentionArgs& args) {
  using E = __nv_bfloat16;
  const std::int64_t head_dim = args.problem.head_dim;
  constexpr std::int64_t kBucket64 = 64;
#if !defined(FATTN_SM80_BWD_TIMELINE_ONLY_64) && !defined(FATTN_SM80_BWD_TIMELINE_AHEAD_ONLY)
  if (variant == kUnmaskedGroups16Variant) return launch_unmasked_groups<kPairs16>(args);
  if (variant == kUnmaskedGroups32Variant) return launch_unmasked_groups<kPairs32>(args);
#endif
  if (head_dim <= kBucket64) {
    // The ninth session's variant 641 (ScorePassesByQueryTile) is the table's tile since v17.
    if (!args.problem.options.deterministic) {
      constexpr int kOne = 1;
      constexpr int kTwo = 2;
      using Ahead1 = sm80::ScoreStatisticsAhead<sm80::BackwardConfig<64>, kOne>;
      using Ahead2 = sm80::ScoreStatisticsAhead<sm80::BackwardConfig<64>, kTwo>;
      if (variant == kStatisticsAheadVariant) return sm80::launch_backward_with<Ahead1, E>(args);
      if (variant == kStatisticsTwoAheadVariant) {
        return sm80::launch_backward_with<Ahead2, E>(args);
      }
    }
    if (variant == kHeadDetUnmasked64Variant || variant == kOrderedDqEveryN64Variant ||
        variant == kOrderedDqGroups8Variant || variant == kOrderedDqGroups4Variant) {
      using Head = sm80::DeterministicUnmaskedHeadGroups<sm80::BackwardConfig<64>,
                                                         sm80::kUnmaskedHeadGroupPairs>;
      using Ordered = sm80::DeterministicUnmaskedBackward<64>::type;
      constexpr int kPairs8 = 8;
      constexpr int kPairs4 = 4;
      using Ordered8 = sm80::OrderedDqAtomicsInPhaseB<
          sm80::DeterministicUnmaskedHeadGroups<sm80::BackwardConfig<64>, kPairs8>>;
      using Ordered4 = sm80::OrderedDqAtomicsInPhaseB<
          sm80::DeterministicUnmaskedHeadGroups<sm80::BackwardConfig<64>, kPairs4>>;
      constexpr std::int64_t kHeadMaxKeys = 4096;
      constexpr std::int64_t kEveryMaxKeys = 16384;
      const bool head = variant == kHeadDetUnmasked64Variant;
      if (args.problem.options.deterministic && args.mask.kind == fattn::detail::MaskKind::none &&
          head_dim == kBucket64 &&
          args.problem.seqlen_k <= (head ? kHeadMaxKeys : kEveryMaxKeys)) {
        if (head) return launch_unmasked<Head>(args);
        if (variant == kOrderedDqGroups8Variant) return launch_unmasked<Ordered8>(args);
        if (variant == kOrderedDqGroups4Variant) return launch_unmasked<Ordered4>(args);
        return launch_unmasked<Ordered>(args);
      }
      return head ? sm80::launch_backward_with<sm80::BackwardConfig<64>, E>(args)
                  : sm80::launch_backward<64, E>(args);
    }
    if (variant == kTableDetMasked64Variant) {
      if (args.problem.options.deterministic && args.mask.kind != fattn::detail::MaskKind::none) {
        return sm80::launch_backward_with<sm80::BackwardConfig<64>, E>(args);
      }
      return sm80::launch_backward<64, E>(args);
    }
    if (variant != 0) return fattn::Status::Unsupported("no such timeline variant at D <= 64");
    return sm80::launch_backward<64, E>(args);
  }
#ifdef FATTN_SM80_BWD_TIMELINE_ONLY_64
  return fattn::Status::Unsupported("this timeline shim was built for D <= 64 only");
#else
  if (head_dim > 128 && head_dim <= 192) {
    return fattn::Status::Unsupported("the timeline shim has bf16 D 1..128 and 193..256 only");
  }
  const bool bucket128 = head_dim <= 128;
  if (variant == kAhead128Variant || variant == kTwoAhead128Variant) {
    if (!bucket128) return fattn::Status::Unsupported("variants 301/302: D 65..128 only");
    return variant == kAhead128Variant ? launch_tables_with<OneAhead, 128>(args)
                                       : launch_tables_with<TwoAhead, 128>(args);
  }
  if (variant == kAhead256Variant) {
    if (bucket128) return fattn::Status::Unsupported("variant 303: D 193..256 only");
    return launch_tables_with<PassesOneAhead, 256>(args);
  }
  if (variant == kExponentAhead256Variant || variant == kExponentTwoAhead256Variant) {
    if (bucket128) return fattn::Status::Unsupported("variants 311/312: D 193..256 only");
    return variant == kExponentAhead256Variant ? launch_exponent_ahead_256<1>(args)
                                               : launch_exponent_ahead_256<2>(args);
  }
  if (variant == kPairSwizzle128Variant || variant == kPairSwizzleSplit128Variant) {
    if (!bucket128) return fattn::Status::Unsupported("variants 181/182: D 65..128 only");
    return variant == kPairSwizzle128Variant
               ? launch_tables_with<sm80::DqStagingPairSwizzle, 128>(args)
               : launch_tables_with<PairSwizzleSplit, 128>(args);
  }
  if (variant == kPairSwizzle256Variant || variant == kPairSwizzleSplit256Variant) {
    if (bucket128) return fattn::Status::Unsupported("variants 171/172: D 193..256 only");
    return variant == kPairSwizzle256Variant
               ? launch_pair_swizzle_256<sm80::DqStagingPairSwizzle>(args)
               : launch_pair_swizzle_256<PairSwizzleSplit>(args);
  }
#ifdef FATTN_SM80_BWD_TIMELINE_AHEAD_ONLY
  if (variant != 0) {
    return fattn::Status::Unsupported(
        "this shim holds the tables, 171-172, 181-182, 301-303 and 311-312");
  }
#else
  if (variant == kLineReductionsVariant) {
    return bucket128
               ? sm80::launch_backward_with<sm80::DqReductionsByLine<sm80::BackwardConfig<128>, 32>,
                                            E>(args)
               : sm80::launch_backward_with<
                     sm80::DqReductionsByLine<sm80::TwoStageBackwardTile256, 8>, E>(args);
  }
  if (variant == kV13TableVariant) return launch_with_option<NoOption>(args);
  if (variant == kWarpSearchedRangeVariant) {
    return launch_with_option<sm80::WarpSearchedQueryRange>(args);
  }
  if (!bucket128) {
    using Table256 = sm80::LargeSharedMemoryBackwardConfig<256>;
    if (variant == kSplitSwizzleVariant) {
      return sm80::launch_backward_with<sm80::LineStagingSwizzleSplit<Table256>, E>(args);
    }
    if (variant == kRoundsInDkOneAheadVariant) return launch_rounds_in_dk<1>(args);
    if (variant == kRoundsInDkTwoAheadVariant) return launch_rounds_in_dk<2>(args);
  }
  if (variant == kHeadGroupOrderVariant) return launch_with_option<HeadGroupOrder>(args);
  if (variant == kBothCausalVariant) return launch_with_option<BothCausalOptions>(args);
#endif
  return bucket128 ? sm80::launch_backward<128, E>(args) : sm80::launch_backward<256, E>(args);
#endif
}
}  // namespace

// Selects the backward of later calls: 0 = the table, else one of the variants above.
extern "C" void fattn_sm80_bwd_timeline_variant(int selected) { variant = selected; }

// Same arguments as bench/sm80_shim.cu's fattn_sm80_backward; bf16 only, head dims 1..128 and
// 193..256.
extern "C" int fattn_sm80_backward(void* q, void* k, void* v, void* out, void* dout, void* lse,
                                   void* dq, void* dk, void* dv, int dtype, std::int64_t batch,
                                   std::int64_t seqlen_q, std::int64_t seqlen_k,
                                   std::int64_t heads_q, std::int64_t heads_kv,
                                   std::int64_t head_dim, const std::int64_t* strides, float scale,
                                   int causal, int window_left, int window_right,
                                   int deterministic, void* stream, char* error, int error_bytes) {
  const fattn::DType type = dtype == 1 ? fattn::DType::bfloat16 : fattn::DType::float16;
  AttentionArgs args;
  describe(args, type, batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim, scale, causal,
           window_left, window_right, stream);
  args.problem.direction = fattn::Direction::backward;
  args.problem.options.deterministic = deterministic != 0;
  TensorView* views[kStrideTriples] = {&args.q, &args.out, &args.dout, &args.dq,
                                       &args.k, &args.v, &args.dk, &args.dv};
  void* data[kStrideTriples] = {q, out, dout, dq, k, v, dk, dv};
  // strides: triples in the order q, k, v, out, dout, dq, dk, dv
  const int triple_of[kStrideTriples] = {0, 3, 4, 5, 1, 2, 6, 7};
  for (int i = 0; i < kStrideTriples; ++i) {
    const bool query_side = i < 4;
    *views[i] = view4(data[i], type, batch, query_side ? seqlen_q : seqlen_k,
                      query_side ? heads_q : heads_kv, head_dim,
                      strides + kTripleSize * triple_of[i]);
  }
  args.lse = lse_view(lse, batch, heads_q, seqlen_q);
  args.problem.alignment_bytes = alignment_of(
      {&args.q, &args.k, &args.v, &args.out, &args.dout, &args.dq, &args.dk, &args.dv});
  const fattn::Status status = type == fattn::DType::bfloat16
                                   ? launch(args)
                                   : fattn::Status::Unsupported("the timeline shim has bf16 only");
  return finish(status, error, error_bytes);
}

// Words per warp track (backward_timeline.cuh) for `max_items` items, or 0 where this build
// records nothing.
extern "C" long long fattn_sm80_bwd_timeline_track_words(int max_items) {
#ifdef FATTN_SM80_BWD_TIMELINE
  namespace timeline = fattn::detail::sm80::backward_timeline;
  return timeline::kHeaderSlots + static_cast<long long>(max_items) * timeline::kItemStride;
#else
  (void)max_items;
  return 0;
#endif
}

// The stamp buffer of the following launches (32-bit words; warps x track words per CTA, the
// first `ctas` CTAs and `max_items` items record); stamps = null turns recording off. -1 in a
// build without it.
extern "C" int fattn_sm80_bwd_timeline_set(void* stamps, int ctas, int max_items) {
#ifdef FATTN_SM80_BWD_TIMELINE
  fattn::detail::sm80::backward_timeline::requested_buffer = {
      static_cast<std::uint32_t*>(stamps), ctas, max_items};
  return 0;
#else
  (void)stamps;
  (void)ctas;
  (void)max_items;
  return -1;
#endif
}
