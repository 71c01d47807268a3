// The zerolab half of the peer comparison with Google Benchmark
// (bench/peers/gbench_side.cpp is the other half; scripts/peer-agreement.sh
// runs both alternately and compares the medians).
//
// Each benchmark does exactly the work of its BM_ twin, with the optimizer
// barriers at the same places: a barrier after each memset and sort so the
// stores count, and do_not_optimize on the malloc'ed pointer so the
// malloc/free pair is not elided. The data are peer_workloads.hpp's, the
// same on both sides.
//
// Built twice (bench/peers/CMakeLists.txt):
//   peer_zerolab          zerolab::bench_main — allocation hooks interposed,
//                         so malloc/free pay for the counting (B/op,
//                         allocs/op are reported);
//   peer_zerolab_nohooks  zerolab::bench with the main() below
//                         (ZEROLAB_PEERS_OWN_MAIN) — plain glibc malloc, no
//                         allocation columns.
//
// Example:
//   build/release/bench/peers/peer_zerolab -bench . -benchtime 1s -count 1 -cpu 1
//   # for instance (2-core AMD EPYC VM):
//   # BenchmarkMemset4K      	...	        33.6 ns/op	...
//   # BenchmarkMallocFree64  	...	         7.2 ns/op	...	      64 B/op	       1
//   allocs/op # BenchmarkSortInts1000  	...	      3725 ns/op	...
#include <zerolab/bench.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "peer_workloads.hpp"

using namespace zerolab::peers;  // the shared workloads

// (a) memset of 4 KiB.
ZEROLAB_BENCHMARK(Memset4K) {
  for (auto _ : b.loop()) {
    std::memset(g_memset_buffer, 0, kMemsetBytes);
    zerolab::clobber_memory();
  }
}

// (b) malloc(64) + free.
ZEROLAB_BENCHMARK(MallocFree64) {
  for (auto _ : b.loop()) {
    void* p = std::malloc(64);
    zerolab::do_not_optimize(p);
    std::free(p);
  }
}

// (c) copy the pre-shuffled 1000 ints into the work buffer, then sort it.
ZEROLAB_BENCHMARK(SortInts1000) {
  fill_shuffled();
  for (auto _ : b.loop()) {
    std::memcpy(g_work, g_shuffled, sizeof g_work);
    std::sort(g_work, g_work + kSortInts);
    zerolab::clobber_memory();
  }
}

#ifdef ZEROLAB_PEERS_OWN_MAIN
// The no-hooks build: zerolab::bench without zerolab::alloc_hooks.
int main(int argc, char** argv) {
  return zerolab::bench_main(argc, argv);
}
#endif
