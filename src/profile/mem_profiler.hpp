// A sampling allocation profiler fed by zerolab::alloc_hooks, written in
// pprof's profile format (gzipped profile.proto, as `go test -memprofile`
// writes it: sample types alloc_objects/count, alloc_space/bytes,
// inuse_objects/count and inuse_space/bytes, alloc_space the default,
// period `rate` space/bytes, functions, files and lines resolved at write
// time through pprof_stacks.hpp) or, asked for, gperftools' legacy heap
// profile text (`google-pprof --text BINARY FILE` reads it;
// --alloc_space/--alloc_objects/--inuse_space/--inuse_objects pick the
// column).
//
// What it records: the hooks sample allocations made while a benchmark's
// timer runs (the same allocations B/op and allocs/op count), on average
// one per `rate` bytes as Go's runtime.MemProfileRate does (rate 1: every
// allocation). For each sample the profiler captures the allocating stack
// (frame pointers, stack_trace.hpp, starting at the allocator's caller) and adds it to its
// site: allocated count and bytes, and the block goes into a table of live
// sampled blocks. A free of a sampled block (whenever it happens, timer on
// or off) moves it to the site's freed count; what is left at stop() is
// "in use". Sampled counts stand for 1/(1-exp(-avg_size/RATE)) times as
// many: the pprof format holds them scaled so, as Go's runtime writes them;
// the legacy file holds the raw counts with the header "heap profile: ...
// @ heap_v2/RATE" and pprof scales them when it reads them. With rate 1
// nothing is scaled (the legacy header says "heapprofile").
//
// Costs: with no profile, none (the hooks read one flag). With one, every
// free checks a 64K-entry counting filter of sampled addresses (one relaxed
// load; a lock only when it may be a sampled block) and every allocation
// decrements a per-thread byte counter; a sampled allocation costs a
// frame-pointer walk (tens of ns) and a mutex. The profiler's memory is mmap'ed once
// (sites: 16384 stacks; live sampled blocks: 2^21), never malloc'ed, and its
// callbacks run with the thread paused, so nothing it does is counted in
// B/op or allocs/op. Samples beyond those tables are dropped and counted.
//
// Not available in sanitizer builds (the hooks cannot sample there) or
// without zerolab::alloc_hooks linked in: start() fails with a message.
//
// For the lab (`zerolab lab --memprofile DIR`): one MemProfiler per
// experiment, start(DIR + "/" + experiment + ".mem.prof", rate, error)
// before the experiment's benchmarks and stop(error) after them; sampling
// follows the benchmarks' timers (profile::set_timer_running).
//
// Thread-safety: start and stop from one thread; the callbacks from any.
// One memory profile per process at a time.
//
// Example:
//   zerolab::internal::profile::MemProfiler mem;
//   std::string error;
//   if (!mem.start("mem.out", 512 * 1024, error)) { ... }   // mem.out checked
//   ...run benchmarks...
//   if (!mem.stop(error)) { ... }   // mem.out written
#ifndef ZEROLAB_SRC_PROFILE_MEM_PROFILER_HPP_
#define ZEROLAB_SRC_PROFILE_MEM_PROFILER_HPP_

#include <cstdint>
#include <string>

#include "profile/profile_file.hpp"

namespace zerolab::internal::profile {

class MemProfiler {
 public:
  static constexpr std::uint64_t kDefaultRate = 512 * 1024;  // Go's

  MemProfiler() = default;
  MemProfiler(const MemProfiler&) = delete;
  MemProfiler& operator=(const MemProfiler&) = delete;
  // Detaches from the hooks and discards the profile if stop() was not called.
  ~MemProfiler();

  // Empty if this binary can profile allocations, else why not.
  static std::string unsupported_reason();

  // Creates the output's temporary file and installs the sampler.
  // REQUIRES: rate >= 1.
  bool start(const std::string& path, std::uint64_t rate, std::string& error,
             ProfileFormat format = ProfileFormat::kPprof);
  // Detaches the sampler and writes the profile atomically.
  bool stop(std::string& error);
  // Detaches the sampler and removes the temporary file; nothing is written.
  void discard() noexcept;
  bool running() const noexcept { return running_; }

  // Samples dropped because a table was full (last or current profile).
  static std::uint64_t dropped() noexcept;

  // The gate: allocations are sampled only while on. No-op without a profile.
  static void set_sampling(bool on) noexcept;

 private:
  void detach() noexcept;

  ProfileFile file_;
  std::uint64_t rate_ = kDefaultRate;
  ProfileFormat format_ = ProfileFormat::kPprof;
  bool running_ = false;
};

}  // namespace zerolab::internal::profile

#endif  // ZEROLAB_SRC_PROFILE_MEM_PROFILER_HPP_
