// Go's amd64 math as benchstat's digits need it (src/stat/go_math.hpp).
//
// Example:
//   double lg = zerolab::internal::go_lgamma_int(10);  // log(9!) as Go computes it
//
// Floating-point expressions here must evaluate exactly as written (Go does
// not fuse multiply-adds on amd64), so the library is built with
// -ffp-contract=off (src/CMakeLists.txt).

#include "stat/go_math.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace zerolab::internal {
namespace {

double from_bits(std::uint64_t b) {
  return std::bit_cast<double>(b);
}
std::uint64_t to_bits(double d) {
  return std::bit_cast<std::uint64_t>(d);
}

constexpr std::uint64_t kPosInfBits = 0x7FF0000000000000ULL;
constexpr std::uint64_t kNegInfBits = 0xFFF0000000000000ULL;

bool cpu_has_fma() {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") && __builtin_cpu_supports("fma");
  }();
  return has;
#else
  return true;
#endif
}

// CVTSD2SL: round to nearest even; out of range gives INT32_MIN.
std::int32_t cvtsd2sl(double x) {
  const double r = std::nearbyint(x);
  if (!(r >= -2147483648.0 && r <= 2147483647.0)) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(r);
}

}  // namespace

double go_exp(double x) {
  return go_exp_with(x, cpu_has_fma());
}

bool go_exp_uses_fma() {
  return cpu_has_fma();
}

double go_exp_with(double x, bool fma) {
  constexpr double kLog2e = 1.4426950408889634073599246810018920;
  constexpr double kLn2U = 0.69314718055966295651160180568695068359375;
  constexpr double kLn2L = 0.28235290563031577122588448175013436025525412068e-12;
  constexpr double kOverflow = 7.09782712893384e+02;
  constexpr double kC[] = {0.5,
                           1.0,
                           2.0,
                           1.6666666666666666667e-1,
                           4.1666666666666666667e-2,
                           8.3333333333333333333e-3,
                           1.3888888888888888889e-3,
                           1.9841269841269841270e-4,
                           2.4801587301587301587e-5};
  const std::uint64_t bits = to_bits(x);
  if ((bits & ~(std::uint64_t{1} << 63)) >= kPosInfBits) {  // Inf or NaN
    if (bits == kNegInfBits) return 0;
    return x;
  }
  if (x > kOverflow) return from_bits(kPosInfBits);
  std::int32_t e = cvtsd2sl(kLog2e * x);
  const double k = static_cast<double>(e);
  double r = 0;
  if (fma) {
    r = std::fma(-kLn2U, k, x);
    r = std::fma(-kLn2L, k, r);
    r *= 0.0625;
    double p = kC[8];
    p = std::fma(p, r, kC[7]);
    p = std::fma(p, r, kC[6]);
    p = std::fma(p, r, kC[5]);
    p = std::fma(p, r, kC[4]);
    p = std::fma(p, r, kC[3]);
    p = std::fma(p, r, kC[0]);
    p = std::fma(p, r, kC[1]);
    r *= p;
    for (int i = 0; i < 3; ++i) {
      p = r + kC[2];
      r *= p;
    }
    p = r + kC[2];
    r = std::fma(p, r, kC[1]);
  } else {
    r = x - kLn2U * k;
    r = r - kLn2L * k;
    r *= 0.0625;
    double p = kC[8] * r;
    p = (p + kC[7]) * r;
    p = (p + kC[6]) * r;
    p = (p + kC[5]) * r;
    p = (p + kC[4]) * r;
    p = (p + kC[3]) * r;
    p = (p + kC[0]) * r;
    p = p + kC[1];
    r = r * p;
    for (int i = 0; i < 4; ++i) r = r * (kC[2] + r);
    r = r + kC[1];
  }
  // r * 2**e, with Go's handling of overflow and denormals.
  std::int64_t biased = static_cast<std::int64_t>(e) + 0x3FF;
  if (biased <= 0) {
    if (biased < -52) return 0;
    biased += 0x3FE;
    r *= from_bits(static_cast<std::uint64_t>(biased) << 52);
    biased = 1;
  } else if (biased >= 0x7FF) {
    return from_bits(kPosInfBits);
  }
  return r * from_bits(static_cast<std::uint64_t>(biased) << 52);
}

double go_log(double x) {
  constexpr double kHalfSqrt2 = 7.07106781186547524401e-01;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kL1 = 6.666666666666735130e-01;
  constexpr double kL2 = 3.999999999940941908e-01;
  constexpr double kL3 = 2.857142874366239149e-01;
  constexpr double kL4 = 2.222219843214978396e-01;
  constexpr double kL5 = 1.818357216161805012e-01;
  constexpr double kL6 = 1.531383769920937332e-01;
  constexpr double kL7 = 1.479819860511658591e-01;
  const std::uint64_t bits = to_bits(x);
  if ((bits & ~(std::uint64_t{1} << 63)) == 0) return from_bits(kNegInfBits);
  if (static_cast<std::int64_t>(bits) < 0) return from_bits(0x7FF8000000000001ULL);
  if (bits >= kPosInfBits) return x;
  double f1 = from_bits((bits & 0x000FFFFFFFFFFFFFULL) | 0x3FE0000000000000ULL);
  double k = static_cast<double>(static_cast<std::int32_t>((bits >> 52) & 0x7FF) - 0x3FE);
  if (f1 <= kHalfSqrt2) {
    k -= 1;
    f1 *= 2;
  }
  const double f = f1 - 1;
  const double s = f / (2 + f);
  const double s2 = s * s;
  const double s4 = s2 * s2;
  const double t1 = s2 * (kL1 + s4 * (kL3 + s4 * (kL5 + s4 * kL7)));
  const double t2 = s4 * (kL2 + s4 * (kL4 + s4 * kL6));
  const double big_r = t1 + t2;
  const double hfsq = 0.5 * f * f;
  return k * kLn2Hi - ((hfsq - (s * (hfsq + big_r) + k * kLn2Lo)) - f);
}

double go_lgamma_int(int n) {
  if (n <= 0) return std::numeric_limits<double>::infinity();
  if (n <= 2) return 0;
  if (n < 8) {
    // Lgamma(n) = log((n-1)!/1) with the product taken as Go's table does.
    double z = 1.0;
    for (int i = n - 1; i >= 2; --i) z *= static_cast<double>(i);
    return 0.5 * 0.0 + 0.0 / 1.0 + go_log(z);
  }
  constexpr double kW[] = {4.18938533204672725052e-01,  8.33333333333329678849e-02,
                           -2.77777777728775536470e-03, 7.93650558643019558500e-04,
                           -5.95187557450339963135e-04, 8.36339918996282139126e-04,
                           -1.63092934096575273989e-03};
  const double x = static_cast<double>(n);
  const double t = go_log(x);
  const double z = 1 / x;
  const double y = z * z;
  const double w =
      kW[0] + z * (kW[1] + y * (kW[2] + y * (kW[3] + y * (kW[4] + y * (kW[5] + y * kW[6])))));
  return (x - 0.5) * (t - 1) + w;
}

double go_erfc(double x) {
  constexpr double kTiny = 1.0 / static_cast<double>(std::uint64_t{1} << 56);
  constexpr double erx = 8.45062911510467529297e-01;
  constexpr double pp0 = 1.28379167095512558561e-01, pp1 = -3.25042107247001499370e-01,
                   pp2 = -2.84817495755985104766e-02, pp3 = -5.77027029648944159157e-03,
                   pp4 = -2.37630166566501626084e-05;
  constexpr double qq1 = 3.97917223959155352819e-01, qq2 = 6.50222499887672944485e-02,
                   qq3 = 5.08130628187576562776e-03, qq4 = 1.32494738004321644526e-04,
                   qq5 = -3.96022827877536812320e-06;
  constexpr double pa0 = -2.36211856075265944077e-03, pa1 = 4.14856118683748331666e-01,
                   pa2 = -3.72207876035701323847e-01, pa3 = 3.18346619901161753674e-01,
                   pa4 = -1.10894694282396677476e-01, pa5 = 3.54783043256182359371e-02,
                   pa6 = -2.16637559486879084300e-03;
  constexpr double qa1 = 1.06420880400844228286e-01, qa2 = 5.40397917702171048937e-01,
                   qa3 = 7.18286544141962662868e-02, qa4 = 1.26171219808761642112e-01,
                   qa5 = 1.36370839120290507362e-02, qa6 = 1.19844998467991074170e-02;
  constexpr double ra0 = -9.86494403484714822705e-03, ra1 = -6.93858572707181764372e-01,
                   ra2 = -1.05586262253232909814e+01, ra3 = -6.23753324503260060396e+01,
                   ra4 = -1.62396669462573470355e+02, ra5 = -1.84605092906711035994e+02,
                   ra6 = -8.12874355063065934246e+01, ra7 = -9.81432934416914548592e+00;
  constexpr double sa1 = 1.96512716674392571292e+01, sa2 = 1.37657754143519042600e+02,
                   sa3 = 4.34565877475229228821e+02, sa4 = 6.45387271733267880336e+02,
                   sa5 = 4.29008140027567833386e+02, sa6 = 1.08635005541779435134e+02,
                   sa7 = 6.57024977031928170135e+00, sa8 = -6.04244152148580987438e-02;
  constexpr double rb0 = -9.86494292470009928597e-03, rb1 = -7.99283237680523006574e-01,
                   rb2 = -1.77579549177547519889e+01, rb3 = -1.60636384855821916062e+02,
                   rb4 = -6.37566443368389627722e+02, rb5 = -1.02509513161107724954e+03,
                   rb6 = -4.83519191608651397019e+02;
  constexpr double sb1 = 3.03380607434824582924e+01, sb2 = 3.25792512996573918826e+02,
                   sb3 = 1.53672958608443695994e+03, sb4 = 3.19985821950859553908e+03,
                   sb5 = 2.55305040643316442583e+03, sb6 = 4.74528541206955367215e+02,
                   sb7 = -2.24409524465858183362e+01;
  if (std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x)) return x > 0 ? 0.0 : 2.0;
  bool sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  if (x < 0.84375) {
    double temp = 0;
    if (x < kTiny) {
      temp = x;
    } else {
      const double z = x * x;
      const double r = pp0 + z * (pp1 + z * (pp2 + z * (pp3 + z * pp4)));
      const double s = 1 + z * (qq1 + z * (qq2 + z * (qq3 + z * (qq4 + z * qq5))));
      const double y = r / s;
      if (x < 0.25) {
        temp = x + x * y;
      } else {
        temp = 0.5 + (x * y + (x - 0.5));
      }
    }
    return sign ? 1 + temp : 1 - temp;
  }
  if (x < 1.25) {
    const double s = x - 1;
    const double p = pa0 + s * (pa1 + s * (pa2 + s * (pa3 + s * (pa4 + s * (pa5 + s * pa6)))));
    const double q = 1 + s * (qa1 + s * (qa2 + s * (qa3 + s * (qa4 + s * (qa5 + s * qa6)))));
    return sign ? 1 + erx + p / q : 1 - erx - p / q;
  }
  if (x < 28) {
    const double s = 1 / (x * x);
    double r = 0;
    double ss = 0;
    if (x < 1 / 0.35) {
      r = ra0 + s * (ra1 + s * (ra2 + s * (ra3 + s * (ra4 + s * (ra5 + s * (ra6 + s * ra7))))));
      ss =
          1 + s * (sa1 +
                   s * (sa2 + s * (sa3 + s * (sa4 + s * (sa5 + s * (sa6 + s * (sa7 + s * sa8)))))));
    } else {
      if (sign && x > 6) return 2;
      r = rb0 + s * (rb1 + s * (rb2 + s * (rb3 + s * (rb4 + s * (rb5 + s * rb6)))));
      ss = 1 + s * (sb1 + s * (sb2 + s * (sb3 + s * (sb4 + s * (sb5 + s * (sb6 + s * sb7))))));
    }
    const double z = from_bits(to_bits(x) & 0xffffffff00000000ULL);
    const double rr = go_exp(-z * z - 0.5625) * go_exp((z - x) * (z + x) + r / ss);
    return sign ? 2 - rr / x : rr / x;
  }
  return sign ? 2 : 0;
}

double go_choose(int n, int k) {
  if (k == 0 || k == n) return 1;
  if (k < 0 || n < k) return 0;
  if (n <= 20) {
    std::int64_t numer = 1;
    for (std::int64_t n1 = n - (k - 1); n1 <= n; ++n1) numer *= n1;
    std::int64_t denom = 1;
    for (std::int64_t i = 2; i <= k; ++i) denom *= i;
    // Exact: k! divides the product of any k consecutive integers.
    const std::int64_t choose = numer / denom;
    return static_cast<double>(choose);
  }
  const double a = go_lgamma_int(n + 1);
  const double b = go_lgamma_int(k + 1);
  const double c = go_lgamma_int(n - k + 1);
  return go_exp(a - b - c);
}

}  // namespace zerolab::internal
