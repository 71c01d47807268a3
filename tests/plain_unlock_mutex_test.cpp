// PlainUnlockMutex (src/mem/plain_unlock_mutex.hpp): mutual exclusion under
// contention, including waiters that fall asleep on the futex, and
// try_lock. Labelled concurrent, so it also runs under TSan. No timings:
// the sleeps only give waiters the chance to reach the futex.
#include "mem/plain_unlock_mutex.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using zerolab::internal::PlainUnlockMutex;

TEST(PlainUnlockMutex, ContendedIncrementsAreExact) {
  PlainUnlockMutex mu;
  long counter = 0;  // plain: only the lock orders the increments
  constexpr int kThreads = 4;
  constexpr int kEach = 100000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        std::lock_guard lock(mu);
        ++counter;
        if (i % 4096 == 0) std::this_thread::yield();  // holders descheduled mid-section
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counter, long{kThreads} * kEach);
}

TEST(PlainUnlockMutex, AWaiterGetsInOnlyAfterTheHolderLeaves) {
  PlainUnlockMutex mu;
  std::atomic<bool> inside{false};
  mu.lock();
  std::thread waiter([&] {
    std::lock_guard lock(mu);
    inside.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the waiter sleeps on the futex
  EXPECT_FALSE(inside.load());
  EXPECT_FALSE(mu.try_lock());
  mu.unlock();
  waiter.join();
  EXPECT_TRUE(inside.load());
  // Free again, and after a contended round the uncontended path works.
  ASSERT_TRUE(mu.try_lock());
  mu.unlock();
  mu.lock();
  mu.unlock();
}

TEST(PlainUnlockMutex, ManySleepersAllGetIn) {
  PlainUnlockMutex mu;
  int entered = 0;
  mu.lock();
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      std::lock_guard lock(mu);
      ++entered;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(entered, 0);  // read under no lock: no waiter can have written it while mu is held
  mu.unlock();
  for (std::thread& t : threads) t.join();
  std::lock_guard lock(mu);
  EXPECT_EQ(entered, 6);
}

}  // namespace
