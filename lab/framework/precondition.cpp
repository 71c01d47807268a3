// Preconditions of claims and this machine's facts (precondition.hpp).
#include "lab/framework/precondition.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "bench/machine.hpp"
#include "mem/cpu_features.hpp"

namespace zerolab::lab {
namespace {

std::string kib_text(std::uint64_t bytes) {
  return std::to_string(bytes >> 10) + " KiB";
}

std::string mib_text(std::uint64_t bytes) {
  char text[48];
  std::snprintf(text, sizeof text, "%.0f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// The word after "go version " ("go1.19.8"), or the line itself.
std::string go_release(const std::string& line) {
  const std::size_t at = line.find("go1.");
  if (at == std::string::npos) return line;
  const std::size_t end = line.find(' ', at);
  return line.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

std::uint64_t available_memory() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (f == nullptr) return 0;
  char line[256];
  std::uint64_t kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    unsigned long long v = 0;
    if (std::sscanf(line, "MemAvailable: %llu kB", &v) == 1) {
      kib = v;
      break;
    }
  }
  std::fclose(f);
  return kib * 1024;
}

}  // namespace

MachineFacts machine_facts(std::string go_version) {
  MachineFacts f;
  f.go_version = std::move(go_version);
  const internal::CpuFeatures& cpu = internal::cpu_features();
  for (const auto& [name, has] : {std::pair<const char*, bool>{"erms", cpu.erms},
                                  {"fsrm", cpu.fsrm},
                                  {"avx2", cpu.avx2},
                                  {"avx512f", cpu.avx512f}}) {
    if (has) f.cpu_features.emplace_back(name);
  }
  f.l2_bytes = internal::cache_size(2);
  f.l3_bytes = internal::cache_size(3);
  f.cpus = internal::available_cpus();
  f.memory = available_memory();
  const char* path = std::getenv("PATH");
  f.path = path == nullptr ? "" : path;
  return f;
}

int go_minor_version(const std::string& go_version) {
  const std::size_t at = go_version.find("go1.");
  if (at == std::string::npos) return -1;
  char* end = nullptr;
  const long minor = std::strtol(go_version.c_str() + at + 4, &end, 10);
  if (end == go_version.c_str() + at + 4) return -1;
  return static_cast<int>(minor);
}

Precondition go_at_least(int minor, const std::string& feature) {
  Precondition p;
  p.side = ClaimSide::kGo;
  p.what = "needs Go 1." + std::to_string(minor) + " or later (" + feature + ")";
  p.unmet = [minor](const MachineFacts& f) -> std::string {
    const int here = go_minor_version(f.go_version);
    if (here >= minor) return "";
    return here < 0 ? "no Go version here" : "Go here is " + go_release(f.go_version);
  };
  return p;
}

Precondition go_before(int minor, const std::string& behaviour) {
  Precondition p;
  p.side = ClaimSide::kGo;
  p.what = "needs a Go before 1." + std::to_string(minor) + " (" + behaviour + ")";
  p.unmet = [minor](const MachineFacts& f) -> std::string {
    const int here = go_minor_version(f.go_version);
    if (here >= 0 && here < minor) return "";
    return here < 0 ? "no Go version here" : "Go here is " + go_release(f.go_version);
  };
  return p;
}

Precondition larger_than_l3(std::size_t bytes, const std::string& why) {
  Precondition p;
  p.what = "a " + mib_text(bytes) + " buffer larger than the L3 (" + why + ")";
  p.unmet = [bytes](const MachineFacts& f) -> std::string {
    if (f.l3_bytes == 0) return "the L3 size is unknown here";
    if (bytes > f.l3_bytes) return "";
    return "the L3 here is " + mib_text(f.l3_bytes) + ", so it fits";
  };
  return p;
}

Precondition fits_in_l2(std::size_t bytes, const std::string& why) {
  Precondition p;
  p.what = "a " + kib_text(bytes) + " buffer that fits the L2 (" + why + ")";
  p.unmet = [bytes](const MachineFacts& f) -> std::string {
    if (f.l2_bytes == 0) return "the L2 size is unknown here";
    if (bytes <= f.l2_bytes) return "";
    return "the L2 here is " + kib_text(f.l2_bytes);
  };
  return p;
}

Precondition cpu_has(const std::string& feature, const std::string& why) {
  Precondition p;
  p.what = "a CPU with " + feature + " (" + why + ")";
  p.unmet = [feature](const MachineFacts& f) -> std::string {
    for (const std::string& have : f.cpu_features) {
      if (have == feature) return "";
    }
    return "this CPU has no " + feature;
  };
  return p;
}

Precondition cpus_at_least(int n, const std::string& why) {
  Precondition p;
  p.what = "at least " + std::to_string(n) + " CPUs (" + why + ")";
  p.unmet = [n](const MachineFacts& f) -> std::string {
    if (f.cpus >= n) return "";
    return std::to_string(f.cpus) + " CPUs here";
  };
  return p;
}

Precondition memory_at_least(std::uint64_t bytes, const std::string& why) {
  Precondition p;
  p.what = "at least " + mib_text(bytes) + " of available memory (" + why + ")";
  p.unmet = [bytes](const MachineFacts& f) -> std::string {
    if (f.memory == 0) return "the available memory is unknown here";
    if (f.memory >= bytes) return "";
    return mib_text(f.memory) + " available here";
  };
  return p;
}

Precondition on_path(std::vector<std::string> names, const std::string& why) {
  Precondition p;
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : " and ") + n;
  p.what = list + " on PATH (" + why + ")";
  p.unmet = [names = std::move(names)](const MachineFacts& f) -> std::string {
    for (const std::string& n : names) {
      bool found = false;
      // PATH's directories; an empty one is the current directory.
      for (std::size_t from = 0; !f.path.empty() && !found && from <= f.path.size();) {
        std::size_t end = f.path.find(':', from);
        if (end == std::string::npos) end = f.path.size();
        const std::string dir = end == from ? "." : f.path.substr(from, end - from);
        found = ::access((dir + "/" + n).c_str(), X_OK) == 0;
        from = end + 1;
      }
      if (!found) return "no " + n + " on PATH here";
    }
    return "";
  };
  return p;
}

Precondition only_on(ClaimSide side, Precondition p) {
  p.side = side;
  return p;
}

}  // namespace zerolab::lab
