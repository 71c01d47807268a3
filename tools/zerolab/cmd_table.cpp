// zerolab table: benchmark output as a GitHub markdown table, one row per
// result line (the fmtbench layout: name | count | ns/op | B/op |
// allocs/op | custom units...), or with -agg one row per benchmark holding
// the median of each unit over its runs. Values keep the units they were
// written in and print as Go's testing package prints them.
//
// Exit codes: 0 done, 2 bad usage, unreadable input or no results.
//
// Example:
//   go test -bench . -benchmem | zerolab table
//   zerolab table -agg new.txt
//   | name | count | ns/op | B/op | allocs/op |
//   |---|---|---|---|---|
//   | BenchmarkFormatNaive-24 | 11812275 | 97.50 | 102 | 6 |
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"
#include "stat/results_table.hpp"
#include "text/quote.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::cli {
namespace {

constexpr int kExitBadInput = 2;

constexpr const char* kTableUsage =
    "Usage: zerolab table [-agg] [-sort name|none] [file...]\n"
    "\n"
    "table prints benchmark results (Go benchmark format or Google Benchmark\n"
    "JSON; stdin when no file is given) as a markdown table with columns\n"
    "name | count | ns/op | B/op | allocs/op | <other units...>.\n"
    "\n"
    "  -agg\n"
    "    \tone row per benchmark: the median of each unit, count = runs\n"
    "  -sort order\n"
    "    \trow order: name (default) or none (input order)\n";

void err_line(const std::string& s) {
  const std::string line = s + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

int run_table(std::span<char* const> args) {
  bool agg = false;
  bool sort_by_name = true;
  internal::FlagSet flags;
  flags.boolean("agg", agg);
  flags.value("sort", [&sort_by_name](const std::string& v) -> std::string {
    if (v != "name" && v != "none") return "want name or none";
    sort_by_name = v == "name";
    return "";
  });
  if (const int rc = parse_command_flags(flags, args, "table", kTableUsage); rc >= 0) return rc;
  const std::vector<std::string>& paths = flags.operands();

  stat::ResultsTable table({agg, sort_by_name});
  stat::InputFiles files(stat::parse_inputs(paths, /*allow_labels=*/false));
  while (files.next()) {
    if (files.kind() == stat::RecordKind::kSyntaxError) {
      err_line(files.syntax_error().to_string());
      continue;
    }
    if (files.kind() != stat::RecordKind::kResult) continue;
    table.add(files.result(), files.input_is_json());
  }
  if (!files.error().empty()) {
    err_line("zerolab table: " + files.error());
    return kExitBadInput;
  }
  if (table.empty()) {
    // As compare says it: every input, by name (none held a result).
    for (const stat::InputSpec& in : files.inputs()) {
      err_line("zerolab table: " + internal::shown_text(in.path) + ":0: no benchmark results");
    }
    return kExitBadInput;
  }
  const std::string out = table.markdown();
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

const CommandRegistration kTable{"table", "benchmark results as a markdown table (fmtbench)",
                                 &run_table};

}  // namespace
}  // namespace zerolab::cli
