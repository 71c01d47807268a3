// zerolab::gbench end to end: runs the Google Benchmark binaries built from
// tests/gbench_fixture.cpp and checks, exactly, the memory figures in their
// JSON, the columns MemoryReporter adds to their console rows, what
// zerolab::stat's JSON reader makes of them, and `zerolab compare` on them.
//
// Where the manager cannot tell Google Benchmark's own allocations from the
// benchmark's (TSan builds: no caller addresses there), the figures include
// Google Benchmark's bookkeeping: the tests check that they do, then skip.
// The normal and ASan builds are exact.
//
// Example: build/release/tests/gbench_test
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "test_util.hpp"
#include "zerolab/gbench.hpp"
#include "zerolab/stat_reader.hpp"

namespace {

namespace fs = std::filesystem;

struct Output {
  std::string out;
  int status = -1;
};

// Runs `command` with sh, stdout captured; stderr goes to /dev/null.
Output run(const std::string& command) {
  Output r;
  FILE* p = popen((command + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

using zerolab::test::read_file;

fs::path temp_dir() {
  char tmpl[] = "/tmp/zerolab_gbench_test_XXXXXX";
  const char* d = mkdtemp(tmpl);
  return d != nullptr ? fs::path(d) : fs::path();
}

// A run that also writes Google Benchmark's JSON to a file
// (--benchmark_out, in a fresh directory removed afterwards).
struct RunWithFile {
  Output run;
  std::string file;  // the JSON file's text ("" when it was not written)
};

RunWithFile run_with_json_file(const std::string& command) {
  const fs::path dir = zerolab::test::temp_dir("zerolab_gbench_test");
  const fs::path json = dir / "out.json";
  RunWithFile r{run(command + " --benchmark_out_format=json --benchmark_out=" + json.string()),
                read_file(json)};
  fs::remove_all(dir);
  return r;
}

// One benchmark object of Google Benchmark's JSON: its numeric and string
// fields, as text. (Google Benchmark writes one "key": value per line.)
using Fields = std::map<std::string, std::string>;

std::vector<Fields> all_benchmarks(const std::string& json) {
  std::vector<Fields> out;
  std::istringstream in(json);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"benchmarks\"") != std::string::npos) inside = true;
    const std::size_t open = line.find_first_not_of(' ');
    const std::size_t colon = line.find("\": ");
    if (!inside || open == std::string::npos || line[open] != '"' || colon == std::string::npos)
      continue;
    const std::string key = line.substr(open + 1, colon - open - 1);
    std::string value = line.substr(colon + 3);
    if (!value.empty() && value.back() == ',') value.pop_back();
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    if (key == "name") out.emplace_back();
    if (!out.empty()) out.back()[key] = value;
  }
  return out;
}

// The console lines that start with `name` and a space.
std::vector<std::string> rows_of(const std::string& console, const std::string& name) {
  std::vector<std::string> out;
  std::istringstream in(console);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + " ", 0) == 0) out.push_back(line);
  }
  return out;
}

// The row's whitespace-separated words.
std::vector<std::string> words_of(const std::string& row) {
  std::vector<std::string> out;
  std::istringstream in(row);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// By name (the last of each name).
std::map<std::string, Fields> benchmarks_of(const std::string& json) {
  std::map<std::string, Fields> out;
  for (Fields& f : all_benchmarks(json)) out[f["name"]] = f;
  return out;
}

double num(const Fields& f, const std::string& key) {
  const auto it = f.find(key);
  if (it == f.end()) {
    ADD_FAILURE() << "no field " << key;
    return -1;
  }
  return std::strtod(it->second.c_str(), nullptr);
}

const std::string kFixture = ZEROLAB_GBENCH_FIXTURE;
const std::string kPlainFixture = ZEROLAB_GBENCH_FIXTURE_PLAIN;
const std::string kRunFlags = " --benchmark_min_time=0.01";

const char* const kThree = "BM_ThreeNews";
const char* const kThreeThreads = "BM_ThreeNews/iterations:10/threads:2";
const char* const kNone = "BM_NoAllocs";
const char* const kArg = "BM_Arg/56/iterations:5";

// The four figures of a benchmark's memory pass, as its JSON names them.
struct MemoryFigures {
  double allocs_per_iter;
  double total_allocated_bytes;
  double max_bytes_used;
  double net_heap_growth;
};

// label names f in the failure messages.
void expect_figures(const Fields& f, const MemoryFigures& want, const std::string& label) {
  EXPECT_EQ(num(f, "allocs_per_iter"), want.allocs_per_iter) << label;
  EXPECT_EQ(num(f, "total_allocated_bytes"), want.total_allocated_bytes) << label;
  EXPECT_EQ(num(f, "max_bytes_used"), want.max_bytes_used) << label;
  EXPECT_EQ(num(f, "net_heap_growth"), want.net_heap_growth) << label;
}

// In the exact mode: each benchmark's four figures, for a memory pass of
// min(16, iterations per thread) iterations.
void expect_exact_figures(const std::map<std::string, Fields>& b) {
  ASSERT_EQ(b.count(kThree), 1u);
  ASSERT_EQ(b.count(kThreeThreads), 1u);
  ASSERT_EQ(b.count(kNone), 1u);
  ASSERT_EQ(b.count(kArg), 1u);
  const Fields& three = b.at(kThree);
  const double pass = std::min(16.0, num(three, "iterations"));
  expect_figures(three, {3.0, 1064.0 * pass, 1064.0, 0.0}, kThree);

  const Fields& threads = b.at(kThreeThreads);
  EXPECT_EQ(num(threads, "iterations"), 20.0);
  EXPECT_EQ(num(threads, "threads"), 2.0);
  expect_figures(threads, {3.0, 10640.0 /* a pass of 10 */, 1064.0, 0.0}, kThreeThreads);

  expect_figures(b.at(kNone), {0.0, 0.0, 0.0, 0.0}, kNone);

  // Google Benchmark's copy of the argument vector is not counted.
  expect_figures(b.at(kArg), {1.0, 280.0, 56.0, 0.0}, kArg);
}

// True in the exact mode. Otherwise checks that the figures are the exact
// ones plus Google Benchmark's bookkeeping (the reason for skipping).
bool exact_mode(const std::string& json, const std::map<std::string, Fields>& b) {
  if (json.find("\"zerolab_alloc_counting\": \"exact\"") != std::string::npos) return true;
  EXPECT_NE(json.find("\"zerolab_alloc_counting\": \"includes-benchmark-library\""),
            std::string::npos)
      << json;
  if (b.count(kNone) == 1 && b.count(kThree) == 1) {
    EXPECT_GT(num(b.at(kNone), "allocs_per_iter"), 0.0);
    EXPECT_GT(num(b.at(kThree), "allocs_per_iter"), 3.0);
    EXPECT_LT(num(b.at(kThree), "allocs_per_iter"), 4.0);
  }
  return false;
}

#define SKIP_UNLESS_EXACT(json, b)                                                         \
  if (exact_mode(json, b)) {                                                               \
  } else                                                                                   \
    GTEST_SKIP() << "this build cannot see allocations' callers (TSan), so Google "        \
                    "Benchmark's own allocations during the memory pass are counted too; " \
                    "the exact figures need the normal or the ASan build"

TEST(Gbench, JsonReportsExactAllocations) {
  const Output r = run(kFixture + kRunFlags + " --benchmark_format=json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto b = benchmarks_of(r.out);
  SKIP_UNLESS_EXACT(r.out, b);
  expect_exact_figures(b);
}

TEST(Gbench, PlainBenchmarkMainCountsToo) {
  const auto [r, text] = run_with_json_file(kPlainFixture + kRunFlags);
  ASSERT_EQ(r.status, 0) << r.out;
  // BENCHMARK_MAIN's console reporter is Google Benchmark's own: no columns.
  EXPECT_NE(r.out.find("BM_ThreeNews"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("allocs/op"), std::string::npos) << r.out;
  const auto b = benchmarks_of(text);
  SKIP_UNLESS_EXACT(text, b);
  expect_exact_figures(b);
}

TEST(Gbench, ConsoleRowsShowMemoryColumns) {
  const auto [r, text] = run_with_json_file(kFixture + kRunFlags + " --benchmark_color=false");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto b = benchmarks_of(text);
  // Every benchmark row carries the columns, whatever the mode:
  // NAME TIME ns CPU ns ITERATIONS B B/op ALLOCS allocs/op PEAK max-B.
  int rows = 0;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("BM_", 0) != 0) continue;
    ++rows;
    const std::vector<std::string> w = words_of(line);
    ASSERT_EQ(w.size(), 12u) << line;
    EXPECT_EQ(w[7], "B/op") << line;
    EXPECT_EQ(w[9], "allocs/op") << line;
    EXPECT_EQ(w[11], "max-B") << line;
  }
  EXPECT_EQ(rows, 4) << r.out;
  SKIP_UNLESS_EXACT(text, b);
  // name, iterations (when fixed), the exact end of the row.
  const std::vector<std::tuple<std::string, std::string, std::string>> expected = {
      {kThree, "", "       1064 B/op          3 allocs/op       1064 max-B"},
      {kThreeThreads, "20", "       1064 B/op          3 allocs/op       1064 max-B"},
      {kNone, "", "          0 B/op          0 allocs/op          0 max-B"},
      {kArg, "5", "         56 B/op          1 allocs/op         56 max-B"}};
  for (const auto& [name, iterations, tail] : expected) {
    const std::vector<std::string> found = rows_of(r.out, name);
    ASSERT_EQ(found.size(), 1u) << name << "\n" << r.out;
    EXPECT_TRUE(ends_with(found[0], tail)) << found[0];
    if (!iterations.empty()) {
      EXPECT_EQ(words_of(found[0])[5], iterations) << found[0];
    }
  }
}

// Google Benchmark 1.7.1's reports of earlier repetitions point at freed
// memory results; run_main's reporters (display and --benchmark_out) hand
// on the copies the manager kept, so every repetition has its figures.
TEST(Gbench, EveryRepetitionKeepsItsFigures) {
  const std::string flags =
      kRunFlags + " --benchmark_filter='^BM_ThreeNews$' --benchmark_repetitions=4";
  const Output display = run(kFixture + flags + " --benchmark_format=json");
  const auto [console, file] = run_with_json_file(kFixture + flags + " --benchmark_color=false");
  ASSERT_EQ(display.status, 0);
  ASSERT_EQ(console.status, 0);
  SKIP_UNLESS_EXACT(display.out, benchmarks_of(display.out));
  for (const std::string& text : {display.out, file}) {
    int runs = 0;
    for (const Fields& f : all_benchmarks(text)) {
      if (f.at("run_type") != "iteration") continue;
      ++runs;
      const double pass = std::min(16.0, num(f, "iterations"));
      expect_figures(f, {3.0, 1064.0 * pass, 1064.0, 0.0}, f.at("repetition_index"));
    }
    EXPECT_EQ(runs, 4) << text;
  }
  const std::vector<std::string> rows = rows_of(console.out, kThree);
  EXPECT_EQ(rows.size(), 4u) << console.out;
  for (const std::string& row : rows) {
    EXPECT_TRUE(ends_with(row, "       1064 B/op          3 allocs/op       1064 max-B")) << row;
  }
}

// What `zerolab compare` sees: zerolab::stat's reader on the JSON.
TEST(Gbench, StatReaderTurnsFiguresIntoPerOpUnits) {
  const Output r = run(kFixture + kRunFlags + " --benchmark_format=json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto b = benchmarks_of(r.out);
  SKIP_UNLESS_EXACT(r.out, b);
  zerolab::stat::StringSource src(r.out);
  zerolab::stat::GbJsonReader reader(src, "gb.json");
  std::map<std::string, std::map<std::string, double>> got;
  while (reader.next()) {
    ASSERT_EQ(reader.kind(), zerolab::stat::RecordKind::kResult) << reader.syntax_error().message;
    for (const auto& m : reader.result().result.metrics)
      got[reader.result().result.name][m.unit] = m.value;
  }
  ASSERT_EQ(got.size(), 4u);
  for (const char* name : {kThree, kThreeThreads}) {
    const auto& m = got["Benchmark" + std::string(name)];
    EXPECT_EQ(m.at("B/op"), 1064.0) << name;
    EXPECT_EQ(m.at("allocs/op"), 3.0) << name;
    EXPECT_EQ(m.at("max-B"), 1064.0) << name;
    EXPECT_EQ(m.at("net-heap-B"), 0.0) << name;
  }
  const auto& none = got["Benchmark" + std::string(kNone)];
  EXPECT_EQ(none.at("B/op"), 0.0);
  EXPECT_EQ(none.at("allocs/op"), 0.0);
  const auto& arg = got["Benchmark" + std::string(kArg)];
  EXPECT_EQ(arg.at("B/op"), 56.0);
  EXPECT_EQ(arg.at("allocs/op"), 1.0);
}

TEST(Gbench, CompareShowsAllocsAndBytesPerOp) {
#if !defined(ZEROLAB_CLI)
  GTEST_SKIP() << "built without the zerolab CLI (ZEROLAB_BUILD_TOOLS=OFF)";
#else
  const fs::path dir = temp_dir();
  ASSERT_FALSE(dir.empty());
  const fs::path json = dir / "gb.json";
  const Output r = run(kFixture + kRunFlags + " --benchmark_format=json > " + json.string());
  ASSERT_EQ(r.status, 0);
  const std::string text = read_file(json);
  const auto b = benchmarks_of(text);
  // Run where the file is, so the table's column is named "gb.json".
  const Output c =
      run("cd " + dir.string() + " && " + std::string(ZEROLAB_CLI) + " compare gb.json");
  fs::remove_all(dir);
  ASSERT_EQ(c.status, 0) << c.out;
  SKIP_UNLESS_EXACT(text, b);
  // The B/op and allocs/op tables, as benchstat prints them.
  for (const char* table : {
           "                                     │    gb.json    │\n"
           "                                     │     B/op      │\n"
           "BM_ThreeNews                           1.039Ki ± ∞ ¹\n"
           "BM_ThreeNews/iterations:10/threads:2   1.039Ki ± ∞ ¹\n"
           "BM_NoAllocs                              0.000 ± ∞ ¹\n"
           "BM_Arg/56/iterations:5                   56.00 ± ∞ ¹\n"
           "geomean                                            ²\n",
           "                                     │   gb.json   │\n"
           "                                     │  allocs/op  │\n"
           "BM_ThreeNews                           3.000 ± ∞ ¹\n"
           "BM_ThreeNews/iterations:10/threads:2   3.000 ± ∞ ¹\n"
           "BM_NoAllocs                            0.000 ± ∞ ¹\n"
           "BM_Arg/56/iterations:5                 1.000 ± ∞ ¹\n"
           "geomean                                          ²\n",
       }) {
    EXPECT_NE(c.out.find(table), std::string::npos) << table << "\nin\n" << c.out;
  }
#endif
}

// ---- MemoryReporter and memory_figures on hand-made runs ---------------------

}  // namespace

// MemoryManager::Result's constructor names this constant, which Debian's
// libbenchmark.so defines but does not export; Google Benchmark only ever
// constructs Results inside the library. The hand-made ones below need it.
const std::int64_t benchmark::MemoryManager::TombstoneValue =
    std::numeric_limits<std::int64_t>::max();

namespace {

benchmark::BenchmarkReporter::Run make_run(const benchmark::MemoryManager::Result* result,
                                           std::int64_t iterations, std::int64_t threads,
                                           double allocs_per_iter) {
  benchmark::BenchmarkReporter::Run run;
  run.run_name.function_name = "BM_Made";
  run.iterations = iterations;
  run.threads = threads;
  run.real_accumulated_time = 1e-6 * static_cast<double>(iterations);
  run.cpu_accumulated_time = run.real_accumulated_time;
  run.memory_result = result;
  run.allocs_per_iter = allocs_per_iter;
  return run;
}

TEST(GbenchFigures, PerOpFromThePassLength) {
  zerolab::gbench::MemoryFigures f;
  // 49 allocations in a pass of 16 (3 per iteration and one more once).
  benchmark::MemoryManager::Result r;
  r.num_allocs = 49;
  r.total_allocated_bytes = 17424;
  r.max_bytes_used = 1464;
  r.net_heap_growth = 0;
  ASSERT_TRUE(zerolab::gbench::memory_figures(make_run(&r, 100000, 1, 49.0 / 16), f));
  EXPECT_EQ(f.bytes_per_op, 17424.0 / 16);
  EXPECT_EQ(f.allocs_per_op, 3.0625);
  EXPECT_EQ(zerolab::gbench::format_memory_columns(f),
            "       1089 B/op       3.06 allocs/op       1464 max-B");
  // No allocations: the pass's length is min(16, iterations / threads).
  benchmark::MemoryManager::Result none;
  none.total_allocated_bytes = 0;
  none.net_heap_growth = 64;
  ASSERT_TRUE(zerolab::gbench::memory_figures(make_run(&none, 20, 2, 0), f));
  EXPECT_TRUE(f.has_bytes);
  EXPECT_EQ(zerolab::gbench::format_memory_columns(f),
            "          0 B/op          0 allocs/op          0 max-B 64 net-heap-B");
  // total_allocated_bytes not measured (TombstoneValue): no B/op column.
  benchmark::MemoryManager::Result tomb;
  tomb.num_allocs = 2;
  ASSERT_TRUE(zerolab::gbench::memory_figures(make_run(&tomb, 5, 1, 0.4), f));
  EXPECT_FALSE(f.has_bytes);
  EXPECT_FALSE(f.has_net_heap);
  EXPECT_EQ(zerolab::gbench::format_memory_columns(f), "       0.40 allocs/op          0 max-B");
  // Rows without a memory result have no figures.
  EXPECT_FALSE(zerolab::gbench::memory_figures(make_run(nullptr, 5, 1, 0), f));
  benchmark::BenchmarkReporter::Run failed = make_run(&r, 5, 1, 1);
  failed.error_occurred = true;
  EXPECT_FALSE(zerolab::gbench::memory_figures(failed, f));
  benchmark::BenchmarkReporter::Run mean = make_run(&r, 5, 1, 1);
  mean.run_type = benchmark::BenchmarkReporter::Run::RT_Aggregate;
  EXPECT_FALSE(zerolab::gbench::memory_figures(mean, f));
}

TEST(GbenchFigures, ReporterAppendsColumnsToConsoleRowsOnly) {
  benchmark::MemoryManager::Result r;
  r.num_allocs = 16;
  r.total_allocated_bytes = 128;
  r.max_bytes_used = 8;
  r.net_heap_growth = 0;
  const std::vector<benchmark::BenchmarkReporter::Run> runs = {make_run(&r, 1000, 1, 1),
                                                               make_run(nullptr, 1000, 1, 0)};
  benchmark::BenchmarkReporter::Context context;
  context.name_field_width = 10;  // set by Google Benchmark's runner, not by Context()
  std::ostringstream out;
  std::ostringstream err;
  zerolab::gbench::MemoryReporter console(
      std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None));
  console.SetOutputStream(&out);
  console.SetErrorStream(&err);
  ASSERT_TRUE(console.ReportContext(context));
  console.ReportRuns(runs);
  const std::vector<std::string> rows = rows_of(out.str(), "BM_Made");
  ASSERT_EQ(rows.size(), 2u) << out.str();
  EXPECT_TRUE(ends_with(rows[0], " 1000          8 B/op          1 allocs/op          8 max-B"))
      << rows[0];
  EXPECT_TRUE(ends_with(rows[1], " 1000")) << rows[1];
  EXPECT_EQ(out.str().rfind("-----", 0), 0u) << out.str();  // the header is Google Benchmark's

  std::ostringstream json;
  zerolab::gbench::MemoryReporter wrapped(std::make_unique<benchmark::JSONReporter>());
  wrapped.SetOutputStream(&json);
  wrapped.SetErrorStream(&err);
  ASSERT_TRUE(wrapped.ReportContext(context));
  wrapped.ReportRuns(runs);
  wrapped.Finalize();
  EXPECT_EQ(json.str().find("B/op"), std::string::npos);
  EXPECT_NE(json.str().find("\"total_allocated_bytes\": 128"), std::string::npos) << json.str();
}

}  // namespace
