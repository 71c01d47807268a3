// lab/outcome.hpp — what running an experiment produced: its raw results in
// run order (C++ and Go peer), and per claim two verdicts (Go here, C++)
// with the figures that back them.
//
// Thread-safety: plain data.
//
// Example:
//   ExperimentOutcome out{&experiment};
//   ClaimOutcome c{&experiment.claims[0]};
//   c.cpp = {Verdict::kReplicates, false, "1.17x [1.15, 1.19] (19.2µs vs 16.4µs)",
//            "p=0.000 n=10+10"};
//   c.go = {Verdict::kReplicates, false, "1.20x [1.18, 1.22] (20.0µs vs 16.7µs)",
//           "p=0.000 n=10+10"};
//   out.claims.push_back(c);
#ifndef ZEROLAB_LAB_OUTCOME_HPP_
#define ZEROLAB_LAB_OUTCOME_HPP_

#include <map>
#include <string>
#include <vector>

#include "lab/framework/benchmark_failure.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/verdict.hpp"
#include "zerolab/benchfmt.hpp"

namespace zerolab::lab {

// One side's judgement of a claim: the C++ port's, or the seed's Go code
// run here.
struct SideOutcome {
  Verdict verdict = Verdict::kNotRun;
  bool provisional = false;
  std::string here;    // this machine's figure: "1.17x [1.15, 1.19] (19.2µs vs 16.4µs)"
  std::string detail;  // "p=0.000 n=10+10", what a fact saw, why not comparable / not run,
                       // or the error message
  // The effect's size against the seed's figure (Claim::seed_ratio), apart
  // from the verdict; Size::kNone when the claim has no figure or no ratio.
  Size size = Size::kNone;
  double seed_ratio = 0;
};

// A claim judged twice: `go` is verdict (Go here) — does the seed's claim
// replicate with the seed's own code on this machine; `cpp` is verdict
// (C++) — does it carry over to the C++ port.
struct ClaimOutcome {
  const Claim* claim = nullptr;
  SideOutcome cpp;
  SideOutcome go;
};

struct ExperimentOutcome {
  const Experiment* experiment = nullptr;
  std::vector<benchfmt::Result> results;   // every C++ run, in run order
  std::vector<BenchmarkFailure> failures;  // one per failed benchmark
  // The Go peer's runs (names without the -GOMAXPROCS suffix), its failed
  // benchmarks, and why it did not run ("" when it ran or has no peer).
  std::vector<benchfmt::Result> go_results;
  std::vector<BenchmarkFailure> go_failures;
  std::string go_not_run;
  // C++ benchmarks left out of this run (BenchmarkSpec::full_seconds), by
  // name: why ("not run within the budget: ...").
  std::map<std::string, std::string> cpp_not_run;
  std::vector<ClaimOutcome> claims;
  // --measure=instructions (lab/framework/counts.hpp): whether the counting run
  // happened, each counted C++ benchmark's counts per op
  // (instructions/op, L1-misses/op, LL-misses/op, cycles/op) by name, and
  // why a benchmark or the whole run has none.
  bool counted = false;
  std::map<std::string, std::vector<benchfmt::Metric>> counts;
  std::map<std::string, std::string> count_failures;
  std::string counts_error;
};

// Counts of one side's verdicts.
struct SideTally {
  int claims = 0;
  int replicate = 0;
  int contradict = 0;
  int inconclusive = 0;
  int hold = 0;
  int do_not_hold = 0;
  int errors = 0;
  int not_comparable = 0;
  int not_run = 0;
  // The sizes against the seed's figures (claims with one, judged).
  int larger = 0;
  int as_seed = 0;
  int smaller = 0;
  int size_unclear = 0;
  void add(const SideOutcome& side);
};

// Tally of verdicts over outcomes: the seed's claims per side, and the
// project's own claims apart.
struct Tally {
  SideTally go;
  SideTally cpp;
  SideTally project_go;
  SideTally project_cpp;
  int errors() const { return go.errors + cpp.errors + project_go.errors + project_cpp.errors; }
};

Tally tally(const std::vector<ExperimentOutcome>& outcomes);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_OUTCOME_HPP_
