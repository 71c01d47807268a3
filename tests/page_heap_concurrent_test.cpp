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

#include "zerolab/page_heap.hpp"

namespace {

using zerolab::PageHeap;
using zerolab::Zero;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kPage = PageHeap::kPageBytes;

TEST(PageHeapConcurrent, ThreadsAllocateWriteAndFree) {
  zerolab::PageHeapOptions o;
  o.arena_bytes = 8 << 20;
  o.huge_pages = zerolab::HugePages::kOff;
  PageHeap heap(o);
  constexpr int kThreads = 4;
  constexpr int kSteps = 600;
  std::atomic<int> bad_zero{0};
  std::atomic<int> bad_pattern{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
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
          if (zero == Zero::kYes) {
            for (std::size_t off = 0; off < size; off += 512) {
              if (p[off] != 0) {
                ++bad_zero;
                break;
              }
            }
          }
          std::memset(p, pattern, size);
          held.push_back({p, size});
        } else {
          const std::size_t i = rng() % held.size();
          for (std::size_t off = 0; off < held[i].size; off += kPage) {
            if (held[i].p[off] != pattern) {
              ++bad_pattern;
              break;
            }
          }
          heap.deallocate(held[i].p, held[i].size);
          held[i] = held.back();
          held.pop_back();
        }
      }
      for (const Held& h : held) heap.deallocate(h.p);
    });
  }
  std::thread janitor([&] {
    std::uint64_t released = 0;
    while (!done.load()) {
      released += heap.release(256 * kKiB);
      const zerolab::PageHeapStats s = heap.stats();
      EXPECT_EQ(s.mapped, s.in_use + s.free_dirty + s.free_zero);
      std::this_thread::yield();
    }
    EXPECT_EQ(heap.stats().bytes_released, released);
  });
  for (auto& t : threads) t.join();
  done = true;
  janitor.join();
  EXPECT_EQ(bad_zero.load(), 0);
  EXPECT_EQ(bad_pattern.load(), 0);
  const zerolab::PageHeapStats s = heap.stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.allocations, s.deallocations);
  EXPECT_EQ(s.free_dirty + s.free_zero, s.mapped);
  EXPECT_EQ(heap.check(), "");
}

// Every thread reuses a few fixed sizes, so most allocations take a cached
// span (often one another thread freed) while the janitor empties the cache
// with release(). Zero::kYes reuse must still read zero.
TEST(PageHeapConcurrent, CachedSpansAcrossThreads) {
  zerolab::PageHeapOptions o;
  o.arena_bytes = 8 << 20;
  o.huge_pages = zerolab::HugePages::kOff;
  PageHeap heap(o);
  constexpr int kThreads = 3;
  std::atomic<int> bad_zero{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<std::uint32_t>(200 + t));
      for (int step = 0; step < 400; ++step) {
        const std::size_t size = PageHeap::kMinBytes + (rng() % 3) * kPage;
        auto* p = static_cast<unsigned char*>(heap.allocate(size, Zero::kYes));
        for (std::size_t off = 0; off < size; off += 256) {
          if (p[off] != 0) {
            ++bad_zero;
            break;
          }
        }
        std::memset(p, 0xEE, size);
        heap.deallocate(p);
      }
    });
  }
  std::thread janitor([&] {
    while (!done.load()) {
      heap.release(128 * kKiB);
      std::this_thread::yield();
    }
  });
  for (auto& t : threads) t.join();
  done = true;
  janitor.join();
  EXPECT_EQ(bad_zero.load(), 0);
  const zerolab::PageHeapStats s = heap.stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.allocations, s.deallocations);
  EXPECT_EQ(s.free_dirty + s.free_zero, s.mapped);
  EXPECT_EQ(heap.check(), "");
  EXPECT_EQ(heap.release() + s.free_zero, s.mapped) << "release() gives back every dirty byte, cached ones too";
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
