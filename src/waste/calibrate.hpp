// The machine costs `zerolab waste` prices its findings with, measured once
// per run (after the program has exited so it does not compete with it),
// and only those the run's findings need. Zeroing and copying are
// measured with streaming (non-temporal) stores over 8 MiB, which go to
// memory as glibc's memset and memcpy send fills and copies larger than the
// cache, so they are memory, not cache, bandwidth; the page-fault cost is
// the first write to each page of that fresh mapping (the kernel's fault
// and its zeroing of a page, as a program pays them). Zero and copy rates
// are the best of two passes; every time in the report is an estimate from
// these figures. A figure not measured stays 0.
//
// Example:
//   const Calibration c = calibrate({.zeroing = true});
//   const double seconds = bytes / c.zero_bytes_per_second;
#ifndef ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_CALIBRATE_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_CALIBRATE_HPP_

namespace zerolab::waste {

struct Calibration {
  double zero_bytes_per_second = 0;  // streaming zero stores over 8 MiB (memory bandwidth)
  double fault_seconds = 0;          // first write to a fresh anonymous page
  double malloc_free_seconds = 0;    // malloc(64) + free
  double large_block_seconds = 0;    // malloc(64 KiB) + one write + free
  double copy_bytes_per_second = 0;  // streaming copy between two halves of that buffer
};

// Which figures to measure.
struct CalibrationNeeds {
  bool zeroing = false;      // zero_bytes_per_second
  bool faults = false;       // fault_seconds
  bool malloc_free = false;  // malloc_free_seconds
  bool large_block = false;  // large_block_seconds
  bool copying = false;      // copy_bytes_per_second
};

Calibration calibrate(const CalibrationNeeds& needs);

}  // namespace zerolab::waste

#endif  // ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_CALIBRATE_HPP_
