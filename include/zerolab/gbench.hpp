// zerolab/gbench.hpp — allocation figures for Google Benchmark binaries.
//
// Google Benchmark (1.7.1, Debian's libbenchmark-dev) runs each benchmark
// once more after timing it, for min(16, iterations per thread) iterations
// on one thread, between a benchmark::MemoryManager's Start() and Stop(); its JSON
// output then carries allocs_per_iter, max_bytes_used, total_allocated_bytes
// and net_heap_growth. install_memory_manager() registers a manager that
// fills those from zerolab's allocation counters (the zerolab::gbench target
// links zerolab::alloc_hooks in), and MemoryReporter / run_main() print the
// figures on the console as well ("B/op", "allocs/op", "max-B").
//
// What the manager counts (the Result fields; see MemoryManager::exact()):
//   num_allocs             successful allocations during the memory pass
//                          (malloc family and operator new; as
//                          src/alloc_hooks counts them). Google Benchmark
//                          turns it into allocs_per_iter = num_allocs /
//                          the pass's iteration count.
//   total_allocated_bytes  the bytes those allocations requested (a total
//                          for the pass, not per iteration; MemoryReporter
//                          and `zerolab compare` divide it into B/op).
//   max_bytes_used         the peak of the live heap's growth during the
//                          pass, in usable bytes (malloc_usable_size; the
//                          requested size under ASan), relative to Start().
//   net_heap_growth        usable bytes allocated minus usable bytes freed
//                          during the pass (frees of older blocks count).
// When exact() is true (normal and ASan builds, with Google Benchmark as a
// shared library), allocations that Google Benchmark's own library code
// makes during the pass (its thread manager, its copy of the arguments, the
// nodes of its counter map) are left out of all four fields, so a benchmark that
// allocates nothing reports 0; they are told apart by the return address
// into the code that called the allocator (the hooks' sampler; under ASan,
// the block's allocation stack). When false (TSan builds, or Google
// Benchmark linked statically), they are included: 1.7.1 adds one
// allocation (and its bytes) per pass, more with arguments or counters.
//
// Thread-safety: install once, from main, before running the benchmarks.
// The manager counts the allocations of every thread during a pass.
// Google Benchmark runs the pass on one thread, which is what the per-pass
// bookkeeping assumes; a benchmark that starts threads of its own is still
// counted, but max_bytes_used may then miss a peak reached concurrently.
// The hooks have one allocation sampler per process: the manager uses it
// during each pass, so it cannot be combined with zerolab's -memprofile.
//
// Example:
//   #include <benchmark/benchmark.h>
//   #include <zerolab/gbench.hpp>
//
//   const std::string kHundred(100, 'x');  // setup inside the function would
//                                          // be counted too, over the pass
//   static void BM_StringConcat(benchmark::State& state) {
//     for (auto _ : state) {
//       std::string s = kHundred + kHundred;
//       benchmark::DoNotOptimize(s);
//     }
//   }
//   BENCHMARK(BM_StringConcat);
//   ZEROLAB_GBENCH_MAIN();   // or keep BENCHMARK_MAIN() and call
//                            // zerolab::gbench::install_memory_manager()
//   // console: BM_StringConcat  34.7 ns  22.4 ns  31609211  302 B/op  2 allocs/op  320 max-B
//   // (link with zerolab::gbench in CMake; it brings benchmark::benchmark)
#ifndef ZEROLAB_GBENCH_HPP_
#define ZEROLAB_GBENCH_HPP_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace zerolab::gbench {

// A benchmark::MemoryManager fed by zerolab's allocation hooks.
class MemoryManager final : public benchmark::MemoryManager {
 public:
  MemoryManager();
  MemoryManager(const MemoryManager&) = delete;
  MemoryManager& operator=(const MemoryManager&) = delete;
  ~MemoryManager() override;

  // Starts counting (called by Google Benchmark before the memory pass).
  void Start() override;
  // Stops counting and fills every field of `result` (see the file comment).
  void Stop(Result& result) override;
  // 1.7.1's runner calls this overload; it forwards to Stop(Result&).
  void Stop(Result* result) override;

  // True when Google Benchmark's own allocations are left out of the figures.
  bool exact() const noexcept { return mode_ != Mode::kTotals; }
  // The hooks' mode: "interpose", "asan" or "tsan".
  const char* counting_mode() const noexcept;

 private:
  enum class Mode { kSampler, kAsanHooks, kTotals };  // see src/gbench/memory_manager.cpp
  void fill(Result& result);

  Mode mode_ = Mode::kTotals;
  bool running_ = false;
  std::uint64_t allocs_before_ = 0;
  std::uint64_t bytes_before_ = 0;
};

// Registers the process's MemoryManager with Google Benchmark (the first
// call creates it; later calls return the same one) and adds the context
// entry "zerolab_alloc_counting" ("exact" or "includes-benchmark-library").
MemoryManager& install_memory_manager();

// The per-op figures of one run, as MemoryReporter prints them.
struct MemoryFigures {
  double bytes_per_op = 0;    // total_allocated_bytes / the pass's iterations
  double allocs_per_op = 0;   // Google Benchmark's allocs_per_iter
  double max_bytes = 0;       // max_bytes_used (for the whole pass)
  double net_heap_bytes = 0;  // net_heap_growth (for the whole pass)
  bool has_bytes = false;     // total_allocated_bytes was reported
  bool has_net_heap = false;  // net_heap_growth was reported
};

// The figures of `run`, or false when it has no memory result (errors,
// aggregates, complexity rows, no manager installed). The pass's iteration
// count is num_allocs / allocs_per_iter when there were allocations, else
// min(16, iterations / threads), as Google Benchmark 1.5–1.9 choose it.
bool memory_figures(const benchmark::BenchmarkReporter::Run& run, MemoryFigures& out);

// The text MemoryReporter appends to a console row, e.g.
// "       1064 B/op          3 allocs/op       1064 max-B" (plus
// " 64 net-heap-B" when the pass grew the heap).
std::string format_memory_columns(const MemoryFigures& figures);

// A reporter that wraps another (by default the display reporter
// --benchmark_format asks for) and, when that is a console reporter,
// appends format_memory_columns() to each row that has a memory result.
// JSON and CSV pass through (JSON already has the fields). It also repairs
// a Google Benchmark 1.7.1 bug: with --benchmark_repetitions > 1 the
// reports of earlier repetitions point at freed memory results (garbage in
// the JSON); this reporter hands its inner one the copies the zerolab
// MemoryManager kept. BENCHMARK_MAIN's own reporters keep the bug, so use
// run_main (or this reporter for display and file) with repetitions.
class MemoryReporter final : public benchmark::BenchmarkReporter {
 public:
  // Wraps benchmark::CreateDefaultDisplayReporter() (Google Benchmark's
  // process-wide instance, not owned).
  // REQUIRES: benchmark::Initialize has parsed the flags.
  MemoryReporter();
  // Wraps and owns `inner`.
  // REQUIRES: inner != nullptr.
  explicit MemoryReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner);
  MemoryReporter(const MemoryReporter&) = delete;
  MemoryReporter& operator=(const MemoryReporter&) = delete;
  ~MemoryReporter() override;

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& reports) override;
  void Finalize() override;

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> owned_;
  benchmark::BenchmarkReporter* inner_;
  bool console_ = false;
};

// A main(): benchmark::Initialize, install_memory_manager(), runs the
// benchmarks with a MemoryReporter on the console and another around
// --benchmark_out's JSON or console reporter, benchmark::Shutdown. Returns
// main's exit code (1 for unrecognized arguments, as BENCHMARK_MAIN does).
// --benchmark_measure=instructions instead runs the binary again under
// valgrind's callgrind and prints exact instructions/op, L1-misses/op,
// LL-misses/op and cycles/op in the Go benchmark format
// (src/gbench/counting.hpp, docs/counting.md).
int run_main(int argc, char** argv);

}  // namespace zerolab::gbench

// Defines main() as zerolab::gbench::run_main (use instead of BENCHMARK_MAIN).
#define ZEROLAB_GBENCH_MAIN()                       \
  int main(int argc, char** argv) {                 \
    return ::zerolab::gbench::run_main(argc, argv); \
  }                                                 \
  int main(int, char**)

#endif  // ZEROLAB_GBENCH_HPP_
