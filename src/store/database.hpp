// store/database.hpp — the little the store needs from a SQL engine, with
// one implementation over SQLite (sqlite_database.cpp) and one over
// PostgreSQL's libpq (postgres_database.cpp): statements with ? parameters,
// rows read through a callback, write transactions, and bulk inserts
// (prepared inserts in SQLite, COPY in PostgreSQL).
//
// Errors are thrown as StoreError: kBadInput for a store this zerolab must
// refuse (not a database, a foreign or newer schema, a malformed URL: exit 2),
// kFailed for an operation that failed (unreachable server, read-only, I/O:
// exit 1), kBusy for a lock conflict the caller may retry.
//
// Thread-safety: one Database per thread.
//
// Example:
//   std::unique_ptr<Database> db = open_database(url, OpenMode::kWrite);
//   db->query("SELECT id FROM runs WHERE unix_ms >= ?", {Param(since)},
//             [](const Row& row) { std::puts(row.text(0).c_str()); });
#ifndef ZEROLAB_SRC_STORE_DATABASE_HPP_
#define ZEROLAB_SRC_STORE_DATABASE_HPP_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "store/store_args.hpp"

namespace zerolab::store {

class StoreError : public std::runtime_error {
 public:
  enum class Kind { kBadInput, kFailed, kBusy };
  StoreError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }
  // 2 for kBadInput, 1 otherwise.
  int exit_code() const { return kind_ == Kind::kBadInput ? 2 : 1; }

 private:
  Kind kind_;
};

// A parameter or bulk value: NULL, text, integer or double (a NaN double is
// stored as NULL and read back as NaN).
using Param = std::variant<std::monostate, std::string, std::int64_t, double>;

class Row {
 public:
  virtual ~Row() = default;
  virtual bool is_null(int column) const = 0;
  virtual std::string text(int column) const = 0;
  virtual std::int64_t integer(int column) const = 0;
  virtual double real(int column) const = 0;  // NULL → NaN
};

using RowCallback = std::function<void(const Row&)>;
// Fills values (cleared by the caller) with one row's values.
using RowValues = std::function<void(std::size_t row, std::vector<Param>& values)>;

enum class OpenMode { kRead, kWrite };

class Database {
 public:
  virtual ~Database() = default;
  virtual Engine engine() const = 0;
  // The store URL for messages (password removed).
  virtual const std::string& display() const = 0;
  // How long a write waits for another writer's lock before giving up
  // (kBusy); a submission retries an immediate conflict within it.
  virtual std::chrono::milliseconds lock_timeout() const = 0;

  // Runs one statement (or several separated by ";" when there are no params).
  virtual void exec(const std::string& sql) = 0;
  // Runs one statement with ? parameters, calling on_row for each row.
  virtual void query(const std::string& sql, const std::vector<Param>& params,
                     const RowCallback& on_row) = 0;
  // A transaction that will write: SQLite takes the write lock at once
  // (BEGIN IMMEDIATE, waiting up to the busy timeout).
  virtual void begin_write() = 0;
  // A read-only transaction that sees one snapshot of the store: every
  // query until commit()/rollback() sees the same committed runs, whatever
  // other processes write meanwhile (SQLite: a deferred transaction;
  // PostgreSQL: REPEATABLE READ READ ONLY).
  virtual void begin_read() = 0;
  // True inside a transaction begun by begin_write() or begin_read().
  virtual bool in_transaction() const = 0;
  virtual void commit() = 0;
  // Never throws.
  virtual void rollback() noexcept = 0;
  // Inserts `rows` rows into table, asking row_values(i, values) for row
  // i's values (columns.size() of them, in order) one row at a time, for
  // i = 0, 1, 2, ... in order, once each, so a large run is never held
  // twice in memory.
  virtual void bulk_insert(const std::string& table, const std::vector<std::string>& columns,
                           std::size_t rows, const RowValues& row_values) = 0;
};

// The lock timeout: $ZEROLAB_STORE_LOCK_TIMEOUT seconds (a decimal number
// > 0), else 120 s. Throws kBadInput for a value that is not one.
std::chrono::milliseconds lock_timeout_from_environment();

// Opens the engine the URL names. kRead never creates a SQLite file.
std::unique_ptr<Database> open_database(const StoreUrl& url, OpenMode mode);

std::unique_ptr<Database> open_sqlite(const StoreUrl& url, OpenMode mode);
std::unique_ptr<Database> open_postgres(const StoreUrl& url, OpenMode mode);

}  // namespace zerolab::store

#endif  // ZEROLAB_SRC_STORE_DATABASE_HPP_
