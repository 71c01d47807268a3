// The usage convention every zerolab command follows (command.hpp): usage
// asked for goes to stdout with exit 0; a mistake is one line on stderr
// with exit 2.
#include <cstdio>
#include <string>

#include "command.hpp"

namespace zerolab::cli {

int parse_command_flags(internal::FlagSet& flags, std::span<char* const> args,
                        std::string_view command, std::string_view usage) {
  switch (flags.parse(args)) {
    case internal::FlagSet::Outcome::kParsed:
      return -1;
    case internal::FlagSet::Outcome::kHelp:
      std::fwrite(usage.data(), 1, usage.size(), stdout);
      return 0;
    case internal::FlagSet::Outcome::kError:
      break;
  }
  return usage_error(command, flags.error());
}

int usage_error(std::string_view command, std::string_view message) {
  const std::string line = "zerolab " + std::string(command) + ": " + std::string(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  return 2;
}

}  // namespace zerolab::cli
