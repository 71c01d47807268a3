// The machine costs `zerolab waste` prices its findings with, measured on
// this machine once and kept in zerolab's cache directory beside the
// machine profile (machine/machine_profile.hpp), keyed as it is by CPU
// model, microcode, kernel and glibc: a run on another machine, kernel or
// glibc, or with -recalibrate, measures them again (after the program has
// exited, so they do not compete with it) and rewrites the file. A run
// whose findings need none of them reads nothing. Zeroing and copying are
// measured with streaming (non-temporal) stores, as glibc's memset and
// memcpy send fills and copies larger than the cache, over a resident buffer
// of four times the last-level cache (at least 128 MiB), so they are memory,
// not cache, bandwidth; the page-fault cost is the first write to each page
// of a fresh 8 MiB mapping (the kernel's fault and its zeroing of a page, as
// a program pays them). Zero and copy rates
// are the best of two passes; every time in the report is an estimate from
// these figures. A figure not measured stays 0.
//
// The cache file, $XDG_CACHE_HOME/zerolab/waste-costs (else
// $HOME/.cache/zerolab/waste-costs), read with the machine profile's checks
// (a regular file of this user, writable only by them), written atomically:
//   zerolab-waste-costs 1
//   cpu AMD EPYC
//   microcode 0x1000065
//   kernel 6.1.0-28-cloud-amd64
//   glibc 2.36
//   measured 2026-12-07T17:50:00Z
//   zero-bytes-per-second 53000000000
//   fault-seconds 1.3e-06
//   malloc-free-seconds 1.9e-08
//   large-block-seconds 2.1e-07
//   copy-bytes-per-second 26000000000
//   end
// A file not exactly this (another version, a figure not a positive number,
// no final "end") is measured over and replaced.
//
// Example:
//   const Calibration c = machine_calibration({.zeroing = true}, false);
//   const double seconds = bytes / c.zero_bytes_per_second;
#ifndef ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_CALIBRATE_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_CALIBRATE_HPP_

#include <cstddef>
#include <string>

namespace zerolab::waste {

struct Calibration {
  double zero_bytes_per_second = 0;  // streaming zero stores over 4x L3 (memory bandwidth)
  double fault_seconds = 0;          // first write to a fresh anonymous page
  double malloc_free_seconds = 0;    // malloc(64) + free
  double large_block_seconds = 0;    // malloc(64 KiB) + one write + free
  double copy_bytes_per_second = 0;  // streaming copy between two halves of that buffer
  std::string measured_at;           // when (UTC, ISO 8601); "" when nothing was measured
  bool cached = false;               // read from the cache file, not measured by this run
  std::string cache_path;            // the cache file read or written ("" when none)
  // The buffer zeroing and copying were timed over, when smaller than four
  // times the L3 (a mapping that large failed: ulimit -v); 0 when full size.
  // Such figures include cache and are not kept in the cache file.
  std::size_t small_buffer_bytes = 0;
};

// Which figures to measure.
struct CalibrationNeeds {
  bool zeroing = false;      // zero_bytes_per_second
  bool faults = false;       // fault_seconds
  bool malloc_free = false;  // malloc_free_seconds
  bool large_block = false;  // large_block_seconds
  bool copying = false;      // copy_bytes_per_second
};

// Measures the figures `needs` asks for, now.
Calibration calibrate(const CalibrationNeeds& needs);

// The figures `needs` asks for (the others 0): from the cache file when it
// was written on this machine, else (or with `recalibrate`) all of them
// measured now and written to it for the next run. Nothing needed: nothing
// read or measured.
Calibration machine_calibration(const CalibrationNeeds& needs, bool recalibrate);

}  // namespace zerolab::waste

#endif  // ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_CALIBRATE_HPP_
