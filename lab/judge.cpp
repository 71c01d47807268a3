// Claim outcomes from raw results (judge.hpp).
#include "lab/judge.hpp"

#include <cmath>
#include <cstdio>
#include <exception>

#include "zerolab/stat.hpp"

namespace zerolab::lab {
namespace {

std::string fixed(double value, int digits) {
  if (std::isinf(value)) return value > 0 ? "∞" : "-∞";
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// Three significant figures, without exponent for everyday magnitudes.
std::string sig3(double value) {
  if (std::isinf(value)) return value > 0 ? "∞" : "-∞";
  const double a = std::fabs(value);
  if (a == 0) return "0";
  if (a >= 1e6 || a < 1e-3) {
    char text[48];
    std::snprintf(text, sizeof text, "%.3g", value);
    return text;
  }
  const int digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return fixed(value, digits);
}

std::string ratio_text(double r) { return std::isinf(r) ? "∞" : fixed(r, 2) + "x"; }

std::string failure_of(const ExperimentOutcome& outcome, const std::string& name) {
  for (const auto& f : outcome.failures) {
    if (f.rfind(name + ":", 0) == 0) return f;
  }
  return "";
}

ClaimOutcome error_outcome(const Claim& claim, std::string message) {
  ClaimOutcome c;
  c.claim = &claim;
  c.verdict = Verdict::kError;
  c.detail = std::move(message);
  return c;
}

// The samples of (name, unit), or an error message naming what is missing.
bool find_samples(const ExperimentOutcome& outcome, const std::string& name,
                  const std::string& unit, std::vector<double>& out, std::string& error) {
  if (const std::string f = failure_of(outcome, name); !f.empty()) {
    error = f;
    return false;
  }
  out = samples_of(outcome.results, name, unit);
  if (out.empty()) {
    error = name + ": no " + unit + " results";
    return false;
  }
  return true;
}

}  // namespace

std::vector<double> samples_of(const std::vector<benchfmt::Result>& results,
                               const std::string& name, const std::string& unit) {
  std::vector<double> out;
  for (const auto& r : results) {
    const bool same = r.name == name ||
                      (r.name.size() > name.size() && r.name.compare(0, name.size(), name) == 0 &&
                       r.name[name.size()] == '-' &&
                       r.name.find_first_not_of("0123456789", name.size() + 1) == std::string::npos);
    if (!same) continue;
    for (const auto& m : r.metrics) {
      if (m.unit == unit) out.push_back(m.value);
    }
  }
  return out;
}

std::string format_value(double value, const std::string& unit) {
  if (unit == "ns/op") {
    const double a = std::fabs(value);
    if (a >= 1e9) return sig3(value / 1e9) + "s";
    if (a >= 1e6) return sig3(value / 1e6) + "ms";
    if (a >= 1e3) return sig3(value / 1e3) + "µs";
    return sig3(value) + "ns";
  }
  return sig3(value) + " " + unit;
}

ClaimOutcome judge_fact(const Claim& claim) {
  ClaimOutcome c;
  c.claim = &claim;
  try {
    const FactResult r = claim.check();
    c.verdict = r.holds ? Verdict::kHolds : Verdict::kDoesNotHold;
    c.here = r.observed;
  } catch (const std::exception& e) {
    return error_outcome(claim, std::string("the check threw: ") + e.what());
  }
  return c;
}

ClaimOutcome judge_measured(const Claim& claim, const ExperimentOutcome& outcome, double alpha) {
  std::string error;
  if (claim.kind == ClaimKind::kRatio) {
    std::vector<double> slower;
    std::vector<double> faster;
    if (!find_samples(outcome, claim.slower, claim.unit, slower, error) ||
        !find_samples(outcome, claim.faster, claim.unit, faster, error)) {
      return error_outcome(claim, error);
    }
    for (const double v : slower) {
      if (!(v > 0)) return error_outcome(claim, claim.slower + ": a " + claim.unit + " value <= 0");
    }
    for (const double v : faster) {
      if (!(v > 0)) return error_outcome(claim, claim.faster + ": a " + claim.unit + " value <= 0");
    }
    const RatioVerdict v = judge_ratio(slower, faster, claim.at_least, alpha);
    ClaimOutcome c;
    c.claim = &claim;
    c.verdict = v.verdict;
    c.provisional = v.provisional;
    c.here = ratio_text(v.ratio);
    if (!v.provisional) c.here += " [" + fixed(v.lo, 2) + ", " + fixed(v.hi, 2) + "]";
    c.here += " (" + format_value(v.median_slower, claim.unit) + " vs " +
              format_value(v.median_faster, claim.unit) + ")";
    c.detail = v.n_slower == v.n_faster ? "n=" + std::to_string(v.n_slower)
                                        : "n=" + std::to_string(v.n_slower) + "+" +
                                              std::to_string(v.n_faster);
    if (!v.provisional) c.detail = "p=" + fixed(v.p, 3) + " " + c.detail;
    return c;
  }
  std::vector<double> values;
  if (!find_samples(outcome, claim.benchmark, claim.unit, values, error)) {
    return error_outcome(claim, error);
  }
  const BoundVerdict v = judge_bound(values, claim.scale, claim.lo, claim.hi, 0.95);
  ClaimOutcome c;
  c.claim = &claim;
  c.verdict = v.verdict;
  c.provisional = v.provisional;
  c.here = sig3(v.median) + " " + claim.bound_unit;
  if (!v.provisional) c.here += " [" + sig3(v.lo) + ", " + sig3(v.hi) + "]";
  c.detail = "limit [" + sig3(claim.lo) + ", " + sig3(claim.hi) + "] " + claim.bound_unit +
             " n=" + std::to_string(v.n);
  return c;
}

Tally tally(const std::vector<ExperimentOutcome>& outcomes) {
  Tally t;
  for (const auto& e : outcomes) {
    for (const auto& c : e.claims) {
      ++t.claims;
      switch (c.verdict) {
        case Verdict::kReplicates: ++t.replicate; break;
        case Verdict::kContradicts: ++t.contradict; break;
        case Verdict::kInconclusive: ++t.inconclusive; break;
        case Verdict::kHolds: ++t.hold; break;
        case Verdict::kDoesNotHold: ++t.do_not_hold; break;
        case Verdict::kError: ++t.errors; break;
      }
    }
  }
  return t;
}

}  // namespace zerolab::lab
