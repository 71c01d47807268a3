// What the CPU offers for zeroing memory: ERMS/FSRM (fast rep stosb), AVX2,
// AVX-512F with OS support, and the cache sizes. Read once from CPUID (and
// glibc's sysconf for the caches, which itself reads CPUID).
//
// Thread-safety: cpu_features() is initialised once (a function-local
// static) and read-only afterwards.
//
// Example:
//   if (zerolab::internal::cpu_features().avx2) { ... }
#ifndef ZEROLAB_SRC_MEM_CPU_FEATURES_HPP_
#define ZEROLAB_SRC_MEM_CPU_FEATURES_HPP_

#include <cstddef>

namespace zerolab::internal {

struct CpuFeatures {
  bool erms = false;
  bool fsrm = false;
  bool avx2 = false;
  bool avx512f = false;
  std::size_t l1d = 0;
  std::size_t l2 = 0;
  std::size_t l3 = 0;
};

const CpuFeatures& cpu_features();

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_CPU_FEATURES_HPP_
