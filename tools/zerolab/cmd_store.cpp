// zerolab store: the results store (src/store/store.hpp) from the command
// line — add benchmark files to it, write a stored run back out, list the
// runs, name one, and show the lab's claims across machines.
//
// Exit codes: 0 done, 1 the store could not be reached or written,
// 2 bad usage or input (a malformed URL, a label without "=", a file with
// no results, an unknown run, a store this zerolab must refuse): one line
// on stderr and nothing written.
//
// Example:
//   zerolab store add --label commit=$(git rev-parse HEAD) --label branch=main bench.txt gb.json
//   zerolab store list --since 7d
//   zerolab store export 3f2a9c41 -o run.txt && zerolab compare run.txt
//   zerolab store name main 3f2a9c41
//   zerolab store matrix -format html -o matrix.html
//   zerolab store import-baselines --baseline-dir zerolab-results/baselines
//   zerolab store add --store postgres://ci@db.example/bench results.txt
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "command.hpp"
#include "files/atomic_file.hpp"
#include "lab/experiments/catalog.hpp"
#include "lab/framework/baseline_name.hpp"
#include "lab/framework/baseline_store.hpp"
#include "lab/framework/experiment.hpp"
#include "report/store_pages.hpp"
#include "store/matrix.hpp"
#include "store/run.hpp"
#include "store/store.hpp"
#include "store/store_args.hpp"
#include "store_cli.hpp"
#include "text/quote.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::cli {
namespace {

constexpr int kExitBadInput = 2;

constexpr const char* kUsage =
    "Usage: zerolab store <subcommand> [flags] [arguments]\n"
    "\n"
    "The results store: every run kept in SQLite (default sqlite:zerolab-results/zerolab.db)\n"
    "or PostgreSQL (--store postgres://user@host/db). `zerolab lab` stores each run;\n"
    "`zerolab history` shows each benchmark over the stored runs.\n"
    "\n"
    "  add [--label k=v]... FILE...   store each file (Go benchmark format, `go test -bench`\n"
    "                                 output, or Google Benchmark JSON) as one run; adding the\n"
    "                                 same file with the same labels again is a no-op\n"
    "  export RUN [-o FILE]           write a stored run in the Go benchmark format\n"
    "  list [--since T]               the stored runs, oldest first\n"
    "  name NAME RUN                  give a run a name (as `zerolab lab --save NAME` does)\n"
    "  matrix [-format F] [-o FILE]   the lab's claims × machines: each machine's Go-here and\n"
    "                                 C++ verdicts; F is text, markdown, json or html\n"
    "  import-baselines [--baseline-dir DIR]\n"
    "                                 store each `zerolab lab --save` baseline folder of DIR\n"
    "                                 (default zerolab-results/baselines) as a run named after "
    "it;\n"
    "                                 importing again is a no-op\n"
    "\n"
    "RUN is a run's UUID, a unique prefix of it, or a name. Every subcommand takes\n"
    "--store URL. --since takes YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM] or an age (90m, 36h, "
    "7d, 2w).\n";

int print_usage() {
  std::fputs(kUsage, stdout);
  return 0;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What every subcommand starts with: its flags (and --store) parsed, --help
// answered, the store URL checked; `done` is the exit code when that ended
// the subcommand. with_store runs the rest with the store open, a StoreError
// being the subcommand's one-line failure.
struct Subcommand {
  std::string name;  // "store add"
  ParsedFlags f;
  store::StoreUrl url;
  std::optional<int> done;

  Subcommand(const char* subcommand, std::span<char* const> args, StoreFlagSpec spec)
      : name(std::string("store ") + subcommand) {
    spec.push_back({"store", true});
    std::string error;
    const bool parsed = parse_store_flags(args, spec, f, error);
    if (parsed && f.help) {
      done = print_usage();
    } else if (!parsed || !store::parse_store_url(
                              f.value("store", std::string(store::kDefaultStoreUrl)), url, error)) {
      done = bad(error);
    }
  }
  int bad(const std::string& message) const { return fail(name.c_str(), message, kExitBadInput); }
  template <class Body>
  int with_store(store::OpenMode mode, Body body) const {
    try {
      store::Store s = store::Store::open(url, mode);
      return body(s);
    } catch (const store::StoreError& e) {
      return fail(name.c_str(), e.what(), e.exit_code());
    }
  }
  // Writes text to -o FILE (when the subcommand has it) or stdout.
  int output(const std::string& text) const {
    std::string error;
    return write_output(text, f.value("o"), error) ? 0 : fail(name.c_str(), error, 1);
  }
};

// Reads a results file (- is stdin when allow_stdin) into builder, syntax
// errors printed on stderr as compare prints them; false with `error` when
// the file cannot be read.
bool read_results_file(const std::string& path, bool allow_stdin, store::RunBuilder& builder,
                       std::string& error) {
  const std::vector<std::string> one = {path};
  stat::InputFiles files(stat::parse_inputs(one, /*allow_labels=*/false, allow_stdin));
  while (files.next()) {
    switch (files.kind()) {
      case stat::RecordKind::kResult:
        builder.add(files.result());
        break;
      case stat::RecordKind::kUnitMetadata:
        builder.add(files.unit_metadata());
        break;
      case stat::RecordKind::kSyntaxError:
        std::fprintf(stderr, "%s\n", files.syntax_error().to_string().c_str());
        break;
    }
  }
  error = files.error();
  return error.empty();
}

// A results file added without holding its results: read once to learn
// the run's header, count its values and check its text (syntax errors
// printed then), and again as the store takes the rows, hashing them
// anew, so a file that changed between the reads is refused, not stored
// under the wrong id. The hash is taken in the first read when every unit
// line comes before the first result (Go's own files), else in a read of
// its own.
class FileResults final : public store::ResultSource {
 public:
  // The first read; false with `error` when the file cannot be read.
  bool scan(const std::string& path, std::string& error) {
    path_ = path;
    open();
    std::unique_ptr<store::ContentHash> hash;
    bool late_units = false;
    while (files_->next()) {
      switch (files_->kind()) {
        case stat::RecordKind::kResult: {
          const store::StoredResult r = builder_.take(files_->result());
          if (!hash) hash = std::make_unique<store::ContentHash>(builder_.header());
          feed(*hash, builder_.header(), r);
          store::Store::check_result(checked_as(), r);
          break;
        }
        case stat::RecordKind::kUnitMetadata:
          builder_.add(files_->unit_metadata());
          late_units = late_units || hash != nullptr;
          break;
        case stat::RecordKind::kSyntaxError:
          std::fprintf(stderr, "%s\n", files_->syntax_error().to_string().c_str());
          break;
      }
    }
    error = files_->error();
    values_ = builder_.value_count();
    results_ = builder_.result_count();
    header_ = builder_.finish();
    files_.reset();
    if (!late_units && hash) hash_ = std::move(hash);
    return error.empty();
  }
  std::size_t result_count() const { return results_; }
  std::size_t value_count() const { return values_; }
  // The header read by scan(), for the caller to complete.
  store::Run& header() { return header_; }
  // The run's id (content_uuid) once header().labels are final.
  std::string id() {
    if (!hash_) {
      // A unit line after a result: the hash starts with every unit line.
      restart();
      store::StoredResult r;
      while (next(r)) {
      }
      hash_ = std::move(rehash_);
    }
    std::string id = hash_->finish(header_.labels);
    hash_.reset();
    return id;
  }
  void restart() override {
    open();
    rehash_ = std::make_unique<store::ContentHash>(header_);
  }
  bool next(store::StoredResult& result) override {
    while (files_->next()) {
      if (files_->kind() != stat::RecordKind::kResult) continue;
      result = builder_.take(files_->result());
      rehash_->add(result);
      return true;
    }
    return false;
  }
  // Inside the store's transaction, after the last row: the rows were the
  // file as first read (nothing more, nothing else).
  void check_unchanged(const std::string& id) {
    store::StoredResult extra;
    if (next(extra) || !files_->error().empty() || rehash_->finish(header_.labels) != id) {
      throw store::StoreError(
          store::StoreError::Kind::kBadInput,
          internal::quote_text(path_) + " changed while it was being stored; nothing was added");
    }
  }

 private:
  void open() {
    const std::vector<std::string> one = {path_};
    files_ = std::make_unique<stat::InputFiles>(
        stat::parse_inputs(one, /*allow_labels=*/false, /*allow_stdin=*/false));
    builder_ = store::RunBuilder{};
  }
  // The hash follows the blocks the builder finds.
  static void feed(store::ContentHash& hash, const store::Run& header,
                   const store::StoredResult& r) {
    while (hash.blocks() < header.configs.size()) hash.add_block(header.configs[hash.blocks()]);
    hash.add(r);
  }
  // What check_result names in a message: the file.
  const store::Run& checked_as() {
    named_.source = path_;
    return named_;
  }

  std::string path_;
  std::unique_ptr<stat::InputFiles> files_;
  store::RunBuilder builder_;
  store::Run header_;
  store::Run named_;
  std::size_t values_ = 0;
  std::size_t results_ = 0;
  std::unique_ptr<store::ContentHash> hash_;
  std::unique_ptr<store::ContentHash> rehash_;
};

// Submits each run, printing "<id> <added|already stored>: <what>".
int submit_all(const Subcommand& c, const std::vector<store::Run>& runs, const char* added,
               const std::function<std::string(const store::Run&)>& what) {
  return c.with_store(store::OpenMode::kWrite, [&](store::Store& s) {
    // Bad input in any run means none is written.
    for (const store::Run& run : runs) store::Store::check_run(run);
    for (const store::Run& run : runs) {
      const auto r = s.submit(run);
      // Each line as its run is stored; a failed stdout is one message
      // naming the write's own error (the runs stay stored).
      if (const int code = c.output(
              run.id + " " + (r == store::Store::Submitted::kAdded ? added : "already stored") +
              ": " + store::terminal_text(what(run)) + ", " + std::to_string(run.results.size()) +
              " results\n");
          code != 0) {
        return code;
      }
    }
    return 0;
  });
}

int run_add(std::span<char* const> args) {
  const Subcommand c("add", args, {{"label", true, true}});
  if (c.done) return *c.done;
  std::string error;
  std::vector<store::KeyValue> labels;
  if (c.f.has("label")) {
    for (const std::string& l : c.f.values.at("label")) {
      std::string k, v;
      if (!store::parse_label(l, k, v, error)) return c.bad(error);
      labels.emplace_back(k, v);
    }
  }
  if (c.f.operands.empty())
    return c.bad("no files to add (usage: zerolab store add [--label k=v]... FILE...)");
  std::string command = "zerolab store add";
  for (char* const a : args) command += std::string(" ") + a;

  // Read every file first: bad input anywhere means nothing is written.
  // A regular file is read again as it is stored (its results are never
  // all in memory); stdin, a pipe or a FIFO cannot be read twice and is
  // held.
  struct Input {
    std::unique_ptr<FileResults> file;
    store::Run held;
  };
  std::vector<Input> inputs;
  const std::int64_t now = now_ms();
  for (const std::string& path : c.f.operands) {
    Input in;
    struct stat st {};
    store::Run* run = &in.held;
    std::size_t results = 0;
    if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      in.file = std::make_unique<FileResults>();
      try {
        if (!in.file->scan(path, error)) return c.bad(error);
      } catch (const store::StoreError& e) {
        return c.bad(e.what());
      }
      results = in.file->result_count();
      run = &in.file->header();
    } else {
      store::RunBuilder builder;
      if (!read_results_file(path, /*allow_stdin=*/true, builder, error)) return c.bad(error);
      results = builder.result_count();
      in.held = builder.finish();
    }
    if (results == 0) return c.bad(path + ":0: no benchmark results");
    run->kind = "file";
    run->source = path;
    run->command = command;
    run->unix_ms = now;
    store::set_labels(*run, labels);
    run->id = in.file ? in.file->id() : store::content_uuid(*run);
    inputs.push_back(std::move(in));
  }
  return c.with_store(store::OpenMode::kWrite, [&](store::Store& s) {
    for (const Input& in : inputs) store::Store::check_run(in.file ? in.file->header() : in.held);
    for (Input& in : inputs) {
      const store::Run& run = in.file ? in.file->header() : in.held;
      const auto r = in.file ? s.submit(run, in.file->value_count(), *in.file,
                                        [&] { in.file->check_unchanged(run.id); })
                             : s.submit(run);
      const std::size_t count = in.file ? in.file->result_count() : run.results.size();
      // Each line as its run is stored; a failed stdout is one message
      // naming the write's own error (the runs stay stored).
      if (const int code = c.output(
              run.id + " " + (r == store::Store::Submitted::kAdded ? "added" : "already stored") +
              ": " + store::terminal_text(run.source) + ", " + std::to_string(count) +
              " results\n");
          code != 0) {
        return code;
      }
    }
    return 0;
  });
}

int run_export(std::span<char* const> args) {
  const Subcommand c("export", args, {{"o", true}});
  if (c.done) return *c.done;
  if (c.f.operands.size() != 1)
    return c.bad("expected one RUN (usage: zerolab store export RUN [-o FILE])");
  // Written as the rows are read (a large run is never held whole), into
  // the output writer's temporary: an error part way leaves no file.
  struct WriteFailed {};
  std::string error;
  const int code = c.with_store(store::OpenMode::kRead, [&](store::Store& s) {
    const std::string id = s.resolve(c.f.operands[0]);
    internal::OutputFile out;
    if (!out.open(c.f.value("o").empty() ? "-" : c.f.value("o"), error)) return 1;
    try {
      s.export_run(id, [&](std::string_view text) {
        if (!out.write(text, error)) throw WriteFailed{};
      });
    } catch (const WriteFailed&) {
      return 1;
    }
    return out.commit(error) ? 0 : 1;
  });
  if (code == 1 && !error.empty()) return fail(c.name.c_str(), error, 1);
  return code;
}

int run_list(std::span<char* const> args) {
  const Subcommand c("list", args, {{"since", true}});
  if (c.done) return *c.done;
  std::string error;
  std::int64_t since = 0;
  if (c.f.has("since") && !store::parse_since(c.f.value("since"), now_ms(), since, error))
    return c.bad(error);
  if (!c.f.operands.empty()) return c.bad("unexpected argument \"" + c.f.operands[0] + "\"");
  std::string out;
  const int code = c.with_store(store::OpenMode::kRead, [&](store::Store& s) {
    for (const store::RunSummary& r : s.list_runs(since)) {
      // Stored text is shown with control characters escaped (a file name
      // or label holding a terminal escape prints as "\x1b").
      using store::terminal_text;
      out += terminal_text(r.id) + "  " + store::format_time_ms(r.unix_ms) + "  " +
             terminal_text(r.kind) + "  " + std::to_string(r.values) + " values  " +
             terminal_text(r.machine) + "  " + terminal_text(r.source);
      for (const store::KeyValue& kv : r.labels)
        out += "  " + terminal_text(kv.first) + "=" + terminal_text(kv.second);
      for (const std::string& n : r.names) out += "  name:" + terminal_text(n);
      out += "\n";
    }
    return 0;
  });
  return code != 0 ? code : c.output(out);
}

int run_name(std::span<char* const> args) {
  const Subcommand c("name", args, {});
  if (c.done) return *c.done;
  if (c.f.operands.size() != 2 || c.f.operands[0].empty()) {
    return c.bad("expected NAME RUN (usage: zerolab store name NAME RUN)");
  }
  return c.with_store(store::OpenMode::kWrite, [&](store::Store& s) {
    const std::string id = s.resolve(c.f.operands[1]);
    s.set_name(c.f.operands[0], id);
    std::printf("%s is now run %s\n", c.f.operands[0].c_str(), id.c_str());
    return 0;
  });
}

int run_matrix(std::span<char* const> args) {
  const Subcommand c("matrix", args, {{"format", true}, {"o", true}});
  if (c.done) return *c.done;
  const std::string format = c.f.value("format", "text");
  if (format != "text" && format != "markdown" && format != "json" && format != "html") {
    return c.bad("-format must be text, markdown, json or html");
  }
  std::string out;
  const int code = c.with_store(store::OpenMode::kRead, [&](store::Store& s) {
    const store::ClaimMatrix m = store::build_matrix(s.load_lab_claims());
    out = format == "text"       ? store::render_matrix_text(m)
          : format == "markdown" ? store::render_matrix_markdown(m)
          : format == "json"     ? store::render_matrix_json(m)
                                 : report::render_matrix_html(m, s.display());
    return 0;
  });
  return code != 0 ? code : c.output(out);
}

int run_import_baselines(std::span<char* const> args) {
  const Subcommand c("import-baselines", args, {{"baseline-dir", true}});
  if (c.done) return *c.done;
  if (!c.f.operands.empty()) return c.bad("unexpected argument \"" + c.f.operands[0] + "\"");
  const std::string dir = c.f.value("baseline-dir", lab::kDefaultBaselineDir);
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      std::string why;
      const std::string name = e->d_name;
      struct stat st {};
      if (lab::check_baseline_name(name, why) &&
          ::stat((dir + "/" + name + "/manifest").c_str(), &st) == 0) {
        names.push_back(name);
      }
    }
    ::closedir(d);
  } else {
    return c.bad("cannot read baseline directory " + dir + ": " + std::strerror(errno));
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> known;
  for (const lab::Experiment& e : lab::catalog()) known.push_back(e.id);
  // Every baseline is read and checked before anything is stored.
  std::string error;
  std::vector<store::Run> runs;
  for (const std::string& name : names) {
    lab::Baseline b;
    if (!lab::load_baseline(dir, name, known, b, error)) return c.bad(error);
    store::RunBuilder builder;
    for (const lab::BaselineFile& file : b.files) {
      // The experiment's C++ results, then its Go-here results where the folder has them.
      const std::string go = b.path + "/" + file.experiment_id + ".go.txt";
      if (!read_results_file(file.path, false, builder, error) ||
          (::access(go.c_str(), F_OK) == 0 && !read_results_file(go, false, builder, error))) {
        return c.bad(error);
      }
    }
    store::Run run = builder.finish();
    run.kind = "lab";
    run.source = b.path;
    run.command = b.record.command;
    run.name = name;
    std::string why;
    if (!store::parse_since(b.record.date, 0, run.unix_ms, why)) run.unix_ms = 0;
    store::set_labels(run, {{"baseline", name}});
    run.id = store::content_uuid(run);
    runs.push_back(std::move(run));
  }
  return submit_all(c, runs, "imported",
                    [](const store::Run& run) { return "baseline " + run.name; });
}

int run_store(std::span<char* const> args) {
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return kExitBadInput;
  }
  // Past the file size limit (ulimit -f) a write fails with EFBIG and the
  // command says so, instead of dying of SIGXFSZ mid-transaction.
  ::signal(SIGXFSZ, SIG_IGN);
  const std::string sub = args[0];
  const auto rest = args.subspan(1);
  if (sub == "add") return run_add(rest);
  if (sub == "export") return run_export(rest);
  if (sub == "list") return run_list(rest);
  if (sub == "name") return run_name(rest);
  if (sub == "matrix") return run_matrix(rest);
  if (sub == "import-baselines") return run_import_baselines(rest);
  if (sub == "help" || sub == "-h" || sub == "--help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  return fail(
      "store",
      "unknown subcommand \"" + sub + "\" (add, export, list, name, matrix, import-baselines)",
      kExitBadInput);
}

const CommandRegistration kStore{
    "store", "the results store: add, export, list, name, matrix, import-baselines", &run_store};

}  // namespace
}  // namespace zerolab::cli
