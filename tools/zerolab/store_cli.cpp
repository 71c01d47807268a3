// See store_cli.hpp.
#include "store_cli.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

#include "files/atomic_file.hpp"
#include "format/go_flags.hpp"

namespace zerolab::cli {

bool parse_store_flags(std::span<char* const> args, const StoreFlagSpec& spec, ParsedFlags& out,
                       std::string& error) {
  internal::FlagSet flags;
  flags.allow_interspersed();
  for (const StoreFlag& flag : spec) {
    auto keep = [&out, &flag](const std::string& v) -> std::string {
      auto& slot = out.values[flag.name];
      if (!slot.empty() && !flag.repeatable) return "flag given twice";
      // "-o ''" is a mistake, not stdout (that is "-o -" or no -o).
      if (flag.name == "o" && v.empty()) return "empty file name";
      slot.push_back(v);
      return "";
    };
    if (flag.takes_value) {
      flags.value(flag.name, keep);
    } else {
      flags.optional(flag.name,
                     [keep](const std::optional<std::string>& v) { return keep(v.value_or("")); });
    }
  }
  if (!flags.parse(args, out.help, error)) return false;
  if (out.help) return true;
  out.operands = flags.operands();
  return true;
}

bool write_output(const std::string& text, const std::string& path, std::string& error) {
  // No -o is stdout, written by the same loop as -o - (past stdio, so the
  // message names the write's own errno and stdio keeps no error for exit).
  return internal::write_file_atomically(path.empty() ? "-" : path, text, error);
}

int fail(const char* command, const std::string& message, int code) {
  std::fprintf(stderr, "zerolab %s: %s\n", command, message.c_str());
  return code;
}

}  // namespace zerolab::cli
