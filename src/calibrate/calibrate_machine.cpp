// calibrate_machine (zerolab/calibrate.hpp): zero_fill's bands and
// copy_fd's paths measured here, written as the machine profile.
#include <sys/stat.h>
#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "calibrate/copy_race.hpp"
#include "machine/machine_profile.hpp"
#include "mem/zero_calibrate.hpp"
#include "zerolab/calibrate.hpp"
#include "zerolab/zero.hpp"

namespace zerolab {
namespace {

double now_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::string utc_now() {
  const time_t t = time(nullptr);
  tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

MachineCalibration calibrate_machine(const std::string& path) {
  const double t0 = now_s();
  MachineCalibration out;
  out.path = path.empty() ? machine::profile_path(&out.error) : path;
  if (out.path.empty()) return out;
  machine::MachineProfile profile;
  profile.key = machine::this_machine_key();
  profile.written = utc_now();

  // zero_fill: the rule checked per ladder size, with time to finish (the
  // 3 ms budget is for a caller's process; here the calibration is the job).
  const ZeroConfig rule = default_zero_config();
  const ZeroIsa isa = zero_config().isa;
  const internal::Calibration zero = internal::calibrate_bands(isa, rule, /*budget_ms=*/200);
  profile.zero_isa = isa;
  profile.zero_bands = zero.bands;
  std::string bands;
  for (const ZeroBand& b : zero.bands) {
    bands += (bands.empty() ? "" : ", ") + std::to_string(b.from) + " " + to_string(b.method);
  }
  out.decisions.push_back(std::string("zero_fill (") + to_string(isa) + "): bands " +
                          (bands.empty() ? "vector only" : bands) + "; " + zero.reason);

  // copy_fd: scratch files beside the profile (the user's filesystem).
  const std::string dir = out.path.substr(0, out.path.rfind('/'));
  // The default directory's parent ($HOME/.cache) may be missing on a fresh
  // account; a path the caller gave must have its parent already.
  if (path.empty()) ::mkdir(dir.substr(0, dir.rfind('/')).c_str(), 0700);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    out.error = dir + ": mkdir: " + std::strerror(errno);
    return out;
  }
  const calibrate::CopyRaces races = calibrate::race_copy_paths(dir, out.decisions);
  if (!races.error.empty()) {
    out.error = races.error;
    return out;
  }
  profile.copy = races.choices;
  profile.copy_small_file = races.small_file;
  if (std::string e = machine::write_profile(out.path, profile); !e.empty()) {
    out.error = e;
    return out;
  }
  out.seconds = now_s() - t0;
  return out;
}

}  // namespace zerolab
