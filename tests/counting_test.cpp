// The counting mode (-benchmeasure=instructions): exact, repeatable counts
// per op from callgrind, for counting_fixture's hand-written loops and
// example_bench; and the parser of callgrind's dump headers. The runs under
// callgrind skip, with the reason, where valgrind is not installed or the
// build is sanitized (valgrind cannot run those).
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/callgrind_dump.hpp"
#include "bench/counting.hpp"
#include "bench/counting_run.hpp"
#include "counting_test_util.hpp"
#include "go_format.hpp"
#include "test_util.hpp"

namespace {

using zerolab::internal::CallgrindDump;
using zerolab::internal::parse_callgrind_dump;

constexpr bool kSanitized = zerolab::test::kSanitizedBuild;
using zerolab::test::why_no_callgrind;

#define SKIP_WITHOUT_CALLGRIND()                \
  do {                                          \
    const std::string why = why_no_callgrind(); \
    if (!why.empty()) GTEST_SKIP() << why;      \
  } while (false)

zerolab::test::CommandResult run(const std::string& command) {
  static const std::string dir = zerolab::test::temp_dir("counting_test");
  return zerolab::test::run(command, dir);
}

// Counts per op of each benchmark matching `bench` in counting_fixture.
zerolab::test::ParsedOutput count_fixture(const std::string& bench, const std::string& extra = "") {
  const auto r =
      run(std::string(ZEROLAB_COUNTING_FIXTURE) +
          " -benchmeasure=instructions -benchtime 20x -cpu 1 -bench '" + bench + "' " + extra);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  const auto parsed = zerolab::test::parse_go_output(r.out);
  EXPECT_EQ(parsed.error, "") << r.out;
  return parsed;
}

double value_of(const zerolab::test::ParsedOutput& parsed, const std::string& name,
                const std::string& unit) {
  for (const auto& r : parsed.results) {
    if (r.name == name) return r.values.at(unit);
  }
  ADD_FAILURE() << "no result for " << name;
  return -1;
}

TEST(Counting, ReportsExactUnitsWithoutTimes) {
  SKIP_WITHOUT_CALLGRIND();
  const auto r =
      run(std::string(ZEROLAB_COUNTING_FIXTURE) +
          " -benchmeasure=instructions -benchtime 20x -cpu 1 -bench '^BenchmarkAsmAdds3$'");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  for (const char* unit : {"instructions/op", "L1-misses/op", "LL-misses/op", "cycles/op"}) {
    EXPECT_EQ(
        zerolab::test::count_occurrences(r.out, std::string("Unit ") + unit + " assume=exact\n"), 1)
        << r.out;
  }
  const auto parsed = zerolab::test::parse_go_output(r.out);
  ASSERT_EQ(parsed.results.size(), 1u) << r.out;
  EXPECT_EQ(parsed.results[0].iterations, 20);
  EXPECT_EQ(parsed.results[0].values.count("ns/op"), 0u) << r.out;
  EXPECT_EQ(parsed.results[0].values.count("faults/op"), 0u) << r.out;
  EXPECT_EQ(parsed.results[0].values.at("allocs/op"), 0) << r.out;
  EXPECT_EQ(r.out.substr(r.out.size() - 5), "PASS\n");
}

TEST(Counting, SevenMoreInstructionsInTheLoopReadSevenMore) {
  SKIP_WITHOUT_CALLGRIND();
  const auto parsed = count_fixture("^BenchmarkAsmAdds(3|10)$");
  const double three = value_of(parsed, "BenchmarkAsmAdds3", "instructions/op");
  const double ten = value_of(parsed, "BenchmarkAsmAdds10", "instructions/op");
  EXPECT_EQ(ten - three, 7) << three << " " << ten;
  // The loop's own increment, compare and branch (and x kept in memory)
  // come on top of the adds.
  EXPECT_GE(three, 3);
  EXPECT_LE(three, 20);
  EXPECT_EQ(value_of(parsed, "BenchmarkAsmAdds10", "cycles/op") -
                value_of(parsed, "BenchmarkAsmAdds3", "cycles/op"),
            7);
}

TEST(Counting, SetupBeforeTheLoopIsNotCounted) {
  SKIP_WITHOUT_CALLGRIND();
  const auto parsed = count_fixture("^BenchmarkAsmAdds3AfterSetup$");
  const double none = value_of(parsed, "BenchmarkAsmAdds3AfterSetup/setup=0", "instructions/op");
  EXPECT_EQ(value_of(parsed, "BenchmarkAsmAdds3AfterSetup/setup=100000", "instructions/op"), none);
  EXPECT_LE(none, 20);
}

TEST(Counting, SetupBeforeAClassicLoopCancelsOut) {
  SKIP_WITHOUT_CALLGRIND();
  const auto parsed = count_fixture("^BenchmarkAsmAdds3ClassicLoop$");
  const double n = value_of(parsed, "BenchmarkAsmAdds3ClassicLoop", "instructions/op");
  // Three adds and the loop's few instructions, not 100000 / 20 of setup.
  EXPECT_GE(n, 3);
  EXPECT_LE(n, 10);
  EXPECT_EQ(n, static_cast<double>(static_cast<long long>(n))) << "not a whole number: " << n;
}

TEST(Counting, StoppedTimerStopsCounting) {
  SKIP_WITHOUT_CALLGRIND();
  const auto parsed = count_fixture("^BenchmarkAsmAdds3StoppedWork$");
  const double small =
      value_of(parsed, "BenchmarkAsmAdds3StoppedWork/work=1000", "instructions/op");
  const double large =
      value_of(parsed, "BenchmarkAsmAdds3StoppedWork/work=5000", "instructions/op");
  EXPECT_EQ(small, large);
  // What is left is the adds, the loop and the timer calls' edges.
  EXPECT_LT(small, 100);
}

// run_parallel with -cpu 2: both workers' shares of the iterations are
// counted and the sum divided by the total count, so a 100-add body reads
// 100 and the few instructions of pb.next(), one add more reads exactly
// one more, and two runs agree to the last digit.
TEST(Counting, RunParallelCountsEveryThreadOverTheTotalIterations) {
  SKIP_WITHOUT_CALLGRIND();
  const std::string command = std::string(ZEROLAB_COUNTING_FIXTURE) +
                              " -benchmeasure=instructions -benchtime 20x -cpu 2"
                              " -bench '^BenchmarkAsmChainParallel$'";
  const auto first = run(command);
  const auto second = run(command);
  ASSERT_EQ(first.code, 0) << first.out << first.err;
  ASSERT_EQ(second.code, 0) << second.out << second.err;
  const auto a = zerolab::test::parse_go_output(first.out);
  const auto b = zerolab::test::parse_go_output(second.out);
  const double hundred = value_of(a, "BenchmarkAsmChainParallel/adds=100-2", "instructions/op");
  const double hundred_one = value_of(a, "BenchmarkAsmChainParallel/adds=101-2", "instructions/op");
  EXPECT_EQ(hundred_one - hundred, 1) << first.out;
  EXPECT_GE(hundred, 100) << first.out;
  EXPECT_LT(hundred, 120) << first.out;
  for (const char* name :
       {"BenchmarkAsmChainParallel/adds=100-2", "BenchmarkAsmChainParallel/adds=101-2"}) {
    for (const char* unit : {"instructions/op", "L1-misses/op", "LL-misses/op", "cycles/op"}) {
      EXPECT_EQ(value_of(a, name, unit), value_of(b, name, unit)) << name << " " << unit;
    }
  }
}

TEST(Counting, CacheMissesFollowTheSimulatedCaches) {
  SKIP_WITHOUT_CALLGRIND();
  const auto parsed = count_fixture("^BenchmarkWalk64KiB$");
  // 1024 lines of 64 bytes, twice the simulated L1: each load misses L1
  // and hits LL once warm. The walk also evicts the loop's own stack line.
  const double l1 = value_of(parsed, "BenchmarkWalk64KiB", "L1-misses/op");
  EXPECT_GE(l1, 1024);
  EXPECT_LE(l1, 1030);
  EXPECT_EQ(value_of(parsed, "BenchmarkWalk64KiB", "LL-misses/op"), 0);
  // The printed values are rounded to whole numbers at this size (Go's
  // format); counts_per_op's test checks the formula exactly.
  EXPECT_NEAR(value_of(parsed, "BenchmarkWalk64KiB", "cycles/op"),
              value_of(parsed, "BenchmarkWalk64KiB", "instructions/op") + 10 * l1, 6);
}

TEST(Counting, TwoRunsOfTheExamplesGiveIdenticalCounts) {
  SKIP_WITHOUT_CALLGRIND();
#ifndef ZEROLAB_EXAMPLE_BENCH
  GTEST_SKIP() << "the examples are not built (ZEROLAB_BUILD_EXAMPLES=OFF)";
#else
  const std::string command = std::string(ZEROLAB_EXAMPLE_BENCH) +
                              " -benchmeasure=instructions -benchtime 5x -cpu 1"
                              " -bench 'StringConcat|MergeSlicesNoZero|Memcpy/size=4096|SortInts'";
  const auto first = run(command);
  const auto second = run(command);
  ASSERT_EQ(first.code, 0) << first.out << first.err;
  ASSERT_EQ(second.code, 0) << second.out << second.err;
  const auto a = zerolab::test::parse_go_output(first.out);
  const auto b = zerolab::test::parse_go_output(second.out);
  ASSERT_EQ(a.results.size(), 4u) << first.out;
  ASSERT_EQ(b.results.size(), 4u) << second.out;
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    EXPECT_EQ(a.results[i].name, b.results[i].name);
    for (const char* unit : {"instructions/op", "L1-misses/op", "LL-misses/op", "cycles/op"}) {
      EXPECT_EQ(a.results[i].values.at(unit), b.results[i].values.at(unit))
          << a.results[i].name << " " << unit;
    }
  }
#endif
}

TEST(Counting, WritesTheCountsToTheOutputFile) {
  SKIP_WITHOUT_CALLGRIND();
  const std::string dir = zerolab::test::temp_dir("counting_test_o");
  const auto r = run(std::string(ZEROLAB_COUNTING_FIXTURE) +
                     " -benchmeasure=instructions -benchtime 5x -cpu 1 -bench '^BenchmarkAsmAdds3$'"
                     " -o " +
                     dir + "/out.txt");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(zerolab::test::read_file(dir + "/out.txt"), r.out);
}

// The names in `dir`, sorted, without "." and "..".
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The process whose parent is `parent`, or -1.
pid_t child_of(pid_t parent) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return -1;
  pid_t found = -1;
  while (const dirent* e = readdir(proc)) {
    const std::string stat = zerolab::test::read_file(std::string("/proc/") + e->d_name + "/stat");
    // "pid (comm) state ppid ...": comm may hold spaces, not ')'.
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %*c %d", &ppid) == 1 && ppid == parent) {
      found = static_cast<pid_t>(std::atoi(e->d_name));
      break;
    }
  }
  closedir(proc);
  return found;
}

// A counting run stopped by SIGINT or SIGTERM while its child is in a
// benchmark: the valgrind child is stopped and reaped, the dumps already
// written are removed, and the run dies of the signal it was sent.
TEST(Counting, AStopSignalStopsValgrindAndRemovesTheDumps) {
  SKIP_WITHOUT_CALLGRIND();
  for (const int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(sig);
    const std::string tmp = zerolab::test::temp_dir("counting_test_signal");
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    const pid_t parent = fork();
    ASSERT_GE(parent, 0);
    if (parent == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      setenv("TMPDIR", tmp.c_str(), 1);
      execl(ZEROLAB_COUNTING_FIXTURE, ZEROLAB_COUNTING_FIXTURE, "-benchmeasure=instructions",
            "-benchtime", "5x", "-cpu", "1", "-bench", "^Benchmark(AsmAdds3|WaitsForASignal)$",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    // The first benchmark's line comes after its two dumps were read: the
    // child is now waiting in the second benchmark, its dumps on disk.
    std::string seen;
    char buf[4096];
    auto line_done = [&seen] {
      const std::size_t at = seen.find("BenchmarkAsmAdds3 ");
      return at != std::string::npos && seen.find('\n', at) != std::string::npos;
    };
    while (!line_done()) {
      const ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      seen.append(buf, static_cast<std::size_t>(n));
    }
    ASSERT_TRUE(line_done()) << seen;
    const std::vector<std::string> runs = entries(tmp);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].rfind("zerolab-count.", 0), 0u) << runs[0];
    const std::vector<std::string> dumps = entries(tmp + "/" + runs[0]);
    EXPECT_NE(std::find(dumps.begin(), dumps.end(), "callgrind.out.1"), dumps.end());
    const pid_t valgrind = child_of(parent);
    ASSERT_GT(valgrind, 0);
    ASSERT_EQ(kill(parent, sig), 0);
    int status = 0;
    ASSERT_EQ(waitpid(parent, &status, 0), parent);
    close(out[0]);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    // Reaped by the run before it died: no such process any more.
    EXPECT_EQ(kill(valgrind, 0), -1);
    EXPECT_EQ(errno, ESRCH);
    EXPECT_EQ(entries(tmp), std::vector<std::string>{});
  }
}

// run_benchmark counts in a process that runs as a counting child (here
// started by run_self_counting): seven more adds read seven more, and the
// records carry the four exact units and no time.
TEST(Counting, RunBenchmarkCountsInACountingChild) {
  SKIP_WITHOUT_CALLGRIND();
  const auto r = run(ZEROLAB_COUNTING_RUN_BENCHMARK_FIXTURE);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto parsed = zerolab::test::parse_go_output(r.out);
  ASSERT_EQ(parsed.results.size(), 2u) << r.out;
  const double three = value_of(parsed, "BenchmarkAdds3", "instructions/op");
  EXPECT_EQ(value_of(parsed, "BenchmarkAdds10", "instructions/op") - three, 7) << r.out;
  EXPECT_GE(three, 3);
  EXPECT_LE(three, 20);
  for (const auto& result : parsed.results) {
    EXPECT_EQ(result.iterations, 20);
    EXPECT_EQ(result.values.count("ns/op"), 0u) << r.out;
    EXPECT_EQ(result.values.count("cycles/op"), 1u) << r.out;
  }
}

// Outside a counting child, run_benchmark says why it cannot count.
TEST(Counting, RunBenchmarkOutsideACountingChildSaysWhyNot) {
  const auto r = run(std::string(ZEROLAB_COUNTING_RUN_BENCHMARK_FIXTURE) + " in-process");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  const std::string why = zerolab::internal::counting::built_with_callgrind()
                              ? "this process does not run under callgrind as a counting run's "
                                "child, and run_benchmark cannot start valgrind for a function "
                                "in this process"
                              : "this build cannot count (built without valgrind/callgrind.h, or "
                                "with a sanitizer)";
  EXPECT_EQ(r.out,
            "FAIL: counting instructions: " + why + "\nFAIL: counting instructions: " + why + "\n");
}

TEST(Counting, MissingValgrindIsAUsageError) {
  if (kSanitized || !zerolab::internal::counting::built_with_callgrind()) {
    GTEST_SKIP() << "the counting mode is not built here";
  }
  const auto r = run("PATH=/nonexistent " + std::string(ZEROLAB_COUNTING_FIXTURE) +
                     " -benchmeasure=instructions -bench '^BenchmarkAsmAdds3$'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.first_err_line(),
            "counting_fixture: -benchmeasure=instructions: valgrind not found in PATH (it runs "
            "the benchmarks under callgrind; Debian: apt install valgrind)");
}

TEST(Counting, BadMeasureIsAUsageError) {
  const auto r = run(std::string(ZEROLAB_COUNTING_FIXTURE) + " -benchmeasure=cycles");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(),
            "counting_fixture: invalid value \"cycles\" for flag -benchmeasure: must be time or "
            "instructions");
}

TEST(CallgrindDump, ReadsTriggerEventsAndSummary) {
  const std::string text =
      "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n\n"
      "desc: Trigger: Client Request: zerolab-bench pass 1 n 20 BenchmarkX\n\n"
      "positions: line\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
      "summary: 6014 1000 1007 2 0 5\n\nfn=(1) main\n0 6014\n";
  CallgrindDump dump;
  std::string error;
  ASSERT_TRUE(parse_callgrind_dump(text, dump, error)) << error;
  EXPECT_EQ(dump.trigger, "Client Request: zerolab-bench pass 1 n 20 BenchmarkX");
  EXPECT_EQ(dump.event("Ir"), 6014u);
  EXPECT_EQ(dump.event("D1mw"), 5u);
  EXPECT_EQ(dump.event("DLmw"), 0u);  // left out of the summary: zero
  EXPECT_TRUE(dump.has_event("DLmw"));
  EXPECT_FALSE(dump.has_event("Bc"));
}

TEST(CallgrindDump, RefusesWhatIsNotADump) {
  CallgrindDump dump;
  std::string error;
  EXPECT_FALSE(parse_callgrind_dump("hello\n", dump, error));
  EXPECT_EQ(error,
            "callgrind dump line 1: not a callgrind dump (no \"# callgrind format\" or "
            "\"version:\" header)");
  EXPECT_FALSE(parse_callgrind_dump("version: 1\nsummary: 1\n", dump, error));
  EXPECT_EQ(error, "callgrind dump line 2: summary: before the events: line");
  EXPECT_FALSE(parse_callgrind_dump("version: 1\nevents: Ir\nsummary: 1 2\n", dump, error));
  EXPECT_EQ(error, "callgrind dump line 3: summary: has 2 counts for 1 events");
  EXPECT_FALSE(parse_callgrind_dump("version: 1\nevents: Ir\nsummary: -1\n", dump, error));
  EXPECT_EQ(error, "callgrind dump line 3: summary: count \"-1\" is not a whole number");
  EXPECT_FALSE(parse_callgrind_dump("version: 1\nevents: Ir\nfn=(1) f\nsummary: 1\n", dump, error));
  EXPECT_EQ(error, "callgrind dump: no summary: line in the header");
  EXPECT_FALSE(parse_callgrind_dump("", dump, error));
}

TEST(CallgrindDump, CountsPerOpAreTheSecondPassMinusTheFirst) {
  CallgrindDump one, two;
  std::string error;
  ASSERT_TRUE(parse_callgrind_dump(
      "version: 1\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 1000 0 0 1 50 0 1 10\n",
      one, error));
  ASSERT_TRUE(
      parse_callgrind_dump("version: 1\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: "
                           "1500 0 0 1 70 10 1 15\n",
                           two, error));
  const auto m = zerolab::internal::counts_per_op(one, two, 10);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].unit, "instructions/op");
  EXPECT_EQ(m[0].value, 50);
  EXPECT_EQ(m[1].unit, "L1-misses/op");
  EXPECT_EQ(m[1].value, 3);  // (20 + 10) / 10
  EXPECT_EQ(m[2].unit, "LL-misses/op");
  EXPECT_EQ(m[2].value, 0.5);  // 5 / 10
  EXPECT_EQ(m[3].unit, "cycles/op");
  EXPECT_EQ(m[3].value, 50 + 10 * 2.5 + 100 * 0.5);
  // Fewer misses in the longer pass (a colder start of the shorter): none.
  const auto reversed = zerolab::internal::counts_per_op(two, one, 10);
  EXPECT_EQ(reversed[0].value, -50);
  EXPECT_EQ(reversed[1].value, 0);
  EXPECT_EQ(reversed[2].value, 0);
}

}  // namespace
