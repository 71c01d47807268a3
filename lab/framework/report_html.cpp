// report.html (report_html.hpp).
#include "lab/framework/report_html.hpp"

#include <cstdio>

#include "lab/framework/baseline.hpp"
#include "lab/framework/counts.hpp"
#include "lab/framework/plot_data.hpp"
#include "lab/framework/sources.hpp"
#include "report/html_page.hpp"
#include "report/svg_plot.hpp"

namespace zerolab::lab {
namespace {

using report::html_escape;

// "v-replicates", "v-does-not-hold": the CSS class of a verdict.
std::string verdict_class(Verdict v) {
  std::string cls = "v-";
  for (const char c : to_string(v)) cls += c == ' ' ? '-' : c;
  return cls;
}

std::string verdict_span(const SideOutcome& c) {
  return "<span class=\"verdict " + verdict_class(c.verdict) + "\">" +
         html_escape(verdict_text(c)) + "</span>" +
         (c.size == Size::kNone ? "" : "<br><small>" + html_escape(size_text(c)) + "</small>");
}

std::string count_span(int n, const char* what, Verdict v) {
  return "<span class=\"verdict " + verdict_class(v) + "\">" + std::to_string(n) + " " + what +
         "</span>";
}

// "Go here: 3 replicate 0 contradict ..." as one summary line.
std::string side_summary_html(const char* side, const SideTally& t) {
  std::string out = "<p class=\"summary\"><b>" + std::string(side) + ":</b> ";
  out += count_span(t.replicate, "replicate", Verdict::kReplicates);
  out += count_span(t.contradict, "contradict", Verdict::kContradicts);
  out += count_span(t.inconclusive, "inconclusive", Verdict::kInconclusive);
  out += "<b>facts:</b> " + count_span(t.hold, "hold", Verdict::kHolds);
  out += count_span(t.do_not_hold, "do not hold", Verdict::kDoesNotHold);
  if (t.not_comparable > 0)
    out += count_span(t.not_comparable, "not comparable", Verdict::kNotComparable);
  if (t.not_run > 0) out += count_span(t.not_run, "not run", Verdict::kNotRun);
  if (t.errors > 0)
    out += count_span(t.errors, t.errors == 1 ? "error" : "errors", Verdict::kError);
  if (t.larger + t.as_seed + t.smaller + t.size_unclear > 0) {
    out += "<b>size against the seed's figure:</b> " + std::to_string(t.larger) + " larger, " +
           std::to_string(t.as_seed) + " as the seed, " + std::to_string(t.smaller) + " smaller, " +
           std::to_string(t.size_unclear) + " unclear";
  }
  return out + "</p>\n";
}

std::string header(const std::vector<ExperimentOutcome>& outcomes, const MachineInfo& machine,
                   const ReportContext& context) {
  std::string out =
      "<h1>zerolab lab report</h1>\n<p class=\"sub\">Run " + html_escape(context.started) +
      ": <code>" + html_escape(context.command) + "</code> — " + std::to_string(context.count) +
      (context.count == 1 ? " run" : " runs") + " of each benchmark, interleaved; benchtime " +
      html_escape(context.benchtime) + ".";
  if (context.provisional) {
    out +=
        " <b>Provisional</b>: too few runs for the statistical tests; verdicts follow the point "
        "estimates.";
  }
  out += "</p>\n";

  const Tally t = tally(outcomes);
  out += "<p class=\"summary\"><b>" + std::to_string(t.cpp.claims) + " seed claims.</b></p>\n";
  out += side_summary_html("Go here", t.go) + side_summary_html("C++", t.cpp);
  if (t.project_cpp.claims > 0) {
    out += "<p class=\"summary\"><b>" + std::to_string(t.project_cpp.claims) +
           " project claims</b> (the project's own, counted apart).</p>\n";
    out += side_summary_html("Go here", t.project_go) + side_summary_html("C++", t.project_cpp);
  }

  out += "<h3>Machine</h3>\n<table>\n";
  for (const auto& [key, value] : machine.config) {
    out += "<tr><th>" + html_escape(key) + "</th><td>" + html_escape(value) + "</td></tr>\n";
  }
  out += "</table>\n";
  for (const auto& w : machine.warnings)
    out += "<p class=\"warning\">warning: " + html_escape(w) + "</p>\n";
  for (const auto& n : machine.notes) out += "<p class=\"sub\">note: " + html_escape(n) + "</p>\n";

  // The write-ups by title, author and where they were published; the
  // file name is only the key the experiments cite them by.
  out +=
      "<h3>Sources</h3>\n<table>\n<tr><th>key</th><th>title</th><th>author</th><th>where</th></"
      "tr>\n";
  for (const Source& src : sources()) {
    out += "<tr><td><code>" + html_escape(src.file) + "</code></td><td>" + html_escape(src.title) +
           "</td><td>" + html_escape(src.author.empty() ? "not named in the text" : src.author) +
           "</td><td>" + html_escape(src.where) + "</td></tr>\n";
  }
  out += "</table>\n";

  out += "<nav><h3>Experiments</h3><ul>\n";
  for (const auto& o : outcomes) {
    const Experiment& e = *o.experiment;
    int replicate_go = 0;
    int replicate_cpp = 0;
    int total = 0;
    for (const auto& c : o.claims) {
      if (c.claim->kind == ClaimKind::kFact) continue;
      ++total;
      replicate_go += c.go.verdict == Verdict::kReplicates ? 1 : 0;
      replicate_cpp += c.cpp.verdict == Verdict::kReplicates ? 1 : 0;
    }
    out += "<li><a href=\"#" + html_escape(e.id) + "\">" + html_escape(e.id) + "</a> — of " +
           std::to_string(total) + " measured claims, " + std::to_string(replicate_go) +
           " replicate in Go here, " + std::to_string(replicate_cpp) + " in C++" +
           (o.failures.empty() ? "" : ", <b>" + std::to_string(o.failures.size()) + " failed</b>") +
           "</li>\n";
  }
  out += "</ul></nav>\n";
  return out;
}

std::string claims_table(const ExperimentOutcome& o) {
  if (o.claims.empty()) return "<p class=\"sub\">No claims: this experiment only measures.</p>\n";
  std::string out = "<table class=\"claims\">\n<tr>";
  for (const auto& column : claim_columns()) out += "<th>" + html_escape(column) + "</th>";
  out += "</tr>\n";
  for (const auto& c : o.claims) {
    out += "<tr><td>" + html_escape(claim_text(*c.claim));
    if (!c.claim->seed_section.empty())
      out += "<br><small>§ " + html_escape(c.claim->seed_section) + "</small>";
    out += "</td><td>" + html_escape(seed_text(*c.claim)) + "</td><td>" +
           html_escape(here_cell(c.go)) + "</td><td>" + html_escape(here_cell(c.cpp)) + "</td>";
    for (const SideOutcome* side : {&c.go, &c.cpp}) {
      out += "<td>" + verdict_span(*side);
      if (!side->detail.empty() && side->verdict != Verdict::kError) {
        out += "<br><small>" + html_escape(side->detail) + "</small>";
      }
      out += "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// Every benchmark's median per unit, with benchstat's ± interval.
std::string medians_table(const ExperimentOutcome& o) {
  const std::vector<std::string> names = benchmark_names(o);
  if (names.empty()) return "";
  const std::vector<std::string> units = result_units(o);
  std::string out = "<details><summary>Medians of every benchmark (" +
                    std::to_string(names.size()) + ")</summary>\n<table>\n<tr><th>benchmark</th>";
  const bool paired = !o.go_results.empty() && !go_pairs(o).empty();
  for (const auto& u : units) out += "<th>" + html_escape(u) + "</th>";
  if (paired) out += "<th>C++ / Go here (ns/op)</th>";
  out += "</tr>\n";
  for (const auto& name : names) {
    out += "<tr><td><code>" + html_escape(name) + "</code></td>";
    for (const auto& u : units)
      out += "<td class=\"num\">" + html_escape(median_cell(o, name, u)) + "</td>";
    if (paired) out += "<td class=\"num\">" + html_escape(cpp_over_go_cell(o, name)) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n</details>\n";
}

std::string experiment_section(const ExperimentOutcome& o, const MachineInfo& machine) {
  const Experiment& e = *o.experiment;
  std::string out = "<section id=\"" + html_escape(e.id) + "\">\n<h2>" + html_escape(e.id) + ": " +
                    html_escape(e.title) + "</h2>\n";
  out += "<p class=\"sub\">Source: " + html_escape(source_name(e.seed_file)) + " (key <code>" +
         html_escape(e.seed_file) + "</code>), " + html_escape(e.seed_section) + ".</p>\n";
  if (!e.differences.empty()) {
    out += "<p>Differences from the seed (C++):</p>\n<ul>\n";
    for (const auto& d : e.differences) out += "<li>" + html_escape(d) + "</li>\n";
    out += "</ul>\n";
  }
  if (!e.go_peer.empty())
    out += "<p>Go peer: <code>peers/go/" + html_escape(e.go_peer) + "</code>.</p>\n";
  if (!e.go_differences.empty()) {
    out += "<p>Go here (Go 1.19) against the seed's code:</p>\n<ul>\n";
    for (const auto& d : e.go_differences) out += "<li>" + html_escape(d) + "</li>\n";
    out += "</ul>\n";
  }
  if (!o.go_not_run.empty())
    out += "<p class=\"warning\">Go peer not run: " + html_escape(o.go_not_run) + "</p>\n";
  for (const auto& f : o.failures)
    out += "<p class=\"failure\">failed: " + html_escape(f.text()) + "</p>\n";
  for (const auto& f : o.go_failures)
    out += "<p class=\"failure\">failed (Go here): " + html_escape(f.text()) + "</p>\n";
  out += claims_table(o);
  if (const std::vector<std::string> lines = counts_lines(o); !lines.empty()) {
    out +=
        "<h3>Counts per op under callgrind</h3>\n<p class=\"sub\">--measure=instructions: "
        "beside the time verdicts above, which they do not replace.</p>\n<ul class=\"counts\">\n";
    for (const auto& line : lines) out += "<li>" + html_escape(line) + "</li>\n";
    out += "</ul>\n";
  }
  for (const PlotSpec& spec : e.plots) out += render_plot(spec, o.results, machine);
  bool any_ratio = false;
  for (const auto& c : o.claims) {
    const ClaimKind kind = c.claim->kind;
    if (kind == ClaimKind::kBound || kind == ClaimKind::kFact) continue;
    if (!any_ratio)
      out += "<h3>Ratio claims: the samples behind each verdict (Go here beside C++)</h3>\n";
    any_ratio = true;
    out += report::render_strip_plot(ratio_claim_plot(c, o));
  }
  out += medians_table(o);
  return out + "</section>\n";
}

// The comparison with --baseline: what was compared, warnings, the
// regressions, then per experiment the tables and their plots.
std::string baseline_section(const BaselineComparison& c) {
  std::string out = "<section id=\"baseline\">\n<h2>Baseline " + html_escape(c.name) + "</h2>\n";
  out += "<p class=\"sub\">This run (<code>" + std::string(kThisRunLabel) +
         "</code>) against baseline <code>" + html_escape(c.name) + "</code> (<code>" +
         html_escape(c.path) + "</code>)";
  if (!c.record.date.empty()) out += ", recorded " + html_escape(c.record.date);
  if (!c.record.command.empty()) out += " by <code>" + html_escape(c.record.command) + "</code>";
  out += ". The machine's config lines are ignored when grouping.</p>\n";
  for (const auto& w : c.warnings)
    out += "<p class=\"warning\">warning: " + html_escape(w) + "</p>\n";
  if (!c.not_run.empty()) {
    std::string ids;
    for (const auto& id : c.not_run) ids += (ids.empty() ? "" : ", ") + id;
    out += "<p>Not run this time: " + html_escape(ids) + ".</p>\n";
  }
  char pct[32];
  std::snprintf(pct, sizeof pct, "%g%%", c.gate_percent);
  const std::string threshold = c.gate ? std::string(" worse than ") + pct : "";
  if (c.regression_count() == 0) {
    out += "<p class=\"verdict v-replicates\">No statistically significant regression" +
           html_escape(threshold) + ".</p>\n";
  } else {
    out += "<p class=\"failure\"><b>Statistically significant regressions" +
           html_escape(threshold) + (c.gate ? " (--fail-on-regression: exit 3)" : "") +
           ":</b></p>\n<ul>\n";
    for (const auto& p : c.parts) {
      for (const auto& r : p.regressions)
        out += "<li>" + html_escape(regression_line(p.experiment_id, r)) + "</li>\n";
    }
    out += "</ul>\n";
  }
  for (const auto& p : c.parts) {
    out += "<h3>" + html_escape(p.experiment_id) + ": " + html_escape(c.name) + " vs " +
           kThisRunLabel + "</h3>\n" + p.html;
  }
  return out + "</section>\n";
}

}  // namespace

std::string report_html(const std::vector<ExperimentOutcome>& outcomes, const MachineInfo& machine,
                        const ReportContext& context) {
  std::string out = report::html_page_open("zerolab lab report — " + context.started);
  out += header(outcomes, machine, context);
  if (context.baseline != nullptr) {
    out += "<p><a href=\"#baseline\">Comparison with baseline " +
           html_escape(context.baseline->name) +
           "</a>: " + std::to_string(context.baseline->regression_count()) +
           " significant regressions.</p>\n";
  }
  if (outcomes.empty()) out += "<p>No experiments were run.</p>\n";
  for (const auto& o : outcomes) out += experiment_section(o, machine);
  if (context.baseline != nullptr) out += baseline_section(*context.baseline);
  out +=
      "<footer>Written by zerolab lab. Raw results in the Go benchmark format sit beside this file "
      "(one &lt;experiment&gt;.txt each); <code>zerolab compare</code> reads them.</footer>\n";
  out += report::html_page_close();
  return out;
}

}  // namespace zerolab::lab
