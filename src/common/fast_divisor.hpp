// Division by a divisor fixed at launch, as a multiply-high, an add and a shift instead of the
// GPU's ~20-instruction integer division (Granlund & Montgomery, "Division by invariant integers
// using multiplication", 1994: the 33-bit magic number m = ceil(2^(32+l) / d), l = ceil(log2 d),
// gives floor(n / d) = floor(m·n / 2^(32+l)) for every n < 2^32; m - 2^32 fits 32 bits).
// Why: the Hopper forward's persistent CTAs decode every tile from its position with three
// dependent divisions at the tile boundary, serial code that all consumers run while the tensor
// pipe idles (docs/perf-notes.md, sm90 "Tile-boundary timeline", "v16").
#pragma once

#include <cstdint>

#include "common/host_device.hpp"

namespace fattn::detail {

struct FastDivisor {
  std::uint32_t divisor = 1;
  std::uint32_t multiplier = 0;  // m - 2^32
  std::uint32_t shift = 0;       // l

  FastDivisor() = default;
  // divisor >= 1.
  FATTN_HOST_DEVICE explicit FastDivisor(int d) : divisor(static_cast<std::uint32_t>(d)) {
    while ((std::uint64_t{1} << shift) < divisor) ++shift;
    constexpr std::uint64_t kTwoPow32 = std::uint64_t{1} << 32;
    const std::uint64_t excess = kTwoPow32 * ((std::uint64_t{1} << shift) - divisor);
    multiplier = static_cast<std::uint32_t>((excess + divisor - 1) / divisor);
  }

  // floor(n / divisor) for 0 <= n < 2^31 (the add below stays within 32 bits).
  FATTN_HOST_DEVICE int divide(int n) const {
    const auto u = static_cast<std::uint32_t>(n);
#if defined(__CUDA_ARCH__)
    const std::uint32_t high = __umulhi(u, multiplier);
#else
    const auto high = static_cast<std::uint32_t>((std::uint64_t{u} * multiplier) >> 32);
#endif
    return static_cast<int>((high + u) >> shift);
  }
  FATTN_HOST_DEVICE int value() const { return static_cast<int>(divisor); }
};

}  // namespace fattn::detail
