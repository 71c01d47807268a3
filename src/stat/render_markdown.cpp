// Markdown and JSON renderings of comparison tables
// (include/zerolab/stat_table.hpp).
//
// Markdown: the text table's content as a GitHub table per unit, with the
// configuration as a list before it and footnotes after it. JSON: every
// table, cell, summary, comparison and geomean at full precision (numbers
// in shortest round-trip form; NaN and infinities as null).
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
#include "text_table.hpp"
#include "zerolab/stat_table.hpp"

namespace zerolab::stat {
namespace {

std::string md_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|' || c == '\\') out.push_back('\\');
    if (c == '\n' || c == '\r') {
      out.push_back(' ');
      continue;
    }
    out.push_back(c);
  }
  return out;
}

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
  std::string out = internal::str_cat({"| ", md_escape(t.unit), " |"});
  std::string align = "|:--|";
  for (std::size_t i = 0; i < ncols; ++i) {
    out += internal::str_cat({" ", md_escape(all.col_by->string_values(t.cols[i])), " |"});
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
    out += internal::str_cat({"| ", md_escape(all.row_by->string_values(row)), " |"});
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
        cell = internal::str_cat({scaler.format(c->summary.center), " ± ", c->summary.pct_range_string()});
        const std::string m = notes.marks({&c->sample.warnings, &c->summary.warnings});
        if (!m.empty()) cell += internal::str_cat({" ", m});
        if (i > 0 && c->baseline != nullptr) {
          delta = internal::str_cat({c->comparison.format_delta(c->baseline->summary.center, c->summary.center),
                                     " (", c->comparison.to_string(), ")"});
          const std::string dm = notes.marks({&c->comparison.warnings});
          if (!dm.empty()) delta += internal::str_cat({" ", dm});
        }
      }
      out += internal::str_cat({" ", md_escape(cell), " |"});
      if (i > 0) out += internal::str_cat({" ", md_escape(delta), " |"});
    }
    out += "\n";
  }
  if (t.rows.size() > 1) {
    out += internal::str_cat({"| ", md_escape(t.summary_label), " |"});
    for (std::size_t i = 0; i < ncols; ++i) {
      const TableSummary& s = t.summary[i];
      std::string cell = s.has_summary ? scale_value(s.summary, cls) : std::string();
      std::string ratio;
      if (i > 0) {
        ratio = s.has_ratio ? internal::str_cat({internal::format_f((s.ratio - 1) * 100, 2, true), "%"}) : "?";
      }
      const std::string m = notes.marks({&s.warnings});
      if (!m.empty()) {
        if (i > 0) {
          ratio += internal::str_cat({" ", m});
        } else {
          cell += internal::str_cat({cell.empty() ? "" : " ", m});
        }
      }
      out += internal::str_cat({" ", md_escape(cell), " |"});
      if (i > 0) out += internal::str_cat({" ", md_escape(ratio), " |"});
    }
    out += "\n";
  }
  if (!notes.list().empty()) {
    out += "\n";
    for (std::size_t i = 0; i < notes.list().size(); ++i) {
      out += internal::str_cat({superscript(static_cast<int>(i) + 1), " ", md_escape(notes.list()[i]), "\n"});
    }
  }
  return out;
}

// ---- JSON ------------------------------------------------------------------------

void json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  static const char* kHex = "0123456789abcdef";
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (c < 0x20) {
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
      ++i;
    } else if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else {
      auto [r, n] = internal::decode_rune(s.substr(i));
      internal::append_rune(out, r);  // invalid bytes become U+FFFD
      i += n;
    }
  }
  out.push_back('"');
}

void json_number(std::string& out, double v) {
  if (std::isnan(v) || std::isinf(v)) {
    out += "null";
    return;
  }
  out += internal::format_g(v);
}

void json_strings(std::string& out, const std::vector<std::string>& v) {
  out.push_back('[');
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out.push_back(',');
    json_string(out, v[i]);
  }
  out.push_back(']');
}

void table_to_json(const Tables& all, const Table& t, Key key, std::string& out) {
  out += "{\"config\":{";
  bool first = true;
  for (const ProjectionField* f : all.table_by->flattened_fields()) {
    if (f->name == ".unit") continue;
    const std::string_view v = all.table_by->get(key, f);
    if (v.empty()) continue;
    if (!first) out.push_back(',');
    first = false;
    json_string(out, f->name);
    out.push_back(':');
    json_string(out, v);
  }
  out += "},\"unit\":";
  json_string(out, t.unit);
  out += ",\"assumption\":";
  out += t.assumption == Assumption::kExact ? "\"exact\"" : "\"nothing\"";
  out += ",\"confidence\":";
  json_number(out, t.options.confidence);
  out += ",\"alpha\":";
  json_number(out, t.options.alpha);
  out += ",\"columns\":[";
  for (std::size_t i = 0; i < t.cols.size(); ++i) {
    if (i > 0) out.push_back(',');
    json_string(out, all.col_by->string_values(t.cols[i]));
  }
  out += "],\"rows\":[";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (r > 0) out.push_back(',');
    out += "{\"name\":";
    json_string(out, all.row_by->string_values(t.rows[r]));
    out += ",\"cells\":[";
    bool first_cell = true;
    for (std::size_t i = 0; i < t.cols.size(); ++i) {
      const TableCell* c = t.cell(t.rows[r], t.cols[i]);
      if (c == nullptr) continue;
      if (!first_cell) out.push_back(',');
      first_cell = false;
      out += "{\"column\":";
      json_string(out, all.col_by->string_values(t.cols[i]));
      out += internal::str_cat({",\"n\":", std::to_string(c->sample.values.size()), ",\"values\":["});
      for (std::size_t k = 0; k < c->sample.values.size(); ++k) {
        if (k > 0) out.push_back(',');
        json_number(out, c->sample.values[k]);
      }
      out += "],\"center\":";
      json_number(out, c->summary.center);
      out += ",\"lo\":";
      json_number(out, c->summary.lo);
      out += ",\"hi\":";
      json_number(out, c->summary.hi);
      out += ",\"confidence\":";
      json_number(out, c->summary.confidence);
      out += ",\"range\":";
      json_string(out, c->summary.pct_range_string());
      out += ",\"warnings\":";
      std::vector<std::string> w = c->sample.warnings;
      w.insert(w.end(), c->summary.warnings.begin(), c->summary.warnings.end());
      json_strings(out, w);
      if (i > 0 && c->baseline != nullptr) {
        const Comparison& cmp = c->comparison;
        const double old_c = c->baseline->summary.center;
        out += ",\"comparison\":{\"baseline\":";
        json_string(out, all.col_by->string_values(t.cols[0]));
        out += ",\"p\":";
        json_number(out, cmp.p);
        out += internal::str_cat({",\"n1\":", std::to_string(cmp.n1), ",\"n2\":", std::to_string(cmp.n2), ",\"alpha\":"});
        json_number(out, cmp.alpha);
        out += ",\"significant\":";
        out += cmp.significant() ? "true" : "false";
        out += ",\"ratio\":";
        json_number(out, old_c == 0 ? std::nan("") : c->summary.center / old_c);
        out += ",\"delta\":";
        json_string(out, cmp.format_delta(old_c, c->summary.center));
        out += ",\"warnings\":";
        json_strings(out, cmp.warnings);
        out.push_back('}');
      }
      out.push_back('}');
    }
    out += "]}";
  }
  out += "],\"geomean\":[";
  for (std::size_t i = 0; i < t.cols.size(); ++i) {
    if (i > 0) out.push_back(',');
    const TableSummary& s = t.summary[i];
    out += "{\"column\":";
    json_string(out, all.col_by->string_values(t.cols[i]));
    out += ",\"summary\":";
    if (s.has_summary) {
      json_number(out, s.summary);
    } else {
      out += "null";
    }
    out += ",\"ratio\":";
    if (s.has_ratio) {
      json_number(out, s.ratio);
    } else {
      out += "null";
    }
    out += ",\"warnings\":";
    json_strings(out, s.warnings);
    out.push_back('}');
  }
  out += "]}";
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
        out += internal::str_cat({"- ", md_escape(hdr), "\n"});
        pending_config = true;
      },
      [&](const Table& t) {
        if (pending_config) out += "\n";
        pending_config = false;
        out += table_to_markdown(tables, t);
      });
  return out;
}

std::string render_json(const Tables& tables) {
  std::string out = "{\"tables\":[";
  for (std::size_t i = 0; i < tables.tables.size(); ++i) {
    if (i > 0) out += ",\n";
    else out += "\n";
    table_to_json(tables, tables.tables[i], tables.keys[i], out);
  }
  out += "\n]}\n";
  return out;
}

}  // namespace zerolab::stat
