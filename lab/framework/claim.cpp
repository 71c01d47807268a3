// The Claim constructors and modifiers (experiment.hpp).
#include <cstdlib>
#include <utility>

#include "lab/framework/experiment.hpp"

namespace zerolab::lab {
namespace {

Claim quoted(ClaimKind kind, SeedRef seed) {
  Claim c;
  c.kind = kind;
  c.statement = std::move(seed.quote);
  c.seed_figure = std::move(seed.figure);
  c.seed_section = std::move(seed.section);
  return c;
}

// The ratio a seed figure starts with ("5.08x (12.132 vs 2.386 µs/op)" →
// 5.08), 0 when it starts with anything else.
double leading_ratio(const std::string& figure) {
  char* end = nullptr;
  const double r = std::strtod(figure.c_str(), &end);
  if (end == figure.c_str() || *end != 'x' || !(r > 0)) return 0;
  return r;
}

Claim two_sided(ClaimKind kind, SeedRef seed, std::string slower, std::string faster) {
  Claim c = quoted(kind, std::move(seed));
  c.seed_ratio = leading_ratio(c.seed_figure);
  c.slower = std::move(slower);
  c.faster = std::move(faster);
  return c;
}

}  // namespace

Claim Claim::is_faster(SeedRef seed, std::string slower, std::string faster) {
  return two_sided(ClaimKind::kRatio, std::move(seed), std::move(slower), std::move(faster));
}

Claim Claim::direction(SeedRef seed, double seed_ratio, std::string slower, std::string faster) {
  Claim c = two_sided(ClaimKind::kRatio, std::move(seed), std::move(slower), std::move(faster));
  c.seed_ratio = seed_ratio;
  return c;
}

Claim Claim::at_least_times(SeedRef seed, double k, std::string slower, std::string faster) {
  Claim c = two_sided(ClaimKind::kRatio, std::move(seed), std::move(slower), std::move(faster));
  c.at_least = k;
  return c;
}

Claim Claim::about(SeedRef seed, double n, std::string slower, std::string faster) {
  Claim c = two_sided(ClaimKind::kBand, std::move(seed), std::move(slower), std::move(faster));
  c.at_least = n;
  c.seed_ratio = n;
  c.band_lo = n / kBandWidth;
  c.band_hi = n * kBandWidth;
  return c;
}

Claim Claim::no_change(SeedRef seed, double noise, std::string a, std::string b) {
  Claim c = two_sided(ClaimKind::kEquivalence, std::move(seed), std::move(a), std::move(b));
  c.noise = noise;
  return c;
}

Claim Claim::within(SeedRef seed, std::string benchmark, std::string unit, double lo, double hi,
                    double scale, std::string bound_unit) {
  Claim c = quoted(ClaimKind::kBound, std::move(seed));
  c.benchmark = std::move(benchmark);
  c.unit = std::move(unit);
  c.lo = lo;
  c.hi = hi;
  c.scale = scale;
  c.bound_unit = bound_unit.empty() ? c.unit : std::move(bound_unit);
  return c;
}

Claim Claim::fact_check(SeedRef seed, std::function<FactResult()> check) {
  Claim c = quoted(ClaimKind::kFact, std::move(seed));
  c.check = std::move(check);
  return c;
}

Claim& Claim::in(std::string u) {
  if (kind == ClaimKind::kBound && bound_unit == unit) bound_unit = u;
  unit = std::move(u);
  return *this;
}

Claim& Claim::band(double band_low, double band_high) {
  band_lo = band_low;
  band_hi = band_high;
  return *this;
}

Claim& Claim::go_names(std::string go_slower, std::string go_faster) {
  go.slower = std::move(go_slower);
  go.faster = std::move(go_faster);
  return *this;
}

Claim& Claim::go_bench(std::string go_benchmark) {
  go.benchmark = std::move(go_benchmark);
  return *this;
}

Claim& Claim::go_unit(std::string go_unit_name, double go_scale) {
  go.unit = std::move(go_unit_name);
  go.scale = go_scale;
  return *this;
}

Claim& Claim::go_also(std::string row_slower, std::string row_faster) {
  go.more_rows.emplace_back(std::move(row_slower), std::move(row_faster));
  return *this;
}

Claim& Claim::go_against_c(std::string go_slower, std::string c_faster) {
  go.slower = std::move(go_slower);
  go.faster = std::move(c_faster);
  go.faster_is_c = true;
  return *this;
}

Claim& Claim::go_fact(std::function<FactResult(const GoPeerBinary&)> go_check) {
  go.check = std::move(go_check);
  return *this;
}

Claim& Claim::go_not_comparable(std::string why) {
  go.not_comparable = std::move(why);
  return *this;
}

Claim& Claim::cpp_not_comparable_because(std::string why) {
  cpp_not_comparable = std::move(why);
  return *this;
}

Claim& Claim::counted() {
  counts_answer = true;
  return *this;
}

Claim& Claim::project() {
  origin = ClaimOrigin::kProject;
  return *this;
}

Claim& Claim::sized(double ratio) {
  seed_ratio = ratio;
  return *this;
}

Claim& Claim::also(std::string row_slower, std::string row_faster) {
  more_rows.emplace_back(std::move(row_slower), std::move(row_faster));
  return *this;
}

Claim& Claim::needs(Precondition p) {
  preconditions.push_back(std::move(p));
  return *this;
}

Claim Claim::ratio(std::string statement, std::string seed_figure, std::string slower,
                   std::string faster, double at_least, std::string unit) {
  Claim c = at_least_times({std::move(statement), "", std::move(seed_figure)}, at_least,
                           std::move(slower), std::move(faster));
  c.unit = std::move(unit);
  return c;
}

Claim Claim::bound(std::string statement, std::string seed_figure, std::string benchmark,
                   std::string unit, double lo, double hi, double scale, std::string bound_unit) {
  return within({std::move(statement), "", std::move(seed_figure)}, std::move(benchmark),
                std::move(unit), lo, hi, scale, std::move(bound_unit));
}

Claim Claim::fact(std::string statement, std::string seed_figure,
                  std::function<FactResult()> check) {
  return fact_check({std::move(statement), "", std::move(seed_figure)}, std::move(check));
}

}  // namespace zerolab::lab
