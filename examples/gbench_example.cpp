// A Google Benchmark binary with zerolab's allocation counts: the README's
// "Google Benchmark binaries" example. Built when Google Benchmark is found.
//
// Example:
//   build/release/examples/gbench_example                           # console rows with B/op,
//   allocs/op build/release/examples/gbench_example --benchmark_format=json > gb.json
//   build/release/tools/zerolab/zerolab compare gb.json
#include <benchmark/benchmark.h>
#include <zerolab/gbench.hpp>

#include <string>
#include <vector>

namespace {

const std::string kHundred(100, 'x');

void BM_StringConcat(benchmark::State& state) {
  for (auto _ : state) {
    std::string s = kHundred + kHundred;
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_StringConcat);

void BM_VectorPushBack(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<int> v;
    for (int i = 0; i < state.range(0); ++i) v.push_back(i);
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(BM_VectorPushBack)->Arg(100);

}  // namespace

ZEROLAB_GBENCH_MAIN();
