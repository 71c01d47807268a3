// A sampling CPU profiler that writes pprof's profile format (gzipped
// profile.proto, as `go test -cpuprofile` does: sample types samples/count
// and cpu/nanoseconds, period 1e9/hz ns; `go tool pprof -top FILE` shows
// function, file and line with no binary at hand) or, asked for, the legacy
// CPU profile format of gperftools' libprofiler (`google-pprof --text
// BINARY FILE` reads it).
//
// Why our own sampler rather than libprofiler (libgoogle-perftools-dev):
// zerolab::bench must link nothing new, and a profile must cover only the
// timed part of the benchmarks; libprofiler samples the whole process from
// ProfilerStart to ProfilerStop and cannot skip the harness's calibration
// and bookkeeping in between.
//
// How it samples: setitimer(ITIMER_PROF) sends SIGPROF every 1/hz seconds of
// CPU time consumed by the process (any thread, so run_parallel's workers
// are sampled too). The handler keeps the sample only while the gate is on
// (set_sampling(true): a benchmark's timer runs); it takes the interrupted
// pc from the signal's ucontext and the callers with backtrace()
// (stack_trace.hpp), and appends them to a preallocated, mmap'ed log with
// one atomic fetch_add, so it never allocates or locks. stop() turns the
// timer off, waits for handlers still running, merges identical stacks and
// writes the file: by default through pprof_stacks.hpp (the addresses
// resolved in this process's modules by addr2line and the ELF symbol
// tables), in the legacy format header words {0, 3, 0, period_us, 0},
// records {count, depth, pc...}, trailer {0, 1, 0}, then /proc/self/maps
// text. A full log (about 60000 samples) drops further samples and counts
// them.
//
// One CPU profile per process at a time. The SIGPROF handler stays
// installed after stop() (it does nothing then), so a late signal never
// kills the process; a program that has its own SIGPROF handler loses it.
//
// For the lab (`zerolab lab --cpuprofile DIR`): create one CpuProfiler per
// experiment, call start(DIR + "/" + experiment + ".cpu.prof", hz, error)
// before the experiment's first benchmark (a false return is a usage error,
// exit 2, before anything runs) and stop(error) after its last; sampling
// follows the benchmarks' timers by itself (B::start_timer and
// B::stop_timer call profile::set_timer_running), so nothing else is needed.
//
// Thread-safety: start and stop from one thread; set_sampling from any.
//
// Example:
//   zerolab::internal::profile::CpuProfiler cpu;
//   std::string error;
//   if (!cpu.start("cpu.out", 100, error)) { ... }   // cpu.out checked
//   ...run benchmarks (their timers open the gate)...
//   if (!cpu.stop(error)) { ... }                    // cpu.out written
#ifndef ZEROLAB_SRC_PROFILE_CPU_PROFILER_HPP_
#define ZEROLAB_SRC_PROFILE_CPU_PROFILER_HPP_

#include <cstdint>
#include <string>

#include "profile/profile_file.hpp"

namespace zerolab::internal::profile {

class CpuProfiler {
 public:
  // The accepted -cpuprofilerate range (samples per CPU second). The kernel
  // delivers CPU timer signals on its scheduler tick, so rates above
  // CONFIG_HZ (often 250) give fewer samples than asked for.
  static constexpr int kMinRate = 1;
  static constexpr int kMaxRate = 10000;
  static constexpr int kDefaultRate = 100;  // Go's

  CpuProfiler() = default;
  CpuProfiler(const CpuProfiler&) = delete;
  CpuProfiler& operator=(const CpuProfiler&) = delete;
  // Stops sampling and discards the profile if stop() was not called.
  ~CpuProfiler();

  // Creates the output's temporary file and starts the timer at `hz`
  // samples per CPU second. Returns false with `error` set if the file
  // cannot be created, another CPU profile runs, or the timer fails.
  // REQUIRES: kMinRate <= hz <= kMaxRate.
  bool start(const std::string& path, int hz, std::string& error,
             ProfileFormat format = ProfileFormat::kPprof);
  // Stops the timer and writes the profile atomically.
  bool stop(std::string& error);
  // Stops the timer and removes the temporary file; nothing is written.
  void discard() noexcept;
  bool running() const noexcept { return running_; }

  // Samples taken / dropped (log full) by the last or current profile.
  static std::uint64_t samples() noexcept;
  static std::uint64_t dropped() noexcept;

  // The gate: samples are kept only while on. A no-op without a profile.
  static void set_sampling(bool on) noexcept;

 private:
  void halt() noexcept;

  ProfileFile file_;
  int hz_ = kDefaultRate;
  ProfileFormat format_ = ProfileFormat::kPprof;
  std::int64_t start_nanos_ = 0;  // wall clock at start()
  bool running_ = false;
};

}  // namespace zerolab::internal::profile

#endif  // ZEROLAB_SRC_PROFILE_CPU_PROFILER_HPP_
