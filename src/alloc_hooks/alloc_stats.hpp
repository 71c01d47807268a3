// The one bridge from the rest of zerolab to the allocation hooks
// (hooks_abi.h): the harness, the profilers and the Google Benchmark memory
// manager all go through it. The hooks' functions are referenced weakly
// here and nowhere else, so a library that uses the bridge links without
// zerolab::alloc_hooks; available() tells whether the hooks are in.
//
// Header-only: its users (zerolab::bench, zerolab::gbench) share no library
// to hold a .cpp, and every function is a null check and a call.
//
// Thread-safety: every function may be called from any thread.
//
// Example:
//   if (zerolab::internal::alloc_stats::available()) {
//     auto t = zerolab::internal::alloc_stats::totals();  // t.allocs, t.bytes
//   }
#ifndef ZEROLAB_SRC_ALLOC_HOOKS_ALLOC_STATS_HPP_
#define ZEROLAB_SRC_ALLOC_HOOKS_ALLOC_STATS_HPP_

#include <malloc.h>

#include <cstdint>

#include "alloc_hooks/hooks_abi.h"

extern "C" {
__attribute__((weak)) void zerolab_alloc_hooks_anchor(void);
__attribute__((weak)) const char* zerolab_alloc_hooks_mode(void);
__attribute__((weak)) void zerolab_alloc_hooks_totals(struct zerolab_alloc_totals* out);
__attribute__((weak)) void zerolab_alloc_hooks_pause_thread(int delta);
__attribute__((weak)) void zerolab_alloc_hooks_heap_tracking(int on);
__attribute__((weak)) int64_t zerolab_alloc_hooks_heap_growth(void);
__attribute__((weak)) int64_t zerolab_alloc_hooks_heap_peak_growth(void);
__attribute__((weak)) uint64_t zerolab_alloc_hooks_heap_in_use(void);
__attribute__((weak)) int zerolab_alloc_hooks_set_sampler(zerolab_alloc_sample_fn on_alloc,
                                                          zerolab_free_sample_fn on_free,
                                                          uint64_t rate);
__attribute__((weak)) void zerolab_alloc_hooks_sampling(int on);
}

namespace zerolab::internal::alloc_stats {

struct Totals {
  std::uint64_t allocs = 0;
  std::uint64_t bytes = 0;
};

// Whether zerolab::alloc_hooks is linked in.
inline bool available() noexcept {
  return zerolab_alloc_hooks_totals != nullptr;
}

// "interpose", "asan", "tsan" or "none".
inline const char* mode() noexcept {
  return zerolab_alloc_hooks_mode != nullptr ? zerolab_alloc_hooks_mode() : "none";
}

// Allocations and bytes counted so far (zeros without the hooks).
inline Totals totals() noexcept {
  if (zerolab_alloc_hooks_totals == nullptr) return {};
  zerolab_alloc_totals t{};
  zerolab_alloc_hooks_totals(&t);
  return Totals{t.allocs, t.bytes};
}

// While alive, the calling thread's allocations are not counted.
class ScopedPause {
 public:
  ScopedPause() noexcept {
    if (zerolab_alloc_hooks_pause_thread != nullptr) zerolab_alloc_hooks_pause_thread(1);
  }
  ~ScopedPause() {
    if (zerolab_alloc_hooks_pause_thread != nullptr) zerolab_alloc_hooks_pause_thread(-1);
  }
  ScopedPause(const ScopedPause&) = delete;
  ScopedPause& operator=(const ScopedPause&) = delete;
};

// Live-heap tracking (see hooks_abi.h); no-ops and zeros without the hooks.
inline void heap_tracking(bool on) noexcept {
  if (zerolab_alloc_hooks_heap_tracking != nullptr) zerolab_alloc_hooks_heap_tracking(on ? 1 : 0);
}
inline std::int64_t heap_growth() noexcept {
  return zerolab_alloc_hooks_heap_growth != nullptr ? zerolab_alloc_hooks_heap_growth() : 0;
}
inline std::int64_t heap_peak_growth() noexcept {
  return zerolab_alloc_hooks_heap_peak_growth != nullptr ? zerolab_alloc_hooks_heap_peak_growth()
                                                         : 0;
}

// Bytes in use now: the hooks' figure, or glibc's mallinfo2 without them.
inline std::uint64_t heap_in_use() noexcept {
  if (zerolab_alloc_hooks_heap_in_use != nullptr) return zerolab_alloc_hooks_heap_in_use();
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

// Installs the allocation sampler (null callbacks remove it). False when
// the hooks are missing or this build cannot sample (the sanitizer modes).
inline bool set_sampler(zerolab_alloc_sample_fn on_alloc, zerolab_free_sample_fn on_free,
                        std::uint64_t rate) noexcept {
  return zerolab_alloc_hooks_set_sampler != nullptr &&
         zerolab_alloc_hooks_set_sampler(on_alloc, on_free, rate) != 0;
}

// Turns sampling of allocations on or off; a no-op without the hooks.
inline void sampling(bool on) noexcept {
  if (zerolab_alloc_hooks_sampling != nullptr) zerolab_alloc_hooks_sampling(on ? 1 : 0);
}

}  // namespace zerolab::internal::alloc_stats

#endif  // ZEROLAB_SRC_ALLOC_HOOKS_ALLOC_STATS_HPP_
