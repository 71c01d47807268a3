// store/store.cpp — see store.hpp. The schema's steps are below, one per
// version; a step is never edited once released, only followed by another.
#include "store/store.hpp"

#include <algorithm>
#include <chrono>
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
};
static_assert(std::size(kSteps) == Store::kSchemaVersion);

// -1: no zerolab_meta table. Sets *foreign when other tables are there.
int read_version(Database& db, std::string* foreign) {
  bool has_meta = false;
  std::vector<std::string> others;
  if (db.engine() == Engine::kSqlite) {
    db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", {}, [&](const Row& r) {
      const std::string name = r.text(0);
      if (name == "zerolab_meta") {
        has_meta = true;
      } else if (name.rfind("sqlite_", 0) != 0) {
        others.push_back(name);
      }
    });
  } else {
    db.query("SELECT to_regclass('zerolab_meta') IS NOT NULL, to_regclass('runs') IS NOT NULL", {},
             [&](const Row& r) {
               has_meta = r.text(0) == "t";
               if (r.text(1) == "t") others.push_back("runs");
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
  int version = 0;
  db.query("SELECT value FROM zerolab_meta WHERE key = 'schema_version'", {},
           [&](const Row& r) { version = std::atoi(r.text(0).c_str()); });
  return version;
}

std::vector<std::string> cols(std::initializer_list<const char*> names) {
  return std::vector<std::string>(names.begin(), names.end());
}

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
      throw StoreError(StoreError::Kind::kBadInput,
                       db_->display() + ": not a zerolab store (it has other tables: " + foreign + ")");
    }
  };
  check(seen);
  if (seen >= target) return;
  // Another process may be migrating too: decide again under the lock.
  db_->begin_write();
  try {
    if (db_->engine() == Engine::kPostgres) {
      db_->query("SELECT pg_advisory_xact_lock(?)", {Param(kMetaLock)}, {});
    }
    foreign.clear();
    int version = read_version(*db_, &foreign);
    check(version);
    if (version < 0) {
      db_->exec("CREATE TABLE zerolab_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
      db_->query("INSERT INTO zerolab_meta(key, value) VALUES('schema_version', '0')", {}, {});
      version = 0;
    }
    for (int v = version + 1; v <= target; ++v) {
      const SchemaStep& step = kSteps[v - 1];
      db_->exec(db_->engine() == Engine::kSqlite ? step.sqlite : step.postgres);
    }
    if (version < target) {
      db_->query("UPDATE zerolab_meta SET value = ? WHERE key = 'schema_version'", {Param(std::to_string(target))},
                 {});
    }
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
}

int Store::schema_version() { return read_version(*db_, nullptr); }

Store::Submitted Store::submit(const Run& run, const std::function<void()>& before_commit) {
  if (!is_uuid(run.id)) {
    throw StoreError(StoreError::Kind::kBadInput, "run id \"" + run.id + "\" is not a UUID");
  }
  for (int attempt = 0;; ++attempt) {
    try {
      db_->begin_write();
      bool inserted = false;
      std::int64_t rid = 0;
      db_->query(
          "INSERT INTO runs(id, unix_ms, kind, command, source, machine) VALUES(?, ?, ?, ?, ?, ?) "
          "ON CONFLICT(id) DO NOTHING RETURNING rid",
          {Param(run.id), Param(run.unix_ms), Param(run.kind), Param(run.command), Param(run.source),
           Param(run.machine)},
          [&](const Row& r) {
            inserted = true;
            rid = r.integer(0);
          });
      if (!inserted) {
        db_->rollback();
        if (!run.name.empty()) set_name(run.name, run.id);
        return Submitted::kAlreadyPresent;
      }
      std::vector<Param> v;
      for (const KeyValue& kv : run.labels) {
        v.insert(v.end(), {Param(rid), Param(kv.first), Param(kv.second)});
      }
      db_->bulk_insert("run_labels", cols({"rid", "key", "value"}), v);
      v.clear();
      for (std::size_t b = 0; b < run.configs.size(); ++b) {
        for (std::size_t p = 0; p < run.configs[b].size(); ++p) {
          v.insert(v.end(), {Param(rid), Param(static_cast<std::int64_t>(b)), Param(static_cast<std::int64_t>(p)),
                             Param(run.configs[b][p].first), Param(run.configs[b][p].second)});
        }
      }
      db_->bulk_insert("run_config", cols({"rid", "block", "pos", "key", "value"}), v);
      v.clear();
      v.reserve(run.results.size() * 8);
      for (std::size_t s = 0; s < run.results.size(); ++s) {
        const StoredResult& r = run.results[s];
        for (std::size_t p = 0; p < r.values.size(); ++p) {
          v.insert(v.end(), {Param(rid), Param(static_cast<std::int64_t>(s)), Param(static_cast<std::int64_t>(p)),
                             Param(static_cast<std::int64_t>(r.block)), Param(r.name), Param(r.iterations),
                             Param(r.values[p].unit), Param(r.values[p].value)});
        }
      }
      db_->bulk_insert("results", cols({"rid", "seq", "pos", "block", "name", "iterations", "unit", "value"}), v);
      v.clear();
      for (std::size_t p = 0; p < run.units.size(); ++p) {
        const UnitNote& u = run.units[p];
        v.insert(v.end(), {Param(rid), Param(static_cast<std::int64_t>(p)), Param(u.unit), Param(u.key),
                           Param(u.value)});
      }
      db_->bulk_insert("unit_notes", cols({"rid", "pos", "unit", "key", "value"}), v);
      v.clear();
      for (std::size_t p = 0; p < run.claims.size(); ++p) {
        const StoredClaim& c = run.claims[p];
        v.insert(v.end(), {Param(rid), Param(static_cast<std::int64_t>(p)), Param(c.experiment), Param(c.statement),
                           Param(c.seed_figure), Param(c.verdict), Param(c.go_verdict), Param(c.cpp_verdict),
                           Param(c.figure), Param(c.detail), Param(std::int64_t{c.provisional ? 1 : 0}),
                           Param(c.go_figure), Param(c.go_detail)});
      }
      db_->bulk_insert("claims",
                       cols({"rid", "pos", "experiment", "statement", "seed_figure", "verdict", "go_verdict",
                             "cpp_verdict", "figure", "detail", "provisional", "go_figure", "go_detail"}),
                       v);
      if (!run.name.empty()) {
        db_->query("INSERT INTO run_names(name, rid) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET rid = excluded.rid",
                   {Param(run.name), Param(rid)}, {});
      }
      if (before_commit) before_commit();
      db_->commit();
      return Submitted::kAdded;
    } catch (const StoreError& e) {
      db_->rollback();
      if (e.kind() != StoreError::Kind::kBusy || attempt >= 100) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * std::min(attempt, 20)));
    } catch (...) {
      db_->rollback();
      throw;
    }
  }
}

void Store::set_name(const std::string& name, const std::string& run_id) {
  db_->begin_write();
  try {
    bool found = false;
    db_->query(
        "INSERT INTO run_names(name, rid) SELECT ?, rid FROM runs WHERE id = ? "
        "ON CONFLICT(name) DO UPDATE SET rid = excluded.rid RETURNING rid",
        {Param(name), Param(run_id)}, [&](const Row&) { found = true; });
    if (!found) throw StoreError(StoreError::Kind::kBadInput, "no run \"" + run_id + "\" in " + db_->display());
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
}

std::string Store::resolve(std::string_view ref) {
  std::vector<std::string> found;
  auto collect = [&](const Row& r) { found.push_back(r.text(0)); };
  const std::string text(ref);
  db_->query("SELECT r.id FROM run_names n JOIN runs r ON r.rid = n.rid WHERE n.name = ?", {Param(text)}, collect);
  if (found.empty()) {
    bool hex = ref.size() >= 4;
    for (const char c : ref) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-');
    if (hex) {
      db_->query("SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
                 {Param(text), Param(text + "~")}, collect);
    }
  }
  if (found.empty()) {
    throw StoreError(StoreError::Kind::kBadInput, "no run \"" + text + "\" in " + db_->display());
  }
  if (found.size() > 1) {
    throw StoreError(StoreError::Kind::kBadInput,
                     "run \"" + text + "\" is ambiguous in " + db_->display() + " (" + found[0] + ", " + found[1] + ")");
  }
  return found[0];
}

Run Store::load_run(const std::string& id) {
  std::vector<Run> runs = load_where("r.id = ?", {Param(id)}, true);
  if (runs.empty()) throw StoreError(StoreError::Kind::kBadInput, "no run \"" + id + "\" in " + db_->display());
  return std::move(runs[0]);
}

std::vector<Run> Store::load_runs(std::int64_t since_ms) {
  return load_where("r.unix_ms >= ?", {Param(since_ms)}, true);
}

std::vector<Run> Store::load_lab_claims() { return load_where("r.kind = 'lab'", {}, false); }

std::vector<Run> Store::load_where(const std::string& where, const std::vector<Param>& params, bool with_results) {
  std::vector<Run> runs;
  std::unordered_map<std::int64_t, std::size_t> index;
  db_->query("SELECT r.rid, r.id, r.unix_ms, r.kind, r.command, r.source, r.machine FROM runs r WHERE " + where +
                 " ORDER BY r.unix_ms, r.id",
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
  auto of = [&](const Row& row) -> Run& { return runs[index.at(row.integer(0))]; };
  const std::string join = " x JOIN runs r ON r.rid = x.rid WHERE " + where;
  db_->query("SELECT x.rid, x.key, x.value FROM run_labels" + join + " ORDER BY x.rid, x.key", params,
             [&](const Row& row) { of(row).labels.emplace_back(row.text(1), row.text(2)); });
  db_->query("SELECT x.rid, x.block, x.key, x.value FROM run_config" + join + " ORDER BY x.rid, x.block, x.pos",
             params, [&](const Row& row) {
               Run& run = of(row);
               const auto block = static_cast<std::size_t>(row.integer(1));
               if (run.configs.size() <= block) run.configs.resize(block + 1);
               run.configs[block].emplace_back(row.text(2), row.text(3));
             });
  db_->query("SELECT x.rid, x.name FROM run_names" + join + " ORDER BY x.rid, x.name", params,
             [&](const Row& row) {
               Run& run = of(row);
               if (run.name.empty()) run.name = row.text(1);
             });
  db_->query("SELECT x.rid, x.experiment, x.statement, x.seed_figure, x.verdict, x.go_verdict, x.cpp_verdict, "
             "x.figure, x.detail, x.provisional, x.go_figure, x.go_detail FROM claims" + join +
                 " ORDER BY x.rid, x.pos",
             params, [&](const Row& row) {
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
               of(row).claims.push_back(std::move(c));
             });
  if (!with_results) return runs;
  db_->query("SELECT x.rid, x.unit, x.key, x.value FROM unit_notes" + join + " ORDER BY x.rid, x.pos", params,
             [&](const Row& row) { of(row).units.push_back(UnitNote{row.text(1), row.text(2), row.text(3)}); });
  std::int64_t last_rid = -1;
  std::int64_t last_seq = -1;
  Run* run = nullptr;
  db_->query("SELECT x.rid, x.seq, x.block, x.name, x.iterations, x.unit, x.value FROM results" + join +
                 " ORDER BY x.rid, x.seq, x.pos",
             params, [&](const Row& row) {
               const std::int64_t rid = row.integer(0);
               const std::int64_t seq = row.integer(1);
               if (rid != last_rid) {
                 run = &runs[index.at(rid)];
                 last_rid = rid;
                 last_seq = -1;
               }
               if (seq != last_seq) {
                 StoredResult r;
                 r.block = static_cast<int>(row.integer(2));
                 r.name = row.text(3);
                 r.iterations = row.integer(4);
                 run->results.push_back(std::move(r));
                 last_seq = seq;
               }
               run->results.back().values.push_back(benchfmt::Metric{row.real(6), row.text(5)});
             });
  return runs;
}

std::vector<RunSummary> Store::list_runs(std::int64_t since_ms) {
  std::vector<RunSummary> out;
  std::unordered_map<std::int64_t, std::size_t> index;
  const std::vector<Param> p = {Param(since_ms)};
  db_->query("SELECT r.rid, r.id, r.unix_ms, r.kind, r.machine, r.command, r.source, "
             "(SELECT count(*) FROM results x WHERE x.rid = r.rid) FROM runs r WHERE r.unix_ms >= ? "
             "ORDER BY r.unix_ms, r.id",
             p, [&](const Row& row) {
               index.emplace(row.integer(0), out.size());
               RunSummary s;
               s.id = row.text(1);
               s.unix_ms = row.integer(2);
               s.kind = row.text(3);
               s.machine = row.text(4);
               s.command = row.text(5);
               s.source = row.text(6);
               s.values = row.integer(7);
               out.push_back(std::move(s));
             });
  const std::string join = " x JOIN runs r ON r.rid = x.rid WHERE r.unix_ms >= ?";
  db_->query("SELECT x.rid, x.key, x.value FROM run_labels" + join + " ORDER BY x.rid, x.key", p,
             [&](const Row& row) { out[index.at(row.integer(0))].labels.emplace_back(row.text(1), row.text(2)); });
  db_->query("SELECT x.rid, x.name FROM run_names" + join + " ORDER BY x.rid, x.name", p,
             [&](const Row& row) { out[index.at(row.integer(0))].names.push_back(row.text(1)); });
  return out;
}

std::int64_t Store::run_count() {
  std::int64_t n = 0;
  db_->query("SELECT count(*) FROM runs", {}, [&](const Row& r) { n = r.integer(0); });
  return n;
}

}  // namespace zerolab::store
