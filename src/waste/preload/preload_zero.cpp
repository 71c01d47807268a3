// zerolab::waste's memset, bzero and __memset_chk: zeroing fresh pages and
// zeroing zeros. Only zero fills are looked at (memset fills with its value
// as an unsigned char, so 0x100 is a zero fill too); memset with any other
// value goes straight to glibc.
//
// Zeroed fresh pages (exact): a zero fill of at least one page (4 KiB) asks
// /proc/self/pagemap, before the fill runs, which of the pages it overlaps
// are neither present nor swapped, i.e. still the kernel's zero page. If any
// are, and the range lies in an anonymous private mapping (/proc/self/maps,
// cached), the bytes on those pages were zeroed for nothing: the kernel
// zeroes a page at its first touch anyway. A page only read before counts
// as touched (pagemap cannot tell the shared zero page from a real one
// without privileges). Smaller fills are not asked about.
//
// Zeroed zeros (sampled): every other zero-filled byte is part of the
// population; a per-thread countdown (exponential, mean --check-rate bytes,
// Go's sampling) picks bytes, and a sampled byte is a hit if its 64-byte
// line (clipped to the fill) already reads as zero. At --check-rate 1 every
// line is checked, so the count is exact. The CLI scales hits by
// population/samples for bytes; calls are estimated by weighting each call
// with a zero sample by 1/P(sampled), since a byte countdown samples a call
// in proportion to its size (scaling by all calls / sampled calls
// overstated `zerolab compare`'s small memsets 6.6x).
//
// Whether dropping such a memset is safe is a different question: only an
// allocator that guarantees zeroed memory makes it so, and only if every
// call of that memset is over such memory. A fill is over known-zero
// memory (its ZeroSource, record_format.hpp) when it lies inside the block
// calloc just returned to the thread (no allocation or free since) or
// inside the span zerolab::PageHeap last handed the thread zeroed
// (zerolab_waste_page_heap_span below), and every byte of it still reads
// as zero (a fresh page does). Such a hit's site has Site::dst = its
// source; every other hit is zero by coincidence as far as anything can
// tell (a recycled block that happens to be zero, an allocator's own arena:
// sqlite's, CPython's), dst = 0. And every zero fill that is not over
// known-zero memory, hit or not, puts its return address (the memset call
// in the program) in Record::zero_unsafe_callers, so a memset call that is
// sometimes after calloc and sometimes not is never called safe: the CLI
// takes a site's dst as is only if its call is not in that table. A thread
// remembers the last 16 such addresses it added, so a repeated call costs
// one compare.
//
// Example: under zerolab waste, `char* p = mmap(1 MiB); memset(p, 0, 1 MiB);`
// counts one call, 1048576 bytes and 256 pages of zeroed fresh pages.
#include <dlfcn.h>

#include <atomic>
#include <cstring>

#include "waste/preload/preload_math.hpp"
#include "waste/preload/preload_state.hpp"

namespace zerolab::waste {
namespace {

using MemsetFn = void* (*)(void*, int, std::size_t);
using MemsetChkFn = void* (*)(void*, int, std::size_t, std::size_t);

// Until the constructor has found glibc's memset (calls made by other
// libraries' constructors that run first): rep stosb.
void* fallback_memset(void* p, int c, std::size_t n) {
  void* d = p;
  asm volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
  return p;
}

MemsetFn g_memset = &fallback_memset;
MemsetChkFn g_memset_chk = nullptr;

__attribute__((constructor(101))) void find_glibc_memset() {
  if (void* f = dlsym(RTLD_NEXT, "memset")) g_memset = reinterpret_cast<MemsetFn>(f);
  g_memset_chk = reinterpret_cast<MemsetChkFn>(dlsym(RTLD_NEXT, "__memset_chk"));
}

struct ZeroCheck {
  std::uint64_t samples = 0;
  std::uint64_t hits = 0;
};

bool line_is_zero(std::uintptr_t begin, std::uintptr_t end) {
  const auto* p = reinterpret_cast<const unsigned char*>(begin);
  const std::size_t n = end - begin;
  if (n == 64 && (begin & 7) == 0) {
    const auto* w = reinterpret_cast<const std::uint64_t*>(begin);
    std::uint64_t acc = 0;
    for (int i = 0; i < 8; ++i) acc |= w[i];
    return acc == 0;
  }
  unsigned char acc = 0;
  for (std::size_t i = 0; i < n; ++i) acc = static_cast<unsigned char>(acc | p[i]);
  return acc == 0;
}

// The 64-byte line holding `at`, clipped to [begin, end).
bool line_zero_at(std::uintptr_t at, std::uintptr_t begin, std::uintptr_t end) {
  const std::uintptr_t lo = at & ~static_cast<std::uintptr_t>(63);
  const std::uintptr_t hi = lo + 64;
  return line_is_zero(lo > begin ? lo : begin, hi < end ? hi : end);
}

// Runs the thread's countdown over [begin, end).
void check_segment(ThreadState& t, std::uintptr_t begin, std::uintptr_t end, ZeroCheck& c) {
  if (g_check_rate <= 1) {  // every line, exactly
    for (std::uintptr_t lo = begin; lo < end;) {
      std::uintptr_t hi = (lo & ~static_cast<std::uintptr_t>(63)) + 64;
      if (hi > end) hi = end;
      c.samples += hi - lo;
      if (line_is_zero(lo, hi)) c.hits += hi - lo;
      lo = hi;
    }
    return;
  }
  std::uintptr_t at = begin;
  while (end - at >= static_cast<std::uint64_t>(t.zero_countdown)) {
    at += static_cast<std::uint64_t>(t.zero_countdown);
    ++c.samples;
    if (line_zero_at(at - 1, begin, end)) ++c.hits;
    t.zero_countdown = draw_countdown(t, g_check_rate);
  }
  t.zero_countdown -= static_cast<std::int64_t>(end - at);
}

bool inside(const void* block, std::uint64_t bytes, const void* p, std::size_t n) {
  const auto lo = reinterpret_cast<std::uintptr_t>(block);
  const auto b = reinterpret_cast<std::uintptr_t>(p);
  return lo != 0 && b >= lo && b - lo <= bytes && n <= bytes - (b - lo);
}

// Which allocator handed out [p, p + n) zeroed, if one did: the block
// calloc returned to this thread with no allocation or free since (so it
// was not freed and handed out again), or the span PageHeap last handed
// this thread zeroed. Whether the bytes are still zero is the caller's.
ZeroSource zero_source(const ThreadState& t, const void* p, std::size_t n) {
  if (t.events == t.calloc_events && inside(t.calloc_block, t.calloc_bytes, p, n)) {
    return ZeroSource::kCalloc;
  }
  if (inside(t.heap_span, t.heap_bytes, p, n)) return ZeroSource::kPageHeap;
  return ZeroSource::kNone;
}

// True if every byte of [begin, end) reads as zero.
bool range_is_zero(std::uintptr_t begin, std::uintptr_t end) {
  for (std::uintptr_t lo = begin; lo < end;) {
    std::uintptr_t hi = (lo & ~static_cast<std::uintptr_t>(63)) + 64;
    if (hi > end) hi = end;
    if (!line_is_zero(lo, hi)) return false;
    lo = hi;
  }
  return true;
}

// A zero fill called from `caller` that was not over known-zero memory:
// the caller goes into the record's table (once per thread, mostly).
void note_unsafe_caller(ThreadState& t, std::uint64_t caller) {
  std::uint64_t& cached = t.unsafe_callers[(caller >> 2) & 15];
  if (cached == caller) return;
  cached = caller;
  Record* r = g_record;
  if (r == nullptr || caller == 0) return;
  std::uint64_t i = (caller * 0x9e3779b97f4a7c15ULL) >> 51;  // 13 bits: kZeroCallers
  for (std::uint32_t probes = 0; probes < kZeroCallers; ++probes, i = (i + 1) % kZeroCallers) {
    std::uint64_t seen = r->zero_unsafe_callers[i].load(std::memory_order_relaxed);
    if (seen == caller) return;
    if (seen == 0 && r->zero_unsafe_callers[i].compare_exchange_strong(seen, caller,
                                                                       std::memory_order_relaxed)) {
      return;
    }
    if (seen == caller) return;
  }
  r->zero_unsafe_full.store(1, std::memory_order_relaxed);
}
static_assert(kZeroCallers == 8192);

// A zero fill under a page: over known-zero memory, or its caller is unsafe.
// Returns the fill's ZeroSource (kNone: not known zero).
ZeroSource judge_small_fill(ThreadState& t, const void* p, std::size_t n, std::uint64_t caller) {
  const ZeroSource source = zero_source(t, p, n);
  const auto b = reinterpret_cast<std::uintptr_t>(p);
  if (source != ZeroSource::kNone && range_is_zero(b, b + n)) return source;
  note_unsafe_caller(t, caller);
  return ZeroSource::kNone;
}

// `checked`: the bytes of the call the countdown ran over; `source` the
// fill's ZeroSource as judged.
void record_zero_check(ThreadState& t, const ZeroCheck& c, std::size_t checked, ZeroSource source) {
  if (c.samples == 0) return;
  Totals& totals = thread_totals(t);
  totals.zero_samples.fetch_add(c.samples, std::memory_order_relaxed);
  totals.zero_sampled_calls.fetch_add(1, std::memory_order_relaxed);
  if (c.hits == 0) return;
  totals.zero_hits.fetch_add(c.hits, std::memory_order_relaxed);
  totals.zero_hit_calls.fetch_add(1, std::memory_order_relaxed);
  // Horvitz-Thompson: a call of n checked bytes got a sample with
  // probability 1 - exp(-n / rate) (the countdown is memoryless).
  const double p =
      g_check_rate <= 1
          ? 1.0
          : -expm1_neg(-static_cast<double>(checked) / static_cast<double>(g_check_rate));
  const auto weight = static_cast<std::uint64_t>(round_half_away(1024.0 / p));
  totals.zero_hit_weight_1024.fetch_add(weight, std::memory_order_relaxed);
  std::uint64_t pcs[kMaxFrames];
  const int depth = capture_stack(pcs, kMaxFrames);
  if (Site* s = find_or_add_site(Kind::kZeroedZeros, pcs, depth, FdType::kFile,
                                 static_cast<FdType>(source))) {
    s->calls.fetch_add(1, std::memory_order_relaxed);
    s->bytes.fetch_add(c.hits, std::memory_order_relaxed);
    s->extra.fetch_add(weight, std::memory_order_relaxed);
  }
}

__attribute__((noinline)) void zero_small_sampled(ThreadState& t, void* p, std::size_t n,
                                                  std::uint64_t caller) {
  InHook guard(t);
  if (!t.countdowns_set) set_countdowns(t);
  ThreadSlot& slot = t.slot != nullptr ? *t.slot : thread_slot(t);
  slot_add(t, slot.zero_calls, 1);
  slot_add(t, slot.zero_bytes, n);
  const ZeroSource source = judge_small_fill(t, p, n, caller);
  ZeroCheck c;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  check_segment(t, begin, begin + n, c);
  record_zero_check(t, c, n, source);
}

// A small fill the countdown skips: only its caller's safety is looked at
// (the thread's cache answers for a caller already known unsafe).
__attribute__((noinline)) void judge_small_unsampled(ThreadState& t, void* p, std::size_t n,
                                                     std::uint64_t caller) {
  InHook guard(t);
  judge_small_fill(t, p, n, caller);
}

// A fill of a page or more: pagemap first, then the content check over the
// bytes on touched pages.
__attribute__((noinline)) void zero_large(ThreadState& t, void* p, std::size_t n,
                                          std::uint64_t caller) {
  InHook guard(t);
  if (!t.countdowns_set) set_countdowns(t);
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t end = begin + n;
  std::uint64_t fresh_bytes = 0;
  std::uint64_t fresh_pages = 0;
  std::uint64_t touched_bytes = 0;
  // Known zero: from a zeroing allocator, and every byte on a touched page
  // zero (a fresh page is).
  ZeroSource source = zero_source(t, p, n);
  ZeroCheck c;
  bool present[256];
  for (std::uintptr_t page = begin / kPageBytes; page * kPageBytes < end;) {
    const std::size_t left = (end - 1) / kPageBytes - page + 1;
    const std::size_t count = left < 256 ? left : 256;
    if (!pages_touched(page, count, present)) {
      for (std::size_t i = 0; i < count; ++i) present[i] = true;
    }
    for (std::size_t i = 0; i < count; ++i) {
      const std::uintptr_t lo0 = (page + i) * kPageBytes;
      const std::uintptr_t lo = lo0 > begin ? lo0 : begin;
      const std::uintptr_t hi = lo0 + kPageBytes < end ? lo0 + kPageBytes : end;
      if (present[i]) {
        touched_bytes += hi - lo;
        check_segment(t, lo, hi, c);
        if (source != ZeroSource::kNone && !range_is_zero(lo, hi)) source = ZeroSource::kNone;
      } else {
        fresh_bytes += hi - lo;
        ++fresh_pages;
      }
    }
    page += count;
  }
  // Not-present pages of a file or shared mapping are not the kernel's zero
  // page: nothing to report for them (and they are not read either).
  if (fresh_bytes > 0 && !anonymous_private(begin, end)) {
    fresh_bytes = 0;
    fresh_pages = 0;
    source = ZeroSource::kNone;  // not-present file pages are not zero
  }
  if (source == ZeroSource::kNone) note_unsafe_caller(t, caller);
  if (touched_bytes > 0) {
    ThreadSlot& slot = t.slot != nullptr ? *t.slot : thread_slot(t);
    slot_add(t, slot.zero_calls, 1);
    slot_add(t, slot.zero_bytes, touched_bytes);
    record_zero_check(t, c, touched_bytes, source);
  }
  if (fresh_bytes == 0) return;
  Totals& totals = thread_totals(t);
  totals.fresh_calls.fetch_add(1, std::memory_order_relaxed);
  totals.fresh_bytes.fetch_add(fresh_bytes, std::memory_order_relaxed);
  totals.fresh_pages.fetch_add(fresh_pages, std::memory_order_relaxed);
  std::uint64_t pcs[kMaxFrames];
  const int depth = capture_stack(pcs, kMaxFrames);
  if (Site* s = find_or_add_site(Kind::kZeroedFreshPages, pcs, depth, FdType::kFile,
                                 static_cast<FdType>(source))) {
    s->calls.fetch_add(1, std::memory_order_relaxed);
    s->bytes.fetch_add(fresh_bytes, std::memory_order_relaxed);
    s->extra.fetch_add(fresh_pages, std::memory_order_relaxed);
  }
}

// A zero fill of n bytes at p, by the memset call that returns to `caller`.
inline void note_zero(void* p, std::size_t n, std::uint64_t caller) {
  ThreadState& t = t_state;
  if (n == 0 || t.in_hook != 0 || !g_active.load(std::memory_order_relaxed)) return;
  if (n >= kPageBytes) {
    zero_large(t, p, n, caller);
    return;
  }
  if (t.zero_countdown > static_cast<std::int64_t>(n)) {
    t.zero_countdown -= static_cast<std::int64_t>(n);
    ThreadSlot& slot = t.slot != nullptr ? *t.slot : thread_slot(t);
    slot_add(t, slot.zero_calls, 1);
    slot_add(t, slot.zero_bytes, n);
    if (t.unsafe_callers[(caller >> 2) & 15] != caller) judge_small_unsampled(t, p, n, caller);
    return;
  }
  zero_small_sampled(t, p, n, caller);
}

std::uint64_t return_address(void* a) {
  return reinterpret_cast<std::uint64_t>(a);
}

}  // namespace
}  // namespace zerolab::waste

namespace zerolab::waste {
namespace {
// memset's zero case, out of line so a memset of any other byte is a
// compare and a tail jump to glibc's. `n` is the third argument, as in
// memset, so memset moves no register before its compare.
__attribute__((noinline)) void* memset_zero(void* p, std::uint64_t caller, size_t n) {
  note_zero(p, n, caller);
  return g_memset(p, 0, n);
}
}  // namespace
}  // namespace zerolab::waste

namespace w = zerolab::waste;

ZEROLAB_WASTE_EXPORT void* memset(void* p, int c, size_t n) {
  if (static_cast<unsigned char>(c) != 0) return w::g_memset(p, c, n);
  return w::memset_zero(p, w::return_address(__builtin_return_address(0)), n);
}

ZEROLAB_WASTE_EXPORT void bzero(void* p, size_t n) {
  w::note_zero(p, n, w::return_address(__builtin_return_address(0)));
  w::g_memset(p, 0, n);
}

namespace zerolab::waste {
namespace {
using ZeroKernel = void (*)(void*, std::size_t) noexcept;
std::atomic<ZeroKernel> g_zero_kernel{nullptr};

// zerolab::zero_fill's kernel under the preload: the fill of more than 64
// bytes is looked at as a memset's (its return address is the zero_fill
// call in the program), then zero_fill's own kernel runs, as a slow path:
// a glibc memset it may call for its memset band is not counted twice.
void watched_zero_fill(void* p, std::size_t n) noexcept {
  note_zero(p, n, return_address(__builtin_return_address(0)));
  ThreadState& t = t_state;
  ++t.in_hook;
  g_zero_kernel.load(std::memory_order_acquire)(p, n);
  --t.in_hook;
}
}  // namespace
}  // namespace zerolab::waste

// zerolab::zero_fill calls this (a weak symbol there: nothing without the
// preload, src/mem/zero.cpp) with the kernel it installs, and installs what
// it returns: the kernel wrapped, so fills through zero_fill are seen too
// (those of 64 bytes or less are inline stores, and are not).
ZEROLAB_WASTE_EXPORT w::ZeroKernel zerolab_waste_wrap_zero_fill(w::ZeroKernel kernel) noexcept {
  if (kernel == nullptr) return kernel;
  w::g_zero_kernel.store(kernel, std::memory_order_release);
  return &w::watched_zero_fill;
}

// zerolab::PageHeap calls this (a weak symbol there: nothing without the
// preload, src/mem/page_heap.cpp): with `zeroed` for a span it hands out
// reading as zero (Zero::kYes), which becomes the thread's known-zero span;
// without, for [p, p + n) no longer known zero (a span handed out
// unzeroed, or freed), or p null when an allocation starts (PageHeap's own
// zeroing of a reused span is not over known-zero memory).
ZEROLAB_WASTE_EXPORT void zerolab_waste_page_heap_span(void* p, size_t n, int zeroed) noexcept {
  w::ThreadState& t = w::t_state;
  if (zeroed != 0) {
    t.heap_span = p;
    t.heap_bytes = n;
  } else if (p == nullptr) {
    t.heap_span = nullptr;
  } else if (t.heap_span != nullptr) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const auto s = reinterpret_cast<std::uintptr_t>(t.heap_span);
    if (a < s + t.heap_bytes && s < a + n) t.heap_span = nullptr;
  }
}

ZEROLAB_WASTE_EXPORT void* __memset_chk(void* p, int c, size_t n, size_t room) {
  if (static_cast<unsigned char>(c) == 0 && n <= room) {
    w::note_zero(p, n, w::return_address(__builtin_return_address(0)));
  }
  if (w::g_memset_chk != nullptr) return w::g_memset_chk(p, c, n, room);
  return w::g_memset(p, c, n);
}
