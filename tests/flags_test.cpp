// The one flag parser (format/go_flags.hpp) and the one message-quoting
// helper (text/quote.hpp): Go's flag rules, exact messages.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "format/go_flags.hpp"
#include "text/quote.hpp"

namespace {

using zerolab::internal::FlagSet;
using zerolab::internal::quote_text;
using zerolab::internal::shown_text;

struct Parsed {
  FlagSet::Outcome outcome;
  std::string error;
  std::vector<std::string> operands;
  bool b = false;
  std::string s = "unset";
  std::optional<std::string> opt;
  bool opt_seen = false;
};

Parsed parse(std::vector<std::string> args, bool interspersed = false) {
  Parsed p;
  FlagSet flags;
  flags.boolean("b", p.b);
  flags.string("s", p.s);
  flags.value("n", [](const std::string& v) -> std::string { return v == "1" ? "" : "want 1"; });
  flags.optional("opt", [&p](const std::optional<std::string>& v) {
    p.opt = v;
    p.opt_seen = true;
    return std::string();
  });
  if (interspersed) flags.allow_interspersed();
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  p.outcome = flags.parse(argv);
  p.error = flags.error();
  p.operands = flags.operands();
  return p;
}

TEST(GoFlags, OneOrTwoDashesEqualsOrNextArgument) {
  for (const auto& args :
       {std::vector<std::string>{"-s", "x"}, {"--s", "x"}, {"-s=x"}, {"--s=x"}}) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.outcome, FlagSet::Outcome::kParsed);
    EXPECT_EQ(p.s, "x");
  }
  EXPECT_EQ(parse({"-s="}).s, "");
  EXPECT_EQ(parse({"-s", "-b"}).s, "-b");  // a value may start with a dash
}

TEST(GoFlags, BooleansTakeNoNextArgument) {
  Parsed p = parse({"-b", "false"});
  EXPECT_TRUE(p.b);
  EXPECT_EQ(p.operands, std::vector<std::string>{"false"});
  EXPECT_FALSE(parse({"-b=false"}).b);
  EXPECT_TRUE(parse({"--b=true"}).b);
  p = parse({"-b=maybe"});
  EXPECT_EQ(p.outcome, FlagSet::Outcome::kError);
  EXPECT_EQ(p.error, "invalid value \"maybe\" for flag -b: not a boolean");
}

TEST(GoFlags, OptionalValuesNeverTakeTheNextArgument) {
  Parsed p = parse({"-opt", "5"});
  EXPECT_TRUE(p.opt_seen);
  EXPECT_FALSE(p.opt.has_value());
  EXPECT_EQ(p.operands, std::vector<std::string>{"5"});
  EXPECT_EQ(parse({"-opt=5"}).opt, std::optional<std::string>("5"));
}

TEST(GoFlags, DoubleDashAndTheFirstOperandEndTheFlags) {
  Parsed p = parse({"-b", "--", "-s", "x"});
  EXPECT_EQ(p.s, "unset");
  EXPECT_EQ(p.operands, (std::vector<std::string>{"-s", "x"}));
  p = parse({"file", "-b"});
  EXPECT_FALSE(p.b);
  EXPECT_EQ(p.operands, (std::vector<std::string>{"file", "-b"}));
  p = parse({"-", "-b"});
  EXPECT_EQ(p.operands, (std::vector<std::string>{"-", "-b"}));
  p = parse({"file", "-b", "--", "-s"}, /*interspersed=*/true);
  EXPECT_TRUE(p.b);
  EXPECT_EQ(p.operands, (std::vector<std::string>{"file", "-s"}));
}

TEST(GoFlags, HelpIsAnOutcomeNotAnError) {
  for (const char* h : {"-h", "--h", "-help", "--help"}) {
    const Parsed p = parse({"-b", h, "-nosuch"});
    EXPECT_EQ(p.outcome, FlagSet::Outcome::kHelp) << h;
    EXPECT_EQ(p.error, "");
  }
}

TEST(GoFlags, GoMessages) {
  const std::array<std::pair<std::vector<std::string>, std::string>, 6> cases = {{
      {{"-nosuch"}, "flag provided but not defined: -nosuch"},
      {{"--nosuch=1"}, "flag provided but not defined: -nosuch"},
      {{"-s"}, "flag needs an argument: -s"},
      {{"-n", "2"}, "invalid value \"2\" for flag -n: want 1"},
      {{"---s"}, "bad flag syntax: ---s"},
      {{"-=x"}, "bad flag syntax: -=x"},
  }};
  for (const auto& [args, message] : cases) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.outcome, FlagSet::Outcome::kError) << args[0];
    EXPECT_EQ(p.error, message);
  }
  // Input in a message is escaped: one line, whatever the argument holds.
  EXPECT_EQ(parse({std::string("-a\nb\r\x1b[K")}).error,
            "flag provided but not defined: -\"a\\nb\\r\\x1b[K\"");
}

TEST(GoFlags, TestDotPrefixIsAccepted) {
  std::string bench;
  FlagSet flags;
  flags.string("bench", bench);
  flags.accept_prefix("test.");
  std::string a = "-test.bench=X";
  char* argv[] = {a.data()};
  EXPECT_EQ(flags.parse(argv), FlagSet::Outcome::kParsed);
  EXPECT_EQ(bench, "X");
}

TEST(QuoteText, EscapesControlBytesAndCutsLongInput) {
  EXPECT_EQ(quote_text("a\r\nb\t\"\\"), "\"a\\r\\nb\\t\\\"\\\\\"");
  EXPECT_EQ(quote_text(std::string("x\0y", 3)), "\"x\\x00y\"");
  EXPECT_EQ(quote_text("\xff"), "\"\\xff\"");
  const std::string long_text = std::string(5000, 'a') + std::string(5000, 'b');
  EXPECT_EQ(quote_text(long_text),
            "\"" + std::string(128, 'a') + "..." + std::string(128, 'b') + "\"");
  EXPECT_EQ(shown_text("main.txt"), "main.txt");
  EXPECT_EQ(shown_text("a b"), "\"a b\"");
  EXPECT_EQ(shown_text(""), "\"\"");
}

}  // namespace
