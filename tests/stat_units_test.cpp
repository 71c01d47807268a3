// Tests of benchunit-style units in zerolab::stat: tidying pre-scaled
// units, decimal vs binary classes, and the common scaler of a row
// (thresholds, [1000, 1024) on binary scales, zeros, mixed signs).
//
// Example:
//   ./stat_test --gtest_filter='Units.*'
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "zerolab/stat.hpp"

namespace zerolab::stat {
namespace {

std::string fmt_row(std::vector<double> row, UnitClass cls, double value) {
  return common_scale(row, cls).format(value);
}

TEST(Units, Tidy) {
  EXPECT_EQ(tidy_unit("ns/op").unit, "sec/op");
  EXPECT_EQ(tidy_unit("ns/op").factor, 1e-9);
  EXPECT_EQ(tidy_unit("MB/s").unit, "B/s");
  EXPECT_EQ(tidy_unit("MB/s").factor, 1e6);
  EXPECT_EQ(tidy_unit("B/op").unit, "B/op");
  EXPECT_EQ(tidy_unit("allocs/op").factor, 1);
  EXPECT_EQ(tidy_unit("ns").unit, "sec");
  EXPECT_EQ(tidy_unit("MB").unit, "B");
  EXPECT_EQ(tidy_unit("ns/MB").unit, "sec/MB");  // the denominator is left alone
  EXPECT_EQ(tidy_unit("ns/MB").factor, 1e-9);
  EXPECT_EQ(tidy_unit("MB*ns/op").unit, "B*sec/op");
  EXPECT_DOUBLE_EQ(tidy_unit("MB*ns/op").factor, 1e6 / 1e9);
  EXPECT_EQ(tidy_unit("nsx/op").unit, "nsx/op");  // not a token
  EXPECT_EQ(tidy_unit("cold-MiB").unit, "cold-MiB");
}

TEST(Units, Class) {
  EXPECT_EQ(unit_class_of("B/op"), UnitClass::kBinary);
  EXPECT_EQ(unit_class_of("B/s"), UnitClass::kBinary);
  EXPECT_EQ(unit_class_of("bytes"), UnitClass::kBinary);
  EXPECT_EQ(unit_class_of("max-B"), UnitClass::kBinary);
  EXPECT_EQ(unit_class_of("sec/op"), UnitClass::kDecimal);
  EXPECT_EQ(unit_class_of("sec/B"), UnitClass::kDecimal);     // bytes in the denominator
  EXPECT_EQ(unit_class_of("sec/B*B"), UnitClass::kBinary);    // '*' ends the denominator
  EXPECT_EQ(unit_class_of("cold-MiB"), UnitClass::kDecimal);  // "MiB" is not "MB"
  EXPECT_EQ(unit_class_of("allocs/op"), UnitClass::kDecimal);
}

TEST(Units, DecimalThresholds) {
  EXPECT_EQ(scale_value(96.13e-9, UnitClass::kDecimal), "96.13n");
  EXPECT_EQ(scale_value(1.718e-6, UnitClass::kDecimal), "1.718µ");
  EXPECT_EQ(scale_value(99.995, UnitClass::kDecimal), "100.0");  // t100 boundary
  EXPECT_EQ(scale_value(99.994, UnitClass::kDecimal), "99.99");
  EXPECT_EQ(scale_value(9.9995, UnitClass::kDecimal), "10.00");
  EXPECT_EQ(scale_value(0.99995, UnitClass::kDecimal), "1.000");
  EXPECT_EQ(scale_value(999949, UnitClass::kDecimal), "999.9k");
  EXPECT_EQ(scale_value(999950, UnitClass::kDecimal), "1.000M");
  EXPECT_EQ(scale_value(7e13, UnitClass::kDecimal), "70.00T");
  EXPECT_EQ(scale_value(7e16, UnitClass::kDecimal), "70000.0T");
  // Below 1n: more digits rather than smaller prefixes.
  EXPECT_EQ(scale_value(0.78e-9, UnitClass::kDecimal), "0.7800n");
  EXPECT_EQ(scale_value(3e-11, UnitClass::kDecimal), "0.03000n");
  EXPECT_EQ(scale_value(1e-21, UnitClass::kDecimal), "0.0000000000n");
}

TEST(Units, BinaryValuesFrom1000To1024KeepTheSmallerPrefix) {
  EXPECT_EQ(scale_value(1000, UnitClass::kBinary), "1000.0");
  EXPECT_EQ(scale_value(1023, UnitClass::kBinary), "1023.0");
  EXPECT_EQ(scale_value(1023.9, UnitClass::kBinary), "1023.9");
  EXPECT_EQ(scale_value(1024, UnitClass::kBinary), "1.000Ki");
  EXPECT_EQ(scale_value(1000 * 1024.0, UnitClass::kBinary), "1000.0Ki");
  EXPECT_EQ(scale_value(1023.5 * 1024, UnitClass::kBinary), "1023.5Ki");
  EXPECT_EQ(scale_value(1048575, UnitClass::kBinary), "1.000Mi");
  EXPECT_EQ(scale_value(32830, UnitClass::kBinary), "32.06Ki");
  EXPECT_EQ(scale_value(26228569000, UnitClass::kBinary), "24.43Gi");
  EXPECT_EQ(scale_value(0.5, UnitClass::kBinary), "0.5000");  // no fractional IEC prefixes
}

TEST(Units, RowScaleFromSmallestNonZero) {
  // The row 32830 | 0 scales by the non-zero value: "0.00Ki" for the zero.
  EXPECT_EQ(fmt_row({32830, 0}, UnitClass::kBinary, 0), "0.00Ki");
  EXPECT_EQ(fmt_row({0, 0}, UnitClass::kBinary, 0), "0.000");
  EXPECT_EQ(fmt_row({0}, UnitClass::kDecimal, 0), "0.000");
  // Mixed signs: magnitude decides.
  EXPECT_EQ(fmt_row({-1500, 2e6}, UnitClass::kDecimal, -1500), "-1.500k");
  EXPECT_EQ(fmt_row({-1500, 2e6}, UnitClass::kDecimal, 2e6), "2000.000k");
  EXPECT_EQ(fmt_row({12.111e-6, 2.420e-6}, UnitClass::kDecimal, 12.111e-6), "12.111µ");
}

TEST(Units, NonFiniteValues) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(scale_value(inf, UnitClass::kDecimal), "+InfT");
  EXPECT_EQ(scale_value(-inf, UnitClass::kBinary), "-InfTi");
  EXPECT_EQ(scale_value(std::nan(""), UnitClass::kDecimal), "NaNn");
}

TEST(Units, GoFloatFormatting) {
  EXPECT_EQ(format_go_float(0.95), "0.95");
  EXPECT_EQ(format_go_float(0.05), "0.05");
  EXPECT_EQ(format_go_float(100), "100");
  EXPECT_EQ(format_go_float(3.0655e-06), "3.0655e-06");
}

}  // namespace
}  // namespace zerolab::stat
