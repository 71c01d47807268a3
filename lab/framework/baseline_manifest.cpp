// A baseline folder's manifest (lab/baseline_manifest.hpp): its text and
// its parser.
#include "lab/framework/baseline_manifest.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <sstream>

#include "lab/framework/baseline_name.hpp"
#include "text/quote.hpp"

namespace zerolab::lab {
namespace {

constexpr const char* kFormat = "1";
constexpr long kMaxRuns = 100000;

// A manifest value on one line.
std::string one_line(const std::string& s) {
  std::string out = s;
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  return out;
}

// Decimal digits only (no sign, no spaces), at most `max`.
bool parse_whole_number(const std::string& text, std::uint64_t max, std::uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  out = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (out > (max - digit) / 10) return false;
    out = out * 10 + digit;
  }
  return true;
}

// "<id> <number of results>" of an experiment or go line into `list`
// (`seen`: the ids already in it).
bool parse_counted_id(const std::string& where, const std::string& key, const std::string& value,
                      std::vector<std::pair<std::string, std::size_t>>& list,
                      std::set<std::string>& seen, std::string& error) {
  const std::size_t space = value.find(' ');
  const std::string id = value.substr(0, space);
  const std::string count = space == std::string::npos ? "" : value.substr(space + 1);
  std::string why;
  if (!check_baseline_reference(id, why)) {
    error = where + "invalid experiment id " + internal::quote_text(id);
    return false;
  }
  std::uint64_t n = 0;
  if (!parse_whole_number(count, std::numeric_limits<std::size_t>::max(), n)) {
    error = where + "expected \"" + key + ": <id> <number of results>\", not " +
            internal::quote_text(value);
    return false;
  }
  if (!seen.insert(id).second) {
    error = where + key + " " + internal::quote_text(id) + " listed twice";
    return false;
  }
  list.emplace_back(id, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

std::string baseline_manifest_text(const std::string& name, const BaselineManifest& m) {
  std::string text =
      "# A baseline of zerolab lab (zerolab lab --save); compare with --baseline " + name + ".\n";
  text += std::string("format: ") + kFormat + "\n";
  text += "name: " + name + "\n";
  text += "date: " + one_line(m.record.date) + "\n";
  text += "command: " + one_line(m.record.command) + "\n";
  if (m.record.runs > 0)
    text += "runs: " + std::to_string(m.record.runs) + "\n";  // 0: not recorded
  text += "benchtime: " + one_line(m.record.benchtime) + "\n";
  for (const auto& [id, results] : m.experiments)
    text += "experiment: " + id + " " + std::to_string(results) + "\n";
  for (const auto& [id, results] : m.go) text += "go: " + id + " " + std::to_string(results) + "\n";
  return text;
}

bool parse_baseline_manifest(const std::string& path, const std::string& text, BaselineManifest& m,
                             std::string& error) {
  bool has_format = false;
  std::set<std::string> experiments;
  std::set<std::string> go;
  std::istringstream lines(text);
  std::size_t line_no = 0;
  for (std::string line; std::getline(lines, line);) {
    ++line_no;
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    if (line.empty() || line[0] == '#') continue;
    const std::size_t colon = line.find(": ");
    if (colon == std::string::npos || colon == 0) {
      error = where + "expected \"key: value\", not " + internal::quote_text(line);
      return false;
    }
    const std::string key = line.substr(0, colon);
    const std::string value = line.substr(colon + 2);
    if (key == "format") {
      if (value != kFormat) {
        error = where + "unsupported format " + internal::quote_text(value) +
                " (this zerolab reads format " + kFormat + ")";
        return false;
      }
      has_format = true;
    } else if (key == "date") {
      m.record.date = value;
    } else if (key == "command") {
      m.record.command = value;
    } else if (key == "benchtime") {
      m.record.benchtime = value;
    } else if (key == "runs") {
      std::uint64_t runs = 0;
      if (!parse_whole_number(value, kMaxRuns, runs) || runs < 1) {
        error = where + "runs must be a whole number from 1 to " + std::to_string(kMaxRuns) +
                ", not " + internal::quote_text(value);
        return false;
      }
      m.record.runs = static_cast<int>(runs);
    } else if (key == "experiment") {
      if (!parse_counted_id(where, key, value, m.experiments, experiments, error)) return false;
    } else if (key == "go") {
      if (!parse_counted_id(where, key, value, m.go, go, error)) return false;
    }
  }
  for (const auto& [id, unused] : m.go) {
    (void)unused;
    if (experiments.count(id) == 0) {
      error = path + ": go " + internal::quote_text(id) + " has no experiment line";
      return false;
    }
  }
  if (!has_format) {
    error = path + ":1: not a baseline manifest (no \"format: " + kFormat + "\" line)";
    return false;
  }
  return true;
}

}  // namespace zerolab::lab
