// PlainUnlockMutex: PageHeap's lock, a futex mutex whose uncontended unlock
// is one plain store instead of an atomic read-modify-write.
//
// Why: a 64 KiB dirty allocation is lock, unlock, zero_fill, lock, unlock.
// Measured on this project's 2-vCPU AMD EPYC VM (a loop of zero_fill(64 KiB)
// with the lock pairs between fills, against the bare loop, taskset -c 1):
// two lock pairs whose unlock is an atomic exchange (glibc's
// pthread_mutex_unlock does one) cost 1.030-1.033x the bare fill; two whose
// unlock is a release store cost 1.005-1.006x. Each locked instruction
// waits for the fill's stores still in flight; a plain store queues behind
// them.
//
// The word is 0 (free), 1 (held, nobody asleep) or 2 (held, maybe
// sleepers), after Drepper's "Futexes Are Tricky". lock() tries one
// compare-exchange 0 -> 1; under contention it spins briefly, then swaps in
// 2 and sleeps on the futex. unlock() by a holder that reads 1 stores 0 and
// makes no system call; one that reads 2 stores 0 and wakes one sleeper.
// The price of the plain store: a waiter that swaps 1 -> 2 and falls asleep
// in the few instructions between the holder's read of 1 and its store is
// not woken, so every sleep has a timeout (kSleepTimeoutNs) after which the
// waiter tries again. Such a waiter is late by at most that timeout; it is
// never wrong: mutual exclusion rests on the compare-exchange and the swap
// alone.
//
// While the process has one thread (glibc's __libc_single_threaded, which
// pthread_create clears), lock() is a plain store too, as glibc's own
// mutexes do: nobody can contend, and the thread that creates the second
// thread publishes the word with pthread_create. page_heap_bench
// Lock/alloc-free (allocate(64 KiB, Zero::kNo) + deallocate in a loop, in
// a process that had never started a thread) took 14-15 ns/op with
// std::mutex, 22 ns with the compare-exchange alone and 10-11 ns with this
// shortcut.
//
// Thread-safety: a mutex (BasicLockable, usable with std::lock_guard and
// std::unique_lock). Not recursive; unlock() only by the holder.
//
// Example:
//   zerolab::internal::PlainUnlockMutex mu;
//   { std::lock_guard lock(mu); ++shared_counter; }
#ifndef ZEROLAB_SRC_MEM_PLAIN_UNLOCK_MUTEX_HPP_
#define ZEROLAB_SRC_MEM_PLAIN_UNLOCK_MUTEX_HPP_

#include <atomic>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
#include <sys/single_threaded.h>
#define ZEROLAB_HAVE_SINGLE_THREADED 1
#endif

namespace zerolab::internal {

class PlainUnlockMutex {
 public:
  // The longest a waiter sleeps before it looks at the lock again.
  static constexpr long kSleepTimeoutNs = 200'000;

  PlainUnlockMutex() = default;
  PlainUnlockMutex(const PlainUnlockMutex&) = delete;
  PlainUnlockMutex& operator=(const PlainUnlockMutex&) = delete;

  void lock() noexcept {
#ifdef ZEROLAB_HAVE_SINGLE_THREADED
    // (A word not free here was held by a thread that is gone, as after a
    // fork: wait for it like any held lock rather than take it.)
    if (__libc_single_threaded && word_.load(std::memory_order_relaxed) == kFree) {
      word_.store(kHeld, std::memory_order_relaxed);
      return;
    }
#endif
    if (try_lock()) return;
    lock_contended();
  }

  bool try_lock() noexcept {
    int expected = kFree;
    return word_.compare_exchange_strong(expected, kHeld, std::memory_order_acquire,
                                         std::memory_order_relaxed);
  }

  void unlock() noexcept {
    if (word_.load(std::memory_order_relaxed) == kHeld) {
      word_.store(kFree, std::memory_order_release);
      return;
    }
    word_.store(kFree, std::memory_order_release);
    wake_one();
  }

 private:
  static constexpr int kFree = 0;
  static constexpr int kHeld = 1;
  static constexpr int kHeldWithSleepers = 2;

  void lock_contended() noexcept;
  void wake_one() noexcept;

  std::atomic<int> word_{kFree};
};

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_PLAIN_UNLOCK_MUTEX_HPP_
