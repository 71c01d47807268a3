// lab/baseline.hpp — a run of `zerolab lab --baseline NAME` compared with
// the baseline (loaded from lab/baseline_store.hpp): after the run each
// experiment is compared through stat::compare, as
// `zerolab compare NAME=<baseline>/<id>.txt this-run=<out>/<id>.txt` would,
// except that the machine's config keys (cpu, kernel, ...) are ignored so a
// new kernel does not split the tables.
//
// Thread-safety: pure functions apart from the files they read.
//
// Example:
//   Baseline b;
//   std::string error;
//   if (!load_baseline("zerolab-results/baselines", "main", {"merge"}, b, error)) fail(error);
//   BaselineComparison c = begin_baseline_comparison(b, describe_machine(), {"merge"}, 5.0);
//   // ... run the lab into out_dir ...
//   compare_with_baseline(b, out_dir, {"merge"}, 0.05, c);
//   std::fputs(baseline_text(c).c_str(), stdout);
#ifndef ZEROLAB_LAB_BASELINE_HPP_
#define ZEROLAB_LAB_BASELINE_HPP_

#include <cstddef>
#include <string>
#include <vector>

#include "lab/framework/baseline_store.hpp"
#include "lab/framework/machine_info.hpp"
#include "zerolab/stat_table.hpp"

namespace zerolab::lab {

// The column label of the results being compared with the baseline.
inline constexpr const char* kThisRunLabel = "this-run";

// The comparison of a run with a baseline: what `zerolab lab --baseline`
// prints after the summary and report.md (and report.html) show in a
// section of their own.
struct BaselineComparison {
  std::string name;       // "main"
  std::string path;       // "zerolab-results/baselines/main"
  BaselineRecord record;  // when and how the baseline was recorded
  // One line each, no prefix: a different machine, experiments no longer in
  // the catalog, experiments run now that the baseline lacks, unreadable
  // results. Printed on stderr as "zerolab lab: warning: <line>".
  std::vector<std::string> warnings;
  // Baseline experiments not selected for this run (not compared; no warning).
  std::vector<std::string> not_run;
  bool gate = false;        // --fail-on-regression given
  double gate_percent = 0;  // its PCT (0 when not gating)

  struct Part {
    // The experiment's id; "<id> (Go here)" for its Go peer's results.
    std::string experiment_id;
    bool go_here = false;       // <id>.go.txt compared, not <id>.txt
    std::string baseline_file;  // the two files compared
    std::string run_file;
    std::string text;      // stat::render_text of the tables
    std::string markdown;  // stat::render_markdown of the same tables
    std::string html;      // report::compare_sections_html: the tables and their plots
    // Significant changes for the worse by more than gate_percent (by any
    // amount when not gating), as zerolab compare --fail-on-regression
    // finds them; columns are the baseline's name and "this-run".
    std::vector<stat::Regression> regressions;
  };
  std::vector<Part> parts;  // one per experiment in both, in run order

  std::size_t regression_count() const;
};

// The warnings known before the run: the baseline's own (unknown
// experiments), a different machine (config lines cpu, cpus, caches,
// kernel, glibc, compiler and cxxflags), and experiments in run_ids that
// the baseline lacks. gate_percent < 0 means no gate.
BaselineComparison begin_baseline_comparison(const Baseline& baseline, const MachineInfo& machine,
                                             const std::vector<std::string>& run_ids,
                                             double gate_percent);

// After the run: compares <results_dir>/<id>.txt with the baseline's file
// for every id of run_ids the baseline has, appending a Part each (or a
// warning when this run's file cannot be read or has no results); then the
// same for <id>.go.txt, the Go peer's results, where both have them (a
// warning where only one side has them). The gate counts both.
void compare_with_baseline(const Baseline& baseline, const std::string& results_dir,
                           const std::vector<std::string>& run_ids, double alpha,
                           BaselineComparison& comparison);

// For stdout after the summary: a heading naming the baseline, then each
// experiment's text tables.
std::string baseline_text(const BaselineComparison& comparison);

// report.md's "## Baseline NAME" section: warnings, markdown tables and
// the regressions found.
std::string baseline_markdown(const BaselineComparison& comparison);

// "merge: Merge/malloc sec/op +12.00% (p=0.002 n=6) main -> this-run", as
// zerolab compare words a regression, after the experiment's id.
std::string regression_line(const std::string& experiment_id, const stat::Regression& r);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_BASELINE_HPP_
