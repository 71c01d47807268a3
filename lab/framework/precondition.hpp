// lab/precondition.hpp — what a claim rests on besides the code it
// measures: a Go version's feature, a cache size, a core count, memory.
// The lab checks each precondition on the machine at hand before judging a
// side; when one fails, that side's verdict is "not comparable", naming the
// precondition and what this machine has instead, and is counted apart.
//
// Thread-safety: plain data and pure functions.
//
// Example:
//   Precondition p = go_at_least(21, "File.ReadFrom splices from a socket");
//   MachineFacts here;
//   here.go_version = "go version go1.19.8 linux/amd64";
//   p.unmet(here);  // "Go here is go1.19.8"
//   // judge.hpp's unmet_precondition(claim, ClaimSide::kGo, here) then gives
//   // "not comparable: needs Go 1.21 or later (File.ReadFrom splices from a
//   //  socket): Go here is go1.19.8"
#ifndef ZEROLAB_LAB_PRECONDITION_HPP_
#define ZEROLAB_LAB_PRECONDITION_HPP_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace zerolab::lab {

// What the preconditions look at.
struct MachineFacts {
  std::string go_version;    // `go version`'s line; "" when there is no Go here
  std::size_t l2_bytes = 0;  // one core's L2; 0: unknown
  std::size_t l3_bytes = 0;  // 0: unknown
  // The CPU's features the lab knows by name ("erms", "fsrm", "avx2",
  // "avx512f"), those this CPU has.
  std::vector<std::string> cpu_features;
  int cpus = 0;              // the CPUs this process may use
  std::uint64_t memory = 0;  // MemAvailable in bytes; 0: unknown
  std::string path;          // the PATH programs are searched on
};

// This machine's facts (`go_version` as find_go gave it).
MachineFacts machine_facts(std::string go_version);

// Which side of a claim a precondition applies to.
enum class ClaimSide { kGo, kCpp, kBoth };

struct Precondition {
  ClaimSide side = ClaimSide::kBoth;
  std::string what;  // "needs Go 1.21 or later (File.ReadFrom splices from a socket)"
  // "" when it holds on `facts`, else what this machine has instead.
  std::function<std::string(const MachineFacts&)> unmet;
};

// Go's minor version in a `go version` line ("go1.19.8" → 19); -1 when
// the line names no go1.N.
int go_minor_version(const std::string& go_version);

// The Go side needs Go 1.<minor> or later for `feature`.
Precondition go_at_least(int minor, const std::string& feature);
// The Go side needs a Go older than 1.<minor>, whose `behaviour` the claim
// rests on (a behaviour later versions changed).
Precondition go_before(int minor, const std::string& behaviour);
// Both sides: a buffer of `bytes` must not fit this machine's L3 (`why`).
Precondition larger_than_l3(std::size_t bytes, const std::string& why);
// Both sides: a buffer of `bytes` fits one core's L2 (`why`: the claim is
// about cache-resident memory).
Precondition fits_in_l2(std::size_t bytes, const std::string& why);
// Both sides: the CPU has `feature` (a name MachineFacts::cpu_features
// lists, `why`: the code path the claim is about).
Precondition cpu_has(const std::string& feature, const std::string& why);
// Both sides: at least `n` CPUs.
Precondition cpus_at_least(int n, const std::string& why);
// Both sides: at least `bytes` of available memory.
Precondition memory_at_least(std::uint64_t bytes, const std::string& why);
// Both sides: every program of `names` is on PATH here (`why`: what the
// claim runs them for).
Precondition on_path(std::vector<std::string> names, const std::string& why);
// `p` checked for one side only (the other side has no such need).
Precondition only_on(ClaimSide side, Precondition p);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_PRECONDITION_HPP_
