#include "cuda/sm80/forward.cuh"
namespace fattn::detail::sm80 {
template <int S> struct W1 : UnmaskedRescalePastThreshold<KvSourcesInSharedMemory<FewerLiveRegisters<StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, S>>>>>> {};
template <int S> struct W2 : RescalePastThreshold<QueryTilesSlowestInHeadGroups<WholePrologueCopies<KvSourcesInSharedMemory<FewerLiveRegisters<StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, S>>>>>>, kForwardGroupHeads>> {};
template <int S> struct W3 : RescalePastThreshold<QueryTilesSlowestInHeadGroups<WholePrologueCopies<HalvedWalkOnly<KvSourcesInSharedMemory<FewerLiveRegisters<StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, S>>>>>>>, kForwardGroupHeads>> {};
template Status launch_forward_shifted_windows<W1<8>, __half>(const AttentionArgs&, const ForwardParams&);
template Status launch_forward_shifted_windows<W2<8>, __half>(const AttentionArgs&, const ForwardParams&);
template Status launch_forward_shifted_windows<W3<8>, __half>(const AttentionArgs&, const ForwardParams&);
}
