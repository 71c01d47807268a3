// zerolab history: each benchmark's series over the runs in the store, and
// the points where it changed (src/store/history.hpp says how they are
// found: benchseries' windows with compare's U test).
//
// Exit codes: 0 done, 1 the store could not be read, 2 bad usage or input,
// 3 --fail-on-regression found a change point worse by more than PCT%.
//
// Example:
//   zerolab history
//   zerolab history -filter '.name:Merge' --since 30d --by commit
//   zerolab history -format html -o history.html
//   zerolab history --since 14d --fail-on-regression=5 || echo "a benchmark got slower"
#include <signal.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "command.hpp"
#include "report/store_pages.hpp"
#include "store/history.hpp"
#include "store/store.hpp"
#include "store/store_args.hpp"
#include "store_cli.hpp"
#include "zerolab/stat_filter.hpp"

namespace zerolab::cli {
namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitRegression = 3;

constexpr const char* kUsage =
    "Usage: zerolab history [flags]\n"
    "\n"
    "history shows each benchmark and unit over the runs in the store, oldest first,\n"
    "and marks change points: where the window of points before and the window from\n"
    "that point on differ significantly (Mann-Whitney U at -alpha, as zerolab compare)\n"
    "by more than --threshold percent.\n"
    "\n"
    "  --store URL        the store (default sqlite:zerolab-results/zerolab.db)\n"
    "  -filter query      only benchmarks matching this benchfilter query (as zerolab compare)\n"
    "  --since T          only runs at or after T: YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM],\n"
    "                     or an age (90m, 36h, 7d, 2w)\n"
    "  --by time|commit   one point per run (default) or per `commit` label\n"
    "  --window N         points on each side of a comparison (default 5)\n"
    "  --threshold PCT    smallest change reported, in percent (default 5)\n"
    "  -alpha α           significance level (default 0.05)\n"
    "  -format F          text, markdown, json or html (one page, a plot per benchmark)\n"
    "  -o FILE            write to FILE (atomically) instead of stdout\n"
    "  --fail-on-regression[=PCT]\n"
    "                     exit 3 if a change point is worse by more than PCT% (default: "
    "--threshold)\n";

bool parse_number(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end != nullptr && *end == '\0' && std::isfinite(out);
}

int run_history(std::span<char* const> args) {
  // Past the file size limit (ulimit -f) -o's write fails with EFBIG and
  // is one line, as the store's commands say it, instead of SIGXFSZ.
  ::signal(SIGXFSZ, SIG_IGN);
  ParsedFlags f;
  std::string error;
  const StoreFlagSpec spec = {{"store", true},  {"filter", true},
                              {"since", true},  {"by", true},
                              {"window", true}, {"threshold", true},
                              {"alpha", true},  {"format", true},
                              {"o", true},      {"fail-on-regression", false}};
  if (!parse_store_flags(args, spec, f, error)) return fail("history", error, kExitBadInput);
  if (f.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!f.operands.empty())
    return fail("history", "unexpected argument \"" + f.operands[0] + "\"", kExitBadInput);
  store::StoreUrl url;
  if (!store::parse_store_url(f.value("store", std::string(store::kDefaultStoreUrl)), url, error)) {
    return fail("history", error, kExitBadInput);
  }
  std::int64_t since = 0;
  const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  if (f.has("since") && !store::parse_since(f.value("since"), now, since, error)) {
    return fail("history", error, kExitBadInput);
  }
  store::HistoryOptions opt;
  const std::string by = f.value("by", "time");
  if (by != "time" && by != "commit")
    return fail("history", "--by must be time or commit", kExitBadInput);
  opt.by_commit = by == "commit";
  double num = 0;
  if (f.has("window")) {
    if (!parse_number(f.value("window"), num) || num < 1 || num > 1000 || num != std::floor(num)) {
      return fail("history", "--window must be a whole number from 1 to 1000", kExitBadInput);
    }
    opt.window = static_cast<int>(num);
  }
  if (f.has("threshold")) {
    std::string t = f.value("threshold");
    if (!t.empty() && t.back() == '%') t.pop_back();
    if (!parse_number(t, opt.threshold) || opt.threshold < 0) {
      return fail("history", "--threshold must be a percentage >= 0", kExitBadInput);
    }
  }
  if (f.has("alpha") &&
      (!parse_number(f.value("alpha"), opt.alpha) || opt.alpha < 0 || opt.alpha > 1)) {
    return fail("history", "-alpha must be in range [0, 1]", kExitBadInput);
  }
  const std::string format = f.value("format", "text");
  if (format != "text" && format != "markdown" && format != "json" && format != "html") {
    return fail("history", "-format must be text, markdown, json or html", kExitBadInput);
  }
  double fail_percent = opt.threshold;
  const bool gate = f.has("fail-on-regression");
  if (gate && !f.value("fail-on-regression").empty()) {
    std::string t = f.value("fail-on-regression");
    if (!t.empty() && t.back() == '%') t.pop_back();
    if (!parse_number(t, fail_percent) || fail_percent < 0) {
      return fail("history", "--fail-on-regression takes a percentage >= 0", kExitBadInput);
    }
  }
  std::unique_ptr<stat::Filter> filter = stat::Filter::parse(f.value("filter", "*"), &error);
  if (!filter) return fail("history", "parsing -filter: " + error, kExitBadInput);

  store::History h;
  std::string out;
  try {
    store::Store s = store::Store::open(url, store::OpenMode::kRead);
    h = store::build_history(s.load_runs(since), *filter, opt);
    if (h.series.empty() && opt.by_commit && h.runs == 0 && s.run_count() > 0) {
      return fail("history",
                  "--by commit: no selected run has a commit label in " + s.display() +
                      " (add one with zerolab store add --label commit=REV)",
                  kExitBadInput);
    }
    if (h.series.empty()) {
      return fail("history",
                  "no stored results" +
                      std::string(f.has("filter") || f.has("since") ? " match" : "") + " in " +
                      s.display(),
                  kExitBadInput);
    }
    out = format == "text"       ? store::render_history_text(h)
          : format == "markdown" ? store::render_history_markdown(h)
          : format == "json"     ? store::render_history_json(h)
                                 : report::render_history_html(h, s.display());
  } catch (const store::StoreError& e) {
    return fail("history", e.what(), e.exit_code());
  }
  if (!write_output(out, f.value("o"), error)) return fail("history", error, 1);
  if (gate) {
    const auto regressions = store::history_regressions(h, fail_percent);
    for (const store::HistoryRegression& r : regressions) {
      std::fprintf(stderr, "zerolab history: regression: %s\n",
                   store::describe_change(*r.series, *r.change, h.several_machines).c_str());
    }
    if (!regressions.empty()) return kExitRegression;
  }
  return 0;
}

const CommandRegistration kHistory{
    "history", "each benchmark over the stored runs, with change points", &run_history};

}  // namespace
}  // namespace zerolab::cli
