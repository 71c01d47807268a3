// Google Benchmark benchmarks whose instruction counts are known by
// construction (hand-written assembly loop bodies), run by
// gbench_counting_test.cpp with --benchmark_measure=instructions.
//
// Example:
//   ./gbench_counting_fixture --benchmark_measure=instructions --benchmark_filter=AsmAdds
#include <benchmark/benchmark.h>
#include <zerolab/gbench.hpp>

#include <cstdint>

#include "add_loops.hpp"

namespace {

using zerolab::test::busy_work;
using zerolab::test::ten_adds;
using zerolab::test::three_adds;

void BM_AsmAdds3(benchmark::State& state) {
  std::uint64_t x = 0;
  for (auto _ : state) three_adds(x);
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_AsmAdds3);

void BM_AsmAdds10(benchmark::State& state) {
  std::uint64_t x = 0;
  for (auto _ : state) ten_adds(x);
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_AsmAdds10);

// Three adds, and range(0) additions per iteration while paused: every
// amount of paused work must read the same.
void BM_AsmAdds3PausedWork(benchmark::State& state) {
  const int work = static_cast<int>(state.range(0));
  std::uint64_t x = busy_work(100000);  // setup: not counted either
  for (auto _ : state) {
    state.PauseTiming();
    x += busy_work(work);
    state.ResumeTiming();
    three_adds(x);
  }
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_AsmAdds3PausedWork)->Arg(1000)->Arg(5000);

}  // namespace

ZEROLAB_GBENCH_MAIN();
