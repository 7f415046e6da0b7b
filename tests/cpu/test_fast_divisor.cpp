// FastDivisor (src/common/fast_divisor.hpp) against the hardware division: every divisor up to
// a few thousand, the large ones near powers of two, and dividends at the edges of each
// quotient (k·d - 1, k·d) as well as random ones up to 2^31 - 1.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "common/fast_divisor.hpp"

namespace {

using fattn::detail::FastDivisor;

constexpr int kLargestDividend = std::numeric_limits<int>::max();

std::vector<int> divisors_to_check() {
  std::vector<int> divisors;
  for (int d = 1; d <= 4096; ++d) divisors.push_back(d);
  for (int bit = 12; bit < 31; ++bit) {
    const int power = 1 << bit;
    for (int delta : {-1, 0, 1, 3}) divisors.push_back(power + delta);
  }
  divisors.push_back(kLargestDividend);
  return divisors;
}

TEST(FastDivisor, MatchesIntegerDivision) {
  std::mt19937 random(12345);
  std::uniform_int_distribution<int> dividend(0, kLargestDividend);
  for (int d : divisors_to_check()) {
    const FastDivisor fast(d);
    std::vector<int> dividends = {0, 1, d - 1, d, kLargestDividend, kLargestDividend - 1};
    for (int i = 0; i < 64; ++i) dividends.push_back(dividend(random));
    // Both sides of the largest quotient boundaries below 2^31.
    const std::int64_t top = std::int64_t{kLargestDividend} / d * d;
    for (std::int64_t n : {top - 1, top, top - d, top - d - 1}) {
      if (n >= 0) dividends.push_back(static_cast<int>(n));
    }
    for (int n : dividends) {
      ASSERT_EQ(fast.divide(n), n / d) << n << " / " << d;
    }
    EXPECT_EQ(fast.value(), d);
  }
}

}  // namespace
