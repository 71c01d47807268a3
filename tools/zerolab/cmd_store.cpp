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
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "command.hpp"
#include "lab/baseline_name.hpp"
#include "lab/baseline_store.hpp"
#include "lab/experiment.hpp"
#include "store/matrix.hpp"
#include "store/run.hpp"
#include "store/store.hpp"
#include "store/store_args.hpp"
#include "store_cli.hpp"
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
    "                                 (default zerolab-results/baselines) as a run named after it;\n"
    "                                 importing again is a no-op\n"
    "\n"
    "RUN is a run's UUID, a unique prefix of it, or a name. Every subcommand takes\n"
    "--store URL. --since takes YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM] or an age (90m, 36h, 7d, 2w).\n";

int print_usage() {
  std::fputs(kUsage, stdout);
  return 0;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool store_url(const ParsedFlags& f, store::StoreUrl& url, std::string& error) {
  return store::parse_store_url(f.value("store", std::string(store::kDefaultStoreUrl)), url, error);
}

int run_add(std::span<char* const> args) {
  ParsedFlags f;
  std::string error;
  if (!parse_store_flags(args, {{"store", true}, {"label", true, true}}, f, error)) {
    return fail("store add", error, kExitBadInput);
  }
  if (f.help) return print_usage();
  store::StoreUrl url;
  if (!store_url(f, url, error)) return fail("store add", error, kExitBadInput);
  std::vector<store::KeyValue> labels;
  if (f.has("label")) {
    for (const std::string& l : f.values.at("label")) {
      std::string k, v;
      if (!store::parse_label(l, k, v, error)) return fail("store add", error, kExitBadInput);
      labels.emplace_back(k, v);
    }
  }
  if (f.operands.empty()) return fail("store add", "no files to add (usage: zerolab store add [--label k=v]... FILE...)", kExitBadInput);
  std::string command = "zerolab store add";
  for (char* const a : args) command += std::string(" ") + a;

  // Read every file first: bad input anywhere means nothing is written.
  std::vector<store::Run> runs;
  const std::int64_t now = now_ms();
  for (const std::string& path : f.operands) {
    const std::vector<std::string> one = {path};
    stat::InputFiles files(stat::parse_inputs(one, /*allow_labels=*/false, /*allow_stdin=*/true));
    store::RunBuilder builder;
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
    if (!files.error().empty()) return fail("store add", files.error(), kExitBadInput);
    if (builder.result_count() == 0) return fail("store add", path + ":0: no benchmark results", kExitBadInput);
    store::Run run = builder.finish();
    run.kind = "file";
    run.source = path;
    run.command = command;
    run.unix_ms = now;
    store::set_labels(run, labels);
    run.id = store::content_uuid(run);
    runs.push_back(std::move(run));
  }
  try {
    store::Store s = store::Store::open(url, store::OpenMode::kWrite);
    for (const store::Run& run : runs) {
      const auto r = s.submit(run);
      std::printf("%s %s: %s, %zu results\n", run.id.c_str(),
                  r == store::Store::Submitted::kAdded ? "added" : "already stored", run.source.c_str(),
                  run.results.size());
    }
  } catch (const store::StoreError& e) {
    return fail("store add", e.what(), e.exit_code());
  }
  if (std::fflush(stdout) != 0) return fail("store add", "write stdout failed", 1);
  return 0;
}

int run_export(std::span<char* const> args) {
  ParsedFlags f;
  std::string error;
  if (!parse_store_flags(args, {{"store", true}, {"o", true}}, f, error)) {
    return fail("store export", error, kExitBadInput);
  }
  if (f.help) return print_usage();
  store::StoreUrl url;
  if (!store_url(f, url, error)) return fail("store export", error, kExitBadInput);
  if (f.operands.size() != 1) return fail("store export", "expected one RUN (usage: zerolab store export RUN [-o FILE])", kExitBadInput);
  std::string text;
  try {
    store::Store s = store::Store::open(url, store::OpenMode::kRead);
    text = store::to_go_format(s.load_run(s.resolve(f.operands[0])));
  } catch (const store::StoreError& e) {
    return fail("store export", e.what(), e.exit_code());
  }
  if (!write_output(text, f.value("o"), error)) return fail("store export", error, 1);
  return 0;
}

int run_list(std::span<char* const> args) {
  ParsedFlags f;
  std::string error;
  if (!parse_store_flags(args, {{"store", true}, {"since", true}}, f, error)) {
    return fail("store list", error, kExitBadInput);
  }
  if (f.help) return print_usage();
  store::StoreUrl url;
  if (!store_url(f, url, error)) return fail("store list", error, kExitBadInput);
  std::int64_t since = 0;
  if (f.has("since") && !store::parse_since(f.value("since"), now_ms(), since, error)) {
    return fail("store list", error, kExitBadInput);
  }
  if (!f.operands.empty()) return fail("store list", "unexpected argument \"" + f.operands[0] + "\"", kExitBadInput);
  std::string out;
  try {
    store::Store s = store::Store::open(url, store::OpenMode::kRead);
    for (const store::RunSummary& r : s.list_runs(since)) {
      out += r.id + "  " + store::format_time_ms(r.unix_ms) + "  " + r.kind + "  " + std::to_string(r.values) +
             " values  " + r.machine + "  " + r.source;
      for (const store::KeyValue& kv : r.labels) out += "  " + kv.first + "=" + kv.second;
      for (const std::string& n : r.names) out += "  name:" + n;
      out += "\n";
    }
  } catch (const store::StoreError& e) {
    return fail("store list", e.what(), e.exit_code());
  }
  if (!write_output(out, "", error)) return fail("store list", error, 1);
  return 0;
}

int run_name(std::span<char* const> args) {
  ParsedFlags f;
  std::string error;
  if (!parse_store_flags(args, {{"store", true}}, f, error)) return fail("store name", error, kExitBadInput);
  if (f.help) return print_usage();
  store::StoreUrl url;
  if (!store_url(f, url, error)) return fail("store name", error, kExitBadInput);
  if (f.operands.size() != 2 || f.operands[0].empty()) {
    return fail("store name", "expected NAME RUN (usage: zerolab store name NAME RUN)", kExitBadInput);
  }
  try {
    store::Store s = store::Store::open(url, store::OpenMode::kWrite);
    const std::string id = s.resolve(f.operands[1]);
    s.set_name(f.operands[0], id);
    std::printf("%s is now run %s\n", f.operands[0].c_str(), id.c_str());
  } catch (const store::StoreError& e) {
    return fail("store name", e.what(), e.exit_code());
  }
  return 0;
}

int run_matrix(std::span<char* const> args) {
  ParsedFlags f;
  std::string error;
  if (!parse_store_flags(args, {{"store", true}, {"format", true}, {"o", true}}, f, error)) {
    return fail("store matrix", error, kExitBadInput);
  }
  if (f.help) return print_usage();
  store::StoreUrl url;
  if (!store_url(f, url, error)) return fail("store matrix", error, kExitBadInput);
  const std::string format = f.value("format", "text");
  if (format != "text" && format != "markdown" && format != "json" && format != "html") {
    return fail("store matrix", "-format must be text, markdown, json or html", kExitBadInput);
  }
  std::string out;
  try {
    store::Store s = store::Store::open(url, store::OpenMode::kRead);
    const store::ClaimMatrix m = store::build_matrix(s.load_lab_claims());
    out = format == "text"       ? store::render_matrix_text(m)
          : format == "markdown" ? store::render_matrix_markdown(m)
          : format == "json"     ? store::render_matrix_json(m)
                                 : store::render_matrix_html(m, s.display());
  } catch (const store::StoreError& e) {
    return fail("store matrix", e.what(), e.exit_code());
  }
  if (!write_output(out, f.value("o"), error)) return fail("store matrix", error, 1);
  return 0;
}

int run_import_baselines(std::span<char* const> args) {
  ParsedFlags f;
  std::string error;
  if (!parse_store_flags(args, {{"store", true}, {"baseline-dir", true}}, f, error)) {
    return fail("store import-baselines", error, kExitBadInput);
  }
  if (f.help) return print_usage();
  store::StoreUrl url;
  if (!store_url(f, url, error)) return fail("store import-baselines", error, kExitBadInput);
  if (!f.operands.empty()) {
    return fail("store import-baselines", "unexpected argument \"" + f.operands[0] + "\"", kExitBadInput);
  }
  const std::string dir = f.value("baseline-dir", lab::kDefaultBaselineDir);
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      std::string why;
      const std::string name = e->d_name;
      struct stat st {};
      if (lab::check_baseline_name(name, why) && ::stat((dir + "/" + name + "/manifest").c_str(), &st) == 0) {
        names.push_back(name);
      }
    }
    ::closedir(d);
  } else {
    return fail("store import-baselines", "cannot read baseline directory " + dir + ": " + std::strerror(errno),
                kExitBadInput);
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> known;
  for (const lab::Experiment& e : lab::catalog()) known.push_back(e.id);
  // Every baseline is read and checked before anything is stored.
  std::vector<store::Run> runs;
  for (const std::string& name : names) {
    lab::Baseline b;
    if (!lab::load_baseline(dir, name, known, b, error)) return fail("store import-baselines", error, kExitBadInput);
    store::RunBuilder builder;
    for (const lab::BaselineFile& file : b.files) {
      // The experiment's C++ results, then its Go-here results where the folder has them.
      std::vector<std::string> paths = {file.path};
      const std::string go = b.path + "/" + file.experiment_id + ".go.txt";
      if (::access(go.c_str(), F_OK) == 0) paths.push_back(go);
      for (const std::string& path : paths) {
        const std::vector<std::string> one = {path};
        stat::InputFiles files(stat::parse_inputs(one, false, false));
        while (files.next()) {
          if (files.kind() == stat::RecordKind::kResult) builder.add(files.result());
          if (files.kind() == stat::RecordKind::kUnitMetadata) builder.add(files.unit_metadata());
        }
        if (!files.error().empty()) return fail("store import-baselines", files.error(), kExitBadInput);
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
  try {
    store::Store s = store::Store::open(url, store::OpenMode::kWrite);
    for (const store::Run& run : runs) {
      const auto r = s.submit(run);
      std::printf("%s %s: baseline %s, %zu results\n", run.id.c_str(),
                  r == store::Store::Submitted::kAdded ? "imported" : "already stored", run.name.c_str(),
                  run.results.size());
    }
  } catch (const store::StoreError& e) {
    return fail("store import-baselines", e.what(), e.exit_code());
  }
  return 0;
}

int run_store(std::span<char* const> args) {
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return kExitBadInput;
  }
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
  return fail("store", "unknown subcommand \"" + sub + "\" (add, export, list, name, matrix, import-baselines)", kExitBadInput);
}

const CommandRegistration kStore{"store", "the results store: add, export, list, name, matrix, import-baselines", &run_store};

}  // namespace
}  // namespace zerolab::cli
