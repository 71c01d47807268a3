// zerolab compare: benchstat v2 in C++. With default flags its stdout and
// stderr are byte-identical to benchstat's for the same inputs (including
// benchstat's "benchstat: ..." error lines); -format markdown/json/html and
// --fail-on-regression are additions.
//
// Exit codes: 0 done, 1 the output could not be written or
// --fail-on-regression found nothing to compare, 2 bad usage or input (or
// no results),
// 3 a significant regression beyond --fail-on-regression's threshold.
//
// Example:
//   zerolab compare old.txt new.txt
//   zerolab compare -format markdown -filter '.unit:sec/op' base=a.txt head=b.txt
//   zerolab compare --fail-on-regression=5 old.txt new.txt || echo "slower by >5%"
//   zerolab compare -format html -o report.html old.txt new.txt
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "command.hpp"
#include "files/atomic_file.hpp"
#include "report/compare_html.hpp"
#include "text/quote.hpp"
#include "zerolab/stat_compare.hpp"
#include "zerolab/stat_reader.hpp"
#include "zerolab/stat_table.hpp"

namespace zerolab::cli {
namespace {

constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitRegression = 3;

struct CompareFlags {
  stat::CompareOptions options;  // -table -row -col -ignore -filter -alpha -confidence
  std::string format = "text";
  bool has_output = false;          // -o given
  std::string output;               // -o: write here (atomically) instead of stdout; "-" is stdout
  bool fail_on_regression = false;  // --fail-on-regression[=PCT]: PCT in options.regression_percent
};

constexpr const char* kUsage =
    "Usage: zerolab compare [flags] [label=]file...\n"
    "\n"
    "compare computes statistical summaries and A/B comparisons of benchmark\n"
    "results, exactly as benchstat v2 does. It shows benchmark medians in a table\n"
    "with a row for each benchmark and a column for each input file. If there is\n"
    "more than one input file, it also shows A/B comparisons between the files.\n"
    "If a difference is likely to be noise, it shows \"~\". Inputs are in the Go\n"
    "benchmark format or Google Benchmark JSON; \"-\" reads stdin.\n"
    "\n"
    "  -alpha α\n"
    "    \tconsider change significant if p < α (default 0.05)\n"
    "  -col projection\n"
    "    \tsplit results into columns by distinct values of projection (default \".file\")\n"
    "  -confidence level\n"
    "    \tconfidence level for ranges (default 0.95)\n"
    "  -filter query\n"
    "    \tuse only benchmarks matching benchfilter query (default \"*\")\n"
    "  -format format\n"
    "    \tprint results in format: text, csv, markdown, json or html (default \"text\");\n"
    "    \thtml is one self-contained page with the samples plotted\n"
    "  -ignore keys\n"
    "    \tignore variations in keys\n"
    "  -o file\n"
    "    \twrite the output to file (through a temporary file and a rename) instead of stdout;\n"
    "    \t\"-\" is stdout\n"
    "  -row projection\n"
    "    \tsplit results into rows by distinct values of projection (default \".fullname\")\n"
    "  -table projection\n"
    "    \tsplit results into tables by distinct values of projection (default \".config\")\n"
    "  --fail-on-regression[=PCT]\n"
    "    \texit 3 if a statistically significant change is worse by more than PCT%\n"
    "    \t(default 0): higher sec/op, B/op, allocs/op and custom units, lower B/s;\n"
    "    \texit 1 if no row has two columns to compare\n";

void print_err(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stderr);
}

bool parse_double(std::string_view s, double& out) {
  std::string t(s);
  if (t.empty()) return false;
  char* end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return end != nullptr && *end == '\0' &&
         std::string_view(t).find_first_of(" \t\n") == std::string_view::npos;
}

// The flags through the one parser (format/go_flags.hpp). A mistake prints
// Go's error line and the usage on stderr, as benchstat does; -h prints the
// usage on stdout. Returns -1 to continue, or the exit code.
int parse_flags(std::span<char* const> args, CompareFlags& f, std::vector<std::string>& rest) {
  internal::FlagSet flags;
  for (const auto& [name, target] :
       {std::pair<const char*, std::string*>{"table", &f.options.table},
        {"row", &f.options.row},
        {"col", &f.options.col},
        {"ignore", &f.options.ignore},
        {"filter", &f.options.filter},
        {"format", &f.format}}) {
    flags.string(name, *target);
  }
  flags.value("o", [&f](const std::string& v) {
    f.output = v;
    f.has_output = true;
    return std::string();
  });
  for (const auto& flag : {std::pair<const char*, double*>{"alpha", &f.options.alpha},
                           {"confidence", &f.options.confidence}}) {
    double* target = flag.second;
    flags.value(flag.first, [target](const std::string& v) {
      return parse_double(v, *target) ? "" : "parse error";
    });
  }
  flags.optional("fail-on-regression", [&f](const std::optional<std::string>& v) {
    f.fail_on_regression = true;
    if (!v) return "";
    std::string_view pct = *v;
    if (!pct.empty() && pct.back() == '%') pct.remove_suffix(1);
    return parse_double(pct, f.options.regression_percent) && f.options.regression_percent >= 0
               ? ""
               : "parse error";
  });
  switch (flags.parse(args)) {
    case internal::FlagSet::Outcome::kHelp:
      std::fputs(kUsage, stdout);
      return 0;
    case internal::FlagSet::Outcome::kError:
      print_err(flags.error() + "\n");
      print_err(kUsage);
      return kExitBadInput;
    case internal::FlagSet::Outcome::kParsed:
      break;
  }
  rest = flags.operands();
  return -1;
}

// Which flag removed every result: -filter, or a fixed list of -table, -row
// or -col (".name@(a b)" keeps only what it names; benchproc folds those
// lists into the filter). Only on this failure path are the inputs read a
// second time, with the filter alone (stdin cannot be read again).
std::string why_nothing_left(const CompareFlags& f, const std::vector<std::string>& paths) {
  std::string filter_says =
      "no benchmark results match -filter " + internal::shown_text(f.options.filter);
  std::string lists;
  for (const auto& flag : {std::pair<const char*, const std::string*>{"table", &f.options.table},
                           {"row", &f.options.row},
                           {"col", &f.options.col}}) {
    if (flag.second->find('@') == std::string::npos) continue;
    lists += (lists.empty() ? "-" : " and -") + std::string(flag.first) + " " +
             internal::shown_text(*flag.second);
  }
  if (lists.empty()) return filter_says;
  const std::vector<stat::InputSpec> inputs = stat::parse_inputs(paths);
  for (const stat::InputSpec& in : inputs) {
    if (in.is_stdin) return filter_says + " and " + lists;
  }
  stat::CompareOptions filter_only;
  filter_only.filter = f.options.filter;
  if (stat::compare(inputs, filter_only).results_compared == 0) return filter_says;
  return "no benchmark results left after " + lists +
         " (a @(...) list keeps only the values it names)";
}

int benchstat_error(const std::string& msg) {
  print_err("benchstat: " + msg + "\n");
  return kExitBadInput;
}

int run_compare(std::span<char* const> args) {
  CompareFlags flags;
  std::vector<std::string> paths;
  if (const int rc = parse_flags(args, flags, paths); rc >= 0) return rc;
  if (paths.empty()) {
    print_err(kUsage);
    return kExitBadInput;
  }
  if (flags.format != "text" && flags.format != "csv" && flags.format != "markdown" &&
      flags.format != "json" && flags.format != "html") {
    return benchstat_error("-format must be text, csv, markdown, json or html");
  }

  if (flags.has_output) {
    std::vector<std::string> input_paths;
    for (const stat::InputSpec& in : stat::parse_inputs(paths)) {
      if (!in.is_stdin) input_paths.push_back(in.path);
    }
    if (std::string error; !internal::check_output_path(flags.output, input_paths, error)) {
      print_err("zerolab compare: -o: " + error + "\n");
      return kExitBadInput;
    }
  }

  stat::ComparisonResult result = stat::compare(stat::parse_inputs(paths), flags.options);
  for (const std::string& line : result.syntax_errors) print_err(line + "\n");
  if (!result.error.empty()) return benchstat_error(result.error);

  if (result.results_compared == 0) {
    // benchstat prints nothing here; say why instead, and fail.
    if (result.results_read == 0) {
      const std::vector<stat::InputSpec> inputs = stat::parse_inputs(paths);
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (result.results_per_input[i] == 0 && result.errors_per_input[i] == 0) {
          print_err(inputs[i].path + ":0: no benchmark results\n");
        }
      }
    } else {
      print_err("zerolab compare: " + why_nothing_left(flags, paths) + "\n");
    }
    return kExitBadInput;
  }

  std::string out;
  std::string warnings;
  if (flags.format == "text") {
    out = stat::render_text(result.tables);
  } else if (flags.format == "csv") {
    out = stat::render_csv(result.tables, &warnings);
  } else if (flags.format == "markdown") {
    out = stat::render_markdown(result.tables);
  } else if (flags.format == "html") {
    out = report::render_compare_html(result.tables, paths);
  } else {
    out = stat::render_json(result.tables);
  }
  if (!flags.has_output) {
    std::fwrite(out.data(), 1, out.size(), stdout);
  } else if (std::string write_error;
             !internal::write_file_atomically(flags.output, out, write_error)) {
    print_err("zerolab compare: -o: " + write_error + "\n");
    return kExitFailed;
  }
  print_err(warnings);

  // Where benchstat would hang (go-moremath's U test loops forever on
  // NaN), zerolab reports the comparison as impossible and says where the
  // NaN came from.
  for (const std::string& line : result.nan_skips) print_err(line + "\n");

  if (flags.fail_on_regression && result.comparisons == 0) {
    print_err(
        "zerolab compare: --fail-on-regression: nothing was compared (no row has two columns), "
        "so the run could not be judged\n");
    return kExitFailed;
  }
  if (flags.fail_on_regression) {
    for (const stat::Regression& r : result.regressions) {
      print_err("zerolab compare: regression: " + stat::format_regression(r) + "\n");
    }
    if (!result.regressions.empty()) return kExitRegression;
  }
  return 0;
}

const CommandRegistration kCompare{
    "compare", "compare benchmark results (benchstat v2, byte for byte)", &run_compare};

}  // namespace
}  // namespace zerolab::cli
