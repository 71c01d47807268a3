// Verdicts from samples (verdict.hpp).
#include "lab/framework/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "zerolab/stat.hpp"

namespace zerolab::lab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return stat::quantile(v, 0.5);
}

// The Hodges-Lehmann estimate of slower/faster and its interval: order
// statistics k and m*n+1-k of the m*n pairwise log ratios, k the largest
// with P(U <= k-1) <= tail = (1 - confidence) / 2 under the exact null.
void hodges_lehmann(std::span<const double> slower, std::span<const double> faster,
                    RatioVerdict& out, double tail = 0.025) {
  std::vector<double> logs;
  logs.reserve(slower.size() * faster.size());
  for (const double s : slower) {
    for (const double f : faster) logs.push_back(std::log(s) - std::log(f));
  }
  std::sort(logs.begin(), logs.end());
  out.ratio = std::exp(stat::quantile(logs, 0.5));
  const int m = static_cast<int>(slower.size());
  const int n = static_cast<int>(faster.size());
  const int total = m * n;
  int k = 0;
  while (k < total / 2 && stat::u_distribution_cdf(m, n, {}, k) <= tail) ++k;
  // k is now the smallest with P(U <= k) > tail, so P(U <= k-1) <= tail.
  if (k == 0) {
    out.lo = 0;
    out.hi = kInf;
    out.confidence = 0;
    return;
  }
  out.lo = std::exp(logs[static_cast<std::size_t>(k - 1)]);
  out.hi = std::exp(logs[static_cast<std::size_t>(total - k)]);
  out.confidence = 1 - 2 * stat::u_distribution_cdf(m, n, {}, k - 1);
}

}  // namespace

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::kReplicates:
      return "replicates";
    case Verdict::kContradicts:
      return "contradicts";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kHolds:
      return "holds";
    case Verdict::kDoesNotHold:
      return "does not hold";
    case Verdict::kError:
      return "error";
    case Verdict::kNotComparable:
      return "not comparable";
    case Verdict::kNotRun:
      return "not run";
  }
  return "error";
}

RatioVerdict judge_ratio(std::span<const double> slower, std::span<const double> faster,
                         double at_least, double alpha) {
  RatioVerdict v;
  v.n_slower = static_cast<int>(slower.size());
  v.n_faster = static_cast<int>(faster.size());
  v.median_slower = median_of({slower.begin(), slower.end()});
  v.median_faster = median_of({faster.begin(), faster.end()});
  hodges_lehmann(slower, faster, v);

  std::vector<double> scaled(faster.begin(), faster.end());
  for (double& x : scaled) x *= at_least;
  const stat::Comparison c =
      stat::compare(stat::make_sample({slower.begin(), slower.end()}),
                    stat::make_sample(std::move(scaled)), stat::Assumption::kNothing, alpha);
  v.p = c.p;
  if (v.n_slower < kMinRunsForTest || v.n_faster < kMinRunsForTest) {
    v.provisional = true;
    v.verdict = v.ratio > at_least   ? Verdict::kReplicates
                : v.ratio < at_least ? Verdict::kContradicts
                                     : Verdict::kInconclusive;
    return v;
  }
  if (!c.significant() || v.ratio == at_least) {
    v.verdict = Verdict::kInconclusive;
  } else {
    v.verdict = v.ratio > at_least ? Verdict::kReplicates : Verdict::kContradicts;
  }
  return v;
}

namespace {

RatioVerdict interval_verdict_base(std::span<const double> slower, std::span<const double> faster) {
  RatioVerdict v;
  v.n_slower = static_cast<int>(slower.size());
  v.n_faster = static_cast<int>(faster.size());
  v.median_slower = median_of({slower.begin(), slower.end()});
  v.median_faster = median_of({faster.begin(), faster.end()});
  v.provisional = v.n_slower < kMinRunsForTest || v.n_faster < kMinRunsForTest;
  return v;
}

// inside: [lo, hi] within [a, b]; outside: [lo, hi] misses [a, b].
Verdict interval_against(double lo, double hi, double a, double b) {
  if (lo >= a && hi <= b) return Verdict::kReplicates;
  if (hi < a || lo > b) return Verdict::kContradicts;
  return Verdict::kInconclusive;
}

}  // namespace

RatioVerdict judge_band(std::span<const double> slower, std::span<const double> faster,
                        double band_lo, double band_hi) {
  RatioVerdict v = interval_verdict_base(slower, faster);
  hodges_lehmann(slower, faster, v);
  if (v.provisional) {
    v.verdict =
        (v.ratio >= band_lo && v.ratio <= band_hi) ? Verdict::kReplicates : Verdict::kContradicts;
    return v;
  }
  v.verdict = interval_against(v.lo, v.hi, band_lo, band_hi);
  return v;
}

RatioVerdict judge_equivalence(std::span<const double> slower, std::span<const double> faster,
                               double noise, double alpha) {
  RatioVerdict v = interval_verdict_base(slower, faster);
  const double margin_lo = 1 / (1 + noise);
  const double margin_hi = 1 + noise;
  RatioVerdict wide = v;
  hodges_lehmann(slower, faster, wide);      // 95%: is it wholly outside?
  hodges_lehmann(slower, faster, v, alpha);  // 1 - 2·alpha: the two one-sided tests
  if (v.provisional) {
    v.verdict = (v.ratio >= margin_lo && v.ratio <= margin_hi) ? Verdict::kReplicates
                                                               : Verdict::kContradicts;
    return v;
  }
  if (v.lo >= margin_lo && v.hi <= margin_hi) {
    v.verdict = Verdict::kReplicates;
  } else if (wide.hi < margin_lo || wide.lo > margin_hi) {
    v.verdict = Verdict::kContradicts;
  } else {
    v.verdict = Verdict::kInconclusive;
  }
  return v;
}

std::string_view to_string(Size s) {
  switch (s) {
    case Size::kNone:
      return "";
    case Size::kSmaller:
      return "smaller";
    case Size::kAsSeed:
      return "as the seed";
    case Size::kLarger:
      return "larger";
    case Size::kUnclear:
      return "unclear";
  }
  return "";
}

Size judge_size(const RatioVerdict& v, double seed) {
  if (!(seed > 0)) return Size::kNone;
  const double a = seed / kSizeWidth;
  const double b = seed * kSizeWidth;
  const double lo = v.provisional ? v.ratio : v.lo;
  const double hi = v.provisional ? v.ratio : v.hi;
  if (lo > b) return Size::kLarger;
  if (hi < a) return Size::kSmaller;
  if (lo >= a && hi <= b) return Size::kAsSeed;
  return Size::kUnclear;
}

BoundVerdict judge_bound(std::span<const double> samples, double scale, double lo, double hi,
                         double confidence) {
  BoundVerdict v;
  v.n = static_cast<int>(samples.size());
  std::vector<double> scaled(samples.begin(), samples.end());
  for (double& x : scaled) x *= scale;
  const stat::Summary s =
      stat::summarize(stat::make_sample(std::move(scaled)), stat::Assumption::kNothing, confidence);
  v.median = s.center;
  v.lo = s.lo;
  v.hi = s.hi;
  if (v.n < kMinRunsForTest) {
    v.provisional = true;
    v.verdict = (v.median >= lo && v.median <= hi) ? Verdict::kReplicates : Verdict::kContradicts;
    return v;
  }
  if (v.lo >= lo && v.hi <= hi) {
    v.verdict = Verdict::kReplicates;
  } else if (v.hi < lo || v.lo > hi) {
    v.verdict = Verdict::kContradicts;
  } else {
    v.verdict = Verdict::kInconclusive;
  }
  return v;
}

}  // namespace zerolab::lab
