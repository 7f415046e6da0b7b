// Tile alternatives for the odd head dims of the sm80 forward (tenth session, h10-odd80): the
// narrow kernels that run D = 65..96 (128 bucket), 129..144 (192) and 193..208 (256), bf16 only,
// measured against src/cuda/sm80/tile_config.hpp's NarrowForwardConfig in turns
// (bench/sm80_vs_torch.py --turns ... --turn-variants 20,...). Not part of the library; variants
// 20..29 of bench/sm80_variants.cu come here (a translation unit of their own, so the two
// compile in parallel). Numbers 21 and 23 were tiles that spill (see 20); 25 and 27 are the
// table's since v9.
//
// Why these shapes (bench/results/sm80-odd-h100-2026-11-23-s10/NOTES.md): the narrow 128 tile
// (64 keys x 4 warps x 2 row tiles) pays the per-tile work that does not shrink with the head dim
// (two barriers, the row max and its shuffles, the row statistics' shared-memory round trip, the
// copies' setup) on 64 keys, where the D = 64 kernel pays it on 128. More keys per tile need
// registers for S (kRowsPerWarp · kBlockN / 32 per thread): at 2 row tiles the D = 64 kernel holds
// S + O = 128 + 64 in 255 registers; 96 keys fit the 5-step class (96 + 80), not the 6-step one.
// Measured (call 1, bf16, variant / table): 20 0.967-0.976 (0.866 at N = 512), 22 0.854-0.869,
// 24 as 20 and 22, 25 1.072, 26 0.958, 27 1.112, 28 1.062. Variant 29 is the table before v9,
// timed beside v9 in call 2; variant 30 the table before v10 (second round, h10-odd80b: D = 65..72
// unmasked without the halved walk), timed beside v10.
#include <cuda_bf16.h>

#include "cuda/sm80/forward.cuh"

namespace fattn_sm80_bench {

using fattn::detail::AttentionArgs;
using fattn::detail::sm80::DirectOutputStores;
using fattn::detail::sm80::FewerLiveRegisters;
using fattn::detail::sm80::ForwardConfig;
using fattn::detail::sm80::ForwardTile;
using fattn::detail::sm80::HalfLastStep;
using fattn::detail::sm80::KvSourcesInSharedMemory;
using fattn::detail::sm80::RowStatsInSharedMemory;
using fattn::detail::sm80::StagedForwardConfig;
using fattn::detail::sm80::StepClassesOnly;
using fattn::detail::sm80::launch_forward;
using fattn::detail::sm80::launch_forward_with;

// The table's narrow 128 tile with another key-tile length and step-class list.
template <int kBlockN, int... kClasses>
using LeanNarrow128 = HalfLastStep<KvSourcesInSharedMemory<FewerLiveRegisters<StepClassesOnly<
    RowStatsInSharedMemory<ForwardTile<128, kBlockN, 4, 2, false, kClasses...>>>>>>;
// 20: 96 keys for class 5 (D = 65..80; S + O = 96 + 80 registers), the table's tile above it,
// O stored from the registers (DirectOutputStores: through shared memory the epilogue spills).
// ptxas -v, sm_90a: without DirectOutputStores 8 bytes of spills; 96 keys for class 6 (alone or
// with 5, with or without HalfLastStep and DirectOutputStores) 4-32 bytes; 128 keys for class 5
// 4-20 bytes; 8 warps x 1 row tile x 64 keys with two CTAs per SM (<= 128 registers) 12-32
// bytes: not measured.
using Narrow128Keys96Class5 = DirectOutputStores<LeanNarrow128<96, 5>>;
// 22: 8 warps x 1 row tile x 128 keys (S = 64, O = 40-48 registers; one CTA of 8 warps per SM,
// as the table's tile; per 128 x 128 block 10 % fewer instructions, 70 % more ldmatrix).
using Narrow128Warps8Keys128 = HalfLastStep<KvSourcesInSharedMemory<
    StepClassesOnly<ForwardTile<128, 128, 8, 1, false, 5, 6>>>>;
// 25 (the 192 bucket's 9-step class on 128 keys x 8 warps) and 27 (the 256 bucket's 13-step
// class, the same shape) measured 1.07 and 1.11x and are the table's since v9
// (NarrowForwardConfig<192>, LargeSharedMemoryNarrowForwardConfig<256>).
// 26: the 192 bucket's 9-step class on 64 rows (4 warps x 1 row tile x 64 keys: 72 KB, two CTAs
// per SM at 212-223 registers).
using Narrow192Rows64 =
    HalfLastStep<KvSourcesInSharedMemory<StepClassesOnly<ForwardTile<192, 64, 4, 1, false, 9>>>>;
// 28: the 256 bucket's 13-step class on the 256 table's shape, 64 rows x 4 warps x 64 keys (two
// CTAs per SM).
using Narrow256Rows64 = HalfLastStep<StepClassesOnly<ForwardTile<256, 64, 4, 1, false, 13>>>;

}  // namespace fattn_sm80_bench

// The table's launches are compiled in the library's instance files (linked into the shim): not
// again here.
extern template fattn::Status fattn::detail::sm80::launch_forward<64, __nv_bfloat16>(
    const fattn::detail::AttentionArgs&);
extern template fattn::Status fattn::detail::sm80::launch_forward<128, __nv_bfloat16>(
    const fattn::detail::AttentionArgs&);
extern template fattn::Status fattn::detail::sm80::launch_forward<192, __nv_bfloat16>(
    const fattn::detail::AttentionArgs&);
extern template fattn::Status fattn::detail::sm80::launch_forward<256, __nv_bfloat16>(
    const fattn::detail::AttentionArgs&);

namespace fattn_sm80_bench {

// Head dims the narrow tile's classes cover run it (as the only tile: no second kernel compiled
// here); the others, and the 2-byte-aligned rows, the table.
template <class Narrow, int kBucket>
fattn::Status with_narrow(const AttentionArgs& args) {
  using namespace fattn::detail::sm80;
  constexpr int kLargestClass = largest_step_class(typename Narrow::NarrowStepClassList{});
  const auto steps = (args.problem.head_dim + kMmaK - 1) / kMmaK;
  if (steps > kLargestClass || uses_staged_loads(static_cast<int>(args.problem.alignment_bytes))) {
    return launch_forward<kBucket, __nv_bfloat16>(args);
  }
  return launch_forward_with<Narrow, __nv_bfloat16, StagedForwardConfig<kBucket>>(args);
}

// 30: the table before v10: D = 65..72 unmasked run the unmasked narrow tile's whole fifth step
// (no HalvedUnmaskedNarrowForwardConfig); every other launch as the table's.
fattn::Status table_before_v10_at_128(const AttentionArgs& args) {
  using fattn::detail::sm80::NarrowForwardConfig;
  using fattn::detail::sm80::UnmaskedNarrowForwardConfig;
  return launch_forward_with<ForwardConfig<128>, __nv_bfloat16, StagedForwardConfig<128>,
                             NarrowForwardConfig<128>, UnmaskedNarrowForwardConfig<128>>(args);
}

// 29: the table before v9 (the ninth session's), to time v9 against in the same rows: the 128
// bucket without the unmasked narrow tile, the 192 bucket's 9-step class inside the table's
// kernel, the 256 bucket's 64-key narrow tile on every device.
template <int kBucket>
fattn::Status table_before_v9(const AttentionArgs& args) {
  using fattn::detail::sm80::NarrowForwardConfig;
  using E = __nv_bfloat16;
  if constexpr (kBucket == 192) {
    return launch_forward_with<ForwardConfig<192>, E, StagedForwardConfig<192>>(args);
  } else {
    return launch_forward_with<ForwardConfig<kBucket>, E, StagedForwardConfig<kBucket>,
                               NarrowForwardConfig<kBucket>>(args);
  }
}

fattn::Status odd_dim_forward_variant(const AttentionArgs& args, int bucket, int variant) {
  using E = __nv_bfloat16;
  constexpr int kClass5HeadDims = 80;  // head dims of at most 5 16-wide k-steps
  const bool class5 = args.problem.head_dim <= kClass5HeadDims;
  switch (bucket * 100 + variant) {
    case 12820:
      return class5 ? with_narrow<Narrow128Keys96Class5, 128>(args) : launch_forward<128, E>(args);
    case 12822: return with_narrow<Narrow128Warps8Keys128, 128>(args);
    // 24: variant 20's tile for class 5, variant 22's for class 6.
    case 12824:
      return class5 ? with_narrow<Narrow128Keys96Class5, 128>(args)
                    : with_narrow<Narrow128Warps8Keys128, 128>(args);
    case 19226: return with_narrow<Narrow192Rows64, 192>(args);
    case 25628: return with_narrow<Narrow256Rows64, 256>(args);
    case 6429: return launch_forward<64, E>(args);
    case 12829: return table_before_v9<128>(args);
    case 19229: return table_before_v9<192>(args);
    case 25629: return table_before_v9<256>(args);
    case 12830: return table_before_v10_at_128(args);
    // Buckets a variant does not change run the table (the multiples of 64 in the same rows).
    case 6420: case 6422: case 6424: case 6426: case 6428: case 6430:
      return launch_forward<64, E>(args);
    case 12826: case 12828: return launch_forward<128, E>(args);
    case 19220: case 19222: case 19224: case 19228: case 19230:
      return launch_forward<192, E>(args);
    case 25620: case 25622: case 25624: case 25626: case 25630: return launch_forward<256, E>(args);
    default: return fattn::Status::Unsupported("no such forward variant");
  }
}

}  // namespace fattn_sm80_bench
