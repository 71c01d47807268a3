// `zerolab compare -format html` (compare_html.hpp).
#include "report/compare_html.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

#include "report/html_page.hpp"
#include "report/svg_plot.hpp"

namespace zerolab::report {
namespace {

// The name key that reads best as an x axis: present in at least half the
// rows, a quantity in each, with the most distinct values (three or more).
std::string sweep_key(const std::vector<std::string>& row_names) {
  std::map<std::string, std::pair<int, std::set<double>>> seen;  // key → (rows, values)
  std::set<std::string> broken;
  for (const std::string& name : row_names) {
    for (const std::string& element : split_name(name)) {
      const std::size_t eq = element.find('=');
      if (eq == std::string::npos) continue;
      const std::string key = element.substr(0, eq);
      double v = 0;
      bool bytes = false;
      if (!parse_quantity(element.substr(eq + 1), v, bytes)) {
        broken.insert(key);
        continue;
      }
      seen[key].first++;
      seen[key].second.insert(v);
    }
  }
  std::string best;
  std::size_t best_values = 2;
  for (const auto& [key, stats] : seen) {
    if (broken.count(key) != 0 || 2 * static_cast<std::size_t>(stats.first) < row_names.size())
      continue;
    if (stats.second.size() > best_values) {
      best = key;
      best_values = stats.second.size();
    }
  }
  return best;
}

StripRow strip_row(std::string label, const stat::TableCell& cell, double scale) {
  StripRow row;
  row.label = std::move(label);
  for (const double v : cell.sample.values) row.samples.push_back(v * scale);
  row.center = cell.summary.center * scale;
  row.lo = cell.summary.lo * scale;
  row.hi = cell.summary.hi * scale;
  return row;
}

std::string sweep_section(const stat::Tables& tables, const stat::Table& t, const UnitView& view) {
  std::vector<std::string> row_names;
  for (const stat::Key row : t.rows) row_names.push_back(tables.row_by->string_values(row));
  const std::string key = sweep_key(row_names);
  if (key.empty()) return "";
  LinePlot plot;
  plot.title = t.unit + " against " + key;
  plot.caption =
      "Medians; one line per series" + std::string(t.cols.size() > 1 ? " and column." : ".");
  // Name elements every row has say nothing about the series.
  std::set<std::string> shared;
  for (std::size_t r = 0; r < row_names.size(); ++r) {
    std::set<std::string> elements;
    for (const std::string& e : split_name(row_names[r])) elements.insert(e);
    if (r == 0) {
      shared = elements;
    } else {
      std::set<std::string> both;
      std::set_intersection(shared.begin(), shared.end(), elements.begin(), elements.end(),
                            std::inserter(both, both.begin()));
      shared = both;
    }
  }
  bool x_bytes = false;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    double x = 0;
    bool have_x = false;
    std::string series;
    for (const std::string& element : split_name(row_names[r])) {
      if (element.compare(0, key.size() + 1, key + "=") == 0) {
        bool bytes = false;
        have_x = parse_quantity(element.substr(key.size() + 1), x, bytes);
        x_bytes = x_bytes || bytes;
      } else if (shared.count(element) == 0) {
        // "method=memset" reads as "memset" in a legend.
        const std::size_t eq = element.find('=');
        series += (series.empty() ? "" : "/") +
                  (eq == std::string::npos ? element : element.substr(eq + 1));
      }
    }
    if (!have_x) continue;
    for (const stat::Key col : t.cols) {
      const stat::TableCell* cell = t.cell(t.rows[r], col);
      if (cell == nullptr || cell->sample.values.empty()) continue;
      std::string name = series;
      if (t.cols.size() > 1)
        name += (name.empty() ? "" : " · ") + tables.col_by->string_values(col);
      add_point(plot, name, x, cell->summary.center * view.scale);
    }
  }
  plot.x = {key, wants_log(x_values(plot)), x_bytes ? ValueKind::kBytes : ValueKind::kNumber};
  plot.y = {t.unit, wants_log(y_values(plot)), view.kind};
  plot.y_from_zero = true;
  return render_line_plot(plot);
}

std::string strip_sections(const stat::Tables& tables, const stat::Table& t, const UnitView& view) {
  std::string out;
  const std::string caption =
      "Every sample as a dot; the bar is the median, the band its " +
      std::to_string(static_cast<int>(std::lround(t.options.confidence * 100))) +
      "% confidence interval.";
  if (t.cols.size() <= 1) {
    // One plot of every row, a strip each, in chunks a page can hold.
    constexpr std::size_t kRowsPerPlot = 30;
    constexpr std::size_t kMaxRows = kRowsPerPlot * kMaxStripPlotsPerTable;
    for (std::size_t start = 0; start < t.rows.size(); start += kRowsPerPlot) {
      if (start == kMaxRows) {
        out += "<p class=\"sub\">" + std::to_string(t.rows.size() - kMaxRows) +
               " more rows are not plotted (at most " + std::to_string(kMaxRows) +
               " per table); narrow them with -filter.</p>\n";
        break;
      }
      StripPlot plot;
      plot.title =
          t.unit + (t.rows.size() > kRowsPerPlot
                        ? " (rows " + std::to_string(start + 1) + "–" +
                              std::to_string(std::min(start + kRowsPerPlot, t.rows.size())) + ")"
                        : "");
      plot.caption = caption;
      for (std::size_t r = start; r < std::min(start + kRowsPerPlot, t.rows.size()); ++r) {
        for (const stat::Key col : t.cols) {
          const stat::TableCell* cell = t.cell(t.rows[r], col);
          if (cell != nullptr)
            plot.rows.push_back(
                strip_row(tables.row_by->string_values(t.rows[r]), *cell, view.scale));
        }
      }
      plot.x = {t.unit, wants_log(all_samples(plot)), view.kind};
      out += render_strip_plot(plot);
    }
    return out;
  }
  int plots = 0;
  for (const stat::Key row : t.rows) {
    if (plots == kMaxStripPlotsPerTable) {
      out += "<p class=\"sub\">" + std::to_string(t.rows.size() - static_cast<std::size_t>(plots)) +
             " more rows are not plotted (at most " + std::to_string(kMaxStripPlotsPerTable) +
             " per table); narrow them with -filter.</p>\n";
      break;
    }
    StripPlot plot;
    plot.title = tables.row_by->string_values(row);
    std::string deltas;
    for (const stat::Key col : t.cols) {
      const stat::TableCell* cell = t.cell(row, col);
      if (cell == nullptr) continue;
      const std::string col_name = tables.col_by->string_values(col);
      plot.rows.push_back(strip_row(col_name, *cell, view.scale));
      if (cell->baseline != nullptr) {
        deltas +=
            (deltas.empty() ? "" : "; ") + col_name + ": " +
            cell->comparison.format_delta(cell->baseline->summary.center, cell->summary.center) +
            " (" + cell->comparison.to_string() + ")";
      }
    }
    plot.caption = deltas.empty() ? caption : caption + " vs the first column: " + deltas;
    plot.x = {t.unit, wants_log(all_samples(plot)), view.kind};
    out += render_strip_plot(plot);
    ++plots;
  }
  return out;
}

bool all_zero(const stat::Table& t) {
  for (const auto& [key, cell] : t.cells) {
    (void)key;
    for (const double v : cell->sample.values) {
      if (v != 0) return false;
    }
  }
  return true;
}

}  // namespace

std::string compare_sections_html(const stat::Tables& tables) {
  std::string out = "<details><summary>The tables as benchstat prints them (" +
                    std::to_string(tables.tables.size()) + ")</summary>\n<pre>" +
                    html_escape(stat::render_text(tables)) + "</pre>\n</details>\n";
  for (const stat::Table& t : tables.tables) {
    const UnitView view = unit_view(t.unit);
    out += "<h3>" + html_escape(t.unit) + "</h3>\n";
    if (all_zero(t)) {
      out += "<p class=\"sub\">Every sample is 0: nothing to plot.</p>\n";
      continue;
    }
    out += sweep_section(tables, t, view);
    out += strip_sections(tables, t, view);
  }
  return out;
}

std::string render_compare_html(const stat::Tables& tables,
                                const std::vector<std::string>& inputs) {
  std::string names;
  for (const std::string& in : inputs) names += (names.empty() ? "" : ", ") + in;
  std::string out = html_page_open("zerolab compare: " + names);
  out += "<h1>zerolab compare</h1>\n<p class=\"sub\">Inputs: <code>" + html_escape(names) +
         "</code>. The tables are benchstat's; the plots show the samples behind them.</p>\n";
  out += compare_sections_html(tables);
  out += html_page_close();
  return out;
}

}  // namespace zerolab::report
