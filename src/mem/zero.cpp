// zero_fill's dispatcher, settings and zero_pages (zerolab/zero.hpp).
//
// The settings live in three relaxed atomics (ISA, stosb threshold, NT
// threshold), resolved from the CPU and the environment on first use; the
// kernel for the ISA is called through a function pointer, like glibc's
// ifunc'd memset but switchable at run time for tests and measurements.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "mem/cpu_features.hpp"
#include "mem/size_text.hpp"
#include "mem/zero_kernels.hpp"
#include "zerolab/zero.hpp"

namespace zerolab {
namespace {

using Fill = void (*)(void*, std::size_t) noexcept;

void resolve_and_fill(void* p, std::size_t n) noexcept;

}  // namespace

// zero_fill is one relaxed load and an indirect call: the pointer starts at
// resolve_and_fill, which installs the kernel for the CPU and calls it.
constinit std::atomic<internal::ZeroFillFn> internal::g_zero_fill{&resolve_and_fill};

namespace {

std::atomic<Fill>& g_fill = internal::g_zero_fill;
constinit std::atomic<int> g_isa{0};
void resolve_and_vector(void* p, std::size_t n) noexcept;
constinit std::atomic<Fill> g_vector{&resolve_and_vector};

struct Resolution {
  std::once_flag once;
  std::string env_error;  // written once under `once`
};

Resolution& resolution() {
  static Resolution r;
  return r;
}

Fill fill_for(ZeroIsa isa) {
  switch (isa) {
    case ZeroIsa::kAvx512: return &internal::fill_avx512;
    case ZeroIsa::kAvx2: return &internal::fill_avx2;
    case ZeroIsa::kSse2: break;
  }
  return &internal::fill_sse2;
}

Fill vector_for(ZeroIsa isa) {
  switch (isa) {
    case ZeroIsa::kAvx512: return &internal::vector_avx512;
    case ZeroIsa::kAvx2: return &internal::vector_avx2;
    case ZeroIsa::kSse2: break;
  }
  return &internal::vector_sse2;
}

bool cpu_has(ZeroIsa isa) {
  const auto& f = internal::cpu_features();
  switch (isa) {
    case ZeroIsa::kAvx512: return f.avx512f && f.avx2;
    case ZeroIsa::kAvx2: return f.avx2;
    case ZeroIsa::kSse2: return true;
  }
  return false;
}

void install(ZeroIsa isa, std::size_t stosb, std::size_t nt) {
  internal::g_zero_stosb_threshold.store(stosb, std::memory_order_relaxed);
  internal::g_zero_nt_threshold.store(nt, std::memory_order_relaxed);
  g_isa.store(static_cast<int>(isa), std::memory_order_relaxed);
  g_vector.store(vector_for(isa), std::memory_order_release);
  g_fill.store(fill_for(isa), std::memory_order_release);
}

void resolve() {
  Resolution& s = resolution();
  std::call_once(s.once, [&s] {
    const ZeroConfig d = default_zero_config();
    ZeroIsa isa = d.isa;
    std::size_t stosb = d.stosb_threshold;
    std::size_t nt = d.nt_threshold;
    std::string error;
    if (const char* v = std::getenv("ZEROLAB_ZERO_ISA")) {
      const std::string name = v;
      ZeroIsa wanted = isa;
      bool known = true;
      if (name == "sse2") {
        wanted = ZeroIsa::kSse2;
      } else if (name == "avx2") {
        wanted = ZeroIsa::kAvx2;
      } else if (name == "avx512") {
        wanted = ZeroIsa::kAvx512;
      } else {
        known = false;
        error = "ZEROLAB_ZERO_ISA=" + name + ": not one of sse2, avx2, avx512";
      }
      if (known && !cpu_has(wanted)) {
        error = "ZEROLAB_ZERO_ISA=" + name + ": this CPU does not support it";
      } else if (known) {
        isa = wanted;
      }
    }
    std::size_t value = 0;
    if (const char* v = std::getenv("ZEROLAB_ZERO_STOSB")) {
      if (internal::parse_size_text(v, value)) {
        stosb = value;
      } else {
        error = std::string("ZEROLAB_ZERO_STOSB=") + v + ": not a size in bytes (K/M/G allowed)";
      }
    }
    if (const char* v = std::getenv("ZEROLAB_ZERO_NT")) {
      if (internal::parse_size_text(v, value)) {
        nt = value;
      } else {
        error = std::string("ZEROLAB_ZERO_NT=") + v + ": not a size in bytes (K/M/G allowed)";
      }
    }
    s.env_error = error;
    install(isa, stosb, nt);
  });
}

void resolve_and_fill(void* p, std::size_t n) noexcept {
  resolve();
  g_fill.load(std::memory_order_acquire)(p, n);
}

void resolve_and_vector(void* p, std::size_t n) noexcept {
  resolve();
  g_vector.load(std::memory_order_acquire)(p, n);
}

std::string size_text(std::size_t bytes) {
  if (bytes != 0 && bytes % (std::size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
  if (bytes != 0 && bytes % (std::size_t{1} << 10) == 0) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes) + "B";
}

}  // namespace

const char* to_string(ZeroIsa isa) noexcept {
  switch (isa) {
    case ZeroIsa::kAvx512: return "avx512";
    case ZeroIsa::kAvx2: return "avx2";
    case ZeroIsa::kSse2: break;
  }
  return "sse2";
}

std::string ZeroConfig::to_string() const {
  std::string s = std::string("isa=") + zerolab::to_string(isa) +
                  " stosb=" + std::to_string(stosb_threshold) + " nt=" + std::to_string(nt_threshold) +
                  " (";
  std::string features;
  for (const auto& [on, name] : {std::pair{has_erms, "erms"}, std::pair{has_fsrm, "fsrm"},
                                 std::pair{has_avx2, "avx2"}, std::pair{has_avx512, "avx512"}}) {
    if (on) features += std::string(features.empty() ? "" : " ") + name;
  }
  s += features.empty() ? "sse2 only" : features;
  s += "; L1d " + size_text(l1d) + " L2 " + size_text(l2) + " L3 " + size_text(l3) + ")";
  return s;
}

ZeroConfig default_zero_config() {
  const auto& f = internal::cpu_features();
  ZeroConfig c;
  c.has_erms = f.erms;
  c.has_fsrm = f.fsrm;
  c.has_avx2 = f.avx2;
  c.has_avx512 = f.avx512f && f.avx2;
  c.l1d = f.l1d;
  c.l2 = f.l2;
  c.l3 = f.l3;
  c.isa = f.avx2 ? ZeroIsa::kAvx2 : ZeroIsa::kSse2;
  // Vector stores win while the buffer fits the L2; past that, rep stosb's
  // microcode writes whole lines without reading them first (no
  // read-for-ownership), which plain stores into missing lines cannot.
  // Measured on a quiet 2-vCPU Zen 4 VM (examples/zero_sweep pinned with
  // taskset, GB/s): at 512 KiB vector stores 222 vs rep stosb 145; at 1-2 MiB
  // rep stosb leads on both vCPUs (113 vs 97). Between 4 MiB and the L3 the
  // vCPUs disagree: on one rep stosb runs at 109-113 (vector 91-105), on the
  // other it streams at 68-70 from 4 MiB on (vector 85-89). The rule follows
  // the first, where rep stosb keeps its lead up to 31 MiB: from the L2 size
  // (1 MiB when the CPU does not say).
  const std::size_t stosb = f.l2 != 0 ? f.l2 : (std::size_t{1} << 20);
  c.stosb_threshold = f.erms ? stosb : 0;
  // Non-temporal stores skip the caches entirely: Go's memclr switches at
  // 32 MiB, where they double its speed (seed 004); bounded by the L3 size.
  std::size_t nt = std::size_t{32} << 20;
  if (f.l3 != 0 && f.l3 < nt) nt = f.l3;
  c.nt_threshold = nt;
  return c;
}

ZeroConfig zero_config() {
  resolve();
  ZeroConfig c = default_zero_config();
  c.isa = static_cast<ZeroIsa>(g_isa.load(std::memory_order_relaxed));
  c.stosb_threshold = internal::g_zero_stosb_threshold.load(std::memory_order_relaxed);
  c.nt_threshold = internal::g_zero_nt_threshold.load(std::memory_order_relaxed);
  c.env_error = resolution().env_error;
  return c;
}

bool set_zero_config(const ZeroConfig& config) {
  if (!cpu_has(config.isa)) return false;
  resolve();
  install(config.isa, config.stosb_threshold, config.nt_threshold);
  return true;
}



void zero_fill_nt(void* p, std::size_t n) noexcept {
  internal::zero_nt_no_fence(p, n);
  internal::zero_store_fence();
}

namespace zero_methods {
void glibc_memset(void* p, std::size_t n) noexcept { std::memset(p, 0, n); }
void rep_stosb(void* p, std::size_t n) noexcept { internal::zero_rep_stosb(p, n); }
void vector_stores(void* p, std::size_t n) noexcept {
  g_vector.load(std::memory_order_relaxed)(p, n);
}
void nt_stores(void* p, std::size_t n) noexcept { zero_fill_nt(p, n); }
}  // namespace zero_methods

namespace internal {

bool zero_uses_nt(std::size_t n) noexcept {
  resolve();
  const std::size_t nt = g_zero_nt_threshold.load(std::memory_order_relaxed);
  return nt != 0 && n >= nt;
}

void zero_nt_no_fence(void* p, std::size_t n) noexcept {
  if (cpu_features().avx2) {
    zero_nt_avx2(p, n);
  } else {
    zero_nt_sse2(p, n);
  }
}

void zero_store_fence() noexcept { asm volatile("sfence" : : : "memory"); }

}  // namespace internal

ZeroPagesResult zero_pages(void* p, std::size_t n) noexcept {
  ZeroPagesResult r;
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  auto fail = [&r](int code, const char* message) {
    r.error = std::error_code(code, std::generic_category());
    r.message = message;
    return r;
  };
  if (n == 0) return r;
  if (p == nullptr) return fail(EINVAL, "zero_pages: null pointer with a non-zero length");
  if (address % page != 0) return fail(EINVAL, "zero_pages: pointer is not page-aligned");
  if (n % page != 0) return fail(EINVAL, "zero_pages: length is not a multiple of the page size");
  if (address + n < address) return fail(EINVAL, "zero_pages: range wraps around the address space");
  if (madvise(p, n, MADV_DONTNEED) != 0) {
    const int e = errno;
    r.error = std::error_code(e, std::generic_category());
    r.message = std::string("zero_pages: madvise(MADV_DONTNEED): ") + std::strerror(e);
    return r;
  }
  r.released = n;
  return r;
}

}  // namespace zerolab
