// store/sqlite_database.cpp — Database over SQLite (libsqlite3): one file,
// WAL journal so readers never wait for a writer, writers serialized by
// BEGIN IMMEDIATE with a busy timeout. See database.hpp.
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "store/database.hpp"

namespace zerolab::store {
namespace {

constexpr double kDefaultLockTimeoutSeconds = 120;

struct FinalizeStatement {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Statement = std::unique_ptr<sqlite3_stmt, FinalizeStatement>;

class SqliteRow final : public Row {
 public:
  explicit SqliteRow(sqlite3_stmt* stmt) : stmt_(stmt) {}
  bool is_null(int c) const override { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }
  std::string text(int c) const override {
    const unsigned char* t = sqlite3_column_text(stmt_, c);
    if (t == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(t),
                       static_cast<std::size_t>(sqlite3_column_bytes(stmt_, c)));
  }
  std::int64_t integer(int c) const override { return sqlite3_column_int64(stmt_, c); }
  double real(int c) const override {
    if (is_null(c)) return std::nan("");
    // A negative zero is kept as its 8 bytes (see bind).
    if (sqlite3_column_type(stmt_, c) == SQLITE_BLOB && sqlite3_column_bytes(stmt_, c) == 8) {
      double d = 0;
      std::memcpy(&d, sqlite3_column_blob(stmt_, c), sizeof d);
      return d;
    }
    return sqlite3_column_double(stmt_, c);
  }

 private:
  sqlite3_stmt* stmt_;
};

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(const StoreUrl& url, OpenMode mode)
      : display_(url.display),
        path_(url.target),
        lock_timeout_(lock_timeout_from_environment()),
        writer_(mode == OpenMode::kWrite) {
    struct stat st {};
    const bool exists = ::stat(path_.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
      fail(StoreError::Kind::kBadInput, "is a directory, not a database file");
    // A FIFO would block the open forever, a device would be written to.
    if (exists && !S_ISREG(st.st_mode))
      fail(StoreError::Kind::kBadInput, "is not a regular file (a FIFO, socket or device)");
    if (!exists && mode == OpenMode::kRead) {
      fail(StoreError::Kind::kBadInput, "no such store (nothing has been stored there yet)");
    }
    if (!exists) make_parent_directory();
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
    if (mode == OpenMode::kWrite) flags |= SQLITE_OPEN_CREATE;
    int rc = sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK && mode == OpenMode::kRead) {
      sqlite3_close_v2(db_);
      db_ = nullptr;
      rc =
          sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    }
    if (rc != SQLITE_OK) {
      const std::string msg = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close_v2(db_);
      db_ = nullptr;
      fail(kind_of(rc), msg);
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, static_cast<int>(lock_timeout_.count()));
    try {
      // Reading the schema tells a database from any other file.
      try {
        retry_while_busy([&] { exec("SELECT count(*) FROM sqlite_master"); });
      } catch (const StoreError& e) {
        // A WAL store without its -shm in a directory this user cannot
        // write (read-only media, a store copied without its -wal/-shm)
        // cannot be read the usual way: SQLite would create the -shm. With
        // no -wal beside it, every committed run is in the file itself and
        // nothing can change it for us: it is opened as immutable.
        if (mode != OpenMode::kRead || e.kind() != StoreError::Kind::kFailed ||
            !reopen_immutable()) {
          throw;
        }
        exec("SELECT count(*) FROM sqlite_master");
      }
      if (mode == OpenMode::kWrite && sqlite3_db_readonly(db_, "main") == 0) {
        // Switching a new file to WAL takes an exclusive lock that SQLite
        // does not wait for through the busy timeout: when another process
        // is opening the same new store, it is retried here instead.
        retry_while_busy([&] {
          bool wal = false;
          query("PRAGMA journal_mode", {}, [&](const Row& r) { wal = r.text(0) == "wal"; });
          if (!wal) exec("PRAGMA journal_mode=WAL");
        });
        exec("PRAGMA synchronous=NORMAL");
      }
      // Keep the -wal and -shm files when the last connection closes (a
      // reader's too), so a user who may only read the store can open it.
      int persist = 1;
      sqlite3_file_control(db_, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    } catch (...) {
      sqlite3_close_v2(db_);
      db_ = nullptr;
      throw;
    }
  }
  ~SqliteDatabase() override {
    if (db_ != nullptr) sqlite3_close_v2(db_);
  }
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  Engine engine() const override { return Engine::kSqlite; }
  const std::string& display() const override { return display_; }
  std::chrono::milliseconds lock_timeout() const override { return lock_timeout_; }

  void exec(const std::string& sql) override {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
      std::string msg = err != nullptr ? err : sqlite3_errstr(rc);
      sqlite3_free(err);
      fail(kind_of(rc), msg);
    }
  }

  void query(const std::string& sql, const std::vector<Param>& params,
             const RowCallback& on_row) override {
    Statement stmt{prepare(sql)};
    for (std::size_t i = 0; i < params.size(); ++i)
      bind(stmt.get(), static_cast<int>(i + 1), params[i]);
    SqliteRow row(stmt.get());
    for (;;) {
      const int rc = sqlite3_step(stmt.get());
      if (rc == SQLITE_ROW) {
        if (on_row) on_row(row);
        continue;
      }
      if (rc == SQLITE_DONE) break;
      fail(kind_of(rc), sqlite3_errmsg(db_));
    }
  }

  void begin_write() override { exec("BEGIN IMMEDIATE"); }
  void begin_read() override { exec("BEGIN DEFERRED"); }
  bool in_transaction() const override { return sqlite3_get_autocommit(db_) == 0; }
  void commit() override { exec("COMMIT"); }
  void rollback() noexcept override {
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

  void bulk_insert(const std::string& table, const std::vector<std::string>& columns,
                   std::size_t rows, const RowValues& row_values) override {
    if (columns.empty() || rows == 0) return;
    std::string sql = "INSERT INTO " + table + "(";
    for (std::size_t i = 0; i < columns.size(); ++i) sql += (i ? "," : "") + columns[i];
    sql += ") VALUES(";
    for (std::size_t i = 0; i < columns.size(); ++i) sql += i ? ",?" : "?";
    sql += ")";
    Statement stmt{prepare(sql)};
    std::vector<Param> values;
    for (std::size_t row = 0; row < rows; ++row) {
      values.clear();
      row_values(row, values);
      for (std::size_t c = 0; c < columns.size() && c < values.size(); ++c)
        bind(stmt.get(), static_cast<int>(c + 1), values[c]);
      const int rc = sqlite3_step(stmt.get());
      if (rc != SQLITE_DONE) fail(kind_of(rc), sqlite3_errmsg(db_));
      sqlite3_reset(stmt.get());
    }
  }

 private:
  [[noreturn]] void fail(StoreError::Kind kind, const std::string& msg) const {
    if (kind == StoreError::Kind::kFailed && msg.find("readonly") != std::string::npos) {
      throw StoreError(kind, display_ + ": the store is read-only (" + msg + ")");
    }
    if (kind == StoreError::Kind::kBusy) {
      char waited[32];
      std::snprintf(waited, sizeof waited, "%g", static_cast<double>(lock_timeout_.count()) / 1000);
      throw StoreError(kind, display_ + ": " + msg + " (another writer held the lock; waited " +
                                 waited + " s, $ZEROLAB_STORE_LOCK_TIMEOUT)");
    }
    // SQLite says "disk I/O error" for every failed write: name the cause.
    const int system_errno = db_ != nullptr ? sqlite3_system_errno(db_) : 0;
    if (kind == StoreError::Kind::kFailed && system_errno == EFBIG) {
      throw StoreError(kind, display_ + ": " + msg +
                                 " (the file size limit, ulimit -f, was reached" +
                                 (writer_ ? "; nothing was added)" : ")"));
    }
    // A write cut short at the limit leaves no errno to name: say the limit.
    rlimit file_size{};
    if (kind == StoreError::Kind::kFailed && msg.find("I/O error") != std::string::npos &&
        ::getrlimit(RLIMIT_FSIZE, &file_size) == 0 && file_size.rlim_cur != RLIM_INFINITY) {
      throw StoreError(kind, display_ + ": " + msg + " (the file size limit, ulimit -f, is " +
                                 std::to_string(file_size.rlim_cur) +
                                 " bytes: a write past it fails" +
                                 (writer_ ? "; nothing was added)" : ")"));
    }
    if (kind == StoreError::Kind::kFailed && system_errno == ENOSPC) {
      throw StoreError(kind, display_ + ": " + msg + " (no space left on the device)");
    }
    throw StoreError(kind, display_ + ": " + msg);
  }

  static StoreError::Kind kind_of(int rc) {
    switch (rc & 0xff) {
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        return StoreError::Kind::kBusy;
      case SQLITE_NOTADB:
      case SQLITE_CORRUPT:
        return StoreError::Kind::kBadInput;
      default:
        return StoreError::Kind::kFailed;
    }
  }

  // Runs step again while it fails with kBusy, up to the lock timeout.
  template <class Step>
  void retry_while_busy(const Step& step) {
    const auto started = std::chrono::steady_clock::now();
    for (int attempt = 0;; ++attempt) {
      try {
        step();
        return;
      } catch (const StoreError& e) {
        if (e.kind() != StoreError::Kind::kBusy ||
            std::chrono::steady_clock::now() - started >= lock_timeout_) {
          throw;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2 + 2 * std::min(attempt, 25)));
    }
  }

  // Reopens the file read-only as immutable when it has no -wal with
  // content beside it; false (nothing changed) otherwise.
  bool reopen_immutable() {
    struct stat wal {};
    if (::stat((path_ + "-wal").c_str(), &wal) == 0 && wal.st_size > 0) return false;
    // "file://" would start an authority: a path of several leading
    // slashes is written with an empty one.
    const bool rooted = path_.rfind("//", 0) == 0;
    std::string uri = rooted ? "file://" : "file:";
    for (const char c : rooted ? path_.substr(path_.find_first_not_of('/') - 1) : path_) {
      if (c == '%' || c == '?' || c == '#') {
        char hex[4];
        std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
        uri += hex;
      } else {
        uri += c;
      }
    }
    uri += "?immutable=1";
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(uri.c_str(), &db,
                        SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      sqlite3_close_v2(db);
      return false;
    }
    sqlite3_close_v2(db_);
    db_ = db;
    sqlite3_extended_result_codes(db_, 1);
    return true;
  }

  void make_parent_directory() const {
    const std::size_t slash = path_.rfind('/');
    if (slash == std::string::npos || slash == 0) return;
    const std::string dir = path_.substr(0, slash);
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) return;
    if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
      fail(StoreError::Kind::kFailed,
           "cannot create directory " + dir + ": " + std::strerror(errno));
    }
  }

  sqlite3_stmt* prepare(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    const int rc =
        sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr);
    if (rc != SQLITE_OK) fail(kind_of(rc), sqlite3_errmsg(db_));
    return stmt;
  }

  void bind(sqlite3_stmt* stmt, int index, const Param& p) {
    int rc = SQLITE_OK;
    if (const auto* s = std::get_if<std::string>(&p)) {
      rc = sqlite3_bind_text(stmt, index, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
    } else if (const auto* i = std::get_if<std::int64_t>(&p)) {
      rc = sqlite3_bind_int64(stmt, index, *i);
    } else if (const auto* d = std::get_if<double>(&p)) {
      if (std::isnan(*d)) {
        rc = sqlite3_bind_null(stmt, index);
      } else if (*d == 0 && std::signbit(*d)) {
        // A REAL column keeps an integral value as an integer, so -0
        // would come back as 0: it is kept as its 8 bytes instead (a REAL
        // column does not convert a BLOB), and Row::real reads them back.
        rc = sqlite3_bind_blob(stmt, index, d, sizeof *d, SQLITE_TRANSIENT);
      } else {
        rc = sqlite3_bind_double(stmt, index, *d);
      }
    } else {
      rc = sqlite3_bind_null(stmt, index);
    }
    if (rc != SQLITE_OK) fail(kind_of(rc), sqlite3_errmsg(db_));
  }

  std::string display_;
  std::string path_;
  std::chrono::milliseconds lock_timeout_;
  bool writer_;  // opened to write: a failed write means nothing was added
  sqlite3* db_ = nullptr;
};

}  // namespace

std::chrono::milliseconds lock_timeout_from_environment() {
  const char* text = std::getenv("ZEROLAB_STORE_LOCK_TIMEOUT");
  if (text == nullptr || *text == '\0') {
    return std::chrono::milliseconds(static_cast<std::int64_t>(kDefaultLockTimeoutSeconds * 1000));
  }
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (*end != '\0' || !(seconds > 0) || seconds > 86400) {
    throw StoreError(StoreError::Kind::kBadInput,
                     "ZEROLAB_STORE_LOCK_TIMEOUT=\"" + std::string(text).substr(0, 40) +
                         "\" is not a number of seconds from 0.001 to 86400");
  }
  return std::chrono::milliseconds(
      std::max<std::int64_t>(1, static_cast<std::int64_t>(seconds * 1000)));
}

std::unique_ptr<Database> open_sqlite(const StoreUrl& url, OpenMode mode) {
  return std::make_unique<SqliteDatabase>(url, mode);
}

std::unique_ptr<Database> open_database(const StoreUrl& url, OpenMode mode) {
  return url.engine == Engine::kSqlite ? open_sqlite(url, mode) : open_postgres(url, mode);
}

}  // namespace zerolab::store
