// lab/benchmark_failure.hpp — one benchmark that failed in a lab run: which
// one and what it said. The C++ side fills it from run_benchmark's report,
// the Go peer's side from the peer's "--- FAIL" blocks.
//
// Thread-safety: plain data.
//
// Example:
//   BenchmarkFailure f{"BenchmarkX", "could not open /dev/null"};
//   f.text() == "BenchmarkX: could not open /dev/null"
#ifndef ZEROLAB_LAB_BENCHMARK_FAILURE_HPP_
#define ZEROLAB_LAB_BENCHMARK_FAILURE_HPP_

#include <string>

namespace zerolab::lab {

struct BenchmarkFailure {
  std::string benchmark;  // its name without -N; "go peer" when the peer binary itself failed
  std::string message;    // its messages joined with "; ", or "failed"

  std::string text() const { return benchmark + ": " + message; }
  bool operator==(const BenchmarkFailure&) const = default;
};

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_BENCHMARK_FAILURE_HPP_
