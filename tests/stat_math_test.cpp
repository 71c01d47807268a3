// Tests of the Go-compatibility layer of zerolab::stat (src/stat/go_compat.hpp):
// math against bit patterns Go's runtime produced (linux/amd64), number
// formatting and parsing against Go's strconv rules, UTF-8 decoding, and the
// pdqsort port against std::sort.
//
// Example:
//   ./stat_test --gtest_filter='GoMath.*'
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "stat/go_compat.hpp"

namespace zerolab::internal {
namespace {

double bits(std::uint64_t b) {
  return std::bit_cast<double>(b);
}
std::uint64_t bits_of(double d) {
  return std::bit_cast<std::uint64_t>(d);
}

struct Pair {
  double x;
  std::uint64_t want;
};

// math.Exp, math.Log, math.Erfc as Go 1.19 computes them on linux/amd64
// (printed with math.Float64bits).
TEST(GoMath, ExpMatchesGoWithFma) {
  const Pair cases[] = {{1, 0x4005bf0a8b145769},
                        {-1, 0x3fd78b56362cef38},
                        {0.5, 0x3ffa61298e1e069c},
                        {2.302585092994046, 0x4024000000000001},
                        {-20.723265836946414, 0x3e112e0be826d687},
                        {12.77324, 0x41158634364e27db},
                        {700, 0x7f0d945df4f8ec8e},
                        {-745, 0x0000000000000001},
                        {1e-10, 0x3ff000000006df38},
                        {3.5, 0x40408ec721396bdb},
                        {33.1, 0x42eaf7f2a6de0c97}};
  for (const Pair& c : cases) EXPECT_EQ(bits_of(go_exp_with(c.x, true)), c.want) << c.x;
}

TEST(GoMath, ExpDiffersWithoutFmaAsGoDoes) {
  // Inputs where Go's two amd64 code paths round differently.
  EXPECT_EQ(bits_of(go_exp_with(bits(0x407b7188fe077a78), true)), 0x678656fba1086f6fULL);
  EXPECT_EQ(bits_of(go_exp_with(bits(0x407b7188fe077a78), false)), 0x678656fba1086f70ULL);
  EXPECT_EQ(bits_of(go_exp_with(bits(0xc013b77d94a61b86), true)), 0x3f7d9fada36f82a3ULL);
  EXPECT_EQ(bits_of(go_exp_with(bits(0xc013b77d94a61b86), false)), 0x3f7d9fada36f82a2ULL);
}

TEST(GoMath, ExpSpecialValues) {
  EXPECT_EQ(go_exp(-std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_TRUE(std::isinf(go_exp(std::numeric_limits<double>::infinity())));
  EXPECT_TRUE(std::isnan(go_exp(std::nan(""))));
  EXPECT_TRUE(std::isinf(go_exp(710)));
  EXPECT_EQ(go_exp(-800), 0.0);
}

TEST(GoMath, LogMatchesGo) {
  const Pair cases[] = {{1, 0x0000000000000000},
                        {2, 0x3fe62e42fefa39ef},
                        {0.5, 0xbfe62e42fefa39ef},
                        {10, 0x40026bb1bbb55516},
                        {1e-09, 0xc034b927f32bffb8},
                        {7.389056098930649, 0x3fffffffffffffff},
                        {bits(0x5efee54a97823f81), 0x407587582ea5cf8c},
                        {bits(0x4441240997105f25), 0x4047f2b100541a39},
                        {bits(0x3d0ca80692da0e0f), 0xc03ffec0ea105bea}};
  for (const Pair& c : cases) EXPECT_EQ(bits_of(go_log(c.x)), c.want) << c.x;
  EXPECT_TRUE(std::isinf(go_log(0)));
  EXPECT_TRUE(std::isnan(go_log(-1)));
}

TEST(GoMath, ErfcMatchesGo) {
  const Pair cases[] = {{bits(0x4010787c8823ba9e), 0x3e38c9930799a93b},
                        {bits(0x4006ac1e5ac580f3), 0x3f100e7210396c4c},
                        {bits(0xbff1e21783f851a8), 0x3ffe2d3da28ce7f8},
                        {bits(0x40164affd9d5340c), 0x3ced13a992b4ff09}};
  if (!go_exp_uses_fma()) GTEST_SKIP() << "expected values are for Go's FMA path";
  for (const Pair& c : cases) EXPECT_EQ(bits_of(go_erfc(c.x)), c.want) << c.x;
  EXPECT_EQ(go_erfc(0), 1.0);
  EXPECT_EQ(go_erfc(30), 0.0);
  EXPECT_EQ(go_erfc(-30), 2.0);
}

TEST(GoMath, LgammaAndChoose) {
  // log((n-1)!) to within rounding, and exact binomials up to n = 20.
  for (int n = 1; n <= 60; ++n) {
    double lf = 0;
    for (int i = 2; i < n; ++i) lf += std::log(static_cast<double>(i));
    EXPECT_NEAR(go_lgamma_int(n), lf, 1e-12 * (1 + lf)) << n;
  }
  EXPECT_EQ(go_choose(20, 10), 184756.0);
  EXPECT_EQ(go_choose(10, 0), 1.0);
  EXPECT_EQ(go_choose(10, 11), 0.0);
  EXPECT_NEAR(go_choose(50, 25), 126410606437752.0, 126410606437752.0 * 1e-13);
  EXPECT_NEAR(go_choose(30, 15), 155117520.0, 155117520.0 * 1e-13);
}

// ---- formatting ---------------------------------------------------------------------

TEST(GoFormat, ShortestG) {
  EXPECT_EQ(format_g(0), "0");
  EXPECT_EQ(format_g(-0.0), "-0");
  EXPECT_EQ(format_g(1), "1");
  EXPECT_EQ(format_g(0.95), "0.95");
  EXPECT_EQ(format_g(123456), "123456");
  EXPECT_EQ(format_g(1234567), "1.234567e+06");
  EXPECT_EQ(format_g(1e21), "1e+21");
  EXPECT_EQ(format_g(0.0001), "0.0001");
  EXPECT_EQ(format_g(0.00001), "1e-05");
  EXPECT_EQ(format_g(1.7180000000000001e-06), "1.7180000000000001e-06");
  EXPECT_EQ(format_g(5e-324), "5e-324");
  EXPECT_EQ(format_g(1.5e300), "1.5e+300");
  EXPECT_EQ(format_g(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_g(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_g(std::nan("")), "NaN");
}

TEST(GoFormat, FixedPrecision) {
  EXPECT_EQ(format_f(2.5, 0), "2");  // round half to even, as Go
  EXPECT_EQ(format_f(-74.8789, 2, true), "-74.88");
  EXPECT_EQ(format_f(0, 2, true), "+0.00");
  EXPECT_EQ(format_f(std::numeric_limits<double>::infinity(), 2), "+Inf");
  EXPECT_EQ(format_f(-std::numeric_limits<double>::infinity(), 1, true), "-Inf");
  EXPECT_EQ(format_f(std::nan(""), 3), "NaN");
  EXPECT_EQ(format_f(std::nan(""), 3, true), "+NaN");
  EXPECT_EQ(format_f(1e300, 1).size(), 303u);
}

// ---- parsing ---------------------------------------------------------------------------

TEST(GoParse, FloatGrammar) {
  double v = 0;
  EXPECT_EQ(parse_go_float("12", v), NumError::kNone);
  EXPECT_EQ(v, 12);
  EXPECT_EQ(parse_go_float("1_000", v), NumError::kNone);
  EXPECT_EQ(v, 1000);
  EXPECT_EQ(parse_go_float("0x1p-2", v), NumError::kNone);
  EXPECT_EQ(v, 0.25);
  EXPECT_EQ(parse_go_float(".5", v), NumError::kNone);
  EXPECT_EQ(v, 0.5);
  EXPECT_EQ(parse_go_float("5.", v), NumError::kNone);
  EXPECT_EQ(parse_go_float("-2.5e-3", v), NumError::kNone);
  EXPECT_EQ(v, -2.5e-3);
  EXPECT_EQ(parse_go_float("+Inf", v), NumError::kNone);
  EXPECT_TRUE(std::isinf(v));
  EXPECT_EQ(parse_go_float("infinity", v), NumError::kNone);
  EXPECT_EQ(parse_go_float("NaN", v), NumError::kNone);
  EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(parse_go_float("1e-400", v), NumError::kNone);  // underflow is not an error
  EXPECT_EQ(v, 0);
  EXPECT_EQ(parse_go_float("1e400", v), NumError::kRange);
  EXPECT_EQ(parse_go_float("-nan", v), NumError::kSyntax);
  EXPECT_EQ(parse_go_float("+nan", v), NumError::kSyntax);
  EXPECT_EQ(parse_go_float("1e", v), NumError::kSyntax);
  EXPECT_EQ(parse_go_float("0x1.8", v), NumError::kSyntax);  // hex needs an exponent
  EXPECT_EQ(parse_go_float("1__0", v), NumError::kSyntax);
  EXPECT_EQ(parse_go_float("_1", v), NumError::kSyntax);
  EXPECT_EQ(parse_go_float(".", v), NumError::kSyntax);
  EXPECT_EQ(parse_go_float("1.2.3", v), NumError::kSyntax);
  EXPECT_EQ(parse_go_float("ns/op", v), NumError::kSyntax);
}

TEST(GoParse, Int) {
  std::int64_t v = 0;
  EXPECT_EQ(parse_go_int("100", v), NumError::kNone);
  EXPECT_EQ(v, 100);
  EXPECT_EQ(parse_go_int("-5", v), NumError::kNone);
  EXPECT_EQ(v, -5);
  EXPECT_EQ(parse_go_int("+7", v), NumError::kNone);
  EXPECT_EQ(v, 7);
  EXPECT_EQ(parse_go_int("9223372036854775807", v), NumError::kNone);
  EXPECT_EQ(v, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(parse_go_int("9223372036854775808", v), NumError::kRange);
  EXPECT_EQ(parse_go_int("-9223372036854775808", v), NumError::kNone);
  EXPECT_EQ(parse_go_int("99999999999999999999x", v), NumError::kRange);  // range seen first
  EXPECT_EQ(parse_go_int("1x", v), NumError::kSyntax);
  EXPECT_EQ(parse_go_int("1_000", v), NumError::kSyntax);
  EXPECT_EQ(parse_go_int("-", v), NumError::kSyntax);
  EXPECT_EQ(parse_go_int("", v), NumError::kSyntax);
}

// ---- UTF-8 -------------------------------------------------------------------------------

TEST(GoUtf8, DecodeAndCount) {
  EXPECT_EQ(decode_rune("a").first, U'a');
  EXPECT_EQ(decode_rune("µs").first, U'µ');
  EXPECT_EQ(decode_rune("µs").second, 2u);
  EXPECT_EQ(decode_rune("\xff").first, kRuneError);
  EXPECT_EQ(decode_rune("\xc0\x80").second, 1u);             // overlong
  EXPECT_EQ(decode_rune("\xed\xa0\x80").first, kRuneError);  // surrogate
  EXPECT_EQ(rune_count("│ x ±"), 5u);
  EXPECT_EQ(rune_count("\xff\xfe"), 2u);
  EXPECT_TRUE(is_space(0xA0));
  EXPECT_TRUE(is_space(0x3000));
  EXPECT_FALSE(is_space(0x200B));
  EXPECT_TRUE(is_blank(" \t\xc2\xa0"));
  EXPECT_FALSE(is_blank(" │"));
}

// ---- sort --------------------------------------------------------------------------------------

TEST(GoSort, SortsLikeStdSortWithNaNsFirst) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = rng() % 300;
    std::vector<double> v(n);
    for (double& x : v) {
      const auto r = rng() % 10;
      x = r == 0 ? std::nan("") : static_cast<double>(rng() % 50);
    }
    std::vector<double> want = v;
    std::stable_partition(want.begin(), want.end(), [](double x) { return std::isnan(x); });
    const auto first_num =
        std::find_if(want.begin(), want.end(), [](double x) { return !std::isnan(x); });
    std::sort(first_num, want.end());
    go_sort_floats(v);
    ASSERT_EQ(v.size(), want.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(v[i]));
      } else {
        EXPECT_EQ(v[i], want[i]);
      }
    }
  }
}

TEST(GoSort, IsUnstableTheWayGoIs) {
  // Go's pdqsort leaves equal keys in a determined, not original, order:
  // for 13+ elements it is no longer an insertion sort.
  std::vector<std::pair<int, int>> v;
  for (int i = 0; i < 40; ++i) v.emplace_back(i % 3, i);
  go_sort_slice(
      v.size(), [&v](std::size_t i, std::size_t j) { return v[i].first < v[j].first; },
      [&v](std::size_t i, std::size_t j) { std::swap(v[i], v[j]); });
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end(), [](auto a, auto b) { return a.first < b.first; }));
}

}  // namespace
}  // namespace zerolab::internal
