// The counting mode of Google Benchmark binaries through zerolab::gbench
// (--benchmark_measure=instructions): exact instruction counts per op from
// loops of the lengths Google Benchmark chose. Skips, with the reason,
// where valgrind cannot run.
#include <string>

#include <gtest/gtest.h>

#include "counting_test_util.hpp"
#include "go_format.hpp"
#include "test_util.hpp"

namespace {

zerolab::test::ParsedOutput count(const std::string& filter) {
  static const std::string dir = zerolab::test::temp_dir("gbench_counting_test");
  const auto r = zerolab::test::run(std::string(ZEROLAB_GBENCH_COUNTING_FIXTURE) +
                                        " --benchmark_measure=instructions --benchmark_filter='" +
                                        filter + "'",
                                    dir);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  const auto parsed = zerolab::test::parse_go_output(r.out);
  EXPECT_EQ(parsed.error, "") << r.out;
  EXPECT_EQ(parsed.unit_lines.size(), 4u) << r.out;
  return parsed;
}

double instructions(const zerolab::test::ParsedOutput& parsed, const std::string& name) {
  for (const auto& r : parsed.results) {
    if (r.name == name) {
      EXPECT_EQ(r.values.count("ns/op"), 0u);
      return r.values.at("instructions/op");
    }
  }
  ADD_FAILURE() << "no result for " << name;
  return -1;
}

TEST(GbenchCounting, SevenMoreInstructionsInTheLoopReadSevenMore) {
  const std::string why = zerolab::test::why_no_callgrind();
  if (!why.empty()) GTEST_SKIP() << why;
  const auto parsed = count("BM_AsmAdds(3|10)$");
  const double three = instructions(parsed, "BenchmarkBM_AsmAdds3");
  EXPECT_EQ(instructions(parsed, "BenchmarkBM_AsmAdds10") - three, 7);
  EXPECT_GE(three, 3);
  EXPECT_LE(three, 20);
}

TEST(GbenchCounting, TwoRunsGiveIdenticalCounts) {
  const std::string why = zerolab::test::why_no_callgrind();
  if (!why.empty()) GTEST_SKIP() << why;
  // Google Benchmark picks the iteration counts by time, which differ from
  // run to run; the counts per op do not.
  const auto first = count("BM_AsmAdds3$");
  const auto second = count("BM_AsmAdds3$");
  EXPECT_EQ(instructions(first, "BenchmarkBM_AsmAdds3"),
            instructions(second, "BenchmarkBM_AsmAdds3"));
}

TEST(GbenchCounting, PausedWorkAndSetupAreNotCounted) {
  const std::string why = zerolab::test::why_no_callgrind();
  if (!why.empty()) GTEST_SKIP() << why;
  const auto parsed = count("BM_AsmAdds3PausedWork");
  const double small = instructions(parsed, "BenchmarkBM_AsmAdds3PausedWork/1000");
  EXPECT_EQ(instructions(parsed, "BenchmarkBM_AsmAdds3PausedWork/5000"), small);
  EXPECT_LT(small, 100);
}

// --benchmark_out in counting mode: the file Google Benchmark writes, in
// the format asked for, with the same counts per op as counters and its
// times 0 (a time under callgrind is not a measurement).
TEST(GbenchCounting, BenchmarkOutGetsTheCounts) {
  const std::string why = zerolab::test::why_no_callgrind();
  if (!why.empty()) GTEST_SKIP() << why;
  const std::string dir = zerolab::test::temp_dir("gbench_counting_out");
  const auto r = zerolab::test::run(
      std::string(ZEROLAB_GBENCH_COUNTING_FIXTURE) +
          " --benchmark_measure=instructions --benchmark_filter='BM_AsmAdds(3|10)$'"
          " --benchmark_out=" +
          dir + "/out.json",
      dir);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto parsed = zerolab::test::parse_go_output(r.out);
  const double three = instructions(parsed, "BenchmarkBM_AsmAdds3");
  const double ten = instructions(parsed, "BenchmarkBM_AsmAdds10");
  const std::string json = zerolab::test::read_file(dir + "/out.json");
  auto field = [&json](const std::string& benchmark, const std::string& key) {
    const std::size_t at = json.find("\"name\": \"" + benchmark + "\"");
    EXPECT_NE(at, std::string::npos) << json;
    const std::size_t end = json.find('}', at);
    const std::size_t k = json.find("\"" + key + "\": ", at);
    EXPECT_LT(k, end) << key << " not in " << benchmark << ": " << json;
    if (k >= end) return -1.0;
    return std::stod(json.substr(k + key.size() + 4));
  };
  EXPECT_EQ(field("BM_AsmAdds3", "instructions/op"), three);
  EXPECT_EQ(field("BM_AsmAdds10", "instructions/op"), ten);
  EXPECT_EQ(field("BM_AsmAdds10", "instructions/op") - field("BM_AsmAdds3", "instructions/op"), 7);
  EXPECT_EQ(field("BM_AsmAdds3", "cycles/op"), three);
  EXPECT_EQ(field("BM_AsmAdds3", "real_time"), 0);
  EXPECT_EQ(field("BM_AsmAdds3", "cpu_time"), 0);

  // The CSV format too: the counts as columns of each row.
  const auto csv =
      zerolab::test::run(std::string(ZEROLAB_GBENCH_COUNTING_FIXTURE) +
                             " --benchmark_measure=instructions --benchmark_filter='BM_AsmAdds3$'"
                             " --benchmark_out_format=csv --benchmark_out=" +
                             dir + "/out.csv",
                         dir);
  ASSERT_EQ(csv.code, 0) << csv.out << csv.err;
  const std::string table = zerolab::test::read_file(dir + "/out.csv");
  EXPECT_NE(table.find("\"instructions/op\""), std::string::npos) << table;
  EXPECT_NE(table.find("\"BM_AsmAdds3\""), std::string::npos) << table;
}

TEST(GbenchCounting, BadMeasureIsAUsageError) {
  static const std::string dir = zerolab::test::temp_dir("gbench_counting_test");
  const auto r = zerolab::test::run(
      std::string(ZEROLAB_GBENCH_COUNTING_FIXTURE) + " --benchmark_measure=cycles", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(),
            "gbench_counting_fixture: invalid value \"cycles\" for flag --benchmark_measure: "
            "must be time or instructions");
}

}  // namespace
