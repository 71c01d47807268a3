// zerolab/stat.hpp — benchstat-compatible statistics: medians with a
// distribution-free confidence interval, the Mann-Whitney U test, geomeans
// and benchunit-style unit scaling, computed exactly as benchstat v2
// (golang.org/x/perf: benchmath, benchunit; go-moremath: stats) computes
// them, down to the last bit where its output shows it.
//
// This header is the statistics core. Reading benchmark files lives in
// zerolab/stat_reader.hpp, filters and projections in zerolab/stat_filter.hpp,
// comparison tables and their renderers in zerolab/stat_table.hpp; this
// header includes none of them.
//
// Thread-safety: every function is pure (some keep internal caches guarded
// by a mutex); values are plain data.
//
// Example:
//   using namespace zerolab::stat;
//   Sample base = make_sample({96.1e-9, 97.0e-9, 95.8e-9, 96.5e-9, 96.0e-9, 96.3e-9});
//   Sample head = make_sample({24.1e-9, 24.3e-9, 24.0e-9, 24.2e-9, 24.4e-9, 24.1e-9});
//   Summary s = summarize(head, Assumption::kNothing, 0.95);
//   Comparison c = compare(base, head, Assumption::kNothing, 0.05);
//   const double centers[] = {s.center};
//   std::string text = common_scale(centers, UnitClass::kDecimal).format(s.center) + " ± " +
//                      s.pct_range_string() + "  " +
//                      c.format_delta(summarize(base, Assumption::kNothing, 0.95).center, s.center)
//                      + " (" + c.to_string() + ")";
//   // text == "24.15n ± 1%  -74.90% (p=0.002 n=6)"
#ifndef ZEROLAB_STAT_HPP_
#define ZEROLAB_STAT_HPP_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zerolab::stat {

// ===== Units (benchunit) ======================================================

// Whether values of a unit scale by powers of 1000 (SI prefixes) or 1024
// (IEC prefixes).
enum class UnitClass { kDecimal, kBinary };

// kBinary when the unit has "B", "MB" or "bytes" in its numerator
// ("B/op", "B/s", "MB"), otherwise kDecimal.
UnitClass unit_class_of(std::string_view unit);

struct TidyUnit {
  std::string unit;   // the base unit, e.g. "sec/op"
  double factor = 1;  // multiply a value in the original unit by this
};

// Normalizes pre-scaled units in the numerator to base units: "ns" → "sec"
// (×1e-9), "MB" → "B" (×1e6). "ns/op" → {"sec/op", 1e-9}, "MB/s" → {"B/s", 1e6}.
TidyUnit tidy_unit(std::string_view unit);

// A scaling factor and the precision to print a value with.
struct Scaler {
  int prec = 3;             // digits after the decimal point
  double factor = 1;        // value of one prefix unit (1e3 for "k")
  std::string_view prefix;  // "", "k", "M", "Ki", "µ", ...

  // value/factor with prec decimals, then the prefix: 123456789 → "123.5M".
  std::string format(double value) const;
};

// The common scaler for a row of values, chosen from the non-zero value
// closest to zero so every value shows at least three significant digits.
// Values in [1000, 1024) of a binary prefix use the smaller prefix.
Scaler common_scale(std::span<const double> values, UnitClass cls);

// common_scale({value}, cls).format(value).
std::string scale_value(double value, UnitClass cls);

// ===== Numbers as Go prints them =================================================

// fmt's %v of a float64 (strconv 'g', shortest): 1e+06, 0.0001, 2.5e-05, +Inf, NaN.
std::string format_go_float(double value);

// ===== Order statistics and tests (moremath stats) ===============================

// The q-quantile of an ascending sample by Hyndman & Fan's R8 interpolation.
// REQUIRES: sorted is ascending (NaNs first, as make_sample sorts).
double quantile(std::span<const double> sorted, double q);

// The distribution-free confidence interval of the q-quantile of a sample of
// size n: the order statistics that bound it.
struct QuantileCi {
  double quantile = 0;
  int n = 0;
  double confidence = 0;   // the achieved level, >= the requested one
  int lo_order = 0;        // 1-based; 0 means -infinity
  int hi_order = 0;        // 1-based; n+1 means +infinity
  bool ambiguous = false;  // lo+1..hi+1 has the same confidence
};

// Binomial(n, q) order statistics, summed outward from the mode for n <= 30,
// the normal approximation with continuity correction above.
QuantileCi quantile_ci(int n, double q, double confidence);

// The geometric mean; NaN when xs is empty or any value is <= 0.
double geomean(std::span<const double> xs);

enum class TestError { kNone, kSampleSize, kSamplesEqual };

struct MannWhitneyResult {
  int n1 = 0;
  int n2 = 0;
  double u = 0;  // U of the first sample, ties counted as 1/2
  double p = 1;  // two-sided p-value
  TestError error = TestError::kNone;
};

// The two-sided Mann-Whitney U test: the exact U distribution when both
// samples have at most 50 values (25 with ties), the normal approximation
// with tie and continuity correction otherwise.
MannWhitneyResult mann_whitney_u_test(std::span<const double> x1, std::span<const double> x2);

// P(U <= u) for samples of sizes n1 and n2 whose merged ranks have the tie
// counts `ties` (empty or all ones: no ties).
double u_distribution_cdf(int n1, int n2, std::span<const int> ties, double u);

// ===== Samples, summaries and comparisons (benchmath) ============================

// How to treat the values of a unit: kNothing is non-parametric (median,
// U test); kExact ("Unit x assume=exact") expects every value to be equal.
enum class Assumption { kNothing, kExact };

// Repeated measurements of one benchmark in one unit, sorted (NaNs first).
struct Sample {
  std::vector<double> values;
  std::vector<std::string> warnings;
};

Sample make_sample(std::vector<double> values);

struct Summary {
  double center = 0;
  double lo = 0;
  double hi = 0;
  double confidence = 0;
  std::vector<std::string> warnings;

  // The half-width of the interval as a percentage of center: "4%", "∞", "?".
  std::string pct_range_string() const;
};

// Median with its confidence interval (kNothing), or the mode (kExact).
Summary summarize(const Sample& sample, Assumption assumption, double confidence);

struct Comparison {
  double p = 0;
  int n1 = 0;
  int n2 = 0;
  double alpha = 0;
  std::vector<std::string> warnings;

  // "p=0.000 n=10", "p=0.926 n=8+12", "n=3" (p omitted when exactly 0).
  std::string to_string() const;
  // "~" when not significant, else "+12.34%", "0.00%" or "?".
  std::string format_delta(double old_center, double new_center) const;
  // Whether the difference is statistically significant (p <= alpha).
  bool significant() const { return !(p > alpha); }
};

// Compares base with sample: the U test (kNothing) or exact values (kExact).
Comparison compare(const Sample& base, const Sample& sample, Assumption assumption, double alpha);

// The smallest sample size with a finite confidence interval at the given
// level: ">= 6" for 0.95 (op is ">=" or ">").
struct SampleNeed {
  std::string_view op;
  int n = 0;
};
SampleNeed median_samples_needed(double confidence);
// The smallest equal sample sizes for which the U test can reach alpha.
SampleNeed u_test_samples_needed(double alpha);

}  // namespace zerolab::stat

#endif  // ZEROLAB_STAT_HPP_
