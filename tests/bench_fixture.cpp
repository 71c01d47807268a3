// Benchmarks with known behaviour, run as a subprocess by bench_test.cpp.
// Each one's expected output is asserted there; they do little work so the
// tests stay fast. Always select with -bench: BenchmarkCrash kills the process.
//
// Example:
//   ./bench_fixture -bench 'AllocNewInt$' -benchtime 100x
#include <zerolab/bench.hpp>

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace {
// Keeps pointers opaque so new/delete pairs are not elided.
template <class T>
T* opaque(T* p) {
  asm volatile("" : "+r"(p));
  return p;
}
struct alignas(64) OverAligned {
  char bytes[64];
};
}  // namespace

ZEROLAB_BENCHMARK(AllocNewInt) {
  for (auto _ : b.loop()) delete opaque(new int(1));
}

ZEROLAB_BENCHMARK(AllocString100) {
  for (auto _ : b.loop()) {
    std::string s(100, 'x');
    zerolab::do_not_optimize(s);
  }
}

ZEROLAB_BENCHMARK(AllocVector1000) {
  for (auto _ : b.loop()) {
    std::vector<int> v;
    for (int i = 0; i < 1000; ++i) v.push_back(i);
    zerolab::do_not_optimize(v);
  }
}

ZEROLAB_BENCHMARK(AllocCalloc) {
  for (auto _ : b.loop()) std::free(opaque(std::calloc(10, 8)));
}

// realloc growth then shrink: 3 allocations of 16 + 4096 + 8 bytes.
ZEROLAB_BENCHMARK(AllocRealloc) {
  for (auto _ : b.loop()) {
    void* p = opaque(std::malloc(16));
    p = opaque(std::realloc(p, 4096));
    p = opaque(std::realloc(p, 8));
    std::free(p);
  }
}

ZEROLAB_BENCHMARK(AllocPosixMemalign) {
  for (auto _ : b.loop()) {
    void* p = nullptr;
    if (posix_memalign(&p, 256, 1000) != 0) b.fatal("posix_memalign failed");
    std::free(opaque(p));
  }
}

ZEROLAB_BENCHMARK(AllocAlignedNew) {
  for (auto _ : b.loop()) delete opaque(new OverAligned());
}

// Allocations while the timer is stopped are not counted: 1 alloc/op.
ZEROLAB_BENCHMARK(AllocTimerStopped) {
  for (std::int64_t i = 0; i < b.n(); ++i) {
    b.stop_timer();
    delete opaque(new int(2));
    delete opaque(new int(3));
    b.start_timer();
    delete opaque(new long(4));
  }
}

ZEROLAB_BENCHMARK(AllocParallel) {
  b.run_parallel([](zerolab::PB& pb) {
    while (pb.next()) delete opaque(new int(5));
  });
}

// Counts body executions so the test can compare them with the N printed.
// The inner loop makes an iteration cost a few ns, so 1s is reached long
// before Go's cap of 1e9 iterations.
int spin() {
  int x = 0;
  for (int i = 0; i < 16; ++i) zerolab::do_not_optimize(x += i);
  return x;
}

ZEROLAB_BENCHMARK(LoopCount) {
  std::int64_t bodies = 0;
  for (auto _ : b.loop()) bodies += spin() > 0;
  b.report_metric(static_cast<double>(bodies), "bodies");
  b.report_metric(static_cast<double>(b.elapsed().count()), "total-ns");
}

ZEROLAB_BENCHMARK(ClassicCount) {
  std::int64_t bodies = 0;
  for (std::int64_t i = 0; i < b.n(); ++i) bodies += spin() > 0;
  b.report_metric(static_cast<double>(bodies), "bodies");
  b.report_metric(static_cast<double>(b.elapsed().count()), "total-ns");
}

ZEROLAB_BENCHMARK(Names) {
  b.run("a b", [](zerolab::B& sb) {
    for (auto _ : sb.loop()) {
    }
  });
  b.run("x", [](zerolab::B& sb) {
    for (auto _ : sb.loop()) {
    }
  });
  b.run("x", [](zerolab::B& sb) {
    for (auto _ : sb.loop()) {
    }
  });
  b.run("nested", [](zerolab::B& sb) {
    sb.run("deep", [](zerolab::B& d) {
      for (auto _ : d.loop()) {
      }
    });
  });
}

ZEROLAB_BENCHMARK(Metrics) {
  b.set_bytes(1000);
  for (auto _ : b.loop()) {
  }
  b.report_metric(1.5, "widgets/op");
  b.report_metric(0, "ns/op");
}

ZEROLAB_BENCHMARK(Fatal) {
  for (auto _ : b.loop()) b.fatal("deliberate failure");
}

ZEROLAB_BENCHMARK(Throws) {
  for (auto _ : b.loop()) throw std::runtime_error("deliberate exception");
}

ZEROLAB_BENCHMARK(Skipped) {
  b.skip("not on this machine");
}

ZEROLAB_BENCHMARK(Logs) {
  for (auto _ : b.loop()) {
  }
  b.log("a note");
}

ZEROLAB_BENCHMARK(Heap) {
  std::vector<std::vector<char>> kept;
  b.report_heap();
  for (auto _ : b.loop()) {
  }
  kept.emplace_back(1 << 20);
  zerolab::do_not_optimize(kept);
  static std::vector<char>* leak = nullptr;
  if (leak == nullptr) leak = new std::vector<char>(1 << 16);
}

// Writes to a PROT_NONE page: a real SIGSEGV, without undefined behaviour
// the compiler could exploit.
ZEROLAB_BENCHMARK(Crash) {
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (auto _ : b.loop()) *static_cast<volatile int*>(page) = 1;
}
