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

}  // namespace zerolab::cli

#endif  // ZEROLAB_TOOLS_ZEROLAB_COMMAND_HPP_
