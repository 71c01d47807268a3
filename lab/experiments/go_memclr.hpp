// lab/go_memclr.hpp — Go's memclrNoHeapPointers (runtime/memclr_amd64.s,
// the same in Go 1.19 and the seed's 1.24.10) rebuilt from zerolab's forced
// zeroing methods, so the memclr-threshold and chunked-zero experiments
// measure the seed's routine and not zero_fill's own dispatch:
//   n < 2 KiB          vector stores (Go: a size tree, then AVX2 loops)
//   2 KiB <= n < 32 MiB REP STOSQ (Go's ERMS path), the n % 8 tail by hand
//   n >= 32 MiB        non-temporal stores (Go: VMOVNTDQ, 0x2000000)
// Only the ERMS-and-AVX2 branch is modelled (every CPU this lab runs on
// has both; memclr_threshold's note says so when one lacks ERMS).
//
// Example:
//   lab::go_memclr(buffer, std::size_t{31} << 20);  // REP STOSQ
//   lab::go_memclr(buffer, std::size_t{33} << 20);  // non-temporal
#ifndef ZEROLAB_LAB_GO_MEMCLR_HPP_
#define ZEROLAB_LAB_GO_MEMCLR_HPP_

#include <cstddef>
#include <cstring>

#include "zerolab/zero.hpp"

namespace zerolab::lab {

inline constexpr std::size_t kGoErmsThreshold = 2048;
inline constexpr std::size_t kGoNtThreshold = 0x2000000;  // 32 MiB

// REP STOSQ over n / 8 words, then the n % 8 bytes left.
inline void rep_stosq(void* p, std::size_t n) noexcept {
  std::size_t words = n / 8;
  void* dst = p;
  asm volatile("rep stosq" : "+D"(dst), "+c"(words) : "a"(0ULL) : "memory");
  std::memset(static_cast<unsigned char*>(p) + (n & ~std::size_t{7}), 0, n & 7);
}

inline void go_memclr(void* p, std::size_t n) noexcept {
  if (n < kGoErmsThreshold) {
    zero_methods::vector_stores(p, n);
  } else if (n < kGoNtThreshold) {
    rep_stosq(p, n);
  } else {
    zero_methods::nt_stores(p, n);
  }
}

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_GO_MEMCLR_HPP_
