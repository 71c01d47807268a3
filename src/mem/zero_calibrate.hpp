// src/mem/zero_calibrate.hpp — zero_fill's calibration: times each zeroing
// method on a scratch buffer at a ladder of sizes below 1 MiB, and on the
// caller's own buffer for each power-of-two bucket from 1 MiB (zero.hpp
// says the rule, zero_calibrate.cpp how it is timed).
//
// Thread-safety: calibrate_zero is reentrant (its own scratch mapping);
// zero.cpp runs it once under its once-flag, or at zero_calibrate().
//
// Example:
//   Calibration c = calibrate_ladder(ZeroIsa::kAvx2, default_zero_config());
//   // c.bands == {{4 << 10, ZeroMethod::kRepStosb}}, c.ms ≈ 1.5
//   LargeVerdict v = race_large(buf, 8 << 20, ZeroIsa::kAvx2, true);  // buf now zero
#ifndef ZEROLAB_SRC_MEM_ZERO_CALIBRATE_HPP_
#define ZEROLAB_SRC_MEM_ZERO_CALIBRATE_HPP_

#include <cstddef>
#include <string>
#include <vector>

#include "mem/zero_kernels.hpp"
#include "zerolab/zero.hpp"

namespace zerolab::internal {

struct Calibration {
  std::vector<ZeroBand> bands;  // valid for set_zero_config
  std::string reason;           // the CPU, the time, and each size's winner
  double ms = 0;                // wall time taken
};

// Measures the ladder (4 KiB .. 512 KiB by twos) and returns its bands, all
// below kLargeFrom: `isa`'s vector stores against rep stosb (when `rule` has
// ERMS), glibc memset and (from 128 KiB) non-temporal stores; a size keeps
// the smaller size's method unless another beats it by 3%.
Calibration calibrate_ladder(ZeroIsa isa, const ZeroConfig& rule);

struct LargeVerdict {
  ZeroMethod method = ZeroMethod::kVector;
  double margin = 1;  // the runner-up's time over the winner's
  double ms = 0;      // wall time of the race (what that first call cost)
};

// Races the methods on [p, p+n) (n >= kLargeFrom), leaving it zeroed.
LargeVerdict race_large(void* p, std::size_t n, ZeroIsa isa, bool erms) noexcept;

// The vector-stores-only kernel of `isa` (zero_kernels.hpp).
using ZeroKernel = void (*)(void*, std::size_t) noexcept;
ZeroKernel vector_kernel(ZeroIsa isa) noexcept;


}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_ZERO_CALIBRATE_HPP_
