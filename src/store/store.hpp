// store/store.hpp — zerolab's results store: every run (a benchmark file, a
// lab run) kept in SQLite or PostgreSQL, with its labels, configuration,
// every result value and, for lab runs, each claim's verdicts.
//
// The schema is versioned (kSchemaVersion, in table zerolab_meta) and
// migrated forward when a store is opened; a store written by a newer
// zerolab, a SQLite file that is not a database, and a database whose
// tables are not zerolab's are refused (StoreError kBadInput, exit 2).
// A run is submitted in one transaction and identified by its UUID: a
// retried submission is a no-op, concurrent submitters lose nothing.
//
// Thread-safety: one Store per thread (each holds one connection).
//
// Example:
//   StoreUrl url;
//   std::string error;
//   parse_store_url("sqlite:zerolab-results/zerolab.db", url, error);
//   Store store = Store::open(url, OpenMode::kWrite);
//   if (store.submit(run) == Store::Submitted::kAlreadyPresent) { ... }
//   Run back = store.load_run(store.resolve("3f2a9c41"));
//   for (const NamedRun& n : store.named_runs("main")) { ... }  // one per machine
#ifndef ZEROLAB_SRC_STORE_STORE_HPP_
#define ZEROLAB_SRC_STORE_STORE_HPP_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.hpp"
#include "store/run.hpp"
#include "store/store_args.hpp"

namespace zerolab::store {

// One line of `zerolab store list`.
struct RunSummary {
  std::string id;
  std::int64_t unix_ms = 0;
  std::string kind;
  std::string machine;
  std::string command;
  std::string source;
  std::vector<KeyValue> labels;
  std::vector<std::string> names;
  std::int64_t values = 0;  // result values stored
};

// A run a name points at on one machine.
struct NamedRun {
  std::string machine;
  std::string id;
};

// The results of a run too large to hold, read as they are stored:
// restart() starts over (a submission retried after a lock conflict reads
// them again), next() gives each result in order, false after the last.
class ResultSource {
 public:
  virtual ~ResultSource() = default;
  virtual void restart() = 0;
  virtual bool next(StoredResult& result) = 0;
};

class Store {
 public:
  // The schema this zerolab writes. History: 1 runs, labels, configuration,
  // results, unit metadata, claims; 2 adds run_names (--save NAME); 3 adds
  // the claims' Go-here figure and detail; 4 makes names per machine.
  static constexpr int kSchemaVersion = 4;

  // Opens the store, creating it (kWrite, SQLite) and migrating it forward.
  // Throws StoreError.
  static Store open(const StoreUrl& url, OpenMode mode);
  // Opens and creates the schema only up to `version` (tests of migration).
  static Store open_at_version(const StoreUrl& url, int version);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  enum class Submitted { kAdded, kAlreadyPresent };
  // Stores run in one transaction; kAlreadyPresent (and nothing written)
  // when a run with its id exists. before_commit, if set, is called inside
  // the transaction after every row is written (tests kill the process there).
  Submitted submit(const Run& run, const std::function<void()>& before_commit = {});
  // submit for a run whose results come from `results` (header.results is
  // not read): value_count is the number of metric values they hold (the
  // rows they make). Results that end before value_count values (a file
  // that changed between passes) are kBadInput and nothing is stored; a
  // check of their own (that the results were the ones hashed) goes in
  // before_commit. Only the header and one result are held at a time.
  Submitted submit(const Run& header, std::size_t value_count, ResultSource& results,
                   const std::function<void()>& before_commit = {});
  // Throws kBadInput for a run no store may keep: an id that is not a UUID,
  // a name breaking store/run_name.hpp's rule, text that is not valid UTF-8
  // or holds a NUL byte (the same refusal on both engines). submit checks
  // it; a caller with several runs checks them all before the first submit.
  static void check_run(const Run& run);
  // check_run's part for one result of `run` (its name and units), for a
  // caller with the results apart from the header.
  static void check_result(const Run& run, const StoredResult& result);

  // Throws StoreError (kFailed, "the store is read-only") unless this
  // connection may write runs and names; writes nothing.
  void check_writable();

  // Points NAME at a stored run on the run's machine (moving it if it
  // named another run of that machine; other machines keep theirs).
  void set_name(const std::string& name, const std::string& run_id);
  // The runs NAME points at, one per machine, by machine.
  std::vector<NamedRun> named_runs(const std::string& name);

  // A run's id from a name that points at one run (on one machine), a full
  // UUID, or a unique prefix of one (at least 4 characters). Throws
  // kBadInput when no run or several match.
  std::string resolve(std::string_view ref);

  Run load_run(const std::string& id);
  // Every run at or after since_ms, oldest first (runs of one millisecond,
  // such as the files of one `store add`, in the order they were stored),
  // with all its rows, read in one snapshot.
  std::vector<Run> load_runs(std::int64_t since_ms);
  // Every lab run's header and claims (no results), oldest first.
  std::vector<Run> load_lab_claims();
  std::vector<RunSummary> list_runs(std::int64_t since_ms);
  // A stored run in the Go benchmark format, written to sink in pieces as
  // its rows are read (in one snapshot), never held whole: what
  // to_go_format(load_run(id)) gives.
  void export_run(const std::string& id, const GoFormatWriter::Sink& sink);

  std::int64_t run_count();
  int schema_version();
  const std::string& display() const { return db_->display(); }
  Database& database() { return *db_; }

 private:
  explicit Store(std::unique_ptr<Database> db) : db_(std::move(db)) {}
  void migrate(int target_version);
  // One attempt at migrate under the schema lock; check throws for a
  // version this zerolab must refuse.
  void migrate_locked(int target_version, const std::function<void(int)>& check);
  // How much of each run load_where reads: labels and names; also the
  // configuration and claims; everything.
  enum class Detail { kHeaders, kClaims, kNoResults, kAll };
  std::vector<Run> load_where(const std::string& where, const std::vector<Param>& params,
                              Detail detail);

  std::unique_ptr<Database> db_;
};

}  // namespace zerolab::store

#endif  // ZEROLAB_SRC_STORE_STORE_HPP_
