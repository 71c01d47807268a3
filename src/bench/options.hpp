// The harness's command-line options and their parser (Go's test flags).
//
// Flags take one or two dashes and `-flag value` or `-flag=value`; boolean
// flags also take a bare `-flag`. A bad flag gives one error line naming the
// flag and the value, and the harness exits 2 without running anything.
//
// Example:
//   zerolab::internal::Options options;
//   std::string error;
//   if (!zerolab::internal::parse_options(argc, argv, options, error)) { ... }
#ifndef ZEROLAB_SRC_BENCH_OPTIONS_HPP_
#define ZEROLAB_SRC_BENCH_OPTIONS_HPP_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profile/profile_file.hpp"

namespace zerolab::internal {

// -benchtime: a duration, or a fixed iteration count written "100x".
struct BenchTime {
  std::chrono::nanoseconds duration{std::chrono::seconds(1)};
  std::int64_t iterations = 0;  // > 0 for the "Nx" form
};

// -benchmeasure: what a result measures. kInstructions re-runs the binary
// under callgrind and reports exact counts per op (counting_run.hpp).
enum class Measure { kTime, kInstructions };

struct Options {
  std::string bench = ".";           // -bench: which benchmarks run (default: all)
  BenchTime benchtime;               // -benchtime
  int count = 1;                     // -count: runs of each benchmark
  std::vector<int> cpus;             // -cpu: parallelism levels; empty means the CPU count
  bool benchmem = true;              // -benchmem: B/op and allocs/op
  bool faults = true;                // -faults: faults/op
  bool heap = false;                 // -heap: live-heap metrics
  bool exact_memory = false;         // no flag: RunSettings::exact_memory (mallocs/op, malloc-B/op)
  Measure measure = Measure::kTime;  // -benchmeasure=time|instructions
  std::string output_file;           // -o: also write the results here
  std::optional<std::string> list;   // -list: print matching names, run nothing
  bool help = false;                 // -h
  std::string cpuprofile;            // -cpuprofile: write a CPU profile of the timed code here
  int cpuprofilerate = 100;          // -cpuprofilerate: CPU samples per second
  std::string memprofile;            // -memprofile: write an allocation profile here
  std::uint64_t memprofilerate = 512 * 1024;  // -memprofilerate: bytes per sample (1: all)
  // -profileformat pprof|legacy: both profiles' format (legacy: google-pprof's)
  profile::ProfileFormat profileformat = profile::ProfileFormat::kPprof;
};

// Parses a Go duration ("1s", "1.5s", "300ms", "2m30s", "10us", "1h") or an
// iteration count ("100x"). Returns false with `error` set on bad input.
bool parse_benchtime(const std::string& text, BenchTime& out, std::string& error);

// Parses a positive byte count of at most 2^40 in the one byte-size grammar
// (text/byte_size.hpp: "512KiB", "32M", "4096", "1"). False on anything else.
bool parse_byte_count(const std::string& text, std::uint64_t& out);

// Parses argv[1..argc). On failure returns false and sets `error` to the
// one-line message (without the program name).
bool parse_options(int argc, char** argv, Options& options, std::string& error);

// The -h text.
std::string usage_text(const std::string& program);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_BENCH_OPTIONS_HPP_
