// Tile shapes of the simt (CUDA-core) kernels and the shared memory they need: host-compilable
// (no CUDA includes), so that the launchers, the selector and CPU-side code all read the same
// numbers.
//
// Today's tiles were sized for Hopper's 227 KB per block. A device that lets a block have less
// (an A100: 163 KB; sm_86 / sm_89: 99 KB) runs the largest of its bucket's configurations that
// fits: the tiles of Hopper, then an A100-sized one, then an sm_86-sized one (SimtTileSet below).
// The smaller ones give up, in this order: the second K/V (forward, dq) or Q/dO (dk dV) stage,
// then rows or keys per block. Every configuration is a tile struct with the stage count and the
// per-thread rows / columns as template parameters; the defaults are today's tiles.
#pragma once

#include <algorithm>
#include <cstddef>

#include "api/device_query.hpp"
#include "fattn/fattn.hpp"

namespace fattn::detail::simt {

inline constexpr int kThreadsX = 16;
inline constexpr int kThreadsY = 16;
inline constexpr int kThreads = kThreadsX * kThreadsY;
inline constexpr int kPad = 4;

// Stages a streamed tile goes through. Two: tile t+1 is copied while tile t is computed. One:
// the copy of tile t+1 starts once tile t's last reader has passed a barrier (the K copy after
// the scores, the V copy after P·V), so only part of it overlaps the arithmetic (the dK dV
// kernel's Q/dO copy, read to the end of a step, overlaps none).
inline constexpr int kTwoStages = 2;
inline constexpr int kOneStage = 1;

// Shared memory the hardware keeps per resident block on sm_80/sm_90 (1 KB), on top of what
// the kernel asks for; counted when deciding whether two blocks fit on an SM. A device's SM has
// exactly its per-block opt-in limit plus this (Hopper 228 KB, A100 164 KB, sm_86 100 KB).
inline constexpr std::size_t kSharedBytesReservedPerBlock = 1024;

// Blocks per SM the kernels are register-bounded for (__launch_bounds__); two bound a thread to
// 128 registers. Only today's D <= 64 forward tiles ask for two (two share an sm_90 SM). The
// smaller configurations keep one: an sm_86 / sm_89 SM (100 KB) holds one block of any 99 KB-sized
// tile, and an A100 runs the A100-sized tiles (over 82 KB, one per 164 KB SM). Bounded to two,
// the 16-bit forward at 128 (4 x 2, one stage) spilled 12 bytes on sm_90a.
inline constexpr int kOneBlockPerSm = 1;
inline constexpr int kTwoBlocksPerSm = 2;

// ---- forward (forward.cuh): 64-row blocks, 4 x 4 per thread (4 x 2 at head_dim 256).
template <int kHeadDim>
inline constexpr int kForwardDefaultCols = kHeadDim <= 128 ? 4 : 2;

template <int kHeadDim, int kStageCount = kTwoStages, int kThreadRows = 4,
          int kThreadCols = kForwardDefaultCols<kHeadDim>>
struct ForwardTiles {
  static constexpr int kBucket = kHeadDim;
  static constexpr int kRows = kThreadRows;                     // query rows per thread
  static constexpr int kCols = kThreadCols;                     // key columns per thread
  static constexpr int kBlockRows = kRows * kThreadsY;          // query rows per block
  static constexpr int kBlockCols = kCols * kThreadsX;          // keys per tile
  static constexpr int kRowStride = kHeadDim + kPad;            // floats per Q/K/V tile row
  static constexpr int kPStride = kBlockCols + kPad;            // floats per P tile row
  static constexpr int kQFloats = kBlockRows * kRowStride;
  static constexpr int kKVFloats = kBlockCols * kRowStride;
  static constexpr int kPFloats = kBlockRows * kPStride;
  static constexpr int kStages = kStageCount;
  static constexpr std::size_t kSharedBytes =
      sizeof(float) * (kQFloats + 2 * kStages * kKVFloats + kPFloats);
  // Up to D = 64 (93 KB) two blocks share an sm_90 SM only if each keeps to 128 registers.
  // Unbounded, ptxas took 128 by chance and 129 after the load_tile rewrite, which would have
  // halved the occupancy; the bound makes it a requirement. Other tiles: see kOneBlockPerSm.
  static constexpr int kBlocksPerSm =
      kHeadDim <= 64 && kStages == kTwoStages ? kTwoBlocksPerSm : kOneBlockPerSm;
};

// ---- wide forward (forward_wide.cuh): 128-row blocks, 8 x 4 per thread. Hopper only: the
// launcher runs it where it fits and otherwise the forward tiles of the bucket's SimtTileSet.
template <int kHeadDim>
struct WideForwardTiles {
  static constexpr int kRows = 8;                               // query rows per thread
  static constexpr int kCols = 4;                               // key columns per thread
  static constexpr int kBlockRows = kRows * kThreadsY;          // 128 query rows per block
  static constexpr int kBlockCols = kCols * kThreadsX;          // 64 keys per tile
  static constexpr int kRowStride = kHeadDim + kPad;            // floats per Q/K/V tile row
  static constexpr int kPStride = kBlockRows + kPad;            // floats per key of the P tile
  static constexpr int kQFloats = kBlockRows * kRowStride;
  static constexpr int kKVFloats = kBlockCols * kRowStride;
  static constexpr int kPFloats = kBlockCols * kPStride;
  // D <= 64: two blocks (16 warps) per SM, which needs <= 113 KB of shared memory and <= 128
  // registers per thread; K then has one stage (101 KB at D = 64) and the other resident block
  // hides the copies. D = 128: one block per SM (212 registers), so K keeps two stages.
  static constexpr int kBlocksPerSm = kHeadDim <= 64 ? 2 : 1;
  static constexpr int kKStages = kBlocksPerSm == 2 ? 1 : 2;
  static constexpr std::size_t kSharedBytes =
      sizeof(float) * (kQFloats + (kKStages + 1) * kKVFloats + kPFloats);
};

// ---- backward pass 2, dK dV (backward.cuh): this thread owns kRows key rows and kCols query
// columns of Sᵀ. 64 keys x 32 queries (32 x 32 at head_dim 256) so that resident K, V plus two
// stages of Q, dO fit in Hopper's shared memory.
template <int kHeadDim>
inline constexpr int kKeyDefaultRows = kHeadDim <= 128 ? 4 : 2;

template <int kHeadDim, int kStageCount = kTwoStages, int kThreadRows = kKeyDefaultRows<kHeadDim>,
          int kThreadCols = 2>
struct KeyTiles {
  static constexpr int kBucket = kHeadDim;
  static constexpr int kRows = kThreadRows;
  static constexpr int kCols = kThreadCols;
  static constexpr int kBlockKeys = kRows * kThreadsY;
  static constexpr int kBlockQueries = kCols * kThreadsX;
  static constexpr int kRowStride = kHeadDim + kPad;
  static constexpr int kPStride = kBlockQueries + kPad;
  static constexpr int kKVFloats = kBlockKeys * kRowStride;
  static constexpr int kQFloats = kBlockQueries * kRowStride;
  static constexpr int kStages = kStageCount;
  static constexpr std::size_t kSharedBytes =
      sizeof(float) * (2 * kKVFloats + 2 * kStages * kQFloats + 2 * kBlockKeys * kPStride +
                       2 * kStages * kBlockQueries);
  static constexpr int kBlocksPerSm = kOneBlockPerSm;
};

// ---- backward pass 3, dQ (backward.cuh): this thread owns kRows query rows and kCols key
// columns.
template <int kHeadDim>
inline constexpr int kQueryDefaultShape = kHeadDim <= 128 ? 4 : 2;

template <int kHeadDim, int kStageCount = kTwoStages, int kThreadRows = kQueryDefaultShape<kHeadDim>,
          int kThreadCols = kQueryDefaultShape<kHeadDim>>
struct QueryTiles {
  static constexpr int kBucket = kHeadDim;
  static constexpr int kRows = kThreadRows;
  static constexpr int kCols = kThreadCols;
  static constexpr int kBlockRows = kRows * kThreadsY;
  static constexpr int kBlockCols = kCols * kThreadsX;
  static constexpr int kRowStride = kHeadDim + kPad;
  static constexpr int kPStride = kBlockCols + kPad;
  static constexpr int kQFloats = kBlockRows * kRowStride;
  static constexpr int kKVFloats = kBlockCols * kRowStride;
  static constexpr int kStages = kStageCount;
  static constexpr std::size_t kSharedBytes =
      sizeof(float) * (2 * kQFloats + 2 * kStages * kKVFloats + kBlockRows * kPStride);
  static constexpr int kBlocksPerSm = kOneBlockPerSm;
};

// ---- the configurations of one bucket, largest first. A launcher runs the first whose
// kSharedBytes fits the device (device_shared_bytes_optin): Forward (Hopper; the wide kernel
// comes before it where kUseWideForward), then ForwardA100, then ForwardSmall; likewise Key* for
// the dK dV kernel and Query* for the dQ kernel, each kernel on its own (the backward checks both
// choices before its first launch). Where a smaller device needs no other tiles, the alias names
// the larger struct, so no extra kernel is compiled.
//
// Why these (bytes per block; A100 = 166,912, sm_86 = 101,376):
//   32   every tile fits 99 KB already (forward 63,488; dK dV 55,808; dQ 72,704).
//   64   forward and dQ drop to one stage (69,632 / 87,040): the same register tiles, so one
//        kernel serves both smaller devices, and on an A100 two of its blocks share an SM. dK dV
//        (88,576) fits everywhere.
//   128  A100: one stage at today's 4 x 4 (forward 118,784; dQ 152,576), dK dV unchanged
//        (154,112). sm_86: one stage and half the keys (forward 4 x 2: 76,800) or half the
//        rows and keys (dK dV, dQ 2 x 2, as at 256 today: 77,056 / 72,192).
//   256  A100: one stage at today's shapes (forward 142,336; dK dV 142,592; dQ 137,728). sm_86:
//        one stage and 32 x 16 (forward 2 x 1: 69,120) or 16 x 16 (dK dV, dQ 1 x 1: 69,248 /
//        67,840). Each next-larger shape (a second stage, or 2 x 1 in the backward) needs
//        102,144-104,960 bytes: 1-4 KB over.
template <int kHeadDim>
struct SimtTileSet;

template <>
struct SimtTileSet<32> {
  using Forward = ForwardTiles<32>;
  using ForwardA100 = Forward;
  using ForwardSmall = Forward;
  using Key = KeyTiles<32>;
  using KeyA100 = Key;
  using KeySmall = Key;
  using Query = QueryTiles<32>;
  using QueryA100 = Query;
  using QuerySmall = Query;
};

template <>
struct SimtTileSet<64> {
  using Forward = ForwardTiles<64>;
  using ForwardA100 = Forward;
  using ForwardSmall = ForwardTiles<64, kOneStage>;
  using Key = KeyTiles<64>;
  using KeyA100 = Key;
  using KeySmall = Key;
  using Query = QueryTiles<64>;
  using QueryA100 = Query;
  using QuerySmall = QueryTiles<64, kOneStage>;
};

template <>
struct SimtTileSet<128> {
  using Forward = ForwardTiles<128>;
  using ForwardA100 = ForwardTiles<128, kOneStage>;
  using ForwardSmall = ForwardTiles<128, kOneStage, 4, 2>;
  using Key = KeyTiles<128>;
  using KeyA100 = Key;
  using KeySmall = KeyTiles<128, kOneStage, 2, 2>;
  using Query = QueryTiles<128>;
  using QueryA100 = QueryTiles<128, kOneStage>;
  using QuerySmall = QueryTiles<128, kOneStage, 2, 2>;
};

template <>
struct SimtTileSet<256> {
  using Forward = ForwardTiles<256>;
  using ForwardA100 = ForwardTiles<256, kOneStage>;
  using ForwardSmall = ForwardTiles<256, kOneStage, 2, 1>;
  using Key = KeyTiles<256>;
  using KeyA100 = KeyTiles<256, kOneStage>;
  using KeySmall = KeyTiles<256, kOneStage, 1, 1>;
  using Query = QueryTiles<256>;
  using QueryA100 = QueryTiles<256, kOneStage>;
  using QuerySmall = QueryTiles<256, kOneStage, 1, 1>;
};

template <int kHeadDim>
constexpr bool tile_set_fits() {
  using S = SimtTileSet<kHeadDim>;
  return S::ForwardA100::kSharedBytes <= kA100SharedBytesPerBlock &&
         S::KeyA100::kSharedBytes <= kA100SharedBytesPerBlock &&
         S::QueryA100::kSharedBytes <= kA100SharedBytesPerBlock &&
         S::ForwardSmall::kSharedBytes <= kConsumerAmpereSharedBytesPerBlock &&
         S::KeySmall::kSharedBytes <= kConsumerAmpereSharedBytesPerBlock &&
         S::QuerySmall::kSharedBytes <= kConsumerAmpereSharedBytesPerBlock;
}
static_assert(tile_set_fits<32>() && tile_set_fits<64>() && tile_set_fits<128>() &&
                  tile_set_fits<256>(),
              "every bucket runs on an A100 and on an sm_86 / sm_89 card");
// Today's Hopper tiles, unchanged (ARCHITECTURE.md lists them).
static_assert(ForwardTiles<64>::kSharedBytes == 104448 && ForwardTiles<128>::kSharedBytes == 186368 &&
              ForwardTiles<256>::kSharedBytes == 208896 &&
              WideForwardTiles<64>::kSharedBytes == 103424 &&
              WideForwardTiles<128>::kSharedBytes == 202752 &&
              KeyTiles<128>::kSharedBytes == 154112 && QueryTiles<128>::kSharedBytes == 220160 &&
              KeyTiles<256>::kSharedBytes == 209408 && QueryTiles<256>::kSharedBytes == 204288);

// `make(tiles)` for the largest of a kernel's configurations, largest first (the Hopper, A100-sized
// and sm_86-sized tile structs of SimtTileSet), that fits a device whose blocks may have
// `shared_optin` bytes; the smallest where none does, so that the launch refuses naming its size.
template <class Large, class A100, class Small, class Make>
auto make_largest_fitting(int shared_optin, Make make) {
  if (static_cast<int>(Large::kSharedBytes) <= shared_optin) return make(Large{});
  if (static_cast<int>(A100::kSharedBytes) <= shared_optin) return make(A100{});
  return make(Small{});
}

// The largest shared memory per block that the smallest configuration of a bucket needs (the
// backward: the larger of its two kernels); 0 for a bucket simt does not compile. A device that
// lets a block have less cannot run cuda_simt at that bucket (the selector refuses it there).
constexpr int smallest_shared_bytes(Direction direction, int head_dim_bucket) {
  auto smallest = [direction](auto set) {
    using S = decltype(set);
    return static_cast<int>(direction == Direction::forward
                                ? S::ForwardSmall::kSharedBytes
                                : std::max(S::KeySmall::kSharedBytes, S::QuerySmall::kSharedBytes));
  };
  switch (head_dim_bucket) {
    case 32: return smallest(SimtTileSet<32>{});
    case 64: return smallest(SimtTileSet<64>{});
    case 128: return smallest(SimtTileSet<128>{});
    case 256: return smallest(SimtTileSet<256>{});
    default: return 0;
  }
}
static_assert(smallest_shared_bytes(Direction::forward, 128) <= kConsumerAmpereSharedBytesPerBlock &&
              smallest_shared_bytes(Direction::backward, 256) <= kConsumerAmpereSharedBytesPerBlock);

}  // namespace fattn::detail::simt
