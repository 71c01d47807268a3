// Claim outcomes from raw results (judge.hpp).
#include "lab/framework/judge.hpp"

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

std::string ratio_text(double r) {
  return std::isinf(r) ? "∞" : fixed(r, 2) + "x";
}

std::string failure_of(const std::vector<BenchmarkFailure>& failures, const std::string& name) {
  for (const auto& f : failures) {
    if (f.benchmark == name) return f.text();
  }
  return "";
}

SideOutcome error_outcome(std::string message) {
  SideOutcome c;
  c.verdict = Verdict::kError;
  c.detail = std::move(message);
  return c;
}

SideOutcome plain(Verdict verdict, std::string detail) {
  SideOutcome c;
  c.verdict = verdict;
  c.detail = std::move(detail);
  return c;
}

// One side's results and what it measures for a claim.
struct SideData {
  const std::vector<benchfmt::Result>& results;
  const std::vector<BenchmarkFailure>& failures;
  std::string slower;
  std::string faster;
  std::string benchmark;
  std::string unit;
  double scale = 1;
  // Non-null: `faster` is read from these (the seed's C run as the C++
  // side, against the Go peer's slower; GoSide::faster_is_c).
  const std::vector<benchfmt::Result>* faster_results = nullptr;
  const std::vector<BenchmarkFailure>* faster_failures = nullptr;
};

// `side` with `faster` read from its faster_results (or itself).
SideData faster_side(const SideData& side) {
  if (side.faster_results == nullptr) return side;
  return SideData{*side.faster_results,
                  *side.faster_failures,
                  side.slower,
                  side.faster,
                  side.benchmark,
                  side.unit,
                  side.scale};
}

// The samples of (name, unit), or an error message naming what is missing.
// The truncated counts Go prints are refused: a claim counts on kAllocsPerOp
// or kBytesPerOp.
bool find_samples(const SideData& side, const std::string& name, std::vector<double>& out,
                  std::string& error) {
  if (side.unit == "allocs/op" || side.unit == "B/op") {
    error = name + ": " + side.unit + " is Go's truncated integer; the claim must count in " +
            (side.unit == "B/op" ? kBytesPerOp : kAllocsPerOp);
    return false;
  }
  if (const std::string f = failure_of(side.failures, name); !f.empty()) {
    error = f;
    return false;
  }
  out = samples_of(side.results, name, side.unit);
  if (out.empty()) {
    error = name + ": no " + side.unit + " results";
    return false;
  }
  return true;
}

std::string n_text(const RatioVerdict& v) {
  return v.n_slower == v.n_faster
             ? "n=" + std::to_string(v.n_slower)
             : "n=" + std::to_string(v.n_slower) + "+" + std::to_string(v.n_faster);
}

SideOutcome judge_two(const Claim& claim, const SideData& side, double alpha) {
  std::vector<double> slower;
  std::vector<double> faster;
  std::string error;
  if (!find_samples(side, side.slower, slower, error) ||
      !find_samples(faster_side(side), side.faster, faster, error)) {
    return error_outcome(error);
  }
  for (const double v : slower) {
    if (!(v > 0)) return error_outcome(side.slower + ": a " + side.unit + " value <= 0");
  }
  for (const double v : faster) {
    if (!(v > 0)) return error_outcome(side.faster + ": a " + side.unit + " value <= 0");
  }
  RatioVerdict v;
  std::string rule;
  switch (claim.kind) {
    case ClaimKind::kBand:
      v = judge_band(slower, faster, claim.band_lo, claim.band_hi);
      rule = "band [" + fixed(claim.band_lo, 2) + ", " + fixed(claim.band_hi, 2) + "] ";
      break;
    case ClaimKind::kEquivalence:
      v = judge_equivalence(slower, faster, claim.noise, alpha);
      rule =
          "within ±" + sig3(claim.noise * 100) + "% at " + fixed((1 - 2 * alpha) * 100, 0) + "% ";
      break;
    default:
      v = judge_ratio(slower, faster, claim.at_least, alpha);
      if (claim.at_least != 1.0) rule = "k=" + sig3(claim.at_least) + " ";
      break;
  }
  SideOutcome c;
  c.verdict = v.verdict;
  c.provisional = v.provisional;
  if (claim.kind != ClaimKind::kEquivalence) {
    c.size = judge_size(v, claim.seed_ratio);
    c.seed_ratio = claim.seed_ratio;
  }
  c.here = ratio_text(v.ratio);
  if (!v.provisional) c.here += " [" + fixed(v.lo, 2) + ", " + fixed(v.hi, 2) + "]";
  c.here += " (" + format_value(v.median_slower, side.unit) + " vs " +
            format_value(v.median_faster, side.unit) + ")";
  c.detail = rule + n_text(v);
  if (!v.provisional && claim.kind == ClaimKind::kRatio)
    c.detail = "p=" + fixed(v.p, 3) + " " + c.detail;
  return c;
}

SideOutcome judge_one(const Claim& claim, const SideData& side) {
  std::vector<double> values;
  std::string error;
  if (!find_samples(side, side.benchmark, values, error)) return error_outcome(error);
  const BoundVerdict v = judge_bound(values, side.scale, claim.lo, claim.hi, 0.95);
  SideOutcome c;
  c.verdict = v.verdict;
  c.provisional = v.provisional;
  c.here = sig3(v.median) + " " + claim.bound_unit;
  if (!v.provisional) c.here += " [" + sig3(v.lo) + ", " + sig3(v.hi) + "]";
  c.detail = "limit [" + sig3(claim.lo) + ", " + sig3(claim.hi) + "] " + claim.bound_unit +
             " n=" + std::to_string(v.n);
  return c;
}

SideOutcome judge_side(const Claim& claim, const SideData& side, double alpha) {
  return claim.kind == ClaimKind::kBound ? judge_one(claim, side) : judge_two(claim, side, alpha);
}

// A claim over several rows: the first row's figures, the rows' verdicts
// combined (every row replicates → replicates; one contradicts →
// contradicts; else inconclusive), and how many rows replicated.
SideOutcome judge_rows(const Claim& claim, const SideData& first,
                       const std::vector<std::pair<std::string, std::string>>& more_rows,
                       double alpha) {
  SideOutcome c = judge_side(claim, first, alpha);
  if (c.verdict == Verdict::kError) return c;
  int replicate = c.verdict == Verdict::kReplicates ? 1 : 0;
  bool contradicted = c.verdict == Verdict::kContradicts;
  for (const auto& [slower, faster] : more_rows) {
    SideData row = first;
    row.slower = slower;
    row.faster = faster;
    SideOutcome r = judge_side(claim, row, alpha);
    if (r.verdict == Verdict::kError) return r;
    replicate += r.verdict == Verdict::kReplicates ? 1 : 0;
    contradicted = contradicted || r.verdict == Verdict::kContradicts;
  }
  const int rows = 1 + static_cast<int>(more_rows.size());
  c.verdict = replicate == rows ? Verdict::kReplicates
              : contradicted    ? Verdict::kContradicts
                                : Verdict::kInconclusive;
  c.here += " (the first of " + std::to_string(rows) + " rows)";
  c.detail =
      std::to_string(replicate) + " of " + std::to_string(rows) + " rows replicate; " + c.detail;
  return c;
}

SideOutcome from_fact(const std::function<FactResult()>& check) {
  SideOutcome c;
  try {
    const FactResult r = check();
    c.verdict = r.holds ? Verdict::kHolds : Verdict::kDoesNotHold;
    c.here = r.observed;
  } catch (const std::exception& e) {
    return error_outcome(std::string("the check threw: ") + e.what());
  }
  return c;
}

}  // namespace

std::vector<double> samples_of(const std::vector<benchfmt::Result>& results,
                               const std::string& name, const std::string& unit) {
  std::vector<double> out;
  for (const auto& r : results) {
    const bool same =
        r.name == name ||
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

std::optional<SideOutcome> unmet_precondition(const Claim& claim, ClaimSide side,
                                              const MachineFacts& facts) {
  for (const Precondition& p : claim.preconditions) {
    if (p.side != ClaimSide::kBoth && p.side != side) continue;
    const std::string here = p.unmet ? p.unmet(facts) : "";
    if (here.empty()) continue;
    return plain(Verdict::kNotComparable, p.what + ": " + here);
  }
  return std::nullopt;
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

SideOutcome judge_fact(const Claim& claim) {
  if (!claim.cpp_not_comparable.empty()) {
    return plain(Verdict::kNotComparable, claim.cpp_not_comparable);
  }
  if (!claim.check) return error_outcome("the fact has no C++ check");
  return from_fact(claim.check);
}

SideOutcome judge_measured(const Claim& claim, const ExperimentOutcome& outcome, double alpha) {
  if (!claim.cpp_not_comparable.empty()) {
    return plain(Verdict::kNotComparable, claim.cpp_not_comparable);
  }
  std::vector<const std::string*> names = {&claim.slower, &claim.faster, &claim.benchmark};
  for (const auto& [slower, faster] : claim.more_rows) {
    names.push_back(&slower);
    names.push_back(&faster);
  }
  for (const std::string* name : names) {
    if (const auto it = outcome.cpp_not_run.find(*name); it != outcome.cpp_not_run.end()) {
      return plain(Verdict::kNotRun, it->second);
    }
  }
  const SideData side{outcome.results, outcome.failures, claim.slower, claim.faster,
                      claim.benchmark, claim.unit,       claim.scale};
  if (!claim.more_rows.empty() && claim.kind != ClaimKind::kBound) {
    return judge_rows(claim, side, claim.more_rows, alpha);
  }
  return judge_side(claim, side, alpha);
}

SideOutcome judge_go(const Claim& claim, const ExperimentOutcome& outcome, double alpha,
                     const GoPeerBinary* peer) {
  if (!claim.go.not_comparable.empty()) {
    return plain(Verdict::kNotComparable, claim.go.not_comparable);
  }
  if (claim.go.empty()) {
    return plain(Verdict::kNotRun,
                 outcome.experiment == nullptr || outcome.experiment->go_peer.empty()
                     ? "no Go peer"
                     : "no Go benchmark named for this claim");
  }
  if (!outcome.go_not_run.empty()) return plain(Verdict::kNotRun, outcome.go_not_run);
  if (claim.go.faster_is_c) {
    if (const auto it = outcome.cpp_not_run.find(claim.go.faster);
        it != outcome.cpp_not_run.end()) {
      return plain(Verdict::kNotRun, it->second);
    }
  }
  if (claim.kind == ClaimKind::kFact) {
    if (!claim.go.check) return error_outcome("the fact has no Go check");
    if (peer == nullptr) return plain(Verdict::kNotRun, "the Go peer was not built");
    return from_fact([&] { return claim.go.check(*peer); });
  }
  SideData side{outcome.go_results,
                outcome.go_failures,
                claim.go.slower,
                claim.go.faster,
                claim.go.benchmark,
                claim.go.unit.empty() ? claim.unit : claim.go.unit,
                claim.go.scale > 0 ? claim.go.scale : claim.scale};
  if (claim.go.faster_is_c) {
    side.faster_results = &outcome.results;
    side.faster_failures = &outcome.failures;
  }
  if (!claim.go.more_rows.empty() && claim.kind != ClaimKind::kBound) {
    return judge_rows(claim, side, claim.go.more_rows, alpha);
  }
  return judge_side(claim, side, alpha);
}

void SideTally::add(const SideOutcome& side) {
  ++claims;
  switch (side.verdict) {
    case Verdict::kReplicates:
      ++replicate;
      break;
    case Verdict::kContradicts:
      ++contradict;
      break;
    case Verdict::kInconclusive:
      ++inconclusive;
      break;
    case Verdict::kHolds:
      ++hold;
      break;
    case Verdict::kDoesNotHold:
      ++do_not_hold;
      break;
    case Verdict::kError:
      ++errors;
      break;
    case Verdict::kNotComparable:
      ++not_comparable;
      break;
    case Verdict::kNotRun:
      ++not_run;
      break;
  }
  switch (side.size) {
    case Size::kNone:
      break;
    case Size::kLarger:
      ++larger;
      break;
    case Size::kAsSeed:
      ++as_seed;
      break;
    case Size::kSmaller:
      ++smaller;
      break;
    case Size::kUnclear:
      ++size_unclear;
      break;
  }
}

Tally tally(const std::vector<ExperimentOutcome>& outcomes) {
  Tally t;
  for (const auto& e : outcomes) {
    for (const auto& c : e.claims) {
      const bool project = c.claim != nullptr && c.claim->origin == ClaimOrigin::kProject;
      (project ? t.project_go : t.go).add(c.go);
      (project ? t.project_cpp : t.cpp).add(c.cpp);
    }
  }
  return t;
}

}  // namespace zerolab::lab
