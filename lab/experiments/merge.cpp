// Experiment `merge` (seed 000): merging three buffers of 10000, 20000 and
// 50000 bytes into one new 80000-byte buffer, with the new buffer zeroed
// first (std::vector<char>(n), make_unique<char[]>, malloc+memset, calloc)
// or left uninitialized (malloc, zerolab::make_uninit,
// zerolab::uninit_vector). The seed's Go benchmark kept the last 128
// results alive (r[i&127]); here each strategy keeps a ring of 128 too, so
// every iteration frees the result 128 iterations old and the allocator
// hands back dirty memory — zeroing it is real work each time.
//
// Example:
//   zerolab lab merge
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "lab/experiment.hpp"
#include "zerolab/uninit.hpp"

namespace zerolab::lab {
namespace {

constexpr std::size_t kSizes[] = {10000, 20000, 50000};
constexpr std::size_t kTotal = 10000 + 20000 + 50000;
constexpr std::size_t kRing = 128;

// The three inputs, as the seed's x, y, z.
struct Inputs {
  std::vector<char> parts[3];
  Inputs() {
    for (std::size_t i = 0; i < 3; ++i) parts[i].assign(kSizes[i], static_cast<char>('x' + i));
  }
};

const Inputs& inputs() {
  static const Inputs in;
  return in;
}

// Copies the inputs one after another to `out`.
inline void copy_parts(char* out) {
  for (const auto& part : inputs().parts) {
    std::memcpy(out, part.data(), part.size());
    out += part.size();
  }
}

// Hides where a pointer came from, so g++ cannot fold malloc + memset into
// calloc (the seed's OPAQUE barrier).
template <class T>
inline T* opaque(T* p) {
  asm volatile("" : "+r"(p) : : "memory");
  return p;
}

// A ring of the last kRing results owned through free().
struct MallocRing {
  std::array<char*, kRing> slots{};
  void put(std::size_t i, char* p) {
    std::free(slots[i & (kRing - 1)]);
    slots[i & (kRing - 1)] = p;
  }
  ~MallocRing() {
    for (char* p : slots) std::free(p);
  }
};

template <class Owner>
struct OwnerRing {
  std::array<Owner, kRing> slots{};
  void put(std::size_t i, Owner&& o) { slots[i & (kRing - 1)] = std::move(o); }
};

void merge_vector_zeroed(B& b) {
  OwnerRing<std::vector<char>> ring;
  std::size_t i = 0;
  for (auto _ : b.loop()) {
    std::vector<char> r(kTotal);
    copy_parts(r.data());
    ring.put(i++, std::move(r));
  }
}

void merge_malloc_memset(B& b) {
  MallocRing ring;
  std::size_t i = 0;
  for (auto _ : b.loop()) {
    char* r = opaque(static_cast<char*>(std::malloc(kTotal)));
    std::memset(r, 0, kTotal);
    copy_parts(r);
    ring.put(i++, r);
  }
}

void merge_calloc(B& b) {
  MallocRing ring;
  std::size_t i = 0;
  for (auto _ : b.loop()) {
    char* r = static_cast<char*>(std::calloc(1, kTotal));
    copy_parts(r);
    ring.put(i++, r);
  }
}

void merge_malloc(B& b) {
  MallocRing ring;
  std::size_t i = 0;
  for (auto _ : b.loop()) {
    char* r = opaque(static_cast<char*>(std::malloc(kTotal)));
    copy_parts(r);
    ring.put(i++, r);
  }
}

void merge_make_unique(B& b) {
  OwnerRing<std::unique_ptr<char[]>> ring;
  std::size_t i = 0;
  for (auto _ : b.loop()) {
    auto r = std::make_unique<char[]>(kTotal);  // value-initialized: zeroed
    copy_parts(r.get());
    ring.put(i++, std::move(r));
  }
}

void merge_make_unique_for_overwrite(B& b) {
  OwnerRing<std::unique_ptr<char[]>> ring;
  std::size_t i = 0;
  for (auto _ : b.loop()) {
    auto r = zerolab::make_uninit<char[]>(kTotal);
    copy_parts(r.get());
    ring.put(i++, std::move(r));
  }
}

void merge_vector_default_init(B& b) {
  OwnerRing<zerolab::uninit_vector<char>> ring;
  std::size_t i = 0;
  for (auto _ : b.loop()) {
    zerolab::uninit_vector<char> r(kTotal);
    copy_parts(r.data());
    ring.put(i++, std::move(r));
  }
}

}  // namespace

Experiment make_merge_experiment() {
  Experiment e;
  e.id = "merge";
  e.title = "merging three buffers into a new one: zeroed vs uninitialized allocation";
  e.seed_file = "000_46e1f39ca2df3ed5.txt";
  e.seed_section = "MergeSlice benchmarks (Benchmark_MergeSlicesZero / NoZero)";
  e.note =
      "C++ has no GC: the ring of 128 results frees each buffer 128 merges later and glibc "
      "hands it back dirty, so zeroing is paid on every merge, as Go's mallocgc pays it for "
      "reused spans (needzero).";
  const char* seed = "1.20x (20018 vs 16722 ns/op)";
  e.benchmarks = {
      {"BenchmarkMerge/vector-zeroed", &merge_vector_zeroed},
      {"BenchmarkMerge/uninit_vector", &merge_vector_default_init},
      {"BenchmarkMerge/malloc+memset", &merge_malloc_memset},
      {"BenchmarkMerge/malloc", &merge_malloc},
      {"BenchmarkMerge/make_unique", &merge_make_unique},
      {"BenchmarkMerge/make_uninit", &merge_make_unique_for_overwrite},
      {"BenchmarkMerge/calloc", &merge_calloc},
  };
  e.claims = {
      Claim::ratio("uninitialized allocation makes the merge faster: malloc vs malloc+memset",
                   seed, "BenchmarkMerge/malloc+memset", "BenchmarkMerge/malloc"),
      Claim::ratio("... zerolab::make_uninit<char[]> vs make_unique<char[]> (zeroed)", seed,
                   "BenchmarkMerge/make_unique", "BenchmarkMerge/make_uninit"),
      Claim::ratio("... zerolab::uninit_vector<char>(n) vs std::vector<char>(n)", seed,
                   "BenchmarkMerge/vector-zeroed", "BenchmarkMerge/uninit_vector"),
  };
  return e;
}

}  // namespace zerolab::lab
