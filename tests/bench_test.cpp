// End-to-end tests of the harness: runs bench_fixture (tests/bench_fixture.cpp)
// as a subprocess with flags and asserts its exact output: allocation counts,
// iteration counts, names, failure handling, bad flags and the format.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "go_format.hpp"
#include "test_util.hpp"

namespace {

struct FixtureRun {
  int exit_code = -1;
  std::string out;
  std::string err;
  zerolab::test::ParsedOutput parsed;
};

using zerolab::test::read_file;

FixtureRun run_fixture(const std::string& args) {
  static const std::string dir = zerolab::test::temp_dir("bench_test");
  const zerolab::test::CommandResult c =
      zerolab::test::run(std::string(ZEROLAB_BENCH_FIXTURE) + " " + args, dir);
  FixtureRun r;
  r.exit_code = c.code;
  r.out = c.out;
  r.err = c.err;
  r.parsed = zerolab::test::parse_go_output(r.out);
  return r;
}

// Runs one fixture benchmark for exactly 100 iterations on one CPU.
zerolab::test::ParsedResult run_one(const std::string& name) {
  const FixtureRun r = run_fixture("-bench '^Benchmark" + name + "$' -benchtime 100x -cpu 1");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.parsed.error, "") << r.out;
  EXPECT_EQ(r.parsed.results.size(), 1u) << r.out;
  if (r.parsed.results.empty()) return {};
  return r.parsed.results[0];
}

void expect_allocs(const std::string& name, double bytes, double allocs) {
  const auto r = run_one(name);
  EXPECT_EQ(r.iterations, 100) << name;
  EXPECT_EQ(r.values.at("B/op"), bytes) << name;
  EXPECT_EQ(r.values.at("allocs/op"), allocs) << name;
}

TEST(BenchAllocs, NewIntIsOneAllocOfFourBytes) {
  expect_allocs("AllocNewInt", 4, 1);
}

TEST(BenchAllocs, StringOf100CharsRequests101Bytes) {
  expect_allocs("AllocString100", 101, 1);
}

TEST(BenchAllocs, VectorGrownTo1000ByPushBack) {
  // libstdc++ doubles the capacity from 1: 1, 2, 4, ..., 1024 ints.
  double bytes = 0;
  double allocs = 0;
  for (int capacity = 1; capacity <= 1024; capacity *= 2) {
    bytes += 4.0 * capacity;
    ++allocs;
  }
  ASSERT_EQ(allocs, 11);
  ASSERT_EQ(bytes, 8188);
  expect_allocs("AllocVector1000", bytes, allocs);
}

TEST(BenchAllocs, CallocCountsTheProduct) {
  expect_allocs("AllocCalloc", 80, 1);
}

TEST(BenchAllocs, ReallocGrowthAndShrinkCountEach) {
  expect_allocs("AllocRealloc", 16 + 4096 + 8, 3);
}

TEST(BenchAllocs, PosixMemalign) {
  expect_allocs("AllocPosixMemalign", 1000, 1);
}

TEST(BenchAllocs, AlignedNew) {
  expect_allocs("AllocAlignedNew", 64, 1);
}

TEST(BenchAllocs, StoppedTimerAllocationsAreNotCounted) {
  expect_allocs("AllocTimerStopped", sizeof(long), 1);
}

TEST(BenchAllocs, ParallelAllocationsAreSummedOverThreads) {
  for (const char* cpu : {"1", "2", "4"}) {
    const FixtureRun r =
        run_fixture(std::string("-bench '^BenchmarkAllocParallel$' -benchtime 1000x -cpu ") + cpu);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    ASSERT_EQ(r.parsed.results.size(), 1u) << r.out;
    const auto& res = r.parsed.results[0];
    EXPECT_EQ(res.iterations, 1000);
    EXPECT_EQ(res.values.at("B/op"), 4) << cpu;
    EXPECT_EQ(res.values.at("allocs/op"), 1) << cpu;
  }
}

TEST(BenchAllocs, BenchmemFalseHidesTheColumns) {
  const FixtureRun r =
      run_fixture("-bench '^BenchmarkAllocNewInt$' -benchtime 10x -benchmem=false");
  ASSERT_EQ(r.parsed.results.size(), 1u);
  EXPECT_EQ(r.parsed.results[0].values.count("B/op"), 0u);
  EXPECT_EQ(r.parsed.results[0].values.count("allocs/op"), 0u);
  EXPECT_EQ(r.parsed.results[0].values.count("faults/op"), 1u);
}

TEST(BenchCalibration, FixedCountRunsExactlyThatMany) {
  for (const char* name : {"LoopCount", "ClassicCount"}) {
    const auto r = run_one(name);
    EXPECT_EQ(r.iterations, 100) << name;
    EXPECT_EQ(r.values.at("bodies"), 100) << name;
  }
}

TEST(BenchCalibration, DurationRunsAtLeastThatLong) {
  for (const char* name : {"LoopCount", "ClassicCount"}) {
    const FixtureRun r =
        run_fixture(std::string("-bench '^Benchmark") + name + "$' -benchtime 1s -cpu 1");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(r.parsed.results.size(), 1u) << r.out;
    const auto& res = r.parsed.results[0];
    EXPECT_GE(res.values.at("total-ns"), 1e9) << name;
    EXPECT_EQ(res.values.at("bodies"), static_cast<double>(res.iterations)) << name;
  }
}

TEST(BenchCalibration, CountRepeatsEachBenchmark) {
  const FixtureRun r = run_fixture("-bench '^BenchmarkLoopCount$' -benchtime 5x -count 3 -cpu 1");
  ASSERT_EQ(r.parsed.results.size(), 3u) << r.out;
  for (const auto& res : r.parsed.results) EXPECT_EQ(res.iterations, 5);
}

std::vector<std::string> names_of(const FixtureRun& r) {
  std::vector<std::string> names;
  for (const auto& res : r.parsed.results) names.push_back(res.name);
  return names;
}

TEST(BenchNames, SubBenchmarksSpacesAndDuplicates) {
  const FixtureRun r = run_fixture("-bench '^BenchmarkNames$' -benchtime 1x -cpu 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(names_of(r),
            (std::vector<std::string>{"BenchmarkNames/a_b", "BenchmarkNames/x",
                                      "BenchmarkNames/x#01", "BenchmarkNames/nested/deep"}));
}

TEST(BenchNames, SlashSeparatedFilterSelectsSubBenchmarks) {
  FixtureRun r = run_fixture("-bench 'Names/^x' -benchtime 1x -cpu 1");
  EXPECT_EQ(names_of(r), (std::vector<std::string>{"BenchmarkNames/x", "BenchmarkNames/x#01"}));
  r = run_fixture("-bench 'Names/nested/deep' -benchtime 1x -cpu 1");
  EXPECT_EQ(names_of(r), (std::vector<std::string>{"BenchmarkNames/nested/deep"}));
  r = run_fixture("-bench 'Names/nope' -benchtime 1x -cpu 1");
  EXPECT_TRUE(r.parsed.results.empty());
  EXPECT_EQ(r.parsed.status, "PASS");
}

TEST(BenchNames, CpuListAddsSuffixesExceptForOne) {
  const FixtureRun r = run_fixture("-bench '^BenchmarkLoopCount$' -benchtime 1x -cpu 1,2,4");
  EXPECT_EQ(names_of(r), (std::vector<std::string>{"BenchmarkLoopCount", "BenchmarkLoopCount-2",
                                                   "BenchmarkLoopCount-4"}));
}

TEST(BenchNames, ListPrintsMatchingTopLevelNames) {
  const FixtureRun r = run_fixture("-list 'Alloc(NewInt|Calloc)'");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "BenchmarkAllocNewInt\nBenchmarkAllocCalloc\n");
}

TEST(BenchOutput, HeaderAndMetricOrderAsGoPrintsThem) {
  const FixtureRun r = run_fixture("-bench '^BenchmarkMetrics$' -benchtime 10x -cpu 1");
  ASSERT_EQ(r.parsed.error, "") << r.out;
  EXPECT_EQ(r.parsed.config.at("goos"), "linux");
  EXPECT_EQ(r.parsed.config.at("goarch"), "amd64");
  EXPECT_EQ(r.parsed.config.at("pkg"), "bench_fixture");
  ASSERT_EQ(r.parsed.results.size(), 1u);
  // ns/op reported as 0 is hidden; MB/s first, then custom units sorted,
  // then B/op and allocs/op.
  EXPECT_EQ(r.parsed.results[0].units,
            (std::vector<std::string>{"MB/s", "faults/op", "widgets/op", "B/op", "allocs/op"}));
  EXPECT_EQ(r.parsed.results[0].values.at("widgets/op"), 1.5);
  EXPECT_NE(r.out.find("\t         1.500 widgets/op"), std::string::npos) << r.out;
}

TEST(BenchOutput, EveryLineIsStrictGoBenchmarkFormat) {
  // Every fixture benchmark but the crashing one, over two -cpu values.
  const FixtureRun r =
      run_fixture("-bench '^Benchmark([^C]|C[^r])' -benchtime 3x -cpu 1,2 -count 2");
  EXPECT_EQ(r.exit_code, 1);  // BenchmarkFatal and BenchmarkThrows fail
  EXPECT_EQ(r.parsed.error, "") << r.out;
  EXPECT_EQ(r.parsed.status, "FAIL");
  EXPECT_GE(r.parsed.results.size(), 40u) << r.out;
  for (const auto& res : r.parsed.results) {
    EXPECT_EQ(res.iterations, 3) << res.name;
    EXPECT_EQ(res.units.back(), "allocs/op") << res.name;
  }
}

TEST(BenchOutput, FailuresAreReportedAndTheRestStillRuns) {
  const FixtureRun r =
      run_fixture("-bench '^Benchmark(Fatal|Throws|AllocNewInt)$' -benchtime 1x -cpu 1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.parsed.error, "") << r.out;
  EXPECT_EQ(r.parsed.status, "FAIL");
  EXPECT_EQ(names_of(r), (std::vector<std::string>{"BenchmarkAllocNewInt"}));
  EXPECT_NE(r.out.find("--- FAIL: BenchmarkFatal\n    deliberate failure\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("--- FAIL: BenchmarkThrows\n    benchmark threw an exception: deliberate "
                       "exception\n"),
            std::string::npos)
      << r.out;
}

TEST(BenchOutput, SkipAndLog) {
  const FixtureRun r = run_fixture("-bench '^Benchmark(Skipped|Logs)$' -benchtime 1x -cpu 1");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--- SKIP: BenchmarkSkipped\n    not on this machine\n"), std::string::npos);
  EXPECT_NE(r.out.find("--- BENCH: BenchmarkLogs\n    a note\n"), std::string::npos);
}

TEST(BenchOutput, HeapMetrics) {
  const FixtureRun r = run_fixture("-bench '^BenchmarkHeap$' -benchtime 1x -cpu 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.parsed.results.size(), 1u) << r.out;
  const auto& v = r.parsed.results[0].values;
  // The function held 1 MiB at its peak and leaked a 64 KiB vector plus its
  // 24-byte object. before/after are the allocator's in-use bytes (glibc's
  // mallinfo2), which add a header per chunk and may already count the small
  // object's chunk if it sat in a thread cache, hence the range.
  EXPECT_GE(v.at("heap-peak-B") - v.at("heap-before-B"), 1 << 20);
  EXPECT_GE(v.at("heap-leaked-B"), 65536);
  EXPECT_LE(v.at("heap-leaked-B"), 65536 + 24 + 64);
  EXPECT_EQ(v.at("heap-leaked-B"), v.at("heap-after-B") - v.at("heap-before-B"));
}

TEST(BenchOutput, OutputFileGetsTheSameText) {
  const std::string path = ::testing::TempDir() + "bench_test_o.txt";
  const FixtureRun r = run_fixture("-bench '^BenchmarkLoopCount$' -benchtime 1x -cpu 1 -o " + path);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(read_file(path), r.out);
  std::remove(path.c_str());
}

TEST(BenchOutput, SignalNamesTheBenchmark) {
  const FixtureRun r = run_fixture("-bench '^BenchmarkCrash$' -benchtime 1x -cpu 1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("zerolab: BenchmarkCrash died of signal SIGSEGV"), std::string::npos)
      << r.err;
}

TEST(BenchFlags, BadInputIsOneLineAndExit2) {
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"-nosuchflag", "bench_fixture: flag provided but not defined: -nosuchflag\n"},
      {"-bench '('", nullptr},
      {"-benchtime abc",
       "bench_fixture: invalid value \"abc\" for flag -benchtime: invalid duration\n"},
      {"-benchtime 0x", "bench_fixture: invalid value \"0x\" for flag -benchtime: invalid count\n"},
      {"-count 0",
       "bench_fixture: invalid value \"0\" for flag -count: must be a positive integer\n"},
      {"-cpu 0",
       "bench_fixture: invalid value \"0\" for flag -cpu: each entry must be a positive integer\n"},
      {"-cpu x",
       "bench_fixture: invalid value \"x\" for flag -cpu: each entry must be a positive integer\n"},
      {"-benchmem=maybe",
       "bench_fixture: invalid value \"maybe\" for flag -benchmem: not a boolean\n"},
      {"-count", "bench_fixture: flag needs an argument: -count\n"},
  };
  for (const auto& c : cases) {
    const FixtureRun r = run_fixture(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
    if (c.message != nullptr) {
      EXPECT_EQ(r.err, c.message) << c.args;
    } else {
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_NE(r.err.find("invalid value \"(\" for flag -bench"), std::string::npos) << r.err;
    }
  }
}

TEST(BenchFlags, DoubleDashAndEqualsFormsWork) {
  const FixtureRun r = run_fixture("--bench=^BenchmarkLoopCount$ --benchtime=3x --cpu=1");
  ASSERT_EQ(r.parsed.results.size(), 1u) << r.out << r.err;
  EXPECT_EQ(r.parsed.results[0].iterations, 3);
}

}  // namespace
