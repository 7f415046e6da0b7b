// Tile shapes of the Hopper forward kernel, one row per head-dim bucket. Any head dim D <= 256
// runs in the smallest bucket >= D: TMA zero-fills the columns D..bucket-1 of every tile (the
// tensor map's inner extent is the real D), so the padded columns add nothing to Q·Kᵀ and give
// zero output columns that are never stored.
//
// Why these numbers (H100/H200: 228 KB shared memory per SM, 227 KB per block, 64K registers):
// - kBlockM = 128: two consumer warpgroups of 64 query rows each (wgmma's M is 64 per warpgroup).
//   One CTA per SM; the producer warpgroup gives its registers to the consumers (setmaxnreg).
// - kBlockN, the key tile: as wide as shared memory and the consumers' registers allow. The
//   consumers hold O (bucket/2 fp32 per thread), S (kBlockN/2) and P (kBlockN/4 32-bit words).
//   D = 256: 128 + 40 + 20 registers at kBlockN = 80, and Q (64 KB) + 2 stages × (K + V)
//   (2 × 80 KB) = 224 KB fills shared memory. D = 192: kBlockN = 96 keeps 2 stages in 192 KB.
//   D <= 128: kBlockN = 128 (the widest P·V k-loop per barrier round trip that still fits).
// - ping-pong: measured on an H100 (docs/perf-notes.md, sm90): +2–11% at D = 128 and 256. At
//   D = 256 the masked kernels do not fit ping-pong's extra live registers in 240 (ptxas spilled
//   32–68 bytes), so they run without it.
// - kStages: K/V ring depth. Two stages already cover the TMA latency when each stage holds a
//   full 128-key tile; D = 64 tiles are small (16 KB each), so a third stage is nearly free.
#pragma once

namespace fattn::detail::sm90 {

struct TileShape {
  int block_m;
  int block_n;
  int stages;
  // The two consumer warpgroups take turns issuing their GEMMs (named barriers), so one's
  // softmax runs while the other's wgmmas keep the tensor cores busy. Separately for masked
  // kernels, whose per-element mask code needs more registers.
  bool ping_pong;
  bool ping_pong_masked;
};

template <int kHeadDimBucket>
struct TileConfig;

template <>
struct TileConfig<64> {
  static constexpr TileShape kShape{128, 128, 3, true, true};
};
template <>
struct TileConfig<128> {
  static constexpr TileShape kShape{128, 128, 2, true, true};
};
template <>
struct TileConfig<192> {
  static constexpr TileShape kShape{128, 96, 2, true, true};
};
template <>
struct TileConfig<256> {
  static constexpr TileShape kShape{128, 80, 2, true, false};
};

// The buckets in increasing order: a head dim runs in the first bucket that holds it.
inline constexpr int kHeadDimBuckets[] = {64, 128, 192, 256};

constexpr int head_dim_bucket(long long head_dim) {
  for (int bucket : kHeadDimBuckets) {
    if (head_dim <= bucket) return bucket;
  }
  return 0;
}

}  // namespace fattn::detail::sm90
