// zero_fill's dispatcher, settings and zero_pages (zerolab/zero.hpp).
//
// The settings live in relaxed atomics (the ISA and the band table of
// zero_kernels.hpp), resolved on first use from the environment, the
// machine profile or the CPUID rule, nothing measured; the kernel for the
// ISA is called through a function pointer, like glibc's ifunc'd memset
// but switchable at run time for tests and measurements.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <optional>

#include "machine/machine_profile.hpp"
#include "mem/cpu_features.hpp"
#include "mem/zero_calibrate.hpp"
#include "mem/zero_kernels.hpp"
#include "text/byte_size.hpp"
#include "zerolab/zero.hpp"

// Defined by zerolab waste's preload (src/waste/preload/preload_zero.cpp):
// given the kernel zero_fill is about to install, returns one that tells the
// preload of each fill (as it is told of memset) and then runs that kernel.
// Weak: null without the preload, and the kernel is installed as it is.
extern "C" __attribute__((weak)) zerolab::internal::ZeroFillFn zerolab_waste_wrap_zero_fill(
    zerolab::internal::ZeroFillFn kernel) noexcept;

// Defined by zerolab waste's preload too (src/waste/preload/preload_state.cpp):
// +1 stops counting the calling thread's allocations, fills and copies, -1
// counts them again. Weak: null without the preload.
extern "C" __attribute__((weak)) void zerolab_waste_pause(int delta) noexcept;

namespace zerolab {
namespace {

using Fill = void (*)(void*, std::size_t) noexcept;

// zero_fill's one-time setup (the provenance's strings, the machine
// profile's read) is zerolab's work, not the program's: under zerolab waste
// it is not counted, so a program's report shows none of it.
class UncountedSetup {
 public:
  UncountedSetup() noexcept {
    if (&zerolab_waste_pause != nullptr) zerolab_waste_pause(1);
  }
  ~UncountedSetup() {
    if (&zerolab_waste_pause != nullptr) zerolab_waste_pause(-1);
  }
  UncountedSetup(const UncountedSetup&) = delete;
  UncountedSetup& operator=(const UncountedSetup&) = delete;
};

// The kernel to install: `kernel`, or the preload's wrapper around it.
Fill watched(Fill kernel) noexcept {
  if (&zerolab_waste_wrap_zero_fill == nullptr) return kernel;
  return zerolab_waste_wrap_zero_fill(kernel);
}

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

// How the bands in force came about; written under `mu`.
struct Provenance {
  std::once_flag once;
  std::mutex mu;
  std::string env_error;
  std::string source;
  std::string reason;
  double calibration_ms = 0;
};

Provenance& provenance() {
  static Provenance p;
  return p;
}

Fill fill_for(ZeroIsa isa) {
  switch (isa) {
    case ZeroIsa::kAvx512:
      return &internal::fill_avx512;
    case ZeroIsa::kAvx2:
      return &internal::fill_avx2;
    case ZeroIsa::kSse2:
      break;
  }
  return &internal::fill_sse2;
}

bool cpu_has(ZeroIsa isa) {
  const auto& f = internal::cpu_features();
  switch (isa) {
    case ZeroIsa::kAvx512:
      return f.avx512f && f.avx2;
    case ZeroIsa::kAvx2:
      return f.avx2;
    case ZeroIsa::kSse2:
      return true;
  }
  return false;
}

bool valid_bands(const std::vector<ZeroBand>& bands) {
  if (bands.size() > ZeroConfig::kMaxBands) return false;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    if (bands[i].from > internal::kZeroBandSizeMask - 1) return false;
    if (static_cast<unsigned>(bands[i].method) > static_cast<unsigned>(ZeroMethod::kMemset))
      return false;
    if (i > 0 && bands[i].from <= bands[i - 1].from) return false;
  }
  return true;
}

}  // namespace

namespace internal {

bool nt_after_whole_l3(bool amd, unsigned family) noexcept {
  return amd && family >= 0x1A;
}

bool stosb_after_l2(bool amd, unsigned family) noexcept {
  return amd && family >= 0x1A;
}

std::size_t stosb_from(bool erms, bool amd, unsigned family, std::size_t l2) noexcept {
  constexpr std::size_t kDefault = std::size_t{8} << 10;
  if (!erms) return 0;
  if (!stosb_after_l2(amd, family) || l2 < kDefault) return kDefault;
  std::size_t from = kDefault;
  while (from * 2 <= l2) from *= 2;
  return from;
}

std::size_t nt_from_cache(std::size_t l3, bool whole_l3) noexcept {
  std::size_t top = std::size_t{32} << 20;
  if (l3 != 0) {
    const std::size_t reach = whole_l3 ? l3 : l3 / 2;
    top = std::size_t{2} << 20;
    while (top * 2 <= reach && top < (std::size_t{32} << 20)) top *= 2;
  }
  return top;
}

}  // namespace internal

namespace {

// REQUIRES: valid_bands(bands).
void install(ZeroIsa isa, const std::vector<ZeroBand>& bands) {
  internal::g_zero_vector_below.store(0, std::memory_order_relaxed);
  for (int i = internal::kZeroBandSlots; i-- > 0;) {
    const auto k = static_cast<std::size_t>(i);
    const std::uint64_t slot =
        k < bands.size() ? (static_cast<std::uint64_t>(bands[k].method) << 56) | bands[k].from
                         : internal::kNoBand;
    internal::g_zero_bands[i].store(slot, std::memory_order_relaxed);
  }
  for (int k = 0; k < 64; ++k) {
    const std::size_t lo = std::size_t{1} << k;
    const std::size_t hi = k == 63 ? SIZE_MAX : (lo << 1) - 1;
    unsigned char entry = static_cast<unsigned char>(ZeroMethod::kVector);
    for (const ZeroBand& b : bands) {
      if (b.from <= lo) entry = static_cast<unsigned char>(b.method);
      if (b.from > lo && b.from <= hi) entry = internal::kZeroMixed;
    }
    internal::g_zero_by_log2[k].store(entry, std::memory_order_relaxed);
  }
  g_isa.store(static_cast<int>(isa), std::memory_order_relaxed);
  g_vector.store(internal::vector_kernel(isa), std::memory_order_release);
  g_fill.store(watched(fill_for(isa)), std::memory_order_release);
  const std::size_t vector_below = bands.empty() ? internal::kZeroBandSizeMask : bands.front().from;
  internal::g_zero_vector_below.store(vector_below, std::memory_order_release);
}

std::vector<ZeroBand> installed_bands() {
  std::vector<ZeroBand> bands;
  for (const auto& slot : internal::g_zero_bands) {
    const std::uint64_t b = slot.load(std::memory_order_relaxed);
    if (b == internal::kNoBand) break;
    bands.push_back({static_cast<std::size_t>(b & internal::kZeroBandSizeMask),
                     static_cast<ZeroMethod>(b >> 56)});
  }
  return bands;
}

std::size_t first_band_of(const std::vector<ZeroBand>& bands, ZeroMethod m) {
  for (const ZeroBand& b : bands) {
    if (b.method == m) return b.from;
  }
  return 0;
}

std::vector<ZeroBand> bands_from_thresholds(std::size_t stosb, std::size_t nt) {
  std::vector<ZeroBand> bands;
  if (stosb != 0 && (nt == 0 || stosb < nt)) bands.push_back({stosb, ZeroMethod::kRepStosb});
  if (nt != 0) bands.push_back({nt, ZeroMethod::kNonTemporal});
  return bands;
}

// The CPUID rule's thresholds, from the cache levels the rule reads: the
// L3, and the L2 only on CPUs whose rep stosb band starts there (AMD family
// 1Ah), so that deciding costs one CPUID (two there) and nothing else.
struct RuleThresholds {
  std::size_t stosb = 0;
  std::size_t nt = 0;
  std::size_t l2 = 0;  // 0 where the rule did not read it
  std::size_t l3 = 0;
};

RuleThresholds rule_thresholds() {
  const auto& f = internal::cpu_features();
  RuleThresholds r;
  if (f.erms && internal::stosb_after_l2(f.amd, f.family)) r.l2 = internal::cache_size(2);
  r.stosb = internal::stosb_from(f.erms, f.amd, f.family, r.l2);
  r.l3 = internal::cache_size(3);
  r.nt = internal::nt_from_cache(r.l3, internal::nt_after_whole_l3(f.amd, f.family));
  return r;
}

// "vector below 8KiB, rep-stosb from 8KiB (ERMS), nt from 16MiB (half the 48MiB L3)".
std::string rule_reason(const RuleThresholds& rule) {
  const auto& f = internal::cpu_features();
  const bool l2_rule =
      internal::stosb_after_l2(f.amd, f.family) && rule.l2 >= (std::size_t{8} << 10);
  std::string r = rule.stosb != 0
                      ? "vector below " + internal::format_byte_size(rule.stosb) +
                            ", rep-stosb from " + internal::format_byte_size(rule.stosb) +
                            (l2_rule ? " (ERMS; the " + internal::format_byte_size(rule.l2) +
                                           " L2, AMD family " + std::to_string(f.family) + ")"
                                     : std::string(" (ERMS)"))
                      : std::string("vector (no ERMS)");
  r += ", nt from " + internal::format_byte_size(rule.nt);
  if (rule.l3 == 0) {
    r += " (L3 unknown)";
  } else if (internal::nt_after_whole_l3(f.amd, f.family)) {
    r += " (the " + internal::format_byte_size(rule.l3) + " L3, AMD family " +
         std::to_string(f.family) + ")";
  } else {
    r += " (half the " + internal::format_byte_size(rule.l3) + " L3)";
  }
  return r;
}

// The vector width zero_fill uses unless ZEROLAB_ZERO_ISA says otherwise.
ZeroIsa default_isa() {
  return internal::cpu_features().avx2 ? ZeroIsa::kAvx2 : ZeroIsa::kSse2;
}

void append_error(std::string& errors, const std::string& one) {
  if (!errors.empty()) errors += "; ";
  errors += one;
}

// Whether the machine profile's bands can be installed for `isa`; if not,
// `why` says so ("no profile at ...", "...: stale: kernel ...").
bool profile_bands_usable(ZeroIsa isa, std::string& why) {
  const machine::LoadedProfile& p = machine::machine_profile();
  if (!p.usable) {
    why = p.why;
    return false;
  }
  if (!p.profile.zero_isa) {
    why = "the machine profile " + p.path + " has no zero_fill bands";
    return false;
  }
  if (*p.profile.zero_isa != isa) {
    why = std::string("the machine profile's bands are for ") + to_string(*p.profile.zero_isa) +
          ", the ISA in force is " + to_string(isa);
    return false;
  }
  if (!valid_bands(p.profile.zero_bands)) {
    why = "the machine profile's bands are not valid here";
    return false;
  }
  return true;
}

// Installs the bands once per process, from (in this order) the
// environment's thresholds, the machine profile, or the CPUID rule. Nothing
// is measured; the rule's cache sizes are read only when the rule is used.
void resolve() {
  Provenance& s = provenance();
  std::call_once(s.once, [&s] {
    const UncountedSetup uncounted;
    ZeroIsa isa = default_isa();
    std::optional<std::size_t> stosb;
    std::optional<std::size_t> nt;
    std::string errors;
    if (const char* v = std::getenv("ZEROLAB_ZERO_ISA")) {
      const std::string name = v;
      if (name == "sse2" || name == "avx2" || name == "avx512") {
        const ZeroIsa wanted = name == "sse2"   ? ZeroIsa::kSse2
                               : name == "avx2" ? ZeroIsa::kAvx2
                                                : ZeroIsa::kAvx512;
        if (cpu_has(wanted)) {
          isa = wanted;
        } else {
          append_error(errors, "ZEROLAB_ZERO_ISA=" + name + ": this CPU does not support it");
        }
      } else {
        append_error(errors, "ZEROLAB_ZERO_ISA=" + name + ": not one of sse2, avx2, avx512");
      }
    }
    for (const auto& [name, target] :
         {std::pair{"ZEROLAB_ZERO_STOSB", &stosb}, std::pair{"ZEROLAB_ZERO_NT", &nt}}) {
      const char* v = std::getenv(name);
      if (v == nullptr) continue;
      std::uint64_t value = 0;
      if (internal::parse_byte_size(v, value)) {
        *target = value;
      } else {
        append_error(errors, std::string(name) + "=" + v + ": not a size in bytes (K/M/G allowed)");
      }
    }
    bool use_profile = true;
    if (const char* v = std::getenv("ZEROLAB_ZERO_PROFILE")) {
      const std::string value = v;
      if (value == "0") {
        use_profile = false;
      } else if (value != "1") {
        append_error(errors, "ZEROLAB_ZERO_PROFILE=" + value + ": not 0 or 1");
      }
    }
    std::lock_guard lock(s.mu);
    s.env_error = errors;
    if (stosb || nt) {
      // The rule (and its CPUID) only for a threshold not given.
      const RuleThresholds rule = stosb && nt ? RuleThresholds{} : rule_thresholds();
      install(isa, bands_from_thresholds(stosb.value_or(rule.stosb), nt.value_or(rule.nt)));
      s.source = "environment";
      s.reason = "ZEROLAB_ZERO_STOSB/ZEROLAB_ZERO_NT given: the machine profile is not read";
      return;
    }
    std::string why_not;
    if (use_profile && profile_bands_usable(isa, why_not)) {
      const machine::LoadedProfile& p = machine::machine_profile();
      install(isa, p.profile.zero_bands);
      s.source = "profile";
      s.reason = "the machine profile " + p.path + ", written " + p.profile.written;
      return;
    }
    const RuleThresholds rule = rule_thresholds();
    install(isa, bands_from_thresholds(rule.stosb, rule.nt));
    s.source = "cpuid";
    s.reason = use_profile ? "the CPUID rule, " + rule_reason(rule) + " (" + why_not + ")"
                           : "ZEROLAB_ZERO_PROFILE=0: the CPUID rule, " + rule_reason(rule);
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

}  // namespace

// The names, indexed by the enums' values (declaration order).
constexpr const char* kIsaNames[] = {"sse2", "avx2", "avx512"};
constexpr const char* kMethodNames[] = {"vector", "rep-stosb", "nt", "memset"};

const char* to_string(ZeroIsa isa) noexcept {
  const auto i = static_cast<std::size_t>(isa);
  return i < std::size(kIsaNames) ? kIsaNames[i] : "sse2";
}

const char* to_string(ZeroMethod method) noexcept {
  const auto i = static_cast<std::size_t>(method);
  return i < std::size(kMethodNames) ? kMethodNames[i] : "vector";
}

std::string ZeroConfig::to_string() const {
  std::string s = std::string("isa=") + zerolab::to_string(isa) +
                  " stosb=" + std::to_string(stosb_threshold) +
                  " nt=" + std::to_string(nt_threshold) + " (";
  std::string features;
  for (const auto& [on, name] : {std::pair{has_erms, "erms"}, std::pair{has_fsrm, "fsrm"},
                                 std::pair{has_avx2, "avx2"}, std::pair{has_avx512, "avx512"}}) {
    if (on) features += std::string(features.empty() ? "" : " ") + name;
  }
  s += features.empty() ? "sse2 only" : features;
  s += "; L1d " + internal::format_byte_size(l1d) + " L2 " + internal::format_byte_size(l2) +
       " L3 " + internal::format_byte_size(l3) + ") bands:";
  if (bands.empty()) s += " vector only";
  for (std::size_t i = 0; i < bands.size(); ++i) {
    s += std::string(i == 0 ? " " : ", ") + internal::format_byte_size(bands[i].from) + " " +
         zerolab::to_string(bands[i].method);
  }
  if (!source.empty()) s += "; " + source;
  if (!reason.empty()) s += ": " + reason;
  return s;
}

ZeroConfig default_zero_config() {
  const auto& f = internal::cpu_features();
  ZeroConfig c;
  c.has_erms = f.erms;
  c.has_fsrm = f.fsrm;
  c.has_avx2 = f.avx2;
  c.has_avx512 = f.avx512f && f.avx2;
  c.l1d = internal::cache_size(1);
  c.l2 = internal::cache_size(2);
  c.l3 = internal::cache_size(3);
  c.isa = default_isa();
  // The CPUID rule (a machine profile overrules it where another method was
  // measured clearly faster): vector stores below 8 KiB; from there, with
  // ERMS, rep stosb, whose microcode writes whole lines (glibc 2.36's memset
  // itself switches to it at 2 KiB on every ERMS CPU). Measured here,
  // interleaved: the vCPUs run in two states that swap every few tens of
  // milliseconds; in one, vector stores beat rep stosb by 18% at 4 KiB, 11%
  // at 8 KiB and 5% at 16 KiB; in the other they lose by 5% at 4 KiB and
  // 20-35% at 8-16 KiB. 8 KiB is where the worse of the two states is least
  // bad. On AMD family 1Ah, rep stosb from the L2 instead (stosb_from says
  // why). Non-temporal stores from half the L3, or the whole L3 on AMD
  // family 1Ah (nt_from_cache says why).
  const RuleThresholds rule = rule_thresholds();
  c.stosb_threshold = rule.stosb;
  c.nt_threshold = rule.nt;
  c.bands = bands_from_thresholds(c.stosb_threshold, c.nt_threshold);
  c.source = "cpuid";
  return c;
}

ZeroConfig zero_config() {
  resolve();
  ZeroConfig c = default_zero_config();
  c.isa = static_cast<ZeroIsa>(g_isa.load(std::memory_order_relaxed));
  c.bands = installed_bands();
  c.stosb_threshold = first_band_of(c.bands, ZeroMethod::kRepStosb);
  c.nt_threshold = first_band_of(c.bands, ZeroMethod::kNonTemporal);
  Provenance& s = provenance();
  std::lock_guard lock(s.mu);
  c.env_error = s.env_error;
  c.source = s.source;
  c.reason = s.reason;
  c.calibration_ms = s.calibration_ms;
  c.calibration_runs = internal::calibration_runs();
  return c;
}

ZeroConfig zero_calibrate() {
  resolve();
  const auto isa = static_cast<ZeroIsa>(g_isa.load(std::memory_order_relaxed));
  const ZeroConfig rule = default_zero_config();
  const internal::Calibration c = internal::calibrate_bands(isa, rule);
  {
    Provenance& s = provenance();
    std::lock_guard lock(s.mu);
    install(isa, c.bands);
    s.source = "calibrated";
    s.reason = "the CPUID rule, " + rule_reason(rule_thresholds()) + "; " + c.reason;
    s.calibration_ms = c.ms;
  }
  return zero_config();
}

bool set_zero_config(const ZeroConfig& config) {
  if (!cpu_has(config.isa)) return false;
  std::vector<ZeroBand> bands = config.bands;
  if (bands.empty() || first_band_of(bands, ZeroMethod::kRepStosb) != config.stosb_threshold ||
      first_band_of(bands, ZeroMethod::kNonTemporal) != config.nt_threshold) {
    bands = bands_from_thresholds(config.stosb_threshold, config.nt_threshold);
  }
  if (!valid_bands(bands)) return false;
  resolve();
  Provenance& s = provenance();
  std::lock_guard lock(s.mu);
  install(config.isa, bands);
  s.source = "set_zero_config";
  s.reason.clear();
  s.calibration_ms = 0;
  return true;
}

void zero_fill_nt(void* p, std::size_t n) noexcept {
  internal::zero_nt_no_fence(p, n);
  internal::zero_store_fence();
}

namespace zero_methods {
void glibc_memset(void* p, std::size_t n) noexcept {
  std::memset(p, 0, n);
}
void rep_stosb(void* p, std::size_t n) noexcept {
  internal::zero_rep_stosb(p, n);
}
void vector_stores(void* p, std::size_t n) noexcept {
  g_vector.load(std::memory_order_relaxed)(p, n);
}
void nt_stores(void* p, std::size_t n) noexcept {
  zero_fill_nt(p, n);
}
}  // namespace zero_methods

namespace internal {

bool zero_uses_nt(std::size_t n) noexcept {
  resolve();
  return n > 0 && zero_method_of(n) == ZeroMethod::kNonTemporal;
}

Fill vector_kernel(ZeroIsa isa) noexcept {
  switch (isa) {
    case ZeroIsa::kAvx512:
      return &vector_avx512;
    case ZeroIsa::kAvx2:
      return &vector_avx2;
    case ZeroIsa::kSse2:
      break;
  }
  return &vector_sse2;
}

void zero_nt_no_fence(void* p, std::size_t n) noexcept {
  if (cpu_features().avx2) {
    zero_nt_avx2(p, n);
  } else {
    zero_nt_sse2(p, n);
  }
}

void zero_store_fence() noexcept {
  asm volatile("sfence" : : : "memory");
}

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
  if (address + n < address)
    return fail(EINVAL, "zero_pages: range wraps around the address space");
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
