// h15-mufu: the forward tiles whose kernels keep the MUFU wall (sm_90a SASS: all of a tile's
// MUFU.EX2 before the first P·V HMMA) because ExponentsUnderPv (src/cuda/sm80/tile_config.hpp)
// spills in them, with the forms surveyed for a fit (NOTES.md here). Spelled out from main's table;
// used by survey_kernels.cu (ptxas -v, SASS) and variants_mufu.cu (the shim variants of the
// prepared call). Not part of the library.
#pragma once
#include "cuda/sm80/forward.cuh"

namespace fattn_mufu {
namespace sm80 = fattn::detail::sm80;
template <class Tile>
using UnderPv = sm80::ExponentsUnderPv<Tile>;
template <class Tile>
using UnmaskedUnderPv = sm80::UnmaskedExponentsUnderPv<Tile>;
// D <= 64 (both masks): 128 keys x 4 warps x 2 row tiles, full width; the option spills 20-28
// bytes. + FewerLiveRegisters (its XOR fragment addresses on sm_90a too): still 8-20.
using Table64Lean = sm80::FewerLiveRegisters<sm80::ForwardConfig<64>>;
// D = 128 (both masks; D = 97..127 run the general walk, which the option leaves alone): 64 keys
// x 4 warps x 2 row tiles; the option spills 4 (NoMask, sm_90a) and 8 bytes (WindowMask).
// + EpilogueWarpRowAfresh (the register that spilled 4 bytes on sm_90a in the halved 128-key
// tile, v10): NoMask 0 on sm_80 and sm_90a, WindowMask still 8 on sm_90a, hence the unmasked
// kernel only. The candidate of the prepared call.
using Table128Afresh = sm80::EpilogueWarpRowAfresh<sm80::ForwardConfig<128>>;
using Table128Candidate = UnmaskedUnderPv<Table128Afresh>;
// D = 73..80 unmasked: 128 keys x 4 warps x 2 row tiles; the option spills 4 (sm_90a) and 876
// bytes (sm_80); + EpilogueWarpRowAfresh 12 and 84.
using Unmasked128Afresh = sm80::EpilogueWarpRowAfresh<sm80::UnmaskedNarrowForwardConfig<128>>;
// D = 65..96 masked (NarrowForwardConfig<128>'s WindowMask kernel): 64 keys x 4 warps x 2 row
// tiles; the option spills 20-28 bytes, + EpilogueWarpRowAfresh 24-32.
using NarrowBase128 = sm80::UnmaskedRescalePastThreshold<sm80::HalfLastStep<
    sm80::KvSourcesInSharedMemory<sm80::FewerLiveRegisters<sm80::StepClassesOnly<
        sm80::RowStatsInSharedMemory<sm80::ForwardTile<128, 64, 4, 2, false, 5, 6>>>>>>>;
using Narrow128Afresh = sm80::EpilogueWarpRowAfresh<NarrowBase128>;
}  // namespace fattn_mufu
