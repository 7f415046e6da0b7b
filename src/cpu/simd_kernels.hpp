// The SIMD building blocks shared by cpu_flash and cpu_standard. Each is compiled by Google
// Highway for several instruction sets (SSE4 / AVX2 / AVX-512 and a portable fallback) and the
// best one for the running CPU is picked at run time (simd_kernels.cpp).
//
// All operands are float32 "packed" buffers: rows padded to a multiple of kFloatsPerLine floats
// (the padding holds zeros), so every kernel works on whole vectors for any vector width up to
// 512 bits. Scores are kept in the log2 domain inside the kernels: s2 = s · scale · log2(e), so
// exp() becomes a cheap exp2().
#pragma once

#include <cstdint>
#include <vector>

#include "fattn/types.hpp"

namespace fattn::detail::simd {

// Width of the widest vector (AVX-512) in floats: every packed row length is a multiple of it.
inline constexpr int kFloatsPerLine = 16;

inline constexpr int round_up_to_line(int count) {
  return (count + kFloatsPerLine - 1) / kFloatsPerLine * kFloatsPerLine;
}

// C (m × n) = [C +] A (m × k) · B (k × n), all float32.
// A is addressed with two strides so that a transposed operand costs nothing:
//   A(i, p) = a[i * a_row_stride + p * a_k_stride]   (A row-major: {lda, 1}; Aᵀ: {1, lda}).
// B and C are row-major; n, ldb and ldc are multiples of kFloatsPerLine.
struct GemmOperands {
  int m = 0, n = 0, k = 0;
  const float* a = nullptr;
  std::int64_t a_row_stride = 0, a_k_stride = 1;
  const float* b = nullptr;
  std::int64_t ldb = 0;
  float* c = nullptr;
  std::int64_t ldc = 0;
  bool accumulate = false;
};
void gemm(const GemmOperands& operands);

// The operands of one gemm() call, in the order of its formula C = [C +] A · B.
inline GemmOperands gemm_operands(int m, int n, int k, const float* a, std::int64_t a_row_stride,
                                  std::int64_t a_k_stride, const float* b, std::int64_t ldb, float* c,
                                  std::int64_t ldc, bool accumulate) {
  GemmOperands g;
  g.m = m, g.n = n, g.k = k;
  g.a = a, g.a_row_stride = a_row_stride, g.a_k_stride = a_k_stride;
  g.b = b, g.ldb = ldb, g.c = c, g.ldc = ldc, g.accumulate = accumulate;
  return g;
}

// dst[0, count) = src[0, count) converted from `dtype` to float32.
void convert_to_float(const void* src, DType dtype, int count, float* dst);

// A tile of raw scores S = Q·Kᵀ (rows × cols, row stride ld) with, for every row, the half-open
// range of visible columns [visible_begin[r], visible_end[r]) (empty = the row sees nothing in
// this tile). cols is a multiple of kFloatsPerLine.
struct ScoreTile {
  float* scores = nullptr;
  std::int64_t ld = 0;
  int rows = 0, cols = 0;
  const int* visible_begin = nullptr;
  const int* visible_end = nullptr;
  float scale_log2 = 1.0f;  // softmax scale × log2(e)
};

// One step of the online softmax (FlashAttention forward). For each row: new running max
// m' = max(m, max_j s2_j); the output row and running sum are rescaled by exp2(m − m');
// scores become unnormalized probabilities p_j = exp2(s2_j − m') (0 where masked) and
// row_sum += Σ_j p_j. out has row stride ld_out and out_width (a multiple of kFloatsPerLine)
// columns.
void online_softmax_step(const ScoreTile& tile, float* row_max_log2, float* row_sum,
                         float* out, std::int64_t ld_out, int out_width);

// Probabilities from the saved log-sum-exp (backward recomputation): p = exp2(s2 − lse2), 0 where
// masked or where lse2 = −inf (a fully masked row).
void probabilities_from_lse(const ScoreTile& tile, const float* lse_log2);

// Full-row softmax of the standard backend: scores become normalized probabilities in place and
// lse[r] receives the natural-log log-sum-exp (−inf and zero probabilities for a row that sees
// no key).
void softmax_rows(const ScoreTile& tile, float* lse);

// dS = P ∘ (dP − D) in place of dP, where D[r] = rowsum(dO ∘ O).
void softmax_gradient(const float* probabilities, std::int64_t ld_p, float* dp, std::int64_t ld_dp,
                      int rows, int cols, const float* row_dot);

// Test hooks. The instruction sets the kernels were compiled for that this CPU can run (Highway
// target bits, best first), their names, and a way to pin run-time dispatch to one of them so
// that every variant can be checked on one machine; pin_instruction_set(0) restores the best.
std::vector<std::int64_t> usable_instruction_sets();
const char* instruction_set_name(std::int64_t target);
void pin_instruction_set(std::int64_t target);

}  // namespace fattn::detail::simd
