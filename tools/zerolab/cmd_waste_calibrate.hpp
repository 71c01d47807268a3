// The machine costs `zerolab waste` prices its findings with, measured once
// per run (about 1.5 ms, after the program has exited so it does not compete
// with it): each figure is the best of a few repetitions, so it is the cost
// on a quiet machine, and every time in the report is an estimate from it.
//
// Example:
//   const Calibration c = calibrate();
//   const double seconds = bytes / c.zero_bytes_per_second;
#ifndef ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_CALIBRATE_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_CALIBRATE_HPP_

namespace zerolab::cli::waste {

struct Calibration {
  double zero_bytes_per_second = 0;  // memset 0 over 1 MiB already touched
  double fault_seconds = 0;          // first write to a fresh anonymous page
  double malloc_free_seconds = 0;    // malloc(64) + free
  double large_block_seconds = 0;    // malloc(64 KiB) + one write + free
  double copy_bytes_per_second = 0;  // memcpy of 1 MiB (one user-space copy pass)
};

Calibration calibrate();

}  // namespace zerolab::cli::waste

#endif  // ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_CALIBRATE_HPP_
