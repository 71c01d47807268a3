// JSON rendering of comparison tables (include/zerolab/stat_table.hpp):
// every table, cell, summary, comparison and geomean at full precision
// (numbers in shortest round-trip form; NaN and infinities as null).
//
// Example:
//   std::string json = zerolab::stat::render_json(tables);
//   // "{\"tables\":[\n{\"config\":...}\n]}\n"

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

void json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  static constexpr char kHex[] = "0123456789abcdef";
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
      out +=
          internal::str_cat({",\"n\":", std::to_string(c->sample.values.size()), ",\"values\":["});
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
        out += internal::str_cat({",\"n1\":", std::to_string(cmp.n1),
                                  ",\"n2\":", std::to_string(cmp.n2), ",\"alpha\":"});
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

std::string render_json(const Tables& tables) {
  std::string out = "{\"tables\":[";
  for (std::size_t i = 0; i < tables.tables.size(); ++i) {
    if (i > 0)
      out += ",\n";
    else
      out += "\n";
    table_to_json(tables, tables.tables[i], tables.keys[i], out);
  }
  out += "\n]}\n";
  return out;
}

}  // namespace zerolab::stat
