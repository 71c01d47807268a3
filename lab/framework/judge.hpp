// lab/judge.hpp — turns an experiment's raw results into claim outcomes,
// one per side (the C++ port, the seed's Go code run here): picks each
// claim's samples out of that side's results, asks verdict.hpp, and
// formats the figures shown beside the seed's. Fact claims run their check
// here (exceptions become `error`); claims whose benchmark failed or never
// produced the unit become `error` with the benchmark's message.
//
// Thread-safety: runs fact checks; call from the lab's thread.
//
// Example:
//   ExperimentOutcome out = run_benchmarks(experiment, ...);  // fills results
//   out.claims[0].cpp = judge_measured(e.claims[0], out, 0.05);
//   out.claims[0].go = judge_go(e.claims[0], out, 0.05, &peer);
#ifndef ZEROLAB_LAB_JUDGE_HPP_
#define ZEROLAB_LAB_JUDGE_HPP_

#include <optional>
#include <string>
#include <vector>

#include "lab/framework/outcome.hpp"

namespace zerolab::lab {

// The values of `unit` reported by the benchmark named `name` (exactly, or
// with a "-N" CPU suffix), in run order.
std::vector<double> samples_of(const std::vector<benchfmt::Result>& results,
                               const std::string& name, const std::string& unit);

// verdict (C++) of a fact: runs its check (or "not comparable").
SideOutcome judge_fact(const Claim& claim);

// verdict (C++) of a ratio, band, equivalence or bound claim from
// `outcome.results` (or "not comparable").
SideOutcome judge_measured(const Claim& claim, const ExperimentOutcome& outcome, double alpha);

// verdict (Go here) of any claim: from `outcome.go_results`, or the Go
// fact's check on `peer`; "not comparable" / "not run" (no Go side, no
// peer, `outcome.go_not_run`) with the reason in detail.
SideOutcome judge_go(const Claim& claim, const ExperimentOutcome& outcome, double alpha,
                     const GoPeerBinary* peer);

// "not comparable" with "<precondition>: <what this machine has>" when one
// of the claim's preconditions for `side` (kGo or kCpp) fails on `facts`;
// nullopt when they all hold.
std::optional<SideOutcome> unmet_precondition(const Claim& claim, ClaimSide side,
                                              const MachineFacts& facts);

// "19.2µs" for 1.92e4 in ns/op; "2.5e+05 faults/op" style for other units.
std::string format_value(double value, const std::string& unit);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_JUDGE_HPP_
