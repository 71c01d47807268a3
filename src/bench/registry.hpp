// The list of benchmarks registered with ZEROLAB_BENCHMARK, in registration
// order (source order within a file).
//
// Thread-safety: registration happens during static initialisation; reads
// happen later from the runner. Not for concurrent use.
//
// Example:
//   for (const auto& entry : zerolab::internal::registered_benchmarks()) { ... }
#ifndef ZEROLAB_SRC_BENCH_REGISTRY_HPP_
#define ZEROLAB_SRC_BENCH_REGISTRY_HPP_

#include <string>
#include <vector>

namespace zerolab {
class B;
namespace internal {

struct RegisteredBenchmark {
  std::string name;  // "BenchmarkFoo"
  void (*function)(B&);
};

const std::vector<RegisteredBenchmark>& registered_benchmarks();

}  // namespace internal
}  // namespace zerolab

#endif  // ZEROLAB_SRC_BENCH_REGISTRY_HPP_
