// One comparison of benchmark files (include/zerolab/stat_compare.hpp):
// benchstat's pipeline of filter, projections, reader, table builder and
// regression search, in the order benchstat runs it.
//
// Example:
//   auto r = zerolab::stat::compare(zerolab::stat::parse_inputs(args), {});
#include "zerolab/stat_compare.hpp"

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zerolab/stat_filter.hpp"

namespace zerolab::stat {

struct ComparisonResult::Owned {
  std::unique_ptr<Filter> filter;
  ProjectionParser parser;
  std::unique_ptr<Projection> table_by, row_by, col_by, ignore, residue;
  std::unique_ptr<InputFiles> files;
};

const UnitMetadataMap& ComparisonResult::units() const {
  static const UnitMetadataMap kNone;
  return owned && owned->files ? owned->files->units() : kNone;
}

namespace {

bool in_unit_range(double v) {
  return (v >= 0 && v <= 1) || std::isnan(v);
}

// Parses the filter and the four projections as benchstat does (the
// filter first, then every projection; the first error is reported).
bool parse_query(const CompareOptions& options, ComparisonResult::Owned& o, std::string& error) {
  std::string err;
  o.filter = Filter::parse(options.filter, &err);
  if (!o.filter) {
    error = "parsing -filter: " + err;
    return false;
  }
  auto must = [&error](std::unique_ptr<Projection> p, const char* name, const std::string& e) {
    if (!p && error.empty()) error = std::string("parsing ") + name + ": " + e;
    return p;
  };
  std::string e1, e2, e3, e4;
  o.table_by = must(o.parser.parse_with_unit(options.table, o.filter.get(), &e1), "-table", e1);
  o.row_by = must(o.parser.parse(options.row, o.filter.get(), &e2), "-row", e2);
  o.col_by = must(o.parser.parse(options.col, o.filter.get(), &e3), "-col", e3);
  o.ignore = must(o.parser.parse(options.ignore, o.filter.get(), &e4), "-ignore", e4);
  if (!error.empty()) return false;
  o.residue = o.parser.residue();
  if (!in_unit_range(options.alpha)) error = "-alpha must be in range [0, 1]";
  if (error.empty() && !in_unit_range(options.confidence))
    error = "-confidence must be in range [0, 1]";
  return error.empty();
}

}  // namespace

ComparisonResult compare(std::vector<InputSpec> inputs, const CompareOptions& options) {
  ComparisonResult r;
  r.owned = std::make_shared<ComparisonResult::Owned>();
  ComparisonResult::Owned& o = *r.owned;
  if (!parse_query(options, o, r.error)) {
    r.error_kind = ComparisonResult::ErrorKind::kOptions;
    return r;
  }

  TableBuilder builder(*o.table_by, *o.row_by, *o.col_by, *o.residue);
  r.results_per_input.assign(inputs.size(), 0);
  r.errors_per_input.assign(inputs.size(), 0);
  o.files = std::make_unique<InputFiles>(std::move(inputs));
  InputFiles& files = *o.files;
  while (files.next()) {
    switch (files.kind()) {
      case RecordKind::kSyntaxError:
        r.syntax_errors.push_back(files.syntax_error().to_string());
        ++r.errors_per_input[files.input_index()];
        break;
      case RecordKind::kResult: {
        ++r.results_per_input[files.input_index()];
        ++r.results_read;
        BenchRecord& rec = files.mutable_result();
        if (o.filter->apply(rec)) builder.add(rec);
        break;
      }
      case RecordKind::kUnitMetadata:
        break;
    }
  }
  if (!files.error().empty()) {
    r.error_kind = ComparisonResult::ErrorKind::kInput;
    r.error = files.error();
    return r;
  }
  r.results_compared = builder.result_count();
  if (r.results_compared == 0) return r;

  TableOptions table_options;
  table_options.confidence = options.confidence;
  table_options.alpha = options.alpha;
  table_options.units = &files.units();
  r.tables = builder.finish(table_options);
  for (const Table& t : r.tables.tables) {
    for (const auto& [where, cell] : t.cells) {
      if (cell->baseline != nullptr && cell->baseline != cell.get()) ++r.comparisons;
    }
  }
  r.nan_skips = skipped_nan_comparisons(r.tables);
  r.regressions = find_regressions(r.tables, files.units(), options.regression_percent);
  return r;
}

std::string format_percent(double percent) {
  if (std::isinf(percent)) return percent > 0 ? "+Inf%" : "-Inf%";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.2f%%", percent);
  return buf;
}

std::string format_regression(const Regression& r) {
  return r.row + " " + r.unit + " " + format_percent(r.percent) + " (" + r.comparison.to_string() +
         ") " + r.baseline_column + " -> " + r.column;
}

}  // namespace zerolab::stat
