// store/history.hpp — each benchmark's series over the stored runs, and the
// points where it changed.
//
// A series is one benchmark, one unit (tidied: ns/op → sec/op) on one
// machine; its points are runs in time order, or commits (runs with the
// same `commit` label pooled, ordered by their first run). A change point
// is found as Go's benchseries finds one: at each point, the window of
// points before it is compared with the window from it on, with the same
// Mann-Whitney U test and alpha `zerolab compare` uses (stat::compare); of
// a stretch of consecutive significant comparisons whose medians differ by
// more than the threshold, the point with the largest change is where the
// change began. A unit with assume=exact metadata (the counting mode's
// instructions/op) has no window: a change is the first point that differs
// from the last change (or the first point) by more than the threshold.
//
// Thread-safety: pure functions over their arguments.
//
// Example:
//   HistoryOptions opt;                 // window 5, threshold 5%, alpha 0.05
//   std::string error;
//   auto filter = stat::Filter::parse("*", &error);
//   History h = build_history(store.load_runs(since_ms), *filter, opt);
//   std::string text = render_history_text(h);
#ifndef ZEROLAB_SRC_STORE_HISTORY_HPP_
#define ZEROLAB_SRC_STORE_HISTORY_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "store/run.hpp"
#include "zerolab/stat.hpp"
#include "zerolab/stat_filter.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::store {

struct HistoryOptions {
  bool by_commit = false;    // points are commits (the `commit` label), not runs
  int window = 5;            // points on each side of a comparison
  double threshold = 5;      // percent: smaller significant changes are not reported
  double alpha = 0.05;       // as zerolab compare's -alpha
  double confidence = 0.95;  // as zerolab compare's -confidence
};

struct HistoryPoint {
  std::string run_id;  // the (first) run of the point
  std::int64_t unix_ms = 0;
  std::string commit;  // the commit label, "" when absent
  std::vector<double> samples;
  double center = 0;  // median (or mode, for assume=exact units)
};

struct ChangePoint {
  std::size_t point = 0;  // index into Series::points: the first point after the change
  double old_center = 0;  // the window before
  double new_center = 0;  // the window from the point on
  double percent = 0;     // (new/old - 1) * 100
  bool worse = false;     // in the direction the unit calls worse
  stat::Comparison comparison;
};

struct Series {
  std::string machine;
  std::string benchmark;  // without "Benchmark"
  std::string unit;       // tidied
  std::vector<HistoryPoint> points;
  std::vector<ChangePoint> changes;
};

struct History {
  HistoryOptions options;
  std::size_t runs = 0;
  bool several_machines = false;
  std::vector<Series> series;  // by machine, benchmark, unit
};

History build_history(const std::vector<Run>& runs, const stat::Filter& filter,
                      const HistoryOptions& options);

// Change points in the direction a unit calls worse, larger than max_percent.
struct HistoryRegression {
  const Series* series = nullptr;
  const ChangePoint* change = nullptr;
};
std::vector<HistoryRegression> history_regressions(const History& history, double max_percent);

// One line per change point: "<benchmark> <unit>: +12.34% at run 3f2a9c41 ...".
std::string describe_change(const Series& s, const ChangePoint& c, bool with_machine);

// "<benchmark> <unit>", with " on <machine>" when with_machine.
std::string series_title(const Series& s, bool with_machine);

// A change in percent as the reports show it: "+12.34%", "-Inf%".
std::string percent_text(double pct);

std::string render_history_text(const History& history);
std::string render_history_markdown(const History& history);
std::string render_history_json(const History& history);
// The HTML page is report/store_pages.hpp's render_history_html.

// A string as a JSON string literal.
std::string json_string(std::string_view s);

}  // namespace zerolab::store

#endif  // ZEROLAB_SRC_STORE_HISTORY_HPP_
