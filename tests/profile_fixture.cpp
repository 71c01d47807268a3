// Benchmarks whose profiles are known, run as a subprocess by
// profile_test.cpp with -cpuprofile and -memprofile: one burns CPU in one
// named function (and more CPU outside its timer, which a profile must not
// show), one spends its time in libc's memset, one allocates a known number of objects of a known
// size from one named function and keeps some of them, one allocates through every common path for
// the allocs/op comparison.
//
// Example:
//   ./profile_fixture -bench 'CpuHot$' -benchtime 300ms -cpuprofile cpu.out
//   go tool pprof -top cpu.out   # profile_fixture::spin_hot_function on top
#include <zerolab/bench.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace profile_fixture {

constexpr int kObjectsPerIteration = 3;      // k
constexpr std::size_t kObjectBytes = 48;     // b
constexpr std::size_t kKeptCapacity = 4096;  // iterations whose object is kept
void* g_kept[kKeptCapacity];                 // static: keeping costs no allocation
std::size_t g_kept_count = 0;

// A CPU-bound loop the optimizer cannot remove.
[[gnu::noinline]] std::uint64_t spin_hot_function(std::uint64_t x) {
  for (int i = 0; i < 4000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    asm volatile("" : "+r"(x));
  }
  return x;
}

// Burns about `ms` milliseconds of CPU; runs with the timer stopped.
[[gnu::noinline]] std::uint64_t spin_outside_timer(int ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  std::uint64_t x = 1;
  while (std::chrono::steady_clock::now() < end) {
    for (int i = 0; i < 1000; ++i) {
      x = x * 2862933555777941757ULL + 3037000493ULL;
      asm volatile("" : "+r"(x));
    }
  }
  return x;
}

// k allocations of b bytes; keeps the first (until kKeptCapacity), frees the rest.
[[gnu::noinline]] void allocate_tracked_objects() {
  void* objects[kObjectsPerIteration];
  for (auto& p : objects) {
    p = ::operator new(kObjectBytes);
    asm volatile("" : "+r"(p));
  }
  if (g_kept_count < kKeptCapacity) {
    g_kept[g_kept_count++] = objects[0];
  } else {
    ::operator delete(objects[0]);
  }
  for (int i = 1; i < kObjectsPerIteration; ++i) ::operator delete(objects[i]);
}

}  // namespace profile_fixture

ZEROLAB_BENCHMARK(CpuHot) {
  b.stop_timer();
  zerolab::do_not_optimize(profile_fixture::spin_outside_timer(100));
  b.start_timer();
  std::uint64_t x = 1;
  for (auto _ : b.loop()) {
    x = profile_fixture::spin_hot_function(x);
    zerolab::do_not_optimize(x);
  }
}

// Zeroes 256 KiB per iteration through libc's memset (the size is not a
// constant, so the compiler cannot inline it).
ZEROLAB_BENCHMARK(CpuMemset) {
  static char buffer[256 * 1024];
  volatile std::size_t size = sizeof buffer;
  for (auto _ : b.loop()) {
    std::memset(buffer, 0, size);
    zerolab::do_not_optimize(buffer);
  }
}

// With -benchtime Nx: N * k allocations of b bytes from
// allocate_tracked_objects, N objects (N * b bytes) still live at the end.
ZEROLAB_BENCHMARK(MemSites) {
  for (auto _ : b.loop()) profile_fixture::allocate_tracked_objects();
}

// malloc, calloc, realloc, operator new, new[], aligned new, a vector's
// growth and a string: 1 + 1 + 3 + 1 + 1 + 1 + 11 + 1 = 20 allocations.
ZEROLAB_BENCHMARK(AllocMix) {
  struct alignas(64) Aligned {
    char bytes[64];
  };
  for (auto _ : b.loop()) {
    void* m = std::malloc(100);
    void* c = std::calloc(10, 8);
    void* r = std::realloc(nullptr, 16);
    r = std::realloc(r, 4096);
    r = std::realloc(r, 8);
    int* one = new int(1);
    char* array = new char[10];
    auto* aligned = new Aligned;
    std::vector<int> v;
    for (int i = 0; i < 1000; ++i) v.push_back(i);
    std::string s(100, 'x');
    zerolab::do_not_optimize(m);
    zerolab::do_not_optimize(c);
    zerolab::do_not_optimize(r);
    zerolab::do_not_optimize(v);
    zerolab::do_not_optimize(s);
    zerolab::do_not_optimize(one);
    zerolab::do_not_optimize(array);
    zerolab::do_not_optimize(aligned);
    std::free(m);
    std::free(c);
    std::free(r);
    delete one;
    delete[] array;
    delete aligned;
  }
}
