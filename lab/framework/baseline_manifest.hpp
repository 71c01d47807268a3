// lab/baseline_manifest.hpp — the manifest of a baseline folder (see
// lab/baseline_store.hpp): its text and its parser, apart from the files it
// lists so the fuzz target (fuzz/baseline_manifest_fuzz.cpp) reads it alone.
//
//   # a comment
//   format: 1
//   name: main
//   date: 2026-12-03T05:28:01Z
//   command: zerolab lab --save main
//   runs: 10
//   benchtime: 500ms
//   experiment: merge 9        (an id and its number of results)
//   go: merge 4                (the Go peer's results of an experiment listed above)
// Blank lines and lines starting with '#' are skipped, as are unknown keys
// (a newer zerolab may add some); "format: 1" must be there.
//
// Thread-safety: pure functions.
//
// Example:
//   BaselineManifest m;
//   std::string error;
//   if (!parse_baseline_manifest("b/main/manifest", text, m, error)) fail(error);
//   // error: "b/main/manifest:3: runs must be a whole number from 1 to 100000, not \"x\""
#ifndef ZEROLAB_LAB_BASELINE_MANIFEST_HPP_
#define ZEROLAB_LAB_BASELINE_MANIFEST_HPP_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace zerolab::lab {

// What save_baseline records besides the results.
struct BaselineRecord {
  std::string date;     // UTC, "2026-12-03T05:28:01Z"
  std::string command;  // the command line that ran
  int runs = 0;         // --count
  std::string benchtime;
};

struct BaselineManifest {
  BaselineRecord record;
  std::vector<std::pair<std::string, std::size_t>> experiments;  // "experiment: <id> <results>"
  std::vector<std::pair<std::string, std::size_t>> go;           // "go: <id> <results>"
};

// The manifest's text for baseline `name` (line breaks in the record's
// values become spaces; ids must be valid baseline names; runs 0, not
// recorded, writes no runs line).
std::string baseline_manifest_text(const std::string& name, const BaselineManifest& m);

// Reads `text` (the manifest at `path`, named in errors). Returns false
// with `error`, one line "path:line: message" (input quoted, control bytes
// escaped), on a line that is not "key: value", an unsupported format, a bad
// runs value, an invalid or repeated id, a bad count, a go line without its
// experiment line, or no format line.
bool parse_baseline_manifest(const std::string& path, const std::string& text, BaselineManifest& m,
                             std::string& error);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_BASELINE_MANIFEST_HPP_
