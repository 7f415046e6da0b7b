// ScoreStatisticsAhead (backward_tile_config.hpp): the ring of a score pass's LSE / D_i pairs
// read kAhead query tiles ahead of their use. Split out of backward_kernel.cuh to keep that file
// readable.
#pragma once

#include <cuda_runtime.h>

namespace fattn::detail::sm80 {

// Filled with query tiles 0..kAhead-1; then the pass takes query tile nt's pair from it and puts
// tile nt + kAhead's in its slot, before it stores tile nt's Pᵀ / dSᵀ (ptxas cannot move a shared
// load above a shared store it cannot tell apart from it). kAhead = 0: no ring (one unused slot),
// each pair read where it is used. `read(nt)` is the thread's pair of query tile nt.
template <int kAhead, int kQueryTiles>
struct StatisticsRing {
  float2 pairs[kAhead > 0 ? kAhead : 1];

  template <class Read>
  __device__ __forceinline__ void fill(const Read& read) {
    if constexpr (kAhead > 0) {
#pragma unroll
      for (int a = 0; a < kAhead; ++a) pairs[a] = read(a);
    }
  }

  template <class Read>
  __device__ __forceinline__ float2 next(const Read& read, int nt) {
    if constexpr (kAhead > 0) {
      const float2 pair = pairs[nt % kAhead];
      if (nt + kAhead < kQueryTiles) pairs[nt % kAhead] = read(nt + kAhead);
      return pair;
    } else {
      return read(nt);
    }
  }
};

}  // namespace fattn::detail::sm80
