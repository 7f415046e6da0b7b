// Scratch TU (h13-bwd80c): the WindowMask full-width kernels of candidate 256 configurations,
// compiled against the tree with cand-table.patch applied (Det: that table; the forms of NOTES.md
// were temporary macros H13C_INLINE / H13C_EARLY in backward_kernel.cuh, passed as KTFLAGS).
#include "cuda/sm80/backward.cuh"
namespace fattn::detail::sm80 {
using Det = LargeSharedMemoryDeterministicBackward<256>::type;  // the tree's (slot, stats fresh)
using DetCarried = MaskedItemSourcesInSharedMemory<QueryTilesDescending<KeyTilesSlowestInHeadGroups<
    MaskedStridedItemLoads<MaskedPerItemPhaseBAddresses<StagedEpilogue<RangeSearchTile256>>, false>,
    kCausalHeadGroupPairs>>>;
using Def = LargeSharedMemoryBackwardConfig<256>;
#define INST(X) template __global__ void backward_kernel<X, KT_ELEM, WindowMask, true>(const BackwardParams, const WindowMask);
#ifdef KT_Det
INST(Det)
#endif
#ifdef KT_DetCarried
INST(DetCarried)
#endif
#ifdef KT_Def
INST(Def)
#endif
}
