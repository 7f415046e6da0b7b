#include "cuda/sm80/forward.cuh"
namespace fattn::detail::sm80 {
template <int S> struct C2 : RescalePastThreshold<QueryTilesSlowestInHeadGroups<
    WholePrologueCopies<HalvedWalkOnly<KeyWindowEdgesInSharedMemory<KvSourcesInSharedMemory<FewerLiveRegisters<
        StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, S>>>>>>>>,
    kForwardGroupHeads>> {};
template Status launch_forward_shifted_windows<C2<8>, ELEM>(const AttentionArgs&, const ForwardParams&);
}
