// lab/experiments/merge_profile.hpp — the `merge` experiment's Go fact:
// seed 000's pprof graphs ("memclrNoHeapPointers using significant CPU time
// for the version with plain make and it doesn't have that function for the
// version with the modified make"), read from the Go peer's
// TestProfileShowsMemclr, which profiles both merges and logs one line:
//   memclr-share zero=44.62 nozero=1.98 zero-samples=1.30s nozero-samples=1.01s
//   nozero-callers=runtime.heapBits.initSpan
// parse_memclr_profile reads that line; judge_memclr_profile decides, so a
// test can hand it stand-ins.
//
// "Significant" has no number in the seed's words: the reading is at least
// 10% of the samples. A function the graph "doesn't have" is one under
// pprof's default node fraction, 0.5% of the samples (pprof drops such
// nodes from a graph).
//
// Thread-safety: observe runs a child process; parse and judge are pure.
//
// Example:
//   MemclrProfile p;
//   std::string error;
//   if (parse_memclr_profile(test_output, p, error)) judge_memclr_profile(p);
#ifndef ZEROLAB_LAB_EXPERIMENTS_MERGE_PROFILE_HPP_
#define ZEROLAB_LAB_EXPERIMENTS_MERGE_PROFILE_HPP_

#include <string>

#include "lab/framework/experiment.hpp"

namespace zerolab::lab {

inline constexpr double kSignificantPercent = 10.0;
inline constexpr double kGraphNodePercent = 0.5;

struct MemclrProfile {
  double zero_percent = 0;     // memclrNoHeapPointers' share of MergeSlicesZero's samples
  double nozero_percent = 0;   // ... of MergeSlicesNoZero's
  std::string zero_samples;    // pprof's total, "1.30s"
  std::string nozero_samples;  // "1.01s"
  std::string nozero_callers;  // "runtime.heapBits.initSpan", or "none"
};

// Reads the "memclr-share ..." line from the test's output; false with
// `error` saying what is missing or malformed.
bool parse_memclr_profile(const std::string& output, MemclrProfile& out, std::string& error);

// Holds when Zero's share is at least kSignificantPercent and NoZero's is
// under kGraphNodePercent.
FactResult judge_memclr_profile(const MemclrProfile& p);

// Runs the peer's TestProfileShowsMemclr and judges what it logged.
FactResult observe_memclr_profile(const GoPeerBinary& peer);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_EXPERIMENTS_MERGE_PROFILE_HPP_
