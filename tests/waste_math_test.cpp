// zerolab::waste's own math (src/waste/preload/preload_math.hpp) against
// libm over the preload's argument ranges: the rounding rule exactly, the
// logarithm and e^x - 1 within 2 ulps.
#include "waste/preload/preload_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

namespace {

using zerolab::waste::expm1_neg;
using zerolab::waste::log_positive;
using zerolab::waste::round_half_away;

// The distance between a and b in units of b's last place.
double ulps(double a, double b) {
  if (a == b) return 0;
  return std::fabs(a - b) / (std::nextafter(std::fabs(b), INFINITY) - std::fabs(b));
}

TEST(WasteMathTest, RoundHalfAwayIsLlround) {
  const double cases[] = {0.0,
                          0.49999999999999994,
                          0.5,
                          1.5,
                          2.5,
                          -0.5,
                          -1.5,
                          -2.4999,
                          4503599627370495.5,
                          4503599627370497.0,
                          1e18,
                          -1e18,
                          8600.5,
                          0.25,
                          1.0 - 1e-16,
                          123456.49999999};
  for (double x : cases) EXPECT_EQ(round_half_away(x), std::llround(x)) << x;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> weight(1.0, 100000.0);
  for (int i = 0; i < 200000; ++i) {
    const double w = weight(rng);
    const double bytes = w * static_cast<double>(rng() % 100000);
    ASSERT_EQ(round_half_away(w), std::llround(w)) << w;
    ASSERT_EQ(round_half_away(bytes), std::llround(bytes)) << bytes;
    ASSERT_EQ(round_half_away(std::floor(w) + 0.5), std::llround(std::floor(w) + 0.5));
  }
}

TEST(WasteMathTest, Expm1OfNegativeWithinTwoUlps) {
  std::mt19937_64 rng(11);
  // -size / rate: 1 byte at rate 2^40 up to sizes far past the rate.
  std::uniform_real_distribution<double> exponent(-42.0, 6.0);
  for (int i = 0; i < 500000; ++i) {
    const double x = -std::exp2(exponent(rng));
    ASSERT_LE(ulps(expm1_neg(x), std::expm1(x)), 2.0) << x;
  }
  for (double x : {0.0, -1e-300, -0.34, -0.3400000001, -0.5, -0.6931471805599453, -1.0, -39.9,
                   -40.0, -41.0, -745.0, -1e300}) {
    ASSERT_LE(ulps(expm1_neg(x), std::expm1(x)), 2.0) << x;
  }
}

TEST(WasteMathTest, LogWithinTwoUlps) {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 500000; ++i) {
    // The sampler's draw: (k + 1) / (2^53 + 1) for a random 53-bit k.
    const double u = (static_cast<double>(rng() >> 11) + 1.0) / 9007199254740993.0;
    ASSERT_LE(ulps(log_positive(u), std::log(u)), 2.0) << u;
  }
  for (double u :
       {1.0, 0.5, 0.7071067811865476, 0.7071067811865475, 1.4142135623730951, 1.0 - 1e-16,
        1.1102230246251565e-16, 4.9e-324, 2.2250738585072014e-308, 3.0, 1e300}) {
    ASSERT_LE(ulps(log_positive(u), std::log(u)), 2.0) << u;
  }
}

}  // namespace
