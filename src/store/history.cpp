// store/history.cpp — see history.hpp.
#include "store/history.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <tuple>

#include "format/go_text.hpp"
#include "store/store_args.hpp"
#include "text/markdown.hpp"

namespace zerolab::store {
namespace {

std::string short_id(const std::string& id) {
  return id.substr(0, 8);
}

// Stored text in a Markdown table cell: escaped for the terminal, then
// for Markdown; '*', '_' and '`' too, so a name cannot turn a cell bold or
// into code.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (const char c : internal::markdown_text(terminal_text(text))) {
    if (c == '*' || c == '_' || c == '`' || c == '[' || c == ']') out += '\\';
    out += c;
  }
  return out;
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  return stat::format_go_float(v);
}

std::string scaled(double v, const std::string& unit) {
  return stat::scale_value(v, stat::unit_class_of(unit));
}

// An exact unit (assume=exact: instruction counts, say) has no noise to
// wait out: a change is the first point whose value differs from the last
// change's (or the first point's) by more than the threshold, so a gate
// fires on the first run that crosses it, and small steps that add up to
// more than the threshold are caught where they cross it.
void find_exact_changes(Series& s, const HistoryOptions& opt, bool higher_better) {
  if (s.points.empty()) return;
  std::size_t base = 0;
  for (std::size_t i = 1; i < s.points.size(); ++i) {
    const double old_center = s.points[base].center;
    const double new_center = s.points[i].center;
    if (old_center == new_center) continue;
    ChangePoint c;
    c.old_center = old_center;
    c.new_center = new_center;
    c.percent = old_center == 0 ? (new_center > 0 ? INFINITY : -INFINITY)
                                : (new_center / old_center - 1) * 100;
    if (!(std::fabs(c.percent) > opt.threshold)) continue;
    c.comparison =
        stat::compare(stat::make_sample(s.points[base].samples),
                      stat::make_sample(s.points[i].samples), stat::Assumption::kExact, opt.alpha);
    c.point = i;
    c.worse = higher_better ? c.percent < 0 : c.percent > 0;
    s.changes.push_back(c);
    base = i;
  }
}

void find_changes(Series& s, const HistoryOptions& opt, const stat::UnitMetadataMap& units) {
  const stat::Assumption assumption = units.assumption(s.unit);
  const bool higher_better = units.better(s.unit) > 0;
  for (HistoryPoint& p : s.points) {
    p.center = stat::summarize(stat::make_sample(p.samples), assumption, opt.confidence).center;
  }
  const std::size_t n = s.points.size();
  if (assumption == stat::Assumption::kExact) {
    find_exact_changes(s, opt, higher_better);
    return;
  }
  const std::size_t w = static_cast<std::size_t>(opt.window < 1 ? 1 : opt.window);
  std::vector<ChangePoint> candidates;
  for (std::size_t i = 1; i < n; ++i) {
    std::vector<double> before, after;
    for (std::size_t j = i >= w ? i - w : 0; j < i; ++j) {
      before.insert(before.end(), s.points[j].samples.begin(), s.points[j].samples.end());
    }
    for (std::size_t j = i; j < n && j < i + w; ++j) {
      after.insert(after.end(), s.points[j].samples.begin(), s.points[j].samples.end());
    }
    const stat::Sample a = stat::make_sample(std::move(before));
    const stat::Sample b = stat::make_sample(std::move(after));
    ChangePoint c;
    c.comparison = stat::compare(a, b, assumption, opt.alpha);
    if (!c.comparison.significant()) continue;
    c.old_center = stat::summarize(a, assumption, opt.confidence).center;
    c.new_center = stat::summarize(b, assumption, opt.confidence).center;
    if (c.old_center == c.new_center) continue;
    c.percent = c.old_center == 0 ? (c.new_center > 0 ? INFINITY : -INFINITY)
                                  : (c.new_center / c.old_center - 1) * 100;
    if (!(std::fabs(c.percent) > opt.threshold)) continue;
    c.point = i;
    c.worse = higher_better ? c.percent < 0 : c.percent > 0;
    candidates.push_back(c);
  }
  // Of each stretch of consecutive candidates in one direction, keep the
  // largest change: where the windows straddle the change exactly.
  for (std::size_t i = 0; i < candidates.size();) {
    std::size_t best = i;
    std::size_t j = i + 1;
    while (j < candidates.size() && candidates[j].point == candidates[j - 1].point + 1 &&
           (candidates[j].percent > 0) == (candidates[i].percent > 0)) {
      if (std::fabs(candidates[j].percent) > std::fabs(candidates[best].percent)) best = j;
      ++j;
    }
    s.changes.push_back(candidates[best]);
    i = j;
  }
}

}  // namespace

std::string percent_text(double pct) {
  if (std::isinf(pct)) return pct > 0 ? "+Inf%" : "-Inf%";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%+.2f%%", pct);
  return buf;
}

// Names, units, machines and commits come from stored text: shown with
// their control and format characters escaped (terminal_text).
std::string series_title(const Series& s, bool with_machine) {
  std::string t = terminal_text(s.benchmark) + " " + terminal_text(s.unit);
  if (with_machine) t += " on " + terminal_text(s.machine);
  return t;
}

std::string json_string(std::string_view s) {
  // Valid JSON whatever the store holds: control characters (C0, DEL, C1)
  // and the line separators JavaScript chokes on as \u escapes, a byte
  // that is not UTF-8 as U+FFFD.
  std::string out = "\"";
  while (!s.empty()) {
    const auto [rune, width] = internal::decode_rune(s);
    const std::string_view bytes = s.substr(0, width);
    s.remove_prefix(width);
    switch (rune) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\r':
        out += "\\r";
        continue;
      default:
        break;
    }
    if (rune == internal::kRuneError && width == 1) {
      out += "\\ufffd";
    } else if (rune < 0x20 || (rune >= 0x7f && rune <= 0x9f) || rune == 0x2028 || rune == 0x2029) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(rune));
      out += buf;
    } else {
      out.append(bytes);
    }
  }
  return out + "\"";
}

History build_history(const std::vector<Run>& runs, const stat::Filter& filter,
                      const HistoryOptions& options) {
  History h;
  h.options = options;
  stat::UnitMetadataMap units;
  for (const Run& run : runs) {
    for (const UnitNote& u : run.units) {
      stat::UnitMetadata m;
      m.unit = stat::tidy_unit(u.unit).unit;
      m.orig_unit = u.unit;
      m.key = u.key;
      m.value = u.value;
      bool inserted = false;
      units.insert(m, &inserted);
    }
  }
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> series_index;
  std::vector<std::map<std::string, std::size_t>> point_index;  // per series: point key → index
  std::string first_machine;
  stat::BenchRecord rec;
  for (const Run& run : runs) {
    const std::string commit = run.label("commit");
    if (options.by_commit && commit.empty()) continue;
    ++h.runs;
    if (first_machine.empty()) first_machine = run.machine;
    if (run.machine != first_machine) h.several_machines = true;
    const std::string point_key = options.by_commit ? commit : run.id;
    std::vector<std::shared_ptr<const stat::ConfigList>> configs;
    for (const auto& block : run.configs) {
      auto list = std::make_shared<stat::ConfigList>();
      for (const KeyValue& kv : block)
        list->push_back(stat::ConfigEntry{kv.first, kv.second, true});
      configs.push_back(std::move(list));
    }
    auto empty = std::make_shared<const stat::ConfigList>();
    for (const StoredResult& r : run.results) {
      rec.result.name = r.name;
      rec.result.iterations = r.iterations;
      rec.result.metrics.clear();
      rec.original.clear();
      for (const benchfmt::Metric& m : r.values) {
        const stat::TidyUnit t = stat::tidy_unit(m.unit);
        rec.result.metrics.push_back(benchfmt::Metric{m.value * t.factor, t.unit});
      }
      rec.config = static_cast<std::size_t>(r.block) < configs.size()
                       ? configs[static_cast<std::size_t>(r.block)]
                       : empty;
      rec.file = run.source;
      if (!filter.apply(rec)) continue;
      const std::string bench(rec.full_name());
      for (const benchfmt::Metric& m : rec.result.metrics) {
        auto [it, added] = series_index.try_emplace({run.machine, bench, m.unit}, h.series.size());
        if (added) {
          h.series.push_back(Series{run.machine, bench, m.unit, {}, {}});
          point_index.emplace_back();
        }
        Series& s = h.series[it->second];
        auto [pit, new_point] = point_index[it->second].try_emplace(point_key, s.points.size());
        if (new_point) s.points.push_back(HistoryPoint{run.id, run.unix_ms, commit, {}, 0});
        s.points[pit->second].samples.push_back(m.value);
      }
    }
  }
  // Sorted by machine, benchmark, unit.
  std::vector<Series> sorted;
  sorted.reserve(h.series.size());
  for (const auto& [key, index] : series_index) sorted.push_back(std::move(h.series[index]));
  h.series = std::move(sorted);
  for (Series& s : h.series) find_changes(s, options, units);
  return h;
}

std::vector<HistoryRegression> history_regressions(const History& history, double max_percent) {
  std::vector<HistoryRegression> out;
  for (const Series& s : history.series) {
    for (const ChangePoint& c : s.changes) {
      if (c.worse && std::fabs(c.percent) > max_percent) out.push_back({&s, &c});
    }
  }
  return out;
}

std::string describe_change(const Series& s, const ChangePoint& c, bool with_machine) {
  const HistoryPoint& p = s.points[c.point];
  std::string line = series_title(s, with_machine) + ": " + percent_text(c.percent) + " at run " +
                     short_id(p.run_id) + " (" + format_time_ms(p.unix_ms);
  if (!p.commit.empty()) line += ", commit=" + terminal_text(p.commit);
  line += "): " + scaled(c.old_center, s.unit) + " -> " + scaled(c.new_center, s.unit) + " (" +
          c.comparison.to_string() + ")";
  if (c.worse) line += " worse";
  return line;
}

std::string render_history_text(const History& h) {
  std::string out = "history of " + std::to_string(h.series.size()) + " series over " +
                    std::to_string(h.runs) + (h.options.by_commit ? " runs by commit" : " runs") +
                    " (window " + std::to_string(h.options.window) + ", changes over " +
                    stat::format_go_float(h.options.threshold) + "% at alpha " +
                    stat::format_go_float(h.options.alpha) + ")\n";
  std::size_t changes = 0;
  for (const Series& s : h.series) {
    const HistoryPoint& last = s.points.back();
    out += series_title(s, h.several_machines) + ": " + std::to_string(s.points.size()) +
           " points, latest " + scaled(last.center, s.unit) +
           (s.changes.empty() ? ", no change\n" : "\n");
    for (const ChangePoint& c : s.changes) {
      out += "  change " + describe_change(s, c, false).substr(series_title(s, false).size() + 2) +
             "\n";
      ++changes;
    }
  }
  out += std::to_string(changes) + " change point" + (changes == 1 ? "" : "s") + "\n";
  return out;
}

std::string render_history_markdown(const History& h) {
  std::string out = "| benchmark | unit |" + std::string(h.several_machines ? " machine |" : "") +
                    " points | latest | change points |\n|---|---|" +
                    (h.several_machines ? "---|" : "") + "--:|--:|---|\n";
  for (const Series& s : h.series) {
    std::string changes;
    for (const ChangePoint& c : s.changes) {
      const HistoryPoint& p = s.points[c.point];
      if (!changes.empty()) changes += "<br>";
      changes += percent_text(c.percent) + " at `" + markdown_cell(short_id(p.run_id)) + "`" +
                 (p.commit.empty() ? "" : " (commit " + markdown_cell(p.commit) + ")") + " " +
                 c.comparison.to_string() + (c.worse ? " **worse**" : "");
    }
    if (changes.empty()) changes = "none";
    out += "| " + markdown_cell(s.benchmark) + " | " + markdown_cell(s.unit) + " |" +
           (h.several_machines ? " " + markdown_cell(s.machine) + " |" : "") + " " +
           std::to_string(s.points.size()) + " | " + scaled(s.points.back().center, s.unit) +
           " | " + changes + " |\n";
  }
  return out;
}

std::string render_history_json(const History& h) {
  std::string out = "{\"runs\": " + std::to_string(h.runs) +
                    ", \"by\": " + json_string(h.options.by_commit ? "commit" : "time") +
                    ", \"window\": " + std::to_string(h.options.window) +
                    ", \"threshold\": " + json_number(h.options.threshold) +
                    ", \"alpha\": " + json_number(h.options.alpha) + ", \"series\": [";
  for (std::size_t si = 0; si < h.series.size(); ++si) {
    const Series& s = h.series[si];
    out += si ? ",\n" : "\n";
    out += "{\"machine\": " + json_string(s.machine) +
           ", \"benchmark\": " + json_string(s.benchmark) + ", \"unit\": " + json_string(s.unit) +
           ", \"points\": [";
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const HistoryPoint& p = s.points[i];
      out += i ? ", " : "";
      out += "{\"run\": " + json_string(p.run_id) +
             ", \"time\": " + json_string(format_time_ms(p.unix_ms)) +
             ", \"commit\": " + json_string(p.commit) + ", \"center\": " + json_number(p.center) +
             ", \"samples\": [";
      for (std::size_t k = 0; k < p.samples.size(); ++k)
        out += (k ? ", " : "") + json_number(p.samples[k]);
      out += "]}";
    }
    out += "], \"changes\": [";
    for (std::size_t i = 0; i < s.changes.size(); ++i) {
      const ChangePoint& c = s.changes[i];
      const HistoryPoint& p = s.points[c.point];
      out += i ? ", " : "";
      out += "{\"point\": " + std::to_string(c.point) + ", \"run\": " + json_string(p.run_id) +
             ", \"time\": " + json_string(format_time_ms(p.unix_ms)) +
             ", \"commit\": " + json_string(p.commit) + ", \"old\": " + json_number(c.old_center) +
             ", \"new\": " + json_number(c.new_center) +
             ", \"percent\": " + json_number(c.percent) +
             ", \"p\": " + json_number(c.comparison.p) +
             ", \"n1\": " + std::to_string(c.comparison.n1) +
             ", \"n2\": " + std::to_string(c.comparison.n2) +
             ", \"worse\": " + (c.worse ? "true" : "false") + "}";
    }
    out += "]}";
  }
  out += "\n]}\n";
  return out;
}

}  // namespace zerolab::store
