// Experiment `memclr-threshold` (seed 004, "Как устроен сам memclr"):
// zeroing throughput from 16 B to 1 GiB — powers of four, plus the seed's
// 31 and 33 MiB around Go's 32 MiB switch to non-temporal stores — for
// glibc's memset, rep stosb, vector stores, non-temporal stores and
// zerolab::zero_fill, over warm, resident memory (one 1 GiB buffer, touched
// once before the first run).
//
// Example:
//   zerolab lab memclr-threshold
#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "lab/experiment.hpp"
#include "zerolab/zero.hpp"

namespace zerolab::lab {
namespace {

constexpr std::size_t kMaxSize = std::size_t{1} << 30;

// One resident, page-aligned 1 GiB buffer shared by every benchmark.
unsigned char* buffer() {
  static unsigned char* const p = [] {
    void* m = mmap(nullptr, kMaxSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return static_cast<unsigned char*>(nullptr);
    std::memset(m, 1, kMaxSize);
    return static_cast<unsigned char*>(m);
  }();
  return p;
}

using Method = void (*)(void*, std::size_t) noexcept;

std::string size_name(std::size_t n) {
  if (n >= (std::size_t{1} << 20)) return std::to_string(n >> 20) + "MiB";
  if (n >= (std::size_t{1} << 10)) return std::to_string(n >> 10) + "KiB";
  return std::to_string(n) + "B";
}

std::string bench_name(const char* method, std::size_t n) {
  return std::string("BenchmarkZero/method=") + method + "/size=" + size_name(n);
}

template <Method fn, std::size_t n>
void zero_bench(B& b) {
  unsigned char* p = buffer();
  if (p == nullptr) b.fatal("mmap of the 1 GiB buffer failed");
  b.set_bytes(static_cast<std::int64_t>(n));
  for (auto _ : b.loop()) {
    fn(p, n);
    clobber_memory();
  }
}

// The sizes, as a compile-time list so each benchmark is its own function.
template <std::size_t... Ns>
struct Sizes {};
using AllSizes = Sizes<16, 64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20,
                       4 << 20, 16 << 20, 31 << 20, 33 << 20, 64 << 20, 256 << 20, 1 << 30>;

template <Method fn, std::size_t... Ns>
void add_method(std::vector<BenchmarkSpec>& out, const char* name, Sizes<Ns...>) {
  (out.push_back({bench_name(name, Ns), &zero_bench<fn, Ns>, 0, std::chrono::milliseconds(50)}),
   ...);
}

}  // namespace

Experiment make_memclr_threshold_experiment() {
  Experiment e;
  e.id = "memclr-threshold";
  e.title = "zeroing throughput by size and method: where non-temporal stores win";
  e.seed_file = "004_9bd089f53a065852.txt";
  e.seed_section = "Как устроен сам memclr (clearbw: 31 MiB 5.7 GiB/s, 33 MiB 11.8 GiB/s)";
  e.note =
      "glibc 2.36's memset has no non-temporal path (rep stosb from 2 KiB); Go's memclr switches "
      "to MOVNTDQ at 32 MiB. zero_fill's thresholds come from CPUID and the cache sizes.";
  add_method<&zero_methods::glibc_memset>(e.benchmarks, "memset", AllSizes{});
  add_method<&zero_methods::rep_stosb>(e.benchmarks, "rep-stosb", AllSizes{});
  add_method<&zero_methods::vector_stores>(e.benchmarks, "vector", AllSizes{});
  add_method<&zero_methods::nt_stores>(e.benchmarks, "nt", AllSizes{});
  add_method<&zero_fill>(e.benchmarks, "zero_fill", AllSizes{});
  const char* seed = "2.0x (11.8 vs 5.8 GiB/s, 33 vs 31 MiB)";
  e.claims = {
      Claim::ratio("past 32 MiB, non-temporal stores beat cached vector stores (64 MiB)", seed,
                   bench_name("vector", 64 << 20), bench_name("nt", 64 << 20)),
      Claim::ratio("... and at 256 MiB", seed, bench_name("vector", 256 << 20),
                   bench_name("nt", 256 << 20)),
      Claim::ratio("zero_fill beats glibc memset past 32 MiB (64 MiB)", "",
                   bench_name("memset", 64 << 20), bench_name("zero_fill", 64 << 20)),
      Claim::fact("zero_fill's thresholds in force", "Go: rep stosq from 2 KiB, NT from 32 MiB",
                  [] { return FactResult{true, zero_config().to_string()}; }),
  };
  e.plots.push_back(PlotSpec::sweep("zeroing throughput by buffer size, per method", "BenchmarkZero/",
                                    "size", "buffer size", "MB/s", "throughput"));
  e.plots.back().cache_marks = true;
  return e;
}

}  // namespace zerolab::lab
