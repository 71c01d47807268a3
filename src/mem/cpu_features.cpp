// CPUID and cache sizes (cpu_features.hpp).
#include "mem/cpu_features.hpp"

#include <cpuid.h>
#include <unistd.h>

namespace zerolab::internal {
namespace {

std::size_t cache_size(int name) {
  const long v = sysconf(name);
  return v > 0 ? static_cast<std::size_t>(v) : 0;
}

CpuFeatures detect() {
  CpuFeatures f;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0) {
    f.erms = (ebx >> 9) & 1;
    f.fsrm = (edx >> 4) & 1;
  }
  // __builtin_cpu_supports checks the OS's XSAVE support (XGETBV) as well.
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2") != 0;
  f.avx512f = __builtin_cpu_supports("avx512f") != 0;
  f.l1d = cache_size(_SC_LEVEL1_DCACHE_SIZE);
  f.l2 = cache_size(_SC_LEVEL2_CACHE_SIZE);
  f.l3 = cache_size(_SC_LEVEL3_CACHE_SIZE);
  return f;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace zerolab::internal
