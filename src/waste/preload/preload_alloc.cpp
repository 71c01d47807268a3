// zerolab::waste's malloc family: temporary allocations and oversized
// buffers. Every entry point forwards to glibc's exported __libc_* allocator
// (the same interposition as src/alloc_hooks, here as a preloaded library).
//
// Temporary allocations: a block freed before its thread allocates anything
// else, of a size class (bit length of the size) in which the thread frees
// such blocks at least twice. Each thread remembers its last allocation;
// free() of that pointer is a candidate. The first candidate of a size
// class is held back (its bytes kept); the second counts both, and every
// later one counts itself, exactly, in the thread's slot. So a long-lived
// buffer the program allocates once, works with for a while without
// allocating, and frees (a table built at start and freed at exit) is not
// a temporary: the advice, "reuse one buffer", is for blocks that repeat.
// This is not heaptrack's rule: heaptrack counts a block whose free is the
// very next allocation event of the process (no other malloc or free
// between, a realloc counting as both), with no repetition; here frees of
// other blocks may come between, other threads do not interfere, and a
// realloc is an allocation. The counts differ from heaptrack's. Call
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
// table unjudged (the program resized it) and the result back in; a
// realloc that fails puts the block back as it was.
//
// Hot path (malloc + free of a small temporary block), 35 instructions
// for the pair, the calls into glibc included: one TLS block whose
// `armed` slot pointer stands for every "may this thread count" check;
// at malloc three stores and one subtraction from a budget that stands
// for "neither sampled nor large" (ThreadState::alloc_budget: less than
// the bytes to the next sample, and at most kLargeBlock - 1, so a large
// block always exceeds it and takes the slow path); at free one compare with the
// last allocation, one bit test of its size class in
// ThreadState::fast_classes (which holds only classes already counting
// and below the large blocks', and which a sampled block's marked size
// never matches), and two adds to the thread's slot. A block that is not
// the last allocation costs one load of address_table.hpp's filter
// instead (large and sampled blocks are the only ones looked at again).
// Anything else (first event of a thread, a sample, a large or watched
// block, the first temporaries of a size class, a nested call from a slow
// path) leaves through a noinline function; these are tail calls (free's
// end in glibc's free, malloc's return the block), so neither keeps a
// stack frame of its own beyond malloc's one saved register. Sampled
// allocations also go to preload_frame.cpp (temporaries freed within the
// allocating function's frame).
//
// Example: under zerolab waste, `for (...) { std::string s(60, 'x'); }`
// counts one temporary allocation of 61 bytes per iteration.
#include <malloc.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>

#include "alloc_hooks/glibc_alloc.hpp"
#include "waste/preload/address_table.hpp"
#include "waste/preload/preload_math.hpp"
#include "waste/preload/preload_state.hpp"

namespace zerolab::waste {
namespace {

// ---- the live table of large blocks ----------------------------------------

struct LiveBlock {
  std::uintptr_t address;  // 0: empty
  std::uint64_t bytes;
  Site* site;
};
constinit AddressTable<LiveBlock, 16> g_live;  // 32768 blocks
SpinLock g_live_lock;

void live_insert(std::uintptr_t a, std::uint64_t bytes, Site* site) {
  g_live_lock.lock();
  LiveBlock* b = g_live.claim(a);
  if (b != nullptr) {
    b->bytes = bytes;
    b->site = site;
  }
  g_live_lock.unlock();
  if (b == nullptr) thread_totals(t_state).large_untracked.fetch_add(1, std::memory_order_relaxed);
}

// Removes `a`; returns false if it was not there.
bool live_remove(std::uintptr_t a, LiveBlock& out) {
  g_live_lock.lock();
  const bool found = g_live.remove(a, out);
  g_live_lock.unlock();
  return found;
}

// glibc's chunk header: the size word just before the block (low 3 bits flags).
std::size_t chunk_bytes(const void* p) {
  return reinterpret_cast<const std::size_t*>(p)[-1] & ~static_cast<std::size_t>(7);
}

// ThreadState::last_alloc once the block is freed: no allocation's address.
void* const kNoBlock = reinterpret_cast<void*>(std::uintptr_t{1});

// ---- slow paths --------------------------------------------------------------

// An allocation over the fast path's budget: sampled if it reaches the
// countdown, tracked if large. Returns p (malloc's tail call).
__attribute__((noinline)) void* alloc_slow(ThreadState& t, void* p, std::size_t n) {
  InHook guard(t);
  if (!t.countdowns_set) {  // the thread's first allocation: draw, then judge it like any other
    set_countdowns(t);
    t.alloc_budget -= n;
  }
  // The countdown with this allocation subtracted (by count_alloc).
  std::int64_t left = alloc_countdown_left(t);
  if (left <= 0) {
    const double rate = static_cast<double>(g_sample_rate);
    t.last_size = kSampledSize;
    t.sampled_size = n;
    t.last_weight = g_sample_rate <= 1 ? 1.0 : 1.0 / -expm1_neg(-static_cast<double>(n) / rate);
    std::uint64_t cfas[kMaxFrames];
    t.last_depth = capture_stack(t.last_pcs, kMaxFrames, cfas);
    left = draw_countdown(t, g_sample_rate);
    frame_note_sampled(t, p, n, t.last_weight, t.last_pcs, cfas, t.last_depth);
  }
  if (n >= kLargeBlock) {
    std::uint64_t pcs[kMaxFrames];
    const int depth = capture_stack(pcs, kMaxFrames);
    live_insert(reinterpret_cast<std::uintptr_t>(p), n,
                find_or_add_site(Kind::kOversizedBuffers, pcs, depth));
  }
  set_alloc_countdown(t, left);
  return p;
}

void add_to_site(Site* s, std::uint64_t calls, std::uint64_t bytes) {
  s->calls.fetch_add(calls, std::memory_order_relaxed);
  s->bytes.fetch_add(bytes, std::memory_order_relaxed);
  s->extra.fetch_add(1, std::memory_order_relaxed);  // samples behind the weighted counts
}

// A sampled temporary of `size` bytes: its site gets the sample's weight,
// now or (`held`, the first of its size class) when a second one confirms it.
__attribute__((noinline)) void temporary_sampled(ThreadState& t, std::uint64_t size, bool held) {
  InHook guard(t);
  Site* s = find_or_add_site(Kind::kTemporaryAllocations, t.last_pcs, t.last_depth);
  const auto calls = static_cast<std::uint64_t>(round_half_away(t.last_weight));
  const auto bytes =
      static_cast<std::uint64_t>(round_half_away(t.last_weight * static_cast<double>(size)));
  if (held) {
    const int c = size_class(size);
    t.temp_pending_site[c] = s;
    t.temp_pending_site_calls[c] = calls;
    t.temp_pending_site_bytes[c] = bytes;
    return;
  }
  if (s != nullptr) add_to_site(s, calls, bytes);
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
  Totals& totals = thread_totals(t);
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

// Takes a block that realloc is about to resize out of the live table
// into `taken` (address 0 if it was not there).
__attribute__((noinline)) void forget_large(ThreadState& t, void* p, LiveBlock& taken) {
  InHook guard(t);
  if (!live_remove(reinterpret_cast<std::uintptr_t>(p), taken)) taken.address = 0;
}

// A realloc that failed left its block where it was: it goes back into the
// live table, to be judged at its free.
__attribute__((noinline)) void restore_large(ThreadState& t, const LiveBlock& taken) {
  InHook guard(t);
  live_insert(taken.address, taken.bytes, taken.site);
}

// ---- the per-call bookkeeping --------------------------------------------------

// One allocation of a thread that may count. Returns p.
inline void* count_alloc(ThreadState& t, void* p, std::size_t n) {
  ++t.events;
  t.last_alloc = p;
  t.last_size = n;  // alloc_slow marks it kSampledSize if it samples the block
  // One subtraction stands for "not sampled, not large" (alloc_budget).
  std::uint64_t budget;
  const bool over = __builtin_sub_overflow(t.alloc_budget, n, &budget);
  t.alloc_budget = budget;
  if (__builtin_expect(over, 0)) return alloc_slow(t, p, n);
  return p;
}

// A block in one of the address tables is freed (`taken` null), or
// resized (a large block's entry is moved into *taken).
__attribute__((noinline)) void free_watched(ThreadState& t, void* p, LiveBlock* taken) {
  const bool resized = taken != nullptr;
  frame_note_free(t, p, resized);
  if (chunk_bytes(p) < kLargeBlock) return;
  if (resized) {
    forget_large(t, p, *taken);
  } else {
    free_large(t, p);
  }
}

// The first candidate of its size class is held back (true); the second
// confirms it (false): the caller counts both, and the first's sample, if
// it was sampled, goes to its site now.
__attribute__((noinline)) bool hold_back_first(ThreadState& t, int c, std::uint64_t size,
                                               bool sampled) {
  if (t.temp_seen[c] == 0) {
    t.temp_seen[c] = 1;
    t.temp_pending[c] = size;
    t.temp_pending_site[c] = nullptr;
    if (sampled) temporary_sampled(t, size, true);
    return true;
  }
  if (Site* first = t.temp_pending_site[c]) {
    add_to_site(first, t.temp_pending_site_calls[c], t.temp_pending_site_bytes[c]);
    t.temp_pending_site[c] = nullptr;
  }
  return false;
}

// Adds v to a counter of the thread's own slot: only this thread writes
// it, so an add without lock keeps it exact. On x86-64 one add to memory
// (an aligned 8-byte store, so a reader never sees half of it; the
// compiler does not fold an atomic load and store into one instruction).
inline void add_own(std::atomic<std::uint64_t>& counter, std::uint64_t v) {
#if defined(__x86_64__)
  static_assert(sizeof counter == sizeof(std::uint64_t));
  asm("addq %1, %0" : "+m"(*reinterpret_cast<std::uint64_t*>(&counter)) : "er"(v));
#else
  counter.store(counter.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
#endif
}

// Temporaries counted into the thread's own slot.
inline void add_to_own_slot(ThreadSlot& slot, std::uint64_t calls, std::uint64_t bytes) {
  add_own(slot.temp_calls, calls);
  add_own(slot.temp_bytes, bytes);
}

// A block free() is the thread's last allocation (not marked sampled)
// and its size class counts every temporary and holds no large blocks:
// free's fast path counts it (one bsr and one bit test).
inline bool fast_temporary(const ThreadState& t, std::uint64_t size) {
  return ((t.fast_classes >> class_bit(size)) & 1) != 0;
}

// A free of the thread's last allocation: a temporary if its size class
// repeats, counted in the thread's slot (`owned`: its own, else the shared
// slot 0) with the class's held-back first block.
inline void count_temporary(ThreadState& t, ThreadSlot& slot, bool owned) {
  t.last_alloc = kNoBlock;
  const bool sampled = t.last_size == kSampledSize;
  const std::uint64_t size = sampled ? t.sampled_size : t.last_size;
  const int c = size_class(size);
  std::uint64_t calls = 1;
  std::uint64_t bytes = size;
  if (__builtin_expect(t.temp_seen[c] != 2, 0)) {
    if (hold_back_first(t, c, size, sampled)) return;
    t.temp_seen[c] = 2;
    if (c < kLargeClass) t.fast_classes |= std::uint64_t{1} << class_bit(size);
    calls = 2;
    bytes += t.temp_pending[c];
  }
  if (owned) {
    add_to_own_slot(slot, calls, bytes);
  } else {
    slot_add(t, slot.temp_calls, calls);
    slot_add(t, slot.temp_bytes, bytes);
  }
  if (__builtin_expect(sampled, 0)) temporary_sampled(t, size, false);
}

// The hot path's way out when the thread is not armed: first event of the
// thread, inside a slow path, record not live, or the shared slot.
__attribute__((noinline)) void* alloc_unarmed(ThreadState& t, void* p, std::size_t n) {
  if (t.in_hook != 0 || !g_active.load(std::memory_order_relaxed)) return p;
  arm(t);
  return count_alloc(t, p, n);
}

__attribute__((noinline)) void free_unarmed(ThreadState& t, void* p, LiveBlock* taken) {
  if (t.in_hook != 0 || !g_active.load(std::memory_order_relaxed)) return;
  arm(t);
  ++t.events;
  if (p == t.last_alloc && taken == nullptr) count_temporary(t, thread_slot(t), false);
  if (maybe_watched(p)) free_watched(t, p, taken);
}

// Returns p: malloc's slow paths are tail calls that return it, so malloc
// keeps nothing across them.
inline void* note_alloc(void* p, std::size_t n) {
  ThreadState& t = t_state;
  if (__builtin_expect(t.armed != nullptr, 1)) return count_alloc(t, p, n);
  return alloc_unarmed(t, p, n);
}

// free()'s ways out of its fast path, each ending in glibc's free (a tail
// call from free(), so its fast path keeps no registers of its own).
__attribute__((noinline)) void free_unarmed_then_libc(ThreadState& t, void* p) {
  if (p == nullptr) return;
  free_unarmed(t, p, nullptr);
  __libc_free(p);
}
__attribute__((noinline)) void free_watched_then_libc(ThreadState& t, void* p) {
  free_watched(t, p, nullptr);
  __libc_free(p);
}
// A free of the thread's last allocation that is not the common case
// (first of its size class, a sampled or large block; or free(nullptr)
// before the thread's first allocation), then the rest of free.
__attribute__((noinline)) void free_temporary_then_libc(ThreadState& t, ThreadSlot& slot, void* p) {
  if (p == nullptr) return;
  ++t.events;
  count_temporary(t, slot, true);
  if (maybe_watched(p)) free_watched(t, p, nullptr);
  __libc_free(p);
}

// Before realloc resizes the block (it is not judged): a large block's
// live-table entry is moved into `taken` (address 0 if none).
inline void note_resize(void* p, LiveBlock& taken) {
  ThreadState& t = t_state;
  taken.address = 0;
  if (t.armed == nullptr) {
    free_unarmed(t, p, &taken);
  } else if (maybe_watched(p)) {
    free_watched(t, p, &taken);
  }
}

// After a realloc that failed: the block is still the program's.
inline void note_failed_resize(const LiveBlock& taken) {
  if (taken.address != 0) restore_large(t_state, taken);
}

}  // namespace

std::atomic<std::uint16_t> g_watch_filter[kWatchFilter];
std::atomic<std::size_t> g_watched{0};

void alloc_fork_prepare() {
  g_live_lock.lock();
}
void alloc_fork_parent() {
  g_live_lock.unlock();
}
void alloc_fork_child() {
  g_live_lock.reset();
}

}  // namespace zerolab::waste

namespace glibc = zerolab::glibc_alloc;
using zerolab::waste::note_alloc;

ZEROLAB_WASTE_EXPORT void* malloc(size_t n) noexcept {
  void* p = __libc_malloc(n);
  if (__builtin_expect(p == nullptr, 0)) return p;
  return note_alloc(p, n);
}

// The fast path is count_temporary's common case spelled out (a size class
// already counting, neither sampled nor large): free of a temporary is 18
// instructions and no stack frame. free(nullptr) never matches last_alloc
// once the thread has allocated (kNoBlock), so its test is off that path.
ZEROLAB_WASTE_EXPORT void free(void* p) noexcept {
  namespace w = zerolab::waste;
  w::ThreadState& t = w::t_state;
  w::ThreadSlot* slot = t.armed;
  if (__builtin_expect(slot == nullptr, 0)) return w::free_unarmed_then_libc(t, p);
  if (p == t.last_alloc) {
    // Neither large nor sampled, so in no address table: nothing else to look at.
    const std::uint64_t bytes = t.last_size;
    if (__builtin_expect(!w::fast_temporary(t, bytes), 0)) {
      return w::free_temporary_then_libc(t, *slot, p);
    }
    ++t.events;
    t.last_alloc = w::kNoBlock;
    w::add_to_own_slot(*slot, 1, bytes);
    return __libc_free(p);
  }
  if (p == nullptr) return;
  ++t.events;
  if (__builtin_expect(w::maybe_watched(p), 0)) return w::free_watched_then_libc(t, p);
  __libc_free(p);
}

ZEROLAB_WASTE_EXPORT void* calloc(size_t count, size_t size) noexcept {
  void* p = __libc_calloc(count, size);
  if (p != nullptr) {
    note_alloc(p, count * size);
    // Zero fills over it are known redundant until the thread's next
    // allocation or free (preload_zero.cpp).
    zerolab::waste::ThreadState& t = zerolab::waste::t_state;
    t.calloc_block = p;
    t.calloc_bytes = count * size;
    t.calloc_events = t.events;
  }
  return p;
}

ZEROLAB_WASTE_EXPORT void* realloc(void* p, size_t n) noexcept {
  if (p == nullptr) return malloc(n);
  if (n == 0) {
    free(p);
    return nullptr;
  }
  zerolab::waste::LiveBlock taken;
  zerolab::waste::note_resize(p, taken);
  void* q = __libc_realloc(p, n);
  if (q != nullptr) {
    note_alloc(q, n);
  } else {
    const int saved = errno;  // ENOMEM, for the program
    zerolab::waste::note_failed_resize(taken);
    errno = saved;
  }
  return q;
}

ZEROLAB_WASTE_EXPORT void* reallocarray(void* p, size_t count, size_t size) noexcept {
  return glibc::reallocarray_via(p, count, size, &realloc);
}

ZEROLAB_WASTE_EXPORT void* memalign(size_t alignment, size_t n) noexcept {
  void* p = __libc_memalign(alignment, n);
  if (p != nullptr) note_alloc(p, n);
  return p;
}

ZEROLAB_WASTE_EXPORT void* aligned_alloc(size_t alignment, size_t n) noexcept {
  return glibc::aligned_alloc_via(alignment, n, &memalign);
}

ZEROLAB_WASTE_EXPORT int posix_memalign(void** out, size_t alignment, size_t n) noexcept {
  return glibc::posix_memalign_via(out, alignment, n, &memalign);
}

ZEROLAB_WASTE_EXPORT void* valloc(size_t n) noexcept {
  void* p = __libc_valloc(n);
  if (p != nullptr) note_alloc(p, n);
  return p;
}

ZEROLAB_WASTE_EXPORT void* pvalloc(size_t n) noexcept {
  void* p = __libc_pvalloc(n);
  if (p != nullptr) note_alloc(p, glibc::pvalloc_bytes(n, zerolab::waste::kPageBytes));
  return p;
}
