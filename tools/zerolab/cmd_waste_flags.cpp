// Parsing of `zerolab waste`'s flags (cmd_waste_flags.hpp).
#include "cmd_waste_flags.hpp"

#include <array>
#include <limits>

namespace zerolab::cli {

const char* const kWasteUsage =
    "Usage: zerolab waste [flags] [--] PROGRAM [ARG...]\n"
    "\n"
    "waste runs PROGRAM (a dynamically linked Linux program) with the zerolab::waste\n"
    "preload library and, when it exits, reports the memory work it did for nothing:\n"
    "zeroed-fresh-pages, zeroed-zeros, temporary-allocations, oversized-buffers and\n"
    "user-space-copies, each with its bytes, calls, an estimated time cost measured on\n"
    "this machine, the top call sites and the zerolab fix. PROGRAM's own stdout and\n"
    "stderr pass through; its exit status is waste's (3 if --fail-on trips on a\n"
    "program that succeeded).\n"
    "\n"
    "  -format text|json|markdown\n"
    "    \treport format (default text)\n"
    "  -o FILE\n"
    "    \twrite the report to FILE instead of stdout\n"
    "  -profile DIR\n"
    "    \twrite one gzipped pprof profile per kind found, DIR/<kind>.pb.gz\n"
    "  -fail-on KIND=BYTES\n"
    "    \texit 3 if KIND (or any) wasted at least BYTES; repeatable\n"
    "  -check-rate BYTES\n"
    "    \tmean bytes between zeroed-zeros content checks (default 256K; 1 = every line)\n"
    "  -sample-rate BYTES\n"
    "    \tmean bytes between allocation stack samples (default 512K; 1 = every allocation)\n"
    "  -no-follow\n"
    "    \tdo not follow into the programs PROGRAM executes\n";

namespace {

constexpr std::array<std::string_view, kWasteKinds> kKindNames = {
    "zeroed-fresh-pages", "zeroed-zeros", "temporary-allocations", "oversized-buffers",
    "user-space-copies"};

bool value_flag(std::string_view name) {
  return name == "format" || name == "o" || name == "profile" || name == "fail-on" ||
         name == "check-rate" || name == "sample-rate";
}

bool bool_flag(std::string_view name) { return name == "no-follow" || name == "h" || name == "help"; }

}  // namespace

std::string quote_arg(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u >= 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string shown_arg(std::string_view text) {
  const std::string q = quote_arg(text);
  return q.size() == text.size() + 2 && q.find('\\') == std::string::npos && text.find(' ') == std::string_view::npos
             ? std::string(text)
             : q;
}

std::string_view kind_name(WasteKind kind) { return kKindNames[static_cast<std::size_t>(kind)]; }

std::optional<WasteKind> kind_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i) {
    if (kKindNames[i] == name) return static_cast<WasteKind>(i);
  }
  return std::nullopt;
}

bool parse_bytes(std::string_view text, std::uint64_t& out) {
  std::size_t digits = 0;
  std::uint64_t v = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    const auto d = static_cast<std::uint64_t>(text[digits] - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
    ++digits;
  }
  if (digits == 0) return false;
  std::string_view suffix = text.substr(digits);
  unsigned shift = 0;
  if (!suffix.empty()) {
    const char c = suffix[0];
    if (c == 'K' || c == 'k') shift = 10;
    else if (c == 'M' || c == 'm') shift = 20;
    else if (c == 'G' || c == 'g') shift = 30;
    else return false;
    suffix.remove_prefix(1);
    if (suffix != "" && suffix != "iB" && suffix != "B") return false;
  }
  if (shift > 0 && v > (std::numeric_limits<std::uint64_t>::max() >> shift)) return false;
  out = v << shift;
  return true;
}

bool parse_fail_on(std::string_view text, FailOn& out, std::string& error) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    error = "-fail-on " + quote_arg(text) + ": want KIND=BYTES";
    return false;
  }
  const std::string_view kind = text.substr(0, eq);
  const std::string_view bytes = text.substr(eq + 1);
  if (kind == "any") {
    out.kind = std::nullopt;
  } else if (auto k = kind_from_name(kind)) {
    out.kind = k;
  } else {
    error = "-fail-on " + quote_arg(text) + ": unknown kind " + quote_arg(kind) +
            " (zeroed-fresh-pages, zeroed-zeros, temporary-allocations, oversized-buffers, "
            "user-space-copies or any)";
    return false;
  }
  if (!parse_bytes(bytes, out.bytes)) {
    error = "-fail-on " + quote_arg(text) + ": bad byte count " + quote_arg(bytes) +
            " (want digits with an optional K, M or G)";
    return false;
  }
  return true;
}

bool parse_waste_flags(std::span<char* const> args, WasteFlags& flags, std::string& error) {
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.size() < 2 || a[0] != '-') break;  // the program
    a.remove_prefix(a[1] == '-' ? 2 : 1);
    std::string_view name = a;
    std::optional<std::string_view> value;
    if (const std::size_t eq = a.find('='); eq != std::string_view::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
    }
    if (bool_flag(name)) {
      if (value) {
        error = "flag -" + std::string(name) + " takes no value";
        return false;
      }
      if (name == "no-follow") flags.follow = false;
      else flags.help = true;
      continue;
    }
    if (!value_flag(name)) {
      error = "unknown flag " + shown_arg("-" + std::string(name)) + " (run 'zerolab waste -help')";
      return false;
    }
    if (!value) {
      if (i + 1 >= args.size()) {
        error = "flag -" + std::string(name) + " needs a value";
        return false;
      }
      value = std::string_view(args[++i]);
    }
    const std::string v(*value);
    if (name == "format") {
      if (v == "text") flags.format = WasteFormat::kText;
      else if (v == "json") flags.format = WasteFormat::kJson;
      else if (v == "markdown") flags.format = WasteFormat::kMarkdown;
      else {
        error = "-format " + quote_arg(v) + ": want text, json or markdown";
        return false;
      }
    } else if (name == "o") {
      if (v.empty()) {
        error = "-o: empty file name";
        return false;
      }
      flags.output = v;
    } else if (name == "profile") {
      if (v.empty()) {
        error = "-profile: empty directory name";
        return false;
      }
      flags.profile_dir = v;
    } else if (name == "fail-on") {
      FailOn f;
      if (!parse_fail_on(v, f, error)) return false;
      flags.fail_on.push_back(f);
    } else {  // check-rate, sample-rate
      std::uint64_t rate = 0;
      if (!parse_bytes(v, rate) || rate == 0) {
        error = "-" + std::string(name) + " " + quote_arg(v) + ": want a byte count >= 1";
        return false;
      }
      (name == "check-rate" ? flags.check_rate : flags.sample_rate) = rate;
    }
  }
  for (; i < args.size(); ++i) flags.program.emplace_back(args[i]);
  if (flags.program.empty() && !flags.help) {
    error = "no program to run (usage: zerolab waste [flags] -- PROGRAM [ARG...])";
    return false;
  }
  return true;
}

}  // namespace zerolab::cli
