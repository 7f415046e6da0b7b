#include "cuda/simt/tile_config.hpp"
#include <cstdio>
using namespace fattn::detail::simt;
using fattn::Direction;
template <class T> void pr(const char* n) { std::printf("%-14s bytes %7zu blocks/SM %d stages %d rows %d cols %d\n", n, (size_t)T::kSharedBytes, T::kBlocksPerSm, T::kStages, T::kRows, T::kCols); }
template <int D> void all() {
  using S = SimtTileSet<D>; std::printf("D=%d\n", D);
  pr<typename S::Forward>("Forward"); pr<typename S::ForwardA100>("ForwardA100"); pr<typename S::ForwardSmall>("ForwardSmall");
  pr<typename S::Key>("Key"); pr<typename S::KeyA100>("KeyA100"); pr<typename S::KeySmall>("KeySmall");
  pr<typename S::Query>("Query"); pr<typename S::QueryA100>("QueryA100"); pr<typename S::QuerySmall>("QuerySmall");
  std::printf("smallest fwd %d bwd %d\n", smallest_shared_bytes(Direction::forward, D), smallest_shared_bytes(Direction::backward, D));
}
int main() { all<32>(); all<64>(); all<128>(); all<256>(); std::printf("wide64 %zu wide128 %zu\n", WideForwardTiles<64>::kSharedBytes, WideForwardTiles<128>::kSharedBytes); }
