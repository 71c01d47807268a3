// The Google Benchmark half of the peer comparison (bench/peers/
// zerolab_side.cpp is the other half; scripts/peer-agreement.sh runs both
// alternately and compares the medians).
//
// Each BM_ benchmark does exactly the work of its zerolab twin, with
// benchmark::ClobberMemory / benchmark::DoNotOptimize where zerolab uses
// clobber_memory / do_not_optimize. UseRealTime() makes Google Benchmark
// choose its iteration count by wall time, as zerolab does; the "Time"
// column (real time per iteration) is what is compared with zerolab's ns/op.
// The minimum time is left to the command line (--benchmark_min_time=1 to
// match zerolab's -benchtime 1s).
//
// Example:
//   build/release/bench/peers/peer_gbench --benchmark_min_time=1
//   # for instance (2-core AMD EPYC VM):
//   # BM_Memset4K/real_time         34.6 ns         34.6 ns     40466120
//   # BM_MallocFree64/real_time     6.42 ns         6.42 ns    218096314
//   # BM_SortInts1000/real_time     3688 ns         3688 ns       379581
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "peer_workloads.hpp"

namespace {

using namespace zerolab::peers;  // the shared workloads

// (a) memset of 4 KiB.
void BM_Memset4K(benchmark::State& state) {
  for (auto _ : state) {
    std::memset(g_memset_buffer, 0, kMemsetBytes);
    benchmark::ClobberMemory();
  }
}

// (b) malloc(64) + free.
void BM_MallocFree64(benchmark::State& state) {
  for (auto _ : state) {
    void* p = std::malloc(64);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}

// (c) copy the pre-shuffled 1000 ints into the work buffer, then sort it.
void BM_SortInts1000(benchmark::State& state) {
  fill_shuffled();
  for (auto _ : state) {
    std::memcpy(g_work, g_shuffled, sizeof g_work);
    std::sort(g_work, g_work + kSortInts);
    benchmark::ClobberMemory();
  }
}

}  // namespace

BENCHMARK(BM_Memset4K)->UseRealTime();
BENCHMARK(BM_MallocFree64)->UseRealTime();
BENCHMARK(BM_SortInts1000)->UseRealTime();

BENCHMARK_MAIN();
