// libFuzzer target for `zerolab waste diff`'s report reader
// (src/waste/diff.hpp): the input is a report's JSON text. It must read or
// fail with a one-line error that names the file; a report read is diffed
// against itself (every kind and site "same", every change 0) and rendered
// in each format; never crash.
//
// Example:
//   ./waste_diff_json_fuzz -max_total_time=600 -dict=fuzz/waste_diff_json.dict
//   fuzz/corpus/waste_diff_json_fuzz
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "waste/diff.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  zerolab::waste::WasteSummary summary;
  std::string error;
  if (!zerolab::waste::read_report_json(text, "in.json", summary, error)) {
    if (error.rfind("in.json: ", 0) != 0 || error.find('\n') != std::string::npos) __builtin_trap();
    return 0;
  }
  const zerolab::waste::WasteDiff d = zerolab::waste::diff_reports(summary, summary);
  for (const zerolab::waste::KindChange& k : d.kinds) {
    if (k.change.status != zerolab::waste::DiffStatus::kSame || k.change.delta_bytes() != 0)
      __builtin_trap();
    for (const zerolab::waste::SiteChange& s : k.sites) {
      if (s.change.status != zerolab::waste::DiffStatus::kSame) __builtin_trap();
    }
  }
  const zerolab::waste::WasteDiff against_nothing =
      zerolab::waste::diff_reports(zerolab::waste::WasteSummary{}, summary);
  for (auto format : {zerolab::waste::WasteFormat::kText, zerolab::waste::WasteFormat::kJson,
                      zerolab::waste::WasteFormat::kMarkdown}) {
    if (zerolab::waste::render_diff(against_nothing, format).empty()) __builtin_trap();
  }
  zerolab::waste::diff_threshold(against_nothing, {zerolab::waste::FailOn{std::nullopt, 1}});
  return 0;
}
