// Experiment `arena` (seed 002, esimov/go-arena's benchmarks): building a
// slice of n ints, allocating one small struct, and building n "complex"
// structs (a name string and a slice each), with new/delete (std::vector,
// std::string), zerolab::Arena (pmr containers on ArenaResource, reset
// after each op, chunks kept), and std::pmr::monotonic_buffer_resource
// (made and dropped each op). SimpleStruct also has the Go shape — a new
// arena per op — which is where Go paid 169 ns against 9.3 ns.
//
// mimalloc, when installed (Debian's libmimalloc-dev), is a peer: rows
// `mimalloc` (pmr containers on mi_malloc/mi_free) and, for ComplexStruct,
// `mi-heap` (an mi_heap per op, no frees, mi_heap_destroy: mimalloc's
// arena-like use). It is dlopen'ed, not linked, so new/delete and malloc
// stay glibc's (lab/mimalloc_peer.hpp); its rows and claims are absent
// when it is not there. Its allocations are not counted (0 allocs/op).
//
// Not mirrored: the iterated ComplexStruct benchmarks.
//
// Example:
//   zerolab lab arena
#include <memory>
#include <memory_resource>
#include <string>
#include <vector>

#include "lab/experiment.hpp"
#include "lab/mimalloc_peer.hpp"
#include "zerolab/arena.hpp"

namespace zerolab::lab {
namespace {

struct Simple {
  std::int64_t a, b, c, d;
};

template <int kN>
void slice_new(B& b) {
  for (auto _ : b.loop()) {
    std::vector<std::int64_t> v;
    for (int i = 0; i < kN; ++i) v.push_back(i);
    do_not_optimize(v);
  }
}

template <int kN>
void slice_arena(B& b) {
  Arena arena;
  for (auto _ : b.loop()) {
    {
      ArenaResource res(arena);
      std::pmr::vector<std::int64_t> v(&res);
      for (int i = 0; i < kN; ++i) v.push_back(i);
      do_not_optimize(v);
    }
    arena.reset();
  }
}

template <int kN>
void slice_monotonic(B& b) {
  for (auto _ : b.loop()) {
    std::pmr::monotonic_buffer_resource res;
    std::pmr::vector<std::int64_t> v(&res);
    for (int i = 0; i < kN; ++i) v.push_back(i);
    do_not_optimize(v);
  }
}

void simple_new(B& b) {
  for (auto _ : b.loop()) {
    auto p = std::make_unique<Simple>(Simple{1, 2, 3, 4});
    do_not_optimize(p);
  }
}

void simple_arena_per_op(B& b) {
  for (auto _ : b.loop()) {
    Arena arena;
    Simple* p = arena.make<Simple>(Simple{1, 2, 3, 4});
    do_not_optimize(p);
  }
}

void simple_arena_reused(B& b) {
  Arena arena;
  for (auto _ : b.loop()) {
    Simple* p = arena.make<Simple>(Simple{1, 2, 3, 4});
    do_not_optimize(p);
    arena.reset();
  }
}

template <typename String, typename Vec>
struct Complex {
  String name;
  Vec values;
};

template <int kN>
void complex_new(B& b) {
  using C = Complex<std::string, std::vector<std::int64_t>>;
  for (auto _ : b.loop()) {
    std::vector<C> v;
    v.reserve(kN);
    for (int i = 0; i < kN; ++i) {
      v.push_back(C{std::string("complex-struct-name-") , std::vector<std::int64_t>(4, i)});
    }
    do_not_optimize(v);
  }
}

template <int kN>
void complex_pmr(B& b, std::pmr::memory_resource* res) {
  using C = Complex<std::pmr::string, std::pmr::vector<std::int64_t>>;
  std::pmr::vector<C> v(res);
  v.reserve(kN);
  for (int i = 0; i < kN; ++i) {
    v.push_back(C{std::pmr::string("complex-struct-name-", res),
                  std::pmr::vector<std::int64_t>(4, i, res)});
  }
  do_not_optimize(v);
  (void)b;
}

template <int kN>
void complex_arena(B& b) {
  Arena arena;
  for (auto _ : b.loop()) {
    {
      ArenaResource res(arena);
      complex_pmr<kN>(b, &res);
    }
    arena.reset();
  }
}

template <int kN>
void complex_monotonic(B& b) {
  for (auto _ : b.loop()) {
    std::pmr::monotonic_buffer_resource res;
    complex_pmr<kN>(b, &res);
  }
}

#if defined(ZEROLAB_HAVE_MIMALLOC)
template <int kN>
void slice_mimalloc(B& b) {
  MimallocResource res(*mimalloc());
  for (auto _ : b.loop()) {
    std::pmr::vector<std::int64_t> v(&res);
    for (int i = 0; i < kN; ++i) v.push_back(i);
    do_not_optimize(v);
  }
}

void simple_mimalloc(B& b) {
  const MimallocApi& mi = *mimalloc();
  for (auto _ : b.loop()) {
    auto* p = ::new (mi.malloc(sizeof(Simple))) Simple{1, 2, 3, 4};
    do_not_optimize(p);
    mi.free(p);
  }
}

template <int kN>
void complex_mimalloc(B& b) {
  MimallocResource res(*mimalloc());
  for (auto _ : b.loop()) complex_pmr<kN>(b, &res);
}

template <int kN>
void complex_mi_heap(B& b) {
  const MimallocApi& mi = *mimalloc();
  for (auto _ : b.loop()) {
    mi_heap_t* heap = mi.heap_new();
    {
      MimallocResource res(mi, heap);
      complex_pmr<kN>(b, &res);
    }
    mi.heap_destroy(heap);
  }
}
#endif

std::string name(const char* what, const char* how, int n) {
  return std::string("Benchmark") + what + "/" + how + "/n=" + std::to_string(n);
}

template <int... Ns>
void add_sized(std::vector<BenchmarkSpec>& out) {
  const auto t = std::chrono::milliseconds(100);
  ((out.push_back({name("Slice", "new", Ns), &slice_new<Ns>, 0, t}),
    out.push_back({name("Slice", "arena", Ns), &slice_arena<Ns>, 0, t}),
    out.push_back({name("Slice", "monotonic", Ns), &slice_monotonic<Ns>, 0, t}),
    out.push_back({name("ComplexStruct", "new", Ns), &complex_new<Ns>, 0, t}),
    out.push_back({name("ComplexStruct", "arena", Ns), &complex_arena<Ns>, 0, t}),
    out.push_back({name("ComplexStruct", "monotonic", Ns), &complex_monotonic<Ns>, 0, t})),
   ...);
}

#if defined(ZEROLAB_HAVE_MIMALLOC)
template <int... Ns>
void add_mimalloc_sized(std::vector<BenchmarkSpec>& out) {
  const auto t = std::chrono::milliseconds(100);
  ((out.push_back({name("Slice", "mimalloc", Ns), &slice_mimalloc<Ns>, 0, t}),
    out.push_back({name("ComplexStruct", "mimalloc", Ns), &complex_mimalloc<Ns>, 0, t}),
    out.push_back({name("ComplexStruct", "mi-heap", Ns), &complex_mi_heap<Ns>, 0, t})),
   ...);
}
#endif

}  // namespace

Experiment make_arena_experiment() {
  Experiment e;
  e.id = "arena";
  e.title = "arena vs new/delete vs monotonic_buffer_resource: slices, one struct, n structs";
  e.seed_file = "002_2d2092de3303290a.txt";
  e.seed_section = "Benchmarks / Results (Slice, SimpleStruct, ComplexStruct)";
  e.note =
      "Go's arena.NewArena maps an 8 MiB chunk per arena, hence its 169 ns SimpleStruct; "
      "zerolab::Arena takes its first 4 KiB chunk from malloc, and a reused arena keeps it.";
  add_sized<100, 10000, 100000>(e.benchmarks);
  const auto t = std::chrono::milliseconds(100);
  e.benchmarks.push_back({"BenchmarkSimpleStruct/new", &simple_new, 0, t});
  e.benchmarks.push_back({"BenchmarkSimpleStruct/arena-per-op", &simple_arena_per_op, 0, t});
  e.benchmarks.push_back({"BenchmarkSimpleStruct/arena-reused", &simple_arena_reused, 0, t});
  e.claims = {
      Claim::ratio("the arena is faster for slices (n=100)", "1.69x (4674 vs 2760 ns/op)",
                   name("Slice", "new", 100), name("Slice", "arena", 100)),
      Claim::ratio("the arena is faster for slices (n=10000)", "1.44x (607361 vs 423092 ns/op)",
                   name("Slice", "new", 10000), name("Slice", "arena", 10000)),
      Claim::ratio("a new arena per single simple struct is slower than the heap",
                   "18x (168.9 vs 9.292 ns/op)", "BenchmarkSimpleStruct/arena-per-op",
                   "BenchmarkSimpleStruct/new"),
      Claim::ratio("ComplexStruct: the arena is slower than the heap (Go, n=100)",
                   "1.45x (5077 vs 3506 ns/op)", name("ComplexStruct", "arena", 100),
                   name("ComplexStruct", "new", 100)),
      Claim::bound("a reused arena allocates nothing per op (Slice, n=100)", "0 allocs/op",
                   name("Slice", "arena", 100), "allocs/op", 0, 0),
      Claim::ratio("the arena is not slower than monotonic_buffer_resource (Slice, n=100)",
                   "(issue 6 figure)", name("Slice", "monotonic", 100),
                   name("Slice", "arena", 100)),
  };
#if defined(ZEROLAB_HAVE_MIMALLOC)
  if (const MimallocApi* mi = mimalloc(); mi != nullptr) {
    e.note += " mimalloc " + std::to_string(mi->version / 100) + "." +
              std::to_string(mi->version / 10 % 10) + "." + std::to_string(mi->version % 10) +
              " is dlopen'ed as a peer (new/malloc stay glibc's; its allocs are not counted).";
    add_mimalloc_sized<100, 10000, 100000>(e.benchmarks);
    e.benchmarks.push_back({"BenchmarkSimpleStruct/mimalloc", &simple_mimalloc, 0, t});
    // ComplexStruct is the seed's shape made of 16-64 B objects: a 21-byte
    // string buffer and a 32-byte vector buffer per struct.
    for (int n : {100, 10000}) {
      e.claims.push_back(Claim::ratio(
          "the arena is not slower than mimalloc for 16-64 B objects (ComplexStruct, n=" +
              std::to_string(n) + ")",
          "(issue 6 figure)", name("ComplexStruct", "mimalloc", n),
          name("ComplexStruct", "arena", n)));
      e.claims.push_back(Claim::ratio(
          "the arena is not slower than an mi_heap destroyed per op (ComplexStruct, n=" +
              std::to_string(n) + ")",
          "(issue 6 figure)", name("ComplexStruct", "mi-heap", n),
          name("ComplexStruct", "arena", n)));
    }
    e.claims.push_back(Claim::ratio("the arena is not slower than mimalloc (Slice, n=100)",
                                    "(issue 6 figure)", name("Slice", "mimalloc", 100),
                                    name("Slice", "arena", 100)));
  }
#endif
  return e;
}

}  // namespace zerolab::lab
