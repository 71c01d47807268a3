// Google Benchmark benchmarks whose instruction counts are known by
// construction (hand-written assembly loop bodies), run by
// gbench_counting_test.cpp with --benchmark_measure=instructions.
//
// Example:
//   ./gbench_counting_fixture --benchmark_measure=instructions --benchmark_filter=AsmAdds
#include <benchmark/benchmark.h>
#include <zerolab/gbench.hpp>

#include <cstdint>

namespace {

std::uint64_t busy_work(int count) {
  std::uint64_t x = 0;
  for (int i = 0; i < count; ++i) asm volatile("add $1, %0" : "+r"(x));
  return x;
}

void BM_AsmAdds3(benchmark::State& state) {
  std::uint64_t x = 0;
  for (auto _ : state) asm volatile("add $1, %0\n\tadd $2, %0\n\tadd $3, %0" : "+r"(x));
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_AsmAdds3);

void BM_AsmAdds10(benchmark::State& state) {
  std::uint64_t x = 0;
  for (auto _ : state) {
    asm volatile(
        "add $1, %0\n\tadd $2, %0\n\tadd $3, %0\n\tadd $4, %0\n\tadd $5, %0\n\t"
        "add $6, %0\n\tadd $7, %0\n\tadd $8, %0\n\tadd $9, %0\n\tadd $10, %0"
        : "+r"(x));
  }
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
    asm volatile("add $1, %0\n\tadd $2, %0\n\tadd $3, %0" : "+r"(x));
  }
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_AsmAdds3PausedWork)->Arg(1000)->Arg(5000);

}  // namespace

ZEROLAB_GBENCH_MAIN();
