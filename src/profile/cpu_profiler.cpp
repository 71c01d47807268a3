// The SIGPROF sampler and its two profile writers (cpu_profiler.hpp).
#include "profile/cpu_profiler.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <vector>

#include "alloc_hooks/alloc_stats.hpp"
#include "profile/pprof_stacks.hpp"
#include "profile/stack_trace.hpp"

namespace zerolab::internal::profile {
namespace {

using Word = std::uintptr_t;

// Room for 2^22 words: at least 60000 samples of the deepest stacks.
constexpr std::size_t kLogWords = std::size_t{1} << 22;

struct CpuState {
  std::atomic<bool> active{false};    // a profile is running
  std::atomic<bool> sampling{false};  // the gate: a benchmark timer runs
  std::atomic<int> in_handler{0};     // handlers past the gate check
  std::atomic<std::size_t> used{0};   // words of the log reserved
  std::atomic<std::uint64_t> samples{0};
  std::atomic<std::uint64_t> dropped{0};
  Word* log = nullptr;  // kLogWords, mmap'ed once, zero when a profile starts
  bool handler_installed = false;
};

constinit CpuState g_cpu;

void record_sample(const void* context) noexcept {
  const auto* uc = static_cast<const ucontext_t*>(context);
  void* const pc = reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
  void* frames[kMaxStackDepth];
  int depth = capture_stack_from(pc, frames, kMaxStackDepth);
  if (depth == 0) {  // no unwind information at pc: keep the pc alone
    frames[0] = pc;
    depth = 1;
  }
  const std::size_t need = 2 + static_cast<std::size_t>(depth);
  const std::size_t at = g_cpu.used.fetch_add(need, std::memory_order_relaxed);
  if (at + need > kLogWords) {
    g_cpu.dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Word* record = g_cpu.log + at;
  record[0] = 1;
  record[1] = static_cast<Word>(depth);
  for (int i = 0; i < depth; ++i) record[2 + i] = reinterpret_cast<Word>(frames[i]);
  g_cpu.samples.fetch_add(1, std::memory_order_relaxed);
}

void on_sigprof(int, siginfo_t*, void* context) {
  const int saved_errno = errno;
  // seq_cst pairs with stop(): either stop() sees this handler in
  // in_handler, or this handler sees the gate closed.
  g_cpu.in_handler.fetch_add(1);
  if (g_cpu.sampling.load() && context != nullptr) record_sample(context);
  g_cpu.in_handler.fetch_sub(1);
  errno = saved_errno;
}

bool set_timer(int hz) noexcept {
  itimerval timer{};
  if (hz > 0) {
    const long period_us = 1000000L / hz;
    timer.it_interval.tv_sec = period_us / 1000000L;
    timer.it_interval.tv_usec = period_us % 1000000L;
    timer.it_value = timer.it_interval;
  }
  return setitimer(ITIMER_PROF, &timer, nullptr) == 0;
}

void append_words(std::string& out, std::initializer_list<Word> words) {
  for (const Word w : words) out.append(reinterpret_cast<const char*>(&w), sizeof w);
}

std::int64_t wall_clock_nanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// gperftools' format: header, {count, depth, pc...} records, trailer, maps.
std::string legacy_profile(const std::map<std::vector<Word>, Word>& stacks, int hz) {
  std::string out;
  const Word period_us = static_cast<Word>(1000000 / hz);
  append_words(out, {0, 3, 0, period_us, 0});
  for (const auto& [stack, count] : stacks) {
    append_words(out, {count, static_cast<Word>(stack.size())});
    out.append(reinterpret_cast<const char*>(stack.data()), stack.size() * sizeof(Word));
  }
  append_words(out, {0, 1, 0});
  return out + read_memory_map();
}

// Go's CPU profile: samples/count and cpu/nanoseconds, one sample per stack.
std::string pprof_profile(const std::map<std::vector<Word>, Word>& stacks, int hz,
                          std::int64_t start_nanos) {
  const std::int64_t period_ns = 1000000000 / hz;
  PprofBuilder b({{"samples", "count"}, {"cpu", "nanoseconds"}});
  b.set_period("cpu", "nanoseconds", period_ns);
  b.set_time(start_nanos, wall_clock_nanos() - start_nanos);
  std::vector<RecordedStack> recorded;
  for (const auto& [stack, count] : stacks) {
    const auto n = static_cast<std::int64_t>(count);
    recorded.push_back({stack, {n, n * period_ns}});
  }
  add_process_stacks(b, recorded, PcKind::kInstruction);
  return gzip_stored(b.serialize());
}

}  // namespace

CpuProfiler::~CpuProfiler() {
  discard();
}

void CpuProfiler::discard() noexcept {
  if (running_) halt();
  file_.abandon();
}

bool CpuProfiler::start(const std::string& path, int hz, std::string& error, ProfileFormat format) {
  if (hz < kMinRate || hz > kMaxRate) {
    error = "rate must be between 1 and 10000 samples per second";
    return false;
  }
  if (g_cpu.active.load()) {
    error = "a CPU profile is already running";
    return false;
  }
  if (!file_.open(path, error)) return false;
  if (g_cpu.log == nullptr) {
    void* p = mmap(nullptr, kLogWords * sizeof(Word), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      error = std::string("cannot map the sample buffer: ") + std::strerror(errno);
      file_.abandon();
      return false;
    }
    g_cpu.log = static_cast<Word*>(p);
  } else {
    // Private anonymous pages read as zero again after MADV_DONTNEED.
    madvise(g_cpu.log, kLogWords * sizeof(Word), MADV_DONTNEED);
  }
  g_cpu.used.store(0);
  g_cpu.samples.store(0);
  g_cpu.dropped.store(0);
  warm_up_unwinder();
  if (!g_cpu.handler_installed) {
    struct sigaction action {};
    action.sa_sigaction = &on_sigprof;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGPROF, &action, nullptr) != 0) {
      error = std::string("cannot install the SIGPROF handler: ") + std::strerror(errno);
      file_.abandon();
      return false;
    }
    g_cpu.handler_installed = true;
  }
  hz_ = hz;
  format_ = format;
  start_nanos_ = wall_clock_nanos();
  g_cpu.active.store(true);
  if (!set_timer(hz)) {
    error = std::string("cannot start the profiling timer: ") + std::strerror(errno);
    g_cpu.active.store(false);
    file_.abandon();
    return false;
  }
  running_ = true;
  return true;
}

void CpuProfiler::halt() noexcept {
  set_timer(0);
  g_cpu.active.store(false);
  g_cpu.sampling.store(false);
  while (g_cpu.in_handler.load() != 0) sched_yield();
  running_ = false;
}

bool CpuProfiler::stop(std::string& error) {
  if (!running_) {
    error = "no CPU profile is running";
    return false;
  }
  halt();
  alloc_stats::ScopedPause pause;  // the writer's allocations are not a benchmark's
  // Merge identical stacks.
  std::map<std::vector<Word>, Word> stacks;
  const std::size_t used = std::min(g_cpu.used.load(), kLogWords);
  for (std::size_t at = 0; at + 2 <= used;) {
    const Word count = g_cpu.log[at];
    const Word depth = g_cpu.log[at + 1];
    if (count == 0 || depth == 0 || at + 2 + depth > used) break;
    std::vector<Word> stack(g_cpu.log + at + 2, g_cpu.log + at + 2 + depth);
    stacks[std::move(stack)] += count;
    at += 2 + depth;
  }
  file_.append(format_ == ProfileFormat::kLegacy ? legacy_profile(stacks, hz_)
                                                 : pprof_profile(stacks, hz_, start_nanos_));
  return file_.commit(error);
}

std::uint64_t CpuProfiler::samples() noexcept {
  return g_cpu.samples.load();
}

std::uint64_t CpuProfiler::dropped() noexcept {
  return g_cpu.dropped.load();
}

void CpuProfiler::set_sampling(bool on) noexcept {
  if (!g_cpu.active.load(std::memory_order_relaxed)) return;
  g_cpu.sampling.store(on);
}

}  // namespace zerolab::internal::profile
