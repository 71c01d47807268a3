// zerolab/page_heap.hpp — a lazy-zero heap for large buffers: it knows
// which of its pages are still zero, and zeroes only the ones that are not.
//
// PageHeap hands out page-granular spans (64 KiB and up) from large arenas
// of address space mapped from the kernel, first-fit by address, and
// coalesces them on free. Memory fresh from the kernel reads as zero, so
// allocate(n, Zero::kYes) from it writes nothing (as Go's mallocgc skips
// memclr when span.needzero is 0). Freed spans become dirty;
// allocate(n, Zero::kYes) zeroes exactly the dirty pages with zero_fill.
// release(bytes) hands dirty free pages back with MADV_DONTNEED, after
// which they are trusted zero again (MADV_FREE, which may keep the old
// bytes, is never used); a released page costs a page fault on its next
// touch, so release only what will not be reused soon.
//
// Reuse: the last spans freed (up to 32) are kept whole in a cache, dirty.
// An allocation of exactly a cached span's page count takes the newest such
// span back (zero_fill over all of it for Zero::kYes, no range-map work);
// any other allocation, and release(), first return the cached spans to the
// free ranges. Cached spans count as free_dirty; freeing one again is a
// double free.
//
// Arenas: one mmap(MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE) each of
// PageHeapOptions::arena_bytes (1 GiB by default; a larger request gets an
// arena of its own), aligned to 2 MiB for transparent huge pages, unmapped
// when the heap is destroyed. Untouched pages cost only address space.
// Requests below kMinBytes are rejected (PageHeapErrc::kTooSmall); the
// std::pmr adapter PageHeapResource sends them upstream instead.
//
// Errors: the throwing calls throw std::system_error with a PageHeapErrc
// code (page_heap_category()); the try_ calls return the codes. Bad input —
// a size that overflows, a null, unknown or interior pointer, a double
// free, a size that does not match — is always detected and changes
// nothing. Builds without NDEBUG also check the invariants after every
// change and that skipped pages read as zero.
//
// Thread-safety: every member function is safe to call concurrently. One
// mutex guards the span maps and the cache, taken once per call; zeroing
// and prefaulting run outside it; release() holds it while it madvises.
// The mutex's uncontended unlock is a plain store, not an atomic
// instruction (an atomic one waits for the zeroing's stores still in
// flight); a waiter sleeps at most 200 µs past an unlock it missed.
//
// Example:
//   zerolab::PageHeap heap;
//   void* a = heap.allocate(256 << 20, zerolab::Zero::kYes);  // fresh: no writes
//   heap.deallocate(a);                                     // dirty now
//   void* b = heap.allocate(256 << 20, zerolab::Zero::kYes);  // zero_fill of the dirty pages
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
enum class Zero { kNo, kYes };

// What went wrong in a PageHeap call (the values of its std::error_code).
enum class PageHeapErrc {
  kTooSmall = 1,     // n below PageHeap::kMinBytes (0 included)
  kTooLarge,         // n overflows when rounded up to pages or arenas
  kOutOfMemory,      // mapping a new arena failed
  kNullPointer,      // deallocate(nullptr)
  kUnknownPointer,   // not a pointer this heap handed out
  kInteriorPointer,  // points into a live span, not at its start
  kDoubleFree,       // points into free memory of this heap
  kSizeMismatch,     // deallocate(p, n): n is not the span's size
  kBadAlignment,     // PageHeapResource: alignment above the page size
  kReleaseFailed,    // madvise(MADV_DONTNEED) failed
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
  std::uint64_t bytes_zeroed = 0;        // written by zero_fill for Zero::kYes
  std::uint64_t bytes_zero_skipped = 0;  // Zero::kYes bytes already zero, not written
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
  // with Zero::kYes it reads as zero. Throws std::system_error (PageHeapErrc).
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
  explicit PageHeapResource(PageHeap& heap, Zero zero = Zero::kNo,
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
