// `zerolab waste`'s calibration (cmd_waste_calibrate.hpp).
#include "cmd_waste_calibrate.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace zerolab::cli::waste {
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

void escape(void* p) { asm volatile("" : : "g"(p) : "memory"); }

}  // namespace

Calibration calibrate() {
  Calibration c;
  constexpr std::size_t kBuffer = 2 << 20;
  std::vector<char> a(2 * kBuffer, 1);  // memset over the first half, memcpy into the second
  c.zero_bytes_per_second = static_cast<double>(kBuffer) / best_seconds(3, [&] {
                              std::memset(a.data(), 0, kBuffer);
                              escape(a.data());
                            });
  c.copy_bytes_per_second = static_cast<double>(kBuffer) / best_seconds(3, [&] {
                              std::memcpy(a.data() + kBuffer, a.data(), kBuffer);
                              escape(a.data());
                            });
  constexpr std::size_t kFaultPages = 256;
  c.fault_seconds = best_seconds(3, [&] {
                      void* m = mmap(nullptr, kFaultPages * 4096, PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                      if (m == MAP_FAILED) return;
                      auto* p = static_cast<volatile char*>(m);
                      for (std::size_t i = 0; i < kFaultPages; ++i) p[i * 4096] = 1;
                      munmap(m, kFaultPages * 4096);
                    }) /
                    kFaultPages;
  constexpr int kPairs = 10000;
  c.malloc_free_seconds = best_seconds(3, [] {
                            for (int i = 0; i < kPairs; ++i) {
                              void* p = std::malloc(64);
                              escape(p);
                              std::free(p);
                            }
                          }) /
                          kPairs;
  constexpr int kLarge = 200;
  c.large_block_seconds = best_seconds(3, [] {
                            for (int i = 0; i < kLarge; ++i) {
                              auto* p = static_cast<char*>(std::malloc(64 * 1024));
                              if (p != nullptr) p[0] = 1;
                              escape(p);
                              std::free(p);
                            }
                          }) /
                          kLarge;
  return c;
}

}  // namespace zerolab::cli::waste
