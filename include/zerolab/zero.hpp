// zerolab/zero.hpp — writing zeros as fast as the machine allows, and not
// writing them at all where the kernel will.
//
// zero_fill(p, n) is a memset(p, 0, n) that picks its method by size and
// CPU: overlapping scalar and vector stores for small sizes (no loop, no
// branch per byte), a loop of vector stores for medium ones, `rep stosb`
// from the ERMS threshold, and non-temporal (cache-bypassing) stores from
// the NT threshold, where not reading the destination lines in first halves
// the memory traffic (seed 004: Go's memclr switches at 32 MiB and doubles
// its speed). The ISA (SSE2, AVX2, AVX-512) and both thresholds are chosen
// once, at the first call, from CPUID and the cache sizes; they can be read
// (zero_config) and overridden by API (set_zero_config) or by the
// environment, read at that first call:
//   ZEROLAB_ZERO_ISA=sse2|avx2|avx512
//   ZEROLAB_ZERO_STOSB=<bytes>   (0: never rep stosb)
//   ZEROLAB_ZERO_NT=<bytes>      (0: never non-temporal)
// Bad environment values are ignored (the defaults stay) and reported by
// zero_config().env_error.
//
// zero_chunked clears in pieces with a callback between them (Go's
// preemption points) and still uses non-temporal stores when the whole
// range is past the NT threshold, which Go's 256 KiB chunks never are.
// zero_pages hands page-aligned anonymous memory back to the kernel so it
// reads as zero on the next touch, without writing a byte.
//
// Thread-safety: zero_fill and friends are safe from any thread;
// set_zero_config is a process-wide switch (atomics; calls in flight finish
// with the old settings).
//
// Example:
//   std::vector<char> buf(1 << 20);
//   zerolab::zero_fill(buf.data(), buf.size());
//   zerolab::zero_chunked(big, 256 << 20, 256 << 10, [] { maybe_yield(); });
//   zerolab::ZeroPagesResult r = zerolab::zero_pages(map, 64 << 20);  // r.released == 64 MiB
#ifndef ZEROLAB_ZERO_HPP_
#define ZEROLAB_ZERO_HPP_

#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>

namespace zerolab {

// Which vector width zero_fill uses.
enum class ZeroIsa { kSse2, kAvx2, kAvx512 };

// "sse2", "avx2", "avx512".
const char* to_string(ZeroIsa isa) noexcept;

struct ZeroConfig {
  ZeroIsa isa = ZeroIsa::kSse2;
  // From this size on, rep stosb (0: never). Only below nt_threshold.
  std::size_t stosb_threshold = 0;
  // From this size on, non-temporal stores (0: never).
  std::size_t nt_threshold = 0;

  // What the CPU offers (read-only in set_zero_config).
  bool has_erms = false;
  bool has_fsrm = false;
  bool has_avx2 = false;
  bool has_avx512 = false;  // AVX-512F with OS support for the ZMM state
  std::size_t l1d = 0, l2 = 0, l3 = 0;  // cache sizes in bytes, 0 if unknown
  std::string env_error;  // a bad ZEROLAB_ZERO_* value, "" if none

  // "isa=avx2 stosb=2048 nt=33554432 (erms fsrm avx2 avx512; L1d 48KiB L2 1MiB L3 32MiB)".
  std::string to_string() const;
};

// The settings in force (resolving them on first use).
ZeroConfig zero_config();

// The settings zero_config() would choose from the CPU, ignoring overrides.
ZeroConfig default_zero_config();

// Installs `config`'s isa and thresholds. An ISA the CPU lacks is an error
// (returns false, nothing changes).
bool set_zero_config(const ZeroConfig& config);

// memset(p, 0, n), dispatched by size and CPU: sizes up to 32 bytes inline
// (two overlapping stores), larger ones through the kernel chosen for the
// CPU. REQUIRES: p valid for n bytes (p may be null when n == 0).
inline void zero_fill(void* p, std::size_t n) noexcept;

// Zeroes with non-temporal stores regardless of size (small heads and tails
// use ordinary stores), followed by a store fence.
void zero_fill_nt(void* p, std::size_t n) noexcept;

// The individual methods, for measurement and tests: exactly one method for
// the whole range (small sizes included).
namespace zero_methods {
void glibc_memset(void* p, std::size_t n) noexcept;  // memset(p, 0, n)
void rep_stosb(void* p, std::size_t n) noexcept;
void vector_stores(void* p, std::size_t n) noexcept;  // the widest ISA in force, no stosb/NT
void nt_stores(void* p, std::size_t n) noexcept;      // = zero_fill_nt
}  // namespace zero_methods

// Zeroes [p, p+n) in pieces of `chunk` bytes, calling between() after each
// piece but the last. When n is at or past the NT threshold, every piece
// uses non-temporal stores (and one fence at the end), so chunking does not
// cost the cache-bypassing speed. REQUIRES: chunk > 0.
template <class Between>
void zero_chunked(void* p, std::size_t n, std::size_t chunk, Between&& between);

struct ZeroPagesResult {
  std::size_t released = 0;  // bytes handed back with MADV_DONTNEED
  std::error_code error;     // EINVAL for a misaligned pointer or length, ...
  std::string message;       // "" on success
};

// Hands the pages of [p, p+n) back to the kernel (MADV_DONTNEED): private
// anonymous memory then reads as zero on its next touch, which maps a fresh
// page. REQUIRES: p page-aligned, n a multiple of the page size, the range
// private anonymous memory (file mappings would read back the file);
// violations of alignment return EINVAL without touching anything.
ZeroPagesResult zero_pages(void* p, std::size_t n) noexcept;

// ---- implementation ----------------------------------------------------------

namespace internal {
// The kernel zero_fill calls past 32 bytes: resolved on first use, then the
// one chosen for the CPU (zero.cpp).
using ZeroFillFn = void (*)(void*, std::size_t) noexcept;
extern std::atomic<ZeroFillFn> g_zero_fill;
// True when a range of n bytes should take the non-temporal path.
bool zero_uses_nt(std::size_t n) noexcept;
void zero_nt_no_fence(void* p, std::size_t n) noexcept;
void zero_store_fence() noexcept;
}  // namespace internal

inline void zero_fill(void* p, std::size_t n) noexcept {
  // The hot small sizes: two overlapping stores, no call. Stores through
  // memcpy of zero constants compile to plain moves.
  static constexpr unsigned char kZeros[16] = {};
  auto* b = static_cast<unsigned char*>(p);
  if (n <= 32) {
    if (n >= 16) {
      std::memcpy(b, kZeros, 16);
      std::memcpy(b + n - 16, kZeros, 16);
    } else if (n >= 8) {
      std::memcpy(b, kZeros, 8);
      std::memcpy(b + n - 8, kZeros, 8);
    } else if (n >= 4) {
      std::memcpy(b, kZeros, 4);
      std::memcpy(b + n - 4, kZeros, 4);
    } else if (n >= 2) {
      std::memcpy(b, kZeros, 2);
      std::memcpy(b + n - 2, kZeros, 2);
    } else if (n == 1) {
      *b = 0;
    }
    return;
  }
  internal::g_zero_fill.load(std::memory_order_relaxed)(p, n);
}

template <class Between>
void zero_chunked(void* p, std::size_t n, std::size_t chunk, Between&& between) {
  auto* bytes = static_cast<unsigned char*>(p);
  const bool nt = internal::zero_uses_nt(n);
  while (n > 0) {
    const std::size_t piece = n < chunk ? n : chunk;
    if (nt) {
      internal::zero_nt_no_fence(bytes, piece);
    } else {
      zero_fill(bytes, piece);
    }
    bytes += piece;
    n -= piece;
    if (n > 0) {
      if (nt) internal::zero_store_fence();  // the callback may hand the bytes to another thread
      between();
    }
  }
  if (nt) internal::zero_store_fence();
}

}  // namespace zerolab

#endif  // ZEROLAB_ZERO_HPP_
