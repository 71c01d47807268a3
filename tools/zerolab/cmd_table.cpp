// zerolab table: benchmark output as a GitHub markdown table, one row per
// result line (the fmtbench layout: name | count | ns/op | B/op |
// allocs/op | custom units...), or with -agg one row per benchmark holding
// the median of each unit over its runs. Values keep the units they were
// written in and print as Go's testing package prints them.
//
// Exit codes: 0 done, 2 bad usage, unreadable input or no results.
//
// Example:
//   go test -bench . -benchmem | zerolab table
//   zerolab table -agg new.txt
//   | name | count | ns/op | B/op | allocs/op |
//   |---|---|---|---|---|
//   | BenchmarkFormatNaive-24 | 11812275 | 97.50 | 102 | 6 |
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"
#include "format/quote.hpp"
#include "zerolab/benchfmt.hpp"
#include "zerolab/stat.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::cli {
namespace {

constexpr int kExitBadInput = 2;

constexpr const char* kTableUsage =
    "Usage: zerolab table [-agg] [-sort name|none] [file...]\n"
    "\n"
    "table prints benchmark results (Go benchmark format or Google Benchmark\n"
    "JSON; stdin when no file is given) as a markdown table with columns\n"
    "name | count | ns/op | B/op | allocs/op | <other units...>.\n"
    "\n"
    "  -agg\n"
    "    \tone row per benchmark: the median of each unit, count = runs\n"
    "  -sort order\n"
    "    \trow order: name (default) or none (input order)\n";

struct Row {
  std::string name;
  double count = 0;
  std::map<std::string, std::vector<double>> values;  // unit as written → values
};

void err_line(const std::string& s) {
  const std::string line = s + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

// A value as Go's testing package prints it, without padding.
std::string format_value(double v, std::string_view unit) {
  std::string s;
  if ((unit == "B/op" || unit == "allocs/op") && v == std::floor(v) && std::fabs(v) < 9e18) {
    s = std::to_string(static_cast<long long>(v));
  } else if (unit == "MB/s") {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    s = buf;
  } else {
    benchfmt::append_pretty(s, v, "");
    s.pop_back();  // the space before the (empty) unit
  }
  const std::size_t first = s.find_first_not_of(' ');
  return first == std::string::npos ? s : s.substr(first);
}

std::string md_cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|' || c == '\\') out.push_back('\\');
    out.push_back(c == '\n' ? ' ' : c);
  }
  return out;
}

int run_table(std::span<char* const> args) {
  bool agg = false;
  bool sort_by_name = true;
  internal::FlagSet flags;
  flags.boolean("agg", agg);
  flags.value("sort", [&sort_by_name](const std::string& v) -> std::string {
    if (v != "name" && v != "none") return "want name or none";
    sort_by_name = v == "name";
    return "";
  });
  if (const int rc = parse_command_flags(flags, args, "table", kTableUsage); rc >= 0) return rc;
  const std::vector<std::string>& paths = flags.operands();

  std::vector<Row> rows;
  std::map<std::string, std::size_t> row_of;  // -agg: name → row
  std::vector<std::string> custom_units;
  bool has_std[3] = {false, false, false};
  static constexpr std::string_view kStd[3] = {"ns/op", "B/op", "allocs/op"};

  stat::InputFiles files(stat::parse_inputs(paths, /*allow_labels=*/false));
  while (files.next()) {
    if (files.kind() == stat::RecordKind::kSyntaxError) {
      err_line(files.syntax_error().to_string());
      continue;
    }
    if (files.kind() != stat::RecordKind::kResult) continue;
    const stat::BenchRecord& rec = files.result();
    // Go-format names print as written; Google Benchmark names without the
    // "Benchmark" the reader puts in front of them.
    const std::string name = files.input_is_json() ? std::string(rec.full_name()) : rec.result.name;
    Row* row = nullptr;
    if (agg) {
      auto [it, inserted] = row_of.try_emplace(name, rows.size());
      if (inserted) rows.push_back(Row{name, 0, {}});
      row = &rows[it->second];
      row->count += 1;
    } else {
      rows.push_back(Row{name, static_cast<double>(rec.result.iterations), {}});
      row = &rows.back();
    }
    for (std::size_t m = 0; m < rec.result.metrics.size(); ++m) {
      const bool tidied = m < rec.original.size() && !rec.original[m].unit.empty();
      const std::string& unit = tidied ? rec.original[m].unit : rec.result.metrics[m].unit;
      const double value = tidied ? rec.original[m].value : rec.result.metrics[m].value;
      row->values[unit].push_back(value);
      bool standard = false;
      for (int s = 0; s < 3; ++s) {
        if (unit == kStd[s]) {
          has_std[s] = true;
          standard = true;
        }
      }
      if (!standard && std::find(custom_units.begin(), custom_units.end(), unit) == custom_units.end()) {
        custom_units.push_back(unit);
      }
    }
  }
  if (!files.error().empty()) {
    err_line("zerolab table: " + files.error());
    return kExitBadInput;
  }
  if (rows.empty()) {
    // As compare says it: every input, by name (none held a result).
    for (const stat::InputSpec& in : files.inputs()) {
      err_line("zerolab table: " + internal::shown_text(in.path) + ":0: no benchmark results");
    }
    return kExitBadInput;
  }
  if (sort_by_name) {
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.name < b.name; });
  }

  std::vector<std::string> units;
  for (int s = 0; s < 3; ++s) {
    if (has_std[s]) units.emplace_back(kStd[s]);
  }
  units.insert(units.end(), custom_units.begin(), custom_units.end());

  std::string out = agg ? "| name | runs |" : "| name | count |";
  std::string rule = "|---|---|";
  for (const std::string& u : units) {
    out += " " + md_cell(u) + " |";
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  for (Row& r : rows) {
    out += "| " + md_cell(r.name) + " | " + std::to_string(static_cast<long long>(r.count)) + " |";
    for (const std::string& u : units) {
      auto it = r.values.find(u);
      std::string cell;
      if (it != r.values.end() && !it->second.empty()) {
        if (agg) {
          stat::Sample s = stat::make_sample(it->second);
          cell = format_value(stat::quantile(s.values, 0.5), u);
        } else {
          cell = format_value(it->second.front(), u);
        }
      }
      out += " " + md_cell(cell) + " |";
    }
    out += "\n";
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

const CommandRegistration kTable{"table", "benchmark results as a markdown table (fmtbench)", &run_table};

}  // namespace
}  // namespace zerolab::cli
