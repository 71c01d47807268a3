// The zeroing kernels behind zero_fill, one per ISA, each covering every
// size: overlapping stores for small sizes, an aligned loop of vector
// stores for medium ones, rep stosb and non-temporal stores past the
// thresholds it is given. Compiled with per-function target attributes, so
// the library itself needs no -mavx2; the dispatcher (zero.cpp) only calls a
// kernel the CPU supports.
//
// Thread-safety: pure functions of their arguments.
//
// Example:
//   zerolab::internal::zero_avx2(p, n, /*stosb=*/0, /*nt=*/32 << 20);
#ifndef ZEROLAB_SRC_MEM_ZERO_KERNELS_HPP_
#define ZEROLAB_SRC_MEM_ZERO_KERNELS_HPP_

#include <atomic>
#include <cstddef>

namespace zerolab::internal {

// The thresholds in force (zero.cpp installs them; 0 means never).
extern constinit std::atomic<std::size_t> g_zero_stosb_threshold;
extern constinit std::atomic<std::size_t> g_zero_nt_threshold;

// zero_fill's entry points per ISA: the kernels below with the thresholds
// in force.
void fill_sse2(void* p, std::size_t n) noexcept;
void fill_avx2(void* p, std::size_t n) noexcept;
void fill_avx512(void* p, std::size_t n) noexcept;
// The same kernels with neither rep stosb nor non-temporal stores.
void vector_sse2(void* p, std::size_t n) noexcept;
void vector_avx2(void* p, std::size_t n) noexcept;
void vector_avx512(void* p, std::size_t n) noexcept;

// Zero [p, p+n): rep stosb when stosb != 0 && stosb <= n < nt (or nt == 0),
// non-temporal stores (plus sfence) when nt != 0 && n >= nt, vector stores
// otherwise.
void zero_sse2(void* p, std::size_t n, std::size_t stosb, std::size_t nt) noexcept;
void zero_avx2(void* p, std::size_t n, std::size_t stosb, std::size_t nt) noexcept;
void zero_avx512(void* p, std::size_t n, std::size_t stosb, std::size_t nt) noexcept;

// Non-temporal stores for every aligned 64-byte line, ordinary stores for
// the unaligned head and tail; no fence.
void zero_nt_sse2(void* p, std::size_t n) noexcept;
void zero_nt_avx2(void* p, std::size_t n) noexcept;

void zero_rep_stosb(void* p, std::size_t n) noexcept;

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_ZERO_KERNELS_HPP_
