// What the harness says about the machine in its header lines (goos, goarch,
// cpu) and how many CPUs it may use.
//
// Thread-safety: pure reads of /proc and the affinity mask; any thread.
//
// Example:
//   std::string cpu = zerolab::internal::cpu_model();  // "AMD EPYC"
#ifndef ZEROLAB_SRC_BENCH_MACHINE_HPP_
#define ZEROLAB_SRC_BENCH_MACHINE_HPP_

#include <string>

namespace zerolab::internal {

// The "model name" of the first CPU in /proc/cpuinfo, trimmed; "" if unknown.
std::string cpu_model();
// Go's GOARCH spelling of this build's architecture ("amd64", "arm64", ...).
const char* goarch();
// CPUs in this process's affinity mask (at least 1).
int available_cpus();

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_BENCH_MACHINE_HPP_
