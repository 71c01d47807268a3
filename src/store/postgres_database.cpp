// store/postgres_database.cpp — Database over PostgreSQL (libpq): one
// connection, parameters sent as text, bulk inserts through COPY ... FROM
// STDIN. Concurrent submitters need no lock: each run is one transaction and
// its id is unique (INSERT ... ON CONFLICT DO NOTHING). See database.hpp.
#include <libpq-fe.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "store/database.hpp"

namespace zerolab::store {
namespace {

struct ClearResult {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ClearResult>;

std::string first_line(const char* text) {
  std::string s = text != nullptr ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  const std::size_t nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  if (s.rfind("ERROR:  ", 0) == 0) s.erase(0, 8);
  return s;
}

// The SQL with each ? replaced by $1, $2, ... (the store's statements
// have no ? inside string literals).
std::string numbered_placeholders(const std::string& sql) {
  std::string out;
  int n = 0;
  for (const char c : sql) {
    if (c == '?') {
      out += '$';
      out += std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

std::string double_text(double d) {
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

class PgRow final : public Row {
 public:
  PgRow(PGresult* r, int row) : r_(r), row_(row) {}
  bool is_null(int c) const override { return PQgetisnull(r_, row_, c) != 0; }
  std::string text(int c) const override {
    return std::string(PQgetvalue(r_, row_, c), static_cast<std::size_t>(PQgetlength(r_, row_, c)));
  }
  std::int64_t integer(int c) const override {
    return std::strtoll(PQgetvalue(r_, row_, c), nullptr, 10);
  }
  double real(int c) const override {
    if (is_null(c)) return std::nan("");
    return std::strtod(PQgetvalue(r_, row_, c), nullptr);
  }

 private:
  PGresult* r_;
  int row_;
};

void ignore_notice(void*, const char*) {}

// Seconds a connection may take, from the first byte to the server's
// readiness, when the URL does not say (libpq's floor is 2).
constexpr const char* kConnectTimeout = "3";

class PostgresDatabase final : public Database {
 public:
  PostgresDatabase(const StoreUrl& url, OpenMode)
      : display_(url.display), lock_timeout_(lock_timeout_from_environment()) {
    char* parse_error = nullptr;
    PQconninfoOption* opts = PQconninfoParse(url.target.c_str(), &parse_error);
    if (opts == nullptr) {
      const std::string msg = first_line(parse_error);
      PQfreemem(parse_error);
      throw StoreError(StoreError::Kind::kBadInput,
                       "malformed store URL \"" + display_ + "\": " + msg);
    }
    // A server that accepts the connection and never answers (a hung
    // server, a port some other program listens on) fails after
    // kConnectTimeout seconds unless the URL gives its own connect_timeout.
    std::string timeout = kConnectTimeout;
    for (const PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
      if (std::strcmp(o->keyword, "connect_timeout") == 0 && o->val != nullptr && *o->val != 0)
        timeout = o->val;
    }
    PQconninfoFree(opts);
    const char* const keywords[] = {"connect_timeout", "dbname", nullptr};
    const char* const values[] = {kConnectTimeout, url.target.c_str(), nullptr};
    conn_ = PQconnectdbParams(keywords, values, 1);
    if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
      const std::string msg =
          conn_ != nullptr ? first_line(PQerrorMessage(conn_)) : "out of memory";
      PQfinish(conn_);
      conn_ = nullptr;
      // libpq checks option values (port, sslmode, ...) only when it
      // connects: "invalid integer value ...", "invalid sslmode value ...".
      if (msg.rfind("invalid ", 0) == 0) {
        throw StoreError(StoreError::Kind::kBadInput,
                         "malformed store URL \"" + display_ + "\": " + msg);
      }
      if (msg.find("timeout expired") != std::string::npos) {
        throw StoreError(StoreError::Kind::kFailed,
                         "cannot reach " + display_ + ": no answer from the server within " +
                             timeout + " s (connect_timeout=N in the URL waits N seconds)");
      }
      throw StoreError(StoreError::Kind::kFailed, "cannot reach " + display_ + ": " + msg);
    }
    PQsetNoticeProcessor(conn_, &ignore_notice, nullptr);
    // A row another submitter is writing (the same run id) is waited for
    // no longer than a SQLite writer waits for the lock.
    try {
      exec("SET lock_timeout = " + std::to_string(lock_timeout_.count()));
    } catch (...) {
      PQfinish(conn_);
      throw;
    }
  }
  ~PostgresDatabase() override { PQfinish(conn_); }
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;

  Engine engine() const override { return Engine::kPostgres; }
  const std::string& display() const override { return display_; }
  std::chrono::milliseconds lock_timeout() const override { return lock_timeout_; }

  void exec(const std::string& sql) override { check(Result(PQexec(conn_, sql.c_str()))); }

  void query(const std::string& sql, const std::vector<Param>& params,
             const RowCallback& on_row) override {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      if (const auto* s = std::get_if<std::string>(&p)) {
        texts[i] = *s;
      } else if (const auto* n = std::get_if<std::int64_t>(&p)) {
        texts[i] = std::to_string(*n);
      } else if (const auto* d = std::get_if<double>(&p); d != nullptr && !std::isnan(*d)) {
        texts[i] = double_text(*d);
      } else {
        continue;  // NULL
      }
      values[i] = texts[i].c_str();
    }
    const std::string pg_sql = numbered_placeholders(sql);
    if (!on_row) {
      check(Result(PQexecParams(conn_, pg_sql.c_str(), static_cast<int>(params.size()), nullptr,
                                values.data(), nullptr, nullptr, 0)));
      return;
    }
    // Row by row (single-row mode): a large run's results are never held
    // by libpq all at once beside what the caller builds from them.
    if (PQsendQueryParams(conn_, pg_sql.c_str(), static_cast<int>(params.size()), nullptr,
                          values.data(), nullptr, nullptr, 0) != 1) {
      check(Result(nullptr));
    }
    PQsetSingleRowMode(conn_);
    Result failed;
    while (PGresult* raw = PQgetResult(conn_)) {
      Result r(raw);
      const ExecStatusType st = PQresultStatus(raw);
      if (failed) continue;  // drained, then reported
      if (st == PGRES_SINGLE_TUPLE || st == PGRES_TUPLES_OK) {
        const int rows = PQntuples(raw);
        for (int i = 0; i < rows; ++i) {
          try {
            on_row(PgRow(raw, i));
          } catch (...) {
            while (PGresult* rest = PQgetResult(conn_)) PQclear(rest);
            throw;
          }
        }
      } else {
        failed = std::move(r);
      }
    }
    if (failed) check(failed);
  }

  void begin_write() override { exec("BEGIN"); }
  void begin_read() override { exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); }
  bool in_transaction() const override {
    return conn_ != nullptr && PQtransactionStatus(conn_) != PQTRANS_IDLE;
  }
  void commit() override { exec("COMMIT"); }
  void rollback() noexcept override {
    if (conn_ != nullptr && PQtransactionStatus(conn_) != PQTRANS_IDLE)
      PQclear(PQexec(conn_, "ROLLBACK"));
  }

  void bulk_insert(const std::string& table, const std::vector<std::string>& columns,
                   std::size_t rows, const RowValues& row_values) override {
    if (columns.empty() || rows == 0) return;
    std::string sql = "COPY " + table + "(";
    for (std::size_t i = 0; i < columns.size(); ++i) sql += (i ? "," : "") + columns[i];
    sql += ") FROM STDIN";
    Result start(PQexec(conn_, sql.c_str()));
    if (PQresultStatus(start.get()) != PGRES_COPY_IN) check(start);
    std::string buf;
    std::vector<Param> values;
    try {
      for (std::size_t row = 0; row < rows; ++row) {
        values.clear();
        row_values(row, values);
        for (std::size_t c = 0; c < values.size(); ++c) {
          append_copy_value(buf, values[c]);
          buf += c + 1 == values.size() ? '\n' : '\t';
        }
        if (buf.size() >= (1u << 20)) put_copy(buf);
      }
      put_copy(buf);
    } catch (...) {
      // The rows' source failed: the COPY is ended as failed, so the
      // connection leaves COPY mode and the caller's rollback can run.
      if (PQputCopyEnd(conn_, "the rows' source failed") == 1) {
        while (PGresult* r = PQgetResult(conn_)) PQclear(r);
      }
      throw;
    }
    if (PQputCopyEnd(conn_, nullptr) != 1) fail(StoreError::Kind::kFailed, PQerrorMessage(conn_));
    Result end(PQgetResult(conn_));
    check(end);
    while (PGresult* extra = PQgetResult(conn_)) PQclear(extra);
  }

 private:
  static void append_copy_value(std::string& buf, const Param& p) {
    if (const auto* s = std::get_if<std::string>(&p)) {
      for (const char c : *s) {
        switch (c) {
          case '\\':
            buf += "\\\\";
            break;
          case '\t':
            buf += "\\t";
            break;
          case '\n':
            buf += "\\n";
            break;
          case '\r':
            buf += "\\r";
            break;
          default:
            buf += c;
        }
      }
    } else if (const auto* n = std::get_if<std::int64_t>(&p)) {
      buf += std::to_string(*n);
    } else if (const auto* d = std::get_if<double>(&p); d != nullptr && !std::isnan(*d)) {
      buf += double_text(*d);
    } else {
      buf += "\\N";
    }
  }

  void put_copy(std::string& buf) {
    if (buf.empty()) return;
    if (PQputCopyData(conn_, buf.data(), static_cast<int>(buf.size())) != 1) {
      fail(StoreError::Kind::kFailed, PQerrorMessage(conn_));
    }
    buf.clear();
  }

  void check(const Result& r) {
    const ExecStatusType st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return;
    const char* state = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
    const std::string code = state != nullptr ? state : "";
    const std::string msg = first_line(r ? PQresultErrorMessage(r.get()) : PQerrorMessage(conn_));
    if (code == "40001" || code == "40P01" || code == "55P03") fail(StoreError::Kind::kBusy, msg);
    if (code == "25006" || code == "42501") {
      throw StoreError(StoreError::Kind::kFailed,
                       display_ + ": the store is read-only for this user (" + msg + ")");
    }
    if (PQstatus(conn_) != CONNECTION_OK) {
      throw StoreError(StoreError::Kind::kFailed, "lost " + display_ + ": " + msg);
    }
    fail(StoreError::Kind::kFailed, msg);
  }

  [[noreturn]] void fail(StoreError::Kind kind, const std::string& msg) const {
    throw StoreError(kind, display_ + ": " + first_line(msg.c_str()));
  }

  std::string display_;
  std::chrono::milliseconds lock_timeout_;
  PGconn* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<Database> open_postgres(const StoreUrl& url, OpenMode mode) {
  return std::make_unique<PostgresDatabase>(url, mode);
}

}  // namespace zerolab::store
