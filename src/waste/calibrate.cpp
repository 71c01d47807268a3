// `zerolab waste`'s calibration (cmd_waste_calibrate.hpp).
#include "waste/calibrate.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace zerolab::waste {
namespace {

using Clock = std::chrono::steady_clock;

template <typename Fn>
double best_seconds(int repetitions, Fn&& fn) {
  double best = 1e30;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = Clock::now();
    fn();
    const auto t1 = Clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

void escape(void* p) {
  asm volatile("" : : "g"(p) : "memory");
}

}  // namespace

// A buffer past the last-level cache: a quarter larger than it, at least
// 16 MiB, at most 256 MiB, in whole pages.
std::size_t memory_sized_buffer() {
  long cache = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (cache <= 0) cache = sysconf(_SC_LEVEL2_CACHE_SIZE);
  std::size_t bytes = cache > 0 ? static_cast<std::size_t>(cache) / 4 * 5 : 0;
  bytes = std::clamp<std::size_t>(bytes, 16u << 20, 256u << 20);
  return bytes / 4096 * 4096;
}

Calibration calibrate(const CalibrationNeeds& needs) {
  Calibration c;
  if (needs.faults) {
    // The first write to each page of a fresh 8 MiB mapping (past L2): a
    // real fault each, the kernel zeroing a page that is not in cache.
    constexpr std::size_t kFaultBytes = 8 << 20;
    void* m =
        mmap(nullptr, kFaultBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
      auto* p = static_cast<volatile char*>(m);
      const auto t0 = Clock::now();
      for (std::size_t i = 0; i < kFaultBytes; i += 4096) p[i] = 1;
      const auto t1 = Clock::now();
      c.fault_seconds =
          std::chrono::duration<double>(t1 - t0).count() / static_cast<double>(kFaultBytes / 4096);
      munmap(m, kFaultBytes);
    }
  }
  if (needs.zeroing || needs.copying) {
    const std::size_t bytes = memory_sized_buffer();
    void* buffer = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (buffer != MAP_FAILED) {
      char* a = static_cast<char*>(buffer);
      std::memset(a, 1, bytes);
      if (needs.zeroing) {
        c.zero_bytes_per_second = static_cast<double>(bytes) / best_seconds(2, [&] {
                                    std::memset(a, 0, bytes);
                                    escape(a);
                                  });
      }
      if (needs.copying) {
        const std::size_t half = bytes / 2;
        c.copy_bytes_per_second = static_cast<double>(half) / best_seconds(2, [&] {
                                    std::memcpy(a + half, a, half);
                                    escape(a);
                                  });
      }
      munmap(buffer, bytes);
    }
  }
  constexpr int kPairs = 2000;
  if (needs.malloc_free) {
    c.malloc_free_seconds = best_seconds(3,
                                         [] {
                                           for (int i = 0; i < kPairs; ++i) {
                                             void* p = std::malloc(64);
                                             escape(p);
                                             std::free(p);
                                           }
                                         }) /
                            kPairs;
  }
  constexpr int kLarge = 50;
  if (needs.large_block) {
    c.large_block_seconds = best_seconds(3,
                                         [] {
                                           for (int i = 0; i < kLarge; ++i) {
                                             auto* p = static_cast<char*>(std::malloc(64 * 1024));
                                             if (p != nullptr) p[0] = 1;
                                             escape(p);
                                             std::free(p);
                                           }
                                         }) /
                            kLarge;
  }
  return c;
}

}  // namespace zerolab::waste
