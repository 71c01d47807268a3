// The machine costs `zerolab waste` prices its findings with, measured once
// per run (after the program has exited so it does not compete with it),
// and only those the run's findings need (all five: about 1.5 ms): each
// figure is the best of a few repetitions, so it is the cost on a quiet
// machine, and every time in the report is an estimate from it. A figure
// not measured stays 0.
//
// Example:
//   const Calibration c = calibrate({.zeroing = true});
//   const double seconds = bytes / c.zero_bytes_per_second;
#ifndef ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_CALIBRATE_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_CALIBRATE_HPP_

namespace zerolab::waste {

struct Calibration {
  double zero_bytes_per_second = 0;  // memset 0 over 1 MiB already touched
  double fault_seconds = 0;          // first write to a fresh anonymous page
  double malloc_free_seconds = 0;    // malloc(64) + free
  double large_block_seconds = 0;    // malloc(64 KiB) + one write + free
  double copy_bytes_per_second = 0;  // memcpy of 1 MiB (one user-space copy pass)
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
