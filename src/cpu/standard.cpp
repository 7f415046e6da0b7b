// cpu_standard: attention as written in the textbook, one full pass per formula, each
// materializing an Nq × Nk float32 matrix per (batch, head):
//   forward   S = Q·Kᵀ  →  P = softmax(S) (masked, lse)  →  O = P·V
//   backward  S = Q·Kᵀ → P = exp(S − lse) → dP = dO·Vᵀ → dS = P∘(dP − D) → dV = Pᵀ·dO,
//             dK = dSᵀ·Q·scale, dQ = dS·K·scale
// It is the baseline cpu_flash is measured against, so it is built from the very same SIMD GEMM
// micro-kernel, softmax kernels and threads: the difference between the two is the memory
// traffic of the N×N matrices (and the full, unskipped S under a mask), not a slower loop.
// Threads split each pass by row blocks of the current head; heads run one after another, so
// the N×N buffers are allocated once per call.
#include <algorithm>
#include <cmath>
#include <limits>

#include "api/backends.hpp"
#include "cpu/packing.hpp"
#include "cpu/phase_trace.hpp"
#include "cpu/threading.hpp"
#include "cpu/workspace.hpp"

namespace fattn::detail {
namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();
constexpr int kForwardPasses = 3;   // S, softmax, P·V
constexpr int kBackwardPasses = 7;  // S, P, dP, dS, dV, dK, dQ

struct StandardShape : TileShape {
  std::int64_t keys_padded;  // row length of the N×N matrices: key_tiles · kKeyTile

  explicit StandardShape(const AttentionArgs& a)
      : TileShape(a, kQueryBlock),
        keys_padded(std::int64_t{key_tiles} * kKeyTile) {}

  int block_rows(int block) const {
    return static_cast<int>(std::min<std::int64_t>(kQueryBlock, seqlen_q - std::int64_t{block} * kQueryBlock));
  }
  int tile_keys(int tile) const {
    return static_cast<int>(std::min<std::int64_t>(kKeyTile, seqlen_k - std::int64_t{tile} * kKeyTile));
  }
  std::int64_t matrix_floats() const { return seqlen_q * keys_padded; }
  std::int64_t tiles_t_floats() const { return std::int64_t{key_tiles} * dim * kKeyTile; }
  std::int64_t key_rows_floats() const { return keys_padded * padded; }
  std::int64_t query_rows_floats() const { return seqlen_q * padded; }
};

// matrix (Nq × keys_padded) = rows (Nq × padded) · tilesᵀ, one (query block, key tile) per
// work item. Inside an omp parallel region.
void scores_pass(const StandardShape& s, const float* rows, const float* tiles_t, float* matrix) {
#pragma omp for schedule(static) collapse(2)
  for (int block = 0; block < s.query_blocks; ++block) {
    for (int tile = 0; tile < s.key_tiles; ++tile) {
      const std::int64_t row0 = std::int64_t{block} * kQueryBlock;
      simd::gemm(simd::gemm_operands(s.block_rows(block), kKeyTile, s.dim, rows + row0 * s.padded, s.padded, 1,
                               tiles_t + std::int64_t{tile} * s.dim * kKeyTile, kKeyTile,
                               matrix + row0 * s.keys_padded + std::int64_t{tile} * kKeyTile,
                               s.keys_padded, false));
    }
  }
}

// Visible key range of every row of a query block, over the whole key axis.
template <class Mask>
void block_visibility(const Mask& mask, const StandardShape& s, int block, int* begin, int* end) {
  visible_columns(mask, block * kQueryBlock, s.block_rows(block), 0, static_cast<int>(s.seqlen_k), begin, end);
}

void pack_keys_and_values(const AttentionArgs& a, const StandardShape& s, std::int64_t b, std::int64_t h_kv,
                          float* keys_t, float* values_t, float* key_rows, float* value_rows,
                          float* scratch) {
#pragma omp for schedule(static)
  for (int tile = 0; tile < s.key_tiles; ++tile) {
    const PhaseScope phase("pack K, V");
    const std::int64_t key0 = std::int64_t{tile} * kKeyTile;
    const int count = s.tile_keys(tile);
    if (keys_t) load_tile_transposed(a.k, b, h_kv, key0, count, s.dim, keys_t + key0 * s.dim, scratch);
    if (values_t) load_tile_transposed(a.v, b, h_kv, key0, count, s.dim, values_t + key0 * s.dim, scratch);
    for (auto [tensor, rows] : {std::pair{&a.k, key_rows}, std::pair{&a.v, value_rows}}) {
      if (!rows) continue;
      float* tile_rows = rows + key0 * s.padded;
      load_rows(*tensor, b, h_kv, key0, count, s.dim, tile_rows, s.padded);
      std::fill(tile_rows + std::int64_t{count} * s.padded, tile_rows + std::int64_t{kKeyTile} * s.padded, 0.0f);
    }
  }
}

}  // namespace

Status cpu_standard_forward(const AttentionArgs& args) {
  const StandardShape s(args);
  const int threads = resolve_threads(args.context);
  WorkspaceMeter meter;
  FloatBuffer scores(s.matrix_floats(), meter);
  if (!scores.ok(s.matrix_floats())) return allocation_failure("cpu_standard", "the score matrix", s.matrix_floats());
  const std::int64_t operand_floats = s.tiles_t_floats() + s.key_rows_floats() + 2 * s.query_rows_floats() +
                                      std::int64_t{threads} * s.padded;
  FloatBuffer operands(operand_floats, meter);
  if (!operands.ok(operand_floats)) return allocation_failure("cpu_standard", "packed operands", operand_floats);
  float* const keys_t = operands.data();
  float* const values = keys_t + s.tiles_t_floats();
  float* const queries = values + s.key_rows_floats();
  float* const out = queries + s.query_rows_floats();
  float* const scratch = out + s.query_rows_floats();

  with_mask(args, [&](const auto& mask) {
#pragma omp parallel num_threads(threads)
    {
      float* my_scratch = scratch + std::int64_t{omp_get_thread_num()} * s.padded;
      for (std::int64_t b = 0; b < args.problem.batch; ++b) {
        for (std::int64_t h_kv = 0; h_kv < args.problem.heads_kv; ++h_kv) {
          pack_keys_and_values(args, s, b, h_kv, keys_t, nullptr, nullptr, values, my_scratch);
          for (int g = 0; g < s.group; ++g) {
            const std::int64_t h = h_kv * s.group + g;
#pragma omp for schedule(static)
            for (int block = 0; block < s.query_blocks; ++block) {
              const PhaseScope phase("load Q");
              const std::int64_t row0 = std::int64_t{block} * kQueryBlock;
              load_rows(args.q, b, h, row0, s.block_rows(block), s.dim, queries + row0 * s.padded, s.padded);
            }
            {
              const PhaseScope phase("S = Q·Kᵀ");
              scores_pass(s, queries, keys_t, scores.data());  // pass 1: S = Q·Kᵀ
            }
            float* lse = static_cast<float*>(args.lse.data) + lse_offset(args.lse, b, h);
#pragma omp for schedule(static)
            for (int block = 0; block < s.query_blocks; ++block) {  // pass 2: P = softmax(S)
              const PhaseScope phase("P = softmax(S)");
              int begin[kQueryBlock], end[kQueryBlock];
              block_visibility(mask, s, block, begin, end);
              const std::int64_t row0 = std::int64_t{block} * kQueryBlock;
              simd::softmax_rows({scores.data() + row0 * s.keys_padded, s.keys_padded, s.block_rows(block),
                                  static_cast<int>(s.keys_padded), begin, end, s.scale_log2},
                                 lse + row0);
            }
#pragma omp for schedule(static)
            for (int block = 0; block < s.query_blocks; ++block) {  // pass 3: O = P·V
              const PhaseScope phase("O = P·V");
              const std::int64_t row0 = std::int64_t{block} * kQueryBlock;
              const int rows = s.block_rows(block);
              simd::gemm(simd::gemm_operands(rows, s.padded, static_cast<int>(s.seqlen_k),
                                       scores.data() + row0 * s.keys_padded, s.keys_padded, 1, values, s.padded,
                                       out + row0 * s.padded, s.padded, false));
              for (int r = 0; r < rows; ++r) {
                store_row(out + (row0 + r) * s.padded, 1.0f, s.dim, args.out, b, row0 + r, h);
              }
            }
          }
        }
      }
    }
  });

  if (args.context.stats) {
    args.context.stats->workspace_bytes = meter.peak();
    args.context.stats->kernel_launches = kForwardPasses;
  }
  return Status::Ok();
}

Status cpu_standard_backward(const AttentionArgs& args) {
  const StandardShape s(args);
  const int threads = resolve_threads(args.context);
  WorkspaceMeter meter;
  // P and dP/dS: the two N×N matrices of the backward.
  FloatBuffer matrices(2 * s.matrix_floats(), meter);
  if (!matrices.ok(2 * s.matrix_floats())) {
    return allocation_failure("cpu_standard", "the P and dS matrices", 2 * s.matrix_floats());
  }
  float* const probabilities = matrices.data();
  float* const dscores = probabilities + s.matrix_floats();
  const std::int64_t operand_floats = 2 * s.tiles_t_floats() + 3 * s.key_rows_floats() +
                                      3 * s.query_rows_floats() + 2 * s.seqlen_q +
                                      std::int64_t{threads} * s.padded;
  FloatBuffer operands(operand_floats, meter);
  if (!operands.ok(operand_floats)) return allocation_failure("cpu_standard", "packed operands", operand_floats);
  float* const keys_t = operands.data();
  float* const values_t = keys_t + s.tiles_t_floats();
  float* const keys = values_t + s.tiles_t_floats();
  float* const dk = keys + s.key_rows_floats();
  float* const dv = dk + s.key_rows_floats();
  float* const queries = dv + s.key_rows_floats();
  float* const dout = queries + s.query_rows_floats();
  float* const dq = dout + s.query_rows_floats();
  float* const row_dot = dq + s.query_rows_floats();
  float* const lse_log2 = row_dot + s.seqlen_q;
  float* const scratch = lse_log2 + s.seqlen_q;

  with_mask(args, [&](const auto& mask) {
#pragma omp parallel num_threads(threads)
    {
      float* my_scratch = scratch + std::int64_t{omp_get_thread_num()} * s.padded;
      for (std::int64_t b = 0; b < args.problem.batch; ++b) {
        for (std::int64_t h_kv = 0; h_kv < args.problem.heads_kv; ++h_kv) {
          pack_keys_and_values(args, s, b, h_kv, keys_t, values_t, keys, nullptr, my_scratch);
#pragma omp for schedule(static)
          for (std::int64_t i = 0; i < 2 * s.key_rows_floats(); ++i) dk[i] = 0.0f;  // dk and dv
          for (int g = 0; g < s.group; ++g) {
            const std::int64_t h = h_kv * s.group + g;
            const float* lse = static_cast<const float*>(args.lse.data) + lse_offset(args.lse, b, h);
#pragma omp for schedule(static)
            for (int block = 0; block < s.query_blocks; ++block) {
              const PhaseScope phase("load Q, dO; D = rowsum(dO∘O)");
              const std::int64_t row0 = std::int64_t{block} * kQueryBlock;
              const int rows = s.block_rows(block);
              load_rows(args.q, b, h, row0, rows, s.dim, queries + row0 * s.padded, s.padded);
              load_rows(args.dout, b, h, row0, rows, s.dim, dout + row0 * s.padded, s.padded);
              for (std::int64_t i = row0; i < row0 + rows; ++i) {
                simd::convert_to_float(row_pointer(args.out, b, i, h), args.out.dtype, s.dim, my_scratch);
                float dot = 0.0f;
                for (int d = 0; d < s.dim; ++d) dot += dout[i * s.padded + d] * my_scratch[d];
                row_dot[i] = dot;
                lse_log2[i] = lse[i] == kMinusInfinity ? kMinusInfinity : lse[i] * kLog2e;
              }
            }
            {
              const PhaseScope phase("S = Q·Kᵀ");
              scores_pass(s, queries, keys_t, probabilities);  // pass 1: S = Q·Kᵀ
            }
#pragma omp for schedule(static)
            for (int block = 0; block < s.query_blocks; ++block) {  // pass 2: P = exp(S − lse)
              const PhaseScope phase("P = exp(S − lse)");
              int begin[kQueryBlock], end[kQueryBlock];
              block_visibility(mask, s, block, begin, end);
              const std::int64_t row0 = std::int64_t{block} * kQueryBlock;
              simd::probabilities_from_lse({probabilities + row0 * s.keys_padded, s.keys_padded, s.block_rows(block),
                                            static_cast<int>(s.keys_padded), begin, end, s.scale_log2},
                                           lse_log2 + row0);
            }
            {
              const PhaseScope phase("dP = dO·Vᵀ");
              scores_pass(s, dout, values_t, dscores);  // pass 3: dP = dO·Vᵀ
            }
#pragma omp for schedule(static)
            for (int block = 0; block < s.query_blocks; ++block) {  // pass 4: dS = P∘(dP − D)
              const PhaseScope phase("dS = P∘(dP − D)");
              const std::int64_t offset = std::int64_t{block} * kQueryBlock * s.keys_padded;
              simd::softmax_gradient(probabilities + offset, s.keys_padded, dscores + offset, s.keys_padded,
                                     s.block_rows(block), static_cast<int>(s.keys_padded),
                                     row_dot + std::int64_t{block} * kQueryBlock);
            }
            const int seqlen_q = static_cast<int>(s.seqlen_q);
#pragma omp for schedule(static)
            for (int tile = 0; tile < s.key_tiles; ++tile) {  // passes 5, 6: dV += Pᵀ·dO, dK += dSᵀ·Q
              const PhaseScope phase("dV += Pᵀ·dO, dK += dSᵀ·Q");
              const std::int64_t key0 = std::int64_t{tile} * kKeyTile;
              const int cols = s.tile_keys(tile);
              simd::gemm(simd::gemm_operands(cols, s.padded, seqlen_q, probabilities + key0, 1, s.keys_padded, dout,
                                       s.padded, dv + key0 * s.padded, s.padded, true));
              simd::gemm(simd::gemm_operands(cols, s.padded, seqlen_q, dscores + key0, 1, s.keys_padded, queries,
                                       s.padded, dk + key0 * s.padded, s.padded, true));
            }
#pragma omp for schedule(static)
            for (int block = 0; block < s.query_blocks; ++block) {  // pass 7: dQ = dS·K·scale
              const PhaseScope phase("dQ = dS·K");
              const std::int64_t row0 = std::int64_t{block} * kQueryBlock;
              const int rows = s.block_rows(block);
              simd::gemm(simd::gemm_operands(rows, s.padded, static_cast<int>(s.seqlen_k),
                                       dscores + row0 * s.keys_padded, s.keys_padded, 1, keys, s.padded,
                                       dq + row0 * s.padded, s.padded, false));
              for (int r = 0; r < rows; ++r) {
                store_row(dq + (row0 + r) * s.padded, s.scale, s.dim, args.dq, b, row0 + r, h);
              }
            }
          }
#pragma omp for schedule(static)
          for (std::int64_t j = 0; j < s.seqlen_k; ++j) {
            store_row(dk + j * s.padded, s.scale, s.dim, args.dk, b, j, h_kv);
            store_row(dv + j * s.padded, 1.0f, s.dim, args.dv, b, j, h_kv);
          }
        }
      }
    }
  });

  if (args.context.stats) {
    args.context.stats->workspace_bytes = meter.peak();
    args.context.stats->kernel_launches = kBackwardPasses;
  }
  return Status::Ok();
}

}  // namespace fattn::detail
