// zerolab::PageHeap (zerolab/page_heap.hpp): exact behaviour, exact
// accounting, a randomized property test against a page-level model,
// mmap-failure injection, bad input, and the pmr adapter. No timings.
//
// Reading memory: every byte a test reads was either written by the test
// or handed out as Zero::kYes (zeroed or fresh from the kernel), so no read
// is of an indeterminate value. Zero::kNo reuse is checked only on bytes the
// test wrote before freeing them.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <memory_resource>
#include <random>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

#include "mem/page_heap_cache.hpp"  // SpanCache::kCapacity, for the model
#include "page_heap_test_util.hpp"
#include "zerolab/page_heap.hpp"

namespace {

using zerolab::PageHeap;
using zerolab::PageHeapErrc;
using zerolab::PageHeapOptions;
using zerolab::PageHeapStats;
using zerolab::Zero;
using zerolab::internal::SpanCache;
using zerolab::test::small_arenas;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * kKiB;
constexpr std::size_t kPage = PageHeap::kPageBytes;

bool all_bytes(const void* p, std::size_t n, unsigned char value) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) {
    if (b[i] != value) return false;
  }
  return true;
}

std::error_code code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::system_error& e) {
    return e.code();
  }
  return {};
}

void expect_same(const PageHeapStats& a, const PageHeapStats& b) {
  EXPECT_EQ(a.mapped, b.mapped);
  EXPECT_EQ(a.in_use, b.in_use);
  EXPECT_EQ(a.free_dirty, b.free_dirty);
  EXPECT_EQ(a.free_zero, b.free_zero);
  EXPECT_EQ(a.arenas, b.arenas);
  EXPECT_EQ(a.bytes_zeroed, b.bytes_zeroed);
  EXPECT_EQ(a.bytes_zero_skipped, b.bytes_zero_skipped);
  EXPECT_EQ(a.allocations, b.allocations);
  EXPECT_EQ(a.deallocations, b.deallocations);
}

TEST(PageHeap, MapsNothingUntilTheFirstAllocation) {
  PageHeap heap(small_arenas());
  const PageHeapStats s = heap.stats();
  EXPECT_EQ(s.mapped, 0u);
  EXPECT_EQ(s.arenas, 0u);
  EXPECT_EQ(heap.check(), "");
}

TEST(PageHeap, FreshMemoryIsNotZeroedAgain) {
  PageHeap heap(small_arenas());
  void* p = heap.allocate(100 * kKiB, Zero::kYes);  // rounds to 25 pages
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (2 * kMiB), 0u) << "arenas are 2 MiB-aligned";
  EXPECT_EQ(heap.span_size(p), 100 * kKiB);
  EXPECT_TRUE(all_bytes(p, 100 * kKiB, 0));
  const PageHeapStats s = heap.stats();
  EXPECT_EQ(s.mapped, 2 * kMiB);
  EXPECT_EQ(s.arenas, 1u);
  EXPECT_EQ(s.in_use, 100 * kKiB);
  EXPECT_EQ(s.free_zero, 2 * kMiB - 100 * kKiB);
  EXPECT_EQ(s.free_dirty, 0u);
  EXPECT_EQ(s.bytes_zeroed, 0u);
  EXPECT_EQ(s.bytes_zero_skipped, 100 * kKiB);
  EXPECT_EQ(s.allocations, 1u);
  heap.deallocate(p);
  EXPECT_EQ(heap.check(), "");
}

TEST(PageHeap, SizesRoundUpToPages) {
  PageHeap heap(small_arenas());
  void* p = heap.allocate(64 * kKiB + 1, Zero::kNo);
  EXPECT_EQ(heap.span_size(p), 64 * kKiB + kPage);
  EXPECT_EQ(heap.stats().in_use, 64 * kKiB + kPage);
  heap.deallocate(p, 64 * kKiB + 1);  // the size it was allocated with
  EXPECT_EQ(heap.stats().in_use, 0u);
}

TEST(PageHeap, DirtyMemoryIsZeroedOnlyWhenAsked) {
  PageHeap heap(small_arenas());
  auto* p = static_cast<unsigned char*>(heap.allocate(256 * kKiB, Zero::kYes));
  std::memset(p, 0xAB, 256 * kKiB);
  heap.deallocate(p);
  EXPECT_EQ(heap.stats().free_dirty, 256 * kKiB);

  // Zero::kNo: first fit gives the same span back, untouched.
  auto* q = static_cast<unsigned char*>(heap.allocate(256 * kKiB, Zero::kNo));
  ASSERT_EQ(q, p);
  EXPECT_TRUE(all_bytes(q, 256 * kKiB, 0xAB));
  EXPECT_EQ(heap.stats().bytes_zeroed, 0u);
  EXPECT_EQ(heap.stats().bytes_zero_skipped, 256 * kKiB) << "only the first, fresh allocation";
  heap.deallocate(q);

  // Zero::kYes: zeroed with zero_fill, and counted.
  auto* r = static_cast<unsigned char*>(heap.allocate(256 * kKiB, Zero::kYes));
  ASSERT_EQ(r, p);
  EXPECT_TRUE(all_bytes(r, 256 * kKiB, 0));
  const PageHeapStats s = heap.stats();
  EXPECT_EQ(s.bytes_zeroed, 256 * kKiB);
  EXPECT_EQ(s.bytes_zero_skipped, 256 * kKiB);
  EXPECT_EQ(s.free_dirty, 0u);
  heap.deallocate(r);
}

TEST(PageHeap, OnlyTheDirtyPartOfASpanIsZeroed) {
  PageHeap heap(small_arenas());
  auto* a = static_cast<unsigned char*>(heap.allocate(64 * kKiB, Zero::kNo));
  auto* b = static_cast<unsigned char*>(heap.allocate(64 * kKiB, Zero::kNo));
  ASSERT_EQ(b, a + 64 * kKiB) << "first fit by address";
  std::memset(a, 0x11, 64 * kKiB);
  heap.deallocate(a);
  // 192 KiB from a's address: a's 64 KiB are dirty, then b is live, so the
  // span cannot start at a; the first fit is past b.
  auto* c = static_cast<unsigned char*>(heap.allocate(192 * kKiB, Zero::kYes));
  EXPECT_EQ(c, b + 64 * kKiB);
  EXPECT_EQ(heap.stats().bytes_zeroed, 0u);
  heap.deallocate(b);  // coalesces with a: 128 KiB free at a, 64 dirty + 64 dirty
  std::memset(c, 0x22, 192 * kKiB);
  heap.deallocate(c);  // all one free range from a now
  EXPECT_EQ(heap.stats().free_dirty, 320 * kKiB);
  // 512 KiB from a: 320 KiB dirty, 192 KiB fresh.
  auto* d = static_cast<unsigned char*>(heap.allocate(512 * kKiB, Zero::kYes));
  ASSERT_EQ(d, a);
  EXPECT_TRUE(all_bytes(d, 512 * kKiB, 0));
  const PageHeapStats s = heap.stats();
  EXPECT_EQ(s.bytes_zeroed, 320 * kKiB);
  EXPECT_EQ(s.bytes_zero_skipped, 192 * kKiB + 192 * kKiB);
  EXPECT_EQ(s.free_dirty, 0u);
  EXPECT_EQ(s.in_use, 512 * kKiB);
  EXPECT_EQ(heap.check(), "");
  heap.deallocate(d);
}

TEST(PageHeap, ReleaseMakesDirtyMemoryZeroAgain) {
  PageHeap heap(small_arenas());
  auto* p = static_cast<unsigned char*>(heap.allocate(512 * kKiB, Zero::kNo));
  std::memset(p, 0x5A, 512 * kKiB);
  heap.deallocate(p);
  // Partial release: the highest dirty addresses first, rounded to pages.
  EXPECT_EQ(heap.release(100 * kKiB + 1), 100 * kKiB + kPage);
  EXPECT_EQ(heap.stats().free_dirty, 512 * kKiB - 100 * kKiB - kPage);
  EXPECT_EQ(heap.stats().bytes_released, 100 * kKiB + kPage);
  EXPECT_TRUE(all_bytes(p + 512 * kKiB - 100 * kKiB - kPage, 100 * kKiB + kPage, 0))
      << "released pages read as zero (read through the free span: the test owns the mapping's "
         "bytes)";
  EXPECT_EQ(heap.release(), 512 * kKiB - 100 * kKiB - kPage);
  EXPECT_EQ(heap.release(), 0u) << "nothing dirty left";
  PageHeapStats s = heap.stats();
  EXPECT_EQ(s.free_dirty, 0u);
  EXPECT_EQ(s.free_zero, 2 * kMiB);
  EXPECT_EQ(s.bytes_released, 512 * kKiB);

  auto* q = static_cast<unsigned char*>(heap.allocate(512 * kKiB, Zero::kYes));
  ASSERT_EQ(q, p);
  EXPECT_TRUE(all_bytes(q, 512 * kKiB, 0));
  s = heap.stats();
  EXPECT_EQ(s.bytes_zeroed, 0u) << "released memory is trusted zero";
  EXPECT_EQ(s.bytes_zero_skipped, 512 * kKiB);
  heap.deallocate(q);
}

TEST(PageHeap, CoalescesFreedNeighbours) {
  PageHeap heap(small_arenas());
  void* a = heap.allocate(64 * kKiB, Zero::kNo);
  void* b = heap.allocate(64 * kKiB, Zero::kNo);
  void* c = heap.allocate(64 * kKiB, Zero::kNo);
  heap.deallocate(b);
  heap.deallocate(a);
  heap.deallocate(c);
  EXPECT_EQ(heap.check(), "");
  // One free range again: the whole arena fits in one span.
  void* all = heap.allocate(2 * kMiB, Zero::kNo);
  EXPECT_EQ(all, a);
  EXPECT_EQ(heap.stats().arenas, 1u);
  heap.deallocate(all);
}

TEST(PageHeap, GrowsByArenasAndGivesLargeRequestsTheirOwn) {
  PageHeap heap(small_arenas(2 * kMiB));
  void* a = heap.allocate(1536 * kKiB, Zero::kYes);
  void* b = heap.allocate(1536 * kKiB, Zero::kYes);  // does not fit the first arena's rest
  EXPECT_EQ(heap.stats().arenas, 2u);
  void* big = heap.allocate(5 * kMiB, Zero::kYes);  // rounded to 6 MiB, an arena of its own
  PageHeapStats s = heap.stats();
  EXPECT_EQ(s.arenas, 3u);
  EXPECT_EQ(s.mapped, 2 * kMiB + 2 * kMiB + 6 * kMiB);
  EXPECT_EQ(s.in_use, 2 * 1536 * kKiB + 5 * kMiB);
  EXPECT_EQ(s.free_zero, s.mapped - s.in_use);
  // A small request takes the hole at the lowest address (arenas are mapped
  // wherever the kernel puts them, often downwards).
  void* c = heap.allocate(512 * kKiB, Zero::kYes);
  char* const holes[] = {static_cast<char*>(a) + 1536 * kKiB, static_cast<char*>(b) + 1536 * kKiB,
                         static_cast<char*>(big) + 5 * kMiB};
  EXPECT_EQ(static_cast<char*>(c), *std::min_element(std::begin(holes), std::end(holes)));
  for (void* p : {a, b, big, c}) heap.deallocate(p);
  s = heap.stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.free_dirty, 2 * 1536 * kKiB + 5 * kMiB + 512 * kKiB) << "what was handed out";
  EXPECT_EQ(s.free_zero, s.mapped - s.free_dirty);
  EXPECT_EQ(heap.check(), "");
}

TEST(PageHeap, BadInputIsAClearErrorThatChangesNothing) {
  PageHeap heap(small_arenas());
  void* p = heap.allocate(64 * kKiB, Zero::kYes);
  void* q = heap.allocate(128 * kKiB, Zero::kYes);
  heap.deallocate(q);
  const PageHeapStats before = heap.stats();

  EXPECT_EQ(code_of([&] { heap.allocate(0, Zero::kYes); }), PageHeapErrc::kTooSmall);
  EXPECT_EQ(code_of([&] { heap.allocate(64 * kKiB - 1, Zero::kNo); }), PageHeapErrc::kTooSmall);
  EXPECT_EQ(code_of([&] { heap.allocate(SIZE_MAX, Zero::kYes); }), PageHeapErrc::kTooLarge);
  EXPECT_EQ(code_of([&] { heap.allocate(SIZE_MAX - kPage + 2, Zero::kYes); }),
            PageHeapErrc::kTooLarge);
  EXPECT_EQ(code_of([&] { heap.deallocate(nullptr); }), PageHeapErrc::kNullPointer);
  int on_stack = 0;
  EXPECT_EQ(code_of([&] { heap.deallocate(&on_stack); }), PageHeapErrc::kUnknownPointer);
  EXPECT_EQ(code_of([&] { heap.deallocate(static_cast<char*>(p) + kPage); }),
            PageHeapErrc::kInteriorPointer);
  EXPECT_EQ(code_of([&] { heap.deallocate(q); }), PageHeapErrc::kDoubleFree);
  EXPECT_EQ(code_of([&] { heap.deallocate(static_cast<char*>(q) + kPage); }),
            PageHeapErrc::kDoubleFree);
  EXPECT_EQ(code_of([&] { heap.deallocate(p, 128 * kKiB); }), PageHeapErrc::kSizeMismatch);
  EXPECT_EQ(code_of([&] { heap.deallocate(p, 0); }), PageHeapErrc::kSizeMismatch);
  EXPECT_EQ(code_of([&] { heap.deallocate(p, SIZE_MAX); }), PageHeapErrc::kSizeMismatch);

  expect_same(before, heap.stats());
  EXPECT_EQ(heap.check(), "");
  EXPECT_EQ(heap.span_size(p), 64 * kKiB) << "p is still live after the failed calls";

  // The messages say what was wrong.
  try {
    heap.deallocate(q);
    FAIL() << "no exception";
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find("double free"), std::string::npos) << e.what();
    EXPECT_STREQ(e.code().category().name(), "zerolab.page_heap");
  }
  heap.deallocate(p);
}

TEST(PageHeap, TryCallsReturnCodes) {
  PageHeap heap(small_arenas());
  std::error_code error;
  EXPECT_EQ(heap.try_allocate(10, Zero::kYes, error), nullptr);
  EXPECT_EQ(error, PageHeapErrc::kTooSmall);
  EXPECT_EQ(error, std::errc::invalid_argument);
  void* p = heap.try_allocate(64 * kKiB, Zero::kYes, error);
  ASSERT_NE(p, nullptr);
  EXPECT_FALSE(error);
  EXPECT_FALSE(heap.try_deallocate(p));
  EXPECT_EQ(heap.try_deallocate(p), PageHeapErrc::kDoubleFree);
  EXPECT_EQ(heap.try_deallocate(nullptr), PageHeapErrc::kNullPointer);
}

// A mapping function that fails on demand, and counts.
struct FlakyMapper {
  int fail = 0;  // fail this many calls from now on
  int maps = 0;
  int unmaps = 0;
  std::map<void*, std::size_t> live;
  PageHeapOptions options(std::size_t arena) {
    PageHeapOptions o = small_arenas(arena);
    o.map = [this](std::size_t bytes) -> void* {
      if (fail > 0) {
        --fail;
        errno = ENOMEM;
        return nullptr;
      }
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) return nullptr;
      ++maps;
      live[p] = bytes;
      return p;
    };
    o.unmap = [this](void* p, std::size_t bytes) {
      ++unmaps;
      EXPECT_EQ(live[p], bytes);
      live.erase(p);
      munmap(p, bytes);
    };
    return o;
  }
};

TEST(PageHeap, MappingFailureIsACleanError) {
  FlakyMapper mapper;
  {
    PageHeap heap(mapper.options(2 * kMiB));
    mapper.fail = 1;
    try {
      heap.allocate(64 * kKiB, Zero::kYes);
      FAIL() << "no exception";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), PageHeapErrc::kOutOfMemory);
      EXPECT_EQ(e.code(), std::errc::not_enough_memory);
      EXPECT_NE(std::string(e.what()).find(std::strerror(ENOMEM)), std::string::npos) << e.what();
    }
    EXPECT_EQ(heap.stats().mapped, 0u);
    EXPECT_EQ(heap.check(), "");

    // The next attempt maps; a request that needs a second arena fails cleanly
    // and leaves the first arena's spans alone.
    auto* a = static_cast<unsigned char*>(heap.allocate(1 * kMiB, Zero::kYes));
    std::memset(a, 0x77, 1 * kMiB);
    const PageHeapStats before = heap.stats();
    mapper.fail = 1;
    std::error_code error;
    EXPECT_EQ(heap.try_allocate(2 * kMiB, Zero::kYes, error), nullptr);
    EXPECT_EQ(error, PageHeapErrc::kOutOfMemory);
    expect_same(before, heap.stats());
    EXPECT_EQ(heap.check(), "");
    EXPECT_TRUE(all_bytes(a, 1 * kMiB, 0x77));
    // A request that fits the existing arena needs no mapping.
    mapper.fail = 1;
    void* b = heap.allocate(512 * kKiB, Zero::kYes);
    EXPECT_NE(b, nullptr);
    mapper.fail = 0;
    void* c = heap.allocate(2 * kMiB, Zero::kYes);
    EXPECT_EQ(heap.stats().arenas, 2u);
    for (void* p : {static_cast<void*>(a), b, c}) heap.deallocate(p);
    EXPECT_EQ(mapper.maps, 2);
    EXPECT_EQ(mapper.unmaps, 0);
  }
  EXPECT_EQ(mapper.unmaps, 2) << "the destructor unmaps every arena, with its mapping's size";
  EXPECT_TRUE(mapper.live.empty());
}

TEST(PageHeap, PrefaultMakesPagesResidentWithoutChangingThem) {
  PageHeapOptions o = small_arenas();
  o.prefault = true;
  PageHeap heap(o);
  auto* p = static_cast<unsigned char*>(heap.allocate(256 * kKiB, Zero::kYes));
  std::vector<unsigned char> residency(256 * kKiB / kPage);
  ASSERT_EQ(mincore(p, 256 * kKiB, residency.data()), 0);
  for (const unsigned char r : residency) EXPECT_EQ(r & 1, 1);
  EXPECT_TRUE(all_bytes(p, 256 * kKiB, 0));
  std::memset(p, 0x3C, 256 * kKiB);
  heap.deallocate(p);
  auto* q = static_cast<unsigned char*>(heap.allocate(256 * kKiB, Zero::kNo));
  ASSERT_EQ(q, p);
  EXPECT_TRUE(all_bytes(q, 256 * kKiB, 0x3C));
  heap.deallocate(q);
}

TEST(PageHeap, HugePageOption) {
  PageHeapOptions o;
  o.huge_pages = zerolab::HugePages::kOff;
  EXPECT_FALSE(PageHeap(o).huge_pages());
  o.huge_pages = zerolab::HugePages::kOn;
  EXPECT_TRUE(PageHeap(o).huge_pages());
  o.huge_pages = zerolab::HugePages::kAuto;
  EXPECT_EQ(PageHeap(o).huge_pages(), zerolab::transparent_huge_pages_available());
}

// ---- the span cache: freed spans kept whole for the next allocation of
// their exact size ---------------------------------------------------------

TEST(PageHeapCache, AFreedSpanComesBackZeroedForZeroYes) {
  constexpr std::size_t kSize = 100 * kKiB;  // 25 pages
  PageHeap heap(small_arenas());
  auto* p = static_cast<unsigned char*>(heap.allocate(kSize, Zero::kYes));
  std::memset(p, 0xAB, kSize);
  heap.deallocate(p);
  PageHeapStats s = heap.stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.free_dirty, kSize) << "a cached span is free dirty memory";
  EXPECT_EQ(s.free_zero, 2 * kMiB - kSize);
  EXPECT_EQ(heap.span_size(p), 0u) << "a cached span is not live";
  EXPECT_EQ(heap.check(), "");

  auto* q = static_cast<unsigned char*>(heap.allocate(kSize, Zero::kYes));
  ASSERT_EQ(q, p);
  EXPECT_TRUE(all_bytes(q, kSize, 0));
  s = heap.stats();
  EXPECT_EQ(s.bytes_zeroed, kSize);
  EXPECT_EQ(s.bytes_zero_skipped, kSize) << "only the first, fresh allocation";
  EXPECT_EQ(s.in_use, kSize);
  EXPECT_EQ(s.free_dirty, 0u);
  EXPECT_EQ(heap.span_size(q), kSize);

  // Zero::kNo gets the old bytes back, and counts nothing; any n that rounds
  // to the same page count hits.
  std::memset(q, 0xCD, kSize);
  heap.deallocate(q, kSize);
  auto* r = static_cast<unsigned char*>(heap.allocate(kSize - kPage + 1, Zero::kNo));
  ASSERT_EQ(r, p);
  EXPECT_TRUE(all_bytes(r, kSize, 0xCD));
  s = heap.stats();
  EXPECT_EQ(s.bytes_zeroed, kSize);
  EXPECT_EQ(s.allocations, 3u);
  EXPECT_EQ(s.deallocations, 2u);
  heap.deallocate(r);
  EXPECT_EQ(heap.check(), "");
}

TEST(PageHeapCache, NewestSpanOfTheExactSizeFirst) {
  PageHeap heap(small_arenas());
  void* a = heap.allocate(64 * kKiB, Zero::kNo);
  void* b = heap.allocate(64 * kKiB, Zero::kNo);
  void* c = heap.allocate(128 * kKiB, Zero::kNo);
  void* d = heap.allocate(64 * kKiB, Zero::kNo);  // keeps c from the free tail
  heap.deallocate(a);
  heap.deallocate(c);
  heap.deallocate(b);
  EXPECT_EQ(heap.stats().free_dirty, 256 * kKiB);
  EXPECT_EQ(heap.allocate(64 * kKiB, Zero::kYes), b) << "LIFO";
  EXPECT_EQ(heap.allocate(128 * kKiB, Zero::kYes), c) << "an older span of another size";
  EXPECT_EQ(heap.allocate(64 * kKiB, Zero::kYes), a);
  const PageHeapStats s = heap.stats();
  EXPECT_EQ(s.bytes_zeroed, 256 * kKiB);
  EXPECT_EQ(s.bytes_zero_skipped, 0u);
  EXPECT_EQ(s.free_dirty, 0u);
  EXPECT_EQ(s.in_use, 320 * kKiB);
  EXPECT_EQ(s.arenas, 1u);
  EXPECT_EQ(heap.check(), "");
  for (void* p : {a, b, c, d}) heap.deallocate(p);
}

TEST(PageHeapCache, AMissReturnsCachedSpansToTheFreeRanges) {
  PageHeap heap(small_arenas());
  auto* a = static_cast<unsigned char*>(heap.allocate(64 * kKiB, Zero::kNo));
  auto* b = static_cast<unsigned char*>(heap.allocate(64 * kKiB, Zero::kNo));
  auto* c = static_cast<unsigned char*>(heap.allocate(64 * kKiB, Zero::kNo));
  auto* d = static_cast<unsigned char*>(heap.allocate(64 * kKiB, Zero::kNo));  // live after c
  ASSERT_EQ(b, a + 64 * kKiB);
  ASSERT_EQ(c, b + 64 * kKiB);
  ASSERT_EQ(d, c + 64 * kKiB);
  std::memset(a, 1, 192 * kKiB);
  heap.deallocate(b);
  heap.deallocate(a);  // both cached, not yet coalesced
  // 128 KiB is no cached size: a and b go back to the free ranges, coalesce
  // into one 128 KiB range at a, and first fit takes it.
  auto* ab = static_cast<unsigned char*>(heap.allocate(128 * kKiB, Zero::kYes));
  ASSERT_EQ(ab, a);
  EXPECT_TRUE(all_bytes(ab, 128 * kKiB, 0));
  PageHeapStats s = heap.stats();
  EXPECT_EQ(s.bytes_zeroed, 128 * kKiB) << "both pieces were dirty";
  EXPECT_EQ(s.free_dirty, 0u);
  EXPECT_EQ(heap.check(), "");
  // A miss with a cached span that is not used: it stays free dirty.
  heap.deallocate(c);
  auto* e = static_cast<unsigned char*>(heap.allocate(256 * kKiB, Zero::kYes));
  EXPECT_EQ(e, d + 64 * kKiB) << "c's 64 KiB are too small; the free tail after d";
  s = heap.stats();
  EXPECT_EQ(s.free_dirty, 64 * kKiB);
  EXPECT_EQ(s.bytes_zeroed, 128 * kKiB) << "the tail was fresh";
  // c is an ordinary free range now; a 64 KiB request finds it first fit.
  EXPECT_EQ(heap.allocate(64 * kKiB, Zero::kYes), c);
  EXPECT_EQ(heap.stats().bytes_zeroed, 192 * kKiB);
  EXPECT_EQ(heap.check(), "");
}

TEST(PageHeapCache, ReleaseEmptiesTheCache) {
  PageHeap heap(small_arenas());
  auto* a = static_cast<unsigned char*>(heap.allocate(256 * kKiB, Zero::kNo));
  auto* b = static_cast<unsigned char*>(heap.allocate(256 * kKiB, Zero::kNo));
  std::memset(a, 0x5A, 512 * kKiB);
  heap.deallocate(a);
  heap.deallocate(b);
  // A partial release takes the highest dirty pages: b's top 64 KiB.
  EXPECT_EQ(heap.release(64 * kKiB), 64 * kKiB);
  PageHeapStats s = heap.stats();
  EXPECT_EQ(s.free_dirty, 448 * kKiB);
  EXPECT_EQ(s.free_zero, 2 * kMiB - 448 * kKiB);
  EXPECT_EQ(heap.check(), "");
  // The cache is empty now: the next 256 KiB is a first fit from a, whose
  // pages are all dirty (a and b coalesced when they left the cache).
  auto* c = static_cast<unsigned char*>(heap.allocate(256 * kKiB, Zero::kYes));
  ASSERT_EQ(c, a);
  EXPECT_TRUE(all_bytes(c, 256 * kKiB, 0));
  EXPECT_EQ(heap.stats().bytes_zeroed, 256 * kKiB);
  heap.deallocate(c);
  // A full release gives everything back, cached spans included.
  EXPECT_EQ(heap.release(), 448 * kKiB);
  s = heap.stats();
  EXPECT_EQ(s.free_dirty, 0u);
  EXPECT_EQ(s.free_zero, 2 * kMiB);
  EXPECT_EQ(s.bytes_released, 512 * kKiB);
  EXPECT_EQ(heap.check(), "");
  // Released memory is trusted zero: a Zero::kYes span writes nothing.
  auto* d = static_cast<unsigned char*>(heap.allocate(512 * kKiB, Zero::kYes));
  ASSERT_EQ(d, a);
  EXPECT_TRUE(all_bytes(d, 512 * kKiB, 0));
  s = heap.stats();
  EXPECT_EQ(s.bytes_zeroed, 256 * kKiB);
  EXPECT_EQ(s.bytes_zero_skipped, 512 * kKiB);
  // release(0) changes nothing, the cache included.
  heap.deallocate(d);
  EXPECT_EQ(heap.release(0), 0u);
  EXPECT_EQ(heap.allocate(512 * kKiB, Zero::kNo), d) << "still cached";
  heap.deallocate(d);
}

TEST(PageHeapCache, FreeingACachedSpanAgainIsADoubleFree) {
  PageHeap heap(small_arenas());
  void* p = heap.allocate(128 * kKiB, Zero::kYes);
  void* q = heap.allocate(64 * kKiB, Zero::kYes);
  heap.deallocate(p);  // cached
  const PageHeapStats before = heap.stats();
  EXPECT_EQ(code_of([&] { heap.deallocate(p); }), PageHeapErrc::kDoubleFree);
  EXPECT_EQ(code_of([&] { heap.deallocate(p, 128 * kKiB); }), PageHeapErrc::kDoubleFree);
  EXPECT_EQ(code_of([&] { heap.deallocate(p, 64 * kKiB); }), PageHeapErrc::kDoubleFree)
      << "a double free, whatever the size";
  EXPECT_EQ(code_of([&] { heap.deallocate(static_cast<char*>(p) + kPage); }),
            PageHeapErrc::kDoubleFree)
      << "a pointer into a cached span points into free memory";
  EXPECT_EQ(heap.try_deallocate(p), PageHeapErrc::kDoubleFree);
  EXPECT_EQ(code_of([&] { heap.deallocate(static_cast<char*>(q) + kPage); }),
            PageHeapErrc::kInteriorPointer);
  expect_same(before, heap.stats());
  EXPECT_EQ(heap.check(), "");
  // Still cached after the failed calls: the next 128 KiB gets it.
  EXPECT_EQ(heap.allocate(128 * kKiB, Zero::kNo), p);
  heap.deallocate(p);
  heap.deallocate(q);
}

// The span handed out last is freed without a live-map lookup
// (last_live_start in page_heap.cpp): every bad input on it must still be
// caught, and it must stop being special once freed.
TEST(PageHeapCache, TheSpanHandedOutLastIsValidatedLikeAnyOther) {
  PageHeap heap(small_arenas());
  void* a = heap.allocate(128 * kKiB, Zero::kYes);
  const PageHeapStats live = heap.stats();
  EXPECT_EQ(code_of([&] { heap.deallocate(a, 64 * kKiB); }), PageHeapErrc::kSizeMismatch);
  EXPECT_EQ(code_of([&] { heap.deallocate(a, 256 * kKiB); }), PageHeapErrc::kSizeMismatch);
  EXPECT_EQ(code_of([&] { heap.deallocate(static_cast<char*>(a) + kPage); }),
            PageHeapErrc::kInteriorPointer);
  expect_same(live, heap.stats());
  EXPECT_EQ(heap.check(), "");
  heap.deallocate(a, 128 * kKiB - 1);  // rounds up to the span's size
  EXPECT_EQ(heap.stats().in_use, 0u);
  EXPECT_EQ(heap.stats().free_dirty, 128 * kKiB);
  const PageHeapStats freed = heap.stats();
  EXPECT_EQ(code_of([&] { heap.deallocate(a); }), PageHeapErrc::kDoubleFree);
  EXPECT_EQ(code_of([&] { heap.deallocate(a, 128 * kKiB); }), PageHeapErrc::kDoubleFree);
  expect_same(freed, heap.stats());
  EXPECT_EQ(heap.check(), "");
  // Taken back from the cache, it is the last span handed out again.
  EXPECT_EQ(heap.allocate(128 * kKiB, Zero::kNo), a);
  void* b = heap.allocate(64 * kKiB, Zero::kNo);
  heap.deallocate(a);  // no longer the last: found through the live map
  EXPECT_EQ(code_of([&] { heap.deallocate(a); }), PageHeapErrc::kDoubleFree);
  heap.deallocate(b);
  EXPECT_EQ(code_of([&] { heap.deallocate(b); }), PageHeapErrc::kDoubleFree);
  EXPECT_EQ(heap.stats().in_use, 0u);
  EXPECT_EQ(heap.stats().free_dirty, 192 * kKiB);
  EXPECT_EQ(heap.check(), "");
}

TEST(PageHeapCache, FreesPastTheCapacityGoToTheFreeRanges) {
  constexpr std::size_t kSpans = SpanCache::kCapacity + 8;
  PageHeap heap(small_arenas(16 * kMiB));
  std::vector<void*> spans;
  for (std::size_t i = 0; i < kSpans; ++i) {
    spans.push_back(heap.allocate(64 * kKiB + (i % 3) * kPage, Zero::kNo));
  }
  std::size_t bytes = 0;
  for (void* p : spans) {
    bytes += heap.span_size(p);
    heap.deallocate(p);
    ASSERT_EQ(heap.check(), "");
  }
  PageHeapStats s = heap.stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.free_dirty, bytes);
  EXPECT_EQ(s.deallocations, kSpans);
  // The cached ones (the first kCapacity freed) come back newest first;
  // then the cache is empty and the rest come first fit from the free
  // ranges, where they lie in the same order as before.
  std::set<void*> seen;
  for (std::size_t i = SpanCache::kCapacity; i-- > 0;) {
    void* p = heap.allocate(64 * kKiB + (i % 3) * kPage, Zero::kYes);
    EXPECT_EQ(p, spans[i]) << i;
    EXPECT_TRUE(seen.insert(p).second) << "handed out twice";
    EXPECT_TRUE(all_bytes(p, 64 * kKiB, 0));
  }
  for (std::size_t i = SpanCache::kCapacity; i < kSpans; ++i) {
    void* p = heap.allocate(64 * kKiB + (i % 3) * kPage, Zero::kYes);
    EXPECT_EQ(p, spans[i]) << i;
    EXPECT_TRUE(seen.insert(p).second) << "handed out twice";
    EXPECT_TRUE(all_bytes(p, 64 * kKiB, 0));
  }
  s = heap.stats();
  EXPECT_EQ(s.in_use, bytes);
  EXPECT_EQ(s.bytes_zeroed, bytes);
  EXPECT_EQ(heap.check(), "");
  for (void* p : seen) heap.deallocate(p);
  EXPECT_EQ(heap.release(), bytes);
  EXPECT_EQ(heap.stats().free_zero, heap.stats().mapped);
}

TEST(PageHeapCache, AFailedMappingKeepsTheCounts) {
  FlakyMapper mapper;
  PageHeap heap(mapper.options(2 * kMiB));
  void* a = heap.allocate(512 * kKiB, Zero::kYes);
  void* b = heap.allocate(512 * kKiB, Zero::kYes);
  heap.deallocate(a);  // cached
  const PageHeapStats before = heap.stats();
  mapper.fail = 1;
  std::error_code error;
  EXPECT_EQ(heap.try_allocate(2 * kMiB, Zero::kYes, error), nullptr)
      << "a miss that needs an arena";
  EXPECT_EQ(error, PageHeapErrc::kOutOfMemory);
  expect_same(before, heap.stats());
  EXPECT_EQ(heap.check(), "");
  EXPECT_EQ(code_of([&] { heap.deallocate(a); }), PageHeapErrc::kDoubleFree);
  EXPECT_EQ(heap.allocate(512 * kKiB, Zero::kNo), a) << "a's range is free; first fit finds it";
  heap.deallocate(a);
  heap.deallocate(b);
}

TEST(PageHeapResource, LargeRequestsGoToTheHeapSmallOnesUpstream) {
  PageHeap heap(small_arenas());
  zerolab::PageHeapResource resource(heap);
  {
    std::pmr::vector<char> small(1000, 'x', &resource);
    EXPECT_EQ(heap.stats().in_use, 0u);
    std::pmr::vector<char> large(1 * kMiB, 'y', &resource);
    EXPECT_EQ(heap.stats().in_use, 1 * kMiB);
    EXPECT_EQ(heap.span_size(large.data()), 1 * kMiB);
  }
  EXPECT_EQ(heap.stats().in_use, 0u);
  EXPECT_EQ(code_of([&] { static_cast<void>(resource.allocate(1 * kMiB, 8192)); }),
            PageHeapErrc::kBadAlignment);
  zerolab::PageHeapResource same(heap);
  EXPECT_TRUE(resource.is_equal(same));
  PageHeap other_heap(small_arenas());
  zerolab::PageHeapResource other(other_heap);
  EXPECT_FALSE(resource.is_equal(other));
}

TEST(PageHeapResource, FailedMappingIsBadAlloc) {
  FlakyMapper mapper;
  PageHeap heap(mapper.options(2 * kMiB));
  zerolab::PageHeapResource resource(heap, Zero::kYes);
  mapper.fail = 1;
  EXPECT_THROW(static_cast<void>(resource.allocate(1 * kMiB)), std::bad_alloc);
  void* p = resource.allocate(1 * kMiB);
  EXPECT_TRUE(all_bytes(p, 1 * kMiB, 0));
  resource.deallocate(p, 1 * kMiB);
}

// The property test: random allocations (Zero::kYes and no), frees and
// releases against a page-level model of which free pages are dirty, and of
// the span cache. Checks, at every step: Zero::kYes spans read all zero; a
// new span overlaps no live span; live spans keep the bytes written to
// them; an allocation of a cached span's exact size gets the newest such
// span; freeing a cached span again is a double free that changes nothing;
// the heap's counts equal the model's exactly.
class Model {
 public:
  explicit Model(std::uint32_t seed) : rng_(seed) {}

  void run(int steps) {
    PageHeapOptions o = small_arenas(4 * kMiB);
    PageHeap heap(o);
    for (int step = 0; step < steps; ++step) {
      const unsigned op = pick(100);
      if (op < 50 || live_.empty()) {
        allocate(heap, step);
      } else if (op < 88) {
        free_one(heap);
      } else if (op < 92) {
        double_free(heap);
      } else {
        release(heap);
      }
      ASSERT_NO_FATAL_FAILURE(compare(heap)) << "step " << step;
      if (::testing::Test::HasFatalFailure()) return;
    }
    while (!live_.empty()) free_one(heap);
    compare(heap);
    EXPECT_EQ(heap.check(), "");
  }

 private:
  struct Span {
    std::size_t size;
    unsigned char pattern;
  };

  unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }

  void allocate(PageHeap& heap, int step) {
    // Mostly small (64 KiB .. 512 KiB), sometimes past an arena; one time in
    // three the size of a cached span (any n that rounds to its pages).
    std::size_t size = pick(40) == 0
                           ? (4 * kMiB + pick(4) * 300 * kKiB)
                           : PageHeap::kMinBytes + pick(7 * 16) * kPage + pick(2) * pick(4096);
    if (!cache_.empty() && pick(3) == 0) {
      size = cache_[pick(static_cast<unsigned>(cache_.size()))].second;
      if (size > PageHeap::kMinBytes) size -= pick(static_cast<unsigned>(kPage));
    }
    const Zero zero = pick(2) == 0 ? Zero::kYes : Zero::kNo;
    auto* p = static_cast<unsigned char*>(heap.allocate(size, zero));
    const std::size_t rounded = (size + kPage - 1) / kPage * kPage;
    const auto start = reinterpret_cast<std::uintptr_t>(p);
    ASSERT_EQ(start % kPage, 0u);
    // The cache: the newest span of exactly these pages, or on a miss every
    // cached span goes back to the free ranges.
    auto hit = std::find_if(cache_.rbegin(), cache_.rend(),
                            [&](const auto& c) { return c.second == rounded; });
    const bool from_cache = hit != cache_.rend();
    if (from_cache) {
      ASSERT_EQ(start, hit->first) << "not the newest cached span of its size";
      cache_.erase(std::next(hit).base());
      ++hits_;
    } else {
      cache_.clear();
    }
    // No overlap with any live span.
    auto next = live_.lower_bound(start);
    if (next != live_.end()) {
      ASSERT_GE(next->first, start + rounded) << "overlaps the next live span";
    }
    if (next != live_.begin()) {
      auto prev = std::prev(next);
      ASSERT_LE(prev->first + prev->second.size, start) << "overlaps the previous live span";
    }
    // The model: which of its pages were dirty.
    std::size_t dirty_pages = 0;
    for (auto it = dirty_.lower_bound(start); it != dirty_.end() && *it < start + rounded;) {
      ++dirty_pages;
      it = dirty_.erase(it);
    }
    if (from_cache) {
      ASSERT_EQ(dirty_pages * kPage, rounded) << "a cached span is dirty as a whole";
    }
    if (zero == Zero::kYes) {
      ASSERT_TRUE(all_bytes(p, rounded, 0)) << "a Zero::kYes span is not zero";
      zeroed_ += dirty_pages * kPage;
      skipped_ += rounded - dirty_pages * kPage;
    }
    // Write a pattern on every page (the whole span, one time in four).
    const auto pattern = static_cast<unsigned char>(1 + step % 254);
    if (pick(4) == 0) {
      std::memset(p, pattern, rounded);
    } else {
      for (std::size_t off = 0; off < rounded; off += kPage) p[off] = pattern;
      p[rounded - 1] = pattern;
    }
    live_[start] = {rounded, pattern};
    in_use_ += rounded;
  }

  void free_one(PageHeap& heap) {
    auto it = live_.begin();
    std::advance(it, pick(static_cast<unsigned>(live_.size())));
    auto* p = reinterpret_cast<unsigned char*>(it->first);
    const Span span = it->second;
    for (std::size_t off = 0; off < span.size; off += kPage) {
      ASSERT_EQ(p[off], span.pattern) << "a live span lost its bytes";
    }
    ASSERT_EQ(p[span.size - 1], span.pattern);
    if (pick(2) == 0) {
      heap.deallocate(p);
    } else {
      heap.deallocate(p, span.size);
    }
    for (std::size_t off = 0; off < span.size; off += kPage) dirty_.insert(it->first + off);
    if (cache_.size() < SpanCache::kCapacity) cache_.emplace_back(it->first, span.size);
    in_use_ -= span.size;
    live_.erase(it);
  }

  // Frees a cached span again (at its start or inside it): a double free.
  void double_free(PageHeap& heap) {
    if (cache_.empty()) return;
    const auto& [start, size] = cache_[pick(static_cast<unsigned>(cache_.size()))];
    const std::uintptr_t at = start + pick(static_cast<unsigned>(size / kPage)) * kPage;
    ASSERT_EQ(heap.try_deallocate(reinterpret_cast<void*>(at), pick(2) == 0 ? 0 : size),
              PageHeapErrc::kDoubleFree);
    ASSERT_EQ(heap.span_size(reinterpret_cast<void*>(start)), 0u);
  }

  void release(PageHeap& heap) {
    const std::size_t want = pick(3) == 0 ? SIZE_MAX : (1 + pick(64)) * kPage;
    const std::size_t got = heap.release(want);
    cache_.clear();
    std::size_t expected = 0;
    while (!dirty_.empty() && expected < want) {  // the highest pages first
      dirty_.erase(std::prev(dirty_.end()));
      expected += kPage;
    }
    ASSERT_EQ(got, expected);
    released_ += expected;
  }

  void compare(const PageHeap& heap) {
    const PageHeapStats s = heap.stats();
    ASSERT_EQ(s.in_use, in_use_);
    ASSERT_EQ(s.free_dirty, dirty_.size() * kPage);
    ASSERT_EQ(s.mapped, s.in_use + s.free_dirty + s.free_zero);
    ASSERT_EQ(s.bytes_zeroed, zeroed_);
    ASSERT_EQ(s.bytes_zero_skipped, skipped_);
    ASSERT_EQ(s.bytes_released, released_);
  }

  std::mt19937 rng_;
  std::map<std::uintptr_t, Span> live_;
  std::set<std::uintptr_t> dirty_;                             // free pages that may hold old bytes
  std::vector<std::pair<std::uintptr_t, std::size_t>> cache_;  // oldest first
  std::size_t in_use_ = 0;
  std::uint64_t zeroed_ = 0;
  std::uint64_t skipped_ = 0;
  std::uint64_t released_ = 0;

 public:
  int hits_ = 0;
};

TEST(PageHeapProperty, RandomOperationsAgainstAModel) {
  for (const std::uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Model model(seed);
    model.run(2000);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_GT(model.hits_, 100) << "the cache's fast path ran";
  }
}

}  // namespace
