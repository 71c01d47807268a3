// lab/judge.hpp — turns an experiment's raw results into claim outcomes:
// picks each claim's samples out of the results, asks verdict.hpp, and
// formats the figures shown beside the seed's. Fact claims run their check
// here (exceptions become `error`); claims whose benchmark failed or never
// produced the unit become `error` with the benchmark's message.
//
// Thread-safety: runs fact checks; call from the lab's thread.
//
// Example:
//   ExperimentOutcome out = run_benchmarks(experiment, ...);  // fills results
//   judge_measured_claims(out, 0.05);
#ifndef ZEROLAB_LAB_JUDGE_HPP_
#define ZEROLAB_LAB_JUDGE_HPP_

#include <string>
#include <vector>

#include "lab/outcome.hpp"

namespace zerolab::lab {

// The values of `unit` reported by the benchmark named `name` (exactly, or
// with a "-N" CPU suffix), in run order.
std::vector<double> samples_of(const std::vector<benchfmt::Result>& results,
                               const std::string& name, const std::string& unit);

// Judges one fact claim by running its check.
ClaimOutcome judge_fact(const Claim& claim);

// Judges one ratio or bound claim from `outcome.results`.
ClaimOutcome judge_measured(const Claim& claim, const ExperimentOutcome& outcome, double alpha);

// "19.2µs" for 1.92e4 in ns/op; "2.5e+05 faults/op" style for other units.
std::string format_value(double value, const std::string& unit);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_JUDGE_HPP_
