// Many writers at once: 8 processes each submit 200 lab-sized runs (2,000
// results each) to one store — a SQLite file, then a PostgreSQL database —
// and each also re-submits every tenth run of its neighbour. Every run must
// be there exactly once with all its results. Label "load" (release build
// only: about a minute on 2 cores; the time is printed, never asserted).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "store_test_util.hpp"

namespace {

using namespace zerolab;
using namespace store_test_util;

constexpr int kProcesses = 8;
constexpr int kRunsEach = 200;
constexpr int kResultsPerRun = 2000;

std::string load_id(int process, int run) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-0000-4000-8000-%012x", process, run);
  return buf;
}

store::Run load_run(int process, int run) {
  store::Run r;
  r.id = load_id(process, run);
  r.kind = "lab";
  r.unix_ms = 1'700'000'000'000 + process * 1000 + run;
  r.command = "store_load_test";
  r.source = "lab";
  r.configs = {{{"goos", "linux"}, {"cpu", "load-" + std::to_string(process)}}};
  r.results.reserve(kResultsPerRun);
  for (int i = 0; i < kResultsPerRun; ++i) {
    r.results.push_back(store::StoredResult{"BenchmarkLoad/case=" + std::to_string(i % 200) + "-2",
                                            1000 + i,
                                            0,
                                            {{100.0 + process + run * 0.01 + i * 1e-4, "ns/op"}}});
  }
  r.claims.push_back(
      {"load", "every run is kept once", "", "holds", "", "holds", "", "", false, "", ""});
  store::set_labels(r, {{"commit", "c" + std::to_string(run)}});
  return r;
}

// In a child: submit this process's runs and some of the next one's.
int submit_all(const store::StoreUrl& url, int process) {
  try {
    store::Store s = store::Store::open(url, store::OpenMode::kWrite);
    for (int run = 0; run < kRunsEach; ++run) {
      s.submit(load_run(process, run));
      if (run % 10 == 0) s.submit(load_run((process + 1) % kProcesses, run));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "process %d: %s\n", process, e.what());
    return 1;
  }
  return 0;
}

class StoreLoadTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StoreLoadTest, EightWritersLoseNothingAndDuplicateNothing) {
  ZEROLAB_SKIP_WITHOUT_POSTGRES(GetParam());
  const TestStore ts = make_test_store(GetParam());
  { store::Store::open(ts.url, store::OpenMode::kWrite); }  // the schema, before the race
  const auto start = std::chrono::steady_clock::now();
  std::fflush(nullptr);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) _exit(submit_all(ts.url, p));
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %d runs x %d results from %d processes in %.1f s\n", GetParam().c_str(),
              kProcesses * kRunsEach, kResultsPerRun, kProcesses, seconds);

  store::Store s = store::Store::open(ts.url, store::OpenMode::kRead);
  EXPECT_EQ(s.run_count(), kProcesses * kRunsEach);
  std::set<std::string> ids;
  s.database().query("SELECT id FROM runs", {},
                     [&](const store::Row& r) { ids.insert(r.text(0)); });
  std::set<std::string> expected;
  for (int p = 0; p < kProcesses; ++p) {
    for (int r = 0; r < kRunsEach; ++r) expected.insert(load_id(p, r));
  }
  EXPECT_EQ(ids, expected);
  std::int64_t results = 0, claims = 0, short_runs = -1;
  s.database().query("SELECT count(*) FROM results", {},
                     [&](const store::Row& r) { results = r.integer(0); });
  s.database().query("SELECT count(*) FROM claims", {},
                     [&](const store::Row& r) { claims = r.integer(0); });
  s.database().query(
      "SELECT count(*) FROM (SELECT rid FROM results GROUP BY rid HAVING count(*) <> ?) x",
      {store::Param(std::int64_t{kResultsPerRun})},
      [&](const store::Row& r) { short_runs = r.integer(0); });
  EXPECT_EQ(results, std::int64_t{kProcesses} * kRunsEach * kResultsPerRun);
  EXPECT_EQ(claims, kProcesses * kRunsEach);
  EXPECT_EQ(short_runs, 0);
  // A run read back is the run that was sent.
  EXPECT_EQ(store::to_go_format(s.load_run(load_id(3, 117))),
            store::to_go_format(load_run(3, 117)));
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreLoadTest, ::testing::Values("sqlite", "postgres"));

}  // namespace
