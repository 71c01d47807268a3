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
// [2^k, 2^(k+1)) when one band holds them all, kZeroMixed when a band
// starts inside that range (the bands are searched then). zero.cpp fills it
// with the bands.
inline constexpr unsigned char kZeroMixed = 0xfc;
extern constinit std::atomic<unsigned char> g_zero_by_log2[64];

inline int zero_log2(std::size_t n) noexcept {
  return 63 - __builtin_clzll(static_cast<unsigned long long>(n));
}

// Sizes below this use vector stores without looking at the bands: the
// first band's size (the largest size no band can change); 0 while the
// bands are being replaced.
extern constinit std::atomic<std::size_t> g_zero_vector_below;

// The method for n (REQUIRES: n > 0).
inline ZeroMethod zero_method_of(std::size_t n) noexcept {
  const unsigned char m = g_zero_by_log2[zero_log2(n)].load(std::memory_order_relaxed);
  if (m != kZeroMixed) return static_cast<ZeroMethod>(m);
  return zero_band_method(n);
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
