// Building blocks of the CUDA-core (SIMT) flash kernels: the thread layout, global -> shared
// tile copies, and the two register-blocked products every pass is made of.
//
// Thread layout: a block is 16 x 16 threads (tx = threadIdx.x % 16, ty = threadIdx.x / 16), so
// a warp holds two ty rows of 16 lanes and a row reduction is a 16-lane shuffle. Each thread
// owns kRows rows of a score tile (rows ty*kRows + i: contiguous, read as broadcasts) and kCols
// of its columns (columns tx + 16*j: strided, so the 16 lanes read 16 different shared-memory
// rows whose stride is 4 words mod 32 banks — conflict-free 16-byte loads), and the same kRows
// rows x head_dim/16 columns of the output accumulator.
//
// Shared tiles hold fp32 whatever the storage dtype: the conversion happens once per element on
// the way in, never in the inner loops. Rows are padded by kPad floats (16 bytes) so that row
// starts stay 16-byte aligned and consecutive rows shift by 4 banks.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "common/mask.hpp"
#include "cuda/common/device_tensor.hpp"
#include "cuda/common/element.cuh"
#include "cuda/simt/tile_config.hpp"

namespace fattn::detail::simt {

inline constexpr float kLog2e = 1.4426950408889634f;
inline constexpr float kLn2 = 0.6931471805599453f;
inline constexpr int kVectorBytes = 16;

// Output columns per thread are loaded as vectors of kOutVector floats; head_dim/16 columns.
template <int kHeadDim>
inline constexpr int kOutColumns = kHeadDim / kThreadsX;
template <int kHeadDim>
inline constexpr int kOutVector = kOutColumns<kHeadDim> >= 4 ? 4 : kOutColumns<kHeadDim>;

// Output column of accumulator slot `slot` for thread column tx.
template <int kHeadDim>
__device__ __forceinline__ int out_column(int slot, int tx) {
  constexpr int kVec = kOutVector<kHeadDim>;
  return (slot / kVec) * (kThreadsX * kVec) + tx * kVec + slot % kVec;
}

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// ---- asynchronous copies (cp.async, sm_80+): the fp32 tiles stream in while the previous tile
// is being computed. src_bytes < size zero-fills the rest (rows past the sequence end).
__device__ __forceinline__ void cp_async_16(float* dst, const void* src, int src_bytes) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(src),
               "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_4(float* dst, const void* src, int src_bytes) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(address), "l"(src),
               "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most `kPending` committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Copies rows [row0, row0 + rows) of head (b, h) into a shared tile (row stride kHeadDim + kPad
// floats), columns [0, head_dim). Rows at or past `seqlen` become zeros. Columns in
// [head_dim, kHeadDim) are not written (zero_padding_columns clears them once).
// fp32 goes through cp.async (asynchronous; the caller commits and waits); 16-bit types are
// loaded, converted and stored synchronously, because converting needs the values in registers.
//
// A thread copies one 16-byte column chunk of every kRowsPerPass-th row: the chunk's column and
// first row are a mask and a shift of threadIdx.x (the chunk count per row is the bucket's, a
// power of two), and the source pointer advances by a fixed stride. Dividing a chunk index by
// the run-time chunks per row, as this did before, cost ~60 instructions per 16 bytes: ~9 % of
// everything the wide forward kernel issued (H100, docs/perf-notes.md).
template <int kHeadDim, class Element>
__device__ __forceinline__ void load_tile(float* tile, int rows, const DeviceTensor<const Element>& t,
                                          int b, int h, int row0, int seqlen, int head_dim,
                                          bool vectors_ok) {
  constexpr int kStride = kHeadDim + kPad;
  constexpr int kChunk = kVectorBytes / static_cast<int>(sizeof(Element));
  constexpr int kChunksPerRow = kHeadDim / kChunk;
  static_assert(kHeadDim % kChunk == 0 && kThreads % kChunksPerRow == 0,
                "a bucket is a whole number of chunks, and a pass a whole number of rows");
  constexpr int kRowsPerPass = kThreads / kChunksPerRow;
  // The address arithmetic is redone in every call (~20 instructions): hoisted out of a kernel's
  // tile loop, as the compiler otherwise does, it held ~12 registers through the whole loop and
  // the two-blocks-per-SM wide kernel spilled. The empty asm hides that the inputs repeat.
  int thread = static_cast<int>(threadIdx.x);
  const Element* data = t.data;
  asm volatile("" : "+r"(thread), "+l"(data));
  const int col = (thread % kChunksPerRow) * kChunk;
  if (col >= head_dim) return;  // a padding column, zero already
  const int first_row = thread / kChunksPerRow;
  const bool whole_vector = vectors_ok && col + kChunk <= head_dim;
  const Element* src_row = data + b * t.batch_stride + (row0 + first_row) * t.row_stride +
                           h * t.head_stride + col;
  const std::int64_t src_pass = kRowsPerPass * t.row_stride;
  float* dst = tile + first_row * kStride + col;
  // `rows` is a constant at every call site, so the passes unroll completely, and when it is a
  // whole number of passes (every tile shape so far) the per-row bound test folds away.
  const int passes = (rows + kRowsPerPass - 1) / kRowsPerPass;
  const bool whole_passes = rows % kRowsPerPass == 0;
  if constexpr (std::is_same_v<Element, float>) {
    if (whole_vector) {  // the common case, kept free of the per-element branches
#pragma unroll
      for (int pass = 0; pass < passes; ++pass) {
        const int row = first_row + pass * kRowsPerPass;
        const bool row_valid = row0 + row < seqlen;
        if (whole_passes || row < rows) {
          cp_async_16(dst + pass * kRowsPerPass * kStride, row_valid ? src_row + pass * src_pass : data,
                      row_valid ? kVectorBytes : 0);
        }
      }
      return;
    }
  }
#pragma unroll
  for (int pass = 0; pass < passes; ++pass) {
    const int row = first_row + pass * kRowsPerPass;
    if (!whole_passes && row >= rows) break;
    const bool row_valid = row0 + row < seqlen;
    const Element* src = row_valid ? src_row + pass * src_pass : data;
    float* dst_pass = dst + pass * kRowsPerPass * kStride;
    if constexpr (std::is_same_v<Element, float>) {
#pragma unroll
      for (int e = 0; e < kChunk; ++e) {
        const bool valid = row_valid && col + e < head_dim;
        cp_async_4(dst_pass + e, valid ? src + e : data, valid ? static_cast<int>(sizeof(float)) : 0);
      }
    } else {
      float values[kChunk];
      if (whole_vector && row_valid) {
        const uint4 raw = *reinterpret_cast<const uint4*>(src);
        const Element* elements = reinterpret_cast<const Element*>(&raw);
#pragma unroll
        for (int e = 0; e < kChunk; ++e) values[e] = to_float(elements[e]);
      } else {
#pragma unroll
        for (int e = 0; e < kChunk; ++e) {
          values[e] = row_valid && col + e < head_dim ? to_float(src[e]) : 0.0f;
        }
      }
#pragma unroll
      for (int e = 0; e < kChunk; e += 4) {
        *reinterpret_cast<float4*>(dst_pass + e) =
            make_float4(values[e], values[e + 1], values[e + 2], values[e + 3]);
      }
    }
  }
}

// Key tile `tile` (keys tile·kKeys …) of K or V (`t`) for KV head h_kv into `dst`: the K and V
// copies of the forward kernels and the dQ kernel, whose parameters all carry seqlen_k,
// head_dim and vectors_ok.
template <int kHeadDim, int kKeys, class Element, class Params>
__device__ __forceinline__ void load_key_tile(float* dst, const DeviceTensor<const Element>& t,
                                              const Params& p, int b, int h_kv, int tile) {
  load_tile<kHeadDim>(dst, kKeys, t, b, h_kv, tile * kKeys, p.seqlen_k, p.head_dim,
                      p.vectors_ok);
}

// Clears columns [head_dim, kHeadDim) of a tile: the head dimension is zero-padded up to the
// bucket so the products can run over a compile-time depth.
template <int kHeadDim>
__device__ __forceinline__ void zero_padding_columns(float* tile, int rows, int head_dim) {
  constexpr int kStride = kHeadDim + kPad;
  const int width = kHeadDim - head_dim;
  if (width <= 0) return;
  for (int index = threadIdx.x; index < rows * width; index += kThreads) {
    const int row = index / width;
    tile[row * kStride + head_dim + (index - row * width)] = 0.0f;
  }
}

// The tiles of `tile_size` elements that cover [begin, end): [first, end); none when the range
// is empty (a fully masked block).
struct TileSpan {
  int first;
  int end;
};
__device__ __forceinline__ TileSpan tiles_covering(int begin, int end, int tile_size) {
  const int first = begin / tile_size;
  return {first, end > begin ? (end + tile_size - 1) / tile_size : first};
}

// The online softmax's starting state: running max -inf, running sum 0, output accumulator 0.
template <int kRows, int kOut>
__device__ __forceinline__ void start_online_softmax(float (&o)[kRows][kOut], float (&m)[kRows],
                                                     float (&l)[kRows]) {
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    m[i] = -INFINITY;
    l[i] = 0.0f;
#pragma unroll
    for (int c = 0; c < kOut; ++c) o[i][c] = 0.0f;
  }
}

// acc[i][j] += sum_d a[i*kStrideA + d] * b[j*16*kStrideB + d], d in [0, kDepth).
// `a` points at this thread's first row (ty*kRows), `b` at its first column row (tx).
// Per 4-deep step: kRows + kCols 16-byte loads feed 4*kRows*kCols FMAs.
template <int kRows, int kCols, int kDepth, int kStrideA, int kStrideB>
__device__ __forceinline__ void product_abt(float (&acc)[kRows][kCols], const float* a,
                                            const float* b) {
#pragma unroll
  for (int d = 0; d < kDepth; d += 4) {
    float4 av[kRows], bv[kCols];
#pragma unroll
    for (int i = 0; i < kRows; ++i) av[i] = *reinterpret_cast<const float4*>(a + i * kStrideA + d);
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      bv[j] = *reinterpret_cast<const float4*>(b + j * kThreadsX * kStrideB + d);
    }
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
#pragma unroll
      for (int j = 0; j < kCols; ++j) {
        acc[i][j] = fmaf(av[i].x, bv[j].x, acc[i][j]);
        acc[i][j] = fmaf(av[i].y, bv[j].y, acc[i][j]);
        acc[i][j] = fmaf(av[i].z, bv[j].z, acc[i][j]);
        acc[i][j] = fmaf(av[i].w, bv[j].w, acc[i][j]);
      }
    }
  }
}

template <int kVec>
__device__ __forceinline__ void load_vector(float (&dst)[kVec], const float* src) {
  if constexpr (kVec == 4) {
    const float4 v = *reinterpret_cast<const float4*>(src);
    dst[0] = v.x, dst[1] = v.y, dst[2] = v.z, dst[3] = v.w;
  } else if constexpr (kVec == 2) {
    const float2 v = *reinterpret_cast<const float2*>(src);
    dst[0] = v.x, dst[1] = v.y;
  } else {
    dst[0] = *src;
  }
}

// acc[i][slot] += sum_k p[i*kStrideP + k] * v[k*kStrideV + out_column(slot)], k in [0, kDepth).
// `p` points at this thread's first row; `v` at the tile start. Per 4-deep step: kRows + 4 *
// (head_dim / 16 / kVec) loads feed 4 * kRows * head_dim / 16 FMAs.
template <int kRows, int kDepth, int kHeadDim, int kStrideP, int kStrideV>
__device__ __forceinline__ void product_ab(float (&acc)[kRows][kOutColumns<kHeadDim>],
                                           const float* p, const float* v, int tx) {
  constexpr int kVec = kOutVector<kHeadDim>;
  constexpr int kGroups = kOutColumns<kHeadDim> / kVec;
#pragma unroll
  for (int k = 0; k < kDepth; k += 4) {
    float4 pv[kRows];
#pragma unroll
    for (int i = 0; i < kRows; ++i) pv[i] = *reinterpret_cast<const float4*>(p + i * kStrideP + k);
#pragma unroll
    for (int e = 0; e < 4; ++e) {
#pragma unroll
      for (int g = 0; g < kGroups; ++g) {
        float vv[kVec];
        load_vector<kVec>(vv, v + (k + e) * kStrideV + g * kThreadsX * kVec + tx * kVec);
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
          const float pe = e == 0 ? pv[i].x : e == 1 ? pv[i].y : e == 2 ? pv[i].z : pv[i].w;
#pragma unroll
          for (int x = 0; x < kVec; ++x) acc[i][g * kVec + x] = fmaf(pe, vv[x], acc[i][g * kVec + x]);
        }
      }
    }
  }
}

// Sum or max over the 16 lanes that share a ty (one half of a warp).
__device__ __forceinline__ float row_max16(float x) {
#pragma unroll
  for (int offset = kThreadsX / 2; offset > 0; offset /= 2) {
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset, kThreadsX));
  }
  return x;
}
__device__ __forceinline__ float row_sum16(float x) {
#pragma unroll
  for (int offset = kThreadsX / 2; offset > 0; offset /= 2) {
    x += __shfl_xor_sync(0xffffffffu, x, offset, kThreadsX);
  }
  return x;
}

// The mask every simt kernel uses: NoMask and CausalMask are WindowMask{-1,-1} and {-1,0}.
// One kernel per (head dim, dtype) instead of three: the mask is only consulted per tile (to
// skip or to decide whether per-element tests are needed) and on boundary tiles.
inline WindowMask window_mask_of(int seqlen_q, int seqlen_k, int left, int right) {
  return WindowMask{seqlen_q, seqlen_k, left, right};
}

// The (query tile, head, batch) one forward block computes, and the order blocks start in
// (blockIdx.x fastest, then y, then z):
//   grid (query tiles, heads, batch)   no right bound: every block has the same work; neighbouring
//                                      blocks share a head's K/V in L2;
//   grid (heads, batch, query tiles)   causal/window ("longest first"): the LAST query tile of
//                                      every head first, then the one before it, ... over the
//                                      whole grid. Ordered per head instead, the last head's
//                                      longest block started near the end of the run and ran
//                                      alone (N = 4096, 128-row tiles: 64 key tiles while the
//                                      other SMs had ~2 left).
// h and b stay blockIdx components either way, so the compiler can re-read them instead of
// keeping them in registers (the D = 64 wide kernel has none to spare at 2 blocks per SM).
struct ForwardBlock {
  int q_block, h, b;
};
__device__ __forceinline__ ForwardBlock forward_block(bool longest_first) {
  if (longest_first) {
    return {static_cast<int>(gridDim.z - 1 - blockIdx.z), static_cast<int>(blockIdx.x),
            static_cast<int>(blockIdx.y)};
  }
  return {static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z)};
}
inline constexpr unsigned kMaxGridYZ = 65535;
// Host side: the grid forward_block expects. Longest first needs the query tiles in z (at most
// 65535 of them); beyond that the per-head order is kept.
inline dim3 forward_grid(unsigned q_blocks, unsigned heads, unsigned batch, bool longest_first) {
  return longest_first ? dim3(heads, batch, q_blocks) : dim3(q_blocks, heads, batch);
}
inline bool use_longest_first(unsigned q_blocks, const WindowMask& mask) {
  return mask.right >= 0 && q_blocks <= kMaxGridYZ;
}

// Half-open range of query rows that can see some key in [col_begin, col_end).
__device__ __forceinline__ void query_range(const WindowMask& mask, int col_begin, int col_end,
                                            int& row_begin, int& row_end) {
  row_begin = 0;
  row_end = mask.seqlen_q;
  // Row i sees column j iff j <= i + shift + right and j >= i + shift - left.
  if (mask.right >= 0) row_begin = max(row_begin, col_begin - mask.shift() - mask.right);
  if (mask.left >= 0) row_end = min(row_end, col_end - 1 - mask.shift() + mask.left + 1);
}

}  // namespace fattn::detail::simt
