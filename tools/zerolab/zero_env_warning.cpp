// A bad ZEROLAB_ZERO_* value is ignored by zero_fill, and the library never
// prints: it reports the rejected values in zero_config().env_error. The
// CLI, whose lab zero-fills, says so once on stderr when the process starts
// — one line naming each variable and value — and then runs the command as
// usual (the exit code is the command's).
//
// Example:
//   $ ZEROLAB_ZERO_NT=lots zerolab version
//   zerolab: warning: ignored ZEROLAB_ZERO_NT=lots: not a size in bytes (K/M/G allowed)
//   zerolab 0.1.0
#include <cstdio>
#include <cstdlib>
#include <string>

#include "zerolab/zero.hpp"

namespace zerolab::cli {
namespace {

// Reads the settings only when one of the variables is set: resolving them
// costs a calibration of about a millisecond otherwise spent on first use.
struct ZeroEnvironmentWarning {
  ZeroEnvironmentWarning() {
    bool any = false;
    for (const char* name : {"ZEROLAB_ZERO_ISA", "ZEROLAB_ZERO_STOSB", "ZEROLAB_ZERO_NT",
                             "ZEROLAB_ZERO_CALIBRATE"}) {
      any = any || std::getenv(name) != nullptr;
    }
    if (!any) return;
    const std::string errors = zero_config().env_error;
    if (!errors.empty()) std::fprintf(stderr, "zerolab: warning: ignored %s\n", errors.c_str());
  }
};

const ZeroEnvironmentWarning kWarnOnce;

}  // namespace
}  // namespace zerolab::cli
