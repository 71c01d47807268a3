// The harness's view of the allocation hooks: reads the counters when
// zerolab::alloc_hooks is linked in, and reports their absence otherwise.
//
// The hooks' functions are referenced weakly, so zerolab::bench links without
// them; available() tells which case holds.
//
// Thread-safety: every function may be called from any thread.
//
// Example:
//   if (zerolab::internal::alloc_stats::available()) {
//     auto t = zerolab::internal::alloc_stats::totals();  // t.allocs, t.bytes
//   }
#ifndef ZEROLAB_SRC_BENCH_ALLOC_STATS_HPP_
#define ZEROLAB_SRC_BENCH_ALLOC_STATS_HPP_

#include <cstdint>

namespace zerolab::internal::alloc_stats {

struct Totals {
  std::uint64_t allocs = 0;
  std::uint64_t bytes = 0;
};

bool available() noexcept;
const char* mode() noexcept;  // "interpose", "asan", "tsan" or "none"
Totals totals() noexcept;

// While alive, the calling thread's allocations are not counted.
class ScopedPause {
 public:
  ScopedPause() noexcept;
  ~ScopedPause();
  ScopedPause(const ScopedPause&) = delete;
  ScopedPause& operator=(const ScopedPause&) = delete;
};

// Live-heap tracking (see hooks_abi.h); no-ops without the hooks.
void heap_tracking(bool on) noexcept;
std::int64_t heap_peak_growth() noexcept;
std::uint64_t heap_in_use() noexcept;

}  // namespace zerolab::internal::alloc_stats

#endif  // ZEROLAB_SRC_BENCH_ALLOC_STATS_HPP_
