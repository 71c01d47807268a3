// lab/framework/counts.hpp — `zerolab lab --measure=instructions`: exact counts per
// op (instructions, simulated cache misses, estimated cycles; see
// docs/counting.md) for the C++ benchmarks of the claims that counts
// answer (Claim::counts_answer), shown beside the time verdicts, never in
// their place.
//
// The parent (count_experiments, after the timed runs) starts its own
// executable again under callgrind as a counting child with
// kCountingChildArg and the benchmark names; that child
// (run_counting_child_if_asked, first thing in main) runs each named
// benchmark once through run_benchmark with count_instructions and prints
// one line per benchmark, which the parent reads into the outcomes.
//
// Thread-safety: one counting run per process.
//
// Example:
//   int code = 0;
//   if (run_counting_child_if_asked(argc, argv, experiments, code)) return code;
//   ...
//   count_experiments(outcomes, err);  // sets outcome.counted and .counts
//   for (const auto& line : counts_lines(outcome)) ...
#ifndef ZEROLAB_LAB_COUNTS_HPP_
#define ZEROLAB_LAB_COUNTS_HPP_

#include <cstdio>
#include <string>
#include <vector>

#include "lab/framework/experiment.hpp"
#include "lab/framework/outcome.hpp"

namespace zerolab::lab {

// The first argument that makes a binary the lab's counting child.
inline constexpr const char* kCountingChildArg = "--lab-counting-child";

// The C++ benchmarks the claims that counts answer compare, in the
// experiment's order.
std::vector<std::string> counted_benchmarks(const Experiment& e);

// When argv[1] is kCountingChildArg and this process runs as a counting
// child: counts each benchmark named in argv[2..] (looked up in
// `experiments`), prints "count <name>\t<value> <unit>..." or
// "fail <name>\t<why>" lines, sets `code` (0, or 1 if one failed) and
// returns true. Otherwise returns false and does nothing.
bool run_counting_child_if_asked(int argc, char** argv,
                                 const std::vector<const Experiment*>& experiments, int& code);

// Counts the counted benchmarks of every outcome's experiment in one
// counting child, and fills each outcome's counted, counts and
// count_failures; when the child cannot run (no valgrind, a build that
// cannot count) every outcome gets counts_error. Returns false when it
// did not run or a benchmark failed, having said why on `err`.
bool count_experiments(std::vector<ExperimentOutcome>& outcomes, std::FILE* err);

// One line per claim of a counted outcome, for the reports: the counts
// beside its verdict, or why counts do not answer it.
//   "BenchmarkA/BenchmarkB: 2.06x instructions (1234 vs 600 instructions/op), 2.14x cycles ..."
//   "counts do not answer it: a fact about the machine, checked directly"
std::vector<std::string> counts_lines(const ExperimentOutcome& outcome);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_COUNTS_HPP_
