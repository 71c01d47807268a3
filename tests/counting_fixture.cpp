// Benchmarks whose instruction counts are known by construction, run by
// counting_test.cpp with -benchmeasure=instructions. Their loop bodies are
// hand-written assembly, so the compiler cannot change how many
// instructions an iteration executes.
//
// Example:
//   ./counting_fixture -benchmeasure=instructions -bench 'AsmAdds' -benchtime 20x -cpu 1
#include <zerolab/bench.hpp>

#include <unistd.h>

#include <cstdint>

#include "add_loops.hpp"

namespace {

using zerolab::test::busy_work;
using zerolab::test::ten_adds;
using zerolab::test::three_adds;

}  // namespace

ZEROLAB_BENCHMARK(AsmAdds3) {
  std::uint64_t x = 0;
  for (auto _ : b.loop()) three_adds(x);
  zerolab::do_not_optimize(x);
}

ZEROLAB_BENCHMARK(AsmAdds10) {
  std::uint64_t x = 0;
  for (auto _ : b.loop()) ten_adds(x);
  zerolab::do_not_optimize(x);
}

// Three adds after `setup` additions of setup; one function for every
// setup size, so the loop's code is the same.
__attribute__((noinline)) void adds_after_setup(zerolab::B& b, int setup) {
  std::uint64_t x = busy_work(setup);
  for (auto _ : b.loop()) three_adds(x);
  zerolab::do_not_optimize(x);
}

ZEROLAB_BENCHMARK(AsmAdds3AfterSetup) {
  b.run("setup=0", [](zerolab::B& sub) { adds_after_setup(sub, 0); });
  b.run("setup=100000", [](zerolab::B& sub) { adds_after_setup(sub, 100000); });
}

// The classic b.n() loop: the setup before it is timed, so only the
// difference of the two passes keeps it out.
ZEROLAB_BENCHMARK(AsmAdds3ClassicLoop) {
  std::uint64_t x = busy_work(100000);
  for (std::int64_t i = 0; i < b.n(); ++i) three_adds(x);
  zerolab::do_not_optimize(x);
}

// Three adds, and `work` additions per iteration done while the timer is
// stopped: every size of work must read the same.
__attribute__((noinline)) void adds_with_stopped_work(zerolab::B& b, int work) {
  std::uint64_t x = 0;
  for (auto _ : b.loop()) {
    b.stop_timer();
    x += busy_work(work);
    b.start_timer();
    three_adds(x);
  }
  zerolab::do_not_optimize(x);
}

ZEROLAB_BENCHMARK(AsmAdds3StoppedWork) {
  b.run("work=1000", [](zerolab::B& sub) { adds_with_stopped_work(sub, 1000); });
  b.run("work=5000", [](zerolab::B& sub) { adds_with_stopped_work(sub, 5000); });
}

// Walks 64 KiB, one load per 64-byte line: twice the simulated 32 KiB L1,
// so every line misses L1 and hits the 8 MiB LL.
ZEROLAB_BENCHMARK(Walk64KiB) {
  static char buffer[64 * 1024];
  const volatile char* lines = buffer;
  for (auto _ : b.loop()) {
    for (std::size_t i = 0; i < sizeof buffer; i += 64) (void)lines[i];
  }
}

// A chain of 100 or 101 dependent additions: one instruction (about 1%)
// apart, the kind of regression a timed run on a noisy machine cannot tell
// from noise (docs/counting.md uses it).
ZEROLAB_BENCHMARK(AsmChain) {
  b.run("adds=100", [](zerolab::B& sub) {
    std::uint64_t x = 0;
    for (auto _ : sub.loop()) asm volatile(".rept 100\n\tadd $1, %0\n\t.endr" : "+r"(x));
    zerolab::do_not_optimize(x);
  });
  b.run("adds=101", [](zerolab::B& sub) {
    std::uint64_t x = 0;
    for (auto _ : sub.loop()) asm volatile(".rept 101\n\tadd $1, %0\n\t.endr" : "+r"(x));
    zerolab::do_not_optimize(x);
  });
}

// The same chains on run_parallel's threads: every thread's iterations are
// counted and the sum is divided by the total iteration count.
ZEROLAB_BENCHMARK(AsmChainParallel) {
  b.run("adds=100", [](zerolab::B& sub) {
    sub.run_parallel([](zerolab::PB& pb) {
      std::uint64_t x = 0;
      while (pb.next()) asm volatile(".rept 100\n\tadd $1, %0\n\t.endr" : "+r"(x));
      zerolab::do_not_optimize(x);
    });
  });
  b.run("adds=101", [](zerolab::B& sub) {
    sub.run_parallel([](zerolab::PB& pb) {
      std::uint64_t x = 0;
      while (pb.next()) asm volatile(".rept 101\n\tadd $1, %0\n\t.endr" : "+r"(x));
      zerolab::do_not_optimize(x);
    });
  });
}

// Waits in its loop until a signal ends the process: what an interrupted
// counting run looks like (counting_test.cpp sends SIGINT).
ZEROLAB_BENCHMARK(WaitsForASignal) {
  for (auto _ : b.loop()) pause();
}
