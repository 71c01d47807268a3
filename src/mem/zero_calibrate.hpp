// src/mem/zero_calibrate.hpp — zero_fill's calibration: checks the CPUID
// rule's method against the other methods at a ladder of sizes (4 KiB to
// 512 KiB) on a scratch buffer, and keeps the rule wherever no other method
// is clearly faster (zero.hpp says the rule, zero_calibrate.cpp how it is
// timed).
//
// Thread-safety: calibrate_bands is reentrant (its own scratch mapping);
// zero.cpp runs it once under its once-flag, or at zero_calibrate().
//
// Example:
//   Calibration c = calibrate_bands(ZeroIsa::kAvx2, default_zero_config());
//   // c.bands == {{8 << 10, ZeroMethod::kRepStosb}, {16 << 20, ZeroMethod::kNonTemporal}}
//   // c.ms ≈ 0.8, c.reason == "checked at cpu 1, 0.81 ms, 9 paired rounds ...: 4KiB
//   // vector kept (rep-stosb 0.83x), ..."
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
  std::string reason;           // the CPU, the time, and each size's verdict
  double ms = 0;                // wall time taken
};

// The bands of `rule` (the CPUID rule), with each ladder size (4 KiB ..
// 512 KiB by twos; the verdict holds up to the next) switched to another
// method only where that method beat the rule's by 25% or more in the
// median of nine paired rounds: `isa`'s vector stores, rep stosb (when
// `rule` has ERMS) and glibc's memset. Past `budget_ms` of wall time (a
// preempted calibration: 12 ms once in 20 processes at load 15 here,
// 0.76-1.10 ms otherwise) the sizes not yet measured keep the rule.
Calibration calibrate_bands(ZeroIsa isa, const ZeroConfig& rule, double budget_ms = 3);

// The method `bands` give size n (vector stores below the first band).
ZeroMethod method_at(const std::vector<ZeroBand>& bands, std::size_t n) noexcept;

// The vector-stores-only kernel of `isa` (zero_kernels.hpp).
using ZeroKernel = void (*)(void*, std::size_t) noexcept;
ZeroKernel vector_kernel(ZeroIsa isa) noexcept;

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_ZERO_CALIBRATE_HPP_
