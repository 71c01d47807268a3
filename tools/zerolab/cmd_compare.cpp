// zerolab compare: benchstat v2 in C++. With default flags its stdout and
// stderr are byte-identical to benchstat's for the same inputs (including
// benchstat's "benchstat: ..." error lines); -format markdown/json/html and
// --fail-on-regression are additions.
//
// Exit codes: 0 done, 2 bad usage or input (or nothing to compare),
// 3 a significant regression beyond --fail-on-regression's threshold.
//
// Example:
//   zerolab compare old.txt new.txt
//   zerolab compare -format markdown -filter '.unit:sec/op' base=a.txt head=b.txt
//   zerolab compare --fail-on-regression=5 old.txt new.txt || echo "slower by >5%"
//   zerolab compare -format html -o report.html old.txt new.txt
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench/atomic_file.hpp"
#include "command.hpp"
#include "report/compare_html.hpp"
#include "zerolab/stat.hpp"
#include "zerolab/stat_filter.hpp"
#include "zerolab/stat_reader.hpp"
#include "zerolab/stat_table.hpp"

namespace zerolab::cli {
namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitRegression = 3;

struct CompareFlags {
  std::string table = ".config";
  std::string row = ".fullname";
  std::string col = ".file";
  std::string ignore;
  std::string filter = "*";
  std::string format = "text";
  std::string output;  // -o: write here (atomically) instead of stdout
  double alpha = 0.05;
  double confidence = 0.95;
  bool fail_on_regression = false;
  double fail_percent = 0;
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
    "    \twrite the output to file (through a temporary file and a rename) instead of stdout\n"
    "  -row projection\n"
    "    \tsplit results into rows by distinct values of projection (default \".fullname\")\n"
    "  -table projection\n"
    "    \tsplit results into tables by distinct values of projection (default \".config\")\n"
    "  --fail-on-regression[=PCT]\n"
    "    \texit 3 if a statistically significant change is worse by more than PCT%\n"
    "    \t(default 0): higher sec/op, B/op, allocs/op and custom units, lower B/s\n";

void print_err(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stderr); }

bool parse_double(std::string_view s, double& out) {
  std::string t(s);
  if (t.empty()) return false;
  char* end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return end != nullptr && *end == '\0' && std::string_view(t).find_first_of(" \t\n") == std::string_view::npos;
}

// Go's flag package rules: flags first, "-x", "--x", "-x=v" and "-x v";
// the first non-flag argument or "--" ends them. Returns -1 to continue,
// or the exit code.
int parse_flags(std::span<char* const> args, CompareFlags& f, std::vector<std::string>& rest) {
  std::size_t i = 0;
  auto fail = [](const std::string& msg) {
    print_err(msg + "\n");
    print_err(kUsage);
    return kExitBadInput;
  };
  for (; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a.size() < 2 || a[0] != '-') break;
    std::size_t dashes = 1;
    if (a[1] == '-') {
      dashes = 2;
      if (a.size() == 2) {
        ++i;
        break;
      }
    }
    std::string_view name = a.substr(dashes);
    if (name.empty() || name[0] == '-' || name[0] == '=') return fail("bad flag syntax: " + std::string(a));
    std::string_view value;
    bool has_value = false;
    if (const std::size_t eq = name.find('='); eq != std::string_view::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (name == "h" || name == "help") {
      print_err(kUsage);
      return 0;
    }
    if (name == "fail-on-regression") {
      f.fail_on_regression = true;
      if (has_value) {
        std::string_view v = value;
        if (!v.empty() && v.back() == '%') v.remove_suffix(1);
        if (!parse_double(v, f.fail_percent) || !(f.fail_percent >= 0)) {
          return fail("invalid value \"" + std::string(value) + "\" for flag -fail-on-regression: parse error");
        }
      }
      continue;
    }
    std::string* str = nullptr;
    double* num = nullptr;
    if (name == "table") str = &f.table;
    if (name == "row") str = &f.row;
    if (name == "col") str = &f.col;
    if (name == "ignore") str = &f.ignore;
    if (name == "filter") str = &f.filter;
    if (name == "format") str = &f.format;
    if (name == "o") str = &f.output;
    if (name == "alpha") num = &f.alpha;
    if (name == "confidence") num = &f.confidence;
    if (str == nullptr && num == nullptr) return fail("flag provided but not defined: -" + std::string(name));
    if (!has_value) {
      if (i + 1 >= args.size()) return fail("flag needs an argument: -" + std::string(name));
      value = args[++i];
    }
    if (str != nullptr) {
      str->assign(value);
    } else if (!parse_double(value, *num)) {
      return fail("invalid value \"" + std::string(value) + "\" for flag -" + std::string(name) + ": parse error");
    }
  }
  for (; i < args.size(); ++i) rest.emplace_back(args[i]);
  return -1;
}

int benchstat_error(const std::string& msg) {
  print_err("benchstat: " + msg + "\n");
  return kExitBadInput;
}

std::string format_percent(double pct) {
  if (std::isinf(pct)) return pct > 0 ? "+Inf%" : "-Inf%";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.2f%%", pct);
  return buf;
}

int run_compare(std::span<char* const> args) {
  CompareFlags flags;
  std::vector<std::string> paths;
  if (const int rc = parse_flags(args, flags, paths); rc >= 0) return rc;
  if (paths.empty()) {
    print_err(kUsage);
    return kExitBadInput;
  }

  std::string err;
  std::unique_ptr<stat::Filter> filter = stat::Filter::parse(flags.filter, &err);
  if (!filter) return benchstat_error("parsing -filter: " + err);

  stat::ProjectionParser parser;
  std::string parse_err;
  auto must = [&parse_err](std::unique_ptr<stat::Projection> p, const char* name, const std::string& e) {
    if (!p && parse_err.empty()) parse_err = std::string("parsing ") + name + ": " + e;
    return p;
  };
  std::string e1, e2, e3, e4;
  auto table_by = must(parser.parse_with_unit(flags.table, filter.get(), &e1), "-table", e1);
  auto row_by = must(parser.parse(flags.row, filter.get(), &e2), "-row", e2);
  auto col_by = must(parser.parse(flags.col, filter.get(), &e3), "-col", e3);
  must(parser.parse(flags.ignore, filter.get(), &e4), "-ignore", e4);
  if (!parse_err.empty()) return benchstat_error(parse_err);
  auto residue = parser.residue();

  if (!(flags.alpha >= 0 && flags.alpha <= 1) && !std::isnan(flags.alpha)) {
    return benchstat_error("-alpha must be in range [0, 1]");
  }
  if (!(flags.confidence >= 0 && flags.confidence <= 1) && !std::isnan(flags.confidence)) {
    return benchstat_error("-confidence must be in range [0, 1]");
  }
  if (flags.format != "text" && flags.format != "csv" && flags.format != "markdown" && flags.format != "json" &&
      flags.format != "html") {
    return benchstat_error("-format must be text, csv, markdown, json or html");
  }

  stat::TableBuilder builder(*table_by, *row_by, *col_by, *residue);
  stat::InputFiles files(stat::parse_inputs(paths));
  std::vector<int> results_per_input(files.inputs().size(), 0);
  std::vector<int> errors_per_input(files.inputs().size(), 0);
  std::size_t read_results = 0;
  while (files.next()) {
    switch (files.kind()) {
      case stat::RecordKind::kSyntaxError:
        print_err(files.syntax_error().to_string() + "\n");
        ++errors_per_input[files.input_index()];
        break;
      case stat::RecordKind::kResult: {
        ++results_per_input[files.input_index()];
        ++read_results;
        stat::BenchRecord& rec = files.mutable_result();
        if (!filter->apply(rec)) break;
        builder.add(rec);
        break;
      }
      case stat::RecordKind::kUnitMetadata:
        break;
    }
  }
  if (!files.error().empty()) return benchstat_error(files.error());

  if (builder.result_count() == 0) {
    // benchstat prints nothing here; say why instead, and fail.
    if (read_results == 0) {
      for (std::size_t i = 0; i < files.inputs().size(); ++i) {
        if (results_per_input[i] == 0 && errors_per_input[i] == 0) {
          print_err(files.inputs()[i].path + ":0: no benchmark results\n");
        }
      }
    } else {
      print_err("zerolab compare: no benchmark results match -filter " + flags.filter + "\n");
    }
    return kExitBadInput;
  }

  stat::TableOptions opts;
  opts.confidence = flags.confidence;
  opts.alpha = flags.alpha;
  opts.units = &files.units();
  stat::Tables tables = builder.finish(opts);

  std::string out;
  std::string warnings;
  if (flags.format == "text") {
    out = stat::render_text(tables);
  } else if (flags.format == "csv") {
    out = stat::render_csv(tables, &warnings);
  } else if (flags.format == "markdown") {
    out = stat::render_markdown(tables);
  } else if (flags.format == "html") {
    out = report::render_compare_html(tables, paths);
  } else {
    out = stat::render_json(tables);
  }
  if (flags.output.empty()) {
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  } else if (std::string write_error; !internal::write_file_atomically(flags.output, out, write_error)) {
    print_err("zerolab compare: " + write_error + "\n");
    return kExitBadInput;
  }
  print_err(warnings);

  // Where benchstat would hang (go-moremath's U test loops forever on
  // NaN), zerolab reports the comparison as impossible and says where the
  // NaN came from.
  for (const std::string& line : stat::skipped_nan_comparisons(tables)) print_err(line + "\n");

  if (flags.fail_on_regression) {
    const auto regressions = stat::find_regressions(tables, files.units(), flags.fail_percent);
    for (const stat::Regression& r : regressions) {
      print_err("zerolab compare: regression: " + r.row + " " + r.unit + " " + format_percent(r.percent) +
                " (" + r.comparison.to_string() + ") " + r.baseline_column + " -> " + r.column + "\n");
    }
    if (!regressions.empty()) return kExitRegression;
  }
  return 0;
}

const CommandRegistration kCompare{"compare", "compare benchmark results (benchstat v2, byte for byte)",
                                   &run_compare};

}  // namespace
}  // namespace zerolab::cli
