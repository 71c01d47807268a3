// The baseline store of `zerolab lab` (lab/baseline_store.hpp): saving a
// run's files with their manifest (lab/baseline_manifest.hpp), installed by
// lab/directory_swap.hpp, and loading them back.
#include "lab/framework/baseline_store.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "files/atomic_file.hpp"
#include "files/whole_file.hpp"
#include "lab/framework/directory_swap.hpp"
#include "lab/framework/staging_cleanup.hpp"
#include "text/quote.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::lab {
namespace {

constexpr const char* kManifest = "manifest";

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The caps of what a baseline holds: a manifest is a few lines; results
// files are a run's text output.
constexpr std::size_t kMaxManifestBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxResultsBytes = std::size_t{64} << 20;

// Reads text (named `path`) as Go benchmark format: the number of results
// and the config of the first one. False with `error` ("path:line: msg")
// at the first syntax error.
bool read_results(const std::string& path, const std::string& text, std::size_t& results,
                  std::vector<std::pair<std::string, std::string>>* config, std::string& error) {
  stat::StringSource source(text);
  stat::GoReader reader(source, path);
  results = 0;
  while (reader.next()) {
    if (reader.kind() == stat::RecordKind::kSyntaxError) {
      error = reader.syntax_error().to_string();
      return false;
    }
    if (reader.kind() != stat::RecordKind::kResult) continue;
    if (results++ == 0 && config != nullptr && reader.result().config) {
      for (const auto& entry : *reader.result().config) {
        if (entry.file) config->emplace_back(entry.key, entry.value);
      }
    }
  }
  if (!reader.error().empty()) {
    error = reader.error().rfind(path, 0) == 0 ? reader.error() : path + ": " + reader.error();
    return false;
  }
  return true;
}

}  // namespace

bool save_baseline(const std::string& results_dir, const std::vector<std::string>& experiment_ids,
                   const std::string& dir, const std::string& name, const BaselineRecord& record,
                   std::string& error) {
  if (!check_baseline_reference(name, error)) return false;
  const std::string target = dir + "/" + name;
  const std::string temp = staging_directory_name(target);
  sweep_stale_directories(target);  // of earlier saves that were killed
  remove_tree(temp);
  if (::mkdir(temp.c_str(), 0777) != 0) {
    error = "cannot create " + temp + ": " + std::strerror(errno);
    return false;
  }
  remove_on_fatal_signal(temp);
  BaselineManifest manifest;
  manifest.record = record;
  for (const std::string& id : experiment_ids) {
    std::string text;
    std::size_t results = 0;
    const std::string source = results_dir + "/" + id + ".txt";
    if (!check_baseline_reference(id, error)) {
      error = "cannot save experiment " + internal::quote_text(id) + " in a baseline: " + error;
      remove_tree(temp);
      return false;
    }
    if (!internal::read_whole_file(source, kMaxResultsBytes, text, error) ||
        !read_results(source, text, results, nullptr, error) ||
        !internal::write_file_atomically(temp + "/" + id + ".txt", text, error)) {
      remove_tree(temp);
      return false;
    }
    manifest.experiments.emplace_back(id, results);
    // The Go peer's results, when this run has them.
    const std::string go_source = results_dir + "/" + id + ".go.txt";
    int error_number = 0;
    if (!internal::read_whole_file(go_source, kMaxResultsBytes, text, error, &error_number)) {
      if (error_number == ENOENT) continue;
      remove_tree(temp);
      return false;
    }
    if (!read_results(go_source, text, results, nullptr, error) ||
        !internal::write_file_atomically(temp + "/" + id + ".go.txt", text, error)) {
      remove_tree(temp);
      return false;
    }
    manifest.go.emplace_back(id, results);
  }
  if (!internal::write_file_atomically(temp + "/" + kManifest,
                                       baseline_manifest_text(name, manifest), error) ||
      !install_directory(temp, target, error)) {
    remove_tree(temp);
    return false;
  }
  return true;
}

bool load_baseline(const std::string& dir, const std::string& name,
                   const std::vector<std::string>& known_ids, Baseline& out, std::string& error) {
  if (!check_baseline_reference(name, error)) return false;
  out = Baseline{};
  out.name = name;
  out.path = dir + "/" + name;
  struct stat st {};
  if (::stat(out.path.c_str(), &st) != 0) {
    error = errno == ENOENT ? "baseline \"" + name + "\" not found: " + out.path + " does not exist"
                            : "cannot read baseline " + out.path + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    error = "baseline \"" + name + "\": " + out.path + " is not a directory";
    return false;
  }
  const std::string manifest_path = out.path + "/" + kManifest;
  std::string text;
  int error_number = 0;
  if (!internal::read_whole_file(manifest_path, kMaxManifestBytes, text, error, &error_number)) {
    if (error_number == ENOENT) {
      error = manifest_path + ": no such file (not a baseline saved by zerolab lab --save)";
    }
    return false;
  }
  BaselineManifest m;
  if (!parse_baseline_manifest(manifest_path, text, m, error)) return false;
  out.record = m.record;
  for (const auto& [id, expected] : m.experiments) {
    if (!contains(known_ids, id)) {
      out.warnings.push_back("baseline " + name + " has results for experiment \"" + id +
                             "\", which is no longer in the catalog; skipped");
      continue;
    }
    BaselineFile f;
    f.experiment_id = id;
    f.path = out.path + "/" + id + ".txt";
    std::vector<std::pair<std::string, std::string>> config;
    if (!internal::read_whole_file(f.path, kMaxResultsBytes, text, error) ||
        !read_results(f.path, text, f.results, &config, error)) {
      return false;
    }
    if (f.results != expected) {
      error = f.path + ": " + std::to_string(f.results) + " results, but the manifest says " +
              std::to_string(expected) + " (the file was changed or cut short)";
      return false;
    }
    if (out.config.empty()) out.config = std::move(config);
    out.files.push_back(std::move(f));
  }
  for (const auto& [id, expected] : m.go) {
    if (!contains(known_ids, id)) continue;  // warned above
    BaselineFile f;
    f.experiment_id = id;
    f.path = out.path + "/" + id + ".go.txt";
    if (!internal::read_whole_file(f.path, kMaxResultsBytes, text, error) ||
        !read_results(f.path, text, f.results, nullptr, error)) {
      return false;
    }
    if (f.results != expected) {
      error = f.path + ": " + std::to_string(f.results) + " results, but the manifest says " +
              std::to_string(expected) + " (the file was changed or cut short)";
      return false;
    }
    out.go_files.push_back(std::move(f));
  }
  return true;
}

}  // namespace zerolab::lab
