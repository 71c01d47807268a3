// zerolab/stat_table.hpp — benchstat's comparison tables: results grouped
// into tables (by -table, one per unit), rows (-row) and columns (-col),
// each cell summarized, each non-first column compared with the first, a
// geomean row, and renderers for text (byte-identical to benchstat v2),
// CSV (as benchstat writes it), GitHub markdown and JSON.
//
// Thread-safety: a TableBuilder is used from one thread; finished Tables
// are immutable.
//
// Example:
//   zerolab::stat::ProjectionParser parser;
//   std::string err;
//   auto filter = zerolab::stat::Filter::parse("*", &err);
//   auto table_by = parser.parse_with_unit(".config", filter.get(), &err);
//   auto row_by = parser.parse(".fullname", filter.get(), &err);
//   auto col_by = parser.parse(".file", filter.get(), &err);
//   auto residue = parser.residue();
//   zerolab::stat::TableBuilder builder(*table_by, *row_by, *col_by, *residue);
//   // builder.add(record) for every result that passes the filter, then:
//   zerolab::stat::Tables tables = builder.finish({0.95, 0.05, &units});
//   std::string text = zerolab::stat::render_text(tables);
#ifndef ZEROLAB_STAT_TABLE_HPP_
#define ZEROLAB_STAT_TABLE_HPP_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zerolab/stat.hpp"
#include "zerolab/stat_filter.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {

struct TableOptions {
  double confidence = 0.95;
  double alpha = 0.05;
  const UnitMetadataMap* units = nullptr;  // may be null: no metadata
};

// Where a value came from (for messages about it).
struct ValueOrigin {
  std::string file;
  int line = 0;
};

struct TableCell {
  Sample sample;
  Summary summary;
  const TableCell* baseline = nullptr;  // the first column's cell in this row
  Comparison comparison;                // valid when baseline is set
  ValueOrigin first_nan;                // where a NaN came from, if any (line 0: none)
};

struct TableSummary {
  bool has_summary = false;
  double summary = 0;  // geomean of the column's centers
  bool has_ratio = false;
  double ratio = 0;  // geomean of the centers' ratios to the baseline
  std::vector<std::string> warnings;
};

struct Table {
  std::string unit;
  Assumption assumption = Assumption::kNothing;
  std::vector<Key> rows;
  std::vector<Key> cols;
  std::map<std::pair<int, int>, std::unique_ptr<TableCell>> cells;  // (row id, col id)
  std::vector<TableSummary> summary;                                // one per column
  std::string summary_label = "geomean";
  TableOptions options;

  const TableCell* cell(Key row, Key col) const;
};

struct Tables {
  std::vector<Table> tables;
  std::vector<Key> keys;  // each table's key (its configuration and unit)
  const Projection* table_by = nullptr;
  const Projection* row_by = nullptr;
  const Projection* col_by = nullptr;
};

// Collects results into cells. The projections must outlive the builder
// and the Tables it makes; table_by must come from parse_with_unit.
class TableBuilder {
 public:
  TableBuilder(Projection& table_by, Projection& row_by, Projection& col_by, Projection& residue);
  ~TableBuilder();
  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;

  // Adds every metric of rec to its cell.
  void add(const BenchRecord& rec);
  // The number of results added.
  std::size_t result_count() const { return results_; }
  // Summarizes, compares and sorts everything added.
  Tables finish(const TableOptions& options);

 private:
  struct BuilderTable;
  Projection& table_by_;
  Projection& row_by_;
  Projection& col_by_;
  Projection& residue_;
  std::map<int, std::unique_ptr<BuilderTable>> tables_;
  std::size_t results_ = 0;
};

// benchstat's text output: configuration lines, then each table with its
// footnotes, tables separated by blank lines.
std::string render_text(const Tables& tables);
// benchstat's -format csv; warnings (with spreadsheet cell references)
// are appended to *warnings.
std::string render_csv(const Tables& tables, std::string* warnings);
// The text tables as GitHub markdown tables.
std::string render_markdown(const Tables& tables);
// Every table, cell, summary and comparison at full precision.
std::string render_json(const Tables& tables);

// A statistically significant change in the direction a unit calls worse.
struct Regression {
  std::string unit;
  std::string row;
  std::string column;
  std::string baseline_column;
  double old_center = 0;
  double new_center = 0;
  double percent = 0;  // (new/old - 1) * 100; ±inf when old is 0
  Comparison comparison;
};

// Changes that are significant (p <= alpha) and worse by more than
// max_percent: higher for units where lower is better (sec/op, B/op,
// allocs/op and units without better= metadata), lower for units where
// higher is better (B/s, better=higher).
std::vector<Regression> find_regressions(const Tables& tables, const UnitMetadataMap& units,
                                         double max_percent);

// One line per compared cell with a NaN measurement, naming where it came
// from: "old.txt:12: NaN measurement in sec/op; the comparison was skipped"
// (benchstat would hang on it; see cmd_compare.cpp).
std::vector<std::string> skipped_nan_comparisons(const Tables& tables);

// Go's superscript footnote marks: 1 → "¹", 12 → "¹²".
std::string superscript(int i);

}  // namespace zerolab::stat

#endif  // ZEROLAB_STAT_TABLE_HPP_
