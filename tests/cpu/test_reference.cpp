// Properties of the float64 reference itself (it is the oracle, so it is checked against facts
// that hold for exact attention rather than against another implementation).
#include <gtest/gtest.h>

#include <cmath>

#include "support/test_tensors.hpp"

namespace fattn::testing {
namespace {

Options reference_options() {
  Options o;
  o.backend = Backend::cpu_reference;
  return o;
}

TEST(Reference, SingleKeyReturnsItsValue) {
  AttentionTensors t(DType::float32, 2, 17, 1, 4, 2, 72, 11);
  ASSERT_TRUE(forward(t.q.view, t.k.view, t.v.view, t.out.view, t.lse.view, reference_options()).ok());
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t i = 0; i < 17; ++i)
      for (std::int64_t h = 0; h < 4; ++h)
        for (std::int64_t d = 0; d < 72; ++d) {
          const std::int64_t out_index = ((b * 17 + i) * 4 + h) * 72 + d;
          const std::int64_t v_index = ((b * 1 + 0) * 2 + h / 2) * 72 + d;
          EXPECT_FLOAT_EQ(t.out.at(out_index), t.v.at(v_index));
        }
}

TEST(Reference, FullyMaskedRowsGiveZeroAndMinusInfinity) {
  // Causal with Nq > Nk: the first Nq - Nk rows see no key.
  AttentionTensors t(DType::float32, 1, 9, 4, 2, 2, 8, 12);
  Options o = reference_options();
  o.causal = true;
  ASSERT_TRUE(forward(t.q.view, t.k.view, t.v.view, t.out.view, t.lse.view, o).ok());
  for (std::int64_t h = 0; h < 2; ++h)
    for (std::int64_t i = 0; i < 9; ++i) {
      const float lse = t.lse.at(h * 9 + i);
      if (i < 5) {
        EXPECT_TRUE(std::isinf(lse) && lse < 0) << "row " << i;
        for (std::int64_t d = 0; d < 8; ++d) EXPECT_EQ(t.out.at((i * 2 + h) * 8 + d), 0.0f);
      } else {
        EXPECT_TRUE(std::isfinite(lse)) << "row " << i;
      }
    }
}

}  // namespace
}  // namespace fattn::testing
