// zerolab: the command-line front end. Dispatches `zerolab <command> ...` to
// the registered subcommands (command.hpp); `zerolab help` lists them.
//
// Example:
//   zerolab version
//   zerolab help
#include <algorithm>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench/std_streams.hpp"
#include "command.hpp"
#include "dynamic_twin.hpp"
#include "lab/experiments/catalog.hpp"
#include "lab/framework/counts.hpp"
#include "lab/framework/experiment.hpp"
#include "text/quote.hpp"

namespace zerolab::cli {
namespace {

std::vector<Command>& mutable_commands() {
  static std::vector<Command> all;
  return all;
}

void print_usage(std::FILE* out) {
  std::fprintf(out, "usage: zerolab <command> [arguments]\n\ncommands:\n");
  for (const Command& c : commands()) {
    std::fprintf(out, "  %-10.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  }
}

const Command* find_command(std::string_view name) {
  for (const Command& c : commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// `zerolab help` lists the commands; `zerolab help CMD` is `zerolab CMD -h`.
int run_help(std::span<char* const> args) {
  internal::FlagSet flags;
  if (const int rc = parse_command_flags(flags, args, "help", "usage: zerolab help [command]\n");
      rc >= 0) {
    return rc;
  }
  const std::vector<std::string>& rest = flags.operands();
  if (rest.empty()) {
    print_usage(stdout);
    return 0;
  }
  if (rest.size() > 1)
    return usage_error("help", "want one command, got " + std::to_string(rest.size()));
  const Command* c = find_command(rest[0]);
  if (c == nullptr || c->name == "help") {
    return usage_error("help", "unknown command " + internal::quote_text(rest[0]) +
                                   " (run 'zerolab help' for the list)");
  }
  static char dash_h[] = "-h";
  char* argv[] = {dash_h};
  return c->run(std::span<char* const>(argv, 1));
}

int run_version(std::span<char* const> args) {
  internal::FlagSet flags;
  if (const int rc = parse_command_flags(flags, args, "version", "usage: zerolab version\n");
      rc >= 0) {
    return rc;
  }
  if (!flags.operands().empty()) {
    return usage_error("version",
                       "unexpected argument " + internal::quote_text(flags.operands()[0]));
  }
  std::printf("zerolab %s\n", ZEROLAB_VERSION);
  return 0;
}

const CommandRegistration kHelp{"help", "list the commands", &run_help};
const CommandRegistration kVersion{"version", "print zerolab's version", &run_version};

}  // namespace

const std::vector<Command>& commands() {
  return mutable_commands();
}

CommandRegistration::CommandRegistration(std::string_view name, std::string_view summary,
                                         CommandFunction run) {
  auto& all = mutable_commands();
  all.push_back(Command{name, summary, run});
  std::sort(all.begin(), all.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
}

}  // namespace zerolab::cli

namespace {

int run_command(int argc, char** argv) {
  using zerolab::cli::commands;
  // The counting child of `zerolab lab --measure=instructions`.
  if (argc > 1 && std::string_view(argv[1]) == zerolab::lab::kCountingChildArg) {
    std::vector<const zerolab::lab::Experiment*> experiments;
    for (const auto& e : zerolab::lab::catalog()) experiments.push_back(&e);
    if (int code = 0; zerolab::lab::run_counting_child_if_asked(argc, argv, experiments, code)) {
      return code;
    }
  }
  if (argc < 2) {
    zerolab::cli::print_usage(stderr);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "-h" || name == "-help" || name == "--h" || name == "--help") {
    zerolab::cli::print_usage(stdout);
    return 0;
  }
  for (const auto& c : commands()) {
    if (c.name == name) {
      return c.run(std::span<char* const>(argv + 2, static_cast<std::size_t>(argc - 2)));
    }
  }
  std::fprintf(stderr, "zerolab: unknown command %s (run 'zerolab help' for the list)\n",
               zerolab::internal::quote_text(name).c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  zerolab::cli::hand_postgres_commands_to_dynamic_twin(argc, argv);
  zerolab::internal::reserve_standard_fds();
  return zerolab::internal::finish_stdout("zerolab", run_command(argc, argv));
}
