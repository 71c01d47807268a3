// PlainUnlockMutex's contended paths (plain_unlock_mutex.hpp): a short spin,
// then sleeps on the futex with a timeout.
#include "mem/plain_unlock_mutex.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace zerolab::internal {
namespace {

// Spins before the first sleep: about a microsecond here, enough for a
// holder on the other CPU to finish a cache hit or a small range-map change.
constexpr int kSpins = 64;

long futex(std::atomic<int>* word, int op, int value, const timespec* timeout) noexcept {
  return syscall(SYS_futex, reinterpret_cast<int*>(word), op | FUTEX_PRIVATE_FLAG, value, timeout,
                 nullptr, 0);
}

}  // namespace

void PlainUnlockMutex::lock_contended() noexcept {
  for (int i = 0; i < kSpins; ++i) {
    __builtin_ia32_pause();
    if (word_.load(std::memory_order_relaxed) != kFree) continue;
    int expected = kFree;
    if (word_.compare_exchange_weak(expected, kHeld, std::memory_order_acquire,
                                    std::memory_order_relaxed)) {
      return;
    }
  }
  // From here the word says kHeldWithSleepers whenever this thread may be
  // asleep, so the holder's unlock wakes one; the timeout covers the unlock
  // that read kHeld just before this swap (see the header).
  const timespec timeout{0, kSleepTimeoutNs};
  while (word_.exchange(kHeldWithSleepers, std::memory_order_acquire) != kFree) {
    futex(&word_, FUTEX_WAIT, kHeldWithSleepers, &timeout);
  }
}

void PlainUnlockMutex::wake_one() noexcept {
  futex(&word_, FUTEX_WAKE, 1, nullptr);
}

}  // namespace zerolab::internal
