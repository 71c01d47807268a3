// Tests of filter and projection parsing and evaluation in zerolab::stat
// (benchproc's syntax: keys, key:value, key:/regexp/, key:(a OR b), AND,
// OR, negation, parentheses; projections with @alpha, @num and fixed
// orders) and benchproc's error messages.
//
// Example:
//   ./stat_test --gtest_filter='Filter.*'
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "zerolab/stat_filter.hpp"

namespace zerolab::stat {
namespace {

BenchRecord record(const std::string& name, std::vector<benchfmt::Metric> metrics,
                   ConfigList config = {{"goos", "linux", true}}) {
  BenchRecord r;
  r.result.name = "Benchmark" + name;
  r.result.metrics = std::move(metrics);
  r.original.assign(r.result.metrics.size(), benchfmt::Metric{0, ""});
  r.config = std::make_shared<const ConfigList>(std::move(config));
  return r;
}

std::string canonical(const std::string& q) {
  std::string err;
  auto f = Filter::parse(q, &err);
  return f ? f->to_string() : "ERROR " + err;
}

TEST(Filter, ParsesToCanonicalForm) {
  EXPECT_EQ(canonical("*"), "*");
  EXPECT_EQ(canonical(".name:Copy"), ".name:Copy");
  EXPECT_EQ(canonical(".name:Copy /size:4k"), "(.name:Copy AND /size:4k)");
  EXPECT_EQ(canonical("a:1 AND b:2 OR c:3"), "((a:1 AND b:2) OR c:3)");
  EXPECT_EQ(canonical("-(a:1 OR b:2)"), "-(a:1 OR b:2)");
  EXPECT_EQ(canonical("a:(x OR \"y z\" OR /r+/)"), "(a:x OR a:\"y z\" OR a:/r+/)");
  EXPECT_EQ(canonical("\"my key\":\"a:b\""), "\"my key\":\"a:b\"");
  EXPECT_EQ(canonical("a:b-c"), "a:b-c");  // '-' inside a word is part of it
  EXPECT_EQ(canonical("- a:b"), "-a:b");
}

TEST(Filter, ErrorsAsBenchprocReportsThem) {
  EXPECT_EQ(canonical("(a"), "ERROR syntax error: expected key:value\n\t(a\n\t ^");
  EXPECT_EQ(canonical(")"), "ERROR syntax error: expected key:value or subexpression\n\t)\n\t^");
  EXPECT_EQ(canonical("a:b)"), "ERROR syntax error: unexpected \")\"\n\ta:b)\n\t   ^");
  EXPECT_EQ(canonical("a:(b c)"),
            "ERROR syntax error: value list must be separated by OR\n\ta:(b c)\n\t     ^");
  EXPECT_EQ(canonical(".config:x"),
            "ERROR syntax error: .config is only allowed in projections\n\t.config:x\n\t^");
  EXPECT_EQ(canonical("\"abc"), "ERROR syntax error: missing end quote\n\t\"abc\n\t^");
  EXPECT_EQ(canonical("a:/x/y"),
            "ERROR syntax error: regexp must be followed by space or an operator (unescaped "
            "\"/\"?)\n\ta:/x/y\n\t     ^");
  EXPECT_EQ(canonical("a:/x"), "ERROR syntax error: missing close \"/\"\n\ta:/x\n\t  ^");
  EXPECT_EQ(canonical("\"\":x"), "ERROR syntax error: key must not be empty\n\t\"\":x\n\t^");
  EXPECT_EQ(canonical("a"), "ERROR syntax error: expected key:value\n\ta\n\t^");
}

TEST(Filter, MatchesKeys) {
  std::string err;
  BenchRecord r = record("Copy/size=4k/mode=fast-16", {{1e-9, "sec/op"}, {64, "B/op"}},
                         {{".file", "old.txt", false}, {"goos", "linux", true}});
  auto ok = [&](const std::string& q) {
    auto f = Filter::parse(q, &err);
    EXPECT_TRUE(f) << err;
    BenchRecord copy = r;
    return f->apply(copy);
  };
  EXPECT_TRUE(ok(".name:Copy"));
  EXPECT_TRUE(ok(".fullname:Copy/size=4k/mode=fast-16"));
  EXPECT_TRUE(ok("/size:4k"));
  EXPECT_TRUE(ok("/mode:fast"));
  EXPECT_TRUE(ok("/gomaxprocs:16"));
  EXPECT_TRUE(ok(".file:old.txt"));
  EXPECT_TRUE(ok("goos:linux"));
  EXPECT_TRUE(ok("goos:/^lin/"));
  EXPECT_TRUE(ok("goos:(darwin OR linux)"));
  EXPECT_FALSE(ok("-goos:linux"));
  EXPECT_FALSE(ok("goarch:amd64"));
  EXPECT_TRUE(ok("goarch:\"\""));  // absent keys are empty
  EXPECT_FALSE(ok(".name:Copy AND /size:1k"));
  EXPECT_TRUE(ok("(.name:X OR /size:4k) -/mode:slow"));
}

TEST(Filter, UnitTermsSelectMetrics) {
  std::string err;
  BenchRecord r = record("A", {{1e-9, "sec/op"}, {64, "B/op"}, {2, "allocs/op"}});
  r.original[0] = {1, "ns/op"};
  auto f = Filter::parse(".unit:(ns/op OR allocs/op)", &err);
  ASSERT_TRUE(f);
  ASSERT_TRUE(f->apply(r));
  ASSERT_EQ(r.result.metrics.size(), 2u);
  EXPECT_EQ(r.result.metrics[0].unit, "sec/op");  // matched by its original unit
  EXPECT_EQ(r.result.metrics[1].unit, "allocs/op");
  auto none = Filter::parse(".unit:x", &err);
  EXPECT_FALSE(none->apply(r));
  EXPECT_TRUE(r.result.metrics.empty());
  BenchRecord r2 = record("A", {{1, "sec/op"}, {2, "B/op"}});
  auto neg = Filter::parse("-.unit:B/op .name:A", &err);
  ASSERT_TRUE(neg->apply(r2));
  ASSERT_EQ(r2.result.metrics.size(), 1u);
  EXPECT_EQ(r2.result.metrics[0].unit, "sec/op");
}

// 10,000 '-' or 20,000 '(' overflowed the stack in the
// parser's recursion; nesting is bounded at 1000 with the position of the
// first level past it. A regexp nested 20,000 deep fails in Go's words.
TEST(Filter, NestingIsBounded) {
  using zerolab::stat::Filter;
  std::string error;
  EXPECT_EQ(Filter::parse(std::string(10000, '-') + ".name:a", &error), nullptr);
  EXPECT_EQ(error, "syntax error: expression nests deeper than 1000\n\t" + std::string(10000, '-') +
                       ".name:a\n\t" + std::string(1000, ' ') + "^");
  const std::string parens = std::string(20000, '(') + ".name:a" + std::string(20000, ')');
  EXPECT_EQ(Filter::parse(parens, &error), nullptr);
  EXPECT_EQ(error.rfind("syntax error: expression nests deeper than 1000\n", 0), 0u);
  const std::string ok = std::string(1000, '-') + ".name:a";
  EXPECT_NE(Filter::parse(ok, &error), nullptr) << error;
  const std::string deepest = std::string(1000, '(') + ".name:a" + std::string(1000, ')');
  EXPECT_NE(Filter::parse(deepest, &error), nullptr) << error;
  const std::string regexp =
      ".name:/" + std::string(20000, '(') + "a" + std::string(20000, ')') + "/";
  EXPECT_EQ(Filter::parse(regexp, &error), nullptr);
  EXPECT_NE(error.find("error parsing regexp: expression nests too deeply: `((("),
            std::string::npos);
}

TEST(Projection, SplitName) {
  std::string_view base;
  std::vector<std::string_view> parts;
  split_name("Copy/size=4k/fast-16", base, parts);
  EXPECT_EQ(base, "Copy");
  EXPECT_EQ(parts, (std::vector<std::string_view>{"/size=4k", "/fast", "-16"}));
  split_name("A-", base, parts);
  EXPECT_EQ(base, "A-");
  EXPECT_TRUE(parts.empty());
}

TEST(Projection, OrdersAndKeys) {
  std::string err;
  auto filter = Filter::parse("*", &err);
  ProjectionParser p;
  auto by_num = p.parse("/size@num", filter.get(), &err);
  ASSERT_TRUE(by_num) << err;
  std::vector<Key> keys;
  for (const char* s : {"2Mi", "64", "1k", "x", "512k", "1.5"}) {
    keys.push_back(by_num->project(record(std::string("H/size=") + s, {{1, "x"}})));
  }
  keys.push_back(by_num->project(record("H", {{1, "x"}})));
  by_num->sort_keys(keys);
  std::vector<std::string> got;
  for (Key k : keys) got.push_back(by_num->string_values(k));
  EXPECT_EQ(got, (std::vector<std::string>{"1.5", "64", "1k", "512k", "2Mi", "", "x"}));

  ProjectionParser p2;
  auto first = p2.parse(".name", filter.get(), &err);
  std::vector<Key> fk;
  for (const char* n : {"Zed", "Alpha", "Zed", "Mid"})
    fk.push_back(first->project(record(n, {{1, "x"}})));
  EXPECT_EQ(fk[0], fk[2]);
  first->sort_keys(fk);
  EXPECT_EQ(first->string_values(fk[0]), "Zed");  // order of first appearance
  EXPECT_EQ(first->string_values(fk.back()), "Mid");
}

TEST(Projection, FixedOrderFilters) {
  std::string err;
  auto filter = Filter::parse("*", &err);
  ProjectionParser p;
  auto col = p.parse("/format@(gob json)", filter.get(), &err);
  ASSERT_TRUE(col) << err;
  BenchRecord json = record("E/format=json", {{1, "x"}});
  BenchRecord xml = record("E/format=xml", {{1, "x"}});
  EXPECT_TRUE(filter->apply(json));
  EXPECT_FALSE(filter->apply(xml));
}

TEST(Projection, ErrorsAndGroupExclusions) {
  std::string err;
  ProjectionParser p;
  EXPECT_FALSE(p.parse(".name@sideways", nullptr, &err));
  EXPECT_EQ(err, "syntax error: unknown order \"sideways\"\n\t.name@sideways\n\t      ^");
  EXPECT_FALSE(p.parse(".unit", nullptr, &err));
  EXPECT_EQ(err, "syntax error: .unit is only allowed in filters\n\t.unit\n\t^");
  EXPECT_FALSE(p.parse(".config@(a)", nullptr, &err));
  EXPECT_EQ(err, "syntax error: fixed order not allowed for .config\n\t.config@(a)\n\t        ^");
  EXPECT_FALSE(p.parse("a@()", nullptr, &err));
  EXPECT_EQ(err, "syntax error: nothing to match\n\ta@()\n\t   ^");

  // .config leaves out keys another projection names; .fullname leaves out
  // sub-name keys.
  ProjectionParser q;
  auto table = q.parse(".config", nullptr, &err);
  auto cols = q.parse("goos,/size", nullptr, &err);
  auto rows = q.parse(".fullname", nullptr, &err);
  const BenchRecord r =
      record("Copy/size=4k-8", {{1, "x"}}, {{"goos", "linux", true}, {"pkg", "p", true}});
  const Key tk = table->project(r);
  EXPECT_EQ(table->string_values(tk), "p");
  EXPECT_EQ(cols->string_values(cols->project(r)), "linux 4k");
  EXPECT_EQ(rows->string_values(rows->project(r)), "Copy-8");
  auto residue = q.residue();
  EXPECT_EQ(residue->fields().size(), 0u);
}

}  // namespace
}  // namespace zerolab::stat
