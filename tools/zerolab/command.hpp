// Subcommand registry of the zerolab CLI.
//
// Each subcommand lives in its own cmd_<name>.cpp and registers itself with a
// namespace-scope CommandRegistration; main.cpp dispatches on argv[1].
// Exit codes: 0 success, 1 a failed operation, 2 bad usage or input.
//
// Example:
//   static int run_hello(std::span<char* const> args) { ...; return 0; }
//   static const zerolab::cli::CommandRegistration kHello{
//       "hello", "print a greeting", &run_hello};
#ifndef ZEROLAB_TOOLS_ZEROLAB_COMMAND_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_COMMAND_HPP_

#include <span>
#include <string_view>
#include <vector>

#include "format/go_flags.hpp"

namespace zerolab::cli {

// args excludes the program and the subcommand name.
using CommandFunction = int (*)(std::span<char* const> args);

struct Command {
  std::string_view name;
  std::string_view summary;
  CommandFunction run;
};

// All registered commands, sorted by name.
const std::vector<Command>& commands();

struct CommandRegistration {
  CommandRegistration(std::string_view name, std::string_view summary, CommandFunction run);
};

// The one usage convention of every command: parses `args` with `flags`.
// Returns -1 to go on (flags.operands() holds the rest); 0 after printing
// `usage` on stdout (-h or -help asked for it); 2 after printing
// "zerolab <command>: <error>" on stderr (a mistake: one line, no usage).
int parse_command_flags(internal::FlagSet& flags, std::span<char* const> args,
                        std::string_view command, std::string_view usage);

// A usage mistake that is not a flag's (a missing or extra operand): prints
// "zerolab <command>: <message>" on stderr and returns 2.
int usage_error(std::string_view command, std::string_view message);

}  // namespace zerolab::cli

#endif  // ZEROLAB_TOOLS_ZEROLAB_COMMAND_HPP_
