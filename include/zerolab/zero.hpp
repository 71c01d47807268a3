// zerolab/zero.hpp — writing zeros as fast as this machine allows, and not
// writing them at all where the kernel will.
//
// zero_fill(p, n) is memset(p, 0, n) with the method chosen per size band:
// overlapping stores for small sizes (no loop; up to 64 bytes inline, no
// call), vector stores below 4 KiB, and from there for each band of sizes
// one of vector stores, rep stosb, non-temporal (cache-bypassing) stores
// and glibc's memset. Nothing is measured on a caller's call: at first use
// the bands come, once, from
//   - the machine profile, when `zerolab calibrate` (or
//     zerolab::calibrate_machine(), calibrate.hpp) wrote one for this
//     machine: the methods measured per size band here, read from
//     $XDG_CACHE_HOME/zerolab/machine-profile (~/.cache/zerolab/...) and
//     used only while its CPU model, microcode, kernel and glibc match
//     this machine's (any difference: stale, and the rule applies);
//   - otherwise the CPUID rule:
//     - vector stores below 8 KiB;
//     - with ERMS, rep stosb from 8 KiB (from the L2 on AMD family 1Ah);
//     - non-temporal stores from half the L3 (the whole L3 on AMD family
//       1Ah), rounded down to a power of two, 2-32 MiB.
// The first call costs what later ones cost plus one failed open (no
// profile) or reading the profile, and for the rule the L3's size (one
// CPUID; two on AMD family 1Ah). zero_config() says which
// bands are in force and what chose them (source "profile", "cpuid",
// "environment", "set_zero_config" or "calibrated"), and why the profile
// was not used when it was not. docs/zero_fill.md has the measurements.
// Overrides, read once at first use (a bad value is ignored and reported in
// zero_config().env_error; the library itself never prints):
//   ZEROLAB_ZERO_ISA=sse2|avx2|avx512  the vector width (default: avx2 if present)
//   ZEROLAB_ZERO_STOSB=<bytes>         rep stosb from this size (0: never)
//   ZEROLAB_ZERO_NT=<bytes>            non-temporal stores from this size (0: never)
//   ZEROLAB_ZERO_PROFILE=0|1           0: the CPUID rule, the profile unread; 1 (default):
//                                      the profile if there is one for this machine
// Setting ZEROLAB_ZERO_STOSB or ZEROLAB_ZERO_NT gives the CPUID rule's
// bands with those thresholds, the same on every run. zero_calibrate()
// measures now, in the calling process, and installs what it found;
// set_zero_config() installs any bands at run time.
//
// zero_chunked clears in pieces with a callback between them and still uses
// non-temporal stores when the whole range is in a non-temporal band.
// zero_pages hands page-aligned anonymous memory back to the kernel so it
// reads as zero on the next touch, without writing a byte.
//
// Thread-safety: zero_fill and friends are safe from any thread; the
// settings are resolved once (other first callers wait for it);
// set_zero_config is a process-wide switch (atomics; calls in flight finish
// with the method they chose).
//
// Example:
//   std::vector<char> buf(1 << 20);
//   zerolab::zero_fill(buf.data(), buf.size());
//   std::puts(zerolab::zero_config().to_string().c_str());  // the bands and why
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
#include <vector>

namespace zerolab {

// Which vector width zero_fill uses.
enum class ZeroIsa { kSse2, kAvx2, kAvx512 };

// "sse2", "avx2", "avx512".
const char* to_string(ZeroIsa isa) noexcept;

// How zero_fill writes the zeros of one band of sizes.
enum class ZeroMethod : unsigned char { kVector, kRepStosb, kNonTemporal, kMemset };

// "vector", "rep-stosb", "nt", "memset" (the names of bench/rigs/zero_sweep).
const char* to_string(ZeroMethod method) noexcept;

// From `from` bytes up to the next band's `from`, zero_fill uses `method`.
struct ZeroBand {
  std::size_t from = 0;
  ZeroMethod method = ZeroMethod::kVector;
  bool operator==(const ZeroBand&) const = default;
};

struct ZeroConfig {
  static constexpr std::size_t kMaxBands = 16;

  ZeroIsa isa = ZeroIsa::kSse2;
  // Ascending `from`, at most kMaxBands; sizes below the first band (and
  // every size up to the kernel's small paths, 64-256 B) use vector stores.
  std::vector<ZeroBand> bands;
  // The bands' simple form: rep stosb from stosb_threshold, non-temporal
  // from nt_threshold (0: never). zero_config() fills them from the bands
  // (the first band of each method); set_zero_config() rebuilds the bands
  // from them when they no longer match the bands, so editing either works.
  std::size_t stosb_threshold = 0;
  std::size_t nt_threshold = 0;

  // Where the bands came from ("profile", "cpuid", "environment",
  // "set_zero_config", "calibrated": zero_calibrate()) and why: the
  // profile's path, or the rule and why no profile was used, or what a
  // calibration measured.
  std::string source;
  std::string reason;
  double calibration_ms = 0;  // wall time zero_calibrate() took (0: none ran)
  int calibration_runs = 0;   // timed calibrations in this process (zero_fill runs none)

  // What the CPU offers (read-only in set_zero_config).
  bool has_erms = false;
  bool has_fsrm = false;
  bool has_avx2 = false;
  bool has_avx512 = false;              // AVX-512F with OS support for the ZMM state
  std::size_t l1d = 0, l2 = 0, l3 = 0;  // cache sizes in bytes, 0 if unknown
  // Every rejected ZEROLAB_ZERO_* value, "NAME=VALUE: why", joined by "; "
  // ("" if none). Programs that print (the zerolab CLI) warn with it.
  std::string env_error;

  // "isa=avx2 stosb=4096 nt=16777216 (erms fsrm avx2 avx512; L1d 48KiB L2
  // 1280KiB L3 48MiB) bands: 8KiB rep-stosb, 16MiB nt; calibrated: the CPUID
  // rule, ...; checked at cpu 0, 0.84 ms, ...: 4KiB vector kept (rep-stosb 0.83x), ...".
  std::string to_string() const;
};

// The settings in force (resolving them on first use: nothing is timed).
ZeroConfig zero_config();

// The settings of the CPUID rule, ignoring overrides and the profile.
ZeroConfig default_zero_config();

// Measures the methods now on the calling CPU (about a millisecond),
// installs the bands found (the ISA in force stays) and returns the
// settings. calibrate_machine() (calibrate.hpp) uses it; zero_fill never does.
ZeroConfig zero_calibrate();

// Installs `config`'s isa and bands (see ZeroConfig::stosb_threshold). An
// ISA the CPU lacks, bands out of order or too many are an error (returns
// false, nothing changes).
bool set_zero_config(const ZeroConfig& config);

// memset(p, 0, n): sizes up to 64 bytes inline (overlapping 16-byte
// stores), larger ones through the kernel of the ISA with the method of n's
// band. REQUIRES: p valid for n bytes (p may be null when n == 0).
inline void zero_fill(void* p, std::size_t n) noexcept;

// Zeroes with non-temporal stores regardless of size (small heads and tails
// use ordinary stores), followed by a store fence.
void zero_fill_nt(void* p, std::size_t n) noexcept;

// The individual methods, for measurement and tests: exactly one method for
// the whole range (small sizes included). Their names and signatures are
// stable: the lab's memclr-threshold and chunked-zero experiments use them.
namespace zero_methods {
void glibc_memset(void* p, std::size_t n) noexcept;  // memset(p, 0, n)
void rep_stosb(void* p, std::size_t n) noexcept;
void vector_stores(void* p, std::size_t n) noexcept;  // the widest ISA in force, no stosb/NT
void nt_stores(void* p, std::size_t n) noexcept;      // = zero_fill_nt
}  // namespace zero_methods

// Zeroes [p, p+n) in pieces of `chunk` bytes, calling between() after each
// piece but the last. When n lies in a non-temporal band, every piece
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
// The kernel zero_fill calls past 64 bytes (and only there: it skips the
// small-size branches): resolved on first use, then the one chosen for the
// CPU (zero.cpp).
using ZeroFillFn = void (*)(void*, std::size_t) noexcept;
extern std::atomic<ZeroFillFn> g_zero_fill;
// True when a range of n bytes lies in a non-temporal band.
bool zero_uses_nt(std::size_t n) noexcept;
void zero_nt_no_fence(void* p, std::size_t n) noexcept;
void zero_store_fence() noexcept;
}  // namespace internal

inline void zero_fill(void* p, std::size_t n) noexcept {
  // The hot small sizes: two or four overlapping stores, no call (a call
  // and its dispatch cost more than the stores up to 64 bytes). Stores
  // through memcpy of zero constants compile to plain 16-byte moves.
  static constexpr unsigned char kZeros[16] = {};
  auto* b = static_cast<unsigned char*>(p);
  if (__builtin_expect(n > 64, 1)) {  // the call falls through, small sizes take the branch
    internal::g_zero_fill.load(std::memory_order_relaxed)(p, n);
  } else {
    if (n >= 16) {
      std::memcpy(b, kZeros, 16);
      std::memcpy(b + n - 16, kZeros, 16);
      if (n > 32) {
        std::memcpy(b + 16, kZeros, 16);
        std::memcpy(b + n - 32, kZeros, 16);
      }
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
  }
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
