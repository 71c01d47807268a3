// Tests for zerolab::alloc_hooks (src/alloc_hooks/): exact allocation counts
// for every allocation entry point, per-thread pausing, cross-thread and
// exited-thread summation, counter-block reuse, and heap tracking. The same
// assertions hold in all three modes (interpose, asan, tsan); the few places
// where a sanitizer's allocator behaves differently say why.
//
// Thread-safety: the tests start their own threads and join them before
// reading totals; each measured window is kept free of gtest calls, because
// gtest allocates too.
//
// Example (the pattern every test uses):
//   const Delta d = measure([&] { p = new int; escape(p); });
//   EXPECT_EQ(d.allocs, 1u);
#include "alloc_hooks/hooks_abi.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#if defined(__SANITIZE_ADDRESS__)
#define ZEROLAB_TEST_ASAN 1
#elif defined(__SANITIZE_THREAD__)
#define ZEROLAB_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZEROLAB_TEST_ASAN 1
#elif __has_feature(thread_sanitizer)
#define ZEROLAB_TEST_TSAN 1
#endif
#endif

// By default the sanitizers abort on an allocation they cannot satisfy; the
// failure tests need the C behaviour (nullptr + errno) instead.
#if defined(ZEROLAB_TEST_ASAN)
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}
#elif defined(ZEROLAB_TEST_TSAN)
extern "C" const char* __tsan_default_options() {
  return "allocator_may_return_null=1";
}
#endif

namespace {

#if defined(ZEROLAB_TEST_ASAN)
constexpr const char* kExpectedMode = "asan";
#elif defined(ZEROLAB_TEST_TSAN)
constexpr const char* kExpectedMode = "tsan";
#else
constexpr const char* kExpectedMode = "interpose";
constexpr bool kInterposed = true;
#endif
#if defined(ZEROLAB_TEST_ASAN) || defined(ZEROLAB_TEST_TSAN)
constexpr bool kInterposed = false;
#endif

// Sizes the optimiser cannot see, so it neither folds nor warns about them.
volatile std::size_t g_huge = SIZE_MAX;
volatile std::size_t g_half = SIZE_MAX / 2;
volatile std::size_t g_odd_alignment = 3;

struct Delta {
  std::uint64_t allocs;
  std::uint64_t bytes;
};

zerolab_alloc_totals read_totals() {
  zerolab_alloc_totals totals{};
  zerolab_alloc_hooks_totals(&totals);
  return totals;
}

template <typename Fn>
Delta measure(Fn&& fn) {
  const zerolab_alloc_totals before = read_totals();
  fn();
  const zerolab_alloc_totals after = read_totals();
  return {after.allocs - before.allocs, after.bytes - before.bytes};
}

// Makes the pointer (and the memory behind it) escape, so new/delete and
// malloc/free pairs are not elided. A template rather than a const void*
// parameter, which GCC would take as a read of (uninitialised) memory.
template <typename T>
inline void escape(T* p) {
  __asm__ __volatile__("" : : "r"(p) : "memory");
}

// Hides a pointer's identity from the optimiser: the failed-realloc tests
// keep using a block after a realloc that did not free it, which GCC's
// -Wuse-after-free cannot know.
inline void* opaque(void* p) {
  __asm__ __volatile__("" : "+r"(p));
  return p;
}

// Runs fn on a new thread with the calling thread paused, so only what fn
// allocates (on the new thread) is counted.
template <typename Fn>
void run_on_thread(Fn fn) {
  zerolab_alloc_hooks_pause_thread(1);
  std::thread thread(fn);
  thread.join();
  zerolab_alloc_hooks_pause_thread(-1);
}

void new_delete_ints(int count) {
  for (int i = 0; i < count; ++i) {
    int* p = new int(i);
    escape(p);
    delete p;
  }
}

bool is_aligned(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

struct alignas(128) OverAligned {
  unsigned char bytes[200];
};
static_assert(sizeof(OverAligned) == 256);

// ---- mode ------------------------------------------------------------------

TEST(AllocHooksMode, MatchesBuild) {
  EXPECT_STREQ(zerolab_alloc_hooks_mode(), kExpectedMode);
}

// ---- operator new and library types ----------------------------------------

TEST(AllocHooksCounts, NewIntCountsOnce) {
  const Delta d = measure([] {
    int* p = new int;
    escape(p);
    delete p;  // frees count nothing
  });
  EXPECT_EQ(d.allocs, 1u);
  EXPECT_EQ(d.bytes, sizeof(int));
}

TEST(AllocHooksCounts, StringOf100Chars) {
  const Delta d = measure([] {
    std::string s(100, 'x');  // capacity 100 + the terminator
    escape(s.data());
  });
  EXPECT_EQ(d.allocs, 1u);
  EXPECT_EQ(d.bytes, 101u);
}

TEST(AllocHooksCounts, VectorGrownByPushBack) {
  // libstdc++'s policy: the first push_back allocates 1 element, each later
  // reallocation doubles the capacity.
  std::uint64_t expected_allocs = 0;
  std::uint64_t expected_bytes = 0;
  for (std::size_t size = 0, capacity = 0; size < 1000; ++size) {
    if (size == capacity) {
      capacity = capacity == 0 ? 1 : 2 * capacity;
      ++expected_allocs;
      expected_bytes += capacity * sizeof(int);
    }
  }
  ASSERT_EQ(expected_allocs, 11u);        // capacities 1, 2, 4, ..., 1024
  ASSERT_EQ(expected_bytes, 4u * 2047u);  // 4 * (2^11 - 1)
  ASSERT_EQ(expected_bytes, 8188u);

  std::size_t final_capacity = 0;
  const Delta d = measure([&] {
    std::vector<int> v;
    for (int i = 0; i < 1000; ++i) v.push_back(i);
    escape(v.data());
    final_capacity = v.capacity();
  });
  EXPECT_EQ(final_capacity, 1024u);
  EXPECT_EQ(d.allocs, expected_allocs);
  EXPECT_EQ(d.bytes, expected_bytes);
}

TEST(AllocHooksCounts, ArrayNew) {
  const Delta d = measure([] {
    char* p = new char[37];
    escape(p);
    delete[] p;
  });
  EXPECT_EQ(d.allocs, 1u);
  EXPECT_EQ(d.bytes, 37u);
}

TEST(AllocHooksCounts, AlignedNewOfOverAlignedStruct) {
  OverAligned* one = nullptr;
  OverAligned* three = nullptr;
  const Delta d_one = measure([&] {
    one = new OverAligned;
    escape(one);
  });
  const Delta d_three = measure([&] {
    three = new OverAligned[3];  // trivially destructible: no array cookie
    escape(three);
  });
  EXPECT_TRUE(is_aligned(one, alignof(OverAligned)));
  EXPECT_TRUE(is_aligned(three, alignof(OverAligned)));
  delete one;
  delete[] three;
  EXPECT_EQ(d_one.allocs, 1u);
  EXPECT_EQ(d_one.bytes, sizeof(OverAligned));
  EXPECT_EQ(d_three.allocs, 1u);
  EXPECT_EQ(d_three.bytes, 3 * sizeof(OverAligned));
}

TEST(AllocHooksCounts, NothrowNew) {
  int* p = nullptr;
  OverAligned* q = nullptr;
  const Delta d = measure([&] {
    p = new (std::nothrow) int;
    escape(p);
    q = new (std::nothrow) OverAligned;
    escape(q);
  });
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_TRUE(is_aligned(q, alignof(OverAligned)));
  delete p;
  delete q;
  EXPECT_EQ(d.allocs, 2u);
  EXPECT_EQ(d.bytes, sizeof(int) + sizeof(OverAligned));
}

TEST(AllocHooksCounts, NothrowNewFailureCountsNothing) {
  void* plain = &plain;
  void* aligned = &aligned;
  const Delta d = measure([&] {
    plain = ::operator new(g_huge, std::nothrow);
    aligned = ::operator new (g_huge, std::align_val_t{64}, std::nothrow);
  });
  EXPECT_EQ(plain, nullptr);
  EXPECT_EQ(aligned, nullptr);
  EXPECT_EQ(d.allocs, 0u);
  EXPECT_EQ(d.bytes, 0u);
}

TEST(AllocHooksCounts, ThrowingNewFailureThrowsAndCountsNothing) {
  if (!kInterposed) {
    // ASan's and TSan's operator new report an out-of-memory error and abort
    // (allocator_may_return_null only covers malloc and nothrow new), so the
    // throwing path exists only in the interposed build.
    GTEST_SKIP() << "the sanitizer's operator new aborts instead of throwing";
  }
  bool caught = false;
  const Delta d = measure([&] {
    try {
      escape(::operator new(g_huge));
    } catch (const std::bad_alloc&) {
      caught = true;
    }
  });
  EXPECT_TRUE(caught);
  EXPECT_EQ(d.allocs, 0u);  // not even the bad_alloc object
  EXPECT_EQ(d.bytes, 0u);
}

int g_handler_calls = 0;

TEST(AllocHooksCounts, NewHandlerLoopThenBadAlloc) {
  if (!kInterposed) GTEST_SKIP() << "the sanitizer's operator new aborts instead of throwing";
  g_handler_calls = 0;
  std::set_new_handler([] {
    if (++g_handler_calls == 2) std::set_new_handler(nullptr);  // give up after two tries
  });
  bool caught = false;
  try {
    escape(::operator new (g_huge, std::align_val_t{64}));
  } catch (const std::bad_alloc&) {
    caught = true;
  }
  std::set_new_handler(nullptr);
  EXPECT_TRUE(caught);
  EXPECT_EQ(g_handler_calls, 2);
}

TEST(AllocHooksCounts, NothrowNewReturnsNullWhenHandlerThrows) {
  if (!kInterposed) GTEST_SKIP() << "the sanitizer's operator new does not call the new_handler";
  g_handler_calls = 0;
  std::set_new_handler([] {
    ++g_handler_calls;
    throw std::bad_alloc();
  });
  void* p = &p;
  const Delta d = measure([&] { p = ::operator new(g_huge, std::nothrow); });
  std::set_new_handler(nullptr);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(g_handler_calls, 1);
  // The handler's own bad_alloc object is a real allocation by user code;
  // operator new's attempt counts nothing.
  EXPECT_EQ(d.allocs, 1u);
}

TEST(AllocHooksCounts, ZeroByteRequestsCountOneByte) {
  // ASan turns a zero-byte request into a one-byte one before its hook sees
  // it, indistinguishable from malloc(1); every mode therefore counts 1 byte.
  const Delta d = measure([] {
    void* p = malloc(0);
    escape(p);
    free(p);
    void* q = ::operator new(0);
    escape(q);
    ::operator delete(q);
  });
  EXPECT_EQ(d.allocs, 2u);
  EXPECT_EQ(d.bytes, 2u);
}

// ---- the C allocation functions ---------------------------------------------

TEST(AllocHooksCounts, MallocAndFree) {
  const Delta d = measure([] {
    void* p = malloc(64);
    escape(p);
    free(p);
    free(nullptr);
  });
  EXPECT_EQ(d.allocs, 1u);
  EXPECT_EQ(d.bytes, 64u);
}

TEST(AllocHooksCounts, Calloc) {
  void* p = nullptr;
  const Delta d = measure([&] {
    p = calloc(10, 8);
    escape(p);
  });
  ASSERT_NE(p, nullptr);
  const auto* bytes = static_cast<const unsigned char*>(p);
  for (int i = 0; i < 80; ++i) EXPECT_EQ(bytes[i], 0) << i;
  free(p);
  EXPECT_EQ(d.allocs, 1u);
  EXPECT_EQ(d.bytes, 80u);
}

TEST(AllocHooksCounts, ReallocGrowShrinkAndNull) {
  char* p = static_cast<char*>(malloc(16));
  ASSERT_NE(p, nullptr);
  std::memcpy(p, "0123456789abcde", 16);
  const Delta grow = measure([&] {
    p = static_cast<char*>(realloc(p, 4096));
    escape(p);
  });
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(std::memcmp(p, "0123456789abcde", 16), 0);
  const Delta shrink = measure([&] {
    p = static_cast<char*>(realloc(p, 8));
    escape(p);
  });
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(std::memcmp(p, "01234567", 8), 0);
  free(p);
  void* q = nullptr;
  const Delta from_null = measure([&] {
    q = realloc(nullptr, 24);
    escape(q);
  });
  ASSERT_NE(q, nullptr);
  free(q);

  EXPECT_EQ(grow.allocs, 1u);
  EXPECT_EQ(grow.bytes, 4096u);
  EXPECT_EQ(shrink.allocs, 1u);
  EXPECT_EQ(shrink.bytes, 8u);
  EXPECT_EQ(from_null.allocs, 1u);
  EXPECT_EQ(from_null.bytes, 24u);
}

TEST(AllocHooksCounts, ReallocToZeroFreesAndCountsNothing) {
  void* p = malloc(100);
  ASSERT_NE(p, nullptr);
  void* result = &result;
  const Delta d = measure([&] { result = realloc(p, 0); });
  EXPECT_EQ(result, nullptr);  // glibc, ASan and TSan all free and return nullptr
  EXPECT_EQ(d.allocs, 0u);
  EXPECT_EQ(d.bytes, 0u);
}

TEST(AllocHooksCounts, ReallocFailureCountsNothingAndKeepsBlock) {
  char* p = static_cast<char*>(malloc(8));
  ASSERT_NE(p, nullptr);
  p[0] = 'k';
  void* result = &result;
  const Delta d = measure([&] { result = realloc(opaque(p), g_huge); });
  EXPECT_EQ(result, nullptr);
  EXPECT_EQ(p[0], 'k');
  free(p);
  EXPECT_EQ(d.allocs, 0u);
  EXPECT_EQ(d.bytes, 0u);
}

TEST(AllocHooksCounts, Reallocarray) {
  void* p = nullptr;
  const Delta d = measure([&] {
    p = reallocarray(nullptr, 3, 7);
    escape(p);
  });
  ASSERT_NE(p, nullptr);
  void* overflow = &overflow;
  errno = 0;
  const Delta d_overflow = measure([&] { overflow = reallocarray(opaque(p), g_half, 3); });
  const int overflow_errno = errno;
  free(p);
  EXPECT_EQ(d.allocs, 1u);
  EXPECT_EQ(d.bytes, 21u);
  EXPECT_EQ(overflow, nullptr);
  EXPECT_EQ(overflow_errno, ENOMEM);
  EXPECT_EQ(d_overflow.allocs, 0u);
}

TEST(AllocHooksCounts, PosixMemalign) {
  void* p = nullptr;
  int rc = -1;
  const Delta d = measure([&] {
    rc = posix_memalign(&p, 64, 100);
    escape(p);
  });
  ASSERT_EQ(rc, 0);
  EXPECT_TRUE(is_aligned(p, 64));
  free(p);
  EXPECT_EQ(d.allocs, 1u);
  EXPECT_EQ(d.bytes, 100u);

  void* bad = &bad;
  int rc_odd = 0;
  int rc_small = 0;
  const Delta d_bad = measure([&] {
    rc_odd = posix_memalign(&bad, g_odd_alignment, 100);  // not a power of two
    rc_small = posix_memalign(&bad, 4, 100);              // not a multiple of sizeof(void*)
  });
  EXPECT_EQ(rc_odd, EINVAL);
  EXPECT_EQ(rc_small, EINVAL);
  EXPECT_EQ(bad, &bad);  // left untouched on failure
  EXPECT_EQ(d_bad.allocs, 0u);
}

TEST(AllocHooksCounts, AlignedAlloc) {
  void* p = nullptr;
  // 192 is a multiple of 64: ASan and TSan (like C11 before DR 460) reject
  // sizes that are not, glibc does not.
  const Delta d = measure([&] {
    p = aligned_alloc(64, 192);
    escape(p);
  });
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(is_aligned(p, 64));
  free(p);
  EXPECT_EQ(d.allocs, 1u);
  EXPECT_EQ(d.bytes, 192u);

  void* bad = &bad;
  errno = 0;
  const Delta d_bad = measure([&] { bad = aligned_alloc(g_odd_alignment, 192); });
  EXPECT_EQ(bad, nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(d_bad.allocs, 0u);
}

TEST(AllocHooksCounts, MemalignVallocPvalloc) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* m = nullptr;
  void* v = nullptr;
  void* pv = nullptr;
  const Delta d_m = measure([&] {
    m = memalign(128, 100);
    escape(m);
  });
  const Delta d_v = measure([&] {
    v = valloc(100);
    escape(v);
  });
  // pvalloc counts what it allocates: the size rounded up to whole pages.
  const Delta d_pv = measure([&] {
    pv = pvalloc(page + 5);
    escape(pv);
  });
  EXPECT_TRUE(is_aligned(m, 128));
  EXPECT_TRUE(is_aligned(v, page));
  EXPECT_TRUE(is_aligned(pv, page));
  free(m);
  free(v);
  free(pv);
  EXPECT_EQ(d_m.allocs, 1u);
  EXPECT_EQ(d_m.bytes, 100u);
  EXPECT_EQ(d_v.allocs, 1u);
  EXPECT_EQ(d_v.bytes, 100u);
  EXPECT_EQ(d_pv.allocs, 1u);
  EXPECT_EQ(d_pv.bytes, 2 * page);
}

TEST(AllocHooksCounts, FailedAllocationsCountNothing) {
  void* m = &m;
  void* c = &c;
  errno = 0;
  const Delta d = measure([&] {
    m = malloc(g_huge);
    c = calloc(g_half, 3);  // n * size overflows
  });
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(c, nullptr);
  EXPECT_EQ(errno, ENOMEM);
  EXPECT_EQ(d.allocs, 0u);
  EXPECT_EQ(d.bytes, 0u);
}

TEST(AllocHooksCounts, MallocUsableSizeForwards) {
  void* p = malloc(100);
  ASSERT_NE(p, nullptr);
  const Delta d = measure([&] { escape(reinterpret_cast<void*>(malloc_usable_size(p))); });
  EXPECT_GE(malloc_usable_size(p), 100u);
  EXPECT_EQ(malloc_usable_size(nullptr), 0u);
  free(p);
  EXPECT_EQ(d.allocs, 0u);
}

// ---- pausing ----------------------------------------------------------------

TEST(AllocHooksPause, PausedThreadIsNotCounted) {
  const Delta paused = measure([] {
    zerolab_alloc_hooks_pause_thread(1);
    new_delete_ints(10);
    zerolab_alloc_hooks_pause_thread(-1);
  });
  EXPECT_EQ(paused.allocs, 0u);
  EXPECT_EQ(paused.bytes, 0u);
}

TEST(AllocHooksPause, Nests) {
  const Delta d = measure([] {
    zerolab_alloc_hooks_pause_thread(1);
    zerolab_alloc_hooks_pause_thread(1);
    new_delete_ints(3);
    zerolab_alloc_hooks_pause_thread(-1);
    new_delete_ints(3);  // still paused: depth 1
    zerolab_alloc_hooks_pause_thread(-1);
    new_delete_ints(2);  // counted
  });
  EXPECT_EQ(d.allocs, 2u);
  EXPECT_EQ(d.bytes, 2 * sizeof(int));
}

TEST(AllocHooksPause, OnlyPausesTheCallingThread) {
  // run_on_thread pauses this thread; the new thread still counts.
  const Delta d = measure([] { run_on_thread([] { new_delete_ints(10); }); });
  EXPECT_EQ(d.allocs, 10u);
  EXPECT_EQ(d.bytes, 10 * sizeof(int));
}

// ---- threads ------------------------------------------------------------------

TEST(AllocHooksThreads, ExitedThreadsStayInTotals) {
  const Delta first = measure([] { run_on_thread([] { new_delete_ints(5); }); });
  // The first thread has exited; its block may now be reused by the second.
  const Delta both = measure([] {
    run_on_thread([] { new_delete_ints(5); });
    run_on_thread([] { new_delete_ints(7); });
  });
  EXPECT_EQ(first.allocs, 5u);
  EXPECT_EQ(both.allocs, 12u);
  EXPECT_EQ(both.bytes, 12 * sizeof(int));
}

TEST(AllocHooksThreads, EightThreadsThousandEach) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 1000;
  const Delta d = measure([] {
    zerolab_alloc_hooks_pause_thread(1);
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&go] {
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        new_delete_ints(kPerThread);
      });
    }
    go.store(true, std::memory_order_release);
    for (std::thread& t : threads) t.join();
    zerolab_alloc_hooks_pause_thread(-1);
  });
  EXPECT_EQ(d.allocs, 8000u);
  EXPECT_EQ(d.bytes, 8000u * sizeof(int));
}

TEST(AllocHooksThreads, BlocksAreReusedAndTotalsStayExact) {
  constexpr int kSequential = 300;
  constexpr int kWaves = 10;
  constexpr int kWaveThreads = 8;
  constexpr int kPerThread = 10;
  run_on_thread([] { new_delete_ints(1); });  // make sure a free block exists
  const std::uint64_t blocks_before = zerolab_alloc_hooks_thread_blocks();
  const Delta sequential = measure([] {
    for (int i = 0; i < kSequential; ++i) run_on_thread([] { new_delete_ints(kPerThread); });
  });
  const Delta waves = measure([] {
    zerolab_alloc_hooks_pause_thread(1);
    for (int w = 0; w < kWaves; ++w) {
      std::vector<std::thread> threads;
      threads.reserve(kWaveThreads);
      for (int i = 0; i < kWaveThreads; ++i)
        threads.emplace_back([] { new_delete_ints(kPerThread); });
      for (std::thread& t : threads) t.join();
    }
    zerolab_alloc_hooks_pause_thread(-1);
  });
  const std::uint64_t blocks_after = zerolab_alloc_hooks_thread_blocks();
  EXPECT_EQ(sequential.allocs, std::uint64_t{kSequential} * kPerThread);
  EXPECT_EQ(waves.allocs, std::uint64_t{kWaves} * kWaveThreads * kPerThread);
  EXPECT_GT(blocks_before, 0u);
  // 380 threads came and went; without reuse that is 380 blocks. At most 9
  // run at once, which one page of 64 blocks covers.
  EXPECT_LE(blocks_after - blocks_before, 64u);
}

TEST(AllocHooksThreads, AbiIsSafeUnderConcurrency) {
  // Mostly for TSan: readers and togglers race with allocating threads.
  std::atomic<bool> stop{false};
  std::atomic<bool> monotonic{true};
  zerolab_alloc_hooks_pause_thread(1);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([] {
      for (int round = 0; round < 200; ++round) {
        new_delete_ints(10);
        void* p = realloc(malloc(32), 64);
        free(p);
      }
    });
  }
  threads.emplace_back([&] {
    std::uint64_t last = 0;
    int round = 0;
    while (!stop.load(std::memory_order_acquire)) {
      const zerolab_alloc_totals t = read_totals();
      if (t.allocs < last) monotonic.store(false);
      last = t.allocs;
      zerolab_alloc_hooks_heap_tracking(++round % 2);
      escape(reinterpret_cast<void*>(zerolab_alloc_hooks_heap_growth() +
                                     zerolab_alloc_hooks_heap_peak_growth()));
      escape(reinterpret_cast<void*>(zerolab_alloc_hooks_heap_in_use() +
                                     zerolab_alloc_hooks_thread_blocks()));
      escape(zerolab_alloc_hooks_mode());
    }
    zerolab_alloc_hooks_heap_tracking(0);
  });
  for (int i = 0; i < 3; ++i) threads[static_cast<std::size_t>(i)].join();
  stop.store(true, std::memory_order_release);
  threads.back().join();
  zerolab_alloc_hooks_pause_thread(-1);
  EXPECT_TRUE(monotonic.load());
}

// ---- heap tracking ------------------------------------------------------------

struct HeapSample {
  std::int64_t growth;
  std::int64_t peak;
};

HeapSample heap_sample() {
  return {zerolab_alloc_hooks_heap_growth(), zerolab_alloc_hooks_heap_peak_growth()};
}

std::int64_t usable(void* p) {
  return static_cast<std::int64_t>(malloc_usable_size(p));
}

TEST(AllocHooksHeap, GrowthAndPeakAreExact) {
  zerolab_alloc_hooks_heap_tracking(1);
  const HeapSample start = heap_sample();
  void* a = malloc(1000);
  escape(a);
  void* b = malloc(5000);
  escape(b);
  const HeapSample both = heap_sample();
  const std::int64_t usable_a = usable(a);
  const std::int64_t usable_b = usable(b);
  free(b);
  const HeapSample after_b = heap_sample();
  free(a);
  const HeapSample end = heap_sample();
  zerolab_alloc_hooks_heap_tracking(0);

  EXPECT_EQ(start.growth, 0);
  EXPECT_EQ(start.peak, 0);
  EXPECT_GE(usable_a, 1000);
  EXPECT_GE(usable_b, 5000);
  EXPECT_EQ(both.growth, usable_a + usable_b);
  EXPECT_EQ(after_b.growth, usable_a);
  EXPECT_EQ(after_b.peak, usable_a + usable_b);
  EXPECT_EQ(end.growth, 0);
  EXPECT_EQ(end.peak, usable_a + usable_b);
}

TEST(AllocHooksHeap, NewDeleteAndRealloc) {
  zerolab_alloc_hooks_heap_tracking(1);
  auto* s = new OverAligned;
  escape(s);
  const std::int64_t usable_s = usable(s);
  const HeapSample with_s = heap_sample();
  delete s;
  void* p = malloc(100);
  escape(p);
  const std::int64_t usable_small = usable(p);
  const auto old_address = reinterpret_cast<std::uintptr_t>(p);
  p = realloc(p, 10000);
  escape(p);
  const bool moved = reinterpret_cast<std::uintptr_t>(p) != old_address;
  const std::int64_t usable_big = usable(p);
  const HeapSample grown = heap_sample();
  void* gone = realloc(p, 0);  // frees
  const HeapSample end = heap_sample();
  zerolab_alloc_hooks_heap_tracking(0);

  EXPECT_EQ(gone, nullptr);
  EXPECT_EQ(with_s.growth, usable_s);
  EXPECT_EQ(grown.growth, usable_big);
  // A realloc that moves the block holds both blocks while it copies, and
  // the peak says so. (ASan and TSan always move; glibc may grow in place.)
  EXPECT_EQ(grown.peak, std::max(usable_s, moved ? usable_small + usable_big : usable_big));
  EXPECT_EQ(end.growth, 0);
}

TEST(AllocHooksHeap, FailedReallocKeepsBlockTracked) {
  void* p = nullptr;
  zerolab_alloc_hooks_heap_tracking(1);
  p = malloc(64);
  escape(p);
  const std::int64_t usable_p = usable(p);
  void* result = realloc(opaque(p), g_huge);
  const HeapSample after = heap_sample();
  free(p);
  const HeapSample end = heap_sample();
  zerolab_alloc_hooks_heap_tracking(0);
  EXPECT_EQ(result, nullptr);
  EXPECT_EQ(after.growth, usable_p);
  EXPECT_EQ(end.growth, 0);
}

TEST(AllocHooksHeap, StartResetsAndPausedThreadIsNotTracked) {
  zerolab_alloc_hooks_heap_tracking(1);
  void* early = malloc(300);
  escape(early);
  zerolab_alloc_hooks_heap_tracking(1);  // restart: growth and peak back to 0
  const HeapSample restarted = heap_sample();
  zerolab_alloc_hooks_pause_thread(1);
  void* p = malloc(4000);
  escape(p);
  free(early);  // paused: not tracked either
  zerolab_alloc_hooks_pause_thread(-1);
  const HeapSample paused = heap_sample();
  const std::int64_t usable_p = usable(p);
  free(p);  // unpaused: tracked, although its allocation was not
  const HeapSample end = heap_sample();
  zerolab_alloc_hooks_heap_tracking(0);

  EXPECT_EQ(restarted.growth, 0);
  EXPECT_EQ(restarted.peak, 0);
  EXPECT_EQ(paused.growth, 0);
  EXPECT_EQ(paused.peak, 0);
  EXPECT_EQ(end.growth, -usable_p);
  EXPECT_EQ(end.peak, 0);
}

TEST(AllocHooksHeap, ThreadAllocationsAreTracked) {
  std::int64_t usable_kept = 0;
  void* kept = nullptr;
  zerolab_alloc_hooks_heap_tracking(1);
  run_on_thread([&] {
    kept = malloc(2048);
    escape(kept);
    usable_kept = usable(kept);
    // std::thread frees its state object after this returns; that block was
    // allocated while the parent was paused, so keep its free out as well.
    zerolab_alloc_hooks_pause_thread(1);
  });
  const HeapSample after = heap_sample();
  free(kept);
  const HeapSample end = heap_sample();
  zerolab_alloc_hooks_heap_tracking(0);
  EXPECT_EQ(after.growth, usable_kept);
  EXPECT_EQ(end.growth, 0);
  EXPECT_EQ(end.peak, usable_kept);
}

TEST(AllocHooksHeap, HeapInUseSeesLargeBlock) {
  constexpr std::size_t kSize = 8u << 20;
  const std::uint64_t before = zerolab_alloc_hooks_heap_in_use();
  void* p = malloc(kSize);
  escape(p);
  const std::uint64_t during = zerolab_alloc_hooks_heap_in_use();
  free(p);
  EXPECT_GE(during, before + kSize);
}

}  // namespace
