// A strict checker of the Go benchmark format for the tests: every line of a
// harness's output must be a config line, a result line, a harness message
// ("--- FAIL: ...", an indented message line), or PASS / FAIL.
//
// Example:
//   auto parsed = zerolab::test::parse_go_output(text);
//   ASSERT_TRUE(parsed.error.empty()) << parsed.error;
//   parsed.results[0].values.at("ns/op");
#ifndef ZEROLAB_TESTS_GO_FORMAT_HPP_
#define ZEROLAB_TESTS_GO_FORMAT_HPP_

#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace zerolab::test {

struct ParsedResult {
  std::string name;  // with the -N suffix, if any
  long long iterations = 0;
  std::map<std::string, double> values;
  std::vector<std::string> units;  // in line order
};

struct ParsedOutput {
  std::map<std::string, std::string> config;
  std::vector<ParsedResult> results;
  std::vector<std::string> messages;    // "--- ..." lines and indented lines
  std::vector<std::string> unit_lines;  // "Unit <unit> <key>=<value>..." lines, as printed
  std::string status;                   // "PASS" or "FAIL"
  std::string error;                    // first violation, "" if none
};

inline bool parse_number(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

inline ParsedOutput parse_go_output(const std::string& text) {
  ParsedOutput out;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  auto fail = [&](const std::string& why) {
    if (out.error.empty()) out.error = "line " + std::to_string(number) + ": " + why + ": " + line;
  };
  while (std::getline(in, line)) {
    ++number;
    if (!out.status.empty()) fail("text after " + out.status);
    if (line == "PASS" || line == "FAIL") {
      out.status = line;
      continue;
    }
    if (line.rfind("--- ", 0) == 0 || line.rfind("    ", 0) == 0) {
      out.messages.push_back(line);
      continue;
    }
    if (line.rfind("Unit ", 0) == 0) {
      std::istringstream fields(line.substr(5));
      std::string unit, pair;
      if (!(fields >> unit >> pair) || pair.find('=') == std::string::npos) {
        fail("a Unit line needs a unit and key=value");
      }
      out.unit_lines.push_back(line);
      continue;
    }
    if (line.rfind("Benchmark", 0) == 0) {
      std::istringstream fields(line);
      ParsedResult r;
      std::string iterations;
      fields >> r.name >> iterations;
      // A failed run prints the padded name, then "--- FAIL" on the same line.
      if (iterations == "---") {
        out.messages.push_back(line.substr(line.find("---")));
        continue;
      }
      double n = 0;
      if (!parse_number(iterations, n) || n < 1) {
        fail("bad iteration count");
        continue;
      }
      r.iterations = static_cast<long long>(n);
      std::string value, unit;
      while (fields >> value) {
        double v = 0;
        if (!parse_number(value, v)) fail("bad value \"" + value + "\"");
        if (!(fields >> unit)) {
          fail("value without unit");
          break;
        }
        if (r.values.count(unit) != 0) fail("unit twice: " + unit);
        r.values[unit] = v;
        r.units.push_back(unit);
      }
      if (r.units.empty()) fail("no values");
      out.results.push_back(r);
      continue;
    }
    const auto colon = line.find(':');
    if (colon != std::string::npos && colon > 0 &&
        !std::isupper(static_cast<unsigned char>(line[0])) && line.find_first_of(" \t") > colon &&
        colon + 1 < line.size() && line[colon + 1] == ' ') {
      out.config[line.substr(0, colon)] = line.substr(colon + 2);
      continue;
    }
    fail("not a Go benchmark format line");
  }
  if (out.status.empty() && out.error.empty()) out.error = "no PASS or FAIL at the end";
  return out;
}

}  // namespace zerolab::test

#endif  // ZEROLAB_TESTS_GO_FORMAT_HPP_
