// `zerolab table`'s markdown results table (results_table.hpp).
#include "stat/results_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "text/markdown.hpp"
#include "zerolab/benchfmt.hpp"
#include "zerolab/stat.hpp"

namespace zerolab::stat {

using internal::markdown_text;

namespace {

constexpr std::array<std::string_view, 3> kStandard = {"ns/op", "B/op", "allocs/op"};

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

}  // namespace

void ResultsTable::add(const BenchRecord& rec, bool json_input) {
  const std::string name = json_input ? std::string(rec.full_name()) : rec.result.name;
  Row* row = nullptr;
  if (options_.aggregate) {
    auto [it, inserted] = row_of_.try_emplace(name, rows_.size());
    if (inserted) rows_.push_back(Row{name, 0, {}});
    row = &rows_[it->second];
    row->count += 1;
  } else {
    rows_.push_back(Row{name, static_cast<double>(rec.result.iterations), {}});
    row = &rows_.back();
  }
  for (std::size_t m = 0; m < rec.result.metrics.size(); ++m) {
    const bool tidied = m < rec.original.size() && !rec.original[m].unit.empty();
    const std::string& unit = tidied ? rec.original[m].unit : rec.result.metrics[m].unit;
    const double value = tidied ? rec.original[m].value : rec.result.metrics[m].value;
    row->values[unit].push_back(value);
    bool standard = false;
    for (std::size_t s = 0; s < kStandard.size(); ++s) {
      if (unit == kStandard[s]) {
        has_standard_[s] = true;
        standard = true;
      }
    }
    if (!standard &&
        std::find(custom_units_.begin(), custom_units_.end(), unit) == custom_units_.end()) {
      custom_units_.push_back(unit);
    }
  }
}

std::string ResultsTable::markdown() const {
  std::vector<const Row*> rows;
  for (const Row& r : rows_) rows.push_back(&r);
  if (options_.sort_by_name) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row* a, const Row* b) { return a->name < b->name; });
  }
  std::vector<std::string> units;
  for (std::size_t s = 0; s < kStandard.size(); ++s) {
    if (has_standard_[s]) units.emplace_back(kStandard[s]);
  }
  units.insert(units.end(), custom_units_.begin(), custom_units_.end());

  std::string out = options_.aggregate ? "| name | runs |" : "| name | count |";
  std::string rule = "|---|---|";
  for (const std::string& u : units) {
    out += " " + markdown_text(u) + " |";
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  for (const Row* r : rows) {
    out += "| " + markdown_text(r->name) + " | " +
           std::to_string(static_cast<long long>(r->count)) + " |";
    for (const std::string& u : units) {
      auto it = r->values.find(u);
      std::string cell;
      if (it != r->values.end() && !it->second.empty()) {
        if (options_.aggregate) {
          Sample s = make_sample(it->second);
          cell = format_value(quantile(s.values, 0.5), u);
        } else {
          cell = format_value(it->second.front(), u);
        }
      }
      out += " " + markdown_text(cell) + " |";
    }
    out += "\n";
  }
  return out;
}

}  // namespace zerolab::stat
