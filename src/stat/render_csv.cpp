// benchstat's CSV rendering (include/zerolab/stat_table.hpp): values at
// full precision (Go's %v), warnings written apart with spreadsheet cell
// references, fields quoted as Go's encoding/csv quotes them.
//
// Example:
//   std::string warnings;
//   std::string csv = zerolab::stat::render_csv(tables, &warnings);
//   // ",old.txt,,new.txt,,,\n,sec/op,CI,sec/op,CI,vs base,P\n..."
#include <string>
#include <string_view>
#include <vector>

#include "go_compat.hpp"
#include "text_table.hpp"
#include "zerolab/stat_table.hpp"

namespace zerolab::stat {
namespace {

bool field_needs_quotes(std::string_view f) {
  if (f.empty()) return false;
  if (f == "\\.") return true;
  if (f.find_first_of(",\"\r\n") != std::string_view::npos) return true;
  auto [r, n] = internal::decode_rune(f);
  (void)n;
  return internal::is_space(r);
}

void write_record(std::string& out, const std::vector<std::string>& record) {
  for (std::size_t i = 0; i < record.size(); ++i) {
    if (i > 0) out.push_back(',');
    const std::string& f = record[i];
    if (!field_needs_quotes(f)) {
      out += f;
      continue;
    }
    out.push_back('"');
    for (char c : f) {
      if (c == '"') out.push_back('"');
      out.push_back(c);
    }
    out.push_back('"');
  }
  out.push_back('\n');
}

constexpr int kLabelCols = 1;
constexpr int kCenterCols = 2;  // <center> <CI>
constexpr int kDeltaCols = 2;   // <P%> <(p=0.PPP n=N)>

int start_col(int exp) {
  if (exp == 0) return kLabelCols;
  return kLabelCols + kCenterCols + (exp - 1) * (kCenterCols + kDeltaCols);
}

int table_to_csv(const Tables& all, const Table& t, std::string& out, int start_row,
                 std::string& warnings) {
  int row_count = 0;
  std::vector<std::string> row;
  auto clear_to = [&row](int col) {
    while (static_cast<int>(row.size()) < col) row.emplace_back();
  };
  auto emit = [&] {
    write_record(out, row);
    row.clear();
    ++row_count;
  };
  auto warn = [&](const std::vector<std::string>& msgs) {
    char name_buf[24];
    std::size_t pos = sizeof name_buf;
    for (std::size_t x = row.size(); x > 0; x /= 26)
      name_buf[--pos] = static_cast<char>('A' + x % 26);
    if (pos == sizeof name_buf) name_buf[--pos] = 'A';
    const std::string_view col_name(name_buf + pos, sizeof name_buf - pos);
    for (const std::string& m : msgs) {
      warnings.append(col_name);
      warnings.append(std::to_string(start_row + row_count));
      warnings.append(": ");
      warnings.append(m);
      warnings.push_back('\n');
    }
  };
  const int ncols = static_cast<int>(t.cols.size());
  for (const ProjectionField* f : all.col_by->flattened_fields()) {
    for (int exp = 0; exp < ncols; ++exp) {
      clear_to(start_col(exp));
      row.emplace_back(all.col_by->get(t.cols[static_cast<std::size_t>(exp)], f));
    }
    clear_to(start_col(ncols));
    emit();
  }
  for (int exp = 0; exp < ncols; ++exp) {
    clear_to(start_col(exp));
    row.push_back(t.unit);
    row.emplace_back("CI");
    if (exp > 0) {
      row.emplace_back("vs base");
      row.emplace_back("P");
    }
  }
  emit();
  for (Key r : t.rows) {
    row.push_back(all.row_by->string_values(r));
    for (int exp = 0; exp < ncols; ++exp) {
      const TableCell* c = t.cell(r, t.cols[static_cast<std::size_t>(exp)]);
      if (c == nullptr) continue;
      clear_to(start_col(exp));
      warn(c->sample.warnings);
      warn(c->summary.warnings);
      row.push_back(internal::format_g(c->summary.center));
      row.push_back(c->summary.pct_range_string());
      if (exp > 0 && c->baseline != nullptr) {
        warn(c->comparison.warnings);
        row.push_back(c->comparison.format_delta(c->baseline->summary.center, c->summary.center));
        row.push_back(c->comparison.to_string());
      }
    }
    emit();
  }
  row.push_back(t.summary_label);
  for (int exp = 0; exp < ncols; ++exp) {
    const TableSummary& s = t.summary[static_cast<std::size_t>(exp)];
    clear_to(start_col(exp));
    warn(s.warnings);
    if (s.has_summary) row.push_back(internal::format_g(s.summary));
    if (exp > 0) {
      clear_to(start_col(exp) + kCenterCols);
      if (s.has_ratio) {
        std::string v = internal::format_f((s.ratio - 1) * 100, 2, true);
        v.push_back('%');
        row.push_back(std::move(v));
      } else {
        row.emplace_back("?");
      }
    }
  }
  clear_to(start_col(ncols));
  emit();
  return row_count;
}

}  // namespace

std::string render_csv(const Tables& tables, std::string* warnings) {
  std::string out;
  std::string warn_buf;
  int row = 1;
  internal::print_tables(
      tables,
      [&](const std::string& hdr) {
        write_record(out, {hdr});
        ++row;
      },
      [&](const Table& t) { row += table_to_csv(tables, t, out, row, warn_buf); });
  if (warnings != nullptr) *warnings += warn_buf;
  return out;
}

}  // namespace zerolab::stat
