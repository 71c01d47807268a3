// zerolab::gbench::MemoryManager (include/zerolab/gbench.hpp).
//
// Exact mode: during the pass the hooks' sampler runs at rate 1, so
// on_alloc sees every counted allocation with the return address into the
// code that called the allocator. Allocations whose caller lies in Google
// Benchmark's shared library are set aside (remembered in a fixed table so
// their frees can be recognized); the rest are counted here. The live-heap
// figures come from the hooks' heap tracking minus the set-aside blocks that
// are still alive; the peak is taken at each counted allocation, the only
// events at which it can rise.
//
// Fallback mode (no sampler in sanitizer builds, or Google Benchmark inside
// the executable): differences of the hooks' totals and heap tracking.
#include <link.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "alloc_hooks/hooks_abi.h"
#include "gbench/kept_results.hpp"
#include "zerolab/gbench.hpp"

namespace zerolab::gbench {
namespace {

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

// State of the pass in progress (exact mode). The sampler callbacks are
// plain functions, and the hooks have one sampler per process, so this is
// process-wide too.
struct Pass {
  static constexpr int kMaxSetAside = 1024;

  CodeRanges library;  // Google Benchmark's code
  std::atomic_flag lock = ATOMIC_FLAG_INIT;
  std::uint64_t allocs = 0;
  std::uint64_t bytes = 0;
  std::int64_t set_aside_live = 0;  // usable bytes of set-aside blocks still alive
  std::int64_t peak = 0;
  bool overflow = false;  // more live set-aside blocks than the table holds
  void* block[kMaxSetAside] = {};
  std::int64_t size[kMaxSetAside] = {};
  int live = 0;

  void reset() noexcept {
    allocs = 0;
    bytes = 0;
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

void on_alloc(void* block, std::uint64_t bytes, void* caller) {
  const bool library = g_pass.library.contains(reinterpret_cast<std::uintptr_t>(caller));
  const auto usable = static_cast<std::int64_t>(malloc_usable_size(block));
  Guard guard;
  if (library) {
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
  g_pass.peak = std::max(g_pass.peak, zerolab_alloc_hooks_heap_growth() - g_pass.set_aside_live);
}

void on_free(void* block) {
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
  if (library.count > 0 && !library.contains(ours)) {
    g_pass.library = library;
    // Probe: can this build sample (not in the sanitizer modes)?
    if (zerolab_alloc_hooks_set_sampler(&on_alloc, &on_free, 1) == 1) {
      zerolab_alloc_hooks_set_sampler(nullptr, nullptr, 0);
      exact_ = true;
    }
  }
}

MemoryManager::~MemoryManager() {
  if (running_) {
    zerolab_alloc_hooks_sampling(0);
    if (exact_) zerolab_alloc_hooks_set_sampler(nullptr, nullptr, 0);
    zerolab_alloc_hooks_heap_tracking(0);
  }
}

const char* MemoryManager::counting_mode() const noexcept { return zerolab_alloc_hooks_mode(); }

void MemoryManager::Start() {
  running_ = true;
  if (exact_) {
    {
      Guard guard;
      g_pass.reset();
    }
    zerolab_alloc_hooks_heap_tracking(1);
    zerolab_alloc_hooks_set_sampler(&on_alloc, &on_free, 1);
    zerolab_alloc_hooks_sampling(1);
    return;
  }
  zerolab_alloc_totals t{};
  zerolab_alloc_hooks_totals(&t);
  allocs_before_ = t.allocs;
  bytes_before_ = t.bytes;
  zerolab_alloc_hooks_heap_tracking(1);
}

void MemoryManager::Stop(Result& result) {
  if (!running_) return;
  running_ = false;
  fill(result);
  internal::keep_result(&result, result);  // after counting stopped: not counted
}

void MemoryManager::fill(Result& result) {
  if (exact_) {
    zerolab_alloc_hooks_sampling(0);
    zerolab_alloc_hooks_set_sampler(nullptr, nullptr, 0);
    const std::int64_t growth = zerolab_alloc_hooks_heap_growth();
    const std::int64_t hooks_peak = zerolab_alloc_hooks_heap_peak_growth();
    zerolab_alloc_hooks_heap_tracking(0);
    Guard guard;
    result.num_allocs = to_int64(g_pass.allocs);
    result.total_allocated_bytes = to_int64(g_pass.bytes);
    if (g_pass.overflow) {  // set-aside blocks unaccounted for: the hooks' figures
      result.max_bytes_used = std::max<std::int64_t>(hooks_peak, 0);
      result.net_heap_growth = growth;
    } else {
      result.max_bytes_used = std::max<std::int64_t>(g_pass.peak, 0);
      result.net_heap_growth = growth - g_pass.set_aside_live;
    }
    return;
  }
  zerolab_alloc_totals t{};
  zerolab_alloc_hooks_totals(&t);
  const std::int64_t growth = zerolab_alloc_hooks_heap_growth();
  const std::int64_t peak = zerolab_alloc_hooks_heap_peak_growth();
  zerolab_alloc_hooks_heap_tracking(0);
  result.num_allocs = to_int64(t.allocs - allocs_before_);
  result.total_allocated_bytes = to_int64(t.bytes - bytes_before_);
  result.max_bytes_used = std::max<std::int64_t>(peak, 0);
  result.net_heap_growth = growth;
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
