// `zerolab waste`'s calibration (cmd_waste_calibrate.hpp).
#include "waste/calibrate.hpp"

#include <sys/mman.h>

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

// Sizes are kept small so that the whole calibration costs about 1.5 ms of
// the fixed cost `zerolab waste` adds to a run (bench/waste/overhead.sh).
Calibration calibrate(const CalibrationNeeds& needs) {
  Calibration c;
  constexpr std::size_t kBuffer = 1 << 20;  // past L2: zeroing and copying at memory speed
  if (needs.zeroing || needs.copying) {
    // memset over the first half, memcpy into the second; MAP_POPULATE takes
    // the buffer's faults in one call instead of one per page.
    const std::size_t bytes = needs.copying ? 2 * kBuffer : kBuffer;
    void* buffer = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (buffer != MAP_FAILED) {
      char* a = static_cast<char*>(buffer);
      std::memset(a, 1, bytes);
      if (needs.zeroing) {
        c.zero_bytes_per_second = static_cast<double>(kBuffer) / best_seconds(3, [&] {
                                    std::memset(a, 0, kBuffer);
                                    escape(a);
                                  });
      }
      if (needs.copying) {
        c.copy_bytes_per_second = static_cast<double>(kBuffer) / best_seconds(3, [&] {
                                    std::memcpy(a + kBuffer, a, kBuffer);
                                    escape(a);
                                  });
      }
      munmap(buffer, bytes);
    }
  }
  constexpr std::size_t kFaultPages = 64;
  if (needs.faults) {
    c.fault_seconds = best_seconds(3,
                                   [&] {
                                     void* m =
                                         mmap(nullptr, kFaultPages * 4096, PROT_READ | PROT_WRITE,
                                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                                     if (m == MAP_FAILED) return;
                                     auto* p = static_cast<volatile char*>(m);
                                     for (std::size_t i = 0; i < kFaultPages; ++i) p[i * 4096] = 1;
                                     munmap(m, kFaultPages * 4096);
                                   }) /
                      kFaultPages;
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
