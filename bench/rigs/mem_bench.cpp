// The arena and pool figures: zerolab::Arena against malloc/free,
// std::pmr::monotonic_buffer_resource and, when installed, mimalloc
// (mi_malloc/mi_free, and an mi_heap destroyed per batch) for 16/32/64 B
// objects: batches of 256 per op, then reset/free/release, so ns/op is per
// batch of 256. Names are BenchmarkAlloc/size=N/impl=I, so one run's file
// gives the ratios against the arena column with p-values (-col /impl).
// Also Pool<T> get+put against SimplePool<T> on one thread and in parallel:
// one object per op (Pool's private slot), and four (GetPut4: three of them
// through Pool's per-thread shared chain).
//
// mimalloc is dlopen'ed, not linked (lab/mimalloc_peer.hpp says why):
// malloc/free here stay glibc's. Its rows are absent when it is not
// installed (or -DZEROLAB_WITH_MIMALLOC=OFF).
//
// Example (interleaved runs, then the comparison):
//   for i in 1 2 3 4 5 6 7 8 9 10; do ./mem_bench -bench . -cpu 1,2 -count 1; done > mem.txt
//   zerolab compare -filter '.name:Alloc' -col /impl mem.txt
//   zerolab compare -filter '-.name:Alloc' mem.txt
#include <zerolab/arena.hpp>
#include <zerolab/bench.hpp>
#include <zerolab/pool.hpp>

#include <cstdlib>
#include <memory_resource>
#include <string>
#include <vector>

#include "lab/experiments/mimalloc_peer.hpp"
#include "lab/experiments/simple_pool.hpp"

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

#if defined(ZEROLAB_HAVE_MIMALLOC)
template <std::size_t kSize>
void mi_malloc_free(zerolab::B& b, const zerolab::lab::MimallocApi& mi) {
  void* ps[kBatch];
  for (auto _ : b.loop()) {
    for (int i = 0; i < kBatch; ++i) {
      ps[i] = mi.malloc(kSize);
      zerolab::do_not_optimize(ps[i]);
    }
    for (int i = 0; i < kBatch; ++i) mi.free(ps[i]);
  }
}

// mimalloc's arena-like use: a heap per batch, no frees, mi_heap_destroy.
template <std::size_t kSize>
void mi_heap_batch(zerolab::B& b, const zerolab::lab::MimallocApi& mi) {
  for (auto _ : b.loop()) {
    mi_heap_t* heap = mi.heap_new();
    for (int i = 0; i < kBatch; ++i) {
      void* p = mi.heap_malloc(heap, kSize);
      zerolab::do_not_optimize(p);
    }
    mi.heap_destroy(heap);
  }
}
#endif

template <std::size_t kSize>
void alloc_sized(zerolab::B& b) {
  b.run("impl=arena", &arena_alloc<kSize>);
  b.run("impl=monotonic", &monotonic<kSize>);
  b.run("impl=malloc", &malloc_free<kSize>);
#if defined(ZEROLAB_HAVE_MIMALLOC)
  if (const auto* mi = zerolab::lab::mimalloc()) {
    b.run("impl=mimalloc", [mi](zerolab::B& sb) { mi_malloc_free<kSize>(sb, *mi); });
    b.run("impl=mi-heap", [mi](zerolab::B& sb) { mi_heap_batch<kSize>(sb, *mi); });
  }
#endif
}

struct Buf {
  char bytes[1024];
};

zerolab::Pool<Buf>& pool() {
  static zerolab::Pool<Buf> p;
  return p;
}
zerolab::lab::SimplePool<Buf>& simple_pool() {
  static zerolab::lab::SimplePool<Buf> p;
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

// Four objects at a time: one lands in the private slot, three go through
// the thread's shared list (Pool's lock-free chain, the one thieves use).
template <typename P>
void get_put4(zerolab::B& b, P& p) {
  b.run_parallel([&](zerolab::PB& pb) {
    Buf* x[4];
    while (pb.next()) {
      for (Buf*& e : x) {
        e = p.get();
        zerolab::do_not_optimize(e);
      }
      for (Buf* e : x) p.put(e);
    }
  });
}

}  // namespace

ZEROLAB_BENCHMARK(Alloc) {
  b.run("size=16", &alloc_sized<16>);
  b.run("size=32", &alloc_sized<32>);
  b.run("size=64", &alloc_sized<64>);
}
ZEROLAB_BENCHMARK(PoolGetPut) {
  get_put(b, pool());
}
ZEROLAB_BENCHMARK(SimplePoolGetPut) {
  get_put(b, simple_pool());
}
ZEROLAB_BENCHMARK(PoolGetPut4) {
  get_put4(b, pool());
}
ZEROLAB_BENCHMARK(SimplePoolGetPut4) {
  get_put4(b, simple_pool());
}
