// A Google Benchmark binary built with zerolab::gbench, run by
// tests/gbench_test.cpp. Its benchmarks allocate known amounts per
// iteration: BM_ThreeNews three blocks (24 + 40 + 1000 = 1064 bytes, sizes
// whose usable size equals the request under glibc and ASan alike, so the
// live-heap peak is exact too), BM_NoAllocs nothing, BM_Arg one block of
// state.range(0) bytes (Google Benchmark copies the argument vector during
// the memory pass: the manager must leave that copy out).
//
// Built twice: with ZEROLAB_GBENCH_MAIN() (gbench_fixture) and with
// BENCHMARK_MAIN() plus install_memory_manager() (gbench_fixture_plain).
//
// Example: build/release/tests/gbench_fixture --benchmark_min_time=0.01
#include <benchmark/benchmark.h>

#include <new>

#include "zerolab/gbench.hpp"

namespace {

// The pointer escapes (what DoNotOptimize is for). Not
// benchmark::DoNotOptimize(T&) on a pointer: with 1.7.1's "+m,r" asm
// constraint, GCC 12 at -O1 (the ASan preset) freed a wrong address in
// BM_Arg.
inline void escape(const void* p) {
  asm volatile("" : : "r"(p) : "memory");
}

void BM_ThreeNews(benchmark::State& state) {
  for (auto _ : state) {
    // Calls of operator new itself: the compiler may not elide them.
    void* a = ::operator new(24);
    void* b = ::operator new(40);
    void* c = ::operator new(1000);
    escape(a);
    escape(b);
    escape(c);
    ::operator delete(c);
    ::operator delete(b);
    ::operator delete(a);
  }
}
BENCHMARK(BM_ThreeNews);
// Ten iterations on each of two threads: the memory pass runs 10, and the
// JSON says "iterations": 20, "threads": 2.
BENCHMARK(BM_ThreeNews)->Iterations(10)->Threads(2);

void BM_NoAllocs(benchmark::State& state) {
  int x = 0;
  for (auto _ : state) {
    ++x;
    escape(&x);
  }
}
BENCHMARK(BM_NoAllocs);

void BM_Arg(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    void* p = ::operator new(n);
    escape(p);
    ::operator delete(p);
  }
}
BENCHMARK(BM_Arg)->Arg(56)->Iterations(5);

}  // namespace

#if defined(ZEROLAB_FIXTURE_PLAIN_MAIN)
// A user who keeps BENCHMARK_MAIN installs the manager before main runs.
static const bool g_installed = (zerolab::gbench::install_memory_manager(), true);
BENCHMARK_MAIN();
#else
ZEROLAB_GBENCH_MAIN();
#endif
