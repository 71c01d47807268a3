// What `zerolab store ...` and `zerolab history` share: their flags through
// the one Go-style parser ("-x v", "-x=v", "--x"; "--" ends the flags), with
// repeatable flags (--label) and optional values (--fail-on-regression[=PCT]);
// opening the store a --store flag names; writing the output to stdout or
// (atomically) to -o FILE.
//
// Example:
//   StoreFlagSpec spec{{"store", true}, {"label", true, true}, {"fail-on-regression", false}};
//   ParsedFlags f;
//   std::string error;
//   if (!parse_store_flags(args, spec, f, error)) { print error; return 2; }
//   f.value("store", "sqlite:zerolab-results/zerolab.db");
#ifndef ZEROLAB_TOOLS_ZEROLAB_STORE_CLI_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_STORE_CLI_HPP_

#include <map>
#include <span>
#include <string>
#include <vector>

namespace zerolab::cli {

struct StoreFlag {
  std::string name;
  bool takes_value = true;  // false: a switch, optionally "--name=VALUE"
  bool repeatable = false;
};
using StoreFlagSpec = std::vector<StoreFlag>;

struct ParsedFlags {
  std::map<std::string, std::vector<std::string>> values;  // switches without a value hold ""
  std::vector<std::string> operands;
  bool help = false;  // -h or -help: the caller prints its usage on stdout and exits 0

  bool has(const std::string& name) const { return values.count(name) != 0; }
  std::string value(const std::string& name, const std::string& fallback = "") const {
    auto it = values.find(name);
    return it == values.end() || it->second.empty() ? fallback : it->second.back();
  }
};

// Flags may come before and between operands (format/go_flags.hpp's rules;
// "--" ends them). False and a one-line error for an unknown flag, a missing
// value, or a repeated non-repeatable flag.
bool parse_store_flags(std::span<char* const> args, const StoreFlagSpec& spec, ParsedFlags& out,
                       std::string& error);

// Writes text to stdout (path empty) or atomically to path. False and a
// one-line error when the write fails (closed or full stdout included).
bool write_output(const std::string& text, const std::string& path, std::string& error);

// Prints "zerolab <command>: <message>" on stderr and returns code.
int fail(const char* command, const std::string& message, int code);

}  // namespace zerolab::cli

#endif  // ZEROLAB_TOOLS_ZEROLAB_STORE_CLI_HPP_
