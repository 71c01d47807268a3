// zerolab::Pool and SimplePool (zerolab/pool.hpp): get/put/borrow, the
// per-thread bound, rotation ageing, thread-exit return, and a
// multi-threaded stress in which every object is tagged with its owner so a
// double hand-out is caught. Labelled concurrent: also runs under TSan.
#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "zerolab/pool.hpp"

namespace {

using zerolab::Pool;
using zerolab::PoolOptions;
using zerolab::SimplePool;

struct Obj {
  static std::atomic<int> live;
  std::atomic<int> owner{0};  // 0: in the pool; else the holder's tag
  std::uint64_t payload = 0;
  Obj() { live.fetch_add(1); }
  ~Obj() { live.fetch_sub(1); }
};
std::atomic<int> Obj::live{0};

TEST(Pool, PutThenGetReturnsTheSameObject) {
  Pool<Obj> pool;
  Obj* a = pool.get();
  pool.put(a);
  EXPECT_EQ(pool.get(), a);
  Obj* b = pool.get();
  EXPECT_NE(a, b);
  pool.put(a);
  pool.put(b);  // a: private slot; b: shared list
  Obj* x = pool.get();
  Obj* y = pool.get();
  EXPECT_EQ(std::set<Obj*>({x, y}), std::set<Obj*>({a, b}));
  pool.put(x);
  pool.put(y);
  pool.put(nullptr);
  EXPECT_EQ(pool.stats().created, 2u);
}

TEST(Pool, FactoryAndResetHook) {
  int made = 0;
  Pool<std::string> pool(
      [&] {
        ++made;
        return std::make_unique<std::string>("new");
      },
      [](std::string& s) { s.clear(); });
  std::string* s = pool.get();
  EXPECT_EQ(*s, "new");
  s->append("!");
  pool.put(s);
  EXPECT_EQ(*pool.get(), "");
  EXPECT_EQ(made, 1);
  pool.put(s);
}

TEST(Pool, BorrowPutsBack) {
  Pool<Obj> pool;
  Obj* seen = nullptr;
  {
    auto b = pool.borrow();
    seen = b.get();
    b->payload = 5;
    auto moved = std::move(b);
    EXPECT_EQ(moved.get(), seen);
  }
  EXPECT_EQ(pool.get(), seen);
  pool.put(seen);
  auto kept = pool.borrow();
  Obj* mine = kept.release();
  EXPECT_EQ(mine, seen);
  pool.put(mine);
}

TEST(Pool, PerThreadBoundFreesExtras) {
  const int before = Obj::live.load();
  {
    PoolOptions o;
    o.per_thread_bound = 2;
    Pool<Obj> pool(zerolab::detail::default_pool_factory<Obj>(), {}, o);
    std::vector<Obj*> got;
    for (int i = 0; i < 5; ++i) got.push_back(pool.get());
    for (Obj* x : got) pool.put(x);  // 1 private + 2 shared kept, 2 freed
    EXPECT_EQ(pool.stats().destroyed, 2u);
    EXPECT_EQ(Obj::live.load() - before, 3);
  }
  EXPECT_EQ(Obj::live.load(), before);  // the pool's end frees the rest
}

TEST(Pool, UnusedForOneRotationSurvivesIt) {
  Pool<Obj> pool;
  Obj* a = pool.get();
  Obj* b = pool.get();
  pool.put(a);  // private
  pool.put(b);  // shared
  pool.rotate();
  Obj* x = pool.get();
  Obj* y = pool.get();
  EXPECT_EQ(std::set<Obj*>({x, y}), std::set<Obj*>({a, b}));
  EXPECT_EQ(pool.stats().created, 2u);
  EXPECT_EQ(pool.stats().destroyed, 0u);
  pool.put(x);
  pool.put(y);
}

TEST(Pool, UnusedForTwoRotationsIsFreed) {
  const int before = Obj::live.load();
  Pool<Obj> pool;
  Obj* a = pool.get();
  Obj* b = pool.get();
  pool.put(a);
  pool.put(b);
  pool.rotate();
  pool.rotate();
  Obj* c = pool.get();  // catches up: the private object ages out too
  EXPECT_EQ(pool.stats().created, 3u);
  EXPECT_EQ(pool.stats().destroyed, 2u);
  EXPECT_EQ(Obj::live.load() - before, 1);
  pool.put(c);
}

TEST(Pool, AutomaticRotationEveryKGets) {
  PoolOptions o;
  o.rotate_every_gets = 4;
  Pool<Obj> pool(zerolab::detail::default_pool_factory<Obj>(), {}, o);
  for (int i = 0; i < 16; ++i) pool.put(pool.get());
  EXPECT_EQ(pool.stats().rotations, 4u);
}

TEST(Pool, ThreadExitReturnsTheCache) {
  Pool<Obj> pool;
  std::vector<Obj*> theirs;
  std::thread t([&] {
    for (int i = 0; i < 3; ++i) theirs.push_back(pool.get());
    for (Obj* x : theirs) pool.put(x);
  });
  t.join();
  EXPECT_EQ(pool.stats().created, 3u);
  std::set<Obj*> got;
  for (int i = 0; i < 3; ++i) got.insert(pool.get());
  EXPECT_EQ(got, std::set<Obj*>(theirs.begin(), theirs.end()));
  EXPECT_EQ(pool.stats().created, 3u);
  for (Obj* x : got) pool.put(x);
  // A thread exiting after the pool is gone does no harm.
  auto p = std::make_unique<Pool<Obj>>();
  std::atomic<bool> used{false}, gone{false};
  std::thread u([&] {
    p->put(p->get());
    used = true;
    while (!gone) std::this_thread::yield();
  });
  while (!used) std::this_thread::yield();
  p.reset();
  gone = true;
  u.join();
}

TEST(Pool, ExitedThreadsSlotIsReused) {
  Pool<Obj> pool;
  for (int i = 0; i < 20; ++i) {
    std::thread t([&] { pool.put(pool.get()); });
    t.join();
  }
  // Each thread's object went back to the victim and the next thread took
  // it: one object made in all.
  EXPECT_EQ(pool.stats().created, 1u);
}

void stress(int threads) {
  const int before = Obj::live.load();
  {
    PoolOptions o;
    o.per_thread_bound = 4;
    Pool<Obj> pool(zerolab::detail::default_pool_factory<Obj>(), {}, o);
    std::atomic<bool> stop{false};
    std::atomic<int> errors{0};
    std::thread rotator([&] {
      while (!stop.load()) {
        pool.rotate();
        std::this_thread::yield();
      }
    });
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t) {
      ts.emplace_back([&, tag = t + 1] {
        std::vector<Obj*> held;
        for (int i = 0; i < 3000; ++i) {
          const int want = 1 + (i * 7 + tag) % 5;
          while (static_cast<int>(held.size()) < want) {
            Obj* x = pool.get();
            int expected = 0;
            if (!x->owner.compare_exchange_strong(expected, tag)) errors.fetch_add(1);
            x->payload = static_cast<std::uint64_t>(tag);
            held.push_back(x);
          }
          while (static_cast<int>(held.size()) > want / 2) {
            Obj* x = held.back();
            held.pop_back();
            if (x->payload != static_cast<std::uint64_t>(tag)) errors.fetch_add(1);
            int expected = tag;
            if (!x->owner.compare_exchange_strong(expected, 0)) errors.fetch_add(1);
            pool.put(x);
          }
        }
        for (Obj* x : held) {
          x->owner.store(0);
          pool.put(x);
        }
      });
    }
    for (auto& t : ts) t.join();
    stop = true;
    rotator.join();
    EXPECT_EQ(errors.load(), 0) << threads << " threads";
    const zerolab::PoolStats s = pool.stats();
    EXPECT_EQ(static_cast<std::int64_t>(s.created - s.destroyed),
              static_cast<std::int64_t>(Obj::live.load() - before));
  }
  EXPECT_EQ(Obj::live.load(), before);
}

TEST(PoolStress, TwoThreads) { stress(2); }
TEST(PoolStress, FourThreads) { stress(4); }
TEST(PoolStress, SixteenThreads) { stress(16); }

TEST(SimplePool, GetPutBorrow) {
  SimplePool<Obj> pool;
  Obj* a = pool.get();
  pool.put(a);
  EXPECT_EQ(pool.get(), a);
  pool.put(a);
  { auto b = pool.borrow(); EXPECT_EQ(b.get(), a); }
  EXPECT_EQ(pool.get(), a);
  pool.put(a);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, tag = t + 1] {
      for (int i = 0; i < 2000; ++i) {
        Obj* x = pool.get();
        int expected = 0;
        EXPECT_TRUE(x->owner.compare_exchange_strong(expected, tag));
        x->owner.store(0);
        pool.put(x);
      }
    });
  }
  for (auto& t : ts) t.join();
}

}  // namespace
