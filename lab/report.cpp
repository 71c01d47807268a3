// The lab's tables and report.md (report.hpp).
#include "lab/report.hpp"

#include <algorithm>
#include <map>

#include "lab/baseline.hpp"
#include "lab/judge.hpp"
#include "zerolab/stat.hpp"

namespace zerolab::lab {
namespace {

// Display width: UTF-8 continuation bytes take no column.
std::size_t columns(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string pad(const std::string& s, std::size_t width) {
  const std::size_t w = columns(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

std::string verdict_cell(const ClaimOutcome& c) {
  std::string text = verdict_text(c);
  if (!c.detail.empty() && c.verdict != Verdict::kError) text += " (" + c.detail + ")";
  return text;
}

// Escapes the characters that would break a Markdown table cell or be
// read as HTML.
std::string md_cell(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '<') {
      out += "&lt;";  // or a renderer takes "<char[]>" for an HTML tag
    } else if (ch == '>') {
      out += "&gt;";
    } else if (ch == '\n') {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::string seed_text(const Claim& c) { return c.seed_figure.empty() ? "—" : c.seed_figure; }

std::string here_cell(const ClaimOutcome& c) {
  if (c.verdict == Verdict::kError) return "error: " + c.detail;
  return c.here;
}

std::vector<std::string> benchmark_names(const ExperimentOutcome& outcome) {
  std::vector<std::string> names;
  for (const auto& r : outcome.results) {
    if (std::find(names.begin(), names.end(), r.name) == names.end()) names.push_back(r.name);
  }
  return names;
}

std::vector<std::string> result_units(const ExperimentOutcome& outcome) {
  std::vector<std::string> units;
  for (const auto& r : outcome.results) {
    for (const auto& m : r.metrics) {
      if (std::find(units.begin(), units.end(), m.unit) == units.end()) units.push_back(m.unit);
    }
  }
  return units;
}

std::string median_cell(const ExperimentOutcome& outcome, const std::string& name,
                        const std::string& unit) {
  const std::vector<double> values = samples_of(outcome.results, name, unit);
  if (values.empty()) return "";
  const stat::Summary s =
      stat::summarize(stat::make_sample(values), stat::Assumption::kNothing, 0.95);
  return format_value(s.center, unit) + " ± " + s.pct_range_string();
}

std::string verdict_text(const ClaimOutcome& claim) {
  std::string text(to_string(claim.verdict));
  if (claim.provisional) text += " (provisional)";
  return text;
}

std::string claims_table_text(const ExperimentOutcome& outcome) {
  const Experiment& e = *outcome.experiment;
  std::string out = e.id + ": " + e.title + "\n";
  out += "  seed " + e.seed_file + ", " + e.seed_section + "\n";
  if (!e.note.empty()) out += "  C++ vs Go: " + e.note + "\n";
  for (const auto& f : outcome.failures) out += "  FAILED " + f + "\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"claim", "seed", "here", "verdict"});
  for (const auto& c : outcome.claims) {
    rows.push_back({c.claim->statement, seed_text(*c.claim), here_cell(c), verdict_cell(c)});
  }
  std::size_t widths[4] = {0, 0, 0, 0};
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < 4; ++i) widths[i] = std::max(widths[i], columns(row[i]));
  }
  out += "\n";
  for (const auto& row : rows) {
    std::string line = "  ";
    for (std::size_t i = 0; i < 3; ++i) line += pad(row[i], widths[i]) + "  ";
    line += row[3];
    out += line + "\n";
  }
  return out;
}

std::string summary_line(const Tally& t) {
  std::string s = std::to_string(t.claims) + " claims: " + std::to_string(t.replicate) +
                  " replicate, " + std::to_string(t.contradict) + " contradict, " +
                  std::to_string(t.inconclusive) + " inconclusive; facts: " +
                  std::to_string(t.hold) + " hold, " + std::to_string(t.do_not_hold) +
                  " do not hold";
  if (t.errors > 0) s += "; " + std::to_string(t.errors) + (t.errors == 1 ? " error" : " errors");
  return s;
}

std::string report_markdown(const std::vector<ExperimentOutcome>& outcomes,
                            const MachineInfo& machine, const ReportContext& context) {
  std::string out = "# zerolab lab report\n\n";
  out += "Run " + context.started + ": `" + context.command + "`";
  out += " — " + std::to_string(context.count) + (context.count == 1 ? " run" : " runs") +
         " of each benchmark, benchtime " + context.benchtime + ".";
  if (context.provisional) {
    out += " **Provisional**: too few runs for the tests; verdicts follow the point estimates.";
  }
  out += "\n\n## Machine\n\n| key | value |\n|---|---|\n";
  for (const auto& [key, value] : machine.config) {
    out += "| " + md_cell(key) + " | " + md_cell(value) + " |\n";
  }
  for (const auto& w : machine.warnings) out += "\n> warning: " + md_cell(w) + "\n";
  for (const auto& n : machine.notes) out += "\nNote: " + md_cell(n) + "\n";
  out += "\n## Summary\n\n" + summary_line(tally(outcomes)) + "\n";
  for (const auto& o : outcomes) {
    const Experiment& e = *o.experiment;
    out += "\n## " + e.id + ": " + md_cell(e.title) + "\n\n";
    out += "Seed `" + e.seed_file + "`, " + md_cell(e.seed_section) + ".";
    if (!e.note.empty()) out += " C++ vs Go: " + md_cell(e.note);
    out += "\n\n";
    for (const auto& f : o.failures) out += "- **failed**: " + md_cell(f) + "\n";
    if (!o.failures.empty()) out += "\n";
    out += "| claim | seed | here | verdict |\n|---|---|---|---|\n";
    for (const auto& c : o.claims) {
      out += "| " + md_cell(c.claim->statement) + " | " + md_cell(seed_text(*c.claim)) + " | " +
             md_cell(here_cell(c)) + " | " + md_cell(verdict_cell(c)) + " |\n";
    }
    const std::vector<std::string> names = benchmark_names(o);
    if (names.empty()) continue;
    const std::vector<std::string> units = result_units(o);
    out += "\nMedians over " + std::to_string(context.count) +
           (context.count == 1 ? " run" : " runs") + " (± the 95% interval, as benchstat):\n\n";
    out += "| benchmark |";
    for (const auto& u : units) out += " " + md_cell(u) + " |";
    out += "\n|---|";
    for (std::size_t i = 0; i < units.size(); ++i) out += "---:|";
    out += "\n";
    for (const auto& name : names) {
      out += "| " + md_cell(name) + " |";
      for (const auto& u : units) out += " " + md_cell(median_cell(o, name, u)) + " |";
      out += "\n";
    }
  }
  if (context.baseline != nullptr) out += baseline_markdown(*context.baseline);
  return out;
}

}  // namespace zerolab::lab
