// What the CPU offers for zeroing memory: ERMS/FSRM (fast rep stosb), AVX2,
// AVX-512F with OS support, and the cache sizes. The features come from
// CPUID; the cache sizes from CPUID's deterministic cache leaves (Intel
// leaf 4, AMD leaf 0x8000001D: one cache instance each, as the kernel reads
// them for sysfs), then the kernel's description of the CPU this process
// first asked on (/sys/devices/system/cpu/cpuN/cache) for a level CPUID
// leaves out, and glibc's sysconf only where both say nothing. glibc's
// reading comes last because it can be far off: on an AMD EPYC (family 25)
// KVM guest, glibc 2.36 said a 320 MiB L3 where the kernel said 32 MiB.
// Reading sysfs is a dozen small files; CPUID a few instructions (each a
// trap to the hypervisor in a VM), so zero_fill's first call reads CPUID.
//
// Thread-safety: cpu_features() is initialised once (a function-local
// static) and read-only afterwards.
//
// Example:
//   if (zerolab::internal::cpu_features().avx2) { ... }
//   cpu_family(0x00B00F21) == 26  // AMD family 1Ah (Zen 5)
//   CacheSizes c = read_cache_sizes("/sys/devices/system/cpu/cpu0/cache");
//   // c.l3 == 32 << 20 where index3/level says "3", type "Unified", size "32768K"
#ifndef ZEROLAB_SRC_MEM_CPU_FEATURES_HPP_
#define ZEROLAB_SRC_MEM_CPU_FEATURES_HPP_

#include <cstddef>
#include <string_view>

namespace zerolab::internal {

// Data cache sizes in bytes, 0 where unknown.
struct CacheSizes {
  std::size_t l1d = 0;
  std::size_t l2 = 0;
  std::size_t l3 = 0;
};

struct CpuFeatures {
  bool amd = false;     // CPUID vendor "AuthenticAMD"
  unsigned family = 0;  // the displayed family (base + extended), 0 if unknown
  bool erms = false;
  bool fsrm = false;
  bool avx2 = false;
  bool avx512f = false;
  std::size_t l1d = 0;
  std::size_t l2 = 0;
  std::size_t l3 = 0;
};

const CpuFeatures& cpu_features();

// The family CPUID leaf 1 reports in `eax`, as vendors print it: the base
// family, plus the extended family where the base is 0xF (0x00B00F21, an AMD
// EPYC 9xx5, gives 0x1A = 26).
unsigned cpu_family(unsigned leaf1_eax) noexcept;

// A sysfs cache size ("32K", "32768K", "2M", "1G" or a plain number of
// bytes, one trailing newline allowed) in bytes; 0 for anything else,
// including 0, an overflow and a missing number.
std::size_t parse_cache_size(std::string_view text) noexcept;

// The data and unified caches of levels 1-3 under `dir` (one CPU's
// .../cache folder: index0, index1, ... each with level, type and size);
// 0 for a level it does not describe. Reads at most 16 index folders.
CacheSizes read_cache_sizes(const char* dir) noexcept;

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_CPU_FEATURES_HPP_
