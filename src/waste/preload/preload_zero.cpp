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
// allocator that guarantees zeroed memory makes it so. A fill inside the
// block calloc just returned (it is still the thread's latest allocation)
// is recorded with Site::dst = 1 ("after calloc": the allocator knows the
// block is zero); every other hit is zero by coincidence as far as anything
// can tell (a recycled block that happens to be zero, an allocator's own
// arena), and its site has dst = 0.
//
// Example: under zerolab waste, `char* p = mmap(1 MiB); memset(p, 0, 1 MiB);`
// counts one call, 1048576 bytes and 256 pages of zeroed fresh pages.
#include <dlfcn.h>

#include <cmath>
#include <cstring>

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

// True if [p, p + n) lies in the block calloc returned to this thread, with
// no allocation since (so the block was not freed and handed out again).
bool inside_fresh_calloc(const ThreadState& t, const void* p, std::size_t n) {
  const auto block = reinterpret_cast<std::uintptr_t>(t.calloc_block);
  const auto b = reinterpret_cast<std::uintptr_t>(p);
  return block != 0 && t.last_alloc == t.calloc_block && b >= block &&
         b + n <= block + t.calloc_bytes;
}

// `checked`: the bytes of the call the countdown ran over; [fill, fill + n) the fill.
void record_zero_check(ThreadState& t, const ZeroCheck& c, std::size_t checked, const void* fill,
                       std::size_t n) {
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
          : -std::expm1(-static_cast<double>(checked) / static_cast<double>(g_check_rate));
  const auto weight = static_cast<std::uint64_t>(std::llround(1024.0 / p));
  totals.zero_hit_weight_1024.fetch_add(weight, std::memory_order_relaxed);
  std::uint64_t pcs[kMaxFrames];
  const int depth = capture_stack(pcs, kMaxFrames);
  const FdType after_calloc =
      inside_fresh_calloc(t, fill, n) ? FdType::kPipe : FdType::kFile;  // 1 : 0
  if (Site* s = find_or_add_site(Kind::kZeroedZeros, pcs, depth, FdType::kFile, after_calloc)) {
    s->calls.fetch_add(1, std::memory_order_relaxed);
    s->bytes.fetch_add(c.hits, std::memory_order_relaxed);
    s->extra.fetch_add(weight, std::memory_order_relaxed);
  }
}

__attribute__((noinline)) void zero_small_sampled(ThreadState& t, void* p, std::size_t n) {
  InHook guard(t);
  if (!t.countdowns_set) set_countdowns(t);
  ThreadSlot& slot = t.slot != nullptr ? *t.slot : thread_slot(t);
  slot_add(t, slot.zero_calls, 1);
  slot_add(t, slot.zero_bytes, n);
  ZeroCheck c;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  check_segment(t, begin, begin + n, c);
  record_zero_check(t, c, n, p, n);
}

// A fill of a page or more: pagemap first, then the content check over the
// bytes on touched pages.
__attribute__((noinline)) void zero_large(ThreadState& t, void* p, std::size_t n) {
  InHook guard(t);
  if (!t.countdowns_set) set_countdowns(t);
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t end = begin + n;
  std::uint64_t fresh_bytes = 0;
  std::uint64_t fresh_pages = 0;
  std::uint64_t touched_bytes = 0;
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
  }
  if (touched_bytes > 0) {
    ThreadSlot& slot = t.slot != nullptr ? *t.slot : thread_slot(t);
    slot_add(t, slot.zero_calls, 1);
    slot_add(t, slot.zero_bytes, touched_bytes);
    record_zero_check(t, c, touched_bytes, p, n);
  }
  if (fresh_bytes == 0) return;
  Totals& totals = thread_totals(t);
  totals.fresh_calls.fetch_add(1, std::memory_order_relaxed);
  totals.fresh_bytes.fetch_add(fresh_bytes, std::memory_order_relaxed);
  totals.fresh_pages.fetch_add(fresh_pages, std::memory_order_relaxed);
  std::uint64_t pcs[kMaxFrames];
  const int depth = capture_stack(pcs, kMaxFrames);
  if (Site* s = find_or_add_site(Kind::kZeroedFreshPages, pcs, depth)) {
    s->calls.fetch_add(1, std::memory_order_relaxed);
    s->bytes.fetch_add(fresh_bytes, std::memory_order_relaxed);
    s->extra.fetch_add(fresh_pages, std::memory_order_relaxed);
  }
}

inline void note_zero(void* p, std::size_t n) {
  ThreadState& t = t_state;
  if (n == 0 || t.in_hook != 0 || !g_active.load(std::memory_order_relaxed)) return;
  if (n >= kPageBytes) {
    zero_large(t, p, n);
    return;
  }
  if (t.zero_countdown > static_cast<std::int64_t>(n)) {
    t.zero_countdown -= static_cast<std::int64_t>(n);
    ThreadSlot& slot = t.slot != nullptr ? *t.slot : thread_slot(t);
    slot_add(t, slot.zero_calls, 1);
    slot_add(t, slot.zero_bytes, n);
    return;
  }
  zero_small_sampled(t, p, n);
}

}  // namespace
}  // namespace zerolab::waste

namespace zerolab::waste {
namespace {
// memset's zero case, out of line so a memset of any other byte is a
// compare and a tail jump to glibc's.
__attribute__((noinline)) void* memset_zero(void* p, size_t n) {
  note_zero(p, n);
  return g_memset(p, 0, n);
}
}  // namespace
}  // namespace zerolab::waste

ZEROLAB_WASTE_EXPORT void* memset(void* p, int c, size_t n) {
  if (static_cast<unsigned char>(c) != 0) return zerolab::waste::g_memset(p, c, n);
  return zerolab::waste::memset_zero(p, n);
}

ZEROLAB_WASTE_EXPORT void bzero(void* p, size_t n) {
  zerolab::waste::note_zero(p, n);
  zerolab::waste::g_memset(p, 0, n);
}

ZEROLAB_WASTE_EXPORT void* __memset_chk(void* p, int c, size_t n, size_t room) {
  if (static_cast<unsigned char>(c) == 0 && n <= room) zerolab::waste::note_zero(p, n);
  if (zerolab::waste::g_memset_chk != nullptr) return zerolab::waste::g_memset_chk(p, c, n, room);
  return zerolab::waste::g_memset(p, c, n);
}
