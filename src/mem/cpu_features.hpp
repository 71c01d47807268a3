// What the CPU offers for zeroing memory: the vendor and family, ERMS/FSRM
// (fast rep stosb), AVX2 and AVX-512F with OS support, and the cache sizes.
//
// Every CPUID instruction traps to the hypervisor in a VM (about 6-10 us
// each on a Firecracker guest), so this file executes as few as it can:
// the features and the family come from what glibc and libgcc read at
// process start-up (glibc's <sys/platform/x86.h>, __builtin_cpu_is), with
// no CPUID of its own; a cache size costs one CPUID of the deterministic
// cache leaf (Intel leaf 4, AMD leaf 0x8000001D: one cache instance, the
// way the kernel reads it for sysfs) at the subleaf where that level
// usually sits, read only when first asked for and kept. Only where CPUID
// does not describe a level: the kernel's description of the CPU this
// process asks on (/sys/devices/system/cpu/cpuN/cache), then glibc's
// sysconf, which can be far off (on an AMD EPYC family 25 KVM guest glibc
// 2.36 said a 320 MiB L3 where the kernel said 32 MiB).
//
// Thread-safety: cpu_features() is initialised once (a function-local
// static) and read-only afterwards; cache_size() keeps each level in an
// atomic (two first callers may both execute its CPUID; same answer).
//
// Example:
//   if (zerolab::internal::cpu_features().avx2) { ... }
//   std::size_t l3 = cache_size(3);  // one CPUID the first time, none after
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
};

// Executes no CPUID instruction (see above).
const CpuFeatures& cpu_features();

// The data (level 1) or unified (levels 2, 3) cache's size in bytes, 0 if
// unknown or `level` is not 1-3. The first call for a level executes one
// CPUID where the CPU's cache leaf lists that level at the usual subleaf
// (more where it does not); later calls execute none.
std::size_t cache_size(int level) noexcept;

// How many CPUID instructions this file has executed in this process.
unsigned long cpuid_executions() noexcept;

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
