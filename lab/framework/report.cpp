// The lab's tables and report.md (report.hpp).
#include "lab/framework/report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "lab/framework/baseline.hpp"
#include "lab/framework/counts.hpp"
#include "lab/framework/judge.hpp"
#include "lab/framework/sources.hpp"
#include "lab/framework/verdict.hpp"
#include "text/markdown.hpp"
#include "zerolab/stat.hpp"

namespace zerolab::lab {

using internal::markdown_text;

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

}  // namespace

std::string size_text(const SideOutcome& c) {
  if (c.size == Size::kNone) return "";
  char seed[32];
  std::snprintf(seed, sizeof seed, "%.2fx", c.seed_ratio);
  const std::string s(to_string(c.size));
  return c.size == Size::kAsSeed    ? "size as the seed's " + std::string(seed)
         : c.size == Size::kUnclear ? "size unclear against the seed's " + std::string(seed)
                                    : "size " + s + " than the seed's " + seed;
}

std::string verdict_cell(const SideOutcome& c) {
  std::string text = verdict_text(c);
  if (const std::string size = size_text(c); !size.empty()) text += "; " + size;
  if (!c.detail.empty() && c.verdict != Verdict::kError) text += " (" + c.detail + ")";
  return text;
}

std::string seed_text(const Claim& c) {
  return c.seed_figure.empty() ? "—" : c.seed_figure;
}

std::string here_cell(const SideOutcome& c) {
  if (c.verdict == Verdict::kError) return "error: " + c.detail;
  if (c.here.empty()) return "—";
  return c.here;
}

std::string claim_text(const Claim& c) {
  return c.origin == ClaimOrigin::kProject ? "[project's own] " + c.statement : c.statement;
}

std::vector<std::string> claim_row(const ClaimOutcome& c) {
  return {claim_text(*c.claim), seed_text(*c.claim), here_cell(c.go),
          here_cell(c.cpp),     verdict_cell(c.go),  verdict_cell(c.cpp)};
}

const std::vector<std::string>& claim_columns() {
  static const std::vector<std::string> columns = {
      "claim", "seed", "Go here", "C++ here", "verdict (Go here)", "verdict (C++)"};
  return columns;
}

std::vector<std::string> benchmark_names(const ExperimentOutcome& outcome) {
  std::vector<std::string> names;
  for (const auto& r : outcome.results) {
    if (std::find(names.begin(), names.end(), r.name) == names.end()) names.push_back(r.name);
  }
  return names;
}

// The units of the medians table: every unit reported, except Go's
// truncated allocs/op and B/op where their exact counts (kAllocsPerOp,
// kBytesPerOp) are there too.
std::vector<std::string> result_units(const ExperimentOutcome& outcome) {
  std::vector<std::string> units;
  for (const auto& r : outcome.results) {
    for (const auto& m : r.metrics) {
      if (std::find(units.begin(), units.end(), m.unit) == units.end()) units.push_back(m.unit);
    }
  }
  const auto has = [&](const char* unit) {
    return std::find(units.begin(), units.end(), unit) != units.end();
  };
  const bool exact_allocs = has(kAllocsPerOp);
  const bool exact_bytes = has(kBytesPerOp);
  units.erase(std::remove_if(units.begin(), units.end(),
                             [&](const std::string& u) {
                               return (exact_allocs && u == "allocs/op") ||
                                      (exact_bytes && u == "B/op");
                             }),
              units.end());
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

std::vector<std::pair<std::string, std::string>> go_pairs(const ExperimentOutcome& outcome) {
  std::vector<std::pair<std::string, std::string>> pairs;
  auto add = [&](const std::string& cpp, const std::string& go) {
    if (cpp.empty() || go.empty()) return;
    for (const auto& p : pairs) {
      if (p.first == cpp) return;  // the first pairing of a C++ benchmark wins
    }
    pairs.emplace_back(cpp, go);
  };
  for (const auto& p : outcome.experiment->go_pairs) add(p.first, p.second);
  for (const Claim& c : outcome.experiment->claims) {
    add(c.slower, c.go.slower);
    if (!c.go.faster_is_c) add(c.faster, c.go.faster);
    add(c.benchmark, c.go.benchmark);
  }
  return pairs;
}

std::string cpp_over_go_cell(const ExperimentOutcome& outcome, const std::string& cpp_name) {
  for (const auto& [cpp, go] : go_pairs(outcome)) {
    if (cpp != cpp_name) continue;
    const std::vector<double> c = samples_of(outcome.results, cpp, "ns/op");
    const std::vector<double> g = samples_of(outcome.go_results, go, "ns/op");
    if (c.empty() || g.empty()) return "";
    for (const double x : c) {
      if (!(x > 0)) return "";
    }
    for (const double x : g) {
      if (!(x > 0)) return "";
    }
    const RatioVerdict v = judge_ratio(c, g, 1.0, 0.05);
    char text[96];
    if (v.provisional) {
      std::snprintf(text, sizeof text, "%.2fx", v.ratio);
    } else {
      std::snprintf(text, sizeof text, "%.2fx [%.2f, %.2f]", v.ratio, v.lo, v.hi);
    }
    return std::string(text) + " (" + go + ")";
  }
  return "";
}

std::string verdict_text(const SideOutcome& claim) {
  std::string text(to_string(claim.verdict));
  if (claim.provisional) text += " (provisional)";
  return text;
}

std::string differences_text(const Experiment& e, const std::string& indent) {
  std::string out;
  if (!e.differences.empty()) out += indent + "differences from the seed (C++):\n";
  for (const auto& d : e.differences) out += indent + "  - " + d + "\n";
  if (!e.go_differences.empty()) out += indent + "Go here (Go 1.19) against the seed's code:\n";
  for (const auto& d : e.go_differences) out += indent + "  - " + d + "\n";
  return out;
}

std::string claims_table_text(const ExperimentOutcome& outcome) {
  const Experiment& e = *outcome.experiment;
  std::string out = e.id + ": " + e.title + "\n";
  out += "  source: " + source_name(e.seed_file) + ", " + e.seed_section + "\n";
  out += differences_text(e, "  ");
  for (const auto& f : outcome.failures) out += "  FAILED " + f.text() + "\n";
  if (!outcome.go_not_run.empty()) out += "  Go peer not run: " + outcome.go_not_run + "\n";
  for (const auto& f : outcome.go_failures) out += "  FAILED (Go here) " + f.text() + "\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back(claim_columns());
  for (const auto& c : outcome.claims) rows.push_back(claim_row(c));
  const std::size_t n = claim_columns().size();
  std::vector<std::size_t> widths(n, 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < n; ++i) widths[i] = std::max(widths[i], columns(row[i]));
  }
  out += "\n";
  for (const auto& row : rows) {
    std::string line = "  ";
    for (std::size_t i = 0; i + 1 < n; ++i) line += pad(row[i], widths[i]) + "  ";
    line += row[n - 1];
    out += line + "\n";
  }
  return out;
}

std::string side_summary(const SideTally& t) {
  std::string s = std::to_string(t.replicate) + " replicate, " + std::to_string(t.contradict) +
                  " contradict, " + std::to_string(t.inconclusive) +
                  " inconclusive; facts: " + std::to_string(t.hold) + " hold, " +
                  std::to_string(t.do_not_hold) + " do not hold";
  if (t.not_comparable > 0) s += "; " + std::to_string(t.not_comparable) + " not comparable";
  if (t.not_run > 0) s += "; " + std::to_string(t.not_run) + " not run";
  if (t.errors > 0) s += "; " + std::to_string(t.errors) + (t.errors == 1 ? " error" : " errors");
  if (t.larger + t.as_seed + t.smaller + t.size_unclear > 0) {
    s += "; size against the seed's figure: " + std::to_string(t.larger) + " larger, " +
         std::to_string(t.as_seed) + " as the seed, " + std::to_string(t.smaller) + " smaller, " +
         std::to_string(t.size_unclear) + " unclear";
  }
  return s;
}

std::string summary_line(const Tally& t) {
  std::string s = std::to_string(t.cpp.claims) + " seed claims — Go here: " + side_summary(t.go) +
                  " — C++: " + side_summary(t.cpp);
  if (t.project_cpp.claims > 0) {
    s += "\n" + std::to_string(t.project_cpp.claims) +
         " project claims (counted apart) — Go here: " + side_summary(t.project_go) +
         " — C++: " + side_summary(t.project_cpp);
  }
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
    out += "| " + markdown_text(key) + " | " + markdown_text(value) + " |\n";
  }
  for (const auto& w : machine.warnings) out += "\n> warning: " + markdown_text(w) + "\n";
  for (const auto& n : machine.notes) out += "\nNote: " + markdown_text(n) + "\n";
  out += "\n## Summary\n\n" + summary_line(tally(outcomes)) + "\n";
  out += "\n## Sources\n\n| key | title | author | where |\n|---|---|---|---|\n";
  for (const Source& src : sources()) {
    out += "| `" + src.file + "` | " + markdown_text(src.title) + " | " +
           markdown_text(src.author.empty() ? "not named in the text" : src.author) + " | " +
           markdown_text(src.where) + " |\n";
  }
  for (const auto& o : outcomes) {
    const Experiment& e = *o.experiment;
    out += "\n## " + e.id + ": " + markdown_text(e.title) + "\n\n";
    out += "Source: " + markdown_text(source_name(e.seed_file)) + ", " +
           markdown_text(e.seed_section) + " (key `" + e.seed_file + "`).";
    if (!e.go_peer.empty()) out += " Go peer: `peers/go/" + e.go_peer + "`.";
    if (!o.go_not_run.empty()) out += " Go peer not run: " + markdown_text(o.go_not_run) + ".";
    out += "\n\n";
    if (!e.differences.empty()) out += "Differences from the seed (C++):\n\n";
    for (const auto& d : e.differences) out += "- " + markdown_text(d) + "\n";
    if (!e.differences.empty()) out += "\n";
    if (!e.go_differences.empty()) out += "Go here (Go 1.19) against the seed's code:\n\n";
    for (const auto& d : e.go_differences) out += "- " + markdown_text(d) + "\n";
    if (!e.go_differences.empty()) out += "\n";
    for (const auto& f : o.failures) out += "- **failed**: " + markdown_text(f.text()) + "\n";
    for (const auto& f : o.go_failures)
      out += "- **failed (Go here)**: " + markdown_text(f.text()) + "\n";
    if (!o.failures.empty() || !o.go_failures.empty()) out += "\n";
    out += "|";
    for (const auto& column : claim_columns()) out += " " + column + " |";
    out += "\n|";
    for (std::size_t i = 0; i < claim_columns().size(); ++i) out += "---|";
    out += "\n";
    for (const auto& c : o.claims) {
      std::vector<std::string> row = claim_row(c);
      if (!c.claim->seed_section.empty()) row[0] += " (§ " + c.claim->seed_section + ")";
      out += "|";
      for (const auto& cell : row) out += " " + markdown_text(cell) + " |";
      out += "\n";
    }
    if (const std::vector<std::string> lines = counts_lines(o); !lines.empty()) {
      out +=
          "\nCounts per op under callgrind (--measure=instructions), beside the time verdicts "
          "above, which they do not replace:\n\n";
      for (const auto& line : lines) out += "- " + markdown_text(line) + "\n";
    }
    const std::vector<std::string> names = benchmark_names(o);
    if (names.empty()) continue;
    const std::vector<std::string> units = result_units(o);
    out += "\nMedians over " + std::to_string(context.count) +
           (context.count == 1 ? " run" : " runs") + " (± the 95% interval, as benchstat):\n\n";
    const bool paired = !o.go_results.empty() && !go_pairs(o).empty();
    out += "| benchmark |";
    for (const auto& u : units) out += " " + markdown_text(u) + " |";
    if (paired) out += " C++ / Go here (ns/op) |";
    out += "\n|---|";
    for (std::size_t i = 0; i < units.size(); ++i) out += "---:|";
    if (paired) out += "---:|";
    out += "\n";
    for (const auto& name : names) {
      out += "| " + markdown_text(name) + " |";
      for (const auto& u : units) out += " " + markdown_text(median_cell(o, name, u)) + " |";
      if (paired) out += " " + markdown_text(cpp_over_go_cell(o, name)) + " |";
      out += "\n";
    }
    if (!o.go_results.empty()) {
      ExperimentOutcome go_side;
      go_side.experiment = o.experiment;
      go_side.results = o.go_results;
      const std::vector<std::string> go_units = result_units(go_side);
      out += "\nGo here (`peers/go/" + o.experiment->go_peer + "`), medians:\n\n| benchmark |";
      for (const auto& u : go_units) out += " " + markdown_text(u) + " |";
      out += "\n|---|";
      for (std::size_t i = 0; i < go_units.size(); ++i) out += "---:|";
      out += "\n";
      for (const auto& name : benchmark_names(go_side)) {
        out += "| " + markdown_text(name) + " |";
        for (const auto& u : go_units)
          out += " " + markdown_text(median_cell(go_side, name, u)) + " |";
        out += "\n";
      }
    }
  }
  if (context.baseline != nullptr) out += baseline_markdown(*context.baseline);
  return out;
}

}  // namespace zerolab::lab
