// tests/store_test_util.hpp — what the store's tests share: a fresh store of
// either engine (a SQLite file in a temporary directory, or a new database
// on the test PostgreSQL server that tests/store.cmake starts), synthetic
// runs, and running the zerolab CLI with shell-quoted arguments.
//
// Example:
//   const TestStore ts = make_test_store("postgres");
//   store::Store s = store::Store::open(ts.url, store::OpenMode::kWrite);
//   s.submit(synthetic_run(1, 1000, "cpu-a", {{"BenchmarkA", {1.0, 1.1}}}));
#ifndef ZEROLAB_TESTS_STORE_TEST_UTIL_HPP_
#define ZEROLAB_TESTS_STORE_TEST_UTIL_HPP_

#include <libpq-fe.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lab_cli_util.hpp"
#include "store/run.hpp"
#include "store/store.hpp"
#include "store/store_args.hpp"

namespace store_test_util {

using namespace zerolab;

// The directory of the test PostgreSQL server's socket.
inline std::string pg_dir() {
  return ZEROLAB_PG_TEST_DIR;
}

inline std::string pg_url(const std::string& db, const std::string& user = "zerolab") {
  return "postgresql:///" + db + "?host=" + pg_dir() + "&user=" + user;
}

// Runs SQL on the test server's maintenance database as its superuser.
inline void pg_admin(const std::string& sql, const std::string& db = "zerolab") {
  PGconn* c = PQconnectdb(pg_url(db).c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    const std::string msg = PQerrorMessage(c);
    PQfinish(c);
    throw std::runtime_error("test PostgreSQL server: " + msg);
  }
  PGresult* r = PQexec(c, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
  const std::string msg = PQresultErrorMessage(r);
  PQclear(r);
  PQfinish(c);
  if (!ok) throw std::runtime_error(sql + ": " + msg);
}

struct TestStore {
  std::string engine;  // "sqlite" or "postgres"
  std::string dir;     // a temporary directory for files
  std::string url_text;
  store::StoreUrl url;
  std::string sqlite_path;  // engine sqlite
  std::string pg_db;        // engine postgres
};

// Why the PostgreSQL tests cannot run here ("" when they can): the reason
// scripts/pg-test-server.sh left when PostgreSQL is not installed.
inline std::string pg_unavailable() {
  std::FILE* f = std::fopen((pg_dir() + "/unavailable").c_str(), "r");
  if (f == nullptr) return "";
  char line[512] = {};
  if (std::fgets(line, sizeof line, f) == nullptr) line[0] = '\0';
  std::fclose(f);
  std::string reason = line;
  while (!reason.empty() && reason.back() == '\n') reason.pop_back();
  return reason.empty() ? "PostgreSQL is not available" : reason;
}

// In a test's SetUp: skips a PostgreSQL test where PostgreSQL is not available.
#define ZEROLAB_SKIP_WITHOUT_POSTGRES(engine)                                   \
  do {                                                                          \
    if ((engine) == "postgres" && !store_test_util::pg_unavailable().empty()) { \
      GTEST_SKIP() << store_test_util::pg_unavailable();                        \
    }                                                                           \
  } while (false)

inline TestStore make_test_store(const std::string& engine) {
  TestStore t;
  t.engine = engine;
  t.dir = lab_test_util::temp_dir("zerolab_store_test");
  if (engine == "sqlite") {
    t.sqlite_path = t.dir + "/results/zerolab.db";
    t.url_text = "sqlite:" + t.sqlite_path;
  } else {
    t.pg_db = "t" + t.dir.substr(t.dir.rfind('.') + 1);
    for (char& c : t.pg_db) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    pg_admin("CREATE DATABASE " + t.pg_db);
    t.url_text = pg_url(t.pg_db);
  }
  std::string error;
  if (!store::parse_store_url(t.url_text, t.url, error)) throw std::runtime_error(error);
  return t;
}

// A run whose results are (name, samples): one result line per sample.
inline store::Run synthetic_run(
    int n, std::int64_t unix_ms, const std::string& machine,
    const std::vector<std::pair<std::string, std::vector<double>>>& results,
    const std::string& commit = "") {
  store::Run run;
  run.kind = "file";
  run.unix_ms = unix_ms;
  run.command = "test";
  run.source = "run" + std::to_string(n) + ".txt";
  run.configs = {{{"goos", "linux"}, {"cpu", machine}}};
  for (const auto& [name, samples] : results) {
    for (const double v : samples)
      run.results.push_back(store::StoredResult{name, 1000, 0, {{v, "ns/op"}}});
  }
  std::vector<store::KeyValue> labels;
  if (!commit.empty()) labels.emplace_back("commit", commit);
  store::set_labels(run, labels);
  run.id = store::content_uuid(run);
  return run;
}

// "'a' 'b c'": each argument single-quoted for the shell.
inline std::string quote(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) {
    out += " '";
    for (const char c : a) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    out += "'";
  }
  return out;
}

inline lab_test_util::Command cli(const std::string& dir, const std::vector<std::string>& args,
                                  const std::string& env = "") {
  return lab_test_util::run_cli(ZEROLAB_CLI, quote(args), dir, env);
}

}  // namespace store_test_util

#endif  // ZEROLAB_TESTS_STORE_TEST_UTIL_HPP_
