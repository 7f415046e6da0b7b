// fill_random_parallel (tools/common/host_tensor.hpp), the `fattn` tools' inputs: the same values
// whatever the thread count, inside [-scale, scale), spread over the range, and the padding of a
// strided view left as it was.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "common/float_convert.hpp"
#include "host_tensor.hpp"

namespace fattn::tools {
namespace {

constexpr int kManyThreads = 4;

HostTensor filled(DType dtype, int threads, std::uint64_t seed, std::int64_t row_padding = 0) {
  HostTensor tensor = make_tensor(dtype, {2, 33, 3, 72}, row_padding);
  poison(tensor);
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  fill_random_parallel(tensor, seed, 0.5f);
  omp_set_num_threads(before);
  return tensor;
}

TEST(FillRandomParallel, SameValuesForAnyThreadCount) {
  for (DType dtype : {DType::float32, DType::float16, DType::bfloat16}) {
    const HostTensor one = filled(dtype, 1, 7);
    const HostTensor many = filled(dtype, kManyThreads, 7);
    EXPECT_EQ(one.storage, many.storage) << to_string(dtype);
  }
}

TEST(FillRandomParallel, ValuesInRangeSpreadAndSeeded) {
  const HostTensor tensor = filled(DType::float32, kManyThreads, 11);
  float lowest = 1.0f, highest = -1.0f;
  double sum = 0.0;
  for (std::int64_t i = 0; i < tensor.numel(); ++i) {
    const float value = tensor.at(i);
    ASSERT_TRUE(std::isfinite(value)) << i;
    ASSERT_GE(value, -0.5f);
    ASSERT_LT(value, 0.5f);
    lowest = std::min(lowest, value);
    highest = std::max(highest, value);
    sum += value;
  }
  // 14,256 uniform values: the extremes within 1 % of the ends, the mean near 0.
  EXPECT_LT(lowest, -0.49f);
  EXPECT_GT(highest, 0.49f);
  EXPECT_LT(std::abs(sum / static_cast<double>(tensor.numel())), 0.02);
  EXPECT_NE(filled(DType::float32, kManyThreads, 12).storage, tensor.storage);
}

TEST(FillRandomParallel, PaddedRowsKeepTheirPadding) {
  constexpr std::int64_t kPadding = 3;
  const HostTensor padded = filled(DType::bfloat16, kManyThreads, 5, kPadding);
  const HostTensor packed = filled(DType::bfloat16, kManyThreads, 5);
  for (std::int64_t i = 0; i < packed.numel(); ++i) ASSERT_EQ(padded.at(i), packed.at(i)) << i;
  const std::int64_t row_stride = padded.view.stride[2];
  const std::int64_t rows = padded.numel() / padded.view.shape[3];
  for (std::int64_t row = 0; row < rows; ++row)
    for (std::int64_t pad = 0; pad < kPadding; ++pad) {
      const std::int64_t offset = row * row_stride + padded.view.shape[3] + pad;
      ASSERT_TRUE(std::isnan(detail::load_as_float(padded.view.data, DType::bfloat16, offset)))
          << "row " << row << " padding " << pad;
    }
}

}  // namespace
}  // namespace fattn::tools
