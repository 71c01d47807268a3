// A Google Benchmark binary built outside the zerolab tree against the
// installed zerolab::gbench: one 8-byte allocation per iteration.
#include <benchmark/benchmark.h>
#include <zerolab/gbench.hpp>

#include <memory>

static void BM_ConsumerNew(benchmark::State& state) {
  for (auto _ : state) {
    auto p = std::make_unique<long>(7);
    benchmark::DoNotOptimize(p.get());
  }
}
BENCHMARK(BM_ConsumerNew);

ZEROLAB_GBENCH_MAIN();
