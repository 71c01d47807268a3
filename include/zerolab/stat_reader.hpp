// zerolab/stat_reader.hpp — readers for benchmark results: the Go benchmark
// format (golang.org/design/14313-benchmark-format, read exactly as
// benchstat's benchfmt reads it) and Google Benchmark's JSON
// (--benchmark_format=json / --benchmark_out). Both stream: memory grows
// with the records a caller keeps, not with the file.
//
// A reader yields records of three kinds: a result (one benchmark line,
// with the configuration in force and its values tidied to base units:
// ns/op → sec/op, MB/s → B/s), unit metadata ("Unit B/op better=lower"),
// and syntax errors, which are warnings: reading goes on after them. An
// I/O error (including a line longer than 64 KiB, as Go's bufio.Scanner
// refuses) ends the input; error() then says what happened.
//
// InputFiles reads a list of command-line inputs the way benchstat does:
// "label=path", "-" for stdin, "#N" to tell repeated paths apart, and a
// ".file" configuration key naming each result's input. Files whose first
// non-blank byte is '{' or '[' are read as Google Benchmark JSON.
//
// The Go-format writer is in zerolab/benchfmt.hpp (one implementation,
// shared with the harness).
//
// Thread-safety: a reader is used from one thread at a time.
//
// Example:
//   zerolab::stat::StringSource src("goos: linux\nBenchmarkA-8 100 12 ns/op\n");
//   zerolab::stat::GoReader reader(src, "a.txt");
//   while (reader.next()) {
//     if (reader.kind() == zerolab::stat::RecordKind::kResult) {
//       const zerolab::stat::BenchRecord& r = reader.result();
//       // r.full_name() == "A-8", r.result.metrics[0] == {1.2e-8, "sec/op"},
//       // r.config_value("goos") == "linux"
//     }
//   }
#ifndef ZEROLAB_STAT_READER_HPP_
#define ZEROLAB_STAT_READER_HPP_

#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zerolab/benchfmt.hpp"
#include "zerolab/stat.hpp"

namespace zerolab::stat {

// ===== Byte sources ===========================================================

// Where a reader gets its bytes.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes into buf. Returns the count, 0 at end of input, or
  // -1 on error (with error set to Go's wording, e.g. "read x: is a directory").
  virtual std::ptrdiff_t read(char* buf, std::size_t n, std::string& error) = 0;
};

// Bytes from memory (tests, fuzzers). The view must outlive the source.
class StringSource final : public ByteSource {
 public:
  explicit StringSource(std::string_view data) : data_(data) {}
  std::ptrdiff_t read(char* buf, std::size_t n, std::string& error) override;

 private:
  std::string_view data_;
};

// Bytes from a C stream (not owned, not closed). path names it in errors.
class FileSource final : public ByteSource {
 public:
  FileSource(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) {}
  std::ptrdiff_t read(char* buf, std::size_t n, std::string& error) override;

 private:
  std::FILE* file_;
  std::string path_;
};

// ===== Records ==================================================================

// A configuration pair. file is true for "key: value" lines read from the
// input and false for keys a tool adds (".file").
struct ConfigEntry {
  std::string key;
  std::string value;
  bool file = true;
};

using ConfigList = std::vector<ConfigEntry>;

// One benchmark result.
struct BenchRecord {
  // The line as benchfmt's Result: name with its "Benchmark" prefix, the
  // iteration count, and the values in base units.
  benchfmt::Result result;
  // The value and unit as written, for each metric; unit is empty when
  // tidying changed nothing (so a 0 ns/op stays "0 ns/op", as in benchstat).
  std::vector<benchfmt::Metric> original;
  // The configuration in force for this result (shared between results
  // until it changes). Never null for records from a reader.
  std::shared_ptr<const ConfigList> config;
  std::string file;  // input name for messages
  int line = 0;      // 1-based line of the result

  // The name without "Benchmark": "Encode/format=json-48".
  std::string_view full_name() const;
  // The value of a configuration key, or "" when absent.
  std::string_view config_value(std::string_view key) const;
};

// Unit metadata from a "Unit <unit> key=value" line.
struct UnitMetadata {
  std::string unit;       // tidied ("sec/op" for a "Unit ns/op" line)
  std::string key;        // "better", "assume", ...
  std::string value;      // "higher", "exact", ...
  std::string orig_unit;  // as written
  std::string file;
  int line = 0;
};

// A malformed line: reading continues after it.
struct SyntaxError {
  std::string file;
  int line = 0;
  std::string message;

  // "file:line: message", benchfmt's wording.
  std::string to_string() const;
};

enum class RecordKind { kResult, kUnitMetadata, kSyntaxError };

// Unit metadata accumulated across inputs, keyed by tidied unit and key.
class UnitMetadataMap {
 public:
  // The metadata for unit (tidied first) and key, or null.
  const UnitMetadata* get(std::string_view unit, std::string_view key) const;
  // kExact when the unit has assume=exact.
  Assumption assumption(std::string_view unit) const;
  // +1 when higher values are better, -1 when lower, 0 when unknown
  // (better= metadata, else sec/op, ns/op, B/op, allocs/op lower and
  // B/s, MB/s higher, as benchfmt decides).
  int better(std::string_view unit) const;

  // Records m unless the key is set; returns the conflicting entry if set
  // to a different value, or null.
  const UnitMetadata* insert(const UnitMetadata& m, bool* inserted);

 private:
  std::map<std::pair<std::string, std::string>, UnitMetadata, std::less<>> entries_;
};

// ===== Readers ================================================================

// Common interface of the two readers.
class RecordReader {
 public:
  virtual ~RecordReader() = default;
  // Advances to the next record. False at end of input or after an I/O
  // error (then error() is non-empty).
  virtual bool next() = 0;
  virtual RecordKind kind() const = 0;
  // The current record; valid until the next call to next().
  virtual const BenchRecord& result() const = 0;
  virtual BenchRecord& mutable_result() = 0;
  virtual const UnitMetadata& unit_metadata() const = 0;
  virtual const SyntaxError& syntax_error() const = 0;
  // The I/O error that ended the input, or "".
  virtual const std::string& error() const = 0;
};

// The Go benchmark format. Unit metadata lines are checked against (and
// added to) units, which outlives the reader and may be shared by several.
class GoReader final : public RecordReader {
 public:
  // file_name is used in messages ("<unknown>" if empty); initial_config
  // seeds the configuration (e.g. {".file", label, false}).
  GoReader(ByteSource& source, std::string file_name, const ConfigList& initial_config = {},
           UnitMetadataMap* units = nullptr);
  ~GoReader() override;
  GoReader(const GoReader&) = delete;
  GoReader& operator=(const GoReader&) = delete;

  bool next() override;
  RecordKind kind() const override;
  const BenchRecord& result() const override;
  BenchRecord& mutable_result() override;
  const UnitMetadata& unit_metadata() const override;
  const SyntaxError& syntax_error() const override;
  const std::string& error() const override;

  // The longest line Go's bufio.Scanner accepts is this minus one byte.
  static constexpr std::size_t kMaxLine = 64 * 1024;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Google Benchmark JSON: each "iteration" run becomes a result named
// "Benchmark" + name with N = iterations, sec/op from real_time in its
// time_unit, cpu-sec/op from cpu_time, B/s and items/s from the rates,
// allocs/op, max-B, alloc-B and heap-B from the memory fields, and every
// other numeric field as a counter in a unit of its own name. Aggregates
// are skipped; runs with error_occurred become warnings; the scalar
// fields of "context" become configuration keys ("date" and "executable",
// which differ from run to run, as internal keys that do not split tables).
class GbJsonReader final : public RecordReader {
 public:
  GbJsonReader(ByteSource& source, std::string file_name, const ConfigList& initial_config = {});
  ~GbJsonReader() override;
  GbJsonReader(const GbJsonReader&) = delete;
  GbJsonReader& operator=(const GbJsonReader&) = delete;

  bool next() override;
  RecordKind kind() const override;
  const BenchRecord& result() const override;
  BenchRecord& mutable_result() override;
  const UnitMetadata& unit_metadata() const override;
  const SyntaxError& syntax_error() const override;
  const std::string& error() const override;

  // Nesting deeper than this is reported as an error, not recursed into.
  static constexpr int kMaxDepth = 64;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ===== Command-line inputs ======================================================

struct InputSpec {
  std::string path;
  std::string label;  // the .file value
  bool is_stdin = false;
  bool labeled = false;
};

// benchfmt.Files' argument rules: "label=path" (when allow_labels), "-" for
// stdin (and stdin alone when args is empty, when allow_stdin), and a
// repeated unlabeled path named "path#0", "path#1", ...
std::vector<InputSpec> parse_inputs(std::span<const std::string> args, bool allow_labels = true,
                                    bool allow_stdin = true);

// Reads every input in turn with the reader its content calls for.
class InputFiles {
 public:
  explicit InputFiles(std::vector<InputSpec> inputs);
  ~InputFiles();
  InputFiles(const InputFiles&) = delete;
  InputFiles& operator=(const InputFiles&) = delete;

  // Advances to the next record of any input. False when all inputs are
  // read or a fatal error stopped reading (then error() says, in benchfmt's
  // words: "open x: no such file or directory", "x:0: read x: is a
  // directory", "x:12: bufio.Scanner: token too long").
  bool next();
  RecordKind kind() const;
  const BenchRecord& result() const;
  BenchRecord& mutable_result();
  const UnitMetadata& unit_metadata() const;
  const SyntaxError& syntax_error() const;
  const std::string& error() const;
  // The index of the input the current record came from.
  std::size_t input_index() const { return index_ - 1; }
  // Whether the current input is being read as Google Benchmark JSON.
  bool input_is_json() const { return json_; }
  const std::vector<InputSpec>& inputs() const { return inputs_; }
  // Unit metadata from every input read so far.
  const UnitMetadataMap& units() const { return units_; }

 private:
  bool open_next();

  std::vector<InputSpec> inputs_;
  std::size_t index_ = 0;
  std::FILE* file_ = nullptr;
  bool owns_file_ = false;
  std::unique_ptr<ByteSource> source_;
  std::unique_ptr<RecordReader> reader_;
  bool json_ = false;
  UnitMetadataMap units_;
  std::string error_;
};

// Go's wording for an errno value: "no such file or directory".
std::string go_errno_text(int err);

}  // namespace zerolab::stat

#endif  // ZEROLAB_STAT_READER_HPP_
