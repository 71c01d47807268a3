// The few math functions zerolab::waste's preload needs, so that it does not
// load libm into programs that do not use it (most C programs): the
// sampler's exponential draws (log), a sample's weight 1/(1 - exp(-x))
// (expm1), and the rounding of weighted counts (llround's rule). Within an
// ulp or two of libm's; the weights they feed are estimates, and exact mode
// (rate 1) uses none of them but round_half_away on whole numbers.
//
// Example:
//   double w = 1.0 / -expm1_neg(-61.0 / 524288.0);   // a 61-byte sample's weight
//   std::int64_t calls = round_half_away(w);
#ifndef ZEROLAB_SRC_WASTE_PRELOAD_MATH_HPP_
#define ZEROLAB_SRC_WASTE_PRELOAD_MATH_HPP_

#include <cstdint>
#include <cstring>

namespace zerolab::waste {

// llround's rule (halves away from zero) for |x| < 2^63; INT64_MIN beyond
// (what llround gives there on x86-64), and for NaN.
inline std::int64_t round_half_away(double x) {
  if (!(x > -9223372036854775808.0 && x < 9223372036854775808.0)) return INT64_MIN;
  const auto t = static_cast<std::int64_t>(x);     // toward zero
  const double frac = x - static_cast<double>(t);  // exact: x's fractional part
  if (frac >= 0.5) return t + 1;
  if (frac <= -0.5) return t - 1;
  return t;
}

namespace math_detail {

inline constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2, upper bits (exact k * hi)
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
inline constexpr double kInvLn2 = 1.44269504088896338700e+00;

inline double from_bits(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}
inline std::uint64_t to_bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// e^r - 1 for |r| <= 0.35: Taylor series to r^15/15!, whose next term is
// below 2^-60 of the result.
inline double expm1_small(double r) {
  double sum = 1.0;
  for (int k = 15; k >= 2; --k) sum = 1.0 + sum * r / k;
  return r * sum;
}

}  // namespace math_detail

// e^x - 1 for x <= 0 (the weights' argument, -size / rate); -1 below -40.
inline double expm1_neg(double x) {
  using namespace math_detail;
  if (x >= -0.34) return expm1_small(x);
  if (x < -40.0) return -1.0;
  // x = k ln2 + r, |r| <= ln2 / 2; e^x = 2^k e^r, k in [-58, 0].
  const double kd = static_cast<double>(round_half_away(x * kInvLn2));
  if (kd == 0.0) return expm1_small(x);
  const double r = (x - kd * kLn2Hi) - kd * kLn2Lo;
  const double er = 1.0 + expm1_small(r);
  const auto k = static_cast<std::int64_t>(kd);
  return er * from_bits(static_cast<std::uint64_t>(1023 + k) << 52) - 1.0;
}

// The natural logarithm of u, 0 < u < infinity (the sampler's uniform draw).
inline double log_positive(double u) {
  using namespace math_detail;
  std::int64_t e = 0;
  if (u < 2.2250738585072014e-308) {  // subnormal: scale into the normal range
    u *= 18014398509481984.0;         // 2^54
    e = -54;
  }
  const std::uint64_t bits = to_bits(u);
  e += static_cast<std::int64_t>(bits >> 52) - 1023;
  double m = from_bits((bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1023} << 52));
  if (m > 1.4142135623730951) {  // m in [sqrt(1/2), sqrt(2)]
    m *= 0.5;
    ++e;
  }
  // log m = log(1 + f) = f - s (f - R) with s = f / (2 + f) and
  // R = 2 s^2/3 + 2 s^4/5 + ... + 2 s^22/23 (|s| <= 0.172: the next term is
  // below 2^-60 of the result), arranged as fdlibm's log so that the
  // exact f and e ln2 are added last.
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  double r = 2.0 / 23.0;
  for (int k = 21; k >= 3; k -= 2) r = 2.0 / k + z * r;
  r *= z;
  const double hfsq = 0.5 * f * f;
  const double ed = static_cast<double>(e);
  return ed * kLn2Hi - ((hfsq - (s * (hfsq + r) + ed * kLn2Lo)) - f);
}

}  // namespace zerolab::waste

#endif  // ZEROLAB_SRC_WASTE_PRELOAD_MATH_HPP_
