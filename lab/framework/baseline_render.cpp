// A baseline comparison as text and Markdown (lab/baseline.hpp).
#include <algorithm>
#include <cstdio>
#include <string>

#include "lab/framework/baseline.hpp"
#include "text/markdown.hpp"
#include "zerolab/stat_compare.hpp"

namespace zerolab::lab {

using internal::markdown_code;
using internal::markdown_text;

std::string baseline_text(const BaselineComparison& c) {
  std::string out = "\nbaseline " + c.name + " (" + c.path;
  if (!c.record.date.empty()) out += ", recorded " + c.record.date;
  out += ") vs " + std::string(kThisRunLabel) + ":\n";
  if (!c.not_run.empty()) {
    out += "not run this time:";
    for (const auto& id : c.not_run) out += " " + id;
    out += "\n";
  }
  for (const auto& p : c.parts) out += "\n" + p.experiment_id + ":\n" + p.text;
  if (c.parts.empty()) out += "no experiment to compare\n";
  return out;
}

std::string baseline_markdown(const BaselineComparison& c) {
  std::string out = "\n## Baseline " + markdown_text(c.name) + "\n\n";
  out += "This run (`" + std::string(kThisRunLabel) + "`) against baseline `" +
         markdown_code(c.name) + "` (`" + markdown_code(c.path) + "`)";
  if (!c.record.date.empty()) out += ", recorded " + markdown_text(c.record.date);
  if (!c.record.command.empty()) out += " by `" + markdown_code(c.record.command) + "`";
  if (c.record.runs > 0) {
    out += " (" + std::to_string(c.record.runs) + (c.record.runs == 1 ? " run" : " runs") +
           ", benchtime " + markdown_text(c.record.benchtime) + ")";
  }
  out += ". The tables are `zerolab compare " + markdown_code(c.name) + "=<baseline> " +
         kThisRunLabel + "=<this run>`'s, with the machine's config lines ignored.\n";
  if (!c.warnings.empty()) out += "\n";
  for (const auto& w : c.warnings) out += "> warning: " + markdown_text(w) + "\n";
  if (!c.not_run.empty()) {
    out += "\nNot run this time:";
    for (std::size_t i = 0; i < c.not_run.size(); ++i) {
      out += (i == 0 ? " `" : ", `") + markdown_code(c.not_run[i]) + "`";
    }
    out += ".\n";
  }
  for (const auto& p : c.parts)
    out += "\n### " + markdown_text(p.experiment_id) + "\n\n" + p.markdown;
  char pct[32];
  std::snprintf(pct, sizeof pct, "%g%%", c.gate_percent);
  const std::string threshold = c.gate ? std::string(" worse than ") + pct : "";
  out += "\n### Regressions\n\n";
  if (c.regression_count() == 0) {
    out += "No statistically significant regression" + threshold + ".\n";
    return out;
  }
  out += "Statistically significant regressions" + threshold +
         (c.gate ? " (--fail-on-regression: exit 3)" : "") + ":\n\n";
  for (const auto& p : c.parts) {
    for (const auto& r : p.regressions)
      out += "- " + markdown_text(regression_line(p.experiment_id, r)) + "\n";
  }
  return out;
}

std::string regression_line(const std::string& experiment_id, const stat::Regression& r) {
  return experiment_id + ": " + stat::format_regression(r);
}

}  // namespace zerolab::lab
