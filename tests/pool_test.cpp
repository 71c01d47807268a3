// zerolab::Pool (zerolab/pool.hpp) and the lab's SimplePool (lab/simple_pool.hpp): get/put/borrow,
// the per-thread bound, stealing from another thread's shared chain (oldest first), the chain
// growing past one ring, rotation ageing with a victim per thread, thread-exit return, and
// multi-threaded stresses in which every object is tagged with its owner so a double hand-out is
// caught. Labelled concurrent: also runs under TSan. The stresses tag objects with relaxed atomics
// and write a plain payload, so the only happens-before between two holders of an object is the one
// the pool provides, and TSan checks it.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "lab/experiments/simple_pool.hpp"
#include "zerolab/pool.hpp"

namespace {

using zerolab::Pool;
using zerolab::PoolOptions;
using zerolab::lab::SimplePool;

struct Obj {
  static std::atomic<int> live;
  std::atomic<int> owner{0};  // 0: in the pool; else the holder's tag
  std::uint64_t payload = 0;  // plain: written by each holder
  // Which object this is (addresses get reused once an object is freed).
  const int serial = next_serial.fetch_add(1, std::memory_order_relaxed);
  static std::atomic<int> next_serial;
  // Relaxed: the count must not add happens-before edges between threads.
  Obj() { live.fetch_add(1, std::memory_order_relaxed); }
  ~Obj() { live.fetch_sub(1, std::memory_order_relaxed); }
};
std::atomic<int> Obj::live{0};
std::atomic<int> Obj::next_serial{0};

// A thread that runs what it is given, one call at a time, and stays alive
// in between, so the pool cache it owns stays its own; exit() ends it (and
// runs the pool's thread-exit return).
class Worker {
 public:
  Worker() : thread_([this] { loop(); }) {}
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker() { exit(); }

  // Runs f on the worker thread and waits for it.
  void run(std::function<void()> f) {
    std::unique_lock<std::mutex> lk(mu_);
    job_ = std::move(f);
    cv_.notify_all();
    cv_.wait(lk, [&] { return !job_; });
  }
  void exit() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
      cv_.notify_all();
    }
    thread_.join();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      cv_.wait(lk, [&] { return stop_ || job_; });
      if (job_) {
        job_();
        job_ = nullptr;
        cv_.notify_all();
      } else if (stop_) {
        return;
      }
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> job_;
  bool stop_ = false;
  std::thread thread_;
};

// Options keeping at most n idle objects per thread (1 private + n shared).
PoolOptions per_thread_bound(std::size_t n) {
  PoolOptions o;
  o.per_thread_bound = n;
  return o;
}

std::vector<Obj*> get_n(Pool<Obj>& pool, int n) {
  std::vector<Obj*> v;
  for (int i = 0; i < n; ++i) v.push_back(pool.get());
  return v;
}

// Puts v back in order: the first in the private slot, the rest in the
// shared chain, oldest first.
void put_all(Pool<Obj>& pool, const std::vector<Obj*>& v) {
  for (Obj* x : v) pool.put(x);
}

// Workers a and b take n objects each (as, bs), both before either puts any
// back, so neither steals; then each puts its own back (put_all), a first.
void each_caches_its_own(Pool<Obj>& pool, Worker& a, std::vector<Obj*>& as, Worker& b,
                         std::vector<Obj*>& bs, int n) {
  a.run([&] { as = get_n(pool, n); });
  b.run([&] { bs = get_n(pool, n); });
  a.run([&] { put_all(pool, as); });
  b.run([&] { put_all(pool, bs); });
}

// n objects from the pool, then all put back (put_all). Note that a thread
// whose cache is empty steals: when several threads are to cache objects of
// their own, they all get before any puts.
std::vector<Obj*> get_then_put(Pool<Obj>& pool, int n) {
  std::vector<Obj*> v = get_n(pool, n);
  put_all(pool, v);
  return v;
}

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
    Pool<Obj> pool(zerolab::internal::default_pool_factory<Obj>(), {}, per_thread_bound(2));
    put_all(pool, get_n(pool, 5));  // 1 private + 2 shared kept, 2 freed
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
  Pool<Obj> pool(zerolab::internal::default_pool_factory<Obj>(), {}, o);
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

TEST(Pool, ThievesTakeTheOldestOfAnotherThreadsSharedChain) {
  Pool<Obj> pool;
  Worker a;
  std::vector<Obj*> theirs;
  a.run([&] { theirs = get_then_put(pool, 4); });  // private: [0]; shared: [1] [2] [3]
  // This thread has nothing: it steals from a's tail, oldest first.
  EXPECT_EQ(pool.get(), theirs[1]);
  EXPECT_EQ(pool.get(), theirs[2]);
  EXPECT_EQ(pool.get(), theirs[3]);
  EXPECT_EQ(pool.stats().created, 4u);
  Obj* fresh = pool.get();  // a's private slot is a's alone
  EXPECT_EQ(pool.stats().created, 5u);
  a.run([&] { EXPECT_EQ(pool.get(), theirs[0]); });
  for (Obj* x : theirs) pool.put(x);
  pool.put(fresh);
}

TEST(Pool, SharedChainGrowsPastOneRing) {
  Pool<Obj> pool(zerolab::internal::default_pool_factory<Obj>(), {}, per_thread_bound(100));
  EXPECT_EQ(pool.stats().rings, 0u);
  std::vector<Obj*> g = get_then_put(pool, 40);  // 39 in the chain: rings of 8, 16, 32
  EXPECT_EQ(pool.stats().rings, 3u);
  // The owner pops at the head: the private object, then newest first,
  // backing up through the rings.
  EXPECT_EQ(pool.get(), g[0]);
  for (int i = 39; i >= 1; --i) ASSERT_EQ(pool.get(), g[i]) << i;
  // Pushes only go to the newest ring (32 slots), as in Go: 39 objects
  // need one more, of 64. The older rings stay allocated, unused.
  for (Obj* x : g) pool.put(x);
  EXPECT_EQ(pool.stats().rings, 4u);
  // A thief pops at the tail: oldest first, across the rings.
  Worker b;
  b.run([&] {
    for (int i = 1; i < 40; ++i) ASSERT_EQ(pool.get(), g[i]) << i;
    for (int i = 1; i < 40; ++i) pool.put(g[i]);
  });
  EXPECT_EQ(pool.stats().created, 40u);
  EXPECT_EQ(pool.stats().destroyed, 0u);
}

TEST(Pool, RotationMovesEachThreadsCacheToItsOwnVictim) {
  Pool<Obj> pool;
  Worker a, b;
  std::vector<Obj*> as, bs;
  each_caches_its_own(pool, a, as, b, bs, 3);
  pool.rotate();
  EXPECT_EQ(pool.stats().destroyed, 0u);
  // a catches up (its private object joins its victim, after the shared
  // ones the rotation moved there) and finds its own victim first.
  a.run([&] {
    EXPECT_EQ(pool.get(), as[1]);
    EXPECT_EQ(pool.get(), as[2]);
    EXPECT_EQ(pool.get(), as[0]);
  });
  // Another thread finds b's victim; b's private object is still in b's
  // slot (b has not caught up), out of reach.
  EXPECT_EQ(pool.get(), bs[1]);
  EXPECT_EQ(pool.get(), bs[2]);
  Obj* fresh = pool.get();
  EXPECT_EQ(pool.stats().created, 7u);
  b.run([&] { EXPECT_EQ(pool.get(), bs[0]); });
  EXPECT_EQ(pool.stats().created, 7u);
  EXPECT_EQ(pool.stats().destroyed, 0u);
  for (Obj* x : as) pool.put(x);
  for (Obj* x : bs) pool.put(x);
  pool.put(fresh);
}

TEST(Pool, UnusedForTwoRotationsIsFreedInEveryThread) {
  const int before = Obj::live.load();
  {
    Pool<Obj> pool;
    Worker a, b;
    std::vector<Obj*> as, bs;
    each_caches_its_own(pool, a, as, b, bs, 3);
    pool.rotate();
    pool.rotate();
    // The chains went at the second rotation; the two private objects wait
    // for their owners.
    EXPECT_EQ(pool.stats().destroyed, 4u);
    EXPECT_EQ(Obj::live.load() - before, 2);
    Obj* m = pool.get();  // nothing old is handed out
    EXPECT_EQ(pool.stats().created, 7u);
    const int newest = m->serial;
    a.run([&] {
      Obj* x = pool.get();  // a catches up: its private object is freed
      EXPECT_GT(x->serial, newest);
      pool.put(x);
    });
    EXPECT_EQ(pool.stats().created, 8u);
    EXPECT_EQ(pool.stats().destroyed, 5u);
    b.exit();  // b's exit ages its private object out
    EXPECT_EQ(pool.stats().destroyed, 6u);
    EXPECT_EQ(Obj::live.load() - before, 2);  // m, and a's new one
    pool.put(m);
  }
  EXPECT_EQ(Obj::live.load(), before);
}

TEST(Pool, ExitedThreadsCacheSurvivesOneRotation) {
  Pool<Obj> pool;
  std::vector<Obj*> theirs;
  std::thread t([&] { theirs = get_then_put(pool, 3); });
  t.join();  // its private object went to its shared chain
  pool.rotate();
  std::set<Obj*> got;
  for (int i = 0; i < 3; ++i) got.insert(pool.get());
  EXPECT_EQ(got, std::set<Obj*>(theirs.begin(), theirs.end()));
  EXPECT_EQ(pool.stats().created, 3u);
  for (Obj* x : got) pool.put(x);
}

TEST(Pool, ExitedThreadsCacheIsFreedByTwoRotations) {
  const int before = Obj::live.load();
  Pool<Obj> pool;
  std::thread t([&] { get_then_put(pool, 3); });
  t.join();
  pool.rotate();
  pool.rotate();
  EXPECT_EQ(pool.stats().destroyed, 3u);
  EXPECT_EQ(Obj::live.load(), before);
  Obj* x = pool.get();
  EXPECT_EQ(pool.stats().created, 4u);
  pool.put(x);
}

TEST(Pool, BoundIsPerThread) {
  const int before = Obj::live.load();
  Pool<Obj> pool(zerolab::internal::default_pool_factory<Obj>(), {}, per_thread_bound(2));
  Worker a, b;
  std::vector<Obj*> as, bs;
  // Each thread: 1 private + 2 shared kept, 2 freed, in its own chain.
  each_caches_its_own(pool, a, as, b, bs, 5);
  EXPECT_EQ(pool.stats().destroyed, 4u);
  EXPECT_EQ(Obj::live.load() - before, 6);
  a.exit();  // its chain is full: its private object is freed
  EXPECT_EQ(pool.stats().destroyed, 5u);
  std::vector<Obj*> got;
  for (int i = 0; i < 4; ++i) got.push_back(pool.get());  // a's two, b's two
  EXPECT_EQ(pool.stats().created, 10u);
  for (Obj* x : got) pool.put(x);
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

// Takes x for tag: it must have been in the pool (owner 0). Relaxed: the
// CAS catches a double hand-out by itself, and must not order anything.
void take(Obj* x, int tag, std::atomic<int>& errors) {
  int expected = 0;
  if (!x->owner.compare_exchange_strong(expected, tag, std::memory_order_relaxed)) {
    errors.fetch_add(1);
  }
  x->payload = static_cast<std::uint64_t>(tag);
}

// Gives x back for tag: it must still be ours, with our payload.
void give(Obj* x, int tag, std::atomic<int>& errors) {
  if (x->payload != static_cast<std::uint64_t>(tag)) errors.fetch_add(1);
  int expected = tag;
  if (!x->owner.compare_exchange_strong(expected, 0, std::memory_order_relaxed)) {
    errors.fetch_add(1);
  }
}

// Threads hold a few objects each while another thread rotates in a loop.
void stress(int threads, PoolOptions o = per_thread_bound(4), bool rotator_thread = true) {
  const int before = Obj::live.load();
  {
    Pool<Obj> pool(zerolab::internal::default_pool_factory<Obj>(), {}, o);
    std::atomic<bool> stop{false};
    std::atomic<int> errors{0};
    std::thread rotator([&] {
      while (rotator_thread && !stop.load()) {
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
            take(x, tag, errors);
            held.push_back(x);
          }
          while (static_cast<int>(held.size()) > want / 2) {
            Obj* x = held.back();
            held.pop_back();
            give(x, tag, errors);
            pool.put(x);
          }
        }
        for (Obj* x : held) {
          give(x, tag, errors);
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

TEST(PoolStress, TwoThreads) {
  stress(2);
}
TEST(PoolStress, FourThreads) {
  stress(4);
}
TEST(PoolStress, EightThreads) {
  stress(8);
}
TEST(PoolStress, SixteenThreads) {
  stress(16);
}
TEST(PoolStress, AutomaticRotationFourThreads) {
  PoolOptions o = per_thread_bound(4);
  o.rotate_every_gets = 5;
  o.rotate_every = std::chrono::milliseconds(1);
  stress(4, o, false);
}

// Bursts: each thread takes a burst of objects (up to 40, past the first
// ring of its chain) and puts them all back, with no rotation: the lock-free
// paths alone. A thread whose chain runs dry steals from the others' tails
// while they push and pop at their heads. Counts gets that returned an
// object another thread put last (printed, not asserted: how often thieves
// find something depends on scheduling).
void bursts(int threads) {
  const int before = Obj::live.load();
  std::atomic<std::uint64_t> foreign{0};
  {
    Pool<Obj> pool(zerolab::internal::default_pool_factory<Obj>(), {}, per_thread_bound(24));
    std::atomic<int> errors{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t) {
      ts.emplace_back([&, tag = t + 1] {
        std::vector<Obj*> held;
        std::uint64_t mine = 0;
        for (int round = 0; round < 400; ++round) {
          const int burst = 1 + (round * 13 + tag * 7) % 40;
          for (int i = 0; i < burst; ++i) {
            Obj* x = pool.get();
            // payload is the last holder's tag: read before take overwrites it
            if (x->payload != 0 && x->payload != static_cast<std::uint64_t>(tag)) ++mine;
            take(x, tag, errors);
            held.push_back(x);
          }
          for (Obj* x : held) {
            give(x, tag, errors);
            pool.put(x);
          }
          held.clear();
        }
        foreign.fetch_add(mine, std::memory_order_relaxed);
      });
    }
    for (auto& t : ts) t.join();
    EXPECT_EQ(errors.load(), 0) << threads << " threads";
    const zerolab::PoolStats s = pool.stats();
    EXPECT_EQ(static_cast<std::int64_t>(s.created - s.destroyed),
              static_cast<std::int64_t>(Obj::live.load() - before));
    EXPECT_GE(s.rings, 1u);
    std::printf("bursts(%d): %llu gets of another thread's object, %llu rings, %llu created\n",
                threads, static_cast<unsigned long long>(foreign.load()),
                static_cast<unsigned long long>(s.rings),
                static_cast<unsigned long long>(s.created));
  }
  EXPECT_EQ(Obj::live.load(), before);
}

TEST(PoolStress, BurstsTwoThreads) {
  bursts(2);
}
TEST(PoolStress, BurstsFourThreads) {
  bursts(4);
}
TEST(PoolStress, BurstsSixteenThreads) {
  bursts(16);
}

TEST(SimplePool, GetPutBorrow) {
  SimplePool<Obj> pool;
  Obj* a = pool.get();
  pool.put(a);
  EXPECT_EQ(pool.get(), a);
  pool.put(a);
  {
    auto b = pool.borrow();
    EXPECT_EQ(b.get(), a);
  }
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
