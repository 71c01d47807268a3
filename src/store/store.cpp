// store/store.cpp — see store.hpp. The schema's steps are below, one per
// version; a step is never edited once released, only followed by another.
#include "store/store.hpp"

#include "format/go_text.hpp"
#include "store/run_name.hpp"
#include "text/quote.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <functional>
#include <thread>
#include <unordered_map>

namespace zerolab::store {
namespace {

constexpr std::int64_t kMetaLock = 0x7a65726f6c6162;  // PostgreSQL advisory lock for migrations

// The DDL of each version, for SQLite and for PostgreSQL.
struct SchemaStep {
  const char* sqlite;
  const char* postgres;
};

const SchemaStep kSteps[] = {
    // 1: runs and everything in them.
    {R"sql(
CREATE TABLE runs(rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, unix_ms INTEGER NOT NULL,
  kind TEXT NOT NULL, command TEXT NOT NULL, source TEXT NOT NULL, machine TEXT NOT NULL);
CREATE INDEX runs_by_time ON runs(unix_ms);
CREATE TABLE run_labels(rid INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(rid, key)) WITHOUT ROWID;
CREATE TABLE run_config(rid INTEGER NOT NULL, block INTEGER NOT NULL, pos INTEGER NOT NULL,
  key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(rid, block, pos)) WITHOUT ROWID;
CREATE TABLE results(rid INTEGER NOT NULL, seq INTEGER NOT NULL, pos INTEGER NOT NULL,
  block INTEGER NOT NULL, name TEXT NOT NULL, iterations INTEGER NOT NULL, unit TEXT NOT NULL,
  value REAL, PRIMARY KEY(rid, seq, pos)) WITHOUT ROWID;
CREATE TABLE unit_notes(rid INTEGER NOT NULL, pos INTEGER NOT NULL, unit TEXT NOT NULL,
  key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(rid, pos)) WITHOUT ROWID;
CREATE TABLE claims(rid INTEGER NOT NULL, pos INTEGER NOT NULL, experiment TEXT NOT NULL,
  statement TEXT NOT NULL, seed_figure TEXT NOT NULL, verdict TEXT NOT NULL,
  go_verdict TEXT NOT NULL, cpp_verdict TEXT NOT NULL, figure TEXT NOT NULL, detail TEXT NOT NULL,
  provisional INTEGER NOT NULL, PRIMARY KEY(rid, pos)) WITHOUT ROWID;
)sql",
     R"sql(
CREATE TABLE runs(rid BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE, unix_ms BIGINT NOT NULL,
  kind TEXT NOT NULL, command TEXT NOT NULL, source TEXT NOT NULL, machine TEXT NOT NULL);
CREATE INDEX runs_by_time ON runs(unix_ms);
CREATE TABLE run_labels(rid BIGINT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(rid, key));
CREATE TABLE run_config(rid BIGINT NOT NULL, block INTEGER NOT NULL, pos INTEGER NOT NULL,
  key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(rid, block, pos));
CREATE TABLE results(rid BIGINT NOT NULL, seq INTEGER NOT NULL, pos INTEGER NOT NULL,
  block INTEGER NOT NULL, name TEXT NOT NULL, iterations BIGINT NOT NULL, unit TEXT NOT NULL,
  value DOUBLE PRECISION, PRIMARY KEY(rid, seq, pos));
CREATE TABLE unit_notes(rid BIGINT NOT NULL, pos INTEGER NOT NULL, unit TEXT NOT NULL,
  key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(rid, pos));
CREATE TABLE claims(rid BIGINT NOT NULL, pos INTEGER NOT NULL, experiment TEXT NOT NULL,
  statement TEXT NOT NULL, seed_figure TEXT NOT NULL, verdict TEXT NOT NULL,
  go_verdict TEXT NOT NULL, cpp_verdict TEXT NOT NULL, figure TEXT NOT NULL, detail TEXT NOT NULL,
  provisional INTEGER NOT NULL, PRIMARY KEY(rid, pos));
)sql"},
    // 2: names for runs (--save NAME, --baseline NAME).
    {"CREATE TABLE run_names(name TEXT PRIMARY KEY, rid INTEGER NOT NULL);",
     "CREATE TABLE run_names(name TEXT PRIMARY KEY, rid BIGINT NOT NULL);"},
    // 3: the Go-here side's own figure and detail.
    {"ALTER TABLE claims ADD COLUMN go_figure TEXT NOT NULL DEFAULT '';"
     "ALTER TABLE claims ADD COLUMN go_detail TEXT NOT NULL DEFAULT '';",
     "ALTER TABLE claims ADD COLUMN go_figure TEXT NOT NULL DEFAULT '';"
     "ALTER TABLE claims ADD COLUMN go_detail TEXT NOT NULL DEFAULT '';"},
    // 4: a name per machine (`zerolab lab --save main` on two machines names
    // one run on each; --baseline main picks this machine's).
    {"CREATE TABLE run_names4(name TEXT NOT NULL, machine TEXT NOT NULL, rid INTEGER NOT NULL,"
     " PRIMARY KEY(name, machine));"
     "INSERT INTO run_names4 SELECT n.name, r.machine, n.rid FROM run_names n JOIN runs r ON r.rid "
     "= n.rid;"
     "DROP TABLE run_names; ALTER TABLE run_names4 RENAME TO run_names;",
     "CREATE TABLE run_names4(name TEXT NOT NULL, machine TEXT NOT NULL, rid BIGINT NOT NULL,"
     " PRIMARY KEY(name, machine));"
     "INSERT INTO run_names4 SELECT n.name, r.machine, n.rid FROM run_names n JOIN runs r ON r.rid "
     "= n.rid;"
     "DROP TABLE run_names; ALTER TABLE run_names4 RENAME TO run_names;"},
};
static_assert(std::size(kSteps) == Store::kSchemaVersion);

// -1: no zerolab_meta table. Sets *foreign when other tables are there.
int read_version(Database& db, std::string* foreign) {
  bool has_meta = false;
  std::vector<std::string> others;
  if (db.engine() == Engine::kSqlite) {
    db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", {},
             [&](const Row& r) {
               const std::string name = r.text(0);
               if (name == "zerolab_meta") {
                 has_meta = true;
               } else if (name.rfind("sqlite_", 0) != 0) {
                 others.push_back(name);
               }
             });
  } else {
    // pg_tables is read in the statement's snapshot (to_regclass would
    // read the connection's catalog cache, which may not yet show a table
    // another connection just created).
    db.query(
        "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND "
        "tablename IN ('zerolab_meta', 'runs')",
        {}, [&](const Row& r) {
          if (r.text(0) == "zerolab_meta") {
            has_meta = true;
          } else {
            others.push_back(r.text(0));
          }
        });
  }
  if (!has_meta) {
    if (!others.empty() && foreign != nullptr) {
      std::string list;
      for (std::size_t i = 0; i < others.size() && i < 5; ++i) list += (i ? ", " : "") + others[i];
      *foreign = list;
    }
    return -1;
  }
  std::string text;
  bool found = false;
  db.query("SELECT value FROM zerolab_meta WHERE key = 'schema_version'", {}, [&](const Row& r) {
    text = r.text(0);
    found = true;
  });
  // Written as a decimal from 1 up, in the transaction that creates the
  // tables: anything else was edited or damaged.
  int version = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, version);
  if (!found || ec != std::errc() || ptr != end || version < 1) {
    throw StoreError(StoreError::Kind::kBadInput,
                     db.display() + ": the store's schema version " +
                         (found ? "\"" + text.substr(0, 40) + "\"" : std::string("(missing)")) +
                         " in zerolab_meta is not a version number; the store is damaged");
  }
  return version;
}

// Inserts one row per item: row(item, position) gives its values, in the
// order of columns; rows are made one at a time as the engine takes them.
template <class Item, class MakeRow>
void insert_rows(Database& db, const char* table, std::initializer_list<const char*> columns,
                 const std::vector<Item>& items, MakeRow row) {
  db.bulk_insert(table, std::vector<std::string>(columns.begin(), columns.end()), items.size(),
                 [&](std::size_t i, std::vector<Param>& values) {
                   for (Param& p : row(items[i], static_cast<std::int64_t>(i)))
                     values.push_back(std::move(p));
                 });
}

// One row per (block, position) of the run's configuration: the nested
// lists flattened with their indexes.
struct ConfigRow {
  std::int64_t block, pos;
  const KeyValue* kv;
};

// Holds one read snapshot for its lifetime, unless the connection is in a
// transaction already (then that one's view is used): the several SELECTs
// of a load see the same committed runs while other processes write.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Database& db) : db_(db), owns_(!db.in_transaction()) {
    if (owns_) db_.begin_read();
  }
  ~ReadSnapshot() {
    if (owns_) db_.rollback();
  }
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;

 private:
  Database& db_;
  bool owns_;
};

// A configuration block index no real run reaches (one block per result at
// most); a larger or negative one is a damaged row.
constexpr std::int64_t kMaxConfigBlock = std::int64_t{1} << 22;

[[noreturn]] void damaged(const Database& db, const std::string& what) {
  throw StoreError(StoreError::Kind::kBadInput,
                   db.display() + ": the store is damaged: " + what + " (refusing to read it)");
}

// Every engine, every command: a name breaking store/run_name.hpp's rule
// is refused before anything is written.
void check_name(const std::string& name) {
  const std::string why = run_name_problem(name);
  if (!why.empty()) {
    throw StoreError(StoreError::Kind::kBadInput,
                     "invalid run name " + internal::quote_text(name) + ": " + why);
  }
}

// Text both engines store alike: valid UTF-8 with no NUL byte (SQLite
// would keep either, PostgreSQL refuses both).
bool storable_text(std::string_view text) {
  while (!text.empty()) {
    if (text[0] == '\0') return false;
    const auto [rune, width] = internal::decode_rune(text);
    if (rune == internal::kRuneError && width == 1) return false;
    text.remove_prefix(width);
  }
  return true;
}

// Names point at runs per machine: INSERT ... SELECT the run's machine.
constexpr const char* kNameRunSql =
    "INSERT INTO run_names(name, machine, rid) SELECT ?, machine, rid FROM runs WHERE id = ? "
    "ON CONFLICT(name, machine) DO UPDATE SET rid = excluded.rid RETURNING rid";

}  // namespace

Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Store Store::open(const StoreUrl& url, OpenMode mode) {
  Store s(open_database(url, mode));
  s.migrate(kSchemaVersion);
  return s;
}

Store Store::open_at_version(const StoreUrl& url, int version) {
  Store s(open_database(url, OpenMode::kWrite));
  s.migrate(version);
  return s;
}

void Store::migrate(int target) {
  std::string foreign;
  const int seen = read_version(*db_, &foreign);
  auto check = [&](int v) {
    if (v > kSchemaVersion) {
      throw StoreError(StoreError::Kind::kBadInput,
                       db_->display() + ": the store's schema is version " + std::to_string(v) +
                           ", newer than this zerolab's (" + std::to_string(kSchemaVersion) +
                           "); use a newer zerolab");
    }
    if (v < 0 && !foreign.empty()) {
      throw StoreError(
          StoreError::Kind::kBadInput,
          db_->display() + ": not a zerolab store (it has other tables: " + foreign + ")");
    }
  };
  check(seen);
  if (seen >= target) return;
  // Another process may be creating or migrating the schema too: decide
  // again under a lock that serializes them. PostgreSQL: a connection-level advisory
  // lock taken before the transaction begins, so the transaction sees
  // whatever the previous holder committed; SQLite: BEGIN IMMEDIATE.
  const auto started = std::chrono::steady_clock::now();
  for (int attempt = 0;; ++attempt) {
    try {
      migrate_locked(target, check);
      return;
    } catch (const StoreError& e) {
      if (e.kind() != StoreError::Kind::kBusy ||
          std::chrono::steady_clock::now() - started >= db_->lock_timeout()) {
        throw;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * std::min(attempt, 20)));
    }
  }
}

void Store::migrate_locked(int target, const std::function<void(int)>& check) {
  const bool postgres = db_->engine() == Engine::kPostgres;
  if (postgres) db_->query("SELECT pg_advisory_lock(?)", {Param(kMetaLock)}, {});
  auto unlock = [&] {
    if (!postgres) return;
    try {
      db_->query("SELECT pg_advisory_unlock(?)", {Param(kMetaLock)}, {});
    } catch (const StoreError&) {
      // The lock goes with the connection.
    }
  };
  db_->begin_write();
  try {
    std::string foreign;
    int version = read_version(*db_, &foreign);
    if (version < 0 && !foreign.empty()) {
      throw StoreError(
          StoreError::Kind::kBadInput,
          db_->display() + ": not a zerolab store (it has other tables: " + foreign + ")");
    }
    check(version);
    if (version < 0) {
      db_->exec("CREATE TABLE zerolab_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
      db_->query("INSERT INTO zerolab_meta(key, value) VALUES('schema_version', '0')", {}, {});
      version = 0;
    }
    for (int v = version + 1; v <= target; ++v) {
      const SchemaStep& step = kSteps[v - 1];
      db_->exec(postgres ? step.postgres : step.sqlite);
    }
    if (version < target) {
      db_->query("UPDATE zerolab_meta SET value = ? WHERE key = 'schema_version'",
                 {Param(std::to_string(target))}, {});
    }
    db_->commit();
  } catch (...) {
    db_->rollback();
    unlock();
    throw;
  }
  unlock();
}

int Store::schema_version() {
  return read_version(*db_, nullptr);
}

void Store::check_run(const Run& run) {
  if (!is_uuid(run.id)) {
    throw StoreError(StoreError::Kind::kBadInput, "run id \"" + run.id + "\" is not a UUID");
  }
  if (!run.name.empty()) check_name(run.name);
  auto check = [&](const std::string& text, const char* what) {
    if (storable_text(text)) return;
    throw StoreError(
        StoreError::Kind::kBadInput,
        (run.source.empty() ? std::string("a run") : internal::quote_text(run.source)) + ": " +
            what + " " + internal::quote_text(text) +
            " is not valid UTF-8 text or holds a NUL byte (no store keeps it)");
  };
  check(run.source, "the source");
  check(run.command, "the command");
  check(run.machine, "the machine");
  check(run.kind, "the kind");
  for (const KeyValue& kv : run.labels) {
    check(kv.first, "a label key");
    check(kv.second, "a label value");
  }
  for (const auto& block : run.configs) {
    for (const KeyValue& kv : block) {
      check(kv.first, "a configuration key");
      check(kv.second, "a configuration value");
    }
  }
  for (const StoredResult& r : run.results) check_result(run, r);
  for (const UnitNote& u : run.units) {
    check(u.unit, "a unit");
    check(u.key, "a unit key");
    check(u.value, "a unit value");
  }
  for (const StoredClaim& c : run.claims) {
    for (const std::string* t :
         {&c.experiment, &c.statement, &c.seed_figure, &c.verdict, &c.go_verdict, &c.cpp_verdict,
          &c.figure, &c.detail, &c.go_figure, &c.go_detail}) {
      check(*t, "a claim's text");
    }
  }
}

void Store::check_result(const Run& run, const StoredResult& r) {
  auto check = [&](const std::string& text, const char* what) {
    if (storable_text(text)) return;
    throw StoreError(
        StoreError::Kind::kBadInput,
        (run.source.empty() ? std::string("a run") : internal::quote_text(run.source)) + ": " +
            what + " " + internal::quote_text(text) +
            " is not valid UTF-8 text or holds a NUL byte (no store keeps it)");
  };
  check(r.name, "the benchmark name");
  for (const benchfmt::Metric& m : r.values) check(m.unit, "the unit");
}

namespace {

// The results of a run held in memory.
class HeldResults final : public ResultSource {
 public:
  explicit HeldResults(const std::vector<StoredResult>& results) : results_(results) {}
  void restart() override { next_ = 0; }
  bool next(StoredResult& result) override {
    if (next_ >= results_.size()) return false;
    result = results_[next_++];
    return true;
  }

 private:
  const std::vector<StoredResult>& results_;
  std::size_t next_ = 0;
};

}  // namespace

Store::Submitted Store::submit(const Run& run, const std::function<void()>& before_commit) {
  check_run(run);
  std::size_t value_count = 0;
  for (const StoredResult& r : run.results) value_count += r.values.size();
  HeldResults results(run.results);
  return submit(run, value_count, results, before_commit);
}

Store::Submitted Store::submit(const Run& run, std::size_t value_count, ResultSource& results,
                               const std::function<void()>& before_commit) {
  {
    // The header's text (the results' is checked as they are read).
    Run header_only;
    header_only.id = run.id;
    header_only.name = run.name;
    header_only.source = run.source;
    header_only.command = run.command;
    header_only.machine = run.machine;
    header_only.kind = run.kind;
    header_only.labels = run.labels;
    header_only.configs = run.configs;
    header_only.units = run.units;
    header_only.claims = run.claims;
    check_run(header_only);
  }
  const auto started = std::chrono::steady_clock::now();
  for (int attempt = 0;; ++attempt) {
    try {
      db_->begin_write();
      bool inserted = false;
      std::int64_t rid = 0;
      db_->query(
          "INSERT INTO runs(id, unix_ms, kind, command, source, machine) VALUES(?, ?, ?, ?, ?, ?) "
          "ON CONFLICT(id) DO NOTHING RETURNING rid",
          {Param(run.id), Param(run.unix_ms), Param(run.kind), Param(run.command),
           Param(run.source), Param(run.machine)},
          [&](const Row& r) {
            inserted = true;
            rid = r.integer(0);
          });
      if (!inserted) {
        db_->rollback();
        if (!run.name.empty()) set_name(run.name, run.id);
        return Submitted::kAlreadyPresent;
      }
      insert_rows(*db_, "run_labels", {"rid", "key", "value"}, run.labels,
                  [&](const KeyValue& kv, std::int64_t) {
                    return std::vector<Param>{Param(rid), Param(kv.first), Param(kv.second)};
                  });
      std::vector<ConfigRow> config_rows;
      for (std::size_t b = 0; b < run.configs.size(); ++b) {
        for (std::size_t p = 0; p < run.configs[b].size(); ++p) {
          config_rows.push_back(
              {static_cast<std::int64_t>(b), static_cast<std::int64_t>(p), &run.configs[b][p]});
        }
      }
      insert_rows(*db_, "run_config", {"rid", "block", "pos", "key", "value"}, config_rows,
                  [&](const ConfigRow& c, std::int64_t) {
                    return std::vector<Param>{Param(rid), Param(c.block), Param(c.pos),
                                              Param(c.kv->first), Param(c.kv->second)};
                  });
      // One row per (result, value), each result read from `results` as
      // the engine asks for rows 0, 1, 2, ... (one result held at a time).
      results.restart();
      StoredResult r;
      std::int64_t q = -1;
      std::size_t p = 0;
      db_->bulk_insert("results",
                       {"rid", "seq", "pos", "block", "name", "iterations", "unit", "value"},
                       value_count, [&](std::size_t, std::vector<Param>& values) {
                         while (q < 0 || p >= r.values.size()) {
                           if (!results.next(r)) {
                             throw StoreError(StoreError::Kind::kBadInput,
                                              internal::quote_text(run.source) +
                                                  " changed while it was being stored (it has "
                                                  "fewer values than when it was read); nothing "
                                                  "was added");
                           }
                           check_result(run, r);
                           ++q;
                           p = 0;
                         }
                         const benchfmt::Metric& m = r.values[p];
                         values = {Param(rid),
                                   Param(q),
                                   Param(static_cast<std::int64_t>(p)),
                                   Param(std::int64_t{r.block}),
                                   Param(r.name),
                                   Param(r.iterations),
                                   Param(m.unit),
                                   Param(m.value)};
                         ++p;
                       });
      insert_rows(*db_, "unit_notes", {"rid", "pos", "unit", "key", "value"}, run.units,
                  [&](const UnitNote& u, std::int64_t pos) {
                    return std::vector<Param>{Param(rid), Param(pos), Param(u.unit), Param(u.key),
                                              Param(u.value)};
                  });
      insert_rows(*db_, "claims",
                  {"rid", "pos", "experiment", "statement", "seed_figure", "verdict", "go_verdict",
                   "cpp_verdict", "figure", "detail", "provisional", "go_figure", "go_detail"},
                  run.claims, [&](const StoredClaim& c, std::int64_t pos) {
                    return std::vector<Param>{Param(rid),
                                              Param(pos),
                                              Param(c.experiment),
                                              Param(c.statement),
                                              Param(c.seed_figure),
                                              Param(c.verdict),
                                              Param(c.go_verdict),
                                              Param(c.cpp_verdict),
                                              Param(c.figure),
                                              Param(c.detail),
                                              Param(std::int64_t{c.provisional ? 1 : 0}),
                                              Param(c.go_figure),
                                              Param(c.go_detail)};
                  });
      if (!run.name.empty()) db_->query(kNameRunSql, {Param(run.name), Param(run.id)}, {});
      if (before_commit) before_commit();
      db_->commit();
      return Submitted::kAdded;
    } catch (const StoreError& e) {
      db_->rollback();
      // A conflict the engine reports at once (a deadlock, a stale WAL
      // snapshot) is retried; one that already waited out the lock
      // timeout is not.
      if (e.kind() != StoreError::Kind::kBusy ||
          std::chrono::steady_clock::now() - started >= db_->lock_timeout()) {
        throw;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * std::min(attempt, 20)));
    } catch (...) {
      db_->rollback();
      throw;
    }
  }
}

void Store::check_writable() {
  db_->begin_write();
  try {
    // A write of no rows: the engine checks the permission all the same.
    db_->query(
        "INSERT INTO run_names(name, machine, rid) SELECT name, machine, rid FROM run_names WHERE "
        "1 = 0",
        {}, {});
    db_->rollback();
  } catch (...) {
    db_->rollback();
    throw;
  }
}

void Store::set_name(const std::string& name, const std::string& run_id) {
  check_name(name);
  db_->begin_write();
  try {
    bool found = false;
    db_->query(kNameRunSql, {Param(name), Param(run_id)}, [&](const Row&) { found = true; });
    if (!found)
      throw StoreError(StoreError::Kind::kBadInput,
                       "no run \"" + run_id + "\" in " + db_->display());
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
}

std::vector<NamedRun> Store::named_runs(const std::string& name) {
  std::vector<NamedRun> out;
  db_->query(
      "SELECT n.machine, r.id FROM run_names n JOIN runs r ON r.rid = n.rid WHERE n.name = ? ORDER "
      "BY n.machine",
      {Param(name)}, [&](const Row& r) {
        out.push_back(NamedRun{r.text(0), r.text(1)});
      });
  return out;
}

std::string Store::resolve(std::string_view ref) {
  const std::string text(ref);
  const std::vector<NamedRun> named = named_runs(text);
  if (named.size() == 1) return named[0].id;
  if (named.size() > 1) {
    std::string which;
    for (const NamedRun& n : named)
      which += (which.empty() ? "" : ", ") + n.machine + ": " + n.id.substr(0, 8);
    throw StoreError(StoreError::Kind::kBadInput, "name \"" + text + "\" in " + db_->display() +
                                                      " names runs on " +
                                                      std::to_string(named.size()) + " machines (" +
                                                      which + "); give the run's id");
  }
  std::vector<std::string> found;
  // Ids are stored in lower case; a prefix is matched in either case.
  std::string prefix = text;
  bool hex = ref.size() >= 4;
  for (char& c : prefix) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-');
  }
  if (hex) {
    db_->query("SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
               {Param(prefix), Param(prefix + "~")},
               [&](const Row& r) { found.push_back(r.text(0)); });
  }
  if (found.empty()) {
    throw StoreError(StoreError::Kind::kBadInput, "no run \"" + text + "\" in " + db_->display());
  }
  if (found.size() > 1) {
    throw StoreError(StoreError::Kind::kBadInput, "run \"" + text + "\" is ambiguous in " +
                                                      db_->display() + " (" + found[0] + ", " +
                                                      found[1] + ")");
  }
  return found[0];
}

Run Store::load_run(const std::string& id) {
  std::vector<Run> runs = load_where("r.id = ?", {Param(id)}, Detail::kAll);
  if (runs.empty())
    throw StoreError(StoreError::Kind::kBadInput, "no run \"" + id + "\" in " + db_->display());
  return std::move(runs[0]);
}

std::vector<Run> Store::load_runs(std::int64_t since_ms) {
  return load_where("r.unix_ms >= ?", {Param(since_ms)}, Detail::kAll);
}

std::vector<Run> Store::load_lab_claims() {
  return load_where("r.kind = 'lab'", {}, Detail::kClaims);
}

std::vector<Run> Store::load_where(const std::string& where, const std::vector<Param>& params,
                                   Detail detail) {
  ReadSnapshot snapshot(*db_);
  std::vector<Run> runs;
  std::unordered_map<std::int64_t, std::size_t> index;
  db_->query(
      "SELECT r.rid, r.id, r.unix_ms, r.kind, r.command, r.source, r.machine FROM runs r WHERE " +
          where + " ORDER BY r.unix_ms, r.rid",
      params, [&](const Row& row) {
        index.emplace(row.integer(0), runs.size());
        Run run;
        run.id = row.text(1);
        run.unix_ms = row.integer(2);
        run.kind = row.text(3);
        run.command = row.text(4);
        run.source = row.text(5);
        run.machine = row.text(6);
        runs.push_back(std::move(run));
      });
  if (runs.empty()) return runs;
  // Each table's rows of the selected runs, in (rid, order) order.
  const std::string join = " x JOIN runs r ON r.rid = x.rid WHERE " + where + " ORDER BY x.rid, ";
  auto rows_of = [&](const std::string& columns, const char* table, const char* order,
                     const std::function<void(Run&, const Row&)>& add) {
    db_->query("SELECT x.rid, " + columns + " FROM " + table + join + order, params,
               [&](const Row& row) {
                 // Every row's run was selected above in the same snapshot.
                 const auto it = index.find(row.integer(0));
                 if (it == index.end())
                   damaged(*db_, std::string(table) + " row of an unknown run");
                 add(runs[it->second], row);
               });
  };
  rows_of("x.key, x.value", "run_labels", "x.key",
          [](Run& run, const Row& row) { run.labels.emplace_back(row.text(1), row.text(2)); });
  rows_of("x.name", "run_names", "x.name",
          [](Run& run, const Row& row) { run.names.push_back(row.text(1)); });
  if (detail == Detail::kHeaders) return runs;
  rows_of("x.block, x.key, x.value", "run_config", "x.block, x.pos", [&](Run& run, const Row& row) {
    const std::int64_t stored_block = row.integer(1);
    if (stored_block < 0 || stored_block >= kMaxConfigBlock) {
      damaged(*db_, "run " + run.id + " has configuration block " + std::to_string(stored_block));
    }
    const auto block = static_cast<std::size_t>(stored_block);
    if (run.configs.size() <= block) run.configs.resize(block + 1);
    run.configs[block].emplace_back(row.text(2), row.text(3));
  });
  rows_of(
      "x.experiment, x.statement, x.seed_figure, x.verdict, x.go_verdict, x.cpp_verdict, x.figure, "
      "x.detail, "
      "x.provisional, x.go_figure, x.go_detail",
      "claims", "x.pos", [](Run& run, const Row& row) {
        StoredClaim c;
        c.experiment = row.text(1);
        c.statement = row.text(2);
        c.seed_figure = row.text(3);
        c.verdict = row.text(4);
        c.go_verdict = row.text(5);
        c.cpp_verdict = row.text(6);
        c.figure = row.text(7);
        c.detail = row.text(8);
        c.provisional = row.integer(9) != 0;
        c.go_figure = row.text(10);
        c.go_detail = row.text(11);
        run.claims.push_back(std::move(c));
      });
  if (detail == Detail::kClaims) return runs;
  rows_of("x.unit, x.key, x.value", "unit_notes", "x.pos", [](Run& run, const Row& row) {
    run.units.push_back(UnitNote{row.text(1), row.text(2), row.text(3)});
  });
  if (detail == Detail::kNoResults) return runs;
  // Consecutive rows of one (rid, seq) are one result's values.
  const Run* last_run = nullptr;
  std::int64_t last_seq = -1;
  rows_of("x.seq, x.block, x.name, x.iterations, x.unit, x.value", "results", "x.seq, x.pos",
          [&](Run& run, const Row& row) {
            const std::int64_t seq = row.integer(1);
            const std::int64_t block = row.integer(2);
            if (block < -1 || block >= kMaxConfigBlock) {
              damaged(*db_, "run " + run.id + " has a result in configuration block " +
                                std::to_string(block));
            }
            if (&run != last_run || seq != last_seq) {
              run.results.push_back(
                  StoredResult{row.text(3), row.integer(4), static_cast<int>(row.integer(2)), {}});
              last_run = &run;
              last_seq = seq;
            }
            run.results.back().values.push_back(benchfmt::Metric{row.real(6), row.text(5)});
          });
  return runs;
}

void Store::export_run(const std::string& id, const GoFormatWriter::Sink& sink) {
  ReadSnapshot snapshot(*db_);
  std::vector<Run> runs = load_where("r.id = ?", {Param(id)}, Detail::kNoResults);
  if (runs.empty())
    throw StoreError(StoreError::Kind::kBadInput, "no run \"" + id + "\" in " + db_->display());
  const Run& run = runs[0];
  GoFormatWriter writer(run, sink);
  // Consecutive rows of one seq are one result's values; each result is
  // written once its last value is read.
  StoredResult r;
  std::int64_t last_seq = -1;
  db_->query(
      "SELECT x.seq, x.block, x.name, x.iterations, x.unit, x.value FROM results x JOIN runs r ON "
      "r.rid = x.rid WHERE r.id = ? ORDER BY x.seq, x.pos",
      {Param(id)}, [&](const Row& row) {
        const std::int64_t seq = row.integer(0);
        const std::int64_t block = row.integer(1);
        if (block < -1 || block >= kMaxConfigBlock) {
          damaged(*db_, "run " + run.id + " has a result in configuration block " +
                            std::to_string(block));
        }
        if (seq != last_seq) {
          if (last_seq >= 0) writer.write(r);
          r.name = row.text(2);
          r.iterations = row.integer(3);
          r.block = static_cast<int>(block);
          r.values.clear();
          last_seq = seq;
        }
        r.values.push_back(benchfmt::Metric{row.real(5), row.text(4)});
      });
  if (last_seq >= 0) writer.write(r);
  writer.flush();
}

std::vector<RunSummary> Store::list_runs(std::int64_t since_ms) {
  const std::vector<Param> p = {Param(since_ms)};
  ReadSnapshot snapshot(*db_);
  std::unordered_map<std::string, std::int64_t> values;
  db_->query(
      "SELECT r.id, count(*) FROM results x JOIN runs r ON r.rid = x.rid WHERE r.unix_ms >= ? "
      "GROUP BY r.id",
      p, [&](const Row& row) { values[row.text(0)] = row.integer(1); });
  std::vector<RunSummary> out;
  for (Run& run : load_where("r.unix_ms >= ?", p, Detail::kHeaders)) {
    const auto v = values.find(run.id);
    out.push_back(RunSummary{run.id, run.unix_ms, run.kind, run.machine, run.command, run.source,
                             std::move(run.labels), std::move(run.names),
                             v == values.end() ? 0 : v->second});
  }
  return out;
}

std::int64_t Store::run_count() {
  std::int64_t n = 0;
  db_->query("SELECT count(*) FROM runs", {}, [&](const Row& r) { n = r.integer(0); });
  return n;
}

}  // namespace zerolab::store
