// libFuzzer target for the lab baselines' manifest reader
// (lab/baseline_manifest.hpp, what `zerolab lab --baseline` and `zerolab
// store import-baselines` read from a baseline folder). Any input must parse
// or fail with a one-line error that starts with the path and quotes input
// with its control bytes escaped. A parsed manifest holds only valid,
// distinct ids, every go line has its experiment line, runs is in range,
// and writing it back gives a manifest that parses to the same thing (with
// line breaks in values written as spaces); never crash.
//
// Example:
//   ./baseline_manifest_fuzz -max_total_time=600 -dict=fuzz/baseline_manifest.dict \
//     fuzz/corpus/baseline_manifest_fuzz
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lab/framework/baseline_manifest.hpp"
#include "lab/framework/baseline_name.hpp"

namespace {

constexpr const char* kPath = "b/main/manifest";

using CountedIds = std::vector<std::pair<std::string, std::size_t>>;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_ids(const CountedIds& ids) {
  std::set<std::string> seen;
  for (const auto& [id, results] : ids) {
    (void)results;
    std::string why;
    check(zerolab::lab::check_baseline_reference(id, why));
    check(seen.insert(id).second);
  }
}

// What the writer makes of a value: line breaks become spaces.
std::string written(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The reader caps a manifest at 1 MiB; the fuzzer's inputs stay smaller.
  if (size > 65536) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  zerolab::lab::BaselineManifest m;
  std::string error;
  if (!zerolab::lab::parse_baseline_manifest(kPath, text, m, error)) {
    check(error.rfind(kPath, 0) == 0);
    for (const char c : error) check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
    return 0;
  }
  check(error.empty());
  check_ids(m.experiments);
  check_ids(m.go);
  std::set<std::string> experiments;
  for (const auto& e : m.experiments) experiments.insert(e.first);
  for (const auto& g : m.go) check(experiments.count(g.first) == 1);
  check(m.record.runs == 0 || (m.record.runs >= 1 && m.record.runs <= 100000));

  // Written back and read again: the same manifest.
  zerolab::lab::BaselineManifest again;
  check(zerolab::lab::parse_baseline_manifest(
      kPath, zerolab::lab::baseline_manifest_text("main", m), again, error));
  check(again.record.date == written(m.record.date));
  check(again.record.command == written(m.record.command));
  check(again.record.benchtime == written(m.record.benchtime));
  check(again.record.runs == m.record.runs);
  check(again.experiments == m.experiments);
  check(again.go == m.go);
  return 0;
}
