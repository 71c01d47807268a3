// zerolab::PageHeap under concurrent use: threads allocating, writing,
// checking and freeing spans while another releases memory and reads the
// stats. Runs under TSan (label concurrent). Asserts exact outcomes only:
// every Zero::kYes span reads zero, no thread sees another's bytes in its
// live span, and the counts balance at the end.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "page_heap_test_util.hpp"
#include "zerolab/page_heap.hpp"

namespace {

using zerolab::PageHeap;
using zerolab::Zero;
using zerolab::test::small_arenas;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kPage = PageHeap::kPageBytes;

// Every stride-th byte of [p, p + size), from the first, holds value.
bool every_stride_holds(const unsigned char* p, std::size_t size, std::size_t stride,
                        unsigned char value) {
  for (std::size_t off = 0; off < size; off += stride) {
    if (p[off] != value) return false;
  }
  return true;
}

// Runs worker(0) .. worker(threads - 1), each on its own thread, while one
// more thread calls janitor_step() over and over until every worker returned.
template <class Worker, class JanitorStep>
void run_with_janitor(int threads, const Worker& worker, const JanitorStep& janitor_step) {
  std::atomic<bool> done{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) workers.emplace_back(worker, t);
  std::thread janitor([&] {
    while (!done.load()) {
      janitor_step();
      std::this_thread::yield();
    }
  });
  for (auto& w : workers) w.join();
  done = true;
  janitor.join();
}

// Once every thread has freed all it held: nothing in use, every allocation
// matched by a deallocation, every mapped byte free, the heap consistent.
zerolab::PageHeapStats expect_all_freed(const PageHeap& heap) {
  const zerolab::PageHeapStats s = heap.stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.allocations, s.deallocations);
  EXPECT_EQ(s.free_dirty + s.free_zero, s.mapped);
  EXPECT_EQ(heap.check(), "");
  return s;
}

TEST(PageHeapConcurrent, ThreadsAllocateWriteAndFree) {
  PageHeap heap(small_arenas(std::size_t{8} << 20));
  constexpr int kThreads = 4;
  constexpr int kSteps = 600;
  std::atomic<int> bad_zero{0};
  std::atomic<int> bad_pattern{0};
  const auto worker = [&](int t) {
    std::mt19937 rng(static_cast<std::uint32_t>(100 + t));
    struct Held {
      unsigned char* p;
      std::size_t size;
    };
    std::vector<Held> held;
    const auto pattern = static_cast<unsigned char>(0x10 + t);
    for (int step = 0; step < kSteps; ++step) {
      if (held.size() < 6 && (held.empty() || rng() % 2 == 0)) {
        const std::size_t size = PageHeap::kMinBytes + (rng() % 48) * kPage;
        const Zero zero = rng() % 2 == 0 ? Zero::kYes : Zero::kNo;
        auto* p = static_cast<unsigned char*>(heap.allocate(size, zero));
        if (zero == Zero::kYes && !every_stride_holds(p, size, 512, 0)) ++bad_zero;
        std::memset(p, pattern, size);
        held.push_back({p, size});
      } else {
        const std::size_t i = rng() % held.size();
        if (!every_stride_holds(held[i].p, held[i].size, kPage, pattern)) ++bad_pattern;
        heap.deallocate(held[i].p, held[i].size);
        held[i] = held.back();
        held.pop_back();
      }
    }
    for (const Held& h : held) heap.deallocate(h.p);
  };
  std::uint64_t released = 0;
  run_with_janitor(kThreads, worker, [&] {
    released += heap.release(256 * kKiB);
    const zerolab::PageHeapStats s = heap.stats();
    EXPECT_EQ(s.mapped, s.in_use + s.free_dirty + s.free_zero);
  });
  EXPECT_EQ(heap.stats().bytes_released, released);
  EXPECT_EQ(bad_zero.load(), 0);
  EXPECT_EQ(bad_pattern.load(), 0);
  expect_all_freed(heap);
}

// Every thread reuses a few fixed sizes, so most allocations take a cached
// span (often one another thread freed) while the janitor empties the cache
// with release(). Zero::kYes reuse must still read zero.
TEST(PageHeapConcurrent, CachedSpansAcrossThreads) {
  PageHeap heap(small_arenas(std::size_t{8} << 20));
  constexpr int kThreads = 3;
  std::atomic<int> bad_zero{0};
  const auto worker = [&](int t) {
    std::mt19937 rng(static_cast<std::uint32_t>(200 + t));
    for (int step = 0; step < 400; ++step) {
      const std::size_t size = PageHeap::kMinBytes + (rng() % 3) * kPage;
      auto* p = static_cast<unsigned char*>(heap.allocate(size, Zero::kYes));
      if (!every_stride_holds(p, size, 256, 0)) ++bad_zero;
      std::memset(p, 0xEE, size);
      heap.deallocate(p);
    }
  };
  run_with_janitor(kThreads, worker, [&] { heap.release(128 * kKiB); });
  EXPECT_EQ(bad_zero.load(), 0);
  const zerolab::PageHeapStats s = expect_all_freed(heap);
  EXPECT_EQ(heap.release() + s.free_zero, s.mapped)
      << "release() gives back every dirty byte, cached ones too";
}

TEST(PageHeapConcurrent, PmrResourceFromManyThreads) {
  PageHeap heap;
  zerolab::PageHeapResource resource(heap, Zero::kYes);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        std::pmr::vector<std::uint64_t> v(&resource);
        v.resize(16 * 1024 + static_cast<std::size_t>(i) * 64);  // 128 KiB and up
        for (const std::uint64_t x : v) bad += x != 0;
        v.assign(v.size(), 7);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(heap.stats().in_use, 0u);
}

}  // namespace
