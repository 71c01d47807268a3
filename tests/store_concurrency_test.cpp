// The results store under concurrency and damage, on both engines: readers
// see one snapshot while another connection writes, the files of one
// `store add` keep their order in history, many processes creating a new
// store at once lose nothing, and a damaged or non-regular store is refused
// with exit 2. Labels "store" and "concurrent" (the reader/writer test runs
// under TSan with the tsan preset).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cctype>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "store_test_util.hpp"

namespace {

using namespace zerolab;
using namespace store_test_util;
using lab_test_util::read_file;

class StoreConcurrencyTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ZEROLAB_SKIP_WITHOUT_POSTGRES(GetParam());
    ts_ = make_test_store(GetParam());
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = ts_.dir + "/" + name;
    zerolab::test::write_file(path, text);
    return path;
  }
  lab_test_util::Command run(std::vector<std::string> args) {
    args.insert(args.begin() + (args[0] == "store" ? 2 : 1), {"--store", ts_.url_text});
    return cli(ts_.dir, args);
  }
  TestStore ts_;
};

constexpr std::size_t kResultsPerRun = 40;

store::Run numbered_run(int n) {
  std::vector<std::pair<std::string, std::vector<double>>> results;
  for (std::size_t i = 0; i < kResultsPerRun; ++i)
    results.push_back({"BenchmarkR/" + std::to_string(i), {1.0 + n}});
  return synthetic_run(n, 1000 + n, "m", results);
}

// One thread adds runs while another reads the whole store again and
// again: every read succeeds and shows only whole runs (each with all its
// results and its configuration), never a run found by one SELECT and missed by
// the next.
TEST_P(StoreConcurrencyTest, ReadersSeeOneSnapshotWhileAWriterAdds) {
  constexpr int kRuns = 60;
  { store::Store::open(ts_.url, store::OpenMode::kWrite).submit(numbered_run(0)); }
  std::atomic<bool> writing{true};
  std::string writer_error;
  std::thread writer([&] {
    try {
      store::Store s = store::Store::open(ts_.url, store::OpenMode::kWrite);
      for (int n = 1; n <= kRuns; ++n) s.submit(numbered_run(n));
    } catch (const std::exception& e) {
      writer_error = e.what();
    }
    writing = false;
  });
  std::vector<std::string> reader_errors;
  int reads = 0;
  {
    store::Store s = store::Store::open(ts_.url, store::OpenMode::kRead);
    while (writing || reads < 2) {
      try {
        for (const store::Run& r : s.load_runs(0)) {
          if (r.results.size() != kResultsPerRun || r.configs.size() != 1) {
            reader_errors.push_back("run " + r.source + " read with " +
                                    std::to_string(r.results.size()) + " results");
          }
        }
        for (const store::RunSummary& r : s.list_runs(0)) {
          if (r.values != static_cast<std::int64_t>(kResultsPerRun)) {
            reader_errors.push_back("listed run " + r.id + " with " + std::to_string(r.values) +
                                    " values");
          }
        }
      } catch (const std::exception& e) {
        reader_errors.push_back(e.what());
      }
      ++reads;
    }
  }
  writer.join();
  EXPECT_EQ(writer_error, "");
  EXPECT_TRUE(reader_errors.empty())
      << reader_errors.size() << " bad reads of " << reads << ", first: " << reader_errors.front();
  EXPECT_EQ(store::Store::open(ts_.url, store::OpenMode::kRead).run_count(), kRuns + 1);
}

// Twelve files in one `store add` share its time; history takes them in
// the order given, so a +50% step from the 7th file on is one regression
// and the gate fails (in the order of the runs' ids it was not).
TEST_P(StoreConcurrencyTest, FilesOfOneAddKeepTheirOrderInHistory) {
  std::vector<std::string> args = {"store", "add"};
  for (int i = 0; i < 12; ++i) {
    const double base = i < 6 ? 100 : 150;
    std::string text = "goos: linux\n";
    for (int k = 0; k < 4; ++k) {
      // Each file's values differ (a file's id is made from its content).
      text += "BenchmarkStep-8 1000 " + std::to_string(base + i * 0.125 + k * 0.5) + " ns/op\n";
    }
    args.push_back(write("r" + std::to_string(100 + i) + ".txt", text));
  }
  const auto add = run(args);
  ASSERT_EQ(add.code, 0) << add.err;
  // The ids in the order the files were given.
  std::vector<std::string> given;
  for (std::size_t at = 0; at < add.out.size();) {
    given.push_back(add.out.substr(at, 8));
    at = add.out.find('\n', at) + 1;
  }
  ASSERT_EQ(given.size(), 12u) << add.out;
  const auto json = run({"history", "-format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const std::string points = json.out.substr(0, json.out.find("\"changes\""));
  std::size_t at = 0;
  for (const std::string& id : given) {
    const std::size_t found = points.find("\"run\": \"" + id, at);
    ASSERT_NE(found, std::string::npos) << "run " << id << " out of order in\n" << json.out;
    at = found;
  }
  const auto gate = run({"history", "--fail-on-regression=20"});
  EXPECT_EQ(gate.code, 3) << gate.out << gate.err;
  EXPECT_NE(gate.err.find("regression: Step"), std::string::npos) << gate.err;
}

// Eight processes add a file each to a store nobody has created yet (a new
// SQLite file; an empty PostgreSQL database): all eight runs are there.
TEST_P(StoreConcurrencyTest, ParallelFirstUseOfANewStoreLosesNothing) {
  constexpr int kWriters = 8;
  for (int round = 0; round < 2; ++round) {
    const TestStore fresh = make_test_store(GetParam());
    std::string script;
    for (int i = 0; i < kWriters; ++i) {
      const std::string file = write("p" + std::to_string(round) + "_" + std::to_string(i) + ".txt",
                                     "BenchmarkP" + std::to_string(i) + " 10 1 ns/op\n");
      const std::string n = std::to_string(i);
      script += "(" + std::string(ZEROLAB_CLI) + " store add --store '" + fresh.url_text + "' '" +
                file + "' >/dev/null 2>'" + fresh.dir + "/err" + n + "'; echo $? >'" + fresh.dir +
                "/code" + n + "') & ";
    }
    const auto all = zerolab::test::run(script + "wait", fresh.dir);
    ASSERT_EQ(all.code, 0) << all.err;
    for (int i = 0; i < kWriters; ++i) {
      EXPECT_EQ(read_file(fresh.dir + "/code" + std::to_string(i)), "0\n")
          << "round " << round << " writer " << i << ": "
          << read_file(fresh.dir + "/err" + std::to_string(i));
    }
    EXPECT_EQ(store::Store::open(fresh.url, store::OpenMode::kRead).run_count(), kWriters);
  }
}

// An edited row (a negative configuration block) and a schema version that
// is not a number are refused with exit 2 naming the damage, by every reader.
TEST_P(StoreConcurrencyTest, DamagedStoreIsRefusedWithExit2) {
  const store::Run r = numbered_run(1);
  { store::Store::open(ts_.url, store::OpenMode::kWrite).submit(r); }
  {
    store::Store s = store::Store::open(ts_.url, store::OpenMode::kWrite);
    s.database().exec("UPDATE run_config SET block = -5");
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"store", "export", r.id}, {"history"}}) {
    const auto c = run(args);
    EXPECT_EQ(c.code, 2) << args[0] << ": " << c.err;
    EXPECT_NE(c.err.find("the store is damaged: run " + r.id + " has configuration block -5"),
              std::string::npos)
        << c.err;
  }
  {
    store::Store s = store::Store::open(ts_.url, store::OpenMode::kWrite);
    s.database().exec("UPDATE zerolab_meta SET value = 'x4' WHERE key = 'schema_version'");
  }
  const auto c = run({"store", "list"});
  EXPECT_EQ(c.code, 2) << c.err;
  EXPECT_NE(c.err.find("the store's schema version \"x4\" in zerolab_meta is not a version number"),
            std::string::npos)
      << c.err;
}

// One rule for a run's name on both engines and every command: a name
// that reads as a run id, climbs out of a folder or holds a newline is
// refused (exit 2) and nothing is named; ids are found in either case.
TEST_P(StoreConcurrencyTest, NamesFollowOneRuleOnEveryEngine) {
  const store::Run r = numbered_run(1);
  const store::Run other = numbered_run(2);
  {
    store::Store s = store::Store::open(ts_.url, store::OpenMode::kWrite);
    s.submit(r);
    s.submit(other);
  }
  const struct {
    std::string name;
    std::string says;
  } cases[] = {
      {other.id.substr(0, 8), "looks like a run id"}, {other.id, "looks like a run id"},
      {"../../x", "use only letters, digits"},        {"a\nb", "use only letters, digits"},
      {"tab\tname", "use only letters, digits"},
  };
  for (const auto& c : cases) {
    const auto named = run({"store", "name", c.name, r.id});
    EXPECT_EQ(named.code, 2) << c.name;
    EXPECT_NE(named.err.find("invalid run name "), std::string::npos) << named.err;
    EXPECT_NE(named.err.find(c.says), std::string::npos) << named.err;
  }
  store::Store s = store::Store::open(ts_.url, store::OpenMode::kRead);
  EXPECT_TRUE(s.named_runs(other.id.substr(0, 8)).empty());
  EXPECT_EQ(s.resolve(other.id.substr(0, 8)), other.id);
  std::string upper = other.id.substr(0, 8);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(s.resolve(upper), other.id);
  EXPECT_EQ(run({"store", "name", "main-1", r.id}).code, 0);
  EXPECT_EQ(s.resolve("main-1"), r.id);
}

// history --by commit over runs without commit labels says so (exit 2),
// not that the store holds no results.
TEST_P(StoreConcurrencyTest, HistoryByCommitWithoutCommitLabelsSaysSo) {
  ASSERT_EQ(run({"store", "add", write("a.txt", "BenchmarkA 10 5 ns/op\n")}).code, 0);
  const auto h = run({"history", "--by", "commit"});
  EXPECT_EQ(h.code, 2);
  EXPECT_EQ(h.err, "zerolab history: --by commit: no selected run has a commit label in " +
                       ts_.url_text + " (add one with zerolab store add --label commit=REV)\n");
}

// Text that is not valid UTF-8 is refused alike by both engines (exit 2),
// and with it every file of the same add: nothing is stored.
TEST_P(StoreConcurrencyTest, InvalidUtf8IsRefusedAlikeByBothEngines) {
  const std::string good = write("good.txt", "BenchmarkGood 10 5 ns/op\n");
  const std::string bad = write("bad.txt", "BenchmarkBad\xff 10 5 ns/op\n");
  const auto add = run({"store", "add", good, bad});
  EXPECT_EQ(add.code, 2) << add.err;
  EXPECT_NE(add.err.find("the benchmark name \"BenchmarkBad\\xff\" is not valid UTF-8 text or "
                         "holds a NUL byte (no store keeps it)"),
            std::string::npos)
      << add.err;
  EXPECT_EQ(store::Store::open(ts_.url, store::OpenMode::kWrite).run_count(), 0);
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreConcurrencyTest, ::testing::Values("sqlite", "postgres"));

// A FIFO as the store file or as a baseline's manifest is refused at once
// (reading either would wait forever for a writer).
TEST(StoreFileKindTest, FifoStoreAndManifestAreRefused) {
  const std::string dir = lab_test_util::temp_dir("zerolab_store_fifo");
  ASSERT_EQ(::mkfifo((dir + "/fifo.db").c_str(), 0600), 0);
  const auto list =
      cli(dir, {"store", "list", "--store", "sqlite:" + dir + "/fifo.db"}, "timeout 20");
  EXPECT_EQ(list.code, 2) << list.err;
  EXPECT_NE(list.err.find("fifo.db: is not a regular file"), std::string::npos) << list.err;

  ASSERT_EQ(::mkdir((dir + "/baselines").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((dir + "/baselines/main").c_str(), 0755), 0);
  ASSERT_EQ(::mkfifo((dir + "/baselines/main/manifest").c_str(), 0600), 0);
  const auto import = cli(dir,
                          {"store", "import-baselines", "--store", "sqlite:" + dir + "/s.db",
                           "--baseline-dir", dir + "/baselines"},
                          "timeout 20");
  EXPECT_EQ(import.code, 2) << import.err;
  EXPECT_NE(import.err.find("main/manifest: not a regular file"), std::string::npos) << import.err;
}

// Past the file size limit a store add fails with a message naming the
// limit (exit 1), instead of dying of SIGXFSZ; nothing is added.
TEST(StoreFileKindTest, FileSizeLimitIsAMessageNotASignal) {
  const std::string dir = lab_test_util::temp_dir("zerolab_store_fsize");
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "BenchmarkM/" + std::to_string(i) + " 10 5 ns/op\n";
  zerolab::test::write_file(dir + "/m.txt", text);
  const std::string url = "sqlite:" + dir + "/s.db";
  const auto add = zerolab::test::run("ulimit -f 200; " + std::string(ZEROLAB_CLI) +
                                          " store add --store " + url + " " + dir + "/m.txt",
                                      dir);
  EXPECT_EQ(add.code, 1) << add.err;
  EXPECT_NE(add.err.find("(the file size limit, ulimit -f, is "), std::string::npos) << add.err;
  EXPECT_EQ(add.out, "");
}

}  // namespace
