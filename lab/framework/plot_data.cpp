// Plots from an experiment's results (plot_data.hpp).
#include "lab/framework/plot_data.hpp"

#include <algorithm>
#include <cmath>

#include "lab/framework/judge.hpp"
#include "lab/framework/report.hpp"
#include "zerolab/stat.hpp"

namespace zerolab::lab {
namespace {

using report::ValueKind;

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t end = s.find(sep, pos);
    parts.emplace_back(
        s.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return parts;
}

// The distinct result names under prefix, in first-seen order.
std::vector<std::string> names_under(const std::vector<benchfmt::Result>& results,
                                     const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& r : results) {
    if (r.name.compare(0, prefix.size(), prefix) != 0) continue;
    if (std::find(names.begin(), names.end(), r.name) == names.end()) names.push_back(r.name);
  }
  return names;
}

report::StripRow strip_row(std::string label, const std::vector<double>& raw, double scale) {
  report::StripRow row;
  row.label = std::move(label);
  for (const double v : raw) row.samples.push_back(v * scale);
  if (row.samples.empty()) return row;
  const stat::Summary s =
      stat::summarize(stat::make_sample(row.samples), stat::Assumption::kNothing, 0.95);
  row.center = s.center;
  row.lo = s.lo;
  row.hi = s.hi;
  return row;
}

}  // namespace

std::vector<report::Mark> cache_marks(const MachineInfo& machine) {
  std::vector<report::Mark> marks;
  for (const auto& [key, value] : machine.config) {
    if (key != "caches") continue;
    for (std::string part : split(value, ',')) {
      while (!part.empty() && part.front() == ' ') part.erase(part.begin());
      const std::size_t space = part.find(' ');
      if (space == std::string::npos) continue;
      const std::string level = part.substr(0, space);
      if (level == "L1i") continue;  // instructions: no data is zeroed there
      double size = 0;
      bool bytes = false;
      if (!report::parse_quantity(part.substr(space + 1), size, bytes) || !bytes) continue;
      marks.push_back({size, level + " " + report::format_value(size, ValueKind::kBytes)});
    }
  }
  return marks;
}

report::LinePlot sweep_plot(const PlotSpec& spec, const std::vector<benchfmt::Result>& results,
                            const MachineInfo& machine) {
  const report::UnitView view = report::unit_view(spec.unit);
  report::LinePlot plot;
  plot.title = spec.title;
  plot.caption = "Medians of " + spec.unit + " over every run; one line per series.";
  bool x_bytes = false;
  const std::string x_prefix = spec.x_key + "=";
  for (const std::string& name : names_under(results, spec.prefix)) {
    double x = 0;
    bool have_x = false;
    std::string series;
    for (const std::string& element :
         report::split_name(std::string_view(name).substr(spec.prefix.size()))) {
      if (element.compare(0, x_prefix.size(), x_prefix) == 0) {
        bool bytes = false;
        have_x = report::parse_quantity(element.substr(x_prefix.size()), x, bytes);
        x_bytes = x_bytes || bytes;
        continue;
      }
      const std::size_t eq = element.find('=');
      if (eq != std::string::npos && std::find(spec.series_ignore.begin(), spec.series_ignore.end(),
                                               element.substr(0, eq)) != spec.series_ignore.end()) {
        continue;
      }
      series += (series.empty() ? "" : "/") +
                (eq == std::string::npos ? element : element.substr(eq + 1));
    }
    const std::vector<double> values = samples_of(results, name, spec.unit);
    if (!have_x || values.empty()) continue;
    const double y =
        stat::summarize(stat::make_sample(values), stat::Assumption::kNothing, 0.95).center *
        view.scale;
    report::add_point(plot, series, x, y);
  }
  plot.x = {spec.x_label, report::wants_log(report::x_values(plot)),
            x_bytes ? ValueKind::kBytes : ValueKind::kNumber};
  plot.y = {spec.y_label + " (" + spec.unit + ")", report::wants_log(report::y_values(plot)),
            view.kind};
  plot.y_from_zero = true;
  if (spec.cache_marks) plot.marks = cache_marks(machine);
  return plot;
}

report::StripPlot strip_plot(const PlotSpec& spec, const std::vector<benchfmt::Result>& results) {
  const report::UnitView view = report::unit_view(spec.unit);
  report::StripPlot plot;
  plot.title = spec.title;
  plot.caption = "Every run's " + spec.unit +
                 " as a dot; the bar is the median, the band its 95% confidence interval.";
  for (const std::string& name : names_under(results, spec.prefix)) {
    const std::vector<double> values = samples_of(results, name, spec.unit);
    if (values.empty()) continue;
    plot.rows.push_back(strip_row(name.substr(spec.prefix.size()), values, view.scale));
  }
  plot.x = {spec.y_label + " (" + spec.unit + ")", report::wants_log(report::all_samples(plot)),
            view.kind};
  return plot;
}

report::StripPlot ratio_claim_plot(const ClaimOutcome& claim, const ExperimentOutcome& outcome) {
  const Claim& c = *claim.claim;
  const report::UnitView view = report::unit_view(c.unit);
  report::StripPlot plot;
  plot.title = c.statement;
  std::string caption = "seed: " + seed_text(c);
  caption += "; Go here: " + here_cell(claim.go) + ", " + verdict_cell(claim.go);
  caption += "; C++: " + here_cell(claim.cpp) + ", " + verdict_cell(claim.cpp);
  plot.caption = caption;
  const std::string go_unit = c.go.unit.empty() ? c.unit : c.go.unit;
  for (const std::string* name : {&c.go.slower, &c.go.faster}) {
    if (name->empty() || (name == &c.go.faster && c.go.faster_is_c)) continue;
    const std::vector<double> values = samples_of(outcome.go_results, *name, go_unit);
    if (!values.empty() && go_unit == c.unit) {
      plot.rows.push_back(strip_row("Go here: " + *name, values, view.scale));
    }
  }
  for (const std::string* name : {&c.slower, &c.faster}) {
    const std::vector<double> values = samples_of(outcome.results, *name, c.unit);
    if (!values.empty()) plot.rows.push_back(strip_row("C++: " + *name, values, view.scale));
  }
  plot.x = {c.unit, report::wants_log(report::all_samples(plot)), view.kind};
  return plot;
}

std::string render_plot(const PlotSpec& spec, const std::vector<benchfmt::Result>& results,
                        const MachineInfo& machine) {
  if (spec.kind == PlotSpec::Kind::kSweep)
    return report::render_line_plot(sweep_plot(spec, results, machine));
  return report::render_strip_plot(strip_plot(spec, results));
}

}  // namespace zerolab::lab
