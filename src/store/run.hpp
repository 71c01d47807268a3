// store/run.hpp — one stored run: what a benchmark file or a lab run holds,
// kept so that it can be written back in the Go benchmark format and read
// by `zerolab compare` exactly as the original was.
//
// A run has an id (a UUID), a time, the command that made it, labels
// (commit=…, branch=…), the configuration blocks its results ran under
// ("goos: linux", "cpu: …" — a file may change them between results), every
// result line with its values as written ("12.5 ns/op", not tidied), the
// file's unit metadata ("Unit B/op assume=exact"), and for lab runs each
// claim's verdicts and figures.
//
// RunBuilder collects a run from the records of a stat reader; to_go_format
// writes it back. A file read, stored and re-exported compares equal to the
// original through `zerolab compare` (tests/store_roundtrip_test.cpp).
//
// Thread-safety: plain data; a RunBuilder is used from one thread.
//
// Example:
//   RunBuilder b;
//   stat::InputFiles files(stat::parse_inputs(args));
//   while (files.next()) if (files.kind() == stat::RecordKind::kResult) b.add(files.result());
//   Run run = b.finish();
//   run.id = content_uuid(run);
//   std::string text = to_go_format(run);
#ifndef ZEROLAB_SRC_STORE_RUN_HPP_
#define ZEROLAB_SRC_STORE_RUN_HPP_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zerolab/benchfmt.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::store {

using KeyValue = std::pair<std::string, std::string>;

// One result line. values are as written: {12.5, "ns/op"}.
struct StoredResult {
  std::string name;  // with "Benchmark"
  std::int64_t iterations = 0;
  int block = 0;  // index into Run::configs
  std::vector<benchfmt::Metric> values;
};

// A "Unit <unit> <key>=<value>" line.
struct UnitNote {
  std::string unit;  // as written
  std::string key;
  std::string value;
};

// One lab claim as a lab run judged it.
struct StoredClaim {
  std::string experiment;   // "merge"
  std::string statement;    // the claim, one line
  std::string seed_figure;  // the seed's own figure, "" if none
  std::string verdict;      // the lab's verdict: "replicates", "contradicts", ...
  std::string go_verdict;  // Go here: the claim measured in Go on this machine ("" if not measured)
  std::string cpp_verdict;  // C++ here: the claim measured on zerolab's C++
  std::string figure;       // this machine's C++ figure: "1.17x [1.15, 1.19]"
  std::string detail;       // "p=0.000 n=10+10"
  bool provisional = false;
  std::string go_figure;  // the Go-here figure and detail (schema 3)
  std::string go_detail;
};

struct Run {
  std::string id;                  // UUID, lower-case 8-4-4-4-12
  std::int64_t unix_ms = 0;        // when it ran (or was stored)
  std::string kind = "file";       // "file" or "lab"
  std::string command;             // how it was made: "zerolab lab --quick", "store add x.txt"
  std::string source;              // the input file, or "lab"
  std::string machine;             // label machine=, else the "cpu" config value, else "unknown"
  std::string name;                // submit: the name to give it (--save NAME), or ""
  std::vector<std::string> names;  // loaded: the names pointing at it
  std::vector<KeyValue> labels;    // sorted by key, keys unique
  std::vector<std::vector<KeyValue>> configs;  // configuration blocks, in file order
  std::vector<StoredResult> results;
  std::vector<UnitNote> units;
  std::vector<StoredClaim> claims;

  // The value of a label, or "".
  std::string label(const std::string& key) const;
  // The value of a configuration key in the first block that has it, or "".
  std::string config(const std::string& key) const;
};

// Collects results (and unit metadata) from a stat reader's records.
class RunBuilder {
 public:
  // Adds one result under its configuration (keys a tool added, such as
  // ".file", are not kept: they are not part of the file).
  void add(const stat::BenchRecord& record);
  void add(const stat::UnitMetadata& unit);
  // For a run too large to hold: the result as add() would keep it, its
  // configuration block added to the header, the result itself not kept.
  // The same records give the same blocks and results in every pass.
  StoredResult take(const stat::BenchRecord& record);
  std::size_t result_count() const { return results_; }
  // Metric values over the results so far (the store's rows).
  std::size_t value_count() const { return values_; }
  // The run so far: configuration blocks, unit metadata, the results add() kept.
  const Run& header() const { return run_; }
  Run finish();

 private:
  Run run_;
  std::size_t results_ = 0;
  std::size_t values_ = 0;
  const stat::ConfigList* last_config_ = nullptr;
  std::shared_ptr<const stat::ConfigList> keep_alive_;
};

// The run as Go benchmark format text: unit metadata, then each result
// under its configuration (only the keys that change are written), values
// in the shortest form that reads back as the same double. Names, units
// and configuration are written as go_field / go_config_key /
// go_config_value make them, so the text always reads back.
std::string to_go_format(const Run& run);

// to_go_format one result at a time, for a run too large to hold: the
// header's unit metadata and configuration blocks are taken at once (its
// results are not read), then each write() adds a result; the text goes
// to sink in pieces of about 64 KB, the rest at flush(). add_block()
// appends a configuration block found after construction.
class GoFormatWriter {
 public:
  using Sink = std::function<void(std::string_view text)>;
  GoFormatWriter(const Run& header, Sink sink);
  void add_block(const std::vector<KeyValue>& block);
  std::size_t blocks() const { return configs_.size(); }
  void write(const StoredResult& result);
  void flush();

 private:
  std::vector<std::vector<KeyValue>> configs_;
  std::vector<KeyValue> current_;
  std::string buf_;
  Sink sink_;
};

// How a text the Go benchmark format cannot carry as is gets written, the
// one rule of the store (applied when a run is added and again when it is
// written out, so export → add gives the same run):
// - a field (a benchmark name, a unit, a unit line's key or value) is
//   split at spaces by the reader: as Go's testing package does for
//   benchmark names, each space becomes '_' and each non-printable
//   character its Go escape ("BM_Pair<int, float>/8" → "BM_Pair<int,_float>/8",
//   a newline → "\n"); bytes that are not UTF-8 are left for the store to refuse;
// - a configuration key must start with a lower-case letter and hold no
//   space, ':' or upper-case letter: spaces and ':' become '_', A-Z a-z, and
//   a key starting otherwise gets "x" in front ("CPU Count" → "cpu_count");
// - a configuration value is the rest of its line: line breaks become
//   spaces and leading spaces and tabs are dropped (the reader drops them).
std::string go_field(std::string_view text);
std::string go_config_key(std::string_view text);
std::string go_config_value(std::string_view text);

// Stored text (a name, a unit, a machine, a label, a file name) as it may
// be shown on a terminal or in a report: printable characters (spaces
// too) as they are, every other character as its Go escape ("\x1b",
// "\u009b", "\u202e"), a byte that is not UTF-8 as "\xNN". A store edited
// by hand or written by an older zerolab cannot put a terminal escape on
// the user's screen through `history`, `store list` or `store matrix`.
std::string terminal_text(std::string_view text);

// The part of a run whose results ran under a configuration block `keep`
// accepts (a lab run's one experiment, by its "pkg" line), with the run's
// unit metadata; the rest of the header is copied.
Run select_results(const Run& run,
                   const std::function<bool(const std::vector<KeyValue>& config)>& keep);

// A UUID (version 8, RFC 9562) derived from the run's content and labels,
// so that adding the same file twice is one run.
std::string content_uuid(const Run& run);

// content_uuid one result at a time: constructed with the run's header
// (its unit metadata and the configuration blocks known so far; blocks
// found later are given with add_block before their results), fed each
// result in order, finished with the labels. Equals content_uuid of the
// whole run.
class ContentHash {
 public:
  explicit ContentHash(const Run& header);
  ContentHash(const ContentHash&) = delete;
  ContentHash& operator=(const ContentHash&) = delete;
  void add_block(const std::vector<KeyValue>& block) { writer_.add_block(block); }
  std::size_t blocks() const { return writer_.blocks(); }
  void add(const StoredResult& result) { writer_.write(result); }
  std::string finish(const std::vector<KeyValue>& labels);

 private:
  void mix(std::string_view text);
  __extension__ typedef unsigned __int128 u128;
  u128 h_;
  GoFormatWriter writer_;
};
// A random UUID (version 4).
std::string random_uuid();
// Whether text is a UUID in canonical lower-case form.
bool is_uuid(std::string_view text);

// Sets labels from key=value pairs (later ones win) and machine from them
// or the configuration.
void set_labels(Run& run, const std::vector<KeyValue>& labels);

}  // namespace zerolab::store

#endif  // ZEROLAB_SRC_STORE_RUN_HPP_
