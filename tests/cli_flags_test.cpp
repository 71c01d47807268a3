// Every command line through the one flag parser (format/go_flags.hpp), as
// a user types it: "--" ends the flags everywhere, booleans
// take =true (B8), lab names the flag whose directory is wrong (B4), usage
// asked for goes to stdout with exit 0 and a mistake is stderr with exit 2
// (C), extra arguments are refused, and values are read the same way
// everywhere (-count ' 2' like -benchtime ' 1ms').
#include <string>

#include <gtest/gtest.h>

#include "cli_test_fixture.hpp"

namespace {

using zerolab::test::CommandResult;
using zerolab::test::read_file;
using zerolab::test::write_file;

class CliFlags : public zerolab::test::CliTest {};

// B3: "--" ends the flags of the benchmark binaries and lab too.
TEST_F(CliFlags, DoubleDashEndsTheFlagsEverywhere) {
  CommandResult r = bench("-list '^BenchmarkLoopCount$' --");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "BenchmarkLoopCount\n");
  r = cli("lab --list --");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("merge"), std::string::npos);
  r = cli("table -- " + old_);
  EXPECT_EQ(r.code, 0) << r.err;
  r = cli("compare -- " + old_);
  EXPECT_EQ(r.code, 0) << r.err;
}

// B8: a boolean flag takes =true and =false; an empty input is named.
TEST_F(CliFlags, TableTakesAggEqualsTrueAndNamesAnEmptyFile) {
  CommandResult r = cli("table -agg=true " + old_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "| name | runs | ns/op | B/op | allocs/op |");
  r = cli("table -agg=false " + old_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "| name | count | ns/op | B/op | allocs/op |");
  write_file(dir_ + "/empty.txt", "");
  r = cli("table " + dir_ + "/empty.txt");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "zerolab table: " + dir_ + "/empty.txt:0: no benchmark results\n");
}

// B4: lab names the flag whose directory cannot be used.
TEST_F(CliFlags, LabNamesTheFlagOfABadDirectory) {
  write_file(dir_ + "/file", "x");
  CommandResult r = cli("lab --list --cpuprofile " + dir_ + "/file/prof merge");
  EXPECT_EQ(r.code, 2);
  r = cli("lab merge --count 1 --benchtime 1x --cpuprofile " + dir_ + "/file/prof -o " + dir_ +
          "/out");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "zerolab lab: flag -cpuprofile: cannot use directory " + dir_ +
                       "/file/prof: " + dir_ + "/file is not a directory\n");
  r = cli("lab merge --count 1 --benchtime 1x -o " + dir_ + "/file/out");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(), "zerolab lab: flag -o: cannot use directory " + dir_ +
                                    "/file/out: " + dir_ + "/file is not a directory");
}

// C: usage asked for is stdout and exit 0, with nothing on stderr.
TEST_F(CliFlags, UsageAskedForIsStdoutAndExit0) {
  const std::pair<std::string, std::string> cases[] = {
      {"compare -h", "Usage: zerolab compare "},  {"compare --help", "Usage: zerolab compare "},
      {"table -h", "Usage: zerolab table "},      {"lab --help", "Usage: zerolab lab"},
      {"waste -h", "Usage: zerolab waste "},      {"history -help", "Usage: zerolab history"},
      {"store list -h", "Usage: zerolab store "}, {"--help", "usage: zerolab <command>"},
      {"-h", "usage: zerolab <command>"},         {"help", "usage: zerolab <command>"},
      {"version -h", "usage: zerolab version"},
  };
  for (const auto& [args, starts] : cases) {
    const CommandResult r = cli(args);
    EXPECT_EQ(r.code, 0) << args;
    EXPECT_EQ(r.err, "") << args;
    EXPECT_EQ(r.out.rfind(starts, 0), 0U) << args << ": " << r.out;
  }
  const CommandResult r = bench("-h");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("usage: ", 0), 0U);
}

// C: `help CMD` is `CMD -h`.
TEST_F(CliFlags, HelpCommandShowsTheCommandsUsage) {
  for (const char* command : {"compare", "table", "lab", "waste", "store", "history"}) {
    const CommandResult help = cli(std::string("help ") + command);
    const CommandResult h = cli(std::string(command) + " -h");
    EXPECT_EQ(help.code, 0) << command;
    EXPECT_EQ(help.out, h.out) << command;
    EXPECT_NE(help.out, "") << command;
  }
}

// C: a mistake is one line on stderr (compare adds benchstat's usage) and exit 2.
TEST_F(CliFlags, MistakesAreStderrAndExit2) {
  const std::pair<std::string, std::string> cases[] = {
      {"table -nosuch", "zerolab table: flag provided but not defined: -nosuch"},
      {"table -sort", "zerolab table: flag needs an argument: -sort"},
      {"compare -nosuch " + old_, "flag provided but not defined: -nosuch"},
      {"lab --list nosuch", "zerolab lab: flag -list takes no experiment names (got \"nosuch\")"},
      {"version --bogus", "zerolab version: flag provided but not defined: -bogus"},
      {"version extra", "zerolab version: unexpected argument \"extra\""},
      {"help nosuch", "zerolab help: unknown command \"nosuch\" (run 'zerolab help' for the list)"},
      {"help compare table", "zerolab help: want one command, got 2"},
      {"lab --quick=maybe", "zerolab lab: invalid value \"maybe\" for flag -quick: not a boolean"},
      {"store add --frobnicate x", "zerolab store add: flag provided but not defined: -frobnicate"},
  };
  for (const auto& [args, first_line] : cases) {
    const CommandResult r = cli(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_EQ(r.first_err_line(), first_line) << args;
  }
  EXPECT_EQ(cli("table -nosuch").err, "zerolab table: flag provided but not defined: -nosuch\n");
}

// C: numbers and durations are read one way: no spaces in either.
TEST_F(CliFlags, CountAndBenchtimeRefuseSpacesAlike) {
  CommandResult r = bench("-count ' 2'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "bench_fixture: invalid value \" 2\" for flag -count: must be a positive integer\n");
  r = bench("-benchtime ' 1ms'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "bench_fixture: invalid value \" 1ms\" for flag -benchtime: invalid duration\n");
}

// C: a 10 KB -bench value is shown once, cut, on one line.
TEST_F(CliFlags, AHugeFlagValueIsShownOnceAndCut) {
  const std::string pattern = "(" + std::string(10000, 'a');
  const CommandResult r = bench("-bench '" + pattern + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_LT(r.err.size(), 1000U) << r.err.size();
  EXPECT_EQ(r.err.rfind("bench_fixture: invalid value \"(" + std::string(127, 'a') + "...", 0), 0U)
      << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);
}

// C: -bench matching nothing warns on stderr as Go does.
TEST_F(CliFlags, BenchMatchingNothingWarns) {
  const CommandResult r = bench("-bench NoSuchBenchmark");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(
      r.err,
      "bench_fixture: warning: no benchmarks to run (-bench \"NoSuchBenchmark\" matches none)\n");
}

// A1: -filter nesting is bounded at 1000 (as Go bounds its parsers): exit 2
// with the position, never a crash of the stack.
TEST_F(CliFlags, FilterNestingIsBoundedWithThePosition) {
  const std::string dashes = std::string(10000, '-') + ".name:a";
  CommandResult r = cli("compare -filter '" + dashes + "' " + old_);
  EXPECT_EQ(r.code, 2) << r.err.substr(0, 200);
  EXPECT_EQ(r.err,
            "benchstat: parsing -filter: syntax error: expression nests deeper than 1000\n\t" +
                dashes + "\n\t" + std::string(1000, ' ') + "^\n");
  const std::string parens = std::string(20000, '(') + ".name:a" + std::string(20000, ')');
  r = cli("compare -filter '" + parens + "' " + old_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(),
            "benchstat: parsing -filter: syntax error: expression nests deeper than 1000");
  const std::string regexp =
      ".name:/" + std::string(20000, '(') + "a" + std::string(20000, ')') + "/";
  r = cli("compare -filter '" + regexp + "' " + old_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(
      r.err.rfind(
          "benchstat: parsing -filter: syntax error: error parsing regexp: expression nests too "
          "deeply: `(((",
          0),
      0U)
      << r.err.substr(0, 200);
  // 1000 levels are still a filter.
  r = cli("compare -filter '" + std::string(1000, '(') + ".name:/./" + std::string(1000, ')') +
          "' " + old_);
  EXPECT_EQ(r.code, 0) << r.err.substr(0, 200);
}

}  // namespace
