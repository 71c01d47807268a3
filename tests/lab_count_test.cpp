// `zerolab lab --measure=instructions` on one small experiment
// (lab_count_fixture): the counted claim gets its benchmarks' exact counts
// beside its time verdict in report.md and report.html (seven adds more
// read seven instructions more), the claims that counts do not answer say
// why, and the time verdicts stay. Skips, with the reason, where valgrind
// cannot run.
#include <gtest/gtest.h>

#include <string>

#include "counting_test_util.hpp"
#include "test_util.hpp"

namespace {

// The number after `prefix` in `text`, or -1.
double number_after(const std::string& text, const std::string& prefix) {
  const std::size_t at = text.find(prefix);
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + prefix.size()));
}

TEST(LabCounts, CountsStandBesideTheTimeVerdicts) {
  const std::string why = zerolab::test::why_no_callgrind();
  if (!why.empty()) GTEST_SKIP() << why;
  const std::string dir = zerolab::test::temp_dir("lab_count_test");
  const auto r = zerolab::test::run(std::string(ZEROLAB_LAB_COUNT_FIXTURE) + " " + dir, dir);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const std::string md = zerolab::test::read_file(dir + "/report.md");
  ASSERT_NE(md.find("Counts per op under callgrind (--measure=instructions), beside the time "
                    "verdicts above, which they do not replace:"),
            std::string::npos)
      << md;
  // "- three adds do less work than ten — BenchmarkAdds/n=10 / BenchmarkAdds/n=3: R.RRx
  //   instructions (A vs B instructions/op), ..."
  const std::string counted =
      "- three adds do less work than ten — BenchmarkAdds/n=10 / BenchmarkAdds/n=3: ";
  const std::size_t line = md.find(counted);
  ASSERT_NE(line, std::string::npos) << md;
  const std::string rest = md.substr(line, md.find('\n', line) - line);
  const std::size_t open = rest.find("instructions (");
  ASSERT_NE(open, std::string::npos) << rest;
  const double ten = number_after(rest, "instructions (");
  const double three = number_after(rest.substr(open), " vs ");
  EXPECT_EQ(ten - three, 7) << rest;
  EXPECT_NE(rest.find("instructions/op), "), std::string::npos) << rest;
  EXPECT_NE(rest.find("cycles/op)"), std::string::npos) << rest;
  EXPECT_NE(md.find("- three adds take less time than ten — counts do not answer it: it is "
                    "about time here"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- this machine adds — counts do not answer it: a fact checked directly, "
                    "not a measurement"),
            std::string::npos)
      << md;
  // The time verdicts are still there: the claims table with its three rows.
  EXPECT_NE(md.find("| three adds do less work than ten |"), std::string::npos) << md;
  EXPECT_NE(md.find("| three adds take less time than ten |"), std::string::npos) << md;
  const std::string html = zerolab::test::read_file(dir + "/report.html");
  EXPECT_NE(html.find("<h3>Counts per op under callgrind</h3>"), std::string::npos);
  EXPECT_NE(html.find("<li>three adds do less work than ten — BenchmarkAdds/n=10 / "
                      "BenchmarkAdds/n=3: "),
            std::string::npos);
  // The terminal output says it too.
  EXPECT_NE(r.out.find("adds: counts (callgrind), beside the time verdicts:"), std::string::npos)
      << r.out;
}

}  // namespace
