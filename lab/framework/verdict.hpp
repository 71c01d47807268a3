// lab/verdict.hpp — turns the samples of a claim into a verdict with the
// stat engine (zerolab/stat.hpp).
//
// Ratio claims ("slower takes at least k times as long as faster"):
//   - the estimate is the Hodges-Lehmann ratio: the median of every pairwise
//     ratio slower_i / faster_j, and its confidence interval the matching
//     order statistics of those ratios from the exact Mann-Whitney
//     distribution (the interval R's wilcox.test(conf.int = TRUE) gives on
//     the log scale), so estimate, interval and test agree;
//   - the test is benchstat's: Mann-Whitney U on slower against k*faster;
//   - replicates when significant (p <= alpha) with the ratio above k,
//     contradicts when significant below k, inconclusive otherwise.
// Band claims ("about N times", [band_lo, band_hi], by default
// [N/1.25, N*1.25]): replicates when the ratio's 95% Hodges-Lehmann
// interval lies inside the band, contradicts when it lies wholly outside,
// inconclusive when it straddles an edge.
// Equivalence claims ("no change", within ±noise): two one-sided tests at
// alpha, i.e. the ratio's (1 - 2·alpha) interval (90% at alpha 0.05) inside
// [1/(1+noise), 1+noise] → replicates; the 95% interval wholly outside that
// margin → contradicts (a difference larger than the seed's noise);
// inconclusive otherwise.
// Bound claims: the median's distribution-free confidence interval (as
// benchstat's ±) lies inside [lo, hi] → replicates, wholly outside →
// contradicts, straddles an edge → inconclusive.
// With fewer runs than a test can use (< 6 per side), the verdict follows
// the point estimate alone and is marked provisional.
// The size of an effect, apart from its verdict (judge_size): a ratio
// claim's interval against the seed's own figure, [s / kSizeWidth,
// s · kSizeWidth] — wholly above is "larger", wholly below "smaller",
// inside "as the seed", across an edge "unclear". It never changes the
// verdict of a claim whose seed words give only a direction or a quality;
// only a factor the seed states in words ("about 2x", "half") is a band.
//
// Thread-safety: pure functions.
//
// Example:
//   std::vector<double> zeroed = {20.1, 20.0, 20.3, 19.9, 20.2, 20.0};
//   std::vector<double> uninit = {16.7, 16.8, 16.6, 16.9, 16.7, 16.8};
//   RatioVerdict v = judge_ratio(zeroed, uninit, 1.0, 0.05);
//   // v.verdict == Verdict::kReplicates, v.ratio ≈ 1.20, v.p == 0.002
#ifndef ZEROLAB_LAB_VERDICT_HPP_
#define ZEROLAB_LAB_VERDICT_HPP_

#include <span>
#include <string>
#include <string_view>

namespace zerolab::lab {

// kNotComparable: the claim says why this side cannot test it. kNotRun: no
// Go here for this claim (no peer, --go=off, no `go` on PATH); the
// outcome's detail says which.
enum class Verdict {
  kReplicates,
  kContradicts,
  kInconclusive,
  kHolds,
  kDoesNotHold,
  kError,
  kNotComparable,
  kNotRun
};

// "replicates", "contradicts", "inconclusive", "holds", "does not hold",
// "error", "not comparable", "not run".
std::string_view to_string(Verdict v);

// Runs per side below which verdicts are provisional.
inline constexpr int kMinRunsForTest = 6;

struct RatioVerdict {
  Verdict verdict = Verdict::kInconclusive;
  bool provisional = false;
  double ratio = 0;  // Hodges-Lehmann estimate of slower/faster
  double lo = 0;     // confidence interval of the ratio (0 / +inf when open)
  double hi = 0;
  double confidence = 0;  // achieved level of [lo, hi]
  double p = 1;           // Mann-Whitney p of slower vs at_least*faster
  int n_slower = 0;
  int n_faster = 0;
  double median_slower = 0;
  double median_faster = 0;
};

// REQUIRES: both samples non-empty, values > 0; at_least > 0.
RatioVerdict judge_ratio(std::span<const double> slower, std::span<const double> faster,
                         double at_least, double alpha);

// REQUIRES: both samples non-empty, values > 0; 0 < band_lo <= band_hi.
RatioVerdict judge_band(std::span<const double> slower, std::span<const double> faster,
                        double band_lo, double band_hi);

// REQUIRES: both samples non-empty, values > 0; noise > 0; 0 < alpha < 0.5.
// lo/hi of the result are the (1 - 2·alpha) interval the decision used.
RatioVerdict judge_equivalence(std::span<const double> slower, std::span<const double> faster,
                               double noise, double alpha);

struct BoundVerdict {
  Verdict verdict = Verdict::kInconclusive;
  bool provisional = false;
  double median = 0;  // scaled
  double lo = 0;      // scaled confidence interval of the median
  double hi = 0;
  int n = 0;
};

// How an effect's size compares with the seed's figure (a ratio).
enum class Size { kNone, kSmaller, kAsSeed, kLarger, kUnclear };

// "", "smaller", "as the seed", "larger", "unclear".
std::string_view to_string(Size s);

// The seed's figure s "as the seed" means a ratio within [s / kSizeWidth,
// s * kSizeWidth].
inline constexpr double kSizeWidth = 1.25;

// The size of v's effect against the seed's ratio `seed` (> 0): its
// interval [v.lo, v.hi] (the point estimate when v is provisional)
// against [seed / kSizeWidth, seed * kSizeWidth]. Size::kNone when
// seed <= 0 (the seed gives no figure).
Size judge_size(const RatioVerdict& v, double seed);

// REQUIRES: samples non-empty.
BoundVerdict judge_bound(std::span<const double> samples, double scale, double lo, double hi,
                         double confidence);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_VERDICT_HPP_
