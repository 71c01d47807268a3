// The harness's own cost per iteration: an empty `b.loop()` body (the figure
// zerolab promises: at most 1 ns/op), and the few things a benchmark body
// commonly adds around its work — the optimizer barriers, the classic
// `b.n()` loop, and stopping and restarting the timer. MallocFree64Loop and
// MallocFree64Classic run the peer workload MallocFree64 in the two loop
// forms: around a body that makes calls, the b.loop() iterator keeps its
// count on the stack (its address goes to the out-of-line slow path) where
// the classic loop keeps it in a register; comparing the two shows whether
// that costs anything measurable.
//
// StopStartTimer takes much longer than -benchtime in wall time: only the
// part of each iteration between start_timer and the next stop_timer counts.
//
// The empty loops are not optimized away: the b.loop() iterator passes its
// counter through an empty asm statement every iteration, and the classic
// loop below holds a compiler barrier, so each iteration really executes.
//
// Example:
//   cmake --preset release && cmake --build --preset release
//   build/release/bench/peers/peer_overhead -bench 'EmptyLoop$' -count 10 -cpu 1
//   # BenchmarkEmptyLoop   	1000000000	         0.3 ns/op	...
//   build/release/bench/peers/peer_overhead -cpu 1      # every overhead figure
#include <zerolab/bench.hpp>

#include <cstdint>
#include <cstdlib>

// Figure 1: the b.loop() machinery alone.
ZEROLAB_BENCHMARK(EmptyLoop) {
  for (auto _ : b.loop()) {
  }
}

// A compiler barrier per iteration (emits no instruction): should cost the
// same as the empty loop.
ZEROLAB_BENCHMARK(LoopClobberMemory) {
  for (auto _ : b.loop()) {
    zerolab::clobber_memory();
  }
}

// do_not_optimize on a register-sized value, the usual way to keep a result.
ZEROLAB_BENCHMARK(LoopDoNotOptimize) {
  std::uint64_t x = 1;
  for (auto _ : b.loop()) {
    zerolab::do_not_optimize(x);
  }
}

// The classic Go loop form; the barrier keeps the compiler from deleting the
// otherwise empty loop (it would report 0 ns/op).
ZEROLAB_BENCHMARK(ClassicLoopClobberMemory) {
  for (std::int64_t i = 0; i < b.n(); ++i) {
    zerolab::clobber_memory();
  }
}

// What stop_timer + start_timer cost inside a timed loop (they read the clock
// and the allocation and page-fault counters). Only the part between
// start_timer and stop_timer of the next iteration is timed, so this shows
// the part of that cost a body pays when it toggles the timer.
ZEROLAB_BENCHMARK(StopStartTimer) {
  for (auto _ : b.loop()) {
    b.stop_timer();
    b.start_timer();
  }
}

// The peer workload MallocFree64 (zerolab_side.cpp) in both loop forms
// (with this binary's allocation hooks, the same in both).
ZEROLAB_BENCHMARK(MallocFree64Loop) {
  for (auto _ : b.loop()) {
    void* p = std::malloc(64);
    zerolab::do_not_optimize(p);
    std::free(p);
  }
}

ZEROLAB_BENCHMARK(MallocFree64Classic) {
  const std::int64_t n = b.n();
  for (std::int64_t i = 0; i < n; ++i) {
    void* p = std::malloc(64);
    zerolab::do_not_optimize(p);
    std::free(p);
  }
}
