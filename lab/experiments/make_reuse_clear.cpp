// Experiment `make-reuse-clear` (seed 004, "Сколько это стоит в Go"): what
// a zeroed buffer costs when it is allocated each time (Make: new char[n]()
// — value-initialized, so operator new plus a memset), when it is reused
// as it is (Reuse: nothing), and when it is reused and cleared (ReuseClear:
// memset), at 64 B, 1 KiB, 16 KiB, 256 KiB, 4 MiB and 64 MiB.
//
// Example:
//   zerolab lab make-reuse-clear
#include <cstring>
#include <memory>
#include <string>

#include "lab/experiment.hpp"

namespace zerolab::lab {
namespace {

std::string size_name(std::size_t n) {
  if (n >= (std::size_t{1} << 20)) return std::to_string(n >> 20) + "MiB";
  if (n >= (std::size_t{1} << 10)) return std::to_string(n >> 10) + "KiB";
  return std::to_string(n) + "B";
}

std::string name(const char* what, std::size_t n) {
  return std::string("BenchmarkZeroedBuffer/") + what + "/size=" + size_name(n);
}

template <std::size_t kN>
void make(B& b) {
  b.set_bytes(static_cast<std::int64_t>(kN));
  for (auto _ : b.loop()) {
    std::unique_ptr<char[]> p(new char[kN]());
    do_not_optimize(p);
  }
}

template <std::size_t kN>
void reuse(B& b) {
  std::unique_ptr<char[]> p(new char[kN]());
  for (auto _ : b.loop()) {
    char* q = p.get();
    do_not_optimize(q);
  }
}

template <std::size_t kN>
void reuse_clear(B& b) {
  std::unique_ptr<char[]> p(new char[kN]());
  b.set_bytes(static_cast<std::int64_t>(kN));
  for (auto _ : b.loop()) {
    char* q = p.get();
    do_not_optimize(q);
    std::memset(q, 0, kN);
    clobber_memory();
  }
}

template <std::size_t... Ns>
void add_all(std::vector<BenchmarkSpec>& out) {
  const auto t = std::chrono::milliseconds(100);
  ((out.push_back({name("Make", Ns), &make<Ns>, 0, t}),
    out.push_back({name("Reuse", Ns), &reuse<Ns>, 0, t}),
    out.push_back({name("ReuseClear", Ns), &reuse_clear<Ns>, 0, t})),
   ...);
}

}  // namespace

Experiment make_make_reuse_clear_experiment() {
  Experiment e;
  e.id = "make-reuse-clear";
  e.title = "a zeroed buffer: allocate it each time, reuse it, or reuse and clear it";
  e.seed_file = "004_9bd089f53a065852.txt";
  e.seed_section = "Сколько это стоит в Go (Make / Reuse / ReuseClear, 64 B .. 64 MiB)";
  e.note =
      "No GC: Make's freed buffer goes straight back to glibc, which hands the same block out "
      "again (below its mmap threshold) — Go's allocator pays sweeping and GC pacing instead.";
  add_all<64, 1 << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20>(e.benchmarks);
  e.claims = {
      Claim::bound("Reuse costs about the same at every size: 64 B", "0.79 ns",
                   name("Reuse", 64), "ns/op", 0, 2, 1.0, "ns/op"),
      Claim::bound("... and 64 MiB", "0.77 ns", name("Reuse", 64 << 20), "ns/op", 0, 2, 1.0,
                   "ns/op"),
      Claim::ratio("at 64 B allocation dominates zeroing: Make >= 2x ReuseClear",
                   "24.1x (58.39 vs 2.419 ns)", name("Make", 64), name("ReuseClear", 64), 2.0),
      Claim::ratio("from about 1 KiB zeroing is a visible cost: ReuseClear >= 2x Reuse",
                   "13.0x (10.35 vs 0.79 ns)", name("ReuseClear", 1 << 10), name("Reuse", 1 << 10),
                   2.0),
      Claim::ratio("at 64 MiB Make is zeroing plus faults: Make costs more than ReuseClear",
                   "7.92 ms Make (ReuseClear at 64 MiB not given)", name("Make", 64 << 20),
                   name("ReuseClear", 64 << 20)),
      Claim::bound("... Make at 64 MiB takes a fault per 4 KiB page", "—", name("Make", 64 << 20),
                   "faults/op", 0.9, 1.1, 1.0 / 16384, "faults/page"),
  };
  return e;
}

}  // namespace zerolab::lab
