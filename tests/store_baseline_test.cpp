// `zerolab lab --save NAME` / `--baseline NAME` on the results store, against
// SQLite and the test PostgreSQL server with the same assertions: a saved
// run compared and gated, the name that does not exist, the name only
// another machine has, a store that cannot be opened, a read-only store
// with --save, a run the gate fails (stored, not named), and the deprecated
// baseline folders (still read, with a warning).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "lab/framework/baseline_store.hpp"
#include "store_test_util.hpp"

namespace {

using namespace zerolab;
using namespace store_test_util;
using lab_test_util::exists;
using lab_test_util::read_file;

// One quick run of one experiment: every benchmark once, one iteration.
const std::vector<std::string> kQuickRun = {"lab", "append-int",  "--go=off", "--count",
                                            "1",   "--benchtime", "1x"};

class StoreBaselineTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ZEROLAB_SKIP_WITHOUT_POSTGRES(GetParam());
    ts_ = make_test_store(GetParam());
  }
  // zerolab lab <kQuickRun> -o DIR/<out> --store URL <more>
  lab_test_util::Command lab(const std::string& out, const std::vector<std::string>& more,
                             const std::string& url = "") {
    std::vector<std::string> args = kQuickRun;
    args.insert(args.end(),
                {"-o", ts_.dir + "/" + out, "--store", url.empty() ? ts_.url_text : url});
    args.insert(args.end(), more.begin(), more.end());
    return cli(ts_.dir, args);
  }
  static std::string stored_id(const std::string& out) {
    const std::size_t at = out.find("stored: run ");
    return at == std::string::npos ? "" : out.substr(at + 12, 36);
  }
  TestStore ts_;
};

// --save names the stored run; --baseline finds it and compares, the gate passes.
TEST_P(StoreBaselineTest, SaveThenBaselineWithTheGate) {
  const auto saved = lab("r1", {"--save", "cli"});
  ASSERT_EQ(saved.code, 0) << saved.err;
  const std::string id = stored_id(saved.out);
  EXPECT_TRUE(saved.out.ends_with("\nstored: run " + id + " in " + ts_.url.display +
                                  "\nsaved as baseline cli: run " + id + " in " + ts_.url.display +
                                  "\n"))
      << saved.out;
  store::Store s = store::Store::open(ts_.url, store::OpenMode::kRead);
  EXPECT_EQ(s.resolve("cli"), id);

  // One run each side cannot be significant, so the gate passes.
  const auto compared = lab("r2", {"--baseline", "cli", "--fail-on-regression=5%"});
  EXPECT_EQ(compared.code, 0) << compared.err;
  EXPECT_NE(compared.out.find("\nbaseline cli (" + ts_.dir + "/r2/baseline/cli, recorded "),
            std::string::npos)
      << compared.out;
  EXPECT_NE(compared.out.find("\nappend-int:\npkg: zerolab/lab/append-int\n"), std::string::npos)
      << compared.out;
  const std::string report = read_file(ts_.dir + "/r2/report.md");
  EXPECT_NE(report.find("\n## Baseline cli\n"), std::string::npos);
  // The baseline is named where it is after the run, not in the staging directory.
  EXPECT_NE(report.find("(`" + ts_.dir + "/r2/baseline/cli`)"), std::string::npos) << report;
  EXPECT_EQ(report.find("+tmp."), std::string::npos) << report;
  EXPECT_NE(report.find("\nNo statistically significant regression worse than 5%.\n"),
            std::string::npos);
  // The compared baseline file is the stored run's append-int results.
  EXPECT_EQ(cli(ts_.dir, {"compare", "-format", "json", "x=" + ts_.dir + "/r1/append-int.txt"}).out,
            cli(ts_.dir,
                {"compare", "-format", "json", "x=" + ts_.dir + "/r2/baseline/cli/append-int.txt"})
                .out);
  EXPECT_EQ(compared.err.find("deprecated"), std::string::npos) << compared.err;
}

TEST_P(StoreBaselineTest, ANameThatDoesNotExistIsExit2AndRunsNothing) {
  ASSERT_EQ(lab("r1", {}).code, 0);
  const auto r = lab("r2", {"--baseline", "nosuch"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "zerolab lab: baseline \"nosuch\" not found: no run is named nosuch in " +
                ts_.url.display +
                " (zerolab lab --save nosuch names one; zerolab store list shows the runs)\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(exists(ts_.dir + "/r2"));
}

// A name is per machine: another machine's "main" is not this one's, but
// its run id is a baseline like any other.
TEST_P(StoreBaselineTest, ANameOnlyAnotherMachineHasIsExit2) {
  const auto other = lab("r1", {"--save", "main", "--label", "machine=box-b"});
  ASSERT_EQ(other.code, 0) << other.err;
  const std::string id = stored_id(other.out);
  const auto r = lab("r2", {"--baseline", "main", "--label", "machine=box-a"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "zerolab lab: baseline \"main\" in " + ts_.url.display +
                       " has no run from this machine (box-a), only from box-b (run " + id +
                       "); give --baseline a run id to compare with another machine's run\n");
  EXPECT_FALSE(exists(ts_.dir + "/r2"));
  const auto by_id = lab("r3", {"--baseline", id, "--label", "machine=box-a"});
  EXPECT_EQ(by_id.code, 0) << by_id.err;
  EXPECT_NE(by_id.out.find("\nbaseline " + id + " (" + ts_.dir + "/r3/baseline/" + id),
            std::string::npos)
      << by_id.out;
  // box-a's own "main" then leaves box-b's alone.
  ASSERT_EQ(lab("r4", {"--save", "main", "--label", "machine=box-a"}).code, 0);
  store::Store s = store::Store::open(ts_.url, store::OpenMode::kRead);
  const std::vector<store::NamedRun> named = s.named_runs("main");
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].machine, "box-a");
  EXPECT_EQ(named[1].machine, "box-b");
  EXPECT_EQ(named[1].id, id);
}

// A run the gate fails is stored but not named; the name keeps its run.
TEST_P(StoreBaselineTest, ARunThatRegressesIsStoredButNotNamed) {
  const auto first = lab("r1", {"--save", "main"});
  ASSERT_EQ(first.code, 0) << first.err;
  store::Store s = store::Store::open(ts_.url, store::OpenMode::kWrite);
  // A baseline 100 times faster than this machine, six samples a benchmark.
  store::Run fast = s.load_run(stored_id(first.out));
  std::vector<store::StoredResult> six;
  for (const store::StoredResult& r : fast.results) {
    for (int i = 0; i < 6; ++i) {
      store::StoredResult copy = r;
      for (auto& v : copy.values) {
        if (v.unit == "ns/op") v.value = v.value / 100 + i * 1e-6;
      }
      six.push_back(copy);
    }
  }
  fast.results = six;
  fast.id = store::random_uuid();
  fast.name = "fast";
  s.submit(fast);
  std::vector<std::string> more = {"--baseline", "fast", "--fail-on-regression", "--save", "main",
                                   "--count",    "6"};
  const auto r = lab("r2", more);
  EXPECT_EQ(r.code, 3) << r.err;
  const std::string id = stored_id(r.out);
  ASSERT_FALSE(id.empty()) << r.out;
  EXPECT_NE(
      r.err.find(
          "\nzerolab lab: baseline main not saved: this run regressed against its baseline (it is "
          "stored as run " +
          id + ")\n"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(s.resolve("main"), stored_id(first.out));
  EXPECT_EQ(s.load_run(id).kind, "lab");
}

TEST_P(StoreBaselineTest, AReadOnlyStoreWithSaveIsExit1AndRunsNothing) {
  ASSERT_EQ(lab("r1", {"--save", "main"}).code, 0);
  std::string url = ts_.url_text;
  std::string as;
  std::string expected;
  if (ts_.engine == "postgres") {
    const std::string reader = "reader_" + ts_.pg_db;
    pg_admin("DROP ROLE IF EXISTS " + reader);
    pg_admin("CREATE ROLE " + reader + " LOGIN");
    pg_admin("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + reader, ts_.pg_db);
    url = pg_url(ts_.pg_db, reader);
    store::StoreUrl shown;
    std::string error;
    ASSERT_TRUE(store::parse_store_url(url, shown, error));
    expected = "zerolab lab: --save: " + shown.display +
               ": the store is read-only for this user (permission denied for table run_names)\n";
  } else {
    ASSERT_EQ(::chmod(ts_.sqlite_path.c_str(), 0444), 0);
    ASSERT_EQ(::chmod((ts_.dir + "/results").c_str(), 0555), 0);
    ASSERT_EQ(::chmod(ts_.dir.c_str(), 0777), 0);
    // root ignores permissions: run the CLI as nobody then.
    if (::geteuid() == 0) as = "setpriv --reuid=nobody --regid=nogroup --clear-groups ";
    expected = "zerolab lab: --save: " + ts_.url.display +
               ": the store is read-only (attempt to write a readonly "
               "database)\n";
  }
  std::vector<std::string> args = kQuickRun;
  args.insert(args.end(), {"-o", ts_.dir + "/r2", "--store", url, "--save", "again"});
  const auto r = lab_test_util::run_cli(as + ZEROLAB_CLI, quote(args), ts_.dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, expected);
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(exists(ts_.dir + "/r2"));
  // A run that would be stored there is refused before it runs, as --save's
  // is; with --no-store the store is read for the baseline only (--store
  // and --no-store together name where the baseline is read).
  args = kQuickRun;
  args.insert(args.end(), {"-o", ts_.dir + "/r3", "--store", url, "--baseline", "main"});
  const auto b = lab_test_util::run_cli(as + ZEROLAB_CLI, quote(args), ts_.dir);
  EXPECT_EQ(b.code, 1) << b.err;
  EXPECT_EQ(b.err,
            "zerolab lab: cannot store the run (nothing was run; --no-store runs without "
            "a store)" +
                expected.substr(std::string("zerolab lab: --save").size()));
  EXPECT_FALSE(exists(ts_.dir + "/r3"));
  args.push_back("--no-store");
  const auto c = lab_test_util::run_cli(as + ZEROLAB_CLI, quote(args), ts_.dir);
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.out.find("\nbaseline main ("), std::string::npos) << c.out;
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreBaselineTest, ::testing::Values("sqlite", "postgres"));

TEST(StoreBaselineStoreTest, AStoreThatCannotBeOpenedRunsNothing) {
  const std::string dir = lab_test_util::temp_dir("zerolab_store_baseline");
  const std::string junk = dir + "/junk.db";
  std::ofstream(junk) << std::string(4096, 'z');
  const std::string nowhere = "postgresql://ci:s3cret@/bench?host=" + dir + "/nowhere";
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"--store", "sqlite:" + junk, "--baseline", "main"},
       2,
       "zerolab lab: --baseline: sqlite:" + junk + ": file is not a database\n"},
      {{"--store", "sqlite:" + junk, "--save", "main"},
       2,
       "zerolab lab: --save: sqlite:" + junk + ": file is not a database\n"},
      {{"--store", "sqlite:" + dir + "/none.db", "--baseline", "main"},
       2,
       "zerolab lab: baseline \"main\" not found: sqlite:" + dir +
           "/none.db: no such store (nothing has been stored there yet)\n"},
      {{"--store", nowhere, "--baseline", "main"},
       1,
       "zerolab lab: --baseline: cannot reach postgresql://ci:***@/bench?host=" + dir +
           "/nowhere: connection to server on socket \"" + dir +
           "/nowhere/.s.PGSQL.5432\" failed: No such file or directory\n"},
      {{"--store", nowhere, "--save", "main"},
       1,
       "zerolab lab: --save: cannot reach postgresql://ci:***@/bench?host=" + dir +
           "/nowhere: connection to server on socket \"" + dir +
           "/nowhere/.s.PGSQL.5432\" failed: No such file or directory\n"},
      {{"--no-store", "--save", "main"},
       2,
       "zerolab lab: --save NAME names the stored run; it cannot be used with --no-store\n"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = kQuickRun;
    args.insert(args.end(), {"-o", dir + "/out"});
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = cli(dir, args);
    EXPECT_EQ(r.code, c.code) << c.args[1];
    EXPECT_EQ(r.err, c.err);
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(exists(dir + "/out"));
  }
  EXPECT_EQ(read_file(junk), std::string(4096, 'z'));
  EXPECT_FALSE(exists(dir + "/none.db"));
}

// Baseline folders of an older zerolab's --save are still read, for one
// release, with a warning naming the way to import them.
TEST(StoreBaselineStoreTest, BaselineFoldersAreReadWithADeprecationWarning) {
  const TestStore ts = make_test_store("sqlite");
  std::vector<std::string> args = kQuickRun;
  args.insert(args.end(), {"-o", ts.dir + "/r1", "--no-store"});
  ASSERT_EQ(cli(ts.dir, args).code, 0);
  std::string error;
  ASSERT_EQ(::mkdir((ts.dir + "/zerolab-results").c_str(), 0777), 0);
  ASSERT_EQ(::mkdir((ts.dir + "/zerolab-results/baselines").c_str(), 0777), 0);
  ASSERT_TRUE(
      lab::save_baseline(ts.dir + "/r1", {"append-int"}, ts.dir + "/zerolab-results/baselines",
                         "old", {"2026-12-01T10:00:00Z", "zerolab lab --save old", 1, "1x"}, error))
      << error;
  const std::string warning =
      "zerolab lab: warning: baseline folder zerolab-results/baselines/old read; baseline folders "
      "are deprecated "
      "(baselines are named runs in the results store now): import them once with zerolab store "
      "import-baselines "
      "--baseline-dir zerolab-results/baselines\n";
  // The default folder, when the store has no such name.
  args = kQuickRun;
  args.insert(args.end(), {"-o", ts.dir + "/r2", "--store", ts.url_text, "--baseline", "old"});
  auto r = cli(ts.dir, args, "cd " + ts.dir + " &&");  // the default folder is relative
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.substr(0, warning.size()), warning);
  EXPECT_NE(
      r.out.find("\nbaseline old (zerolab-results/baselines/old, recorded 2026-12-01T10:00:00Z"),
      std::string::npos)
      << r.out;
  // --baseline-dir names the folder.
  args = kQuickRun;
  args.insert(args.end(), {"-o", ts.dir + "/r3", "--store", ts.url_text, "--baseline", "old",
                           "--baseline-dir", ts.dir + "/zerolab-results/baselines/"});
  r = cli(ts.dir, args);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("zerolab lab: warning: baseline folder " + ts.dir +
                       "/zerolab-results/baselines/old read;"),
            std::string::npos)
      << r.err;
}

}  // namespace
