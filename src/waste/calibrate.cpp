// `zerolab waste`'s calibration (calibrate.hpp).
#include "waste/calibrate.hpp"

#include <emmintrin.h>
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

// Non-temporal (streaming) stores: the bytes go to memory, not into the
// cache, as glibc's memset and memcpy send them for fills and copies larger
// than the cache. So 8 MiB measure memory bandwidth, where cached stores
// would need a buffer larger than the last-level cache (and the kernel's
// cost of populating it: about 0.2 s of CPU for 40 MiB on a loaded machine).
void stream_fill(char* p, std::size_t n, char value) {
  const __m128i v = _mm_set1_epi8(value);
  for (std::size_t i = 0; i + 64 <= n; i += 64) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i), v);
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i + 16), v);
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i + 32), v);
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i + 48), v);
  }
  _mm_sfence();
}

void stream_copy(char* to, const char* from, std::size_t n) {
  for (std::size_t i = 0; i + 64 <= n; i += 64) {
    const auto* s = reinterpret_cast<const __m128i*>(from + i);
    const __m128i a = _mm_load_si128(s);
    const __m128i b = _mm_load_si128(s + 1);
    const __m128i c = _mm_load_si128(s + 2);
    const __m128i d = _mm_load_si128(s + 3);
    auto* t = reinterpret_cast<__m128i*>(to + i);
    _mm_stream_si128(t, a);
    _mm_stream_si128(t + 1, b);
    _mm_stream_si128(t + 2, c);
    _mm_stream_si128(t + 3, d);
  }
  _mm_sfence();
}

// malloc/free and large-block costs, into `c`.
Calibration calibrate_allocator(Calibration c, const CalibrationNeeds& needs) {
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

}  // namespace

Calibration calibrate(const CalibrationNeeds& needs) {
  Calibration c;
  if (!needs.faults && !needs.zeroing && !needs.copying) {
    return calibrate_allocator(c, needs);
  }
  // One fresh 8 MiB mapping (4x L2). Its first write to each page is a real
  // fault, the kernel zeroing a page; then streaming fills and copies over it.
  constexpr std::size_t kBytes = 8 << 20;
  void* m = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m != MAP_FAILED) {
    char* a = static_cast<char*>(m);
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < kBytes; i += 4096) static_cast<volatile char*>(a)[i] = 1;
    const auto t1 = Clock::now();
    if (needs.faults) {
      c.fault_seconds =
          std::chrono::duration<double>(t1 - t0).count() / static_cast<double>(kBytes / 4096);
    }
    if (needs.zeroing) {
      c.zero_bytes_per_second = static_cast<double>(kBytes) / best_seconds(2, [&] {
                                  stream_fill(a, kBytes, 0);
                                  escape(a);
                                });
    }
    if (needs.copying) {
      const std::size_t half = kBytes / 2;
      stream_fill(a, half, 1);
      c.copy_bytes_per_second = static_cast<double>(half) / best_seconds(2, [&] {
                                  stream_copy(a + half, a, half);
                                  escape(a);
                                });
    }
    munmap(m, kBytes);
  }
  return calibrate_allocator(c, needs);
}

}  // namespace zerolab::waste
