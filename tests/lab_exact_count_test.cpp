// Claims that count allocations are judged on the exact counts: the
// harness's exact_memory gives mallocs/op and malloc-B/op untruncated while
// the printed line keeps Go's integer allocs/op and B/op; 0.4 allocs/op is
// not "allocates nothing" (on synthetic samples, and through a lab run of a
// benchmark that allocates on 2 ops in 5); the judge refuses the truncated
// units; no claim of the catalog counts in them. No test asserts a timing.
//
// Example:
//   ./lab_exact_count_test --gtest_filter='ExactCount.*'
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "lab/experiments/catalog.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/judge.hpp"
#include "lab/framework/lab_run.hpp"
#include "lab_cli_util.hpp"
#include "lab_test_experiment.hpp"
#include "zerolab/bench_run.hpp"
#include "zerolab/benchfmt.hpp"

namespace zerolab::lab {
namespace {

using lab_test_util::read_file;

double metric(const benchfmt::Result& r, const std::string& unit) {
  for (const auto& m : r.metrics) {
    if (m.unit == unit) return m.value;
  }
  return -1;
}

// Allocates a 24-byte block on ops 0 and 2 of every 5: 0.4 allocs/op,
// 9.6 B/op, which Go's format prints as 0 allocs/op and 9 B/op.
void two_in_five(B& b) {
  for (std::int64_t i = 0; i < b.n(); ++i) {
    if (i % 5 == 0 || i % 5 == 2) {
      void* p = std::malloc(24);
      do_not_optimize(p);
      std::free(p);
    }
  }
}

TEST(ExactCount, TheHarnessGivesTheUntruncatedCountAndPrintsGosIntegers) {
  RunSettings settings;
  settings.iterations = 1000;
  settings.exact_memory = true;
  const RunReport report = run_benchmark("BenchmarkTwoInFive", &two_in_five, settings);
  ASSERT_FALSE(report.failed) << testing::PrintToString(report.failure_messages);
  ASSERT_EQ(report.results.size(), 1u);
  const benchfmt::Result& r = report.results[0];
  EXPECT_DOUBLE_EQ(metric(r, kAllocsPerOp), 0.4);
  EXPECT_DOUBLE_EQ(metric(r, kBytesPerOp), 9.6);
  EXPECT_EQ(metric(r, "allocs/op"), 0.0);  // as Go prints it: truncated
  EXPECT_EQ(metric(r, "B/op"), 9.0);
  const std::string line = benchfmt::format_result_line(r, 0);
  EXPECT_NE(line.find("\t       0 allocs/op"), std::string::npos) << line;
  EXPECT_NE(line.find("0.4000 mallocs/op"), std::string::npos) << line;
  EXPECT_NE(line.find("9.600 malloc-B/op"), std::string::npos) << line;

  settings.exact_memory = false;  // bench_main's and Go's output: no extra units
  const RunReport plain = run_benchmark("BenchmarkTwoInFive", &two_in_five, settings);
  ASSERT_EQ(plain.results.size(), 1u);
  EXPECT_EQ(metric(plain.results[0], kAllocsPerOp), -1);
  EXPECT_EQ(metric(plain.results[0], kBytesPerOp), -1);
  EXPECT_EQ(metric(plain.results[0], "allocs/op"), 0.0);
}

ExperimentOutcome outcome_with(const Experiment& e, double allocs_per_op, const std::string& unit) {
  ExperimentOutcome o;
  o.experiment = &e;
  for (int i = 0; i < 10; ++i) {
    o.results.push_back({"BenchmarkX", 1000, {{allocs_per_op, unit}}});
  }
  return o;
}

Claim allocates_nothing(const std::string& unit) {
  return Claim::within({"it allocates nothing", "Results", "0 allocs/op"}, "BenchmarkX", unit, 0,
                       kNothingAllocsPerOp);
}

TEST(ExactCount, PointFourAllocsPerOpIsNotAllocatingNothing) {
  Experiment e;
  e.claims = {allocates_nothing(kAllocsPerOp)};
  EXPECT_EQ(judge_measured(e.claims[0], outcome_with(e, 0.4, kAllocsPerOp), 0.05).verdict,
            Verdict::kContradicts);
  EXPECT_EQ(judge_measured(e.claims[0], outcome_with(e, 0.0, kAllocsPerOp), 0.05).verdict,
            Verdict::kReplicates);
  // A few stray allocations of the Go runtime over a million ops.
  EXPECT_EQ(judge_measured(e.claims[0], outcome_with(e, 2e-6, kAllocsPerOp), 0.05).verdict,
            Verdict::kReplicates);
  // One allocation in 500 ops is not nothing.
  EXPECT_EQ(judge_measured(e.claims[0], outcome_with(e, 0.002, kAllocsPerOp), 0.05).verdict,
            Verdict::kContradicts);
}

TEST(ExactCount, TheSeedsTruncatedCountIsARange) {
  // "6 allocs/op" printed by Go is an exact count in [6, 7).
  Experiment e;
  e.claims = {Claim::within({"six allocations", "Results", "6 allocs/op"}, "BenchmarkX",
                            kAllocsPerOp, 6, 6 + kBelowNextCount)};
  EXPECT_EQ(judge_measured(e.claims[0], outcome_with(e, 6.48, kAllocsPerOp), 0.05).verdict,
            Verdict::kReplicates);
  EXPECT_EQ(judge_measured(e.claims[0], outcome_with(e, 5.9, kAllocsPerOp), 0.05).verdict,
            Verdict::kContradicts);
  EXPECT_EQ(judge_measured(e.claims[0], outcome_with(e, 7.0, kAllocsPerOp), 0.05).verdict,
            Verdict::kContradicts);
}

TEST(ExactCount, TheTruncatedUnitsAreRefusedOnBothSides) {
  Experiment e;
  e.go_peer = "x";
  e.claims = {allocates_nothing("allocs/op").go_bench("BenchmarkX"),
              Claim::about({"half the bytes", "Results", "2x"}, 2.0, "BenchmarkX", "BenchmarkY")
                  .in("B/op")};
  ExperimentOutcome o = outcome_with(e, 0.0, "allocs/op");
  o.go_results = o.results;
  SideOutcome c = judge_measured(e.claims[0], o, 0.05);
  EXPECT_EQ(c.verdict, Verdict::kError);
  EXPECT_EQ(c.detail,
            "BenchmarkX: allocs/op is Go's truncated integer; the claim must count in mallocs/op");
  EXPECT_EQ(judge_go(e.claims[0], o, 0.05, nullptr).verdict, Verdict::kError);
  c = judge_measured(e.claims[1], o, 0.05);
  EXPECT_EQ(c.verdict, Verdict::kError);
  EXPECT_EQ(c.detail,
            "BenchmarkX: B/op is Go's truncated integer; the claim must count in malloc-B/op");
}

TEST(ExactCount, NoClaimOfTheCatalogCountsInTruncatedUnits) {
  int counting = 0;
  for (const Experiment& e : catalog()) {
    for (const Claim& c : e.claims) {
      if (c.kind == ClaimKind::kFact) continue;
      for (const std::string& unit : {c.unit, c.go.unit}) {
        EXPECT_NE(unit, "allocs/op") << e.id << ": " << c.statement;
        EXPECT_NE(unit, "B/op") << e.id << ": " << c.statement;
      }
      if (c.unit == kAllocsPerOp || c.unit == kBytesPerOp) ++counting;
    }
  }
  // oid, append-int, copy and arena count allocations or bytes.
  EXPECT_GE(counting, 15);
}

void allocate_two_in_five(B& b) {
  two_in_five(b);
}

TEST(ExactCount, ALabRunJudgesTheExactCount) {
  Experiment e = lab_test_util::experiment("exact", "a benchmark that allocates on 2 ops in 5");
  e.benchmarks = {{"BenchmarkTwoInFive", &allocate_two_in_five, 1000}};
  e.claims = {Claim::within({"it allocates nothing", "Results", "0 allocs/op"},
                            "BenchmarkTwoInFive", kAllocsPerOp, 0, kNothingAllocsPerOp)};
  LabSettings s;
  s.experiments = {&e};
  s.count = 6;
  s.benchtime_text = "1000x";
  s.out_dir = lab_test_util::temp_dir("zerolab_lab_exact");
  s.command = "test";
  s.go = false;
  const std::string out_path = s.out_dir + "/stdout";
  std::FILE* out = std::fopen(out_path.c_str(), "w");
  std::FILE* err = std::fopen((s.out_dir + "/stderr").c_str(), "w");
  ASSERT_NE(out, nullptr);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(run_lab(s, out, err), 0);
  std::fclose(out);
  std::fclose(err);
  const std::string text = read_file(out_path);
  EXPECT_NE(text.find("0.400 mallocs/op [0.400, 0.400]"), std::string::npos) << text;
  EXPECT_NE(text.find("contradicts (limit [0, 0.001] mallocs/op n=6)"), std::string::npos) << text;
  // The raw results keep Go's printed count and the exact one.
  const std::string raw = read_file(s.out_dir + "/exact.txt");
  EXPECT_NE(raw.find("       0 allocs/op"), std::string::npos) << raw;
  EXPECT_NE(raw.find("0.4000 mallocs/op"), std::string::npos) << raw;
}

}  // namespace
}  // namespace zerolab::lab
