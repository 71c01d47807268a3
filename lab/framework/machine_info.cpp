// The machine description and warnings of the lab (machine_info.hpp).
#include "lab/framework/machine_info.hpp"

#include <gnu/libc-version.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "bench/machine.hpp"
#include "mem/cpu_features.hpp"
#include "text/byte_size.hpp"
#include "zerolab/benchfmt.hpp"

#ifndef ZEROLAB_CXX_FLAGS
#define ZEROLAB_CXX_FLAGS ""
#endif

namespace zerolab::lab {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string size_text(long bytes) {
  return bytes <= 0 ? "?" : internal::format_byte_size(static_cast<std::uint64_t>(bytes));
}

// "L1d 48KiB, L1i 32KiB, L2 1MiB, L3 32MiB": the data caches as zero_fill
// reads them (CPUID's cache leaf, as the kernel does for sysfs; glibc's
// sysconf only where neither says: glibc said a 320 MiB L3 on an AMD EPYC
// KVM guest with 32 MiB), the instruction cache from sysconf.
std::string caches() {
  const long l1i = sysconf(_SC_LEVEL1_ICACHE_SIZE);
  const std::pair<const char*, long> levels[] = {
      {"L1d", static_cast<long>(internal::cache_size(1))},
      {"L1i", l1i},
      {"L2", static_cast<long>(internal::cache_size(2))},
      {"L3", static_cast<long>(internal::cache_size(3))}};
  std::string out;
  for (const auto& [name, size] : levels) {
    if (size <= 0) continue;
    if (!out.empty()) out += ", ";
    out += std::string(name) + " " + size_text(size);
  }
  return out.empty() ? "unknown" : out;
}

// The bracketed word of /sys/kernel/mm/transparent_hugepage/enabled.
std::string thp_mode() {
  const std::string line = read_first_line("/sys/kernel/mm/transparent_hugepage/enabled");
  const auto open = line.find('[');
  const auto close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "unknown";
  return line.substr(open + 1, close - open - 1);
}

// The governors of all CPUs, "" when the kernel exposes none (VMs often).
std::string governors(int cpus) {
  std::map<std::string, int> seen;
  for (int i = 0; i < cpus; ++i) {
    const std::string g = read_first_line("/sys/devices/system/cpu/cpu" + std::to_string(i) +
                                          "/cpufreq/scaling_governor");
    if (!g.empty()) ++seen[g];
  }
  std::string out;
  for (const auto& [g, n] : seen) out += (out.empty() ? "" : ",") + g;
  return out;
}

// What cpufreq says about the clock: warnings when a CPU's maximum is held
// below its hardware maximum, notes when boost is off or nothing is exposed.
void check_frequency(int cpus, MachineInfo& m) {
  const std::string root = "/sys/devices/system/cpu/";
  bool exposed = false;
  for (int i = 0; i < cpus; ++i) {
    const std::string dir = root + "cpu" + std::to_string(i) + "/cpufreq/";
    const std::string hw = read_first_line(dir + "cpuinfo_max_freq");
    const std::string cap = read_first_line(dir + "scaling_max_freq");
    if (hw.empty() || cap.empty()) continue;
    exposed = true;
    const long hw_khz = std::atol(hw.c_str());
    const long cap_khz = std::atol(cap.c_str());
    if (cap_khz > 0 && cap_khz < hw_khz) {
      m.warnings.push_back("CPU " + std::to_string(i) + "'s clock is capped at " +
                           std::to_string(cap_khz / 1000) + " MHz (hardware maximum " +
                           std::to_string(hw_khz / 1000) +
                           " MHz, scaling_max_freq): timings are slower than the machine can run");
    }
  }
  if (!exposed) {
    m.notes.push_back(
        "the kernel exposes no cpufreq (usual in a VM): the governor and the clock "
        "cannot be checked here");
    return;
  }
  if (read_first_line(root + "cpufreq/boost") == "0") {
    m.notes.push_back("frequency boost is off (" + root +
                      "cpufreq/boost = 0): steadier timings, lower peaks");
  }
  if (read_first_line(root + "intel_pstate/no_turbo") == "1") {
    m.notes.push_back("turbo is off (intel_pstate/no_turbo = 1): steadier timings, lower peaks");
  }
}

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "g++ " __VERSION__;
#else
  return "unknown";
#endif
}

std::string collapse_spaces(const std::string& s) {
  std::istringstream in(s);
  std::string word;
  std::string out;
  while (in >> word) out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace

MachineInfo describe_machine() {
  MachineInfo m;
  const int cpus = internal::available_cpus();
  const int online = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  m.config.emplace_back("goos", "linux");
  m.config.emplace_back("goarch", internal::goarch());
  const std::string model = internal::cpu_model();
  m.config.emplace_back("cpu", model.empty() ? "unknown" : model);
  m.config.emplace_back("cpus", std::to_string(cpus));
  m.config.emplace_back("caches", caches());
  struct utsname u {};
  m.config.emplace_back("kernel",
                        uname(&u) == 0 ? std::string(u.sysname) + " " + u.release : "unknown");
  m.config.emplace_back("thp", thp_mode());
  const std::string governor = governors(online > 0 ? online : cpus);
  if (!governor.empty()) m.config.emplace_back("governor", governor);
  m.config.emplace_back("glibc", gnu_get_libc_version());
  m.config.emplace_back("compiler", collapse_spaces(compiler()));
  const std::string flags = collapse_spaces(ZEROLAB_CXX_FLAGS);
  m.config.emplace_back("cxxflags", flags.empty() ? "(none)" : flags);

  if (!governor.empty() && governor != "performance") {
    m.warnings.push_back("CPU frequency governor is '" + governor +
                         "', not 'performance': timings will vary with the clock (set it with "
                         "cpupower frequency-set -g performance)");
  }
  check_frequency(online > 0 ? online : cpus, m);
  double load1 = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load1) != 1) load1 = 0;
    std::fclose(f);
  }
  if (load1 >= 0.5 * cpus) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "the machine is busy (load average %.2f over the last minute on %d CPUs): "
                  "results will be noisier",
                  load1, cpus);
    m.warnings.emplace_back(text);
  }
  return m;
}

std::string config_text(const MachineInfo& machine) {
  std::string out;
  for (const auto& [key, value] : machine.config) {
    out += benchfmt::format_config_line(key, value) + "\n";
  }
  return out;
}

}  // namespace zerolab::lab
