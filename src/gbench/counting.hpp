// The counting mode for Google Benchmark binaries
// (--benchmark_measure=instructions with zerolab::gbench::run_main).
//
// Google Benchmark chooses each run's iteration count by time, so the
// counting child does not fix it: every `for (auto _ : state)` loop is
// counted from its start to its end (State::PauseTiming/ResumeTiming stop
// and start counting), and dumped to its own callgrind file with its
// iteration count. The timed runs (Google Benchmark ramps 1, 10, 100...)
// and the memory pass give loops of different lengths; the parent takes
// the two longest of different lengths, a and b, and reports
// (count(b) - count(a)) / (n(b) - n(a)) per op, so what a loop spends once
// cancels out (counting_run.hpp has the units and formulas).
//
// To see the loops, this file defines the four State functions the loop
// calls (StartKeepRunning, FinishKeepRunning, PauseTiming, ResumeTiming) in
// the benchmark executable, where they take precedence over libbenchmark's;
// each calls libbenchmark's own (found with dlsym(RTLD_NEXT)) and, only in
// the counting child, switches callgrind's collection. run_main names
// this file, so any binary that uses it gets them.
//
// The child runs each benchmark once (--benchmark_repetitions=1) with
// --benchmark_min_time=0.05 unless given, and prints Go benchmark format
// lines (the name gets a "Benchmark" prefix) that the parent completes.
// With --benchmark_out the child writes that file itself, through Google
// Benchmark's reporter for --benchmark_out_format, each run with its
// counts (read back from its own dumps) as counters and its times 0.
// Benchmarks on several threads are counted on each thread, but their
// counts are not exact (the threads' interleaving moves them).
//
// Thread-safety: the State functions are called by Google Benchmark's
// threads; the collection switch is per thread.
//
// Example (what run_main does):
//   if (measure_instructions(argc, argv))
//     return counting::is_child() ? run_counting_child(argc, argv)
//                                 : run_counting_parent(...);
#ifndef ZEROLAB_SRC_GBENCH_COUNTING_HPP_
#define ZEROLAB_SRC_GBENCH_COUNTING_HPP_

#include <string>
#include <vector>

namespace zerolab::gbench::internal {

// Removes --benchmark_measure=V (or --benchmark_measure V) from argv.
// Sets `instructions` for V "instructions"; false with `error` for a value
// other than "time" or "instructions".
bool take_measure_flag(int& argc, char** argv, bool& instructions, std::string& error);

// The counting child: runs the benchmarks with collection around each loop
// and prints Go benchmark format lines. Returns the exit code.
int run_counting_child(int argc, char** argv);

}  // namespace zerolab::gbench::internal

#endif  // ZEROLAB_SRC_GBENCH_COUNTING_HPP_
