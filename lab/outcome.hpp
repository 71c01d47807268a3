// lab/outcome.hpp — what running an experiment produced: its raw results in
// run order, and per claim a verdict with the figures that back it.
//
// Thread-safety: plain data.
//
// Example:
//   ExperimentOutcome out{&experiment};
//   out.claims.push_back({&experiment.claims[0], Verdict::kReplicates, false,
//                         "1.17x [1.15, 1.19] (19.2µs vs 16.4µs)", "p=0.000 n=10+10", ""});
#ifndef ZEROLAB_LAB_OUTCOME_HPP_
#define ZEROLAB_LAB_OUTCOME_HPP_

#include <string>
#include <vector>

#include "lab/experiment.hpp"
#include "lab/verdict.hpp"
#include "zerolab/benchfmt.hpp"

namespace zerolab::lab {

struct ClaimOutcome {
  const Claim* claim = nullptr;
  Verdict verdict = Verdict::kInconclusive;
  bool provisional = false;
  std::string here;    // this machine's figure: "1.17x [1.15, 1.19] (19.2µs vs 16.4µs)"
  std::string detail;  // "p=0.000 n=10+10", what a fact saw, or the error message
};

struct ExperimentOutcome {
  const Experiment* experiment = nullptr;
  std::vector<benchfmt::Result> results;  // every run, in run order
  std::vector<std::string> failures;      // "BenchmarkX: message", one per failed benchmark
  std::vector<ClaimOutcome> claims;
};

// Tally of verdicts over outcomes.
struct Tally {
  int claims = 0;
  int replicate = 0;
  int contradict = 0;
  int inconclusive = 0;
  int hold = 0;
  int do_not_hold = 0;
  int errors = 0;
};

Tally tally(const std::vector<ExperimentOutcome>& outcomes);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_OUTCOME_HPP_
