// `zerolab waste diff OLD.json NEW.json` (and `zerolab waste --baseline
// OLD.json -- PROGRAM`): two reports (--format json) compared kind by kind
// and site by site: what grew, shrank, appeared, vanished or stayed the
// same. A site is the same site in both runs when its function, file, line
// (and, for copies, source and destination) are the same, so a site whose
// code moved to another line shows as one vanished and one appeared.
//
// The reader takes only what the comparison needs and checks it: a
// "findings" array of objects with a known "kind", non-negative integer
// "bytes" and "calls", a non-negative "estimated_seconds" and a "sites"
// array (each with string "function" and "file", integer "line", integer
// "bytes" and "calls", optional string "source"/"destination"). Anything
// else is an error naming the file and the JSON path ("old.json:
// findings[2].sites[0].bytes: want a non-negative integer"). Other keys are
// ignored. Two sites of one kind with the same key are summed.
//
// Status: by bytes (grew: more, shrank: fewer), and at equal bytes by calls;
// "appeared"/"vanished" when one run has no such kind or site. Kinds and
// sites are listed largest change of bytes first, then by name.
//
// Example:
//   WasteSummary old_run, new_run;
//   std::string error;
//   if (!read_report_json(old_text, "old.json", old_run, error)) { print error; exit 2; }
//   ...
//   const WasteDiff d = diff_reports(old_run, new_run);
//   std::string text = render_diff(d, WasteFormat::kText);
//   std::string reached = diff_threshold(d, flags.fail_on);  // "" or "temporary-allocations=1M
//   ..."
#ifndef ZEROLAB_SRC_WASTE_DIFF_HPP_
#define ZEROLAB_SRC_WASTE_DIFF_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "waste/flags.hpp"

namespace zerolab::waste {

struct SummarySite {
  std::string function;
  std::string file;
  std::int64_t line = 0;
  std::string source;  // copies only, else ""
  std::string destination;
  std::int64_t bytes = 0;
  std::int64_t calls = 0;
};

struct SummaryFinding {
  WasteKind kind{};
  std::int64_t bytes = 0;
  std::int64_t calls = 0;
  double estimated_seconds = 0;
  std::vector<SummarySite> sites;  // unique keys
};

struct WasteSummary {
  std::string name;  // the file it came from, for the rendering
  std::vector<SummaryFinding> findings;
};

// Parses a --format json report. False with a one-line `error` that starts
// with `name`.
bool read_report_json(std::string_view text, const std::string& name, WasteSummary& out,
                      std::string& error);

enum class DiffStatus { kGrew, kShrank, kSame, kAppeared, kVanished };
// "grew", "shrank", "same", "appeared", "vanished".
const char* diff_status_name(DiffStatus status);

struct Change {
  std::int64_t old_bytes = 0;
  std::int64_t new_bytes = 0;
  std::int64_t old_calls = 0;
  std::int64_t new_calls = 0;
  DiffStatus status = DiffStatus::kSame;
  std::int64_t delta_bytes() const { return new_bytes - old_bytes; }
  std::int64_t delta_calls() const { return new_calls - old_calls; }
};

struct SiteChange {
  std::string function;
  std::string file;
  std::int64_t line = 0;
  std::string source;
  std::string destination;
  Change change;
};

struct KindChange {
  WasteKind kind{};
  Change change;
  double old_seconds = 0;
  double new_seconds = 0;
  std::vector<SiteChange> sites;  // every site of either run
};

struct WasteDiff {
  std::string old_name;
  std::string new_name;
  std::vector<KindChange> kinds;  // kinds found in either run
};

WasteDiff diff_reports(const WasteSummary& old_run, const WasteSummary& new_run);

// Text, JSON or markdown. JSON:
//   {"old": "old.json", "new": "new.json",
//    "kinds": [{"kind": "temporary-allocations", "status": "grew",
//               "old_bytes": 100, "new_bytes": 300, "delta_bytes": 200,
//               "old_calls": 1, "new_calls": 3, "delta_calls": 2,
//               "old_estimated_seconds": 1e-7, "new_estimated_seconds": 3e-7,
//               "sites": [{"function": "f", "file": "a.c", "line": 3,
//                          ("source": "file", "destination": "pipe",)
//                          "status": "appeared", "old_bytes": 0, ...}]}]}
std::string render_diff(const WasteDiff& diff, WasteFormat format);

// The first --fail-on the diff reaches: KIND=BYTES when KIND's bytes grew by
// BYTES or more ("any": the growth of all kinds together, each kind's
// change counted with its sign). "" if none.
std::string diff_threshold(const WasteDiff& diff, const std::vector<FailOn>& fail_on);

}  // namespace zerolab::waste

#endif  // ZEROLAB_SRC_WASTE_DIFF_HPP_
