// Zeroing kernels (zero_kernels.hpp). Each kernel:
//   n < 16          two overlapping scalar stores (8, 4, 2 bytes) or one byte
//   n <= 4 vectors  2 or 4 overlapping unaligned vector stores, no loop
//   larger          the method of the size's band (rep
//                   stosb, non-temporal stores, memset); for vector stores
//                   4 unaligned vector stores at each end, then an
//                   aligned loop of 4 stores over what lies between (its
//                   bound computed once: on Zen 4 this runs level with
//                   glibc's memset at 512 B-2 KiB, where a loop that kept
//                   recomputing end - q was 10-20% slower).
#include "mem/zero_kernels.hpp"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace zerolab::internal {

constinit std::atomic<std::uint64_t> g_zero_bands[kZeroBandSlots] = {
    kNoBand, kNoBand, kNoBand, kNoBand, kNoBand, kNoBand, kNoBand, kNoBand,
    kNoBand, kNoBand, kNoBand, kNoBand, kNoBand, kNoBand, kNoBand, kNoBand};
constinit std::atomic<unsigned char> g_zero_by_log2[64] = {};  // vector until installed
constinit std::atomic<std::size_t> g_zero_vector_below{0};

namespace {

inline void zero_below_16(unsigned char* p, std::size_t n) noexcept {
  if (n >= 8) {
    const std::uint64_t z = 0;
    std::memcpy(p, &z, 8);
    std::memcpy(p + n - 8, &z, 8);
  } else if (n >= 4) {
    const std::uint32_t z = 0;
    std::memcpy(p, &z, 4);
    std::memcpy(p + n - 4, &z, 4);
  } else if (n >= 2) {
    const std::uint16_t z = 0;
    std::memcpy(p, &z, 2);
    std::memcpy(p + n - 2, &z, 2);
  } else if (n == 1) {
    *p = 0;
  }
}

inline unsigned char* align_down(unsigned char* p, std::uintptr_t a) noexcept {
  return reinterpret_cast<unsigned char*>(reinterpret_cast<std::uintptr_t>(p) & ~(a - 1));
}

inline unsigned char* align_up(unsigned char* p, std::uintptr_t a) noexcept {
  return reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(p) + a) & ~(a - 1));
}

inline void rep_stosb_inline(void* p, std::size_t n) noexcept {
  asm volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(0) : "memory");
}

// The methods other than vector stores, for sizes past the small paths.
inline void zero_by_method(unsigned char* p, std::size_t n, ZeroMethod m,
                           void (*nt)(void*, std::size_t) noexcept) noexcept {
  switch (m) {
    case ZeroMethod::kNonTemporal:
      nt(p, n);
      _mm_sfence();
      return;
    case ZeroMethod::kRepStosb:
      zero_rep_stosb(p, n);
      return;
    case ZeroMethod::kMemset:
      std::memset(p, 0, n);
      return;
    case ZeroMethod::kVector:
      break;
  }
}

// 16..64 bytes with SSE stores.
inline void zero_16_to_64(unsigned char* p, std::size_t n) noexcept {
  const __m128i z = _mm_setzero_si128();
  auto* q = reinterpret_cast<__m128i*>(p);
  auto* e = reinterpret_cast<__m128i*>(p + n);
  _mm_storeu_si128(q, z);
  _mm_storeu_si128(e - 1, z);
  if (n > 32) {
    _mm_storeu_si128(q + 1, z);
    _mm_storeu_si128(e - 2, z);
  }
}

// ---- cores, inlined into every entry point -------------------------------------------

__attribute__((always_inline)) inline void core_sse2(void* dst, std::size_t n,
                                                     ZeroMethod m) noexcept {
  auto* p = static_cast<unsigned char*>(dst);
  if (n < 16) {
    zero_below_16(p, n);
    return;
  }
  if (n <= 64) {
    zero_16_to_64(p, n);
    return;
  }
  if (m != ZeroMethod::kVector) {
    zero_by_method(p, n, m, &zero_nt_sse2);
    return;
  }
  const __m128i z = _mm_setzero_si128();
  unsigned char* end = p + n;
  auto* v = reinterpret_cast<__m128i*>(p);
  auto* e = reinterpret_cast<__m128i*>(end);
  _mm_storeu_si128(v, z);
  _mm_storeu_si128(v + 1, z);
  _mm_storeu_si128(v + 2, z);
  _mm_storeu_si128(v + 3, z);
  _mm_storeu_si128(e - 4, z);
  _mm_storeu_si128(e - 3, z);
  _mm_storeu_si128(e - 2, z);
  _mm_storeu_si128(e - 1, z);
  unsigned char* q = align_down(p + 64, 16);
  unsigned char* const stop = end - 64;
  for (; q < stop; q += 64) {
    auto* a = reinterpret_cast<__m128i*>(q);
    _mm_store_si128(a, z);
    _mm_store_si128(a + 1, z);
    _mm_store_si128(a + 2, z);
    _mm_store_si128(a + 3, z);
  }
}

// The first and last 128 bytes of [p, p+n), n >= 128.
__attribute__((target("avx2"), always_inline)) inline void store_ends_avx2(unsigned char* p,
                                                                           std::size_t n) noexcept {
  const __m256i z = _mm256_setzero_si256();
  auto* v = reinterpret_cast<__m256i*>(p);
  auto* e = reinterpret_cast<__m256i*>(p + n);
  _mm256_storeu_si256(v, z);
  _mm256_storeu_si256(v + 1, z);
  _mm256_storeu_si256(v + 2, z);
  _mm256_storeu_si256(v + 3, z);
  _mm256_storeu_si256(e - 4, z);
  _mm256_storeu_si256(e - 3, z);
  _mm256_storeu_si256(e - 2, z);
  _mm256_storeu_si256(e - 1, z);
}

// What lies between the ends store_ends_avx2 wrote, n > 256: aligned
// stores, 128 bytes a turn (the last turn may overlap the tail).
__attribute__((target("avx2"), always_inline)) inline void loop_avx2(unsigned char* p,
                                                                     std::size_t n) noexcept {
  const __m256i z = _mm256_setzero_si256();
  unsigned char* q = align_down(p + 128, 32);
  unsigned char* const stop = p + n - 128;
  for (; q < stop; q += 128) {
    auto* a = reinterpret_cast<__m256i*>(q);
    _mm256_store_si256(a, z);
    _mm256_store_si256(a + 1, z);
    _mm256_store_si256(a + 2, z);
    _mm256_store_si256(a + 3, z);
  }
}

__attribute__((target("avx2"), always_inline)) inline void core_avx2(void* dst, std::size_t n,
                                                                     ZeroMethod m) noexcept {
  auto* p = static_cast<unsigned char*>(dst);
  if (n < 16) {
    zero_below_16(p, n);
    return;
  }
  if (n <= 32) {
    const __m128i z = _mm_setzero_si128();
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), z);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + n - 16), z);
    return;
  }
  const __m256i z = _mm256_setzero_si256();
  auto* e = reinterpret_cast<__m256i*>(p + n);
  auto* v = reinterpret_cast<__m256i*>(p);
  if (n <= 128) {
    _mm256_storeu_si256(v, z);
    _mm256_storeu_si256(e - 1, z);
    if (n > 64) {
      _mm256_storeu_si256(v + 1, z);
      _mm256_storeu_si256(e - 2, z);
    }
    return;
  }
  if (n <= 256) {
    _mm256_storeu_si256(v, z);
    _mm256_storeu_si256(v + 1, z);
    _mm256_storeu_si256(v + 2, z);
    _mm256_storeu_si256(v + 3, z);
    _mm256_storeu_si256(e - 4, z);
    _mm256_storeu_si256(e - 3, z);
    _mm256_storeu_si256(e - 2, z);
    _mm256_storeu_si256(e - 1, z);
    return;
  }
  if (m != ZeroMethod::kVector) {
    zero_by_method(p, n, m, &zero_nt_avx2);
    return;
  }
  store_ends_avx2(p, n);
  loop_avx2(p, n);
}

__attribute__((target("avx2,avx512f"), always_inline)) inline void core_avx512(
    void* dst, std::size_t n, ZeroMethod m) noexcept {
  auto* p = static_cast<unsigned char*>(dst);
  if (n <= 128) {
    core_avx2(p, n, ZeroMethod::kVector);
    return;
  }
  const __m512i z = _mm512_setzero_si512();
  auto* e = reinterpret_cast<__m512i*>(p + n);
  auto* v = reinterpret_cast<__m512i*>(p);
  if (n <= 256) {
    _mm512_storeu_si512(v, z);
    _mm512_storeu_si512(v + 1, z);
    _mm512_storeu_si512(e - 2, z);
    _mm512_storeu_si512(e - 1, z);
    return;
  }
  if (m != ZeroMethod::kVector) {
    zero_by_method(p, n, m, &zero_nt_avx2);
    return;
  }
  unsigned char* end = p + n;
  _mm512_storeu_si512(v, z);
  _mm512_storeu_si512(v + 1, z);
  _mm512_storeu_si512(v + 2, z);
  _mm512_storeu_si512(v + 3, z);
  _mm512_storeu_si512(e - 4, z);
  _mm512_storeu_si512(e - 3, z);
  _mm512_storeu_si512(e - 2, z);
  _mm512_storeu_si512(e - 1, z);
  unsigned char* q = align_down(p + 256, 64);
  unsigned char* const stop = end - 256;
  for (; q < stop; q += 256) {
    auto* a = reinterpret_cast<__m512i*>(q);
    _mm512_store_si512(a, z);
    _mm512_store_si512(a + 1, z);
    _mm512_store_si512(a + 2, z);
    _mm512_store_si512(a + 3, z);
  }
}

}  // namespace

void zero_rep_stosb(void* p, std::size_t n) noexcept {
  rep_stosb_inline(p, n);
}

// ---- non-temporal --------------------------------------------------------------------

void zero_nt_sse2(void* dst, std::size_t n) noexcept {
  auto* p = static_cast<unsigned char*>(dst);
  if (n < 128) {
    core_sse2(p, n, ZeroMethod::kVector);
    return;
  }
  const __m128i z = _mm_setzero_si128();
  unsigned char* end = p + n;
  zero_16_to_64(p, 64);  // unaligned head
  unsigned char* q = align_up(p, 64);
  for (; end - q >= 64; q += 64) {
    auto* v = reinterpret_cast<__m128i*>(q);
    _mm_stream_si128(v, z);
    _mm_stream_si128(v + 1, z);
    _mm_stream_si128(v + 2, z);
    _mm_stream_si128(v + 3, z);
  }
  if (q < end) zero_16_to_64(end - 64, 64);  // unaligned tail
}

__attribute__((target("avx2"))) void zero_nt_avx2(void* dst, std::size_t n) noexcept {
  auto* p = static_cast<unsigned char*>(dst);
  if (n < 128) {
    core_avx2(p, n, ZeroMethod::kVector);
    return;
  }
  const __m256i z = _mm256_setzero_si256();
  unsigned char* end = p + n;
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), z);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 32), z);
  unsigned char* q = align_up(p, 64);
  for (; end - q >= 128; q += 128) {
    auto* v = reinterpret_cast<__m256i*>(q);
    _mm256_stream_si256(v, z);
    _mm256_stream_si256(v + 1, z);
    _mm256_stream_si256(v + 2, z);
    _mm256_stream_si256(v + 3, z);
  }
  if (end - q >= 64) {
    auto* v = reinterpret_cast<__m256i*>(q);
    _mm256_stream_si256(v, z);
    _mm256_stream_si256(v + 1, z);
    q += 64;
  }
  if (q < end) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(end - 64), z);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(end - 32), z);
  }
}

// ---- the exported kernels ------------------------------------------------------------

// zero_fill's targets (REQUIRES: n > 64): the kernel inlined for the small sizes and the
// vector stores' band, which need no band lookup (and so no stack frame),
// and rep stosb inline for its bands (one table load: rep stosb's own
// start-up is a dozen nanoseconds, a call and a search on top would be
// 10% at 4 KiB); the other sizes tail-call the banded path.
namespace {

inline bool vector_band(std::size_t n) noexcept {
  // Expected: the vector loop then follows the test with no taken branch.
  return __builtin_expect(n < g_zero_vector_below.load(std::memory_order_relaxed), 1);
}

inline bool stosb_band(std::size_t n) noexcept {
  return g_zero_by_log2[zero_log2(n)].load(std::memory_order_relaxed) ==
         static_cast<unsigned char>(ZeroMethod::kRepStosb);
}

__attribute__((noinline)) void banded_sse2(void* p, std::size_t n) noexcept {
  core_sse2(p, n, zero_method_of(n));
}

__attribute__((target("avx2"), noinline)) void banded_avx2(void* p, std::size_t n) noexcept {
  core_avx2(p, n, zero_method_of(n));
}

__attribute__((target("avx2,avx512f"), noinline)) void banded_avx512(void* p,
                                                                     std::size_t n) noexcept {
  core_avx512(p, n, zero_method_of(n));
}

}  // namespace

void fill_sse2(void* p, std::size_t n) noexcept {
  if (n <= 64) __builtin_unreachable();  // zero_fill stores those inline
  if (n <= 64 || vector_band(n)) return core_sse2(p, n, ZeroMethod::kVector);
  if (stosb_band(n)) return rep_stosb_inline(p, n);
  banded_sse2(p, n);
}

// Laid out so that the vector stores' band runs without a taken branch,
// and the other bands leave before any vector store (rep stosb from 4 KiB
// ran 2-11% slower here after the 256 bytes of vector stores at the ends
// that an earlier layout wrote first).
//
// GCC merges the 129-256 byte path's return into the loop's (a jump to a
// shared vzeroupper; ret): that second taken branch made zero_fill(256)
// 0.888-0.889x of the vector kernel alone (zero_sweep Race, three runs per
// build, taskset -c 1, AMD EPYC VM); without the merge, 0.999-1.000x.
// (optimize() is GCC's; Clang has no such attribute.)
#if defined(__GNUC__) && !defined(__clang__)
#define ZEROLAB_FILL_AVX2 __attribute__((target("avx2"), optimize("no-crossjumping")))
#else
#define ZEROLAB_FILL_AVX2 __attribute__((target("avx2")))
#endif
ZEROLAB_FILL_AVX2 void fill_avx2(void* dst, std::size_t n) noexcept {
  auto* p = static_cast<unsigned char*>(dst);
  if (n <= 128) {  // and n > 64: zero_fill stores smaller sizes inline
    const __m256i z = _mm256_setzero_si256();
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), z);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p) + 1, z);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + n) - 2, z);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + n) - 1, z);
    return;
  }
  if (__builtin_expect(n > 256, 1) && !vector_band(n)) {
    if (stosb_band(n)) return rep_stosb_inline(p, n);
    return banded_avx2(p, n);
  }
  store_ends_avx2(p, n);
  if (__builtin_expect(n <= 256, 0)) return;
  loop_avx2(p, n);
}
#undef ZEROLAB_FILL_AVX2

__attribute__((target("avx2,avx512f"))) void fill_avx512(void* p, std::size_t n) noexcept {
  if (n <= 64) __builtin_unreachable();  // zero_fill stores those inline
  if (n <= 256 || vector_band(n)) return core_avx512(p, n, ZeroMethod::kVector);
  if (stosb_band(n)) return rep_stosb_inline(p, n);
  banded_avx512(p, n);
}

void vector_sse2(void* p, std::size_t n) noexcept {
  core_sse2(p, n, ZeroMethod::kVector);
}
__attribute__((target("avx2"))) void vector_avx2(void* p, std::size_t n) noexcept {
  core_avx2(p, n, ZeroMethod::kVector);
}
__attribute__((target("avx2,avx512f"))) void vector_avx512(void* p, std::size_t n) noexcept {
  core_avx512(p, n, ZeroMethod::kVector);
}

}  // namespace zerolab::internal
