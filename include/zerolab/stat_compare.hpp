// zerolab/stat_compare.hpp — one comparison of benchmark files, start to
// finish: parse the filter and projections, read every input, build the
// tables and find the regressions. `zerolab compare` (flags and I/O around
// it) and the lab's baseline comparison both call it, so they agree.
//
// Thread-safety: compare() touches only the files it reads; a result is
// plain data afterwards.
//
// Example:
//   zerolab::stat::CompareOptions options;
//   options.ignore = "cpu,kernel";
//   std::vector<std::string> args{"old=old.txt", "new=new.txt"};
//   zerolab::stat::ComparisonResult r = zerolab::stat::compare(zerolab::stat::parse_inputs(args),
//   options); if (!r.error.empty()) fail(r.error);           // "parsing -filter: ..." or "open
//   old.txt: ..." std::string text = zerolab::stat::render_text(r.tables); for (const auto& g :
//   r.regressions) puts(zerolab::stat::format_regression(g).c_str());
//   // "Merge/malloc sec/op +12.00% (p=0.002 n=6) old -> new"
#ifndef ZEROLAB_STAT_COMPARE_HPP_
#define ZEROLAB_STAT_COMPARE_HPP_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "zerolab/stat_reader.hpp"
#include "zerolab/stat_table.hpp"

namespace zerolab::stat {

// benchstat's flags, with its defaults.
struct CompareOptions {
  std::string table = ".config";
  std::string row = ".fullname";
  std::string col = ".file";
  std::string ignore;
  std::string filter = "*";
  double alpha = 0.05;
  double confidence = 0.95;
  // Regressions are significant changes worse by more than this percentage.
  double regression_percent = 0;
};

struct ComparisonResult {
  enum class ErrorKind { kNone, kOptions, kInput };
  ErrorKind error_kind = ErrorKind::kNone;
  // One line, without a program prefix: "parsing -filter: ...",
  // "-alpha must be in range [0, 1]" (kOptions) or benchfmt's "open x: no
  // such file or directory" (kInput). Nothing else is set when non-empty.
  std::string error;

  Tables tables;  // empty when no result passed the filter
  // Syntax errors of the inputs ("x.txt:3: ..."), in reading order.
  std::vector<std::string> syntax_errors;
  // Compared cells with a NaN measurement (see skipped_nan_comparisons).
  std::vector<std::string> nan_skips;
  std::vector<Regression> regressions;
  // Per input (in argument order): result lines read, and syntax errors.
  std::vector<std::size_t> results_per_input;
  std::vector<std::size_t> errors_per_input;
  std::size_t results_read = 0;      // all inputs, before the filter
  std::size_t results_compared = 0;  // those the filter and projections kept
  // Cells compared with a baseline column (0: every row has one column, so
  // no change could be judged).
  std::size_t comparisons = 0;

  // What the tables point into (projections) and the inputs' unit metadata.
  struct Owned;
  std::shared_ptr<Owned> owned;
  const UnitMetadataMap& units() const;
};

// Reads `inputs` and compares them as benchstat v2 does with `options`.
ComparisonResult compare(std::vector<InputSpec> inputs, const CompareOptions& options);

// fmt's "%+.2f%%" ("+12.00%", "-3.10%"), "+Inf%" / "-Inf%" for infinities.
std::string format_percent(double percent);

// One regression as zerolab words it everywhere:
// "Merge/malloc sec/op +12.00% (p=0.002 n=6) old -> new".
std::string format_regression(const Regression& regression);

}  // namespace zerolab::stat

#endif  // ZEROLAB_STAT_COMPARE_HPP_
