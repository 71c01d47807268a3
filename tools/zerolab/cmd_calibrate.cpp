// zerolab calibrate: measures zero_fill's methods per size band and
// copy_fd's paths per pair kind on this machine and writes the machine
// profile they read at first use (zerolab/calibrate.hpp). Prints where it
// wrote, how long it took, and each decision.
//
// Example:
//   $ zerolab calibrate
//   zerolab calibrate: wrote /home/me/.cache/zerolab/machine-profile in 1.21 s
//   zero_fill (avx2): bands 8192 rep-stosb, 16777216 nt; checked at cpu 0, ...
//   copy pipe → file: splice (the table's; against it: read_write 0.98x)
//   ...
#include <cstdio>
#include <span>
#include <string>

#include "command.hpp"
#include "zerolab/calibrate.hpp"

namespace zerolab::cli {
namespace {

constexpr const char* kCalibrateUsage =
    "usage: zerolab calibrate [-o PATH]\n"
    "\n"
    "Measures zero_fill's methods per size band and copy_fd's paths per pair\n"
    "kind on this machine (about a second) and writes the machine profile they\n"
    "read at first use, keyed by CPU model, microcode, kernel and glibc:\n"
    "$XDG_CACHE_HOME/zerolab/machine-profile, else ~/.cache/zerolab/machine-profile.\n"
    "\n"
    "  -o PATH   write the profile here instead (the library reads only the default)\n";

int run_calibrate(std::span<char* const> args) {
  internal::FlagSet flags;
  std::string path;
  flags.string("o", path);
  if (const int rc = parse_command_flags(flags, args, "calibrate", kCalibrateUsage); rc >= 0) {
    return rc;
  }
  if (!flags.operands().empty()) {
    return usage_error("calibrate", "unexpected operand " + flags.operands().front());
  }
  const MachineCalibration c = calibrate_machine(path);
  if (!c.error.empty()) {
    std::fprintf(stderr, "zerolab calibrate: %s\n", c.error.c_str());
    return 1;
  }
  std::printf("zerolab calibrate: wrote %s in %.2f s\n", c.path.c_str(), c.seconds);
  for (const std::string& d : c.decisions) std::printf("%s\n", d.c_str());
  return 0;
}

const CommandRegistration kCalibrate{
    "calibrate", "measure zero_fill and copy_fd here and write the machine profile",
    &run_calibrate};

}  // namespace
}  // namespace zerolab::cli
