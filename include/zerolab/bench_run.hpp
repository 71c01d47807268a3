// zerolab/bench_run.hpp — runs one benchmark function in-process and hands
// back its results as records instead of printing them.
//
// This is what a driver uses when it owns the schedule: the lab interleaves
// the benchmarks it compares (A B A B ...), one run each time, and judges the
// records with the stat engine. The benchmark function is an ordinary
// harness benchmark (a function of zerolab::B&, sub-benchmarks included);
// calibration, timers, allocation and fault counting work as under
// bench_main.
//
// Thread-safety: one run at a time per process (the allocation counters are
// process-wide); call from any one thread.
//
// Example:
//   zerolab::RunSettings settings;
//   settings.benchtime = std::chrono::milliseconds(100);
//   zerolab::RunReport report = zerolab::run_benchmark(
//       "BenchmarkSum", [](zerolab::B& b) { for (auto _ : b.loop()) {} }, settings);
//   // report.results[0].name == "BenchmarkSum" (no "-N" suffix when cpu is 1),
//   // report.results[0].metrics[0].unit == "ns/op"
//   // settings.exact_memory = true adds e.g. {0.4, "mallocs/op"} beside
//   // {0, "allocs/op"} for a benchmark that allocates twice in 5 ops.
#ifndef ZEROLAB_BENCH_RUN_HPP_
#define ZEROLAB_BENCH_RUN_HPP_

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "zerolab/bench.hpp"
#include "zerolab/benchfmt.hpp"

namespace zerolab {

struct RunSettings {
  // The time each measured (sub-)benchmark aims for (-benchtime).
  std::chrono::nanoseconds benchtime{std::chrono::seconds(1)};
  // > 0: run exactly this many iterations instead (-benchtime Nx).
  std::int64_t iterations = 0;
  // The -cpu value: run_parallel's thread count and the name's "-N" suffix
  // (none for 1). 0 means the CPUs this process may use.
  int cpu = 1;
  bool benchmem = true;  // B/op and allocs/op (when the hooks are linked)
  bool faults = true;    // faults/op
  bool heap = false;     // live-heap metrics (-heap)
  // With benchmem: also "mallocs/op" and "malloc-B/op", the allocations and
  // bytes per op untruncated (0.4 where allocs/op, printed as Go prints it,
  // says 0). Not a bench_main flag: for drivers that judge counts (the lab).
  bool exact_memory = false;
  // Exact counts instead of times (-benchmeasure=instructions): the
  // benchmark runs two passes, of `iterations` (100 when 0) and twice as
  // many, and its result carries instructions/op, L1-misses/op,
  // LL-misses/op and cycles/op (docs/counting.md) and no ns/op. Counting
  // needs the process to run under callgrind as a counting run's child (a
  // valgrind it cannot start for a function already in this process):
  // elsewhere the report fails, saying so. `zerolab lab
  // --measure=instructions` starts such a child.
  bool count_instructions = false;
};

struct RunReport {
  bool failed = false;   // fatal(), an exception, or a bad b.loop()
  bool skipped = false;  // skip() before any result
  // One record per measured benchmark, named as bench_main prints it
  // ("BenchmarkMerge/size=10000"), in the order they ran.
  std::vector<benchfmt::Result> results;
  // The messages of every failed (sub-)benchmark (fatal(), the exception,
  // log() before failing), in order.
  std::vector<std::string> failure_messages;
  // skip()'s message and the log() lines of benchmarks that did not fail.
  std::vector<std::string> log_lines;
  // All of it by benchmark, as bench_main prints it with
  // benchfmt::format_message_block ("--- FAIL: BenchmarkX" ...).
  std::vector<benchfmt::MessageBlock> blocks;
};

// Runs `function` once as the benchmark `name` (which should start with
// "Benchmark") with `settings`, printing nothing.
RunReport run_benchmark(std::string_view name, const std::function<void(B&)>& function,
                        const RunSettings& settings);

}  // namespace zerolab

#endif  // ZEROLAB_BENCH_RUN_HPP_
