// zero_config_probe: prints the zero_fill settings this process resolved
// from its environment, one field a line, for zero_env_test to compare
// across runs and environments.
//
// Example:
//   ZEROLAB_ZERO_NT=1M ./zero_config_probe
//   source=environment
//   bands=1048576 nt
//   ...
//   calibration_runs=0
//   first_call_cpuid=1
#include <cstdio>
#include <string>
#include <vector>

#include "mem/cpu_features.hpp"
#include "zerolab/zero.hpp"

int main() {
  // A zero_fill of a large size is what resolves the settings in real use.
  std::vector<unsigned char> buf(std::size_t{2} << 20, 1);
  const unsigned long cpuid_before = zerolab::internal::cpuid_executions();
  zerolab::zero_fill(buf.data(), buf.size());
  const unsigned long first_call_cpuid = zerolab::internal::cpuid_executions() - cpuid_before;
  for (unsigned char b : buf) {
    if (b != 0) return 1;
  }
  const zerolab::ZeroConfig c = zerolab::zero_config();
  std::string bands;
  for (const zerolab::ZeroBand& b : c.bands) {
    bands +=
        (bands.empty() ? "" : ",") + std::to_string(b.from) + " " + zerolab::to_string(b.method);
  }
  std::printf(
      "source=%s\nisa=%s\nbands=%s\nstosb=%zu nt=%zu\nenv_error=%s\ncalibration_runs=%d\n"
      "reason=%s\nfirst_call_cpuid=%lu\n",
      c.source.c_str(), zerolab::to_string(c.isa), bands.c_str(), c.stosb_threshold, c.nt_threshold,
      c.env_error.c_str(), c.calibration_runs, c.reason.c_str(), first_call_cpuid);
  return 0;
}
