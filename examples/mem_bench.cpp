// Issue 6's figures: zerolab::Arena against malloc/free and
// std::pmr::monotonic_buffer_resource for 16/32/64 B objects (batches of
// 256 per op, then reset/free/release: ns/op is per batch), and Pool<T> get+put against SimplePool<T>
// on one thread and in parallel.
//
// Example (interleaved runs, then the comparison):
//   for i in 1 2 3 4 5 6 7 8 9 10; do ./mem_bench -bench . -cpu 1,2 -count 1; done > mem.txt
//   zerolab compare mem.txt
#include <zerolab/arena.hpp>
#include <zerolab/bench.hpp>
#include <zerolab/pool.hpp>

#include <cstdlib>
#include <memory_resource>
#include <vector>

namespace {

constexpr int kBatch = 256;

template <std::size_t kSize>
void arena_alloc(zerolab::B& b) {
  zerolab::Arena arena;
  for (auto _ : b.loop()) {
    for (int i = 0; i < kBatch; ++i) {
      void* p = arena.allocate(kSize, 8);
      zerolab::do_not_optimize(p);
    }
    arena.reset();
  }
}

template <std::size_t kSize>
void malloc_free(zerolab::B& b) {
  void* ps[kBatch];
  for (auto _ : b.loop()) {
    for (int i = 0; i < kBatch; ++i) {
      ps[i] = std::malloc(kSize);
      zerolab::do_not_optimize(ps[i]);
    }
    for (int i = 0; i < kBatch; ++i) std::free(ps[i]);
  }
}

template <std::size_t kSize>
void monotonic(zerolab::B& b) {
  std::vector<char> initial(64 << 10);
  std::pmr::monotonic_buffer_resource res(initial.data(), initial.size());
  for (auto _ : b.loop()) {
    for (int i = 0; i < kBatch; ++i) {
      void* p = res.allocate(kSize, 8);
      zerolab::do_not_optimize(p);
    }
    res.release();
  }
}

struct Buf {
  char bytes[1024];
};

zerolab::Pool<Buf>& pool() {
  static zerolab::Pool<Buf> p;
  return p;
}
zerolab::SimplePool<Buf>& simple_pool() {
  static zerolab::SimplePool<Buf> p;
  return p;
}

template <typename P>
void get_put(zerolab::B& b, P& p) {
  b.run_parallel([&](zerolab::PB& pb) {
    while (pb.next()) {
      Buf* x = p.get();
      zerolab::do_not_optimize(x);
      p.put(x);
    }
  });
}

}  // namespace

ZEROLAB_BENCHMARK(ArenaAlloc16) { arena_alloc<16>(b); }
ZEROLAB_BENCHMARK(ArenaAlloc32) { arena_alloc<32>(b); }
ZEROLAB_BENCHMARK(ArenaAlloc64) { arena_alloc<64>(b); }
ZEROLAB_BENCHMARK(MallocFree16) { malloc_free<16>(b); }
ZEROLAB_BENCHMARK(MallocFree32) { malloc_free<32>(b); }
ZEROLAB_BENCHMARK(MallocFree64) { malloc_free<64>(b); }
ZEROLAB_BENCHMARK(Monotonic16) { monotonic<16>(b); }
ZEROLAB_BENCHMARK(Monotonic32) { monotonic<32>(b); }
ZEROLAB_BENCHMARK(Monotonic64) { monotonic<64>(b); }
ZEROLAB_BENCHMARK(PoolGetPut) { get_put(b, pool()); }
ZEROLAB_BENCHMARK(SimplePoolGetPut) { get_put(b, simple_pool()); }
