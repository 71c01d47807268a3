// The parent of a counting run (-benchmeasure=instructions): starts the
// benchmark binary again under callgrind and prints its results with the
// exact counts per op.
//
// The child is `valgrind --tool=callgrind --collect-atstart=no
// --cache-sim=yes` with fixed simulated caches (I1 and D1 32 KiB 8-way, LL
// 8 MiB 16-way, 64-byte lines, so the miss counts do not depend on the
// machine's caches), the same arguments, address-space randomization off
// (personality ADDR_NO_RANDOMIZE, where the kernel allows it) and a fixed
// environment: PATH=/usr/bin:/bin, LC_ALL=C, the ZEROLAB_* variables the
// caller set (they choose what the library does), the child marker. Each
// benchmark runs two passes, of N and 2N iterations (-benchtime Nx,
// default 100x), each dumped to its own callgrind file; the parent reads
// the two dumps and reports, per op, (pass 2 - pass 1) / N of:
//   instructions/op  Ir
//   L1-misses/op     I1mr + D1mr + D1mw
//   LL-misses/op     ILmr + DLmr + DLmw
//   cycles/op        Ir + 10 * (L1 misses - LL misses) + 100 * LL misses
//                    (an estimate: an L1 miss that hits LL costs about 10
//                    cycles, one that goes to memory about 100)
// (a miss difference below zero, from the cold start of one pass, is 0),
// inserted after the iteration count of the child's result line, with a
// `Unit <unit> assume=exact` line for each before the first result.
// ns/op, MB/s and faults/op are left out (callgrind's times mean nothing);
// B/op and allocs/op are pass 2 minus pass 1 as well.
//
// Example (from run_benchmarks):
//   if (options.measure == Measure::kInstructions && !counting::is_child())
//     return run_counting_parent(program, argc, argv, options);
#ifndef ZEROLAB_SRC_BENCH_COUNTING_RUN_HPP_
#define ZEROLAB_SRC_BENCH_COUNTING_RUN_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "bench/callgrind_dump.hpp"
#include "bench/options.hpp"
#include "zerolab/benchfmt.hpp"

namespace zerolab::internal {

// The iteration count of one counting pass when -benchtime is not Nx.
inline constexpr std::int64_t kDefaultCountingIterations = 100;

// The units a counting run reports, in the order printed.
inline constexpr const char* kCountUnits[] = {"instructions/op", "L1-misses/op", "LL-misses/op",
                                              "cycles/op"};

// The per-op counts of a benchmark from two dumps of its loop, the second
// `iterations` iterations longer than the first: (second - first) / iterations.
std::vector<benchfmt::Metric> counts_per_op(const CallgrindDump& pass1, const CallgrindDump& pass2,
                                            std::int64_t iterations);

// How the child names its dumps.
enum class DumpProtocol {
  // The harness: "zerolab-bench pass 1 n N <name>" and "... pass 2 n 2N
  // <name>" for each result.
  kTwoPasses,
  // Google Benchmark (src/gbench/counting.hpp): "zerolab-gbench loop n N"
  // for each loop, then "zerolab-gbench end <name>" before its result.
  kLoopGroups,
};

// The per-op counts from a result's loop dumps, as (iterations, dump):
// the two longest loops of different lengths, a and b, give
// counts_per_op-style figures over n(b) - n(a). False with `error` when
// no two loops differ in length.
bool counts_from_loops(const std::vector<std::pair<std::int64_t, CallgrindDump>>& loops,
                       std::vector<benchfmt::Metric>& out, std::string& error);

// A counting child started by start_counting_child: `valgrind` with the
// options above running this executable, its stdout on out_fd, its dumps
// and valgrind's log in dir.
struct CountingChild {
  int pid = -1;
  int out_fd = -1;
  std::string dir;
  std::string out_prefix;  // dump k is "<out_prefix>.k"
  std::string log_path;
};

// Starts this executable with `args` under callgrind as a counting child
// (the options, environment and address-space setting above; the child
// finds its dumps through counting::kDumpPrefixVariable). False with
// `error` (nothing left behind) when it cannot: no valgrind, a build that
// cannot count, no temporary directory.
bool start_counting_child(const std::vector<std::string>& args, CountingChild& child,
                          std::string& error);

// Closes the child's stdout, waits for it and removes its directory.
// Returns 0 or 1 (its exit code) or 1 with `error` (valgrind's log) when
// it failed otherwise; a child stopped by SIGINT or SIGTERM (passed on by
// the parent's handler) sets no error.
int finish_counting_child(CountingChild& child, std::string& error);

// Runs this executable with `args` as a counting child to the end and
// returns its stdout in `out`. False with `error` when it could not start,
// failed or exited 1. SIGINT or SIGTERM meanwhile stops the child, removes
// its files and then kills this process with the same signal.
bool run_self_counting(const std::vector<std::string>& args, std::string& out, std::string& error);

// Runs the binary's counting child and prints its output with the counts
// (to stdout, and to -o). Returns the exit code: the child's (0 or 1), 1
// when callgrind failed, 2 when it cannot start (no valgrind, a build
// without callgrind.h). SIGINT or SIGTERM during the run is passed on to
// the child; once it is gone and its dumps are removed, this process dies
// of the same signal.
int run_counting_parent(const std::string& program, int argc, char** argv, const Options& options,
                        DumpProtocol protocol = DumpProtocol::kTwoPasses);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_BENCH_COUNTING_RUN_HPP_
