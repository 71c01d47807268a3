// Go's amd64 math functions that benchstat's digits depend on bit for bit:
// Exp (Shibata's method, FMA or not as the CPU allows), Log (fdlibm
// reduction), Lgamma at integers, Erfc, and moremath's Choose built on them.
// glibc's functions round differently in the last place, which shows in
// CSV/JSON output and can flip order-statistic choices in the quantile
// confidence interval.
//
// Thread-safety: all functions are pure.
//
// Example:
//   double g = zerolab::internal::go_exp(1.0);  // Go's math.Exp(1)
#ifndef ZEROLAB_SRC_STAT_GO_MATH_HPP_
#define ZEROLAB_SRC_STAT_GO_MATH_HPP_

namespace zerolab::internal {

// Go's math.Exp as the amd64 build computes it (with FMA when the CPU has
// AVX and FMA, as Go decides at run time).
double go_exp(double x);
// go_exp with the FMA path forced on or off, and whether go_exp uses it.
double go_exp_with(double x, bool fma);
bool go_exp_uses_fma();
// Go's math.Log as the amd64 build computes it.
double go_log(double x);
// Go's math.Lgamma(n) for an integer n >= 1.
double go_lgamma_int(int n);
// Go's math.Erfc.
double go_erfc(double x);
// moremath's mathx.Choose(n, k): exact below 21, exp(lchoose) above.
double go_choose(int n, int k);
}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_STAT_GO_MATH_HPP_
