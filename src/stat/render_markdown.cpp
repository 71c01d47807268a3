// Markdown rendering of comparison tables (include/zerolab/stat_table.hpp):
// the text table's content as a GitHub table per unit, with the
// configuration as a list before it and footnotes after it. JSON is in
// render_json.cpp.
//
// Example:
//   std::string md = zerolab::stat::render_markdown(tables);
//   // "| sec/op | old.txt | new.txt | vs base |\n|:--|--:|--:|:--|\n..."
#include <cmath>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "go_compat.hpp"
#include "text/markdown.hpp"
#include "text_table.hpp"
#include "zerolab/stat_table.hpp"

namespace zerolab::stat {

using internal::markdown_text;

namespace {

class Footnotes {
 public:
  std::string marks(std::initializer_list<const std::vector<std::string>*> lists) {
    std::string s;
    for (const auto* msgs : lists) {
      for (const std::string& m : *msgs) {
        auto it = index_.find(m);
        int i = 0;
        if (it == index_.end()) {
          i = static_cast<int>(list_.size());
          index_.emplace(m, i);
          list_.push_back(m);
        } else {
          i = it->second;
        }
        if (!s.empty()) s.push_back(' ');
        s += superscript(i + 1);
      }
    }
    return s;
  }
  const std::vector<std::string>& list() const { return list_; }

 private:
  std::vector<std::string> list_;
  std::unordered_map<std::string, int> index_;
};

std::string table_to_markdown(const Tables& all, const Table& t) {
  Footnotes notes;
  const std::size_t ncols = t.cols.size();
  std::string out = internal::str_cat({"| ", markdown_text(t.unit), " |"});
  std::string align = "|:--|";
  for (std::size_t i = 0; i < ncols; ++i) {
    out += internal::str_cat({" ", markdown_text(all.col_by->string_values(t.cols[i])), " |"});
    align += "--:|";
    if (i > 0) {
      out += " vs base |";
      align += "--:|";
    }
  }
  out += internal::str_cat({"\n", align, "\n"});
  const UnitClass cls = unit_class_of(t.unit);
  std::vector<double> centers;
  for (Key row : t.rows) {
    out += internal::str_cat({"| ", markdown_text(all.row_by->string_values(row)), " |"});
    centers.clear();
    for (Key col : t.cols) {
      if (const TableCell* c = t.cell(row, col)) centers.push_back(c->summary.center);
    }
    const Scaler scaler = common_scale(centers, cls);
    for (std::size_t i = 0; i < ncols; ++i) {
      const TableCell* c = t.cell(row, t.cols[i]);
      std::string cell;
      std::string delta;
      if (c != nullptr) {
        cell = internal::str_cat(
            {scaler.format(c->summary.center), " ± ", c->summary.pct_range_string()});
        const std::string m = notes.marks({&c->sample.warnings, &c->summary.warnings});
        if (!m.empty()) cell += internal::str_cat({" ", m});
        if (i > 0 && c->baseline != nullptr) {
          delta = internal::str_cat(
              {c->comparison.format_delta(c->baseline->summary.center, c->summary.center), " (",
               c->comparison.to_string(), ")"});
          const std::string dm = notes.marks({&c->comparison.warnings});
          if (!dm.empty()) delta += internal::str_cat({" ", dm});
        }
      }
      out += internal::str_cat({" ", markdown_text(cell), " |"});
      if (i > 0) out += internal::str_cat({" ", markdown_text(delta), " |"});
    }
    out += "\n";
  }
  if (t.rows.size() > 1) {
    out += internal::str_cat({"| ", markdown_text(t.summary_label), " |"});
    for (std::size_t i = 0; i < ncols; ++i) {
      const TableSummary& s = t.summary[i];
      std::string cell = s.has_summary ? scale_value(s.summary, cls) : std::string();
      std::string ratio;
      if (i > 0) {
        ratio = s.has_ratio
                    ? internal::str_cat({internal::format_f((s.ratio - 1) * 100, 2, true), "%"})
                    : "?";
      }
      const std::string m = notes.marks({&s.warnings});
      if (!m.empty()) {
        if (i > 0) {
          ratio += internal::str_cat({" ", m});
        } else {
          cell += internal::str_cat({cell.empty() ? "" : " ", m});
        }
      }
      out += internal::str_cat({" ", markdown_text(cell), " |"});
      if (i > 0) out += internal::str_cat({" ", markdown_text(ratio), " |"});
    }
    out += "\n";
  }
  if (!notes.list().empty()) {
    out += "\n";
    for (std::size_t i = 0; i < notes.list().size(); ++i) {
      out += internal::str_cat(
          {superscript(static_cast<int>(i) + 1), " ", markdown_text(notes.list()[i]), "\n"});
    }
  }
  return out;
}

}  // namespace

std::string render_markdown(const Tables& tables) {
  std::string out;
  bool pending_config = false;
  internal::print_tables(
      tables,
      [&](const std::string& hdr) {
        if (hdr.empty()) {
          out += "\n";
          return;
        }
        out += internal::str_cat({"- ", markdown_text(hdr), "\n"});
        pending_config = true;
      },
      [&](const Table& t) {
        if (pending_config) out += "\n";
        pending_config = false;
        out += table_to_markdown(tables, t);
      });
  return out;
}

}  // namespace zerolab::stat
