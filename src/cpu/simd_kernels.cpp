// Highway implementations of simd_kernels.hpp. This file is compiled once per instruction set
// (foreach_target.h re-includes it); HWY_DYNAMIC_DISPATCH picks the best at run time.
// Only these leaf kernels are per-target: the drivers (threads, tiling, masks) are plain C++, so
// OpenMP never meets Highway's per-function target attributes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "cpu/simd_kernels.hpp"
#include "common/float_convert.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace fattn::detail::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using FloatTag = hn::ScalableTag<float>;
using FloatVec = hn::Vec<FloatTag>;

// Register blocking of the GEMM micro-kernel: an accumulator block of kTileRows rows ×
// kTileVectors vectors stays in registers for the whole k loop. Per k step it loads
// kTileVectors vectors of B and broadcasts kTileRows scalars of A for kTileRows·kTileVectors
// FMAs. With 32 registers (AVX-512) 6×4 uses 24 accumulators + 4 B vectors + 1 broadcast: 10
// loads per 24 FMAs keeps both FMA pipes busy on Zen 4/5 and Sapphire Rapids (2 loads/cycle).
// With 16 registers (AVX2, SSE4) 6×2 = 12 accumulators + 2 + 1 fits without spilling.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr int kTileRows = 6;
constexpr int kTileVectors = 4;
#else
constexpr int kTileRows = 6;
constexpr int kTileVectors = 2;
#endif

template <int Rows, int Vectors>
HWY_INLINE void MicroTile(const GemmOperands& g, int row0, int col0) {
  const FloatTag df;
  const size_t lanes = hn::Lanes(df);
  FloatVec acc[Rows][Vectors];
  float* c = g.c + row0 * g.ldc + col0;
  for (int r = 0; r < Rows; ++r) {
    for (int v = 0; v < Vectors; ++v) {
      acc[r][v] = g.accumulate ? hn::LoadU(df, c + r * g.ldc + v * lanes) : hn::Zero(df);
    }
  }
  const float* a_rows[Rows];
  for (int r = 0; r < Rows; ++r) a_rows[r] = g.a + (row0 + r) * g.a_row_stride;
  const float* b = g.b + col0;
  for (int p = 0; p < g.k; ++p) {
    const float* b_row = b + p * g.ldb;
    FloatVec b_vec[Vectors];
    for (int v = 0; v < Vectors; ++v) b_vec[v] = hn::LoadU(df, b_row + v * lanes);
    const std::int64_t a_offset = p * g.a_k_stride;
    for (int r = 0; r < Rows; ++r) {
      const FloatVec a_vec = hn::Set(df, a_rows[r][a_offset]);
      for (int v = 0; v < Vectors; ++v) acc[r][v] = hn::MulAdd(a_vec, b_vec[v], acc[r][v]);
    }
  }
  for (int r = 0; r < Rows; ++r) {
    for (int v = 0; v < Vectors; ++v) hn::StoreU(acc[r][v], df, c + r * g.ldc + v * lanes);
  }
}

// Edge tiles: pick the instantiation with `rows` rows (1..Rows) at run time.
template <int Rows, int Vectors>
HWY_INLINE void MicroTileRows(const GemmOperands& g, int rows, int row0, int col0) {
  if constexpr (Rows == 1) {
    MicroTile<1, Vectors>(g, row0, col0);
  } else {
    if (rows == Rows) {
      MicroTile<Rows, Vectors>(g, row0, col0);
    } else {
      MicroTileRows<Rows - 1, Vectors>(g, rows, row0, col0);
    }
  }
}

template <int Vectors>
HWY_INLINE void MicroTileVectors(const GemmOperands& g, int rows, int vectors, int row0, int col0) {
  if constexpr (Vectors == 1) {
    MicroTileRows<kTileRows, 1>(g, rows, row0, col0);
  } else {
    if (vectors == Vectors) {
      MicroTileRows<kTileRows, Vectors>(g, rows, row0, col0);
    } else {
      MicroTileVectors<Vectors - 1>(g, rows, vectors, row0, col0);
    }
  }
}

// Column panels outside, rows inside: the k × (kTileVectors·lanes) panel of B is reused from L1
// by every row block of A.
void Gemm(const GemmOperands& g) {
  const FloatTag df;
  const int lanes = static_cast<int>(hn::Lanes(df));
  const int total_vectors = g.n / lanes;
  for (int v0 = 0; v0 < total_vectors; v0 += kTileVectors) {
    const int vectors = std::min(kTileVectors, total_vectors - v0);
    for (int row0 = 0; row0 < g.m; row0 += kTileRows) {
      const int rows = std::min(kTileRows, g.m - row0);
      if (rows == kTileRows && vectors == kTileVectors) {
        MicroTile<kTileRows, kTileVectors>(g, row0, v0 * lanes);
      } else {
        MicroTileVectors<kTileVectors>(g, rows, vectors, row0, v0 * lanes);
      }
    }
  }
}

// 2^x for x ≤ 127, exact 0 for x ≤ −127 (so masked scores, set to −inf, give exactly 0 and never
// NaN). 2^x = 2^n · 2^f with n = round(x), f ∈ [−½, ½]; 2^f by its Taylor series to degree 6,
// whose truncation error (½·ln2)^7/7! ≈ 1.2e-7 is at the level of float rounding.
constexpr float kExp2Lowest = -127.0f;   // exponent field 0: the product below is exactly 0
constexpr float kExp2Highest = 127.0f;   // largest finite power of two
constexpr int kFloatExponentBias = 127;
constexpr int kFloatMantissaBits = 23;
constexpr float kExp2Taylor[] = {1.0f,
                                 0.6931471805599453f,     // ln2
                                 0.2402265069591007f,     // ln2^2 / 2!
                                 0.05550410866482158f,    // ln2^3 / 3!
                                 0.009618129107628477f,   // ln2^4 / 4!
                                 0.0013333558146428443f,  // ln2^5 / 5!
                                 0.00015403530393381608f};  // ln2^6 / 6!

HWY_INLINE FloatVec Exp2(FloatVec x) {
  const FloatTag df;
  const hn::RebindToSigned<FloatTag> di;
  x = hn::Min(hn::Max(x, hn::Set(df, kExp2Lowest)), hn::Set(df, kExp2Highest));
  const FloatVec n = hn::Round(x);
  const FloatVec f = x - n;
  FloatVec poly = hn::Set(df, kExp2Taylor[6]);
  poly = hn::MulAdd(poly, f, hn::Set(df, kExp2Taylor[5]));
  poly = hn::MulAdd(poly, f, hn::Set(df, kExp2Taylor[4]));
  poly = hn::MulAdd(poly, f, hn::Set(df, kExp2Taylor[3]));
  poly = hn::MulAdd(poly, f, hn::Set(df, kExp2Taylor[2]));
  poly = hn::MulAdd(poly, f, hn::Set(df, kExp2Taylor[1]));
  poly = hn::MulAdd(poly, f, hn::Set(df, kExp2Taylor[0]));
  const auto exponent = hn::ShiftLeft<kFloatMantissaBits>(
      hn::ConvertTo(di, n) + hn::Set(di, kFloatExponentBias));
  return poly * hn::BitCast(df, exponent);
}

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();
constexpr float kLn2 = 0.6931471805599453f;

// Lanes of columns [col, col + lanes) that lie in [begin, end).
HWY_INLINE hn::Mask<FloatTag> VisibleLanes(int col, int begin, int end) {
  const FloatTag df;
  const hn::RebindToSigned<FloatTag> di;
  const auto index = hn::Iota(di, col);
  const auto visible = hn::And(index > hn::Set(di, begin - 1), index < hn::Set(di, end));
  return hn::RebindMask(df, visible);
}

void ZeroRow(float* row, int cols) { std::memset(row, 0, sizeof(float) * cols); }

// Maximum over the visible columns [begin, end) of the row, in the log2 domain (scores ×
// scale_log2). Nothing is stored: the exp pass below reads the raw scores again.
HWY_INLINE float VisibleMax(const ScoreTile& t, const float* row, int begin, int end) {
  const FloatTag df;
  const int lanes = static_cast<int>(hn::Lanes(df));
  const FloatVec scale = hn::Set(df, t.scale_log2);
  const FloatVec minus_inf = hn::Set(df, kMinusInfinity);
  FloatVec max = minus_inf;
  for (int j = begin / lanes * lanes; j < end; j += lanes) {
    FloatVec v = hn::LoadU(df, row + j) * scale;
    if (j < begin || j + lanes > end) v = hn::IfThenElse(VisibleLanes(j, begin, end), v, minus_inf);
    max = hn::Max(max, v);
  }
  return hn::GetLane(hn::MaxOfLanes(df, max));
}

// row = exp2(row · scale_log2 − shift) on [begin, end), 0 elsewhere; returns the row sum.
HWY_INLINE float Exp2ShiftedAndSum(const ScoreTile& t, float* row, int begin, int end, float shift) {
  const FloatTag df;
  const int lanes = static_cast<int>(hn::Lanes(df));
  const FloatVec scale = hn::Set(df, t.scale_log2);
  const FloatVec shift_vec = hn::Set(df, shift);
  FloatVec sum = hn::Zero(df);
  for (int j = 0; j < t.cols; j += lanes) {
    FloatVec p = Exp2(hn::MulSub(hn::LoadU(df, row + j), scale, shift_vec));
    if (j < begin || j + lanes > end) p = hn::IfThenElseZero(VisibleLanes(j, begin, end), p);
    hn::StoreU(p, df, row + j);
    sum = sum + p;
  }
  return hn::GetLane(hn::SumOfLanes(df, sum));
}

HWY_INLINE void ScaleRow(float* row, int cols, float factor) {
  const FloatTag df;
  const int lanes = static_cast<int>(hn::Lanes(df));
  const FloatVec f = hn::Set(df, factor);
  for (int j = 0; j < cols; j += lanes) hn::StoreU(hn::LoadU(df, row + j) * f, df, row + j);
}

void OnlineSoftmaxStep(const ScoreTile& t, float* row_max_log2, float* row_sum, float* out,
                       std::int64_t ld_out, int out_width) {
  for (int r = 0; r < t.rows; ++r) {
    float* row = t.scores + r * t.ld;
    const int begin = t.visible_begin[r], end = t.visible_end[r];
    if (begin >= end) {
      ZeroRow(row, t.cols);
      continue;
    }
    const float tile_max = VisibleMax(t, row, begin, end);
    const float old_max = row_max_log2[r];
    const float new_max = std::max(old_max, tile_max);
    if (new_max > old_max && old_max != kMinusInfinity) {
      // The running max moved: earlier terms were relative to a smaller max.
      const float correction = std::exp2(old_max - new_max);
      row_sum[r] *= correction;
      ScaleRow(out + r * ld_out, out_width, correction);
    }
    row_max_log2[r] = new_max;
    row_sum[r] += Exp2ShiftedAndSum(t, row, begin, end, new_max);
  }
}

void ProbabilitiesFromLse(const ScoreTile& t, const float* lse_log2) {
  const FloatTag df;
  const int lanes = static_cast<int>(hn::Lanes(df));
  const FloatVec scale = hn::Set(df, t.scale_log2);
  for (int r = 0; r < t.rows; ++r) {
    float* row = t.scores + r * t.ld;
    const int begin = t.visible_begin[r], end = t.visible_end[r];
    if (begin >= end || lse_log2[r] == kMinusInfinity) {
      ZeroRow(row, t.cols);
      continue;
    }
    const FloatVec lse = hn::Set(df, lse_log2[r]);
    for (int j = 0; j < t.cols; j += lanes) {
      FloatVec p = Exp2(hn::MulSub(hn::LoadU(df, row + j), scale, lse));
      if (j < begin || j + lanes > end) p = hn::IfThenElseZero(VisibleLanes(j, begin, end), p);
      hn::StoreU(p, df, row + j);
    }
  }
}

void SoftmaxRows(const ScoreTile& t, float* lse) {
  for (int r = 0; r < t.rows; ++r) {
    float* row = t.scores + r * t.ld;
    const int begin = t.visible_begin[r], end = t.visible_end[r];
    if (begin >= end) {
      ZeroRow(row, t.cols);
      lse[r] = kMinusInfinity;
      continue;
    }
    const float max = VisibleMax(t, row, begin, end);
    const float sum = Exp2ShiftedAndSum(t, row, begin, end, max);
    ScaleRow(row, t.cols, 1.0f / sum);
    lse[r] = (max + std::log2(sum)) * kLn2;
  }
}

void SoftmaxGradient(const float* probabilities, std::int64_t ld_p, float* dp, std::int64_t ld_dp,
                     int rows, int cols, const float* row_dot) {
  const FloatTag df;
  const int lanes = static_cast<int>(hn::Lanes(df));
  for (int r = 0; r < rows; ++r) {
    const float* p = probabilities + r * ld_p;
    float* d = dp + r * ld_dp;
    const FloatVec dot = hn::Set(df, row_dot[r]);
    for (int j = 0; j < cols; j += lanes) {
      hn::StoreU(hn::LoadU(df, p + j) * (hn::LoadU(df, d + j) - dot), df, d + j);
    }
  }
}

template <class Half>
HWY_INLINE void PromoteHalves(const Half* src, int count, float* dst, float (*scalar)(std::uint16_t)) {
  const FloatTag df;
  const hn::Rebind<Half, FloatTag> dh;
  const int lanes = static_cast<int>(hn::Lanes(df));
  int i = 0;
  for (; i + lanes <= count; i += lanes) hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, src + i)), df, dst + i);
  const auto* bits = reinterpret_cast<const std::uint16_t*>(src);
  for (; i < count; ++i) dst[i] = scalar(bits[i]);
}

void ConvertToFloat(const void* src, DType dtype, int count, float* dst) {
  switch (dtype) {
    case DType::bfloat16:
      PromoteHalves(static_cast<const hwy::bfloat16_t*>(src), count, dst, &bfloat16_to_float);
      break;
    case DType::float16:
      PromoteHalves(static_cast<const hwy::float16_t*>(src), count, dst, &float16_to_float);
      break;
    default:
      std::memcpy(dst, src, sizeof(float) * count);
      break;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace fattn::detail::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fattn::detail::simd {

HWY_EXPORT(Gemm);
HWY_EXPORT(OnlineSoftmaxStep);
HWY_EXPORT(ProbabilitiesFromLse);
HWY_EXPORT(SoftmaxRows);
HWY_EXPORT(SoftmaxGradient);
HWY_EXPORT(ConvertToFloat);

void gemm(const GemmOperands& operands) {
  if (operands.m > 0 && operands.n > 0) HWY_DYNAMIC_DISPATCH(Gemm)(operands);
}

void convert_to_float(const void* src, DType dtype, int count, float* dst) {
  HWY_DYNAMIC_DISPATCH(ConvertToFloat)(src, dtype, count, dst);
}

void online_softmax_step(const ScoreTile& tile, float* row_max_log2, float* row_sum, float* out,
                         std::int64_t ld_out, int out_width) {
  HWY_DYNAMIC_DISPATCH(OnlineSoftmaxStep)(tile, row_max_log2, row_sum, out, ld_out, out_width);
}

void probabilities_from_lse(const ScoreTile& tile, const float* lse_log2) {
  HWY_DYNAMIC_DISPATCH(ProbabilitiesFromLse)(tile, lse_log2);
}

void softmax_rows(const ScoreTile& tile, float* lse) { HWY_DYNAMIC_DISPATCH(SoftmaxRows)(tile, lse); }

void softmax_gradient(const float* probabilities, std::int64_t ld_p, float* dp, std::int64_t ld_dp,
                      int rows, int cols, const float* row_dot) {
  HWY_DYNAMIC_DISPATCH(SoftmaxGradient)(probabilities, ld_p, dp, ld_dp, rows, cols, row_dot);
}

std::vector<std::int64_t> usable_instruction_sets() { return hwy::SupportedAndGeneratedTargets(); }

const char* instruction_set_name(std::int64_t target) { return hwy::TargetName(target); }

void pin_instruction_set(std::int64_t target) { hwy::SetSupportedTargetsForTest(target); }

}  // namespace fattn::detail::simd
#endif  // HWY_ONCE
