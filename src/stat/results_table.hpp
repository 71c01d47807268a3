// The results table of `zerolab table`: benchmark records as a GitHub
// markdown table, one row per result line (the fmtbench layout: name |
// count | ns/op | B/op | allocs/op | other units in first-seen order), or
// with `aggregate` one row per benchmark holding the median of each unit
// over its runs. Values keep the units they were written in and print as
// Go's testing package prints them. The CLI (tools/zerolab/cmd_table.cpp)
// holds the flags and the I/O.
//
// Thread-safety: one table per thread.
//
// Example:
//   zerolab::stat::ResultsTable table({.aggregate = true});
//   while (files.next()) if (files.kind() == RecordKind::kResult) table.add(files.result(),
//   files.input_is_json()); std::string md = table.markdown();
//   // "| name | runs | ns/op |\n|---|---|---|\n| BenchmarkA | 3 | 97.50 |\n"
#ifndef ZEROLAB_SRC_STAT_RESULTS_TABLE_HPP_
#define ZEROLAB_SRC_STAT_RESULTS_TABLE_HPP_

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {

struct ResultsTableOptions {
  bool aggregate = false;    // one row per benchmark: medians, count = runs
  bool sort_by_name = true;  // else input order
};

class ResultsTable {
 public:
  explicit ResultsTable(ResultsTableOptions options) : options_(options) {}

  // Adds one result record. Go-format names print as written; Google
  // Benchmark names (json_input) without the "Benchmark" the reader adds.
  void add(const BenchRecord& record, bool json_input);
  bool empty() const { return rows_.empty(); }
  // The table, rows sorted by name unless the options say otherwise.
  std::string markdown() const;

 private:
  struct Row {
    std::string name;
    double count = 0;
    std::map<std::string, std::vector<double>> values;  // unit as written → values
  };

  ResultsTableOptions options_;
  std::vector<Row> rows_;
  std::map<std::string, std::size_t> row_of_;  // aggregate: name → row
  std::vector<std::string> custom_units_;
  std::array<bool, 3> has_standard_{};  // ns/op, B/op, allocs/op seen
};

}  // namespace zerolab::stat

#endif  // ZEROLAB_SRC_STAT_RESULTS_TABLE_HPP_
