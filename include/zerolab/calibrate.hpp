// zerolab/calibrate.hpp — the explicit machine calibration: measures
// zero_fill's methods per size band and copy_fd's paths per pair kind on
// this machine, on buffers, files, pipes and sockets of its own, and writes
// the machine profile that zero_fill and copy_fd read at first use
// (zero.hpp, copy.hpp). `zerolab calibrate` is this call with its report
// printed. It takes about a second; nothing else in the library measures.
//
// What it decides:
//   - zero_fill: at 4 KiB .. 512 KiB (by twos), the CPUID rule's method
//     against vector stores, rep stosb and glibc's memset in paired
//     rounds; another method takes a size only when it beat the rule's by
//     11% or more in the median; from 1 MiB the rule.
//   - copy_fd: for pipe → file, file → pipe, file → AF_UNIX, AF_UNIX →
//     file and file → file (1 MiB copies), each path the pair allows
//     against the table's, in interleaved rounds; another path is written
//     only when its median time is at most 0.95 of the table's. Small
//     file → file copies (16 KiB): read/write against copy_file_range,
//     the same way.
// The profile is keyed by CPU model, microcode, kernel and glibc; the
// primitives use it only while all four match.
//
// Thread-safety: call from one thread at a time; it runs its own helper
// threads (a reader or writer at the far end of a pipe or socket).
//
// Example:
//   zerolab::MachineCalibration c = zerolab::calibrate_machine();
//   if (!c.error.empty()) std::fprintf(stderr, "%s\n", c.error.c_str());
//   for (const std::string& d : c.decisions) std::puts(d.c_str());
#ifndef ZEROLAB_CALIBRATE_HPP_
#define ZEROLAB_CALIBRATE_HPP_

#include <string>
#include <vector>

namespace zerolab {

struct MachineCalibration {
  std::string path;                    // where the profile was written
  double seconds = 0;                  // wall time of the measuring and writing
  std::vector<std::string> decisions;  // one line per size band or pair kind
  std::string error;                   // "" or why no profile was written
};

// Measures and writes the profile to `path` ("" for the default:
// $XDG_CACHE_HOME/zerolab/machine-profile, else ~/.cache/zerolab/...).
// The running process keeps the settings it resolved; new processes read
// the profile.
MachineCalibration calibrate_machine(const std::string& path = "");

}  // namespace zerolab

#endif  // ZEROLAB_CALIBRATE_HPP_
