// PageHeap (zerolab/page_heap.hpp): arenas, first-fit spans, per-range zero
// tracking, and a cache of recently freed spans.
//
// Three sets of address ranges and a span cache, guarded by one mutex:
//   live  — the spans handed out, one map entry each (never merged), and
//           the cached ones;
//   cache — spans freed recently, kept whole and dirty (page_heap_cache.hpp);
//   free  — the rest of the free memory of all arenas, coalesced;
//   dirty — the part of `free` that may hold old bytes, coalesced.
// So dirty ⊆ free, and free \ dirty is known zero: fresh from the kernel or
// released with MADV_DONTNEED. Free dirty memory is dirty ∪ cache.
//
// deallocate() validates the pointer with one live-map lookup (none for the
// span handed out last, still live: last_live_start) and pushes the
// span onto the cache (when the cache is full: back into free and dirty).
// allocate() first takes the newest cached span of exactly its page count —
// no map is touched, and Zero::kYes zero_fills the whole span — and on a miss
// returns every cached span to free and dirty (so they coalesce), then takes
// the lowest free range that fits, carves its head, and zero_fills only the
// dirty pieces it took. Zeroing runs after unlocking: the span is the
// caller's by then. release() empties the cache the same way, then hands
// dirty ranges back to the kernel from the highest address down, holding
// the lock so nobody can allocate a page whose MADV_DONTNEED is still in
// flight.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "mem/page_heap_cache.hpp"
#include "mem/page_heap_os.hpp"
#include "mem/page_heap_ranges.hpp"
#include "mem/plain_unlock_mutex.hpp"
#include "zerolab/page_heap.hpp"
#include "zerolab/zero.hpp"

// Defined by zerolab waste's preload (src/waste/preload/preload_zero.cpp):
// told of every span handed out, and whether it reads as zero. Weak: null
// in a process without the preload.
extern "C" __attribute__((weak)) void zerolab_waste_page_heap_span(void* p, std::size_t n,
                                                                   int zeroed) noexcept;

namespace zerolab {
namespace {

// Under `zerolab waste` (its preload defines the hook), a memset over the
// span the thread's latest allocation handed out zeroed is reported as safe
// to drop: allocate() forgets the thread's previous span first (p null),
// deallocate() the span it frees, and hand_out() names the new one.
// Without the preload the symbol is null and nothing is called.
void tell_waste(void* p, std::size_t n, bool zeroed) noexcept {
  if (&zerolab_waste_page_heap_span != nullptr) zerolab_waste_page_heap_span(p, n, zeroed ? 1 : 0);
}

constexpr std::size_t kPage = PageHeap::kPageBytes;
constexpr std::size_t kHuge = std::size_t{2} << 20;
// Requests above this are too large: every rounding below stays far from overflow.
constexpr std::size_t kMaxBytes = std::size_t{1} << 62;

constexpr PageHeapErrc kOk{};  // no failure (PageHeapErrc starts at 1)

constexpr std::size_t round_up(std::size_t n, std::size_t to) {
  return (n + to - 1) & ~(to - 1);
}

// The node count the worst operation (an allocation that maps an arena)
// takes from the pool, not counting the cache flush before it (two per
// cached span: see Impl::flush_cache).
constexpr std::size_t kNodesPerOperation = 4;

struct Arena {
  void* map_base = nullptr;
  std::size_t map_bytes = 0;
  std::uintptr_t start = 0;  // 2 MiB-aligned usable range [start, end)
  std::uintptr_t end = 0;
};

// The dirty pieces of one allocation, zeroed after the lock is dropped; past
// the inline capacity, pieces are zeroed at once (under the lock). The
// array is left uninitialized: only [0, count_) is ever read.
class Pieces {
 public:
  void add(std::uintptr_t start, std::uintptr_t end) noexcept {
    if (count_ == kCapacity) {
      zero_fill(reinterpret_cast<void*>(start), end - start);
      return;
    }
    pieces_[count_++] = {start, end};
  }
  void zero_all() const noexcept {
    for (std::size_t i = 0; i < count_; ++i) {
      zero_fill(reinterpret_cast<void*>(pieces_[i].start), pieces_[i].end - pieces_[i].start);
    }
  }

 private:
  static constexpr std::size_t kCapacity = 16;
  struct Piece {
    std::uintptr_t start;
    std::uintptr_t end;
  };
  Piece pieces_[kCapacity];
  std::size_t count_ = 0;
};

std::string describe_size(std::size_t n) {
  return std::to_string(n) + " bytes";
}

std::string hex(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

}  // namespace

struct PageHeap::Impl {
  explicit Impl(PageHeapOptions o) : prefault(o.prefault), options(std::move(o)) {
    huge = options.huge_pages == HugePages::kOn ||
           (options.huge_pages == HugePages::kAuto && transparent_huge_pages_available());
    arena_bytes = round_up(std::clamp<std::size_t>(options.arena_bytes, kHuge, kMaxBytes), kHuge);
    if (!options.map)
      options.map = [](std::size_t bytes) { return internal::map_anonymous(bytes); };
    if (!options.unmap)
      options.unmap = [](void* p, std::size_t bytes) { internal::unmap_anonymous(p, bytes); };
  }

  ~Impl() {
    for (const Arena& a : arenas) options.unmap(a.map_base, a.map_bytes);
  }

  // Failures come back as a PageHeapErrc (kOk: none) rather than a
  // std::error_code, whose construction calls into libstdc++ even on success.
  void* allocate(std::size_t n, Zero zero, PageHeapErrc& error, int& sys_errno) noexcept;
  PageHeapErrc deallocate(void* p, std::size_t n) noexcept;
  std::size_t release(std::size_t bytes, PageHeapErrc& error, int& sys_errno) noexcept;
  bool map_arena(std::size_t size, PageHeapErrc& error, int& sys_errno) noexcept;
  void* hand_out(std::uintptr_t start, std::size_t size, Zero zero) noexcept;
  void flush_cache() noexcept;
  // The counts for the span [start, start + size) just handed out, which
  // becomes the last live span. REQUIRES: mu held.
  void count_allocation(std::uintptr_t start, std::size_t size) noexcept {
    in_use += size;
    ++allocations;
    last_live_start = start;
    last_live_size = size;
  }
  PageHeapErrc classify_unknown(std::uintptr_t p) const noexcept;
  std::string check_locked() const;
  void debug_check_locked() const {
#ifndef NDEBUG
    const std::string broken = check_locked();
    assert(broken.empty() && "PageHeap invariant broken");
#endif
  }

  // What a cache hit and the deallocate after it touch, in one cache line:
  // a 64 KiB zero_fill evicts the L1, and each further line of metadata is
  // another miss on every call.
  alignas(64) mutable internal::PlainUnlockMutex mu;
  bool prefault = false;  // options.prefault
  // The span handed out last, while it is still live (0 once freed): its
  // deallocate needs no live-map lookup or cache scan to be validated.
  std::uintptr_t last_live_start = 0;
  std::size_t last_live_size = 0;
  std::size_t in_use = 0;  // live spans not cached
  std::uint64_t bytes_zeroed = 0;
  std::uint64_t allocations = 0;
  std::uint64_t deallocations = 0;
  internal::SpanCache cache;

  PageHeapOptions options;
  bool huge = false;
  std::size_t arena_bytes = 0;
  std::vector<Arena> arenas;
  internal::NodePool pool;
  internal::RangeMap live;  // start -> end of every span handed out or cached
  internal::RangeSet free;
  internal::RangeSet dirty;
  std::size_t mapped = 0;
  std::uint64_t bytes_zero_skipped = 0;
  std::uint64_t bytes_released = 0;
  std::atomic<std::uint64_t> prefault_fallbacks{0};
};

bool PageHeap::Impl::map_arena(std::size_t size, PageHeapErrc& error, int& sys_errno) noexcept {
  const std::size_t usable = std::max(arena_bytes, round_up(size, kHuge));
  // 2 MiB of slack: the usable range starts 2 MiB-aligned and at least one
  // page of the mapping follows it, so two arenas' ranges never touch.
  const std::size_t map_bytes = usable + kHuge;
  errno = 0;
  void* m = options.map(map_bytes);
  if (m == nullptr || m == MAP_FAILED) {
    sys_errno = errno != 0 ? errno : ENOMEM;
    error = PageHeapErrc::kOutOfMemory;
    return false;
  }
  const std::uintptr_t start = round_up(reinterpret_cast<std::uintptr_t>(m), kHuge);
  internal::advise_huge_pages(reinterpret_cast<void*>(start), usable, huge);
  arenas.push_back({m, map_bytes, start, start + usable});  // capacity reserved by the caller
  free.insert(start, start + usable, pool);
  mapped += usable;
  return true;
}

void* PageHeap::Impl::allocate(std::size_t n, Zero zero, PageHeapErrc& error,
                               int& sys_errno) noexcept {
  tell_waste(nullptr, 0, false);
  if (n < kMinBytes) {
    error = PageHeapErrc::kTooSmall;
    return nullptr;
  }
  if (n > kMaxBytes) {
    error = PageHeapErrc::kTooLarge;
    return nullptr;
  }
  const std::size_t size = round_up(n, kPage);
  std::unique_lock lock(mu);

  // The fast path: the newest cached span of this size, dirty as a whole and
  // still in `live`; no map changes.
  if (const std::uintptr_t start = cache.take(size); start != 0) {
    count_allocation(start, size);
    if (zero == Zero::kYes) bytes_zeroed += size;
    debug_check_locked();
    lock.unlock();
    if (zero == Zero::kYes) zero_fill(reinterpret_cast<void*>(start), size);
    return hand_out(start, size, zero);
  }

  // First fit, after the cached spans went back to the free sets so that
  // they coalesce with their neighbours.
  try {
    pool.fill(kNodesPerOperation + 2 * cache.size());
    arenas.reserve(arenas.size() + 1);
  } catch (...) {
    error = PageHeapErrc::kOutOfMemory;
    sys_errno = ENOMEM;
    return nullptr;
  }
  flush_cache();
  auto fit = free.first_fit(size);
  if (fit == free.ranges().end()) {
    if (!map_arena(size, error, sys_errno)) return nullptr;
    fit = free.first_fit(size);
  }
  const std::uintptr_t start = fit->first;
  const std::uintptr_t end = start + size;
  Pieces to_zero;
  live.insert(pool.take(start, end));
  free.erase(start, end, pool, [](std::uintptr_t, std::uintptr_t) {});
  const std::size_t dirty_bytes =
      dirty.erase(start, end, pool, [&](std::uintptr_t s, std::uintptr_t e) {
        if (zero == Zero::kYes) to_zero.add(s, e);
      });
  if (zero == Zero::kYes) {
    bytes_zeroed += dirty_bytes;
    bytes_zero_skipped += size - dirty_bytes;
  }
  count_allocation(start, size);
  debug_check_locked();
  lock.unlock();
  to_zero.zero_all();
  return hand_out(start, size, zero);
}

// The end of every allocation, outside the lock once its span is zeroed.
void* PageHeap::Impl::hand_out(std::uintptr_t start, std::size_t size, Zero zero) noexcept {
  void* p = reinterpret_cast<void*>(start);
  tell_waste(p, size, zero == Zero::kYes);
  if (prefault && !internal::prefault_pages(p, size)) {
    prefault_fallbacks.fetch_add(1, std::memory_order_relaxed);
  }
#ifndef NDEBUG
  if (zero == Zero::kYes) {  // sample the span: the zero tracking must be right
    const std::size_t pages = size / kPage;
    const std::size_t step = std::max<std::size_t>(1, pages / 64);
    for (std::size_t i = 0; i < pages; i += step) {
      const auto* word = reinterpret_cast<const volatile std::uint64_t*>(start + i * kPage);
      assert(*word == 0 && "PageHeap: a Zero::kYes span is not zero");
    }
    assert(*reinterpret_cast<const volatile std::uint64_t*>(start + size - 8) == 0);
  }
#else
  static_cast<void>(zero);
#endif
  return p;
}

// REQUIRES: the pool holds two nodes per cached span (each span gives its
// live node back first, then free and dirty take at most one each).
void PageHeap::Impl::flush_cache() noexcept {
  for (const internal::SpanCache::Span& s : cache) {
    auto node = live.extract(s.start);
    assert(!node.empty() && "PageHeap: a cached span is not in the live map");
    pool.give(std::move(node));
    free.insert(s.start, s.start + s.size, pool);
    dirty.insert(s.start, s.start + s.size, pool);
  }
  cache.clear();
}

// p is not the start of a live map entry: say why.
PageHeapErrc PageHeap::Impl::classify_unknown(std::uintptr_t p) const noexcept {
  if (free.find(p) != free.ranges().end()) return PageHeapErrc::kDoubleFree;
  auto it = live.upper_bound(p);
  if (it != live.begin() && p < std::prev(it)->second) {
    return cache.contains(std::prev(it)->first) ? PageHeapErrc::kDoubleFree
                                                : PageHeapErrc::kInteriorPointer;
  }
  return PageHeapErrc::kUnknownPointer;
}

PageHeapErrc PageHeap::Impl::deallocate(void* ptr, std::size_t n) noexcept {
  if (ptr == nullptr) return PageHeapErrc::kNullPointer;
  tell_waste(ptr, 1, false);
  const auto p = reinterpret_cast<std::uintptr_t>(ptr);
  std::lock_guard lock(mu);
  std::size_t size = 0;
  if (p == last_live_start) {  // live and not cached: no lookup needed
    size = last_live_size;
  } else {
    auto it = live.find(p);
    if (it == live.end()) return classify_unknown(p);
    if (cache.contains(p)) return PageHeapErrc::kDoubleFree;
    size = it->second - it->first;
  }
  if (n != 0 && (n > kMaxBytes || round_up(n, kPage) != size)) return PageHeapErrc::kSizeMismatch;
  if (!cache.full()) {
    cache.push(p, size);  // stays in `live`; free and dirty from now on
  } else {
    try {
      pool.fill(kNodesPerOperation);
    } catch (...) {
      return PageHeapErrc::kOutOfMemory;
    }
    pool.give(live.extract(p));
    free.insert(p, p + size, pool);
    dirty.insert(p, p + size, pool);
  }
  if (p == last_live_start) last_live_start = 0;
  in_use -= size;
  ++deallocations;
  debug_check_locked();
  return kOk;
}

std::size_t PageHeap::Impl::release(std::size_t bytes, PageHeapErrc& error,
                                    int& sys_errno) noexcept {
  std::size_t remaining = bytes > kMaxBytes ? kMaxBytes : round_up(bytes, kPage);
  std::size_t released = 0;
  std::lock_guard lock(mu);
  if (remaining > 0 && !cache.empty()) {  // cached spans are released like any dirty memory
    try {
      pool.fill(2 * cache.size());
    } catch (...) {
      error = PageHeapErrc::kOutOfMemory;
      sys_errno = ENOMEM;
      return 0;
    }
    flush_cache();
  }
  internal::RangeMap& ranges = dirty.ranges();
  while (remaining > 0 && !ranges.empty()) {
    auto last = std::prev(ranges.end());
    const std::size_t take = std::min<std::size_t>(last->second - last->first, remaining);
    void* p = reinterpret_cast<void*>(last->second - take);
    const ZeroPagesResult r = zero_pages(p, take);
    if (r.error) {
      error = PageHeapErrc::kReleaseFailed;
      sys_errno = r.error.value();
      break;
    }
    dirty.trim_back(last, take, pool);
    released += take;
    remaining -= take;
  }
  bytes_released += released;
  debug_check_locked();
  return released;
}

std::string PageHeap::Impl::check_locked() const {
  auto in_arena = [this](std::uintptr_t s, std::uintptr_t e) {
    for (const Arena& a : arenas) {
      if (s >= a.start && e <= a.end) return true;
    }
    return false;
  };
  auto check_set = [&](const internal::RangeMap& m, const char* what, bool coalesced,
                       std::size_t& total) -> std::string {
    std::uintptr_t prev_end = 0;
    total = 0;
    for (const auto& [s, e] : m) {
      if (s >= e || s % kPage != 0 || e % kPage != 0)
        return std::string(what) + ": bad range at " + hex(reinterpret_cast<void*>(s));
      if (s < prev_end || (coalesced && s == prev_end))
        return std::string(what) + ": overlapping or uncoalesced at " +
               hex(reinterpret_cast<void*>(s));
      if (!in_arena(s, e))
        return std::string(what) + ": range outside the arenas at " +
               hex(reinterpret_cast<void*>(s));
      prev_end = e;
      total += e - s;
    }
    return "";
  };
  std::size_t live_bytes = 0, free_bytes = 0, dirty_bytes = 0;
  if (std::string e = check_set(live, "live", false, live_bytes); !e.empty()) return e;
  if (std::string e = check_set(free.ranges(), "free", true, free_bytes); !e.empty()) return e;
  if (std::string e = check_set(dirty.ranges(), "dirty", true, dirty_bytes); !e.empty()) return e;
  for (const auto& [s, e] : live) {
    if (free.overlaps(s, e))
      return "a live span overlaps free memory at " + hex(reinterpret_cast<void*>(s));
  }
  for (const auto& [s, e] : dirty.ranges()) {
    auto f = free.find(s);
    if (f == free.ranges().end() || f->second < e)
      return "dirty memory outside free memory at " + hex(reinterpret_cast<void*>(s));
  }
  std::size_t cached_bytes = 0;
  for (const internal::SpanCache::Span* c = cache.begin(); c != cache.end(); ++c) {
    auto l = live.find(c->start);
    if (l == live.end() || l->second - l->first != c->size)
      return "a cached span is not a live map entry of its size at " +
             hex(reinterpret_cast<void*>(c->start));
    for (const internal::SpanCache::Span* d = cache.begin(); d != c; ++d) {
      if (d->start == c->start)
        return "a span is cached twice at " + hex(reinterpret_cast<void*>(c->start));
    }
    cached_bytes += c->size;
  }
  if (cache.size() > internal::SpanCache::kCapacity || cached_bytes != cache.bytes())
    return "the span cache's counts drifted";
  if (last_live_start != 0) {
    auto l = live.find(last_live_start);
    if (l == live.end() || l->second - l->first != last_live_size ||
        cache.contains(last_live_start))
      return "the last span handed out is not a live, uncached span of its size at " +
             hex(reinterpret_cast<void*>(last_live_start));
  }
  if (live_bytes != in_use + cached_bytes)
    return "in_use is " + std::to_string(in_use) + " and " + std::to_string(cached_bytes) +
           " bytes are cached, live spans hold " + std::to_string(live_bytes);
  if (free_bytes != free.bytes() || dirty_bytes != dirty.bytes())
    return "free or dirty byte counts drifted";
  if (mapped != live_bytes + free_bytes) return "mapped != in_use + cached + free";
  std::size_t arena_total = 0;
  for (const Arena& a : arenas) arena_total += a.end - a.start;
  if (arena_total != mapped) return "mapped is not the arenas' size";
  return "";
}

// ---- PageHeap ------------------------------------------------------------------

PageHeap::PageHeap() : PageHeap(PageHeapOptions{}) {}

PageHeap::PageHeap(PageHeapOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

PageHeap::~PageHeap() = default;

void* PageHeap::try_allocate(std::size_t n, Zero zero, std::error_code& error) noexcept {
  PageHeapErrc e = kOk;
  int sys_errno = 0;
  void* p = impl_->allocate(n, zero, e, sys_errno);
  if (p != nullptr) {
    error.clear();
  } else {
    error = e;
  }
  return p;
}

void* PageHeap::allocate(std::size_t n, Zero zero) {
  PageHeapErrc error = kOk;
  int sys_errno = 0;
  void* p = impl_->allocate(n, zero, error, sys_errno);
  if (p != nullptr) return p;
  std::string what = "PageHeap::allocate(" + describe_size(n) + ")";
  if (sys_errno != 0) what += ": mapping an arena: " + std::string(std::strerror(sys_errno));
  throw std::system_error(error, what);
}

std::error_code PageHeap::try_deallocate(void* p, std::size_t n) noexcept {
  const PageHeapErrc e = impl_->deallocate(p, n);
  if (e == kOk) return {};
  return e;
}

void PageHeap::deallocate(void* p) {
  if (const PageHeapErrc e = impl_->deallocate(p, 0); e != kOk) {
    throw std::system_error(e, "PageHeap::deallocate(" + hex(p) + ")");
  }
}

void PageHeap::deallocate(void* p, std::size_t n) {
  if (n == 0) {
    throw std::system_error(PageHeapErrc::kSizeMismatch, "PageHeap::deallocate(" + hex(p) + ", 0)");
  }
  if (const PageHeapErrc e = impl_->deallocate(p, n); e != kOk) {
    throw std::system_error(e, "PageHeap::deallocate(" + hex(p) + ", " + describe_size(n) + ")");
  }
}

std::size_t PageHeap::release(std::size_t bytes) {
  PageHeapErrc error = kOk;
  int sys_errno = 0;
  const std::size_t released = impl_->release(bytes, error, sys_errno);
  if (error != kOk) {
    throw std::system_error(error, "PageHeap::release: " + std::string(std::strerror(sys_errno)));
  }
  return released;
}

std::size_t PageHeap::span_size(const void* p) const noexcept {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->live.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == impl_->live.end() || impl_->cache.contains(it->first)) return 0;
  return it->second - it->first;
}

PageHeapStats PageHeap::stats() const noexcept {
  PageHeapStats s;
  std::lock_guard lock(impl_->mu);
  s.mapped = impl_->mapped;
  s.in_use = impl_->in_use;
  s.free_dirty = impl_->dirty.bytes() + impl_->cache.bytes();
  s.free_zero = impl_->free.bytes() - impl_->dirty.bytes();
  s.arenas = impl_->arenas.size();
  s.bytes_zeroed = impl_->bytes_zeroed;
  s.bytes_zero_skipped = impl_->bytes_zero_skipped;
  s.bytes_released = impl_->bytes_released;
  s.allocations = impl_->allocations;
  s.deallocations = impl_->deallocations;
  s.prefault_fallbacks = impl_->prefault_fallbacks.load(std::memory_order_relaxed);
  return s;
}

bool PageHeap::huge_pages() const noexcept {
  return impl_->huge;
}

std::string PageHeap::check() const {
  std::lock_guard lock(impl_->mu);
  return impl_->check_locked();
}

}  // namespace zerolab
