// zerolab::internal::PoolChain (src/mem/pool_chain.hpp, pool_chain.cpp),
// the lock-free chain of rings behind Pool's per-thread shared and victim
// caches: LIFO at the head and FIFO at the tail across ring boundaries, the
// doubling and its limit, and a producer racing thieves in which every item
// must come out exactly once. Labelled concurrent: also runs under TSan,
// which checks the memory orders: the items' plain payload is written by the
// producer before the push and read by whoever pops it, with no other
// synchronization between them.
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mem/pool_chain.hpp"

namespace {

using zerolab::internal::PoolChain;

struct Item {
  std::uint64_t id = 0;
  std::uint64_t payload = 0;  // plain: TSan checks the chain's ordering
  std::atomic<int> taken{0};
};

std::vector<std::unique_ptr<Item>> make_items(std::size_t n) {
  std::vector<std::unique_ptr<Item>> v;
  for (std::size_t i = 0; i < n; ++i) {
    v.push_back(std::make_unique<Item>());
    v.back()->id = i;
  }
  return v;
}

TEST(PoolChain, RingLimit) {
  EXPECT_EQ(PoolChain::ring_limit(0), 0u);
  EXPECT_EQ(PoolChain::ring_limit(1), 8u);
  EXPECT_EQ(PoolChain::ring_limit(4), 8u);
  EXPECT_EQ(PoolChain::ring_limit(5), 16u);
  EXPECT_EQ(PoolChain::ring_limit(64), 128u);
  EXPECT_EQ(PoolChain::ring_limit(65), 256u);
  EXPECT_EQ(PoolChain::ring_limit(SIZE_MAX), PoolChain::kMaxRing);
}

TEST(PoolChain, EmptyChainPopsNull) {
  PoolChain c(PoolChain::ring_limit(16));
  EXPECT_EQ(c.pop_head(), nullptr);
  EXPECT_EQ(c.pop_tail(), nullptr);
  EXPECT_EQ(c.rings(), 0u);
  EXPECT_EQ(c.size_bound(), 0u);
  PoolChain none(0);  // bound 0: holds nothing
  int x = 0;
  EXPECT_FALSE(none.push_head(&x));
  EXPECT_EQ(none.rings(), 0u);
}

TEST(PoolChain, TailIsFifoAcrossRings) {
  auto items = make_items(100);
  PoolChain c(PoolChain::ring_limit(1000));
  for (auto& it : items) ASSERT_TRUE(c.push_head(it.get()));
  EXPECT_EQ(c.rings(), 4u);  // 8 + 16 + 32 < 100 <= 8 + 16 + 32 + 64
  EXPECT_EQ(c.size_bound(), 100u);
  for (auto& it : items) ASSERT_EQ(c.pop_tail(), it.get());
  EXPECT_EQ(c.pop_tail(), nullptr);
  EXPECT_EQ(c.pop_head(), nullptr);
  EXPECT_EQ(c.size_bound(), 0u);
}

TEST(PoolChain, HeadIsLifoAcrossRings) {
  auto items = make_items(100);
  PoolChain c(PoolChain::ring_limit(1000));
  for (auto& it : items) ASSERT_TRUE(c.push_head(it.get()));
  for (std::size_t i = items.size(); i-- > 0;) ASSERT_EQ(c.pop_head(), items[i].get());
  EXPECT_EQ(c.pop_head(), nullptr);
  EXPECT_EQ(c.pop_tail(), nullptr);
  // Pushes only go to the newest ring (64 slots), as in Go: 100 need one
  // more ring, of 128; the older ones stay allocated, unused.
  for (auto& it : items) ASSERT_TRUE(c.push_head(it.get()));
  EXPECT_EQ(c.rings(), 5u);
  for (auto& it : items) ASSERT_EQ(c.pop_tail(), it.get());
}

TEST(PoolChain, BothEndsMeet) {
  auto items = make_items(30);
  PoolChain c(PoolChain::ring_limit(64));
  for (auto& it : items) ASSERT_TRUE(c.push_head(it.get()));  // rings of 8 and 16, then 32
  EXPECT_EQ(c.rings(), 3u);
  for (int i = 0; i < 10; ++i) ASSERT_EQ(c.pop_tail(), items[i].get());
  for (int i = 29; i >= 25; --i) ASSERT_EQ(c.pop_head(), items[i].get());
  EXPECT_EQ(c.size_bound(), 15u);
  for (int i = 10; i < 25; ++i) ASSERT_EQ(c.pop_tail(), items[i].get());
  EXPECT_EQ(c.pop_tail(), nullptr);
  EXPECT_EQ(c.pop_head(), nullptr);
}

TEST(PoolChain, StopsGrowingAtTheLimit) {
  auto items = make_items(20);
  PoolChain c(PoolChain::ring_limit(4));  // one ring of 8
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(c.push_head(items[i].get()));
  EXPECT_FALSE(c.push_head(items[8].get()));
  EXPECT_EQ(c.rings(), 1u);
  // Cycling through a full ring reuses its slots.
  for (int round = 0; round < 1000; ++round) {
    void* x = c.pop_tail();
    ASSERT_NE(x, nullptr);
    ASSERT_TRUE(c.push_head(x));
  }
  EXPECT_EQ(c.rings(), 1u);
  EXPECT_EQ(c.size_bound(), 8u);
}

// One producer pushes every item once (and pops some back at the head,
// then pushes them again), thieves pop at the tail; every item must be taken
// exactly once in the end, and its payload must be what the producer wrote.
void race(int thieves, std::size_t limit) {
  constexpr std::size_t kItems = 20000;
  auto items = make_items(kItems);
  PoolChain c(limit);
  std::atomic<bool> done{false};
  std::atomic<int> errors{0};
  auto take = [&](void* p) {
    auto* it = static_cast<Item*>(p);
    if (it->payload != it->id * 3 + 1) errors.fetch_add(1, std::memory_order_relaxed);
    if (it->taken.fetch_add(1, std::memory_order_relaxed) != 0) {
      errors.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> ts;
  for (int t = 0; t < thieves; ++t) {
    ts.emplace_back([&] {
      for (;;) {
        const bool last = done.load(std::memory_order_acquire);
        while (void* p = c.pop_tail()) take(p);
        if (last) break;
        std::this_thread::yield();
      }
    });
  }
  std::vector<Item*> back;  // popped at the head, to push again
  for (std::size_t i = 0; i < kItems; ++i) {
    Item* it = items[i].get();
    it->payload = it->id * 3 + 1;
    if (!c.push_head(it)) {
      take(it);  // full at the limit: the producer keeps it
      continue;
    }
    if (i % 7 == 0) {
      if (void* p = c.pop_head()) back.push_back(static_cast<Item*>(p));
    }
    if (i % 64 == 63) {
      for (Item* b : back) {
        if (!c.push_head(b)) take(b);
      }
      back.clear();
    }
  }
  for (Item* b : back) {
    if (!c.push_head(b)) take(b);
  }
  while (void* p = c.pop_head()) take(p);  // the producer drains too
  done.store(true, std::memory_order_release);
  for (auto& t : ts) t.join();
  EXPECT_EQ(errors.load(), 0);
  std::size_t once = 0;
  for (auto& it : items) once += it->taken.load() == 1 ? 1 : 0;
  EXPECT_EQ(once, kItems);
  EXPECT_EQ(c.pop_tail(), nullptr);
}

TEST(PoolChainRace, OneThief) {
  race(1, PoolChain::ring_limit(1 << 20));
}
TEST(PoolChainRace, FourThieves) {
  race(4, PoolChain::ring_limit(1 << 20));
}
TEST(PoolChainRace, FifteenThieves) {
  race(15, PoolChain::ring_limit(1 << 20));
}
TEST(PoolChainRace, FourThievesOneSmallRing) {
  race(4, PoolChain::ring_limit(4));
}

}  // namespace
