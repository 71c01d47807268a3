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

// How many times calibrate_bands has run in this process (zero_fill itself
// never runs it: only zero_calibrate() and the machine calibration do).
int calibration_runs() noexcept;

// Where the CPUID rule switches to non-temporal stores: from half the L3
// (what one core of a shared L3 can count on), or from the whole L3 where
// `whole_l3`; rounded down to a power of two, within 2-32 MiB (32 MiB, Go's
// memclr threshold, when the L3 size `l3` is 0, unknown). Measured with
// zero_sweep -bench Race, 10 rounds per size, 2 processes per vCPU:
// - Xeon (Ice Lake), 48 MiB L3: a 24 MiB buffer zeroed 1.3-2.3x faster with
//   non-temporal stores than with rep stosb;
// - AMD EPYC family 25 (Zen 4), 32 MiB L3: rep stosb at 16-31 MiB took
//   1.2-2.1x the time of non-temporal stores;
// - AMD EPYC family 26 (Zen 5), 32 MiB L3: non-temporal stores from 16 MiB
//   read 0.75x of rep stosb at 16 MiB and 0.86-0.91x at 24 MiB; from 32 MiB,
//   every size 8-128 MiB read 0.98x or more of the best method.
std::size_t nt_from_cache(std::size_t l3, bool whole_l3) noexcept;

// Whether the rule's non-temporal stores start at the whole L3: AMD family
// 1Ah (Zen 5) and later, the one family measured to want it.
bool nt_after_whole_l3(bool amd, unsigned family) noexcept;

// Where the CPUID rule switches from vector stores to rep stosb: never
// without ERMS (0); from the L2 (`l2`, rounded down to a power of two, at
// least 8 KiB) on AMD family 1Ah and later; from 8 KiB everywhere else (or
// when the L2 size is unknown). On the AMD EPYC family 26 (Zen 5) vCPUs,
// vector stores beat rep stosb at every calibrated size 8-512 KiB, on both
// vCPUs and in every process (1.42-1.56x at 8-32 KiB, 1.15-1.35x at
// 64-512 KiB, three calibrations 2026-12-05), and zero_sweep's Race put
// rep stosb level with the best from 1 MiB. A calibration cut short (past
// its budget: a preempted process, or one next to heavy writeback) keeps the
// rule for the sizes it did not measure, and with a rule of rep stosb from
// 8 KiB one such process zeroed 8-32 KiB at 0.58-0.64x of vector stores.
std::size_t stosb_from(bool erms, bool amd, unsigned family, std::size_t l2) noexcept;

// Whether the rule's rep stosb starts at the L2: AMD family 1Ah and later.
bool stosb_after_l2(bool amd, unsigned family) noexcept;

// The method `bands` give size n (vector stores below the first band).
ZeroMethod method_at(const std::vector<ZeroBand>& bands, std::size_t n) noexcept;

// The vector-stores-only kernel of `isa` (zero_kernels.hpp).
using ZeroKernel = void (*)(void*, std::size_t) noexcept;
ZeroKernel vector_kernel(ZeroIsa isa) noexcept;

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_ZERO_CALIBRATE_HPP_
