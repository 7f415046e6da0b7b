// Tile shapes of the Hopper backward kernel, one row per head-dim bucket (64 and 128 so far;
// larger head dims run the sm80 backward). UNVERIFIED: chosen by register and shared-memory
// counts, not yet by measurement (docs/design/sm90-backward.md, "Tile shapes").
//
// Why these numbers (H100/H200: 227 KB shared memory per block, 64K registers, one CTA per SM):
// - kBlockN = 128 keys per CTA: two consumer warpgroups of 64 keys (wgmma's M), each holding
//   dK and dV of its keys in fp32: 2 · D/2 registers per thread (128 at D = 128), plus Sᵀ and
//   dPᵀ of one query tile (2 · kBlockM/2 = 64) and their 16-bit fragments (2 · kBlockM/4 = 32)
//   in the 240 registers setmaxnreg gives a consumer.
// - kBlockM = 64 queries per step: the k extent of dV += Pᵀ·dO and dK += dSᵀ·Q (4 wgmma k-steps)
//   and the width of one dSᵀ row, which is then exactly one 128-byte swizzle row, so dSᵀ is
//   stored in TMA's own layout and read back by wgmma through a descriptor.
// - stages = 2 of (Q, dO, LSE, D_i): each stage is 2 · kBlockM · D · 2 bytes (32 KB at D = 128);
//   K + V (64 KB) + 2 stages (64 KB) + 2 dS buffers (32 KB) = 160 KB at D = 128.
// - dQ split: the dQ product dS·K runs per consumer warpgroup as one m64n64 wgmma chain.
//   D = 128: each warpgroup takes 64 of the head-dim columns over all 128 keys (both
//   warpgroups' dS needed: one 256-thread barrier per step; dQ atomics = kBlockM·D per step).
//   D = 64: each takes all 64 columns over its own 64 keys (no cross-warpgroup wait, but twice
//   the atomics), because a 32-column half would start mid swizzle row of the K tile, a
//   descriptor offset this design does not rely on without a GPU to check it.
// - dS layout in shared memory (for dQ = dS·K):
//   key_rows    dSᵀ as the registers hold it (key rows, 64 query columns = one swizzle row),
//               32-bit stores, read by wgmma as an MN-major A ("tnspA");
//   query_rows  dS (query rows, keys in 64-column blocks, the forward's Q layout), 16-bit
//               stores (twice the store instructions), read as the usual K-major A.
//   key_rows is the default; query_rows exists because tnspA from a hand-written tile is the
//   least certain PTX use of this kernel (docs/design/sm90-backward.md, question 1): if dQ
//   alone is wrong on the GPU, flip this and rerun before anything else.
// - kBlockM = 128 (two 64-query column blocks of dSᵀ) goes with DqSplit::queries: consumer c
//   computes dQ of queries [64c, 64c + 64) over all kBlockN keys and every head-dim column
//   (D = 64), so each dQ element gets one reduction per CTA step for twice the FLOPs of a
//   kBlockM = 64 step: 320 FLOP per reduced byte instead of the key split's 160.
#pragma once

namespace fattn::detail::sm90 {

enum class DqSplit { keys, head_dim, queries };
enum class DsLayout { key_rows, query_rows };

// One row of the table; the kernel takes the type holding it (BackwardTileConfig<D>, or a
// bench's own type, so that several shapes of one bucket build side by side:
// bench/sm90_bwd_variants.cu).
struct BackwardTileShape {
  int block_m;
  int block_n;
  int stages;
  DqSplit dq_split;
  DsLayout ds_layout;
};

template <int kHeadDimBucket>
struct BackwardTileConfig;

template <>
struct BackwardTileConfig<64> {
  static constexpr BackwardTileShape kShape{64, 128, 2, DqSplit::keys, DsLayout::key_rows};
};
template <>
struct BackwardTileConfig<128> {
  static constexpr BackwardTileShape kShape{64, 128, 2, DqSplit::head_dim, DsLayout::key_rows};
};

}  // namespace fattn::detail::sm90
