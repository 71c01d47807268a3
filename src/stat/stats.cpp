// Order statistics, the Mann-Whitney U test and benchmath's summaries and
// comparisons (include/zerolab/stat.hpp).
//
// Example:
//   zerolab::stat::QuantileCi ci = zerolab::stat::quantile_ci(10, 0.5, 0.95);
//   // ci.lo_order == 2, ci.hi_order == 9
//
// Every floating-point step follows go-moremath's order of operations so
// the printed digits (and CSV/JSON's full precision) agree with benchstat;
// -ffp-contract=off (src/CMakeLists.txt) keeps the compiler from fusing them.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "go_compat.hpp"
#include "zerolab/stat.hpp"

namespace zerolab::stat {
namespace {

using internal::go_choose;
using internal::go_erfc;
using internal::go_exp;
using internal::go_log;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kSqrt2 = 1.41421356237309504880168872420969807856967187537694807317667974;

double go_sign(double x) {
  if (x == 0) return 0;
  if (x < 0) return -1;
  if (x > 0) return 1;
  return kNaN;
}

double go_max(double x, double y) {
  if (std::isinf(x) && x > 0) return x;
  if (std::isinf(y) && y > 0) return y;
  if (std::isnan(x) || std::isnan(y)) return kNaN;
  if (x == 0 && x == y) return std::signbit(x) ? y : x;
  return x > y ? x : y;
}

double go_min(double x, double y) {
  if (std::isinf(x) && x < 0) return x;
  if (std::isinf(y) && y < 0) return y;
  if (std::isnan(x) || std::isnan(y)) return kNaN;
  if (x == 0 && x == y) return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

// ---- Binomial and normal distributions -----------------------------------------

double binomial_pmf(int n, double p, double k) {
  const double kf = std::floor(k);
  if (!(kf >= 0) || kf > n) return 0;
  const int ki = static_cast<int>(kf);
  return go_choose(n, ki) * std::pow(p, static_cast<double>(ki)) *
         std::pow(1 - p, static_cast<double>(n - ki));
}

struct Normal {
  double mu;
  double sigma;

  double cdf(double x) const { return go_erfc(-(x - mu) / (sigma * kSqrt2)) / 2; }

  double inv_cdf(double p) const {
    constexpr double a1 = -3.969683028665376e+01, a2 = 2.209460984245205e+02,
                     a3 = -2.759285104469687e+02, a4 = 1.383577518672690e+02,
                     a5 = -3.066479806614716e+01, a6 = 2.506628277459239e+00;
    constexpr double b1 = -5.447609879822406e+01, b2 = 1.615858368580409e+02,
                     b3 = -1.556989798598866e+02, b4 = 6.680131188771972e+01,
                     b5 = -1.328068155288572e+01;
    constexpr double c1 = -7.784894002430293e-03, c2 = -3.223964580411365e-01,
                     c3 = -2.400758277161838e+00, c4 = -2.549732539343734e+00,
                     c5 = 4.374664141464968e+00, c6 = 2.938163982698783e+00;
    constexpr double d1 = 7.784695709041462e-03, d2 = 3.224671290700398e-01,
                     d3 = 2.445134137142996e+00, d4 = 3.754408661907416e+00;
    constexpr double kPLow = 0.02425;
    constexpr double kPHigh = 0.97575;
    if (p < 0 || p > 1) return kNaN;
    if (p == 0) return -kInf;
    if (p == 1) return kInf;
    double x = 0;
    if (p < kPLow) {
      const double q = std::sqrt(-2 * go_log(p));
      x = (((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) /
          ((((d1 * q + d2) * q + d3) * q + d4) * q + 1);
    } else if (kPHigh < p) {
      const double q = std::sqrt(-2 * go_log(1 - p));
      x = -(((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) /
          ((((d1 * q + d2) * q + d3) * q + d4) * q + 1);
    } else {
      const double q = p - 0.5;
      const double r = q * q;
      x = (((((a1 * r + a2) * r + a3) * r + a4) * r + a5) * r + a6) * q /
          (((((b1 * r + b2) * r + b3) * r + b4) * r + b5) * r + 1);
    }
    const double e = 0.5 * go_erfc(-x / kSqrt2) - p;
    const double u =
        e * std::sqrt(2 * 3.14159265358979323846264338327950288419716939937510582097494459) *
        go_exp(x * x / 2);
    x = x - u / (1 + x * u / 2);
    return x * sigma + mu;
  }
};

// ---- U distribution ----------------------------------------------------------------

// p_{N1,N2}(U) for U = 0..u by Mann and Whitney's recurrence.
std::vector<double> u_pmf_no_ties(int n1, int n2, int u) {
  int big_n = n1;
  int big_m = n2;
  if (big_n > big_m) std::swap(big_n, big_m);
  const auto width = static_cast<std::size_t>(u) + 1;
  std::vector<std::vector<double>> memo(static_cast<std::size_t>(big_n) + 1,
                                        std::vector<double>(width, 0.0));
  for (int m = 0; m <= big_m; ++m) {
    memo[0][0] = 1;
    const int nlim = std::min(big_n, m);
    for (int n = 1; n <= nlim; ++n) {
      const std::vector<double>& lp = memo[static_cast<std::size_t>(n - 1)];
      const std::vector<double>& rp =
          n <= m - 1 ? memo[static_cast<std::size_t>(n)] : memo[static_cast<std::size_t>(m - 1)];
      const int ulim = std::min(n * m, u);
      std::vector<double>& out = memo[static_cast<std::size_t>(n)];
      const double nplusm = static_cast<double>(n + m);
      for (int u1 = ulim; u1 >= 0; --u1) {
        double l = 0.0;
        if (u1 - m >= 0) l = static_cast<double>(n) * lp[static_cast<std::size_t>(u1 - m)];
        const double r = static_cast<double>(m) * rp[static_cast<std::size_t>(u1)];
        out[static_cast<std::size_t>(u1)] = (l + r) / nplusm;
      }
    }
  }
  return std::move(memo[static_cast<std::size_t>(big_n)]);
}

int two_u_min(int n1, std::span<const int> t, const std::vector<int>& a) {
  int two_u = -n1 * n1;
  int n1k = n1;
  for (std::size_t k = 1; k <= t.size(); ++k) {
    const int take = std::min(n1k, t[k - 1]);
    two_u += take * a[k];
    n1k -= take;
  }
  return two_u;
}

int two_u_max(int n1, std::span<const int> t, const std::vector<int>& a) {
  int two_u = -n1 * n1;
  int n1k = n1;
  for (std::size_t k = t.size(); k > 0; --k) {
    const int take = std::min(n1k, t[k - 1]);
    two_u += take * a[k];
    n1k -= take;
  }
  return two_u;
}

std::uint64_t ukey(int n1, int two_u) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(n1)) << 32) |
         static_cast<std::uint32_t>(two_u);
}

// The number of arrangements of n1 first-sample values over ranks with tie
// vector t whose 2U is at most two_u (Cheung & Klotz's linked-list method,
// as memo tables keyed by (n1, 2U) for each prefix of t).
double u_count_with_ties(int two_u, int n1, std::span<const int> t) {
  const std::size_t big_k = t.size();
  std::vector<int> a(big_k + 1, 0);
  a[1] = t[0];
  for (std::size_t k = 2; k <= big_k; ++k) a[k] = a[k - 1] + t[k - 2] + t[k - 1];

  std::vector<std::unordered_map<std::uint64_t, double>> memo(big_k + 1);
  memo[big_k].emplace(ukey(n1, two_u), 0.0);

  int tsum = 0;
  for (int v : t) tsum += v;
  for (std::size_t k = big_k - 1; k >= 2; --k) {
    tsum -= t[k];
    auto& cur = memo[k];
    for (const auto& [key, unused] : memo[k + 1]) {
      (void)unused;
      const int kn1 = static_cast<int>(key >> 32);
      const int k2u = static_cast<int>(static_cast<std::uint32_t>(key));
      const int lo = std::max(0, kn1 - tsum);
      const int hi = std::min(kn1, t[k]);
      for (int rk = lo; rk <= hi; ++rk) {
        const int two_uk = k2u - rk * (a[k + 1] - 2 * kn1 + rk);
        const int n1k = kn1 - rk;
        const auto prefix = t.first(k);
        if (two_u_min(n1k, prefix, a) <= two_uk && two_uk <= two_u_max(n1k, prefix, a)) {
          cur.emplace(ukey(n1k, two_uk), 0.0);
        }
      }
    }
  }

  const int n2sum = t[0] + t[1];
  for (auto& [key, value] : memo[2]) {
    const int kn1 = static_cast<int>(key >> 32);
    const int k2u = static_cast<int>(static_cast<std::uint32_t>(key));
    double sum = 0.0;
    const int lo = std::max(0, kn1 - t[0]);
    const int hi = (k2u - kn1 * (t[0] - kn1)) / n2sum;
    for (int r2 = lo; r2 <= hi; ++r2) sum += go_choose(t[0], kn1 - r2) * go_choose(t[1], r2);
    value = sum;
  }

  tsum = t[0];
  for (std::size_t k = 3; k <= big_k; ++k) {
    tsum += t[k - 2];
    const auto prefix = t.first(k - 1);
    for (auto& [key, value] : memo[k]) {
      const int kn1 = static_cast<int>(key >> 32);
      const int k2u = static_cast<int>(static_cast<std::uint32_t>(key));
      double sum = 0.0;
      const int lo = std::max(0, kn1 - tsum);
      const int hi = std::min(kn1, t[k - 1]);
      for (int rk = lo; rk <= hi; ++rk) {
        const int two_prev = k2u - rk * (a[k] - 2 * kn1 + rk);
        const int n1_prev = kn1 - rk;
        double x = 0;
        const auto& prev = memo[k - 1];
        auto it = prev.find(ukey(n1_prev, two_prev));
        if (it != prev.end()) {
          x = it->second;
        } else if (two_u_max(n1_prev, prefix, a) < two_prev) {
          x = go_choose(tsum, n1_prev);
        }
        sum += x * go_choose(t[k - 1], rk);
      }
      value = sum;
    }
  }
  auto it = memo[big_k].find(ukey(n1, two_u));
  return it == memo[big_k].end() ? 0.0 : it->second;
}

// ---- caches ------------------------------------------------------------------------

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}

QuantileCi median_ci_cached(int n, double confidence) {
  static std::map<std::pair<int, std::uint64_t>, QuantileCi> cache;
  const auto key = std::make_pair(n, std::bit_cast<std::uint64_t>(confidence));
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  QuantileCi ci = quantile_ci(n, 0.5, confidence);
  std::lock_guard<std::mutex> lock(cache_mutex());
  cache.emplace(key, ci);
  return ci;
}

// uTestMinP of benchmath: the smallest two-sided U-test p-value for two
// samples of n values each (n = 1..9).
constexpr double kUTestMinP[] = {0,
                                 1,
                                 0.3333333333333333,
                                 0.1,
                                 0.02857142857142857,
                                 0.007936507936507936,
                                 0.0021645021645021645,
                                 0.0005827505827505828,
                                 0.0001554001554001554,
                                 4.113533525298231e-05};

}  // namespace

// ---- public: order statistics -------------------------------------------------------

double quantile(std::span<const double> sorted, double q) {
  if (sorted.empty()) return kNaN;
  if (q <= 0) return sorted.front();  // Bounds of a sorted sample
  if (q >= 1) return sorted.back();
  const double big_n = static_cast<double>(sorted.size());
  const double n = 1 / 3.0 + q * (big_n + 1 / 3.0);
  double kf = 0;
  const double frac = std::modf(n, &kf);
  const auto k = static_cast<long long>(kf);
  if (k <= 0) return sorted[0];
  if (k >= static_cast<long long>(sorted.size())) return sorted.back();
  const auto i = static_cast<std::size_t>(k);
  return sorted[i - 1] + frac * (sorted[i] - sorted[i - 1]);
}

QuantileCi quantile_ci(int n, double q, double confidence) {
  QuantileCi res;
  res.n = n;
  res.quantile = q;
  if (confidence >= 1) {
    res.confidence = 1;
    res.lo_order = 0;
    res.hi_order = n + 1;
    return res;
  }
  int l = 0;
  int r = 0;
  if (n <= 30) {
    int x = static_cast<int>(std::ceil(static_cast<double>(n + 1) * q) - 1);
    if (q == 0) x = 0;
    double accum = binomial_pmf(n, q, x);
    l = x;
    r = x + 1;
    double lp = binomial_pmf(n, q, l - 1);
    double rp = binomial_pmf(n, q, r);
    res.ambiguous = rp == accum;
    while (accum < confidence && (lp > 0 || rp > 0)) {
      res.ambiguous = lp == rp;
      if (lp >= rp) {
        accum += lp;
        --l;
        lp = binomial_pmf(n, q, l - 1);
      } else {
        accum += rp;
        ++r;
        rp = binomial_pmf(n, q, r);
      }
    }
    res.confidence = accum;
  } else {
    const Normal norm{static_cast<double>(n) * q, std::sqrt(static_cast<double>(n) * q * (1 - q))};
    const double alpha = (1 - confidence) / 2;
    const double l1 = norm.inv_cdf(alpha);
    const double r1 = 2 * norm.mu - l1;
    l = static_cast<int>(std::floor(std::floor(l1 - 0.5) + 0.5)) + 1;
    r = static_cast<int>(std::floor(std::ceil(r1 - 0.5) + 0.5)) + 1;
    auto cdf = [&norm](int lo, int hi) {
      return norm.cdf(static_cast<double>(hi) - 0.5) - norm.cdf(static_cast<double>(lo) - 0.5);
    };
    res.confidence = cdf(l, r);
    const int r_biased = r - 1;
    const double a_biased = cdf(l, r_biased);
    if (a_biased >= confidence && a_biased < res.confidence) {
      res.confidence = a_biased;
      res.ambiguous = true;
      r = r_biased;
    }
    if (l <= 0 && r >= n + 1) {
      res.confidence = 1;
      res.ambiguous = false;
    }
  }
  if (l < 0) l = 0;
  if (r > n + 1) r = n + 1;
  res.lo_order = l;
  res.hi_order = r;
  return res;
}

double geomean(std::span<const double> xs) {
  if (xs.empty()) return kNaN;
  double m = 0.0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (xs[i] <= 0) return kNaN;
    const double lx = go_log(xs[i]);
    m += (lx - m) / static_cast<double>(i + 1);
  }
  return go_exp(m);
}

double u_distribution_cdf(int n1, int n2, std::span<const int> ties, double u) {
  if (u < 0) return 0;
  if (u >= static_cast<double>(n1 * n2)) return 1;
  const bool has_ties = std::any_of(ties.begin(), ties.end(), [](int t) { return t > 1; });
  if (has_ties) {
    const double count = u_count_with_ties(static_cast<int>(2 * u), n1, ties);
    return count / go_choose(n1 + n2, n1);
  }
  int ui = static_cast<int>(std::floor(u));
  const bool flip = ui >= (n1 * n2 + 1) / 2;
  if (flip) ui = n1 * n2 - ui - 1;
  const std::vector<double> pdfs = u_pmf_no_ties(n1, n2, ui);
  double p = 0.0;
  for (int i = 0; i <= ui; ++i) p += pdfs[static_cast<std::size_t>(i)];
  if (flip) p = 1 - p;
  return p;
}

MannWhitneyResult mann_whitney_u_test(std::span<const double> x1_in,
                                      std::span<const double> x2_in) {
  MannWhitneyResult res;
  const int n1 = static_cast<int>(x1_in.size());
  const int n2 = static_cast<int>(x2_in.size());
  res.n1 = n1;
  res.n2 = n2;
  if (n1 == 0 || n2 == 0) {
    res.error = TestError::kSampleSize;
    return res;
  }
  std::vector<double> x1(x1_in.begin(), x1_in.end());
  std::vector<double> x2(x2_in.begin(), x2_in.end());
  internal::go_sort_floats(x1);
  internal::go_sort_floats(x2);
  // Merge, remembering which sample each value came from.
  std::vector<double> merged;
  std::vector<unsigned char> labels;
  merged.reserve(x1.size() + x2.size());
  labels.reserve(x1.size() + x2.size());
  {
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < x1.size() && j < x2.size()) {
      if (x1[i] < x2[j]) {
        merged.push_back(x1[i++]);
        labels.push_back(1);
      } else {
        merged.push_back(x2[j++]);
        labels.push_back(2);
      }
    }
    for (; i < x1.size(); ++i) {
      merged.push_back(x1[i]);
      labels.push_back(1);
    }
    for (; j < x2.size(); ++j) {
      merged.push_back(x2[j]);
      labels.push_back(2);
    }
  }
  double r1 = 0.0;
  std::vector<int> ties;
  bool has_ties = false;
  for (std::size_t i = 0; i < merged.size();) {
    const std::size_t rank1 = i + 1;
    int nx1 = 0;
    const double v1 = merged[i];
    // A NaN ties with nothing, not even itself; take it alone so the scan
    // always advances (go-moremath loops forever here).
    do {
      if (labels[i] == 1) ++nx1;
      ++i;
    } while (i < merged.size() && merged[i] == v1);
    if (nx1 != 0) {
      const double rank = static_cast<double>(i + rank1) / 2;
      r1 += rank * static_cast<double>(nx1);
    }
    ties.push_back(static_cast<int>(i - rank1 + 1));
    if (i > rank1) has_ties = true;
  }
  const double u1 = r1 - static_cast<double>(n1 * (n1 + 1)) / 2;
  const double u2 = static_cast<double>(n1 * n2) - u1;
  const double u_small = go_min(u1, u2);
  res.u = u1;
  double p = 0;
  if ((!has_ties && n1 <= 50 && n2 <= 50) || (has_ties && n1 <= 25 && n2 <= 25)) {
    if (ties.size() == 1) {
      res.error = TestError::kSamplesEqual;
      return res;
    }
    if (u1 == u2) {
      p = 1;
    } else {
      p = u_distribution_cdf(n1, n2, ties, u_small) * 2;
    }
  } else {
    double t = 0;
    {
      long long tc = 0;
      for (int tie : ties) tc += static_cast<long long>(tie) * tie * tie - tie;
      t = static_cast<double>(tc);
    }
    const double big_n = static_cast<double>(n1 + n2);
    const double mu = static_cast<double>(n1 * n2) / 2;
    const double sigma =
        std::sqrt(static_cast<double>(n1 * n2) * ((big_n + 1) - t / (big_n * (big_n - 1))) / 12);
    if (sigma == 0) {
      res.error = TestError::kSamplesEqual;
      return res;
    }
    double numer = u1 - mu;
    numer -= go_sign(numer) * 0.5;
    const double z = numer / sigma;
    const Normal std_normal{0, 1};
    p = 2 * go_min(std_normal.cdf(z), 1 - std_normal.cdf(z));
  }
  res.p = p;
  return res;
}

// ---- public: benchmath ----------------------------------------------------------------

Sample make_sample(std::vector<double> values) {
  internal::go_sort_floats(values);
  return Sample{std::move(values), {}};
}

std::string Summary::pct_range_string() const {
  if (std::isinf(lo) || std::isinf(hi)) return "∞";
  const double csign = go_sign(center);
  if (csign != go_sign(lo) || csign != go_sign(hi)) return "?";
  if (center == 0) return "0%";
  const double v = go_max(hi / center - 1, 1 - lo / center);
  std::string out = internal::format_f(100 * v, 0);
  out.push_back('%');
  return out;
}

SampleNeed median_samples_needed(double confidence) {
  constexpr int kLimit = 50;
  for (int n = 2; n <= kLimit; ++n) {
    const QuantileCi ci = median_ci_cached(n, confidence);
    if (0 < ci.lo_order && ci.hi_order <= n) return {">=", n};
  }
  return {">", kLimit};
}

SampleNeed u_test_samples_needed(double alpha) {
  for (int n = 1; n < 10; ++n) {
    if (kUTestMinP[n] <= alpha) return {">=", n};
  }
  return {">", 10};
}

Summary summarize(const Sample& sample, Assumption assumption, double confidence) {
  Summary s;
  const std::vector<double>& v = sample.values;
  if (v.empty()) {
    s.center = s.lo = s.hi = kNaN;
    return s;
  }
  if (assumption == Assumption::kExact) {
    double val = v[0];
    std::size_t count = 1;
    double mode = val;
    std::size_t mode_count = count;
    for (std::size_t i = 1; i < v.size(); ++i) {
      if (v[i] == val) {
        ++count;
        if (count > mode_count) {
          mode = val;
          mode_count = count;
        }
      } else {
        val = v[i];
        count = 1;
      }
    }
    s.center = mode;
    s.lo = v.front();
    s.hi = v.back();
    s.confidence = 1;
    if (mode_count != v.size()) {
      s.warnings.push_back("exact distribution expected, but values range from " +
                           internal::format_g(v.front()) + " to " + internal::format_g(v.back()));
    }
    return s;
  }
  const QuantileCi ci = median_ci_cached(static_cast<int>(v.size()), confidence);
  s.center = quantile(v, ci.quantile);
  s.lo = ci.lo_order < 1 ? -kInf : v[static_cast<std::size_t>(ci.lo_order - 1)];
  s.hi = ci.hi_order - 1 >= static_cast<int>(v.size())
             ? kInf
             : v[static_cast<std::size_t>(ci.hi_order - 1)];
  s.confidence = ci.confidence;
  if (std::isinf(s.lo) || std::isinf(s.hi)) {
    const SampleNeed need = median_samples_needed(confidence);
    s.warnings.push_back("need " + std::string(need.op) + " " + std::to_string(need.n) +
                         " samples for confidence interval at level " +
                         internal::format_g(confidence));
  }
  return s;
}

std::string Comparison::to_string() const {
  std::string s;
  if (p != 0) {
    s = "p=";
    internal::append_format_f(s, p, 3);
    s.push_back(' ');
  }
  if (n1 == n2) return s + "n=" + std::to_string(n1);
  return s + "n=" + std::to_string(n1) + "+" + std::to_string(n2);
}

std::string Comparison::format_delta(double old_center, double new_center) const {
  if (p > alpha) return "~";
  if (old_center == new_center) return "0.00%";
  if (old_center == 0) return "?";
  const double pct = ((new_center / old_center) - 1.0) * 100.0;
  std::string s = internal::format_f(pct, 2, true);
  s.push_back('%');
  return s;
}

Comparison compare(const Sample& base, const Sample& sample, Assumption assumption, double alpha) {
  Comparison c;
  c.n1 = static_cast<int>(base.values.size());
  c.n2 = static_cast<int>(sample.values.size());
  if (assumption == Assumption::kExact) {
    c.p = 0;
    c.alpha = 0;
    return c;
  }
  c.alpha = alpha;
  const bool has_nan =
      std::any_of(base.values.begin(), base.values.end(), [](double x) { return std::isnan(x); }) ||
      std::any_of(sample.values.begin(), sample.values.end(),
                  [](double x) { return std::isnan(x); });
  if (has_nan) {
    c.p = 1;
    c.warnings.push_back("NaN measurements cannot be compared");
    return c;
  }
  const MannWhitneyResult u = mann_whitney_u_test(base.values, sample.values);
  if (u.error != TestError::kNone) {
    c.p = 1;
    c.warnings.push_back(u.error == TestError::kSamplesEqual ? "all samples are equal"
                                                             : "sample is too small");
    return c;
  }
  c.p = u.p;
  if (c.p > c.alpha) {
    const SampleNeed need = u_test_samples_needed(c.alpha);
    if (c.n1 < need.n && c.n2 < need.n) {
      c.warnings.push_back("need " + std::string(need.op) + " " + std::to_string(need.n) +
                           " samples to detect a difference at alpha level " +
                           internal::format_g(c.alpha));
    }
  }
  return c;
}

}  // namespace zerolab::stat
