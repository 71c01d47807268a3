// Private to zerolab::stat: fixed-width text table layout with benchstat's
// texttab rules, and the table-sequence walk shared by the renderers.
//
// Thread-safety: a TextTable is used from one thread.
//
// Example:
//   zerolab::internal::TextTable t;
//   t.row();
//   t.cell("name");
//   t.cell("1.5n", zerolab::internal::Align::kRight);
//   std::string text = t.format();  // "name 1.5n\n"
#ifndef ZEROLAB_SRC_STAT_TEXT_TABLE_HPP_
#define ZEROLAB_SRC_STAT_TEXT_TABLE_HPP_

#include <functional>
#include <string>
#include <vector>

#include "zerolab/stat_table.hpp"

namespace zerolab::internal {

enum class Align { kLeft, kCenter, kRight };

struct TextCell {
  int row = 0;
  int col = 0;
  int span = 1;
  std::string value;
  std::string left_margin;
  Align align = Align::kLeft;
};

class TextTable {
 public:
  // Starts a new row.
  void row();
  // Moves to column c of the current row (never backwards).
  void col(int c) { cur_col_ = c; }
  int cur_col() const { return cur_col_; }
  // Adds a cell spanning n columns. margin (if not null) replaces the
  // default left margin: " " except in column 0 or for empty cells.
  void span(int n, std::string value, Align align = Align::kLeft, const char* margin = nullptr);
  void cell(std::string value, Align align = Align::kLeft, const char* margin = nullptr) {
    span(1, std::move(value), align, margin);
  }
  // A shrink column is never widened to fit a spanning cell.
  void set_shrink(int col, bool shrink);
  // Lays the table out; one line per row, each ending in '\n'.
  std::string format();

 private:
  std::vector<TextCell> cells_;
  int cols_ = 0;
  std::vector<bool> shrink_;
  int cur_row_ = 0;
  int cur_col_ = 0;
};

// benchtab's printTables: for each table, hdr("") between tables, one
// hdr("key: value") per changed configuration field, then body(table).
void print_tables(const stat::Tables& tables, const std::function<void(const std::string&)>& hdr,
                  const std::function<void(const stat::Table&)>& body);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_STAT_TEXT_TABLE_HPP_
