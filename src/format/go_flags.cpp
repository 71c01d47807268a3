// See go_flags.hpp.
#include "format/go_flags.hpp"

#include <utility>

#include "text/quote.hpp"

namespace zerolab::internal {

bool parse_go_bool(std::string_view text, bool& out) {
  if (text == "1" || text == "t" || text == "T" || text == "true" || text == "TRUE" ||
      text == "True") {
    out = true;
    return true;
  }
  if (text == "0" || text == "f" || text == "F" || text == "false" || text == "FALSE" ||
      text == "False") {
    out = false;
    return true;
  }
  return false;
}

void FlagSet::value(std::string name, SetValue set) {
  flags_.push_back(Flag{std::move(name), Kind::kValue, std::move(set), {}, {}});
}

void FlagSet::string(std::string name, std::string& target) {
  value(std::move(name), [&target](const std::string& v) {
    target = v;
    return std::string();
  });
}

void FlagSet::boolean(std::string name, bool& target) {
  boolean(std::move(name), [&target](bool v) {
    target = v;
    return std::string();
  });
}

void FlagSet::boolean(std::string name, SetBool set) {
  flags_.push_back(Flag{std::move(name), Kind::kBool, {}, std::move(set), {}});
}

void FlagSet::optional(std::string name, SetOptional set) {
  flags_.push_back(Flag{std::move(name), Kind::kOptional, {}, {}, std::move(set)});
}

const FlagSet::Flag* FlagSet::find(std::string_view name) const {
  for (const Flag& f : flags_) {
    if (f.name == name) return &f;
  }
  if (!prefix_.empty() && name.size() > prefix_.size() && name.starts_with(prefix_)) {
    return find(name.substr(prefix_.size()));
  }
  return nullptr;
}

FlagSet::Outcome FlagSet::fail(std::string message) {
  error_ = std::move(message);
  return Outcome::kError;
}

FlagSet::Outcome FlagSet::parse(std::span<char* const> args) {
  error_.clear();
  operands_.clear();
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {  // an operand ("-" included)
      if (!interspersed_) break;
      operands_.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      ++i;
      break;
    }
    std::string_view name = arg.substr(arg[1] == '-' ? 2 : 1);
    if (name.empty() || name[0] == '-' || name[0] == '=') {
      return fail("bad flag syntax: " + shown_text(arg));
    }
    std::optional<std::string> inline_value;
    if (const std::size_t eq = name.find('='); eq != std::string_view::npos) {
      inline_value.emplace(name.substr(eq + 1));
      name = name.substr(0, eq);
    }
    const Flag* flag = find(name);
    const std::string shown = shown_text(name);
    if (flag == nullptr) {
      if (name == "h" || name == "help") return Outcome::kHelp;
      return fail("flag provided but not defined: -" + shown);
    }
    std::string why;
    std::optional<std::string> value = inline_value;
    switch (flag->kind) {
      case Kind::kBool: {
        bool b = true;
        if (inline_value && !parse_go_bool(*inline_value, b)) {
          why = "not a boolean";
        } else {
          why = flag->set_bool(b);
        }
        break;
      }
      case Kind::kOptional:
        why = flag->set_optional(inline_value);
        break;
      case Kind::kValue:
        if (!value) {
          if (i + 1 >= args.size()) return fail("flag needs an argument: -" + shown);
          value.emplace(args[++i]);
        }
        why = flag->set_value(*value);
        break;
    }
    if (!why.empty()) {
      return fail("invalid value " + quote_text(value.value_or("")) + " for flag -" + shown + ": " +
                  why);
    }
  }
  for (; i < args.size(); ++i) operands_.emplace_back(args[i]);
  return Outcome::kParsed;
}

bool FlagSet::parse(std::span<char* const> args, bool& help, std::string& error) {
  switch (parse(args)) {
    case Outcome::kHelp:
      help = true;
      return true;
    case Outcome::kError:
      error = error_;
      return false;
    case Outcome::kParsed:
      break;
  }
  return true;
}

}  // namespace zerolab::internal
