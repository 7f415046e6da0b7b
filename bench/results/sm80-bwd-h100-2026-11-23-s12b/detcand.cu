#include "cuda/sm80/backward.cuh"
namespace s = fattn::detail::sm80;
#if DET_D == 128
using Det = s::QueryTilesDescending<s::ZeroStartAccumulators<s::UnmaskedStagedEpilogue<s::ScorePassesTile128>>>;
#else
using Det = s::QueryTilesDescending<s::KeyTilesSlowestInHeadGroups<s::UnmaskedStagedEpilogue<s::RangeSearchTile256>, s::kCausalHeadGroupPairs>>;
#endif
template fattn::Status s::launch_backward_with<Det, __nv_bfloat16>(const fattn::detail::AttentionArgs&);
