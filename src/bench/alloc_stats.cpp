// Weak bridge from the harness to zerolab::alloc_hooks (alloc_stats.hpp).
#include "bench/alloc_stats.hpp"

#include <malloc.h>

#include "alloc_hooks/hooks_abi.h"

extern "C" {
__attribute__((weak)) void zerolab_alloc_hooks_anchor(void);
__attribute__((weak)) const char* zerolab_alloc_hooks_mode(void);
__attribute__((weak)) void zerolab_alloc_hooks_totals(struct zerolab_alloc_totals* out);
__attribute__((weak)) void zerolab_alloc_hooks_pause_thread(int delta);
__attribute__((weak)) void zerolab_alloc_hooks_heap_tracking(int on);
__attribute__((weak)) int64_t zerolab_alloc_hooks_heap_peak_growth(void);
__attribute__((weak)) uint64_t zerolab_alloc_hooks_heap_in_use(void);
}

namespace zerolab::internal::alloc_stats {

bool available() noexcept { return zerolab_alloc_hooks_totals != nullptr; }

const char* mode() noexcept {
  return zerolab_alloc_hooks_mode != nullptr ? zerolab_alloc_hooks_mode() : "none";
}

Totals totals() noexcept {
  if (zerolab_alloc_hooks_totals == nullptr) return {};
  zerolab_alloc_totals t{};
  zerolab_alloc_hooks_totals(&t);
  return Totals{t.allocs, t.bytes};
}

ScopedPause::ScopedPause() noexcept {
  if (zerolab_alloc_hooks_pause_thread != nullptr) zerolab_alloc_hooks_pause_thread(1);
}

ScopedPause::~ScopedPause() {
  if (zerolab_alloc_hooks_pause_thread != nullptr) zerolab_alloc_hooks_pause_thread(-1);
}

void heap_tracking(bool on) noexcept {
  if (zerolab_alloc_hooks_heap_tracking != nullptr) zerolab_alloc_hooks_heap_tracking(on ? 1 : 0);
}

std::int64_t heap_peak_growth() noexcept {
  return zerolab_alloc_hooks_heap_peak_growth != nullptr ? zerolab_alloc_hooks_heap_peak_growth()
                                                         : 0;
}

std::uint64_t heap_in_use() noexcept {
  if (zerolab_alloc_hooks_heap_in_use != nullptr) return zerolab_alloc_hooks_heap_in_use();
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

}  // namespace zerolab::internal::alloc_stats
