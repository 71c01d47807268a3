// A bad ZEROLAB_ZERO_* or ZEROLAB_COPY_* value is ignored by the library,
// which never prints: zero_fill reports the rejected values in
// zero_config().env_error, copy_fd in copy_environment_errors(). The CLI,
// whose lab zero-fills and copies, says so once on stderr when the process
// starts — one line per library naming each variable and value — and then
// runs the command as usual (the exit code is the command's).
//
// Example:
//   $ ZEROLAB_ZERO_NT=lots ZEROLAB_COPY_PROFILE=no zerolab version
//   zerolab: warning: ignored ZEROLAB_ZERO_NT=lots: not a size in bytes (K/M/G allowed)
//   zerolab: warning: ignored ZEROLAB_COPY_PROFILE=no: not 0 or 1
//   zerolab 0.1.0
#include <cstdio>
#include <cstdlib>
#include <string>

#include "zerolab/copy.hpp"
#include "zerolab/zero.hpp"

namespace zerolab::cli {
namespace {

struct EnvironmentWarning {
  EnvironmentWarning() {
    // zero_config() is read only when one of its variables is set: a
    // command that never zero-fills need not resolve the bands.
    bool any = false;
    for (const char* name :
         {"ZEROLAB_ZERO_ISA", "ZEROLAB_ZERO_STOSB", "ZEROLAB_ZERO_NT", "ZEROLAB_ZERO_PROFILE"}) {
      any = any || std::getenv(name) != nullptr;
    }
    if (any) warn(zero_config().env_error);
    warn(copy_environment_errors());
  }

  static void warn(const std::string& errors) {
    if (!errors.empty()) std::fprintf(stderr, "zerolab: warning: ignored %s\n", errors.c_str());
  }
};

const EnvironmentWarning kWarnOnce;

}  // namespace
}  // namespace zerolab::cli
