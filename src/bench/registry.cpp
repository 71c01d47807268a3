// Registration of ZEROLAB_BENCHMARK functions (registry.hpp).
#include "bench/registry.hpp"

#include "zerolab/bench.hpp"

namespace zerolab::internal {
namespace {

std::vector<RegisteredBenchmark>& mutable_registry() {
  static std::vector<RegisteredBenchmark> registry;
  return registry;
}

}  // namespace

Registration::Registration(const char* name, void (*function)(B&)) {
  mutable_registry().push_back(RegisteredBenchmark{name, function});
}

const std::vector<RegisteredBenchmark>& registered_benchmarks() {
  return mutable_registry();
}

}  // namespace zerolab::internal
