// bench_main's -cpuprofile and -memprofile: starts the profiles the flags
// ask for before any benchmark runs and writes them after the last.
//
// Thread-safety: used by the bench_main thread only.
//
// Example:
//   zerolab::internal::ProfileSession profiles;
//   std::string error;
//   if (!profiles.start(options, error)) { print error; return 2; }
//   ...run the benchmarks...
//   if (!profiles.finish(error)) { print error; return 1; }
#ifndef ZEROLAB_SRC_BENCH_PROFILES_HPP_
#define ZEROLAB_SRC_BENCH_PROFILES_HPP_

#include <string>

#include "bench/options.hpp"
#include "profile/cpu_profiler.hpp"
#include "profile/mem_profiler.hpp"

namespace zerolab::internal {

class ProfileSession {
 public:
  // Creates the profile files' temporaries and starts the profilers. On
  // failure nothing is left running or on disk, and `error` is one line
  // naming the flag and its value.
  bool start(const Options& options, std::string& error);
  // Writes every started profile. `error` names the flag of the first that
  // failed (the others are still written).
  bool finish(std::string& error);

 private:
  profile::CpuProfiler cpu_;
  profile::MemProfiler mem_;
};

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_BENCH_PROFILES_HPP_
