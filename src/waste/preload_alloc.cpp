// zerolab::waste's malloc family: temporary allocations and oversized
// buffers. Every entry point forwards to glibc's exported __libc_* allocator
// (the same interposition as src/alloc_hooks, here as a preloaded library).
//
// Temporary allocations (heaptrack's definition): a block freed before its
// thread allocates anything else. Each thread remembers its last allocation;
// free() of that pointer counts one, exactly, in the thread's slot. Call
// sites are sampled: one allocation per ~--sample-rate requested bytes
// (Go's MemProfileRate countdown) keeps its stack, and if it turns out
// temporary its site gets the sample's weight 1/(1-exp(-size/rate)) (1 at
// rate 1, where every allocation is sampled and the sites are exact).
//
// Oversized buffers: blocks of kLargeBlock (16 KiB) or more are kept in a
// live table (address, requested size, allocation site). At free, pagemap
// says which of the block's pages were ever touched; a block with fewer
// than half its bytes on touched pages is oversized. Counted exactly, with
// the allocation site of every block. realloc moves a block out of the
// table unjudged (the program resized it) and the result back in.
//
// Hot path (malloc + free of a small block): one TLS block, two compares, a
// countdown subtraction and two slot stores; free reads one counter of
// preload_frame.cpp's filter, and glibc's chunk size word only while a
// large block is live. Sampled allocations also go to preload_frame.cpp
// (temporaries freed within the allocating function's frame).
//
// Example: under zerolab waste, `for (...) { std::string s(60, 'x'); }`
// counts one temporary allocation of 61 bytes per iteration.
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>

#include <cmath>
#include <cstring>

#include "waste/preload_state.hpp"

// noplt (GCC): call glibc through the GOT, one jump fewer on the hot path.
#if defined(__has_attribute) && __has_attribute(noplt)
#define ZEROLAB_WASTE_NOPLT __attribute__((noplt))
#else
#define ZEROLAB_WASTE_NOPLT
#endif
extern "C" {
ZEROLAB_WASTE_NOPLT void* __libc_malloc(size_t n) noexcept;
ZEROLAB_WASTE_NOPLT void* __libc_calloc(size_t count, size_t size) noexcept;
ZEROLAB_WASTE_NOPLT void* __libc_realloc(void* p, size_t n) noexcept;
ZEROLAB_WASTE_NOPLT void __libc_free(void* p) noexcept;
ZEROLAB_WASTE_NOPLT void* __libc_memalign(size_t alignment, size_t n) noexcept;
ZEROLAB_WASTE_NOPLT void* __libc_valloc(size_t n) noexcept;
ZEROLAB_WASTE_NOPLT void* __libc_pvalloc(size_t n) noexcept;
}

namespace zerolab::waste {
namespace {

// ---- the live table of large blocks ----------------------------------------

constexpr std::size_t kLiveCapacity = 1 << 16;  // power of two
struct LiveBlock {
  std::uintptr_t address;  // 0: empty
  std::uint64_t bytes;
  Site* site;
};
LiveBlock g_live[kLiveCapacity];
std::size_t g_live_count = 0;
std::atomic<std::size_t> g_live_nonempty{0};  // g_live_count, readable without the lock
SpinLock g_live_lock;

std::size_t live_slot(std::uintptr_t a) { return (a >> 4) * 0x9e3779b97f4a7c15ULL >> 48; }

void live_insert(std::uintptr_t a, std::uint64_t bytes, Site* site) {
  g_live_lock.lock();
  if (g_live_count + 1 >= kLiveCapacity / 2) {
    g_live_lock.unlock();
    g_record->totals.large_untracked.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::size_t i = live_slot(a);
  while (g_live[i].address != 0 && g_live[i].address != a) i = (i + 1) & (kLiveCapacity - 1);
  if (g_live[i].address == 0) ++g_live_count;
  g_live[i] = LiveBlock{a, bytes, site};
  g_live_nonempty.store(g_live_count, std::memory_order_relaxed);
  g_live_lock.unlock();
}

// Removes `a`; returns false if it was not there.
bool live_remove(std::uintptr_t a, LiveBlock& out) {
  g_live_lock.lock();
  std::size_t i = live_slot(a);
  while (g_live[i].address != 0 && g_live[i].address != a) i = (i + 1) & (kLiveCapacity - 1);
  if (g_live[i].address == 0) {
    g_live_lock.unlock();
    return false;
  }
  out = g_live[i];
  // Backward-shift deletion keeps every probe chain intact.
  std::size_t hole = i;
  for (std::size_t j = (i + 1) & (kLiveCapacity - 1); g_live[j].address != 0;
       j = (j + 1) & (kLiveCapacity - 1)) {
    const std::size_t home = live_slot(g_live[j].address);
    const bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      g_live[hole] = g_live[j];
      hole = j;
    }
  }
  g_live[hole].address = 0;
  --g_live_count;
  g_live_nonempty.store(g_live_count, std::memory_order_relaxed);
  g_live_lock.unlock();
  return true;
}

// glibc's chunk header: the size word just before the block (low 3 bits flags).
std::size_t chunk_bytes(const void* p) {
  return reinterpret_cast<const std::size_t*>(p)[-1] & ~static_cast<std::size_t>(7);
}

// ---- slow paths --------------------------------------------------------------

__attribute__((noinline)) void alloc_slow(ThreadState& t, void* p, std::size_t n) {
  InHook guard(t);
  if (!t.countdowns_set) {  // the thread's first allocation: draw, then judge it like any other
    set_countdowns(t);
    t.alloc_countdown -= static_cast<std::int64_t>(n);
  }
  if (t.alloc_countdown <= 0) {
    const double rate = static_cast<double>(g_sample_rate);
    t.last_weight = g_sample_rate <= 1 ? 1.0 : 1.0 / (1.0 - std::exp(-static_cast<double>(n) / rate));
    std::uint64_t cfas[kMaxFrames];
    t.last_depth = capture_stack(t.last_pcs, kMaxFrames, cfas);
    t.alloc_countdown = draw_countdown(t, g_sample_rate);
    frame_note_sampled(t, p, n, t.last_weight, t.last_pcs, cfas, t.last_depth);
  }
  if (n >= kLargeBlock) {
    std::uint64_t pcs[kMaxFrames];
    const int depth = capture_stack(pcs, kMaxFrames);
    live_insert(reinterpret_cast<std::uintptr_t>(p), n,
                find_or_add_site(Kind::kOversizedBuffers, pcs, depth));
  }
}

__attribute__((noinline)) void temporary_sampled(ThreadState& t) {
  InHook guard(t);
  Site* s = find_or_add_site(Kind::kTemporaryAllocations, t.last_pcs, t.last_depth);
  if (s == nullptr) return;
  s->calls.fetch_add(static_cast<std::uint64_t>(std::llround(t.last_weight)), std::memory_order_relaxed);
  s->bytes.fetch_add(
      static_cast<std::uint64_t>(std::llround(t.last_weight * static_cast<double>(t.last_size))),
      std::memory_order_relaxed);
}

// Judges a large block at free: how many of its bytes lie on touched pages.
__attribute__((noinline)) void free_large(ThreadState& t, void* p) {
  InHook guard(t);
  LiveBlock b{};
  if (!live_remove(reinterpret_cast<std::uintptr_t>(p), b)) return;
  const std::uintptr_t begin = b.address;
  const std::uintptr_t end = b.address + b.bytes;
  std::uint64_t touched = 0;
  bool present[256];
  for (std::uintptr_t page = begin / kPageBytes; page * kPageBytes < end;) {
    const std::size_t left = (end - 1) / kPageBytes - page + 1;
    const std::size_t n = left < 256 ? left : 256;
    if (!pages_touched(page, n, present)) return;
    for (std::size_t i = 0; i < n; ++i) {
      if (!present[i]) continue;
      const std::uintptr_t lo = (page + i) * kPageBytes;
      const std::uintptr_t hi = lo + kPageBytes;
      touched += (hi < end ? hi : end) - (lo > begin ? lo : begin);
    }
    page += n;
  }
  Totals& totals = g_record->totals;
  totals.large_blocks.fetch_add(1, std::memory_order_relaxed);
  if (touched * 2 >= b.bytes) return;
  totals.over_calls.fetch_add(1, std::memory_order_relaxed);
  totals.over_bytes.fetch_add(b.bytes, std::memory_order_relaxed);
  totals.over_touched.fetch_add(touched, std::memory_order_relaxed);
  if (b.site != nullptr) {
    b.site->calls.fetch_add(1, std::memory_order_relaxed);
    b.site->bytes.fetch_add(b.bytes, std::memory_order_relaxed);
    b.site->extra.fetch_add(touched, std::memory_order_relaxed);
  }
}

__attribute__((noinline)) void forget_large(ThreadState& t, void* p) {
  InHook guard(t);
  LiveBlock b{};
  live_remove(reinterpret_cast<std::uintptr_t>(p), b);
}

// ---- the per-call bookkeeping --------------------------------------------------

inline void note_alloc(void* p, std::size_t n) {
  ThreadState& t = t_state;
  if (t.in_hook != 0 || !g_active.load(std::memory_order_relaxed)) return;
  t.last_alloc = p;
  t.last_size = n;
  t.last_weight = 0;
  t.alloc_countdown -= static_cast<std::int64_t>(n);
  if (__builtin_expect(t.alloc_countdown <= 0 || n >= kLargeBlock, 0)) alloc_slow(t, p, n);
}

// Before the block goes back to glibc (or is resized: `resized`).
inline void note_free(void* p, bool resized) {
  ThreadState& t = t_state;
  if (t.in_hook != 0 || !g_active.load(std::memory_order_relaxed)) return;
  if (p == t.last_alloc && !resized) {
    ThreadSlot& slot = t.slot != nullptr ? *t.slot : thread_slot(t);
    slot_add(t, slot.temp_calls, 1);
    slot_add(t, slot.temp_bytes, t.last_size);
    if (t.last_weight > 0) temporary_sampled(t);
    t.last_alloc = nullptr;
  }
  if (__builtin_expect(frame_maybe_tracked(p), 0)) frame_note_free(t, p, resized);
  if (g_live_nonempty.load(std::memory_order_relaxed) != 0 && chunk_bytes(p) >= kLargeBlock) {
    if (resized) {
      forget_large(t, p);
    } else {
      free_large(t, p);
    }
  }
}

std::size_t pvalloc_bytes(std::size_t n) {
  const std::size_t rounded = (n + kPageBytes - 1) / kPageBytes * kPageBytes;
  return rounded == 0 ? kPageBytes : rounded;
}

bool power_of_two(std::size_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

void alloc_fork_prepare() { g_live_lock.lock(); }
void alloc_fork_parent() { g_live_lock.unlock(); }
void alloc_fork_child() { g_live_lock.reset(); }

}  // namespace zerolab::waste

using zerolab::waste::note_alloc;
using zerolab::waste::note_free;

ZEROLAB_WASTE_EXPORT void* malloc(size_t n) noexcept {
  void* p = __libc_malloc(n);
  if (p != nullptr) note_alloc(p, n);
  return p;
}

ZEROLAB_WASTE_EXPORT void free(void* p) noexcept {
  if (p == nullptr) return;
  note_free(p, false);
  __libc_free(p);
}

ZEROLAB_WASTE_EXPORT void* calloc(size_t count, size_t size) noexcept {
  void* p = __libc_calloc(count, size);
  if (p != nullptr) note_alloc(p, count * size);
  return p;
}

ZEROLAB_WASTE_EXPORT void* realloc(void* p, size_t n) noexcept {
  if (p == nullptr) return malloc(n);
  if (n == 0) {
    free(p);
    return nullptr;
  }
  note_free(p, true);
  void* q = __libc_realloc(p, n);
  if (q != nullptr) note_alloc(q, n);
  return q;
}

ZEROLAB_WASTE_EXPORT void* reallocarray(void* p, size_t count, size_t size) noexcept {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, bytes);
}

ZEROLAB_WASTE_EXPORT void* memalign(size_t alignment, size_t n) noexcept {
  void* p = __libc_memalign(alignment, n);
  if (p != nullptr) note_alloc(p, n);
  return p;
}

ZEROLAB_WASTE_EXPORT void* aligned_alloc(size_t alignment, size_t n) noexcept {
  if (!zerolab::waste::power_of_two(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  return memalign(alignment, n);
}

ZEROLAB_WASTE_EXPORT int posix_memalign(void** out, size_t alignment, size_t n) noexcept {
  if (alignment % sizeof(void*) != 0 || !zerolab::waste::power_of_two(alignment)) return EINVAL;
  const int saved_errno = errno;
  void* p = __libc_memalign(alignment, n);
  if (p == nullptr) {
    errno = saved_errno;
    return ENOMEM;
  }
  note_alloc(p, n);
  *out = p;
  return 0;
}

ZEROLAB_WASTE_EXPORT void* valloc(size_t n) noexcept {
  void* p = __libc_valloc(n);
  if (p != nullptr) note_alloc(p, n);
  return p;
}

ZEROLAB_WASTE_EXPORT void* pvalloc(size_t n) noexcept {
  void* p = __libc_pvalloc(n);
  if (p != nullptr) note_alloc(p, zerolab::waste::pvalloc_bytes(n));
  return p;
}
