// zerolab/page_heap.hpp — a lazy-zero heap for large buffers: it knows
// which of its pages are still zero, and zeroes only the ones that are not.
//
// PageHeap hands out page-granular spans (64 KiB and up) from large arenas
// of address space it maps from the kernel, first-fit by address, and
// coalesces them on free. Memory fresh from the kernel reads as zero, so an
// allocate(n, Zero::yes) from it writes nothing (Go's mallocgc skips memclr
// the same way when span.needzero is 0, seed 004). Freed spans become
// dirty; allocate(n, Zero::yes) then zeroes exactly the dirty pages with
// zero_fill. release(bytes) hands dirty free pages back to the kernel with
// MADV_DONTNEED, after which they are trusted zero again (unlike Go's
// one-way zeroedBase; MADV_FREE, which may keep the old bytes, is never
// used). Whether that pays depends on what comes next: a released page
// costs a page fault (the kernel zeroes it) on its next touch, which on
// this project's VM is far dearer than zero_fill over a resident page.
//
// Reuse: the last spans freed (up to 32) are kept whole in a cache, dirty.
// An allocation of exactly the page count of a cached span takes the newest
// such span back — zero_fill over all of it for Zero::yes, no range-map work
// — so the allocate/free/allocate pattern of a reused buffer costs one short
// critical section per call. Any other allocation first returns the cached
// spans to the free ranges (where they coalesce) and then fits first by
// address, as above; release() empties the cache the same way before it
// hands memory back. Cached spans count as free_dirty; freeing one again is
// a double free.
//
// Arenas: each is one mmap(PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|
// MAP_NORESERVE) of PageHeapOptions::arena_bytes (1 GiB by default; a
// larger request gets an arena of its own), aligned to 2 MiB inside the
// mapping so transparent huge pages can back it. Untouched pages cost no
// memory, only address space; arenas are unmapped when the heap is
// destroyed. Every arena keeps at least one never-used page after its
// spans, so spans of different arenas never coalesce.
//
// Requests below kMinBytes (64 KiB) are rejected (PageHeapErrc::too_small):
// small objects belong to malloc. PageHeapResource, the std::pmr adapter,
// forwards them to an upstream resource instead.
//
// Errors: the library never prints or exits. The throwing calls
// (allocate, deallocate, release) throw std::system_error whose code() is
// a PageHeapErrc in page_heap_category() and whose what() says what was
// wrong (the mmap errno included); the try_ calls return the same codes
// without throwing. Bad input — a size that overflows when rounded to
// pages, a null pointer, a pointer PageHeap did not hand out, a pointer into
// the middle of a span, a double free, a size that does not match — is
// always detected (the lookups are needed anyway) and changes nothing.
// Debug builds (without NDEBUG) check more: the heap's invariants after
// every change, and that pages a Zero::yes allocation skipped read as zero.
// A failed mapping (out of memory, or an injected failure through
// PageHeapOptions::map) leaves every span and count as it was (cached spans
// may have gone back to the free ranges, as on any cache miss).
//
// Thread-safety: all member functions are safe to call concurrently. One
// mutex guards the span maps and the cache, taken once per call; zero_fill
// and prefaulting of the span being handed out run outside it, release()
// holds it while it madvises. On this project's 2-core Zen 4 VM an
// uncontended allocate+deallocate pair that reuses a cached span (64 KiB,
// Zero::no) takes 15-30 ns, ~7 ns of it the two lock/unlock pairs (80-160 ns
// before the cache), two threads hammering one heap ~80 ns a pair (~180 ns
// before; examples/page_heap_bench.cpp, -bench Lock). The lock's
// atomic read-modify-write also waits for the zeroing stores still in
// flight: zero_fill of 64 KiB between two bare lock/unlock pairs costs 1.035x
// zero_fill alone, the floor for any allocator that locks once per call,
// and a dirty 64 KiB Zero::yes allocate+deallocate costs 1.067x (1.26x
// before the cache; 1.018x at 256 KiB, 1.006x at 1 MiB; -bench DirtyPair).
//
// Example:
//   zerolab::PageHeap heap;
//   void* a = heap.allocate(256 << 20, zerolab::Zero::yes);  // fresh: no writes
//   heap.deallocate(a);                                     // dirty now
//   void* b = heap.allocate(256 << 20, zerolab::Zero::yes);  // zero_fill of the dirty pages
//   heap.deallocate(b);
//   heap.release();                                         // MADV_DONTNEED: zero again
//   zerolab::PageHeapStats s = heap.stats();                // s.free_zero == 1 GiB
#ifndef ZEROLAB_PAGE_HEAP_HPP_
#define ZEROLAB_PAGE_HEAP_HPP_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <memory_resource>
#include <string>
#include <system_error>
#include <type_traits>

namespace zerolab {

// Whether allocate() must return memory that reads as zero.
enum class Zero { no, yes };

// What went wrong in a PageHeap call (the values of its std::error_code).
enum class PageHeapErrc {
  too_small = 1,    // n below PageHeap::kMinBytes (0 included)
  too_large,        // n overflows when rounded up to pages or arenas
  out_of_memory,    // mapping a new arena failed
  null_pointer,     // deallocate(nullptr)
  unknown_pointer,  // not a pointer this heap handed out
  interior_pointer, // points into a live span, not at its start
  double_free,      // points into free memory of this heap
  size_mismatch,    // deallocate(p, n): n is not the span's size
  bad_alignment,    // PageHeapResource: alignment above the page size
  release_failed,   // madvise(MADV_DONTNEED) failed
};

// The category of PageHeapErrc codes ("zerolab.page_heap").
const std::error_category& page_heap_category() noexcept;

std::error_code make_error_code(PageHeapErrc e) noexcept;

// Transparent huge pages for the arenas.
enum class HugePages {
  kAuto,  // MADV_HUGEPAGE when /sys/.../transparent_hugepage/enabled is madvise or always
  kOn,    // always MADV_HUGEPAGE
  kOff,   // MADV_NOHUGEPAGE (4 KiB pages even under THP "always")
};

struct PageHeapOptions {
  // Address space reserved per arena, rounded up to 2 MiB. REQUIRES: > 0.
  std::size_t arena_bytes = std::size_t{1} << 30;
  HugePages huge_pages = HugePages::kAuto;
  // Prefault the fresh pages of each allocation with MADV_POPULATE_WRITE
  // (one system call instead of a fault per page); where the kernel lacks it
  // (EINVAL, before Linux 5.14) the pages are touched one by one instead and
  // PageHeapStats::prefault_fallbacks counts it.
  bool prefault = false;
  // Maps `bytes` of fresh, zero-filled, private anonymous memory, or
  // returns nullptr (with errno set) on failure. Empty: mmap. For tests
  // that inject failures; REQUIRES: what it returns reads as zero and
  // accepts madvise.
  std::function<void*(std::size_t bytes)> map;
  // Undoes map(). Empty: munmap.
  std::function<void(void* p, std::size_t bytes)> unmap;
};

// Byte counts of a PageHeap at one moment; mapped == in_use + free_dirty +
// free_zero always holds.
struct PageHeapStats {
  std::size_t mapped = 0;      // usable bytes of all arenas
  std::size_t in_use = 0;      // bytes in live spans (page-rounded)
  std::size_t free_dirty = 0;  // free bytes that may hold old data
  std::size_t free_zero = 0;   // free bytes known to read as zero
  std::size_t arenas = 0;      // arenas mapped
  // Cumulative:
  std::uint64_t bytes_zeroed = 0;        // written by zero_fill for Zero::yes
  std::uint64_t bytes_zero_skipped = 0;  // Zero::yes bytes already zero, not written
  std::uint64_t bytes_released = 0;      // handed back with MADV_DONTNEED
  std::uint64_t allocations = 0;
  std::uint64_t deallocations = 0;
  std::uint64_t prefault_fallbacks = 0;  // MADV_POPULATE_WRITE said EINVAL
};

class PageHeap {
 public:
  // The smallest request allocate() accepts.
  static constexpr std::size_t kMinBytes = std::size_t{64} << 10;
  // The granularity of spans.
  static constexpr std::size_t kPageBytes = 4096;

  // A heap with the default options: 1 GiB arenas, THP where the system offers it.
  PageHeap();
  // A heap with `options`. Maps nothing until the first allocation.
  explicit PageHeap(PageHeapOptions options);
  // Unmaps every arena. REQUIRES: no span is used afterwards.
  ~PageHeap();

  PageHeap(const PageHeap&) = delete;
  PageHeap& operator=(const PageHeap&) = delete;

  // A span of at least n bytes (n rounded up to whole pages), page-aligned;
  // with Zero::yes it reads as zero. Throws std::system_error (PageHeapErrc).
  void* allocate(std::size_t n, Zero zero);

  // Returns the span at p to the heap and marks it dirty. Throws
  // std::system_error for a null, unknown, interior or already-freed p,
  // changing nothing.
  void deallocate(void* p);

  // deallocate(p), also checking that n is the size it was allocated with
  // (any n that rounds up to the span's pages).
  void deallocate(void* p, std::size_t n);

  // Hands up to `bytes` (rounded up to pages) of dirty free memory, cached
  // spans included, back to the kernel, highest addresses first, and marks
  // it zero; returns the bytes released. Throws std::system_error if
  // madvise fails (release_failed), or if emptying the span cache cannot
  // allocate a map node (out_of_memory; nothing changed then).
  std::size_t release(std::size_t bytes = SIZE_MAX);

  // allocate() without exceptions: nullptr and `error` set on failure.
  void* try_allocate(std::size_t n, Zero zero, std::error_code& error) noexcept;

  // deallocate() without exceptions; n == 0 skips the size check.
  std::error_code try_deallocate(void* p, std::size_t n = 0) noexcept;

  // The size of the live span that starts at p (0 if there is none).
  std::size_t span_size(const void* p) const noexcept;

  // Current byte counts.
  PageHeapStats stats() const noexcept;

  // Whether the arenas get MADV_HUGEPAGE (kAuto resolved).
  bool huge_pages() const noexcept;

  // Checks every invariant (spans disjoint, inside arenas, counts add up);
  // returns "" or what is broken. O(spans); for tests.
  std::string check() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Whether the system's THP setting lets MADV_HUGEPAGE take effect
// ("[always]" or "[madvise]" in /sys/kernel/mm/transparent_hugepage/enabled).
bool transparent_huge_pages_available() noexcept;

// A std::pmr::memory_resource over a PageHeap: requests of kMinBytes and up
// go to the heap (with `zero`), smaller ones to `upstream`. Thread-safe as
// the heap and upstream are. Alignments above the page size throw
// std::system_error (bad_alignment); a failed mapping throws std::bad_alloc.
//
// Example:
//   zerolab::PageHeap heap;
//   zerolab::PageHeapResource resource(heap);
//   std::pmr::vector<char> v(1 << 20, &resource);  // the vector zeroes it; the heap does not
class PageHeapResource : public std::pmr::memory_resource {
 public:
  // REQUIRES: heap and upstream outlive the resource.
  explicit PageHeapResource(PageHeap& heap, Zero zero = Zero::no,
                            std::pmr::memory_resource* upstream = std::pmr::new_delete_resource());

  // The heap large requests go to.
  PageHeap& heap() const noexcept { return heap_; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override;
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override;

  PageHeap& heap_;
  Zero zero_;
  std::pmr::memory_resource* upstream_;
};

}  // namespace zerolab

template <>
struct std::is_error_code_enum<zerolab::PageHeapErrc> : std::true_type {};

#endif  // ZEROLAB_PAGE_HEAP_HPP_
