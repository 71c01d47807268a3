// The results store (src/store/) against both engines, with the same
// assertions: SQLite in a temporary file and PostgreSQL on the real server
// tests/store.cmake starts. Round trips through `zerolab compare`, idempotent
// submission, schema versions, a submitter killed mid-transaction, history's
// change points, the claims matrix, and bad input.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lab/experiments/catalog.hpp"
#include "lab/framework/baseline_store.hpp"
#include "lab/framework/experiment.hpp"
#include "store/history.hpp"
#include "store/matrix.hpp"
#include "store_test_util.hpp"
#include "zerolab/stat_filter.hpp"

namespace {

using namespace zerolab;
using namespace store_test_util;
using lab_test_util::read_file;

class StoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ZEROLAB_SKIP_WITHOUT_POSTGRES(GetParam());
    ts_ = make_test_store(GetParam());
  }
  store::Store open() { return store::Store::open(ts_.url, store::OpenMode::kWrite); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = ts_.dir + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  lab_test_util::Command run(std::vector<std::string> args) {
    args.insert(args.begin() + (args[0] == "store" ? 2 : 1), {"--store", ts_.url_text});
    return cli(ts_.dir, args);
  }
  TestStore ts_;
};

// Every input file of the compare and benchstat golden tests.
std::vector<std::string> golden_inputs() {
  std::vector<std::string> out;
  for (const char* group : {"benchstat", "compare", "stat", "table"}) {
    const std::string base = std::string(ZEROLAB_TEST_DATA) + "/" + group;
    DIR* d = opendir(base.c_str());
    if (d == nullptr) continue;
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      const std::string sub = base + "/" + e->d_name;
      DIR* d2 = opendir(sub.c_str());
      if (d2 == nullptr) continue;
      while (dirent* f = readdir(d2)) {
        const std::string name = f->d_name;
        const auto ends = [&](const std::string& s) {
          return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
        };
        if (ends(".txt") || ends(".json")) out.push_back(sub + "/" + name);
      }
      closedir(d2);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every golden input compare accepts, added in one go and exported one by
// one: `zerolab compare -format json` (every value at full precision, every
// table's configuration and rows) is byte-identical for the two.
TEST_P(StoreTest, EveryGoldenInputRoundTripsThroughCompare) {
  std::vector<std::string> files;
  std::vector<std::string> originals;
  for (const std::string& file : golden_inputs()) {
    const auto orig = cli(ts_.dir, {"compare", "-format", "json", "x=" + file});
    if (orig.code != 0) continue;  // inputs compare refuses are not results to keep
    files.push_back(file);
    originals.push_back(orig.out);
  }
  ASSERT_GE(files.size(), 40u);
  std::vector<std::string> args = {"store", "add", "--label", "commit=c1"};
  args.insert(args.end(), files.begin(), files.end());
  const auto add = run(args);
  ASSERT_EQ(add.code, 0) << add.err;
  std::vector<std::string> ids;
  for (std::size_t pos = 0; pos < add.out.size(); pos = add.out.find('\n', pos) + 1)
    ids.push_back(add.out.substr(pos, 36));
  ASSERT_EQ(ids.size(), files.size()) << add.out;
  for (std::size_t i = 0; i < files.size(); ++i) {
    SCOPED_TRACE(files[i]);
    const std::string exported = ts_.dir + "/exported.txt";
    const auto exp = run({"store", "export", ids[i], "-o", exported});
    ASSERT_EQ(exp.code, 0) << exp.err;
    const auto back = cli(ts_.dir, {"compare", "-format", "json", "x=" + exported});
    EXPECT_EQ(back.code, 0);
    EXPECT_EQ(back.out, originals[i]);
  }
}

TEST_P(StoreTest, ConfigurationChangesAndUnitLinesRoundTrip) {
  const std::string file = write("go.txt",
                                 "goos: linux\ngoarch: amd64\npkg: a/b\ncpu: X\n"
                                 "Unit B/op assume=exact\nUnit widgets/op better=higher\n"
                                 "BenchmarkA-2\t10\t1.5 ns/op\t8 B/op\t3 widgets/op\n"
                                 "BenchmarkA-2\t10\t1.25 ns/op\t8 B/op\t4 widgets/op\n"
                                 "pkg: a/c\nnote: x y\n"
                                 "BenchmarkB/size=4k-2\t20\t0 ns/op\t1e+06 MB/s\n"
                                 "goarch:\npkg: a/b\n"
                                 "BenchmarkA-2\t10\t1.75 ns/op\t8 B/op\t5 widgets/op\n"
                                 "PASS\nok  \ta/b\t1.2s\n");
  const auto add = run({"store", "add", file});
  ASSERT_EQ(add.code, 0) << add.err;
  const auto exp = run({"store", "export", add.out.substr(0, 8)});
  ASSERT_EQ(exp.code, 0) << exp.err;
  EXPECT_EQ(exp.out,
            "Unit B/op assume=exact\nUnit widgets/op better=higher\n"
            "goos: linux\ngoarch: amd64\npkg: a/b\ncpu: X\n"
            "BenchmarkA-2\t10\t1.5 ns/op\t8 B/op\t3 widgets/op\n"
            "BenchmarkA-2\t10\t1.25 ns/op\t8 B/op\t4 widgets/op\n"
            "pkg: a/c\nnote: x y\n"
            "BenchmarkB/size=4k-2\t20\t0 ns/op\t1e+06 MB/s\n"
            "goarch:\npkg: a/b\n"
            "BenchmarkA-2\t10\t1.75 ns/op\t8 B/op\t5 widgets/op\n");
  const std::string exported = write("exported.txt", exp.out);
  for (const char* format : {"text", "json"}) {
    EXPECT_EQ(cli(ts_.dir, {"compare", "-format", format, "x=" + file}).out,
              cli(ts_.dir, {"compare", "-format", format, "x=" + exported}).out);
  }
}

TEST_P(StoreTest, AddingTheSameFileTwiceIsOneRun) {
  const std::string file = write("a.txt", "BenchmarkA 10 5 ns/op\nBenchmarkA 10 6 ns/op\n");
  const auto first = run({"store", "add", "--label", "commit=abc", "--label", "branch=main", file});
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string id = first.out.substr(0, 36);
  EXPECT_EQ(first.out, id + " added: " + file + ", 2 results\n");
  const auto again = run({"store", "add", "--label", "branch=main", "--label", "commit=abc", file});
  EXPECT_EQ(again.code, 0);
  EXPECT_EQ(again.out, id + " already stored: " + file + ", 2 results\n");
  // Other labels are another run.
  const auto other = run({"store", "add", "--label", "commit=def", file});
  EXPECT_EQ(other.code, 0);
  EXPECT_NE(other.out.substr(0, 36), id);
  store::Store s = open();
  EXPECT_EQ(s.run_count(), 2);
  const store::Run r = s.load_run(id);
  EXPECT_EQ(r.labels, (std::vector<store::KeyValue>{{"branch", "main"}, {"commit", "abc"}}));
  EXPECT_EQ(r.results.size(), 2u);
  const auto list = run({"store", "list"});
  EXPECT_EQ(list.code, 0);
  EXPECT_NE(list.out.find(id + "  "), std::string::npos);
  EXPECT_NE(list.out.find("  2 values  unknown  " + file + "  branch=main  commit=abc\n"),
            std::string::npos);
}

// Names, units and configuration the Go format cannot carry as they are
// (a templated Google Benchmark name with a space, a context key with
// capitals and a space, a value with a line break) are stored as the Go
// format writes them, so the exported run added again is the same run.
TEST_P(StoreTest, ExportedRunsWithSpacesInNamesAddBackAsTheSameRun) {
  const std::string json =
      write("gb.json",
            R"({"context": {"date": "2026-01-01", "My Key": "a\nb", "host_name": "h h"},)"
            R"( "benchmarks": [{"name": "BM_Pair<int, float>/8", "iterations": 10, "real_time": 5,)"
            R"( "cpu_time": 4, "time_unit": "ns"}, {"name": "BM_Tab\tx", "iterations": 3,)"
            R"( "real_time": 1, "cpu_time": 1, "time_unit": "ns"}]})");
  const auto add = run({"store", "add", json});
  ASSERT_EQ(add.code, 0) << add.err;
  const std::string id = add.out.substr(0, 36);
  const auto exp = run({"store", "export", id});
  ASSERT_EQ(exp.code, 0) << exp.err;
  EXPECT_EQ(exp.out,
            "my_key: a b\nhost_name: h h\n"
            "BenchmarkBM_Pair<int,_float>/8\t10\t5 ns/op\t4 cpu-ns/op\n"
            "BenchmarkBM_Tab_x\t3\t1 ns/op\t1 cpu-ns/op\n");
  const std::string exported = write("exported.txt", exp.out);
  const auto again = run({"store", "add", exported});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out, id + " already stored: " + exported + ", 2 results\n");

  // A run stored with raw text (by an older zerolab, or a lab run) is
  // written out by the same rule and reads back whole.
  store::Store s = open();
  store::Run raw = synthetic_run(7, 1000, "cpu-a", {{"BenchmarkRaw name\nnext\x1b", {1, 2}}});
  raw.configs = {{{"Odd Key", "  lead\r\nx"}, {"9lives", "v"}}};
  for (store::StoredResult& r : raw.results) r.block = 0;
  raw.units = {store::UnitNote{"ns/op", "odd key", "a b"}};
  ASSERT_EQ(s.submit(raw), store::Store::Submitted::kAdded);
  const auto raw_exp = run({"store", "export", raw.id});
  ASSERT_EQ(raw_exp.code, 0) << raw_exp.err;
  EXPECT_EQ(raw_exp.out,
            "Unit ns/op odd_key=a_b\nodd_key: lead  x\nx9lives: v\n"
            "BenchmarkRaw_name_next\\x1b\t1000\t1 ns/op\n"
            "BenchmarkRaw_name_next\\x1b\t1000\t2 ns/op\n");
  const std::string raw_file = write("raw.txt", raw_exp.out);
  const auto raw_add = run({"store", "add", raw_file});
  ASSERT_EQ(raw_add.code, 0) << raw_add.err;
  const auto raw_back = run({"store", "export", raw_add.out.substr(0, 36)});
  EXPECT_EQ(raw_back.out, raw_exp.out);
}

// The Go format writes -0 and reads it back; both engines keep its sign.
// Stored text is shown, never obeyed: a benchmark name, unit, machine,
// commit label and file name holding a terminal escape, Markdown's
// metacharacters and JSON's specials (a store edited by hand or filled
// through the library) come out escaped in every format, on both engines.
TEST_P(StoreTest, HostileStoredTextIsEscapedInEveryOutput) {
  const std::string esc = "\x1b]0;pwn\x07\x1b[31m";
  {
    store::Store s = open();
    for (int i = 0; i < 2; ++i) {
      store::Run run = synthetic_run(i, 1'700'000'000'000 + i, "cpu" + esc,
                                     {{"BenchmarkA|*b*_`c`" + esc + "\"\\<x>", {10, 11, 12}}},
                                     "rev" + esc + std::to_string(i));
      run.source = "f" + esc + "\u202e.txt";
      run.results[0].values[0].unit = "ns/op";
      run.id = store::content_uuid(run);
      s.submit(run);
    }
  }
  for (const char* format : {"text", "markdown", "json", "html"}) {
    SCOPED_TRACE(format);
    const auto r = run({"history", "-format", format});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << r.out;
  }
  const std::string text = run({"history"}).out;
  EXPECT_NE(text.find("A|*b*_`c`\\x1b]0;pwn\\a\\x1b[31m\"\\<x> sec/op: 2 points"),
            std::string::npos)
      << text;
  const std::string md = run({"history", "-format", "markdown"}).out;
  EXPECT_NE(
      md.find("| A\\|\\*b\\*\\_\\`c\\`\\\\x1b\\]0;pwn\\\\a\\\\x1b\\[31m\"\\\\&lt;x&gt; | sec/op |"),
      std::string::npos)
      << md;
  const std::string json = run({"history", "-format", "json"}).out;
  EXPECT_NE(json.find("\"benchmark\": \"A|*b*_`c`\\u001b]0;pwn\\u0007\\u001b[31m\\\"\\\\<x>\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"machine\": \"cpu\\u001b]0;pwn\\u0007\\u001b[31m\""), std::string::npos)
      << json;
  const auto list = run({"store", "list"});
  EXPECT_EQ(list.out.find('\x1b'), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("f\\x1b]0;pwn\\a\\x1b[31m\\u202e.txt"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("commit=rev\\x1b]0;pwn\\a\\x1b[31m0"), std::string::npos) << list.out;
}

// Peak resident memory (KiB) of `zerolab args...` run in dir with its
// output thrown away, from the kernel's accounting of that one child.
long peak_rss_kib(const std::string& dir, const std::vector<std::string>& args) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    std::vector<char*> argv;
    std::string cli = ZEROLAB_CLI;
    argv.push_back(cli.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(cli.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  if (pid < 0 || ::wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    ADD_FAILURE() << "zerolab " << args[0] << " failed: " << status;
    return -1;
  }
  return usage.ru_maxrss;
}

// A large file (few benchmarks, many samples each: what compare keeps
// least of) is added and exported in at most twice what compare needs to
// read it: the store streams its rows instead of holding the run. The
// export reads back exactly the file as added.
TEST_P(StoreTest, AddAndExportOfALargeFileNeedAtMostTwiceWhatCompareNeeds) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // A sanitized CLI's peak RSS is the sanitizer's (ASan's quarantine holds
  // freed blocks, its shadow maps a byte per eight): it says nothing of the
  // program's own memory, so the comparison runs in the release build only.
  GTEST_SKIP() << "peak RSS under a sanitizer measures the sanitizer";
#endif
  const std::string file = ts_.dir + "/big.txt";
  {
    std::ofstream out(file);
    out << "goos: linux\nUnit B/op assume=exact\n";
    std::uint64_t x = 88172645463325252ULL;
    for (int i = 0; out.tellp() < (12 << 20); ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      out << "BenchmarkSomething/case=" << i % 200 << "-8\t" << 1000 + i % 7 << '\t'
          << 100 + static_cast<double>(x % 100000) / 1000 << " ns/op\t" << i % 64 * 8 << " B/op\t"
          << i % 5 << " allocs/op\n";
      if (i == 500000) out << "cpu: changed\n";
    }
  }
  const long compare = peak_rss_kib(ts_.dir, {"compare", file});
  const long add = peak_rss_kib(ts_.dir, {"store", "add", "--store", ts_.url_text, file});
  const std::string list = run({"store", "list"}).out;
  ASSERT_GE(list.size(), 36u);
  const std::string id = list.substr(0, 36);
  const long exported = peak_rss_kib(
      ts_.dir, {"store", "export", "--store", ts_.url_text, id, "-o", ts_.dir + "/back.txt"});
  EXPECT_GT(compare, 0);
  EXPECT_LE(add, 2 * compare) << "add " << add << " KiB, compare " << compare << " KiB";
  EXPECT_LE(exported, 2 * compare)
      << "export " << exported << " KiB, compare " << compare << " KiB";
  // The export adds back as the same run, and compares as the file does.
  const auto again = run({"store", "add", ts_.dir + "/back.txt"});
  EXPECT_EQ(again.out.substr(0, 36 + 15), id + " already stored") << again.out << again.err;
  EXPECT_EQ(cli(ts_.dir, {"compare", "x=" + ts_.dir + "/back.txt"}).out,
            cli(ts_.dir, {"compare", "x=" + file}).out);
}

// Under the file size limit (ulimit -f) every -o of the store's readers
// is one line naming the limit's error, exit 1, and leaves no file or
// temporary (history died of SIGXFSZ, saying nothing). The limit, 40 KiB,
// leaves room for SQLite's 32 KiB index of its log.
TEST_P(StoreTest, AnOutputPastTheFileSizeLimitIsOneLineAndNoFile) {
  std::vector<std::pair<std::string, std::vector<double>>> results;
  for (int i = 0; i < 2000; ++i) results.push_back({"BenchmarkLongName" + std::to_string(i), {1}});
  {
    store::Store s = open();
    s.submit(synthetic_run(0, 1'700'000'000'000, "cpu-a", results));
    // SQLite's readers write too (a log they recover, a checkpoint when
    // the last one closes): the log is emptied first, so only -o writes.
    if (ts_.engine == "sqlite") s.database().exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  const std::string id = run({"store", "list"}).out.substr(0, 36);
  const std::vector<std::vector<std::string>> commands = {
      {"history", "-o", ts_.dir + "/out.txt"},
      {"store", "export", id, "-o", ts_.dir + "/out.txt"},
  };
  for (std::vector<std::string> args : commands) {
    args.insert(args.begin() + (args[0] == "store" ? 2 : 1), {"--store", ts_.url_text});
    SCOPED_TRACE(args[0] + " " + args[1]);
    const auto r =
        lab_test_util::run_cli("ulimit -f 40;" + std::string(ZEROLAB_CLI), quote(args), ts_.dir);
    EXPECT_EQ(r.code, 1);
    const std::string command = args[0] == "store" ? "store " + args[1] : args[0];
    EXPECT_EQ(r.err,
              "zerolab " + command + ": cannot write " + ts_.dir + "/out.txt: File too large\n");
    DIR* d = ::opendir(ts_.dir.c_str());
    ASSERT_NE(d, nullptr);
    while (const dirent* e = ::readdir(d))
      EXPECT_NE(std::string(e->d_name).rfind("out.txt", 0), 0u);
    ::closedir(d);
  }
}

TEST_P(StoreTest, NegativeZeroKeepsItsSign) {
  const std::string file = write("z.txt", "BenchmarkZ 10 -0 ns/op 0 B/op -1.5 x/op\n");
  const auto add = run({"store", "add", file});
  ASSERT_EQ(add.code, 0) << add.err;
  const auto exp = run({"store", "export", add.out.substr(0, 36)});
  EXPECT_EQ(exp.out, "BenchmarkZ\t10\t-0 ns/op\t0 B/op\t-1.5 x/op\n");
  store::Store s = open();
  const store::Run back = s.load_run(add.out.substr(0, 36));
  ASSERT_EQ(back.results.size(), 1u);
  EXPECT_TRUE(std::signbit(back.results[0].values[0].value));
  EXPECT_FALSE(std::signbit(back.results[0].values[1].value));
}

TEST_P(StoreTest, SubmitIsIdempotentByRunId) {
  store::Store s = open();
  const store::Run run = synthetic_run(1, 1000, "cpu-a", {{"BenchmarkA", {1, 2, 3}}});
  EXPECT_EQ(s.submit(run), store::Store::Submitted::kAdded);
  EXPECT_EQ(s.submit(run), store::Store::Submitted::kAlreadyPresent);
  EXPECT_EQ(s.run_count(), 1);
  const store::Run back = s.load_run(run.id);
  EXPECT_EQ(store::to_go_format(back), store::to_go_format(run));
  EXPECT_EQ(back.machine, "cpu-a");
  EXPECT_EQ(back.unix_ms, 1000);
}

TEST_P(StoreTest, NamesPointAtRuns) {
  store::Store s = open();
  const store::Run a = synthetic_run(1, 1000, "m", {{"BenchmarkA", {1}}});
  const store::Run b = synthetic_run(2, 2000, "m", {{"BenchmarkA", {2}}});
  s.submit(a);
  s.submit(b);
  s.set_name("main", a.id);
  EXPECT_EQ(s.resolve("main"), a.id);
  s.set_name("main", b.id);
  EXPECT_EQ(s.resolve("main"), b.id);
  EXPECT_EQ(s.resolve(a.id.substr(0, 8)), a.id);
  const auto cmd = run({"store", "name", "release", a.id.substr(0, 6)});
  EXPECT_EQ(cmd.code, 0) << cmd.err;
  EXPECT_EQ(s.resolve("release"), a.id);

  // A name is per machine: naming a run of machine n leaves m's "main".
  const store::Run c = synthetic_run(3, 3000, "n", {{"BenchmarkA", {3}}});
  s.submit(c);
  s.set_name("main", c.id);
  const std::vector<store::NamedRun> named = s.named_runs("main");
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].machine, "m");
  EXPECT_EQ(named[0].id, b.id);
  EXPECT_EQ(named[1].machine, "n");
  EXPECT_EQ(named[1].id, c.id);
  const auto both = run({"store", "export", "main"});
  EXPECT_EQ(both.code, 2);
  EXPECT_EQ(both.err, "zerolab store export: name \"main\" in " + ts_.url.display +
                          " names runs on 2 machines (m: " + b.id.substr(0, 8) +
                          ", n: " + c.id.substr(0, 8) + "); give the run's id\n");
  const auto list = run({"store", "list"});
  EXPECT_NE(list.out.find("  name:main\n"), std::string::npos) << list.out;
}

TEST_P(StoreTest, UnknownRunIsExit2) {
  open();
  const auto r = run({"store", "export", "deadbeef"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "zerolab store export: no run \"deadbeef\" in " + ts_.url.display + "\n");
  EXPECT_EQ(r.out, "");
}

TEST_P(StoreTest, BadInputIsOneLineExit2AndWritesNothing) {
  const std::string file = write("a.txt", "BenchmarkA 10 5 ns/op\n");
  const std::string empty = write("empty.txt", "PASS\n");
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"store", "add", "--label", "commit", file},
       "zerolab store add: label \"commit\" has no \"=\" (expected key=value)\n"},
      {{"store", "add", "--label", "=x", file},
       "zerolab store add: label \"=x\" has an empty key (expected key=value)\n"},
      {{"store", "add", file, empty}, "zerolab store add: " + empty + ":0: no benchmark results\n"},
      {{"store", "add", file, ts_.dir + "/missing.txt"},
       "zerolab store add: open " + ts_.dir + "/missing.txt: no such file or directory\n"},
      {{"history", "--since", "yesterday"},
       "zerolab history: cannot parse --since \"yesterday\" (expected YYYY-MM-DD, "
       "YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM], or "
       "an age such as 90m, 36h, 7d, 2w)\n"},
      {{"history", "--since", "2026-02-30"},
       "zerolab history: cannot parse --since \"2026-02-30\" (expected YYYY-MM-DD, "
       "YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM], or "
       "an age such as 90m, 36h, 7d, 2w)\n"},
      {{"store", "add", "--frobnicate", file},
       "zerolab store add: flag provided but not defined: -frobnicate\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args[1]);
    const auto r = run(c.args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, c.err);
    EXPECT_EQ(r.out, "");
  }
  // Nothing was written: the SQLite file was never created, the database has no tables.
  if (ts_.engine == "sqlite") {
    EXPECT_FALSE(lab_test_util::exists(ts_.sqlite_path));
  } else {
    store::Store s = open();
    EXPECT_EQ(s.run_count(), 0);
  }
}

TEST(StoreUrlTest, MalformedAndUnknownUrlsAreExit2) {
  const std::string dir = lab_test_util::temp_dir("zerolab_store_url");
  const std::string file = dir + "/a.txt";
  std::ofstream(file) << "BenchmarkA 10 5 ns/op\n";
  struct Case {
    std::string url;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"zerolab.db", "malformed store URL \"zerolab.db\": expected sqlite:PATH or postgres://..."},
      {"sqlite:", "malformed store URL \"sqlite:\": sqlite: needs a file path (sqlite:PATH)"},
      {"mysql://u:pw@h/db",
       "unknown store URL scheme \"mysql\" in \"mysql://u:***@h/db\" (expected sqlite:PATH or "
       "postgres://...)"},
      {"postgres:db", "malformed store URL \"postgres:db\": expected postgres://..."},
      {"postgresql://h/db?frob=1",
       "malformed store URL \"postgresql://h/db?frob=1\": invalid URI query parameter: \"frob\""},
      {"sqlite::memory:",
       "malformed store URL \"sqlite::memory:\": an in-memory database keeps nothing (write "
       "sqlite:./:memory: for a file of that name)"},
      {"postgres://u:p@ss@h/db",
       "malformed store URL \"postgres://u:***@h/db\": more than one '@' before the host (write "
       "an '@' in the user name or password as %40)"},
      {"postgresql:///db?host=/nowhere&port=abc",
       "malformed store URL \"postgresql:///db?host=/nowhere&port=abc\": invalid integer value "
       "\"abc\" for connection option \"port\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.url);
    const auto r = cli(dir, {"store", "add", "--store", c.url, file});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "zerolab store add: " + c.err + "\n");
  }
  EXPECT_FALSE(lab_test_util::exists(dir + "/zerolab-results"));
}

// Every password form libpq reads is hidden, and nothing outside them is
// touched; the last case is the fuzz smoke's find (a "&password=" inside the
// userinfo was taken for a query parameter and the prefix rewritten).
TEST(StoreUrlTest, RedactUrlHidesEveryPasswordAndOnlyThem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"postgres://u:p@h/db", "postgres://u:***@h/db"},
      {"postgres://u@h/db", "postgres://u@h/db"},
      {"postgres://h:5432/db", "postgres://h:5432/db"},
      {"postgres://u:p@h/db?password=x&sslmode=require",
       "postgres://u:***@h/db?password=***&sslmode=require"},
      {"postgres://h/db?sslmode=require&password=x",
       "postgres://h/db?sslmode=require&password=***"},
      {"postgres://h/db?xpassword=x", "postgres://h/db?xpassword=x"},
      {"postgres://u:p@ss@h/db", "postgres://u:***@h/db"},
      {"postgres://u:pa?ss@h/db", "postgres://u:***@h/db"},
      {"postgres://u:p@h?password=x", "postgres://u:***@h?password=***"},
      {"postgres://h?application_name=a@b&password=x",
       "postgres://h?application_name=a@b&password=***"},
      {"postgres://u&password=a:secret@h?sslmode=require&password=x",
       "postgres://u&password=a:***@h?sslmode=require&password=***"},
  };
  for (const auto& [url, shown] : cases) EXPECT_EQ(store::redact_url(url), shown) << url;
}

TEST(StoreUrlTest, UnreachablePostgresIsExit1WithThePasswordRemoved) {
  const std::string dir = lab_test_util::temp_dir("zerolab_store_url");
  const std::string file = dir + "/a.txt";
  std::ofstream(file) << "BenchmarkA 10 5 ns/op\n";
  const std::string url = "postgresql://ci:s3cret@/bench?host=" + dir + "/nowhere";
  const auto r = cli(dir, {"store", "add", "--store", url, file});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("zerolab store add: cannot reach postgresql://ci:***@/bench?host=" + dir +
                            "/nowhere: ",
                        0),
            0u)
      << r.err;
  EXPECT_EQ(r.err.find("s3cret"), std::string::npos);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

// A server that takes the connection and never says a word (a hung
// server, another program on its socket) is given up on after the connect
// timeout, 3 s unless the URL says, with a one-line exit 1.
TEST(StoreUrlTest, AServerThatNeverAnswersIsExit1NamingTheTimeout) {
  const std::string dir = lab_test_util::temp_dir("zerolab_store_url");
  // A listening socket nobody accepts on: the kernel completes each
  // connection and nothing ever answers.
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = dir + "/.s.PGSQL.5432";
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 16), 0);
  for (const std::string& timeout : {std::string(), std::string("2")}) {
    const std::string url =
        "postgresql:///bench?host=" + dir + (timeout.empty() ? "" : "&connect_timeout=" + timeout);
    const auto r = cli(dir, {"store", "list", "--store", url});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "zerolab store list: cannot reach " + url +
                         ": no answer from the server within " + (timeout.empty() ? "3" : timeout) +
                         " s (connect_timeout=N in the URL waits N seconds)\n");
  }
  ::close(listener);
}

TEST_P(StoreTest, NewerSchemaIsRefusedNamingTheStore) {
  {
    store::Store s = open();
    s.database().exec("UPDATE zerolab_meta SET value = '99' WHERE key = 'schema_version'");
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"store", "list"},
        {"history"},
        {"store", "add", write("a.txt", "BenchmarkA 1 1 ns/op\n")}}) {
    const auto r = run(args);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(": " + ts_.url.display +
                         ": the store's schema is version 99, newer than this zerolab's (" +
                         std::to_string(store::Store::kSchemaVersion) + "); use a newer zerolab\n"),
              std::string::npos)
        << r.err;
  }
}

TEST_P(StoreTest, OlderSchemaIsMigratedForward) {
  {
    store::Store v1 = store::Store::open_at_version(ts_.url, 1);
    EXPECT_EQ(v1.schema_version(), 1);
    v1.database().query(
        "INSERT INTO runs(id, unix_ms, kind, command, source, machine) "
        "VALUES('00000000-0000-4000-8000-000000000001', 5, 'file', 'c', 's', 'm')",
        {}, {});
  }
  store::Store s = open();
  EXPECT_EQ(s.schema_version(), store::Store::kSchemaVersion);
  s.set_name("old", "00000000-0000-4000-8000-000000000001");
  EXPECT_EQ(s.resolve("old"), "00000000-0000-4000-8000-000000000001");
}

// Schema 3's names (one run per name) become schema 4's names of the run's machine.
TEST_P(StoreTest, NamesOfSchema3MoveToTheirRunsMachine) {
  const store::Run a = synthetic_run(1, 1000, "cpu-a", {{"BenchmarkA", {1}}});
  {
    store::Store v3 = store::Store::open_at_version(ts_.url, 3);
    v3.database().query(
        "INSERT INTO runs(id, unix_ms, kind, command, source, machine) VALUES(?, 5, 'file', 'c', "
        "'s', ?)",
        {store::Param(a.id), store::Param(a.machine)}, {});
    v3.database().query("INSERT INTO run_names(name, rid) SELECT 'main', rid FROM runs", {}, {});
  }
  store::Store s = open();
  EXPECT_EQ(s.schema_version(), 4);
  const std::vector<store::NamedRun> named = s.named_runs("main");
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0].machine, "cpu-a");
  EXPECT_EQ(named[0].id, a.id);
}

TEST_P(StoreTest, SubmitterKilledMidTransactionLeavesNoPartialRun) {
  std::vector<std::pair<std::string, std::vector<double>>> results;
  for (int i = 0; i < 2000; ++i) results.push_back({"BenchmarkX/" + std::to_string(i), {1.0 + i}});
  const store::Run big = synthetic_run(7, 7000, "m", results);
  { open().submit(synthetic_run(1, 1000, "m", {{"BenchmarkA", {1}}})); }
  std::fflush(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    try {
      store::Store s = store::Store::open(ts_.url, store::OpenMode::kWrite);
      s.submit(big, [] { ::kill(::getpid(), SIGKILL); });
    } catch (...) {
    }
    _exit(3);  // not reached unless submit failed
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  store::Store s = open();
  EXPECT_EQ(s.run_count(), 1);
  std::int64_t rows = -1;
  s.database().query("SELECT count(*) FROM results", {},
                     [&](const store::Row& r) { rows = r.integer(0); });
  EXPECT_EQ(rows, 1);
  EXPECT_THROW(s.resolve(big.id), store::StoreError);
  // The same run submitted again goes in whole.
  EXPECT_EQ(s.submit(big), store::Store::Submitted::kAdded);
  EXPECT_EQ(s.load_run(big.id).results.size(), 2000u);
}

// 20 runs: A steps up by 20% at run 12, B stays flat; 3 samples a run.
std::vector<store::Run> step_runs() {
  std::vector<store::Run> runs;
  for (int i = 0; i < 20; ++i) {
    const double a = i < 12 ? 100 : 120;
    const double wobble = (i % 3) * 0.5;
    runs.push_back(synthetic_run(i, 1'700'000'000'000 + i * 60'000, "cpu-a",
                                 {{"BenchmarkA", {a + wobble, a + 1 + wobble, a - 1 + wobble}},
                                  {"BenchmarkB", {50 + wobble, 51 - wobble, 49 + wobble}}},
                                 "c" + std::to_string(i / 2)));
  }
  return runs;
}

TEST_P(StoreTest, HistoryFindsWhereAChangeBegan) {
  const std::vector<store::Run> runs = step_runs();
  {
    store::Store s = open();
    for (const store::Run& r : runs) s.submit(r);
  }
  std::string error;
  auto filter = zerolab::stat::Filter::parse("*", &error);
  store::Store s = open();
  const store::History h = store::build_history(s.load_runs(0), *filter, store::HistoryOptions{});
  ASSERT_EQ(h.series.size(), 2u);
  EXPECT_EQ(h.series[0].benchmark, "A");
  EXPECT_EQ(h.series[0].unit, "sec/op");
  ASSERT_EQ(h.series[0].changes.size(), 1u);
  const store::ChangePoint& c = h.series[0].changes[0];
  EXPECT_EQ(c.point, 12u);
  EXPECT_EQ(h.series[0].points[c.point].run_id, runs[12].id);
  EXPECT_NEAR(c.percent, 20.0, 1.0);
  EXPECT_TRUE(c.worse);
  EXPECT_TRUE(h.series[1].changes.empty());

  const auto text = run({"history"});
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("A sec/op: 20 points, latest 120.5n\n  change +19.90% at run "),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("at run " + runs[12].id.substr(0, 8) + " ("), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("B sec/op: 20 points, latest 50.50n, no change\n"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\n1 change point\n"), std::string::npos);

  const auto gate = run({"history", "--fail-on-regression=10"});
  EXPECT_EQ(gate.code, 3);
  EXPECT_NE(gate.err.find("zerolab history: regression: A sec/op: +"), std::string::npos)
      << gate.err;
  EXPECT_EQ(run({"history", "--fail-on-regression=25"}).code, 0);
  EXPECT_EQ(run({"history", "-filter", ".name:B", "--fail-on-regression"}).code, 0);
  const auto none = run({"history", "--threshold", "30"});
  EXPECT_NE(none.out.find("\n0 change points\n"), std::string::npos);

  // By commit: two runs a commit, the step at commit c6.
  const auto by_commit =
      run({"history", "--by", "commit", "--window", "3", "-format", "json", "-filter", ".name:A"});
  EXPECT_EQ(by_commit.code, 0) << by_commit.err;
  EXPECT_NE(by_commit.out.find("\"changes\": [{\"point\": 6, \"run\": \"" + runs[12].id + "\""),
            std::string::npos)
      << by_commit.out;
  EXPECT_NE(by_commit.out.find("\"commit\": \"c6\", \"old\": "), std::string::npos);

  // --since leaves out the runs before the step: no change to find.
  const auto since =
      run({"history", "--since", store::format_time_ms(runs[12].unix_ms), "-format", "markdown"});
  EXPECT_EQ(since.code, 0) << since.err;
  EXPECT_NE(since.out.find("| A | sec/op | 8 | 120.5n | none |\n"), std::string::npos) << since.out;

  const auto html = run({"history", "-format", "html", "-o", ts_.dir + "/h.html"});
  EXPECT_EQ(html.code, 0);
  const std::string page = read_file(ts_.dir + "/h.html");
  EXPECT_EQ(std::count(page.begin(), page.end(), '\n') > 0, true);
  EXPECT_NE(page.find("data-points=\"20\""), std::string::npos);
}

TEST_P(StoreTest, MatrixShowsEachMachinesLatestVerdicts) {
  auto lab_run = [](int n, std::int64_t t, const std::string& machine, const std::string& go,
                    const std::string& cpp) {
    store::Run r = synthetic_run(n, t, machine, {{"BenchmarkM", {1}}});
    r.kind = "lab";
    r.claims.push_back({"merge", "slices merge 2x faster", "2x", "replicates", go, cpp, "2.1x",
                        "p=0.000 n=10+10", false, "2.3x", "p=0.000 n=10+10"});
    r.claims.push_back({"zero", "memclr is free", "", "inconclusive", "", "inconclusive", "1.01x",
                        "p=0.4", true, "", ""});
    r.id = store::random_uuid();
    return r;
  };
  {
    store::Store s = open();
    s.submit(
        lab_run(1, 1000, "cpu-a", "contradicts", "contradicts"));  // older: replaced by the next
    s.submit(lab_run(2, 2000, "cpu-a", "replicates", "replicates"));
    s.submit(lab_run(3, 3000, "cpu-b", "replicates", "contradicts"));
  }
  const auto m = run({"store", "matrix"});
  ASSERT_EQ(m.code, 0) << m.err;
  const std::string expected_tail =
      "merge: slices merge 2x faster\n"
      "  machine 1: Go: replicates  C++: replicates\n"
      "  machine 2: Go: replicates  C++: contradicts\n"
      "zero: memclr is free\n"
      "  machine 1: Go: -  C++: inconclusive (provisional)\n"
      "  machine 2: Go: -  C++: inconclusive (provisional)\n";
  ASSERT_GE(m.out.size(), expected_tail.size());
  EXPECT_EQ(m.out.substr(m.out.size() - expected_tail.size()), expected_tail);
  EXPECT_EQ(m.out.rfind("machine 1: cpu-a (run ", 0), 0u);
  const auto html = run({"store", "matrix", "-format", "html"});
  EXPECT_NE(html.out.find("<td class=\"bad\">Go: replicates<br>C++: contradicts"),
            std::string::npos);
}

TEST_P(StoreTest, ReadOnlyStoreIsAClearError) {
  const std::string file = write("a.txt", "BenchmarkA 10 5 ns/op\n");
  ASSERT_EQ(run({"store", "add", file}).code, 0);
  const std::string other = write("b.txt", "BenchmarkA 10 6 ns/op\n");
  lab_test_util::Command r;
  if (ts_.engine == "postgres") {
    pg_admin("DROP ROLE IF EXISTS reader_" + ts_.pg_db);
    pg_admin("CREATE ROLE reader_" + ts_.pg_db + " LOGIN");
    pg_admin("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader_" + ts_.pg_db, ts_.pg_db);
    r = cli(ts_.dir, {"store", "add", "--store", pg_url(ts_.pg_db, "reader_" + ts_.pg_db), other});
    EXPECT_NE(
        r.err.find(": the store is read-only for this user (permission denied for table runs)\n"),
        std::string::npos)
        << r.err;
    EXPECT_EQ(
        cli(ts_.dir, {"store", "list", "--store", pg_url(ts_.pg_db, "reader_" + ts_.pg_db)}).code,
        0);
  } else {
    ASSERT_EQ(::chmod(ts_.sqlite_path.c_str(), 0444), 0);
    ASSERT_EQ(::chmod((ts_.dir + "/results").c_str(), 0555), 0);
    // root ignores permissions: run the CLI as nobody then.
    const std::string as =
        ::geteuid() == 0 ? "setpriv --reuid=nobody --regid=nogroup --clear-groups " : "";
    ASSERT_EQ(::chmod(ts_.dir.c_str(), 0777), 0);
    std::remove((ts_.dir + "/cli.out").c_str());
    std::remove((ts_.dir + "/cli.err").c_str());
    r = lab_test_util::run_cli(as + ZEROLAB_CLI,
                               quote({"store", "add", "--store", ts_.url_text, other}), ts_.dir);
    EXPECT_NE(r.err.find(ts_.url.display + ": the store is read-only"), std::string::npos) << r.err;
    const auto list = lab_test_util::run_cli(
        as + ZEROLAB_CLI, quote({"store", "list", "--store", ts_.url_text}), ts_.dir);
    EXPECT_EQ(list.code, 0) << list.err;
    EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 1);
  }
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreTest, ::testing::Values("sqlite", "postgres"));

// A store on read-only media: the file and its directory read-only and no
// -wal or -shm beside it (SQLite would have to create the -shm to read a
// WAL store). list, history and export read it; add says it is read-only.
TEST(StoreSqliteFileTest, AReadOnlyStoreWithoutItsWalAndShmIsReadable) {
  const std::string dir = lab_test_util::temp_dir("zerolab_store_ro");
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  const std::string a = dir + "/a.txt";
  std::ofstream(a) << "cpu: X\nBenchmarkA 10 5 ns/op\nBenchmarkA 10 6 ns/op\n";
  const std::string media = dir + "/media";
  ASSERT_EQ(::mkdir(media.c_str(), 0777), 0);
  const std::string url = "sqlite:" + media + "/s.db";
  const auto add = cli(dir, {"store", "add", "--store", url, a});
  ASSERT_EQ(add.code, 0) << add.err;
  const std::string id = add.out.substr(0, 36);
  std::remove((media + "/s.db-wal").c_str());
  std::remove((media + "/s.db-shm").c_str());
  ASSERT_EQ(::chmod((media + "/s.db").c_str(), 0444), 0);
  ASSERT_EQ(::chmod(media.c_str(), 0555), 0);
  // root ignores permissions: the CLI runs as nobody then.
  const std::string as =
      ::geteuid() == 0 ? "setpriv --reuid=nobody --regid=nogroup --clear-groups " : "";
  auto as_user = [&](const std::vector<std::string>& args) {
    std::remove((dir + "/cli.out").c_str());
    std::remove((dir + "/cli.err").c_str());
    return lab_test_util::run_cli(as + ZEROLAB_CLI, quote(args), dir);
  };
  const auto list = as_user({"store", "list", "--store", url});
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(list.out.substr(0, 36), id);
  const auto history = as_user({"history", "--store", url});
  EXPECT_EQ(history.code, 0) << history.err;
  EXPECT_NE(history.out.find("A sec/op: 1 points"), std::string::npos) << history.out;
  const auto exp = as_user({"store", "export", "--store", url, id.substr(0, 8)});
  EXPECT_EQ(exp.code, 0) << exp.err;
  EXPECT_EQ(exp.out, "cpu: X\nBenchmarkA\t10\t5 ns/op\nBenchmarkA\t10\t6 ns/op\n");
  const auto write = as_user({"store", "add", "--store", url, a});
  EXPECT_EQ(write.code, 1);
  EXPECT_EQ(write.err, "zerolab store add: " + url +
                           ": the store is read-only (attempt to write a readonly database)\n");
  EXPECT_FALSE(lab_test_util::exists(media + "/s.db-shm"));
  ASSERT_EQ(::chmod(media.c_str(), 0755), 0);
}

// SQLite files this zerolab must refuse, each naming the file.
TEST(StoreSqliteFileTest, CorruptAndForeignFilesAreRefusedWithExit2) {
  const std::string dir = lab_test_util::temp_dir("zerolab_store_bad");
  const std::string a = dir + "/a.txt";
  std::ofstream(a) << "BenchmarkA 10 5 ns/op\n";
  const std::string junk = dir + "/junk.db";
  std::ofstream(junk) << std::string(4096, 'z');
  auto r = cli(dir, {"store", "add", "--store", "sqlite:" + junk, a});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "zerolab store add: sqlite:" + junk + ": file is not a database\n");
  EXPECT_EQ(read_file(junk), std::string(4096, 'z'));

  const std::string foreign = dir + "/foreign.db";
  ASSERT_EQ(std::system(("printf 'CREATE TABLE people(name TEXT);' | sqlite3 " + foreign +
                         " 2>/dev/null || "
                         "python3 -c \"import sqlite3; c=sqlite3.connect('" +
                         foreign + "'); c.execute('CREATE TABLE people(name TEXT)'); c.commit()\"")
                            .c_str()),
            0);
  r = cli(dir, {"history", "--store", "sqlite:" + foreign});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "zerolab history: sqlite:" + foreign +
                       ": not a zerolab store (it has other tables: people)\n");
  r = cli(dir, {"store", "list", "--store", "sqlite:" + dir + "/none.db"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "zerolab store list: sqlite:" + dir +
                       "/none.db: no such store (nothing has been stored there yet)\n");
  EXPECT_FALSE(lab_test_util::exists(dir + "/none.db"));
}

// Another writer holding SQLite's write lock: a writer waits the lock
// timeout, then fails with exit 1 saying so; nothing of its run is kept.
TEST(StoreSqliteFileTest, ALockHeldByAnotherWriterIsExit1AfterTheTimeout) {
  const TestStore ts = make_test_store("sqlite");
  const std::string a = ts.dir + "/a.txt";
  std::ofstream(a) << "BenchmarkA 10 5 ns/op\n";
  store::Store holder = store::Store::open(ts.url, store::OpenMode::kWrite);
  holder.database().begin_write();
  auto r =
      cli(ts.dir, {"store", "add", "--store", ts.url_text, a}, "ZEROLAB_STORE_LOCK_TIMEOUT=0.3");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "zerolab store add: " + ts.url.display +
                       ": database is locked (another writer held the lock; waited 0.3 s, "
                       "$ZEROLAB_STORE_LOCK_TIMEOUT)\n");
  r = cli(ts.dir, {"store", "add", "--store", ts.url_text, a}, "ZEROLAB_STORE_LOCK_TIMEOUT=soon");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "zerolab store add: ZEROLAB_STORE_LOCK_TIMEOUT=\"soon\" is not a number of seconds "
            "from 0.001 to "
            "86400\n");
  holder.database().rollback();
  EXPECT_EQ(holder.run_count(), 0);
  r = cli(ts.dir, {"store", "add", "--store", ts.url_text, a}, "ZEROLAB_STORE_LOCK_TIMEOUT=0.3");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(holder.run_count(), 1);
}

}  // namespace

namespace {

// `zerolab lab` keeps each run in the store: C++ and Go-here results, claims, labels.
TEST(StoreLabTest, LabRunIsStoredWithItsClaimsAndExportsAsItsFiles) {
  const TestStore ts = make_test_store("sqlite");
  const auto r = cli(ts.dir, {"lab", "--quick", "merge", "-o", ts.dir + "/out", "--store",
                              ts.url_text, "--label", "commit=abc", "--save", "first"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::size_t at = r.out.find("stored: run ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string id = r.out.substr(at + 12, 36);
  EXPECT_NE(r.out.find("\nstored: run " + id + " in " + ts.url_text +
                       "\nsaved as baseline first: run " + id + " in " + ts.url_text + "\n"),
            std::string::npos)
      << r.out;
  zerolab::store::Store s = zerolab::store::Store::open(ts.url, zerolab::store::OpenMode::kRead);
  EXPECT_EQ(s.resolve("first"), id);
  const zerolab::store::Run run = s.load_run(id);
  EXPECT_EQ(run.kind, "lab");
  EXPECT_EQ(run.label("commit"), "abc");
  std::size_t merge_claims = 0;
  for (const zerolab::lab::Experiment& e : zerolab::lab::catalog()) {
    if (e.id == "merge") merge_claims = e.claims.size();
  }
  ASSERT_GT(merge_claims, 0u);
  EXPECT_EQ(run.claims.size(), merge_claims);
  EXPECT_EQ(run.claims[0].experiment, "merge");
  EXPECT_FALSE(run.claims[0].cpp_verdict.empty());
  EXPECT_FALSE(run.claims[0].go_verdict.empty());
  // The stored run is both files the lab wrote (merge.go.txt where Go ran).
  const auto exp =
      cli(ts.dir, {"store", "export", "--store", ts.url_text, "first", "-o", ts.dir + "/e.txt"});
  ASSERT_EQ(exp.code, 0) << exp.err;
  std::vector<std::string> files = {"compare", "-format", "json", "x=" + ts.dir + "/out/merge.txt"};
  if (lab_test_util::exists(ts.dir + "/out/merge.go.txt"))
    files.push_back("x=" + ts.dir + "/out/merge.go.txt");
  EXPECT_EQ(cli(ts.dir, files).out,
            cli(ts.dir, {"compare", "-format", "json", "x=" + ts.dir + "/e.txt"}).out);
  const auto matrix = cli(ts.dir, {"store", "matrix", "--store", ts.url_text});
  EXPECT_NE(matrix.out.find("merge: "), std::string::npos) << matrix.out;
  EXPECT_FALSE(lab_test_util::exists(ts.dir + "/zerolab-results"))
      << "--save wrote a baseline folder";

  // A baseline folder of an older zerolab's --save, imported into another store once.
  std::string error;
  ASSERT_TRUE(zerolab::lab::save_baseline(
      ts.dir + "/out", {"merge"}, ts.dir, "older",
      {"2026-12-01T10:00:00Z", "zerolab lab --save older", 1, "20ms"}, error))
      << error;
  const std::string other = "sqlite:" + ts.dir + "/imported.db";
  const auto imp =
      cli(ts.dir, {"store", "import-baselines", "--store", other, "--baseline-dir", ts.dir});
  ASSERT_EQ(imp.code, 0) << imp.err;
  const std::string imported = imp.out.substr(0, 36);
  EXPECT_EQ(imp.out.substr(36, 26), " imported: baseline older,") << imp.out;
  const auto again =
      cli(ts.dir, {"store", "import-baselines", "--store", other, "--baseline-dir", ts.dir});
  EXPECT_EQ(again.out, imported + " already stored: baseline older," + imp.out.substr(62));
  ASSERT_EQ(
      cli(ts.dir, {"store", "export", "--store", other, "older", "-o", ts.dir + "/b.txt"}).code, 0);
  // The folder holds the Go-here results beside the C++ ones (merge.go.txt where Go ran).
  std::vector<std::string> saved = {"compare", "-format", "json",
                                    "x=" + ts.dir + "/older/merge.txt"};
  if (lab_test_util::exists(ts.dir + "/older/merge.go.txt"))
    saved.push_back("x=" + ts.dir + "/older/merge.go.txt");
  EXPECT_EQ(cli(ts.dir, saved).out,
            cli(ts.dir, {"compare", "-format", "json", "x=" + ts.dir + "/b.txt"}).out);
}

// The store a run goes to is checked before the run: an unreachable one,
// a file that is not a zerolab store, a directory: one line, nothing run,
// nothing written.
TEST(StoreLabTest, AnUnusableStoreIsFoundBeforeTheRun) {
  const std::string dir = lab_test_util::temp_dir("zerolab_store_lab");
  const std::string prefix =
      "zerolab lab: cannot store the run (nothing was run; --no-store runs without a store): ";
  {
    const auto r = cli(dir, {"lab", "--quick", "merge", "-o", dir + "/out", "--store",
                             "postgresql://ci:s3cret@/bench?host=" + dir + "/nowhere"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err.rfind(
                  prefix + "cannot reach postgresql://ci:***@/bench?host=" + dir + "/nowhere: ", 0),
              0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.find("s3cret"), std::string::npos);
    EXPECT_EQ(r.out, "");
  }
  std::ofstream(dir + "/notes.db") << "not a database, some notes\n";
  {
    const auto r = cli(dir, {"lab", "--quick", "merge", "-o", dir + "/out", "--store",
                             "sqlite:" + dir + "/notes.db"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, prefix + "sqlite:" + dir + "/notes.db: file is not a database\n");
  }
  ASSERT_EQ(::mkdir((dir + "/a_dir.db").c_str(), 0755), 0);
  {
    const auto r = cli(dir, {"lab", "--quick", "merge", "-o", dir + "/out", "--store",
                             "sqlite:" + dir + "/a_dir.db"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, prefix + "sqlite:" + dir + "/a_dir.db: is a directory, not a database file\n");
  }
  EXPECT_FALSE(lab_test_util::exists(dir + "/out"));
}

TEST(StoreLabTest, BadStoreFlagsRunNothing) {
  const std::string dir = lab_test_util::temp_dir("zerolab_store_lab");
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"--store", "ftp://x"},
       "zerolab lab: unknown store URL scheme \"ftp\" in \"ftp://x\" (expected sqlite:PATH or "
       "postgres://...)\n"},
      {{"--label", "nokey"}, "zerolab lab: label \"nokey\" has no \"=\" (expected key=value)\n"},
      {{"--no-store", "--store", "sqlite:x.db"},
       "zerolab lab: flags --store and --no-store contradict each other\n"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"lab", "--quick", "merge", "-o", dir + "/out"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = cli(dir, args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, c.err);
  }
  EXPECT_FALSE(lab_test_util::exists(dir + "/out"));
  // --no-store: the run writes its files and no store.
  const auto r = cli(dir, {"lab", "--quick", "merge", "-o", dir + "/out", "--no-store"});
  EXPECT_EQ(r.out.find("stored:"), std::string::npos);
  EXPECT_TRUE(lab_test_util::exists(dir + "/out/merge.txt"));
  EXPECT_FALSE(lab_test_util::exists(dir + "/zerolab-results"));
}

// A statically linked zerolab hands a command that names a PostgreSQL
// store to zerolab-dynamic beside it (tools/zerolab/dynamic_twin.hpp);
// alone, it says where it looked. Other commands stay where they are.
TEST(StoreLabTest, AStaticCliWithoutItsDynamicTwinSaysWhereItLooked) {
  const std::string cli_path = ZEROLAB_CLI;
  const std::string build_dir = cli_path.substr(0, cli_path.rfind('/'));
  if (!lab_test_util::exists(build_dir + "/zerolab-dynamic")) {
    GTEST_SKIP() << "a dynamically linked zerolab has no twin";
  }
  const std::string dir = lab_test_util::temp_dir("zerolab_store_twin");
  const std::string alone = dir + "/zerolab";
  ASSERT_TRUE(std::filesystem::copy_file(cli_path, alone));
  const auto r = lab_test_util::run_cli(alone, "store list --store postgres:///bench", dir);
  EXPECT_EQ(r.code, 1);
  const std::string head =
      "zerolab: a PostgreSQL store needs zerolab-dynamic (this zerolab is statically linked and "
      "cannot load libpq): cannot run " +
      dir + "/zerolab-dynamic or " + dir + "/";
  const std::string tail = "/zerolab-dynamic: No such file or directory\n";
  EXPECT_EQ(r.err.rfind(head, 0), 0u) << r.err;
  EXPECT_TRUE(r.err.size() > tail.size() &&
              r.err.compare(r.err.size() - tail.size(), tail.size(), tail) == 0)
      << r.err;
  EXPECT_EQ(r.out, "");
  // `zerolab waste` never opens a store: an argument that looks like one stays here.
  const auto w =
      lab_test_util::run_cli(alone, "waste -o " + dir + "/w.txt -- /bin/echo postgres://x", dir,
                             "ZEROLAB_WASTE_PRELOAD=" + build_dir + "/libzerolab_waste.so");
  EXPECT_EQ(w.code, 0) << w.err;
  EXPECT_EQ(w.out, "postgres://x\n");
  std::filesystem::remove(alone);
}

}  // namespace

namespace {

// Runs of one benchmark in the counting mode's exact unit, one sample
// each: `values[i]` instructions/op in run i.
std::vector<store::Run> exact_runs(const std::vector<double>& values) {
  std::vector<store::Run> runs;
  for (std::size_t i = 0; i < values.size(); ++i) {
    store::Run run;
    run.kind = "file";
    run.unix_ms = 1'700'000'000'000 + static_cast<std::int64_t>(i) * 60'000;
    run.command = "test";
    run.source = "count" + std::to_string(i) + ".txt";
    run.machine = "cpu-a";
    run.configs = {{{"goos", "linux"}, {"cpu", "cpu-a"}}};
    run.units = {store::UnitNote{"instructions/op", "assume", "exact"}};
    run.results.push_back(
        store::StoredResult{"BenchmarkCount", 100, 0, {{values[i], "instructions/op"}}});
    run.id = "run" + std::to_string(i) + "-0000000000000000";
    runs.push_back(run);
  }
  return runs;
}

}  // namespace

TEST(HistoryExact, TheFirstRunThatCrossesTheThresholdIsTheChange) {
  std::string error;
  auto filter = zerolab::stat::Filter::parse("*", &error);
  store::HistoryOptions options;
  options.threshold = 1;
  // Flat at 1000, then 1001 and 1008 (under 1% from 1000), then 1011: the
  // first run more than 1% over 1000. No window of points is waited for.
  const store::History h = store::build_history(
      exact_runs({1000, 1000, 1000, 1000, 1000, 1000, 1001, 1008, 1011}), *filter, options);
  ASSERT_EQ(h.series.size(), 1u);
  ASSERT_EQ(h.series[0].changes.size(), 1u);
  EXPECT_EQ(h.series[0].changes[0].point, 8u);
  EXPECT_EQ(store::render_history_text(h),
            "history of 1 series over 9 runs (window 5, changes over 1% at alpha 0.05)\n"
            "Count instructions/op: 9 points, latest 1.011k\n"
            "  change +1.10% at run run8-000 (" +
                store::format_time_ms(h.series[0].points[8].unix_ms) +
                "): 1.000k -> 1.011k (n=1) worse\n"
                "1 change point\n");
  const auto regressions = store::history_regressions(h, 1);
  ASSERT_EQ(regressions.size(), 1u);
  EXPECT_EQ(regressions[0].change->point, 8u);
  // The same step as the last point: still found, one run after it.
  const store::History last = store::build_history(
      exact_runs({1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1011}), *filter, options);
  ASSERT_EQ(last.series[0].changes.size(), 1u);
  EXPECT_EQ(last.series[0].changes[0].point, 8u);
  // Under the threshold, however long it lasts: no change.
  const store::History small = store::build_history(
      exact_runs({1000, 1000, 1005, 1005, 1005, 1005, 1005, 1005, 1005}), *filter, options);
  EXPECT_TRUE(small.series[0].changes.empty());
}
