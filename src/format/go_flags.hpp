// The one command-line flag parser of zerolab: Go's flag package rules, used
// by the benchmark binaries and every `zerolab` command.
//
//   -x and --x are the same flag; a value is given as -x=v or -x v;
//   a boolean flag is -x or -x=true|false (never -x v: v is the next argument);
//   an optional-value flag (Go's IsBoolFlag values) is -x or -x=v;
//   "--" ends the flags; a lone "-" is an operand;
//   -h, -help (and --h, --help) ask for the usage unless the set defines them.
//   Flags end at the first operand (Go), unless the set allows operands
//   between flags (allow_interspersed: `zerolab lab exp --quick`).
//
// Errors are Go's, one line, without the program's name:
//   flag provided but not defined: -x
//   flag needs an argument: -x
//   invalid value "v" for flag -x: <why>      (v quoted by quote_text)
//   bad flag syntax: ---x
//
// Thread-safety: a FlagSet is used by one thread.
//
// Example:
//   FlagSet flags;
//   bool agg = false;
//   std::string sort = "name";
//   flags.boolean("agg", agg);
//   flags.value("sort", [&](const std::string& v) -> std::string {
//     if (v != "name" && v != "none") return "want name or none";
//     sort = v;
//     return "";
//   });
//   switch (flags.parse(args)) {
//     case FlagSet::Outcome::kHelp: print usage on stdout; return 0;
//     case FlagSet::Outcome::kError: print flags.error() on stderr; return 2;
//     case FlagSet::Outcome::kParsed: break;  // flags.operands() holds the rest
//   }
#ifndef ZEROLAB_SRC_FORMAT_GO_FLAGS_HPP_
#define ZEROLAB_SRC_FORMAT_GO_FLAGS_HPP_

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zerolab::internal {

// strconv.ParseBool: 1 t T TRUE true True, 0 f F FALSE false False.
bool parse_go_bool(std::string_view text, bool& out);

class FlagSet {
 public:
  // Each setter takes the flag's value and returns "" when it took it, or
  // why not (the text after "invalid value \"v\" for flag -x: ").
  using SetValue = std::function<std::string(const std::string& value)>;
  using SetBool = std::function<std::string(bool value)>;
  using SetOptional = std::function<std::string(const std::optional<std::string>& value)>;

  enum class Outcome { kParsed, kHelp, kError };

  // -name v or -name=v.
  void value(std::string name, SetValue set);
  // -name v or -name=v stored as given (the empty string included).
  void string(std::string name, std::string& target);
  // -name or -name=true|false.
  void boolean(std::string name, bool& target);
  void boolean(std::string name, SetBool set);
  // -name (nullopt) or -name=v; never takes the next argument.
  void optional(std::string name, SetOptional set);

  // Operands may stand between flags; "--" still ends the flags.
  void allow_interspersed() { interspersed_ = true; }
  // Also accept each flag spelled with this prefix (Go's test binaries take
  // -test.bench as well as -bench).
  void accept_prefix(std::string prefix) { prefix_ = std::move(prefix); }

  // Parses args (the program and command names excluded). On kError,
  // error() is the one-line message; on kParsed, operands() holds the
  // arguments that are not flags, in order.
  Outcome parse(std::span<char* const> args);
  // parse() for a caller that handles the usage and errors itself: false
  // with `error` set on kError; true on kParsed, and on kHelp with `help`
  // set (`help` is left as it was otherwise).
  bool parse(std::span<char* const> args, bool& help, std::string& error);
  const std::string& error() const { return error_; }
  const std::vector<std::string>& operands() const { return operands_; }

 private:
  enum class Kind { kValue, kBool, kOptional };
  struct Flag {
    std::string name;
    Kind kind;
    SetValue set_value;
    SetBool set_bool;
    SetOptional set_optional;
  };
  const Flag* find(std::string_view name) const;
  Outcome fail(std::string message);

  std::vector<Flag> flags_;
  bool interspersed_ = false;
  std::string prefix_;
  std::string error_;
  std::vector<std::string> operands_;
};

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_FORMAT_GO_FLAGS_HPP_
