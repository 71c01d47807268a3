// lab/machine_info.hpp — what the lab says about the machine: the config
// lines written above every raw result file and the report's header, and
// the warnings printed before measuring (as Google Benchmark and nanobench
// warn about CPU scaling): a CPU governor other than `performance`, a
// machine already busy. Nothing is changed, only reported.
//
// Thread-safety: reads /proc, /sys and sysconf; any thread.
//
// Example:
//   MachineInfo m = describe_machine();
//   for (const auto& [key, value] : m.config) out += key + ": " + value + "\n";
//   for (const auto& w : m.warnings) std::fprintf(stderr, "zerolab lab: warning: %s\n", w.c_str());
#ifndef ZEROLAB_LAB_MACHINE_INFO_HPP_
#define ZEROLAB_LAB_MACHINE_INFO_HPP_

#include <string>
#include <utility>
#include <vector>

namespace zerolab::lab {

struct MachineInfo {
  // In order: goos, goarch, cpu, cpus, caches, kernel, thp, governor (when
  // the kernel exposes it), glibc, compiler, cxxflags.
  std::vector<std::pair<std::string, std::string>> config;
  std::vector<std::string> warnings;  // one line each, without a prefix
  // Facts worth knowing that need no action (frequency not exposed, boost
  // off), one line each; shown in the reports, not on stderr.
  std::vector<std::string> notes;
};

MachineInfo describe_machine();

// The config lines as Go benchmark format text ("key: value\n" each).
std::string config_text(const MachineInfo& machine);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_MACHINE_INFO_HPP_
