// The zeroing kernels behind zero_fill, one per ISA, each covering every
// size: overlapping stores for small sizes, an aligned loop of vector
// stores for medium ones, and past those the method of the size's band
// (vector stores, rep stosb, non-temporal stores or glibc's memset). Compiled with per-function
// target attributes, so the library itself needs no -mavx2; the dispatcher (zero.cpp) only calls a
// kernel the CPU supports.
//
// Thread-safety: pure functions of their arguments.
//
// Example:
//   zerolab::internal::fill_avx2(p, n);  // the method of n's band
#ifndef ZEROLAB_SRC_MEM_ZERO_KERNELS_HPP_
#define ZEROLAB_SRC_MEM_ZERO_KERNELS_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "zerolab/zero.hpp"

namespace zerolab::internal {

// The bands in force, sorted by size: each slot packs a band's first size
// (low 56 bits) and its ZeroMethod (high 8 bits); unused slots are kNoBand.
// Sizes below the first band use vector stores. zero.cpp installs them.
inline constexpr int kZeroBandSlots = 16;
inline constexpr std::uint64_t kZeroBandSizeMask = (std::uint64_t{1} << 56) - 1;
inline constexpr std::uint64_t kNoBand = kZeroBandSizeMask;
extern constinit std::atomic<std::uint64_t> g_zero_bands[kZeroBandSlots];

// The method of the band that holds size n.
inline ZeroMethod zero_band_method(std::size_t n) noexcept {
  ZeroMethod m = ZeroMethod::kVector;
  for (const auto& slot : g_zero_bands) {
    const std::uint64_t b = slot.load(std::memory_order_relaxed);
    if ((b & kZeroBandSizeMask) > n) break;
    m = static_cast<ZeroMethod>(b >> 56);
  }
  return m;
}

// The same bands by power of two, so that zero_fill finds a size's method
// with one load: entry k is the method (a ZeroMethod) of every size in
// [2^k, 2^(k+1)) when one band holds them all, kZeroLearn for a large
// bucket while learning is on (g_zero_large says), kZeroMixed when a band
// starts inside that range (the bands are searched then). zero.cpp fills it
// with the bands.
inline constexpr unsigned char kZeroMixed = 0xfc;
inline constexpr unsigned char kZeroLearn = 0xfb;
extern constinit std::atomic<unsigned char> g_zero_by_log2[64];

inline int zero_log2(std::size_t n) noexcept {
  return 63 - __builtin_clzll(static_cast<unsigned long long>(n));
}

// Sizes below this use vector stores without looking at the bands: the
// first band's size (the largest size no band can change), capped at
// kLargeFrom while learning; 0 while the bands are being replaced.
extern constinit std::atomic<std::size_t> g_zero_vector_below;

// The large buckets, learned while g_zero_learning is on: bucket k holds
// sizes [kLargeFrom << k, kLargeFrom << (k + 1)); each is kLargeUnknown until
// the first zero_fill of its sizes races the methods (kLargeBusy meanwhile),
// then the winning ZeroMethod. Sizes past the last bucket, and every size
// while learning is off, follow the bands.
inline constexpr int kLargeLog2 = 20;
inline constexpr std::size_t kLargeFrom = std::size_t{1} << kLargeLog2;
// 1 MiB .. 32 MiB at most; zero.cpp races those below half the L3.
inline constexpr int kLargeBuckets = 5;
inline constexpr unsigned char kLargeUnknown = 0xff;
inline constexpr unsigned char kLargeBusy = 0xfe;
extern constinit std::atomic<bool> g_zero_learning;
extern constinit std::atomic<unsigned char> g_zero_large[kLargeBuckets];

inline int zero_large_bucket(std::size_t n) noexcept {
  return zero_log2(n) - kLargeLog2;
}

// Races the methods on [p, p+n) if n's bucket is still unknown and nobody
// else is racing it; true if it did (the range is zero then).
bool zero_learn(void* p, std::size_t n) noexcept;

// The method for n (REQUIRES: n > 0, past the kernels' small paths),
// learning n's bucket on [p, p+n) first if needed: kDone then, the range
// zeroed.
inline constexpr unsigned char kDone = 0xfd;
inline unsigned char zero_choose(void* p, std::size_t n) noexcept {
  const int k = zero_log2(n);
  const unsigned char m = g_zero_by_log2[k].load(std::memory_order_relaxed);
  if (m < kZeroLearn) return m;
  if (m == kZeroLearn) {
    const int bucket = k - kLargeLog2;
    const unsigned char s = g_zero_large[bucket].load(std::memory_order_relaxed);
    if (s < kDone) return s;
    if (s == kLargeUnknown && zero_learn(p, n)) return kDone;
  }
  return static_cast<unsigned char>(zero_band_method(n));
}

// zero_fill's entry points per ISA: the kernels below with the bands in
// force. REQUIRES: n > 64 (zero_fill stores smaller sizes inline; these
// skip the small-size branches).
void fill_sse2(void* p, std::size_t n) noexcept;
void fill_avx2(void* p, std::size_t n) noexcept;
void fill_avx512(void* p, std::size_t n) noexcept;
// The same kernels with vector stores only.
void vector_sse2(void* p, std::size_t n) noexcept;
void vector_avx2(void* p, std::size_t n) noexcept;
void vector_avx512(void* p, std::size_t n) noexcept;

// Non-temporal stores for every aligned 64-byte line, ordinary stores for
// the unaligned head and tail; no fence.
void zero_nt_sse2(void* p, std::size_t n) noexcept;
void zero_nt_avx2(void* p, std::size_t n) noexcept;

void zero_rep_stosb(void* p, std::size_t n) noexcept;

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_ZERO_KERNELS_HPP_
