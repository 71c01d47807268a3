// Unit tests of the harness internals: Go duration/count parsing for
// -benchtime, the flag parser, and Go's name matching and uniqueness rules.
#include <gtest/gtest.h>

#include "bench/name_matcher.hpp"
#include "bench/options.hpp"

namespace zerolab::internal {
namespace {

TEST(BenchTime, ParsesGoDurationsAndCounts) {
  const struct {
    const char* text;
    std::int64_t ns;
    std::int64_t iterations;
  } cases[] = {
      {"1s", 1000000000, 0},      {"500ms", 500000000, 0}, {"1.5s", 1500000000, 0},
      {"2m30s", 150000000000, 0}, {"10us", 10000, 0},      {"250ns", 250, 0},
      {"1h", 3600000000000, 0},   {"100x", 0, 100},        {"1x", 0, 1},
  };
  for (const auto& c : cases) {
    BenchTime bt;
    std::string error;
    ASSERT_TRUE(parse_benchtime(c.text, bt, error)) << c.text << ": " << error;
    EXPECT_EQ(bt.duration.count(), c.ns) << c.text;
    EXPECT_EQ(bt.iterations, c.iterations) << c.text;
  }
}

TEST(BenchTime, RejectsBadInput) {
  for (const char* text :
       {"", "abc", "1", "0s", "-1s", "x", "0x", "-5x", "1.2x", "1q", "..5s", "1s2"}) {
    BenchTime bt;
    std::string error;
    EXPECT_FALSE(parse_benchtime(text, bt, error)) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
}

Options parse(std::vector<std::string> args, bool expect_ok = true) {
  std::vector<char*> argv;
  std::string program = "prog";
  argv.push_back(program.data());
  for (auto& a : args) argv.push_back(a.data());
  Options o;
  std::string error;
  EXPECT_EQ(parse_options(static_cast<int>(argv.size()), argv.data(), o, error), expect_ok)
      << error;
  return o;
}

TEST(Options, DefaultsAreGoDefaultsWithBenchmemOnAndAllSelected) {
  const Options o = parse({});
  EXPECT_EQ(o.bench, ".");
  EXPECT_EQ(o.count, 1);
  EXPECT_TRUE(o.benchmem);
  EXPECT_TRUE(o.faults);
  EXPECT_FALSE(o.heap);
  EXPECT_TRUE(o.cpus.empty());
  EXPECT_EQ(o.benchtime.duration.count(), 1000000000);
}

TEST(Options, AllSpellings) {
  Options o = parse({"-bench", "X", "--count=3", "-test.benchtime", "10x", "-cpu=1,2,4",
                     "-benchmem=false", "--heap", "-o", "f.txt"});
  EXPECT_EQ(o.bench, "X");
  EXPECT_EQ(o.count, 3);
  EXPECT_EQ(o.benchtime.iterations, 10);
  EXPECT_EQ(o.cpus, (std::vector<int>{1, 2, 4}));
  EXPECT_FALSE(o.benchmem);
  EXPECT_TRUE(o.heap);
  EXPECT_EQ(o.output_file, "f.txt");
  o = parse({"-list", "Foo"});
  ASSERT_TRUE(o.list.has_value());
  EXPECT_EQ(*o.list, "Foo");
}

TEST(Options, BadFlagsFail) {
  parse({"-bench"}, false);
  parse({"-bench", "[a"}, false);
  parse({"-cpu", "1,,2"}, false);
  parse({"-cpu", "1,x"}, false);
  parse({"-count", "-1"}, false);
  parse({"-count", "1.5"}, false);
  parse({"-o="}, false);
  parse({"stray"}, false);
  // Go rejects nested repetition; deep repetition would blow up glibc's regcomp.
  parse({"-bench", "a**"}, false);
  parse({"-bench", "a+++++++++++++++++++++++++++++"}, false);
  parse({"-bench",
         "((((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+)+)+"});  // Go accepts it; RE2 runs it linearly
  parse({"-bench", "(a{1000}){1000}"}, false);
  // Counts are digits only: "1e2221" is not an exponent (the fuzzer found
  // that std::stod threw out_of_range here). As in Go, a brace that does
  // not open a valid count is a literal.
  parse({"-bench", "a{1e2221}"});
  parse({"-bench", "(a{99999999999}){2}"}, false);
  parse({"-bench", "(a{100}){100}"}, false);  // Go: nested counts over 1000
  parse({"-bench", "Copy\\d+/size=\\w+"});    // Go's escapes work
  parse({"-bench", "Foo*?"});
  parse({"-bench", "Alloc(New|Cal)+/size=[0-9]{1,3}$"});
  parse({"-bench", "[*+]+"});
}

TEST(NameMatcher, LevelsAlternativesAndPartialMatches) {
  NameMatcher m;
  m.set_pattern("Foo/small");
  auto r = m.full_name("", "BenchmarkFoo", 0);
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.partial);
  r = m.full_name("BenchmarkFoo", "small", 1);
  EXPECT_EQ(r.name, "BenchmarkFoo/small");
  EXPECT_TRUE(r.ok);
  EXPECT_FALSE(r.partial);
  r = m.full_name("BenchmarkFoo", "large", 1);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(m.full_name("", "BenchmarkBar", 0).ok);

  m.set_pattern("^BenchmarkA$/x|^BenchmarkB$/y");
  EXPECT_TRUE(m.matches("BenchmarkA/x"));
  EXPECT_TRUE(m.matches("BenchmarkB/y"));
  EXPECT_FALSE(m.matches("BenchmarkA/y"));
  // '/' inside brackets or parentheses does not split levels, so these
  // patterns have one level that no first-level name can match.
  m.set_pattern("Foo/");
  EXPECT_TRUE(m.matches("BenchmarkFoo/x"));
  m.set_pattern("Foo[/]");
  EXPECT_FALSE(m.matches("BenchmarkFoo/x"));
  m.set_pattern("(Foo/)");
  EXPECT_FALSE(m.matches("BenchmarkFoo/x"));
  // Go's regexp syntax, not POSIX's: \d, (?i), non-greedy repeats.
  m.set_pattern("Size\\d+$/(?i)JSON");
  EXPECT_TRUE(m.matches("BenchmarkSize64/json"));
  EXPECT_FALSE(m.matches("BenchmarkSizeX/json"));
  m.set_pattern("Fo+?/[\\w-]+=\\d");
  EXPECT_TRUE(m.matches("BenchmarkFoo/size-x=4"));
}

TEST(NameMatcher, UniqueNamesAndRewrites) {
  NameMatcher m;
  m.set_pattern(".");
  EXPECT_EQ(m.full_name("BenchmarkP", "a b", 1).name, "BenchmarkP/a_b");
  EXPECT_EQ(m.full_name("BenchmarkP", "x", 1).name, "BenchmarkP/x");
  EXPECT_EQ(m.full_name("BenchmarkP", "x", 1).name, "BenchmarkP/x#01");
  EXPECT_EQ(m.full_name("BenchmarkP", "x", 1).name, "BenchmarkP/x#02");
  EXPECT_EQ(m.full_name("BenchmarkP", "", 1).name, "BenchmarkP/#00");
  EXPECT_EQ(m.full_name("BenchmarkP", "", 1).name, "BenchmarkP/#01");
  // Top-level names are kept as they are.
  EXPECT_EQ(m.full_name("", "BenchmarkP", 0).name, "BenchmarkP");
  EXPECT_EQ(rewrite_name("a\tb\x01"), "a_b\\x01");
}

}  // namespace
}  // namespace zerolab::internal
