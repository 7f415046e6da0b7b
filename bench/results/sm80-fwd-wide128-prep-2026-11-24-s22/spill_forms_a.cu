#include "cuda/sm80/forward.cuh"
namespace fattn::detail::sm80 {
template <int S> struct V1 : UnmaskedRescalePastThreshold<HalfLastStep<KvSourcesInSharedMemory<FewerLiveRegisters<StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, S>>>>>>> {};
template <int S> struct V2 : HalfLastStep<KvSourcesInSharedMemory<FewerLiveRegisters<StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, S>>>>>> {};
template <int S> struct V3 : RescalePastThreshold<QueryTilesSlowestInHeadGroups<WholePrologueCopies<EpilogueWarpRowAfresh<HalfLastStep<KvSourcesInSharedMemory<FewerLiveRegisters<StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, S>>>>>>>>, kForwardGroupHeads>> {};
template <int S> struct V4 : RescalePastThreshold<WholePrologueCopies<HalfLastStep<KvSourcesInSharedMemory<FewerLiveRegisters<StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, S>>>>>>>> {};
template <int S> struct V5 : UnmaskedRescalePastThreshold<HalfLastStep<KvSourcesInSharedMemory<StepClassesOnly<ForwardTile<128, 64, 8, 1, false, S>>>>> {};
template <int S> struct V6 : HalvedWalkOnly<KvSourcesInSharedMemory<FewerLiveRegisters<StepClassesOnly<RowStatsInSharedMemory<ForwardTile<128, 64, 4, 2, false, S>>>>>> {};
template Status launch_forward_shifted_windows<V1<8>, __half>(const AttentionArgs&, const ForwardParams&);
template Status launch_forward_shifted_windows<V2<8>, __half>(const AttentionArgs&, const ForwardParams&);
template Status launch_forward_shifted_windows<V3<8>, __half>(const AttentionArgs&, const ForwardParams&);
template Status launch_forward_shifted_windows<V4<8>, __half>(const AttentionArgs&, const ForwardParams&);
template Status launch_forward_shifted_windows<V5<8>, __half>(const AttentionArgs&, const ForwardParams&);
template Status launch_forward_shifted_windows<V6<8>, __half>(const AttentionArgs&, const ForwardParams&);
}
