// zerolab::gbench::MemoryManager (include/zerolab/gbench.hpp).
//
// Exact modes set aside the allocations whose caller lies in Google
// Benchmark's shared library (remembered in a fixed table so their frees
// can be recognized). The live-heap figures are the hooks' heap tracking
// minus the set-aside blocks still alive; the peak is taken at each counted
// allocation, the only events at which it can rise (a realloc that moves a
// block is seen after the old block is released).
//   kSampler    normal builds: the hooks' sampler runs at rate 1 during the
//               pass, so on_alloc sees every counted allocation with the
//               return address into the code that called the allocator;
//               the counts are taken there.
//   kAsanHooks  ASan builds (no sampler): a second pair of ASan allocator
//               hooks, run after zerolab::alloc_hooks' own, reads each
//               block's allocation stack (__asan_get_alloc_stack; its first
//               frame outside the ASan runtime is the caller); the counts
//               are the hooks' totals minus the set-aside allocations.
//   kTotals     otherwise (TSan, Google Benchmark inside the executable):
//               differences of the hooks' totals and heap tracking, Google
//               Benchmark's allocations included.
#include <link.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "alloc_hooks/alloc_stats.hpp"
#include "gbench/kept_results.hpp"

// The sanitizer runtime's interface, present in ASan builds only.
extern "C" {
__attribute__((weak)) int __sanitizer_install_malloc_and_free_hooks(
    void (*malloc_hook)(const volatile void*, std::size_t),
    void (*free_hook)(const volatile void*));
__attribute__((weak)) std::size_t __asan_get_alloc_stack(void* addr, void** trace, std::size_t size,
                                                         int* thread_id);
}
#include "zerolab/gbench.hpp"

namespace zerolab::gbench {
namespace {

namespace alloc_stats = ::zerolab::internal::alloc_stats;

// The executable segments of one loaded object.
struct CodeRanges {
  static constexpr int kMax = 8;
  std::uintptr_t begin[kMax] = {};
  std::uintptr_t end[kMax] = {};
  int count = 0;

  bool contains(std::uintptr_t a) const noexcept {
    for (int i = 0; i < count; ++i) {
      if (a >= begin[i] && a < end[i]) return true;
    }
    return false;
  }
};

struct FindObject {
  std::uintptr_t address = 0;  // a code address inside the object wanted
  CodeRanges ranges;
  bool found = false;
};

int find_object(dl_phdr_info* info, std::size_t, void* data) {
  auto* want = static_cast<FindObject*>(data);
  CodeRanges ranges;
  bool here = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const std::uintptr_t b = info->dlpi_addr + ph.p_vaddr;
    const std::uintptr_t e = b + ph.p_memsz;
    if (want->address >= b && want->address < e) here = true;
    if (ranges.count < CodeRanges::kMax) {
      ranges.begin[ranges.count] = b;
      ranges.end[ranges.count] = e;
      ++ranges.count;
    }
  }
  if (!here) return 0;
  want->ranges = ranges;
  want->found = true;
  return 1;
}

// The code of the object holding `fn`.
CodeRanges code_of(std::uintptr_t fn) {
  FindObject want;
  want.address = fn;
  dl_iterate_phdr(&find_object, &want);
  return want.found ? want.ranges : CodeRanges{};
}

// State of the pass in progress (exact modes). The callbacks are plain
// functions, and the hooks have one sampler per process, so this is
// process-wide too.
struct Pass {
  static constexpr int kMaxSetAside = 1024;

  CodeRanges library;               // Google Benchmark's code
  CodeRanges runtime;               // the ASan runtime's code (kAsanHooks)
  std::atomic<bool> active{false};  // kAsanHooks: between Start and Stop
  std::atomic_flag lock = ATOMIC_FLAG_INIT;
  std::uint64_t allocs = 0;  // counted (kSampler)
  std::uint64_t bytes = 0;
  std::uint64_t set_aside_allocs = 0;
  std::uint64_t set_aside_bytes = 0;
  std::int64_t set_aside_live = 0;  // usable bytes of set-aside blocks still alive
  std::int64_t peak = 0;
  bool overflow = false;  // more live set-aside blocks than the table holds
  void* block[kMaxSetAside] = {};
  std::int64_t size[kMaxSetAside] = {};
  int live = 0;

  void reset() noexcept {
    allocs = 0;
    bytes = 0;
    set_aside_allocs = 0;
    set_aside_bytes = 0;
    set_aside_live = 0;
    peak = 0;
    overflow = false;
    live = 0;
  }
};

Pass g_pass;

class Guard {
 public:
  Guard() noexcept {
    while (g_pass.lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~Guard() { g_pass.lock.clear(std::memory_order_release); }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
};

// One allocation the hooks counted and tracked (`usable` bytes of heap).
void note_alloc(void* block, std::uint64_t bytes, std::int64_t usable, void* caller) {
  const bool library = g_pass.library.contains(reinterpret_cast<std::uintptr_t>(caller));
  Guard guard;
  if (library) {
    ++g_pass.set_aside_allocs;
    g_pass.set_aside_bytes += bytes;
    g_pass.set_aside_live += usable;
    if (g_pass.live < Pass::kMaxSetAside) {
      g_pass.block[g_pass.live] = block;
      g_pass.size[g_pass.live] = usable;
      ++g_pass.live;
    } else {
      g_pass.overflow = true;
    }
    return;
  }
  ++g_pass.allocs;
  g_pass.bytes += bytes;
  // The hooks tracked this block before calling us.
  g_pass.peak = std::max(g_pass.peak, alloc_stats::heap_growth() - g_pass.set_aside_live);
}

void note_free(const void* block) {
  Guard guard;
  for (int i = 0; i < g_pass.live; ++i) {
    if (g_pass.block[i] != block) continue;
    g_pass.set_aside_live -= g_pass.size[i];
    --g_pass.live;
    g_pass.block[i] = g_pass.block[g_pass.live];
    g_pass.size[i] = g_pass.size[g_pass.live];
    return;
  }
}

// kSampler's callbacks.
void on_alloc(void* block, std::uint64_t bytes, void* caller) {
  note_alloc(block, bytes, static_cast<std::int64_t>(malloc_usable_size(block)), caller);
}

void on_free(void* block) {
  note_free(block);
}

// kAsanHooks' callbacks: the block's usable size is what ASan reports, the
// requested size, as zerolab::alloc_hooks tracks it.
void asan_malloc_hook(const volatile void* ptr, std::size_t size) {
  if (!g_pass.active.load(std::memory_order_acquire) || ptr == nullptr) return;
  void* block = const_cast<void*>(ptr);
  void* trace[8];
  int thread = 0;
  const std::size_t frames = __asan_get_alloc_stack(block, trace, 8, &thread);
  void* caller = nullptr;
  for (std::size_t i = 0; i < frames; ++i) {
    if (!g_pass.runtime.contains(reinterpret_cast<std::uintptr_t>(trace[i]))) {
      caller = trace[i];
      break;
    }
  }
  note_alloc(block, size, static_cast<std::int64_t>(size), caller);
}

void asan_free_hook(const volatile void* ptr) {
  if (!g_pass.active.load(std::memory_order_acquire) || ptr == nullptr) return;
  note_free(const_cast<const void*>(ptr));
}

std::int64_t to_int64(std::uint64_t v) noexcept {
  return v > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(v);
}

}  // namespace

MemoryManager::MemoryManager() {
  // Google Benchmark's code: the object holding one of its functions, when
  // that is not the object holding ours (a static libbenchmark.a).
  const auto theirs = reinterpret_cast<std::uintptr_t>(&benchmark::RegisterMemoryManager);
  const auto ours = reinterpret_cast<std::uintptr_t>(&install_memory_manager);
  const CodeRanges library = code_of(theirs);
  if (library.count == 0 || library.contains(ours)) return;
  g_pass.library = library;
  // Probe: can this build sample (not in the sanitizer modes)?
  if (alloc_stats::set_sampler(&on_alloc, &on_free, 1)) {
    alloc_stats::set_sampler(nullptr, nullptr, 0);
    mode_ = Mode::kSampler;
    return;
  }
  static bool asan_hooks_installed = false;  // hooks cannot be removed: once per process
  if (std::string_view(alloc_stats::mode()) == "asan" &&
      __sanitizer_install_malloc_and_free_hooks != nullptr && __asan_get_alloc_stack != nullptr) {
    g_pass.runtime = code_of(reinterpret_cast<std::uintptr_t>(__asan_get_alloc_stack));
    if (g_pass.runtime.count > 0 && !g_pass.runtime.contains(theirs) &&
        (asan_hooks_installed ||
         __sanitizer_install_malloc_and_free_hooks(&asan_malloc_hook, &asan_free_hook) != 0)) {
      asan_hooks_installed = true;
      mode_ = Mode::kAsanHooks;
    }
  }
}

MemoryManager::~MemoryManager() {
  if (!running_) return;
  g_pass.active.store(false, std::memory_order_release);
  if (mode_ == Mode::kSampler) {
    alloc_stats::sampling(false);
    alloc_stats::set_sampler(nullptr, nullptr, 0);
  }
  alloc_stats::heap_tracking(false);
}

const char* MemoryManager::counting_mode() const noexcept {
  return alloc_stats::mode();
}

void MemoryManager::Start() {
  running_ = true;
  const alloc_stats::Totals t = alloc_stats::totals();
  allocs_before_ = t.allocs;
  bytes_before_ = t.bytes;
  if (mode_ != Mode::kTotals) {
    Guard guard;
    g_pass.reset();
  }
  alloc_stats::heap_tracking(true);
  if (mode_ == Mode::kSampler) {
    alloc_stats::set_sampler(&on_alloc, &on_free, 1);
    alloc_stats::sampling(true);
  } else if (mode_ == Mode::kAsanHooks) {
    g_pass.active.store(true, std::memory_order_release);
  }
}

void MemoryManager::Stop(Result& result) {
  if (!running_) return;
  running_ = false;
  fill(result);
  internal::keep_result(&result, result);  // after counting stopped: not counted
}

void MemoryManager::fill(Result& result) {
  if (mode_ == Mode::kSampler) {
    alloc_stats::sampling(false);
    alloc_stats::set_sampler(nullptr, nullptr, 0);
  }
  g_pass.active.store(false, std::memory_order_release);
  const alloc_stats::Totals t = alloc_stats::totals();
  const std::int64_t growth = alloc_stats::heap_growth();
  const std::int64_t hooks_peak = alloc_stats::heap_peak_growth();
  alloc_stats::heap_tracking(false);
  if (mode_ == Mode::kTotals) {
    result.num_allocs = to_int64(t.allocs - allocs_before_);
    result.total_allocated_bytes = to_int64(t.bytes - bytes_before_);
    result.max_bytes_used = std::max<std::int64_t>(hooks_peak, 0);
    result.net_heap_growth = growth;
    return;
  }
  Guard guard;
  if (mode_ == Mode::kSampler) {
    result.num_allocs = to_int64(g_pass.allocs);
    result.total_allocated_bytes = to_int64(g_pass.bytes);
  } else {
    result.num_allocs = to_int64(t.allocs - allocs_before_ - g_pass.set_aside_allocs);
    result.total_allocated_bytes = to_int64(t.bytes - bytes_before_ - g_pass.set_aside_bytes);
  }
  if (g_pass.overflow) {  // set-aside blocks unaccounted for: the hooks' figures
    result.max_bytes_used = std::max<std::int64_t>(hooks_peak, 0);
    result.net_heap_growth = growth;
  } else {
    result.max_bytes_used = std::max<std::int64_t>(g_pass.peak, 0);
    result.net_heap_growth = growth - g_pass.set_aside_live;
  }
}

void MemoryManager::Stop(Result* result) {
  if (result != nullptr) Stop(*result);
}

MemoryManager& install_memory_manager() {
  static MemoryManager* const manager = [] {
    auto* m = new MemoryManager();  // lives until exit: Google Benchmark keeps the pointer
    benchmark::RegisterMemoryManager(m);
    benchmark::AddCustomContext("zerolab_alloc_counting",
                                m->exact() ? "exact" : "includes-benchmark-library");
    return m;
  }();
  return *manager;
}

}  // namespace zerolab::gbench
