// benchstat's text rendering (include/zerolab/stat_table.hpp): a port of
// the layout rules of its texttab package (margins, shrink columns, spans
// widened from the widest column down, cells laid out in the order Go's
// unstable sort leaves them) and of benchtab's Table.ToText.
//
// Example:
//   std::string text = zerolab::stat::render_text(tables);
//   // "         │   old.txt   │ ...\n"
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "go_compat.hpp"
#include "text_table.hpp"
#include "zerolab/stat_table.hpp"

namespace zerolab::internal {

void TextTable::row() {
  if (!cells_.empty()) ++cur_row_;
  cur_col_ = 0;
}

void TextTable::span(int n, std::string value, Align align, const char* margin) {
  TextCell c;
  c.row = cur_row_;
  c.col = cur_col_;
  c.span = n;
  c.left_margin = (cur_col_ == 0 || value.empty()) ? "" : " ";
  if (margin != nullptr) c.left_margin = margin;
  c.value = std::move(value);
  c.align = align;
  cells_.push_back(std::move(c));
  cur_col_ += n;
  if (cur_col_ > cols_) cols_ = cur_col_;
}

void TextTable::set_shrink(int col, bool shrink) {
  if (static_cast<int>(shrink_.size()) < col + 1)
    shrink_.resize(static_cast<std::size_t>(col) + 1, false);
  shrink_[static_cast<std::size_t>(col)] = shrink;
}

namespace {

// fmt's "%*s": pads to |width| runes, on the left for a positive width.
void append_padded(std::string& out, std::string_view s, long width) {
  const long len = static_cast<long>(rune_count(s));
  if (width >= 0) {
    if (width > len) out.append(static_cast<std::size_t>(width - len), ' ');
    out.append(s);
  } else {
    out.append(s);
    if (-width > len) out.append(static_cast<std::size_t>(-width - len), ' ');
  }
}

}  // namespace

std::string TextTable::format() {
  auto is_shrink = [this](int col) {
    return col < static_cast<int>(shrink_.size()) && shrink_[static_cast<std::size_t>(col)];
  };
  const auto ncols = static_cast<std::size_t>(cols_);
  std::vector<long> lmargin(ncols, 0);
  for (const TextCell& c : cells_) {
    auto& m = lmargin[static_cast<std::size_t>(c.col)];
    m = std::max(static_cast<long>(rune_count(c.left_margin)), m);
  }
  std::vector<long> ws(ncols, 0);
  go_sort_slice(
      cells_.size(),
      [this](std::size_t i, std::size_t j) { return cells_[i].span < cells_[j].span; },
      [this](std::size_t i, std::size_t j) { std::swap(cells_[i], cells_[j]); });
  std::vector<int> span_cols;
  for (const TextCell& c : cells_) {
    const auto col0 = static_cast<std::size_t>(c.col);
    long w = static_cast<long>(rune_count(c.value)) + lmargin[col0];
    if (c.span == 1) {
      ws[col0] = std::max(ws[col0], w);
      continue;
    }
    long tw = 0;
    for (int col = c.col; col < c.col + c.span; ++col) tw += ws[static_cast<std::size_t>(col)];
    if (tw >= w) continue;
    span_cols.clear();
    for (int col = c.col; col < c.col + c.span; ++col) {
      if (is_shrink(col)) {
        w -= ws[static_cast<std::size_t>(col)];
      } else {
        span_cols.push_back(col);
      }
    }
    go_sort_slice(
        span_cols.size(),
        [&ws, &span_cols](std::size_t i, std::size_t j) {
          return ws[static_cast<std::size_t>(span_cols[i])] >
                 ws[static_cast<std::size_t>(span_cols[j])];
        },
        [&span_cols](std::size_t i, std::size_t j) { std::swap(span_cols[i], span_cols[j]); });
    long span = static_cast<long>(span_cols.size());
    for (int col : span_cols) {
      const long avg = (w + span - 1) / span;
      auto& wc = ws[static_cast<std::size_t>(col)];
      wc = std::max(wc, avg);
      w -= wc;
      --span;
    }
  }
  std::vector<long> offs(ncols + 1, 0);
  long off = 0;
  for (std::size_t i = 0; i < ncols; ++i) {
    offs[i] = off;
    off += ws[i];
  }
  offs[ncols] = off;

  go_sort_slice(
      cells_.size(),
      [this](std::size_t i, std::size_t j) {
        if (cells_[i].row != cells_[j].row) return cells_[i].row < cells_[j].row;
        return cells_[i].col < cells_[j].col;
      },
      [this](std::size_t i, std::size_t j) { std::swap(cells_[i], cells_[j]); });

  std::string out;
  int row = 0;
  off = 0;
  for (const TextCell& c : cells_) {
    if (is_blank(c.value) && is_blank(c.left_margin)) continue;
    while (c.row > row) {
      out.push_back('\n');
      ++row;
      off = 0;
    }
    const auto col0 = static_cast<std::size_t>(c.col);
    const long spaces = offs[col0] - off;
    append_padded(out, "", spaces);
    append_padded(out, c.left_margin, lmargin[col0]);
    off += spaces + lmargin[col0];
    const long tw = offs[col0 + static_cast<std::size_t>(c.span)] - offs[col0] - lmargin[col0];
    std::string s;
    switch (c.align) {
      case Align::kLeft:
        s = c.value;
        break;
      case Align::kCenter: {
        const long l = (tw - static_cast<long>(rune_count(c.value))) / 2;
        append_padded(s, "", l);
        s += c.value;
        break;
      }
      case Align::kRight:
        append_padded(s, c.value, tw);
        break;
    }
    out += s;
    off += static_cast<long>(rune_count(s));
  }
  if (!cells_.empty()) out.push_back('\n');
  return out;
}

}  // namespace zerolab::internal

namespace zerolab::stat {
namespace {

using internal::Align;
using internal::TextTable;

constexpr int kLabelCols = 1;
constexpr int kCenterCols = 3;  // <center ±> <CI> <warnings>
constexpr int kDeltaCols = 3;   // <P%> <(p=0.PPP n=N)> <warnings>

int start_col(int exp) {
  if (exp == 0) return kLabelCols;
  return kLabelCols + kCenterCols + (exp - 1) * (kCenterCols + kDeltaCols);
}

// KeyHeader: the column keys as a forest of common field values.
struct HeaderNode {
  int field = -1;
  std::string value;
  int start = 0;
  int len = 0;
  std::vector<HeaderNode> children;
};

void build_header(const Projection& proj, const std::vector<Key>& keys,
                  const std::vector<const ProjectionField*>& fields, HeaderNode& parent) {
  const int level = parent.field + 1;
  if (level == static_cast<int>(fields.size())) return;
  const ProjectionField* field = fields[static_cast<std::size_t>(level)];
  for (int j = 0; j < parent.len; ++j) {
    const Key key = keys[static_cast<std::size_t>(parent.start) + static_cast<std::size_t>(j)];
    const std::string_view val = proj.get(key, field);
    if (!parent.children.empty() && val == parent.children.back().value) {
      ++parent.children.back().len;
    } else {
      HeaderNode n;
      n.field = level;
      n.value.assign(val);
      n.start = parent.start + j;
      n.len = 1;
      parent.children.push_back(std::move(n));
    }
  }
  for (HeaderNode& child : parent.children) build_header(proj, keys, fields, child);
}

std::string table_to_text(const Tables& all, const Table& t) {
  TextTable o;
  std::vector<std::string> warning_list;
  std::unordered_map<std::string, int> warning_set;
  auto warn = [&](std::initializer_list<const std::vector<std::string>*> lists) {
    std::string s;
    for (const auto* msgs : lists) {
      for (const std::string& m : *msgs) {
        auto it = warning_set.find(m);
        int i = 0;
        if (it == warning_set.end()) {
          i = static_cast<int>(warning_list.size());
          warning_set.emplace(m, i);
          warning_list.push_back(m);
        } else {
          i = it->second;
        }
        if (!s.empty()) s.push_back(' ');
        s += superscript(i + 1);
      }
    }
    o.cell(std::move(s));
  };

  const int ncols = static_cast<int>(t.cols.size());
  HeaderNode root;
  root.start = 0;
  root.len = ncols;
  if (all.col_by != nullptr && !t.cols.empty()) {
    build_header(*all.col_by, t.cols, all.col_by->flattened_fields(), root);
  }
  const int r_edge = start_col(ncols + 1);
  std::vector<const HeaderNode*> nodes;
  for (const HeaderNode& n : root.children) nodes.push_back(&n);
  while (!nodes.empty()) {
    std::vector<const HeaderNode*> next;
    o.row();
    for (const HeaderNode* n : nodes) {
      const int l = start_col(n->start);
      const int r = start_col(n->start + n->len);
      o.col(l);
      o.span(r - l, n->value, Align::kCenter, " │ ");
      for (const HeaderNode& c : n->children) next.push_back(&c);
    }
    o.col(r_edge);
    o.cell("", Align::kLeft, " │");
    nodes = std::move(next);
  }

  o.row();
  for (int i = 0; i < ncols; ++i) {
    const int l = start_col(i);
    o.col(l);
    o.span(kCenterCols, t.unit, Align::kCenter, " │ ");
    if (i > 0) o.span(kDeltaCols, "vs base", Align::kLeft, "  ");
    for (int j = l + 1; j < o.cur_col(); ++j) o.set_shrink(j, true);
  }
  o.col(r_edge);
  o.cell("", Align::kLeft, " │");

  const UnitClass unit_class = unit_class_of(t.unit);
  std::vector<double> centers;
  for (Key row : t.rows) {
    o.row();
    o.cell(all.row_by != nullptr ? all.row_by->string_values(row) : std::string());
    centers.clear();
    for (Key col : t.cols) {
      if (const TableCell* c = t.cell(row, col)) centers.push_back(c->summary.center);
    }
    const Scaler scaler = common_scale(centers, unit_class);
    for (int exp = 0; exp < ncols; ++exp) {
      const TableCell* c = t.cell(row, t.cols[static_cast<std::size_t>(exp)]);
      if (c == nullptr) continue;
      o.col(start_col(exp));
      o.cell(scaler.format(c->summary.center), Align::kRight);
      o.cell(c->summary.pct_range_string(), Align::kRight, " ± ");
      warn({&c->sample.warnings, &c->summary.warnings});
      if (exp > 0 && c->baseline != nullptr) {
        o.cell(c->comparison.format_delta(c->baseline->summary.center, c->summary.center),
               Align::kRight);
        o.cell(internal::str_cat({"(", c->comparison.to_string(), ")"}));
        warn({&c->comparison.warnings});
      }
    }
  }

  if (t.rows.size() > 1) {
    o.row();
    o.cell(t.summary_label);
    for (int exp = 0; exp < ncols; ++exp) {
      const TableSummary& s = t.summary[static_cast<std::size_t>(exp)];
      if (s.has_summary) {
        o.col(start_col(exp));
        o.cell(scale_value(s.summary, unit_class), Align::kRight);
      }
      if (exp > 0) {
        o.col(start_col(exp) + kCenterCols);
        if (s.has_ratio) {
          std::string r = internal::format_f((s.ratio - 1) * 100, 2, true);
          r.push_back('%');
          o.cell(std::move(r), Align::kRight);
        } else {
          o.cell("?");
        }
      }
      o.col(start_col(exp + 1) - 1);
      warn({&s.warnings});
    }
  }

  std::string out = o.format();
  for (std::size_t i = 0; i < warning_list.size(); ++i) {
    out += superscript(static_cast<int>(i) + 1);
    out.push_back(' ');
    out += warning_list[i];
    out.push_back('\n');
  }
  return out;
}

}  // namespace
}  // namespace zerolab::stat

namespace zerolab::internal {

void print_tables(const stat::Tables& tables, const std::function<void(const std::string&)>& hdr,
                  const std::function<void(const stat::Table&)>& body) {
  if (tables.tables.empty()) return;
  const std::vector<const stat::ProjectionField*> fields = tables.table_by->flattened_fields();
  stat::Key prev;
  for (std::size_t i = 0; i < tables.tables.size(); ++i) {
    if (i > 0) hdr("");
    const stat::Key key = tables.keys[i];
    for (const stat::ProjectionField* f : fields) {
      if (f->name == ".unit") continue;
      const std::string_view val = tables.table_by->get(key, f);
      if (prev.is_zero() || val != tables.table_by->get(prev, f)) {
        hdr(str_cat({f->name, ": ", val}));
      }
    }
    prev = key;
    body(tables.tables[i]);
  }
}

}  // namespace zerolab::internal

namespace zerolab::stat {

std::string render_text(const Tables& tables) {
  std::string out;
  internal::print_tables(
      tables,
      [&out](const std::string& line) {
        out += line;
        out.push_back('\n');
      },
      [&out, &tables](const Table& t) { out += table_to_text(tables, t); });
  return out;
}

}  // namespace zerolab::stat
