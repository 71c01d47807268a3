// bench_main's profiles (profiles.hpp).
#include "bench/profiles.hpp"

namespace zerolab::internal {
namespace {

std::string bad_value(const char* flag, const std::string& value, const std::string& why) {
  return "invalid value \"" + value + "\" for flag -" + flag + ": " + why;
}

}  // namespace

bool ProfileSession::start(const Options& options, std::string& error) {
  std::string why;
  if (!options.memprofile.empty() &&
      !mem_.start(options.memprofile, options.memprofilerate, why, options.profileformat)) {
    error = bad_value("memprofile", options.memprofile, why);
    return false;
  }
  if (!options.cpuprofile.empty() &&
      !cpu_.start(options.cpuprofile, options.cpuprofilerate, why, options.profileformat)) {
    error = bad_value("cpuprofile", options.cpuprofile, why);
    mem_.discard();
    return false;
  }
  return true;
}

bool ProfileSession::finish(std::string& error) {
  bool ok = true;
  std::string why;
  if (cpu_.running() && !cpu_.stop(why)) {
    error = "-cpuprofile: " + why;
    ok = false;
  }
  if (mem_.running() && !mem_.stop(why)) {
    if (ok) error = "-memprofile: " + why;
    ok = false;
  }
  return ok;
}

}  // namespace zerolab::internal
