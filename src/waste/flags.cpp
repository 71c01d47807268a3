// Parsing of `zerolab waste`'s flags (cmd_waste_flags.hpp).
#include "waste/flags.hpp"

#include <array>
#include <limits>

#include "format/go_flags.hpp"
#include "text/byte_size.hpp"
#include "text/quote.hpp"

namespace zerolab::waste {

const char* const kWasteUsage =
    "Usage: zerolab waste [flags] [--] PROGRAM [ARG...]\n"
    "\n"
    "waste runs PROGRAM (a dynamically linked Linux program) with the zerolab::waste\n"
    "preload library and, when it exits, reports the memory work it did for nothing:\n"
    "zeroed-fresh-pages, zeroed-zeros, temporary-allocations,\n"
    "temporary-allocations-in-frame, oversized-buffers and user-space-copies, each\n"
    "with its bytes, calls, an estimated time cost measured on this machine, the top\n"
    "call sites and the zerolab fix. The report goes to stderr (or -o FILE), never\n"
    "into PROGRAM's stdout; PROGRAM's own stdout and stderr pass through; its exit\n"
    "status is waste's (3 if --fail-on trips on a program that succeeded).\n"
    "\n"
    "  -format text|json|markdown|html\n"
    "    \treport format (default text); html: one page with an icicle graph per kind\n"
    "  -o FILE\n"
    "    \twrite the report to FILE instead of stderr\n"
    "  -profile DIR\n"
    "    \twrite one gzipped pprof profile per kind found, DIR/<kind>.pb.gz\n"
    "  -fail-on KIND=BYTES\n"
    "    \texit 3 if KIND (or any) wasted at least BYTES; repeatable. KIND: zeroed-fresh-pages,\n"
    "    \tzeroed-zeros, temporary-allocations, temporary-allocations-in-frame,\n"
    "    \toversized-buffers, user-space-copies or any\n"
    "  -check-rate BYTES\n"
    "    \tmean bytes between zeroed-zeros content checks (default 256K; 1 = every line)\n"
    "  -sample-rate BYTES\n"
    "    \tmean bytes between allocation stack samples (default 512K; 1 = every allocation)\n"
    "  -no-follow\n"
    "    \tdo not follow into the programs PROGRAM executes\n"
    "  -recalibrate\n"
    "    \tmeasure this machine's costs again (they are kept in the user's cache directory,\n"
    "    \tzerolab/waste-costs, and measured again on another machine, kernel or glibc)\n"
    "  -skip-frame REGEX\n"
    "    \tnever name a site by a function matching REGEX (RE2, anywhere in the name; an\n"
    "    \tallocation wrapper of yours); repeatable. xmalloc, sqlite3Malloc, PyMem_*,\n"
    "    \tg_malloc, operator new and std:: frames are skipped already\n"
    "  -baseline FILE\n"
    "    \ta --format json report of an earlier run: the report adds what grew, shrank,\n"
    "    \tappeared and vanished since, and -fail-on applies to the growth\n"
    "\n"
    "zerolab waste diff OLD.json NEW.json compares two reports (zerolab waste diff -help).\n"
    "To run a program named diff: zerolab waste -- diff ...\n";

const char* const kWasteDiffUsage =
    "Usage: zerolab waste diff [flags] OLD.json NEW.json\n"
    "\n"
    "diff compares two zerolab waste --format json reports kind by kind and site by\n"
    "site (function, file and line): what grew, shrank, appeared and vanished.\n"
    "\n"
    "  -format text|json|markdown\n"
    "    \tdiff format (default text)\n"
    "  -o FILE\n"
    "    \twrite the diff to FILE instead of stdout\n"
    "  -fail-on KIND=BYTES\n"
    "    \texit 3 if KIND (or any: all kinds together) grew by at least BYTES; repeatable\n";

namespace {

constexpr std::array<std::string_view, kWasteKinds> kKindNames = {
    "zeroed-fresh-pages", "zeroed-zeros",      "temporary-allocations",
    "oversized-buffers",  "user-space-copies", "temporary-allocations-in-frame"};

}  // namespace

std::string quote_arg(std::string_view text) {
  return internal::quote_text(text);
}

std::string shown_arg(std::string_view text) {
  return internal::shown_text(text);
}

std::string_view kind_name(WasteKind kind) {
  return kKindNames[static_cast<std::size_t>(kind)];
}

std::optional<WasteKind> kind_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i) {
    if (kKindNames[i] == name) return static_cast<WasteKind>(i);
  }
  return std::nullopt;
}

bool parse_fail_on(std::string_view text, FailOn& out, std::string& error) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    error = "want KIND=BYTES";
    return false;
  }
  const std::string_view kind = text.substr(0, eq);
  const std::string_view bytes = text.substr(eq + 1);
  if (kind == "any") {
    out.kind = std::nullopt;
  } else if (auto k = kind_from_name(kind)) {
    out.kind = k;
  } else {
    error = "unknown kind " + quote_arg(kind) +
            " (zeroed-fresh-pages, zeroed-zeros, temporary-allocations, "
            "temporary-allocations-in-frame, oversized-buffers, user-space-copies or any)";
    return false;
  }
  if (!internal::parse_byte_size(bytes, out.bytes)) {
    error = "bad byte count " + quote_arg(bytes) + " (want digits with an optional K, M or G)";
    return false;
  }
  return true;
}

namespace {

std::string parse_format(const std::string& v, WasteFormat& format, bool html = false) {
  if (v == "html" && html)
    format = WasteFormat::kHtml;
  else if (v == "text")
    format = WasteFormat::kText;
  else if (v == "json")
    format = WasteFormat::kJson;
  else if (v == "markdown")
    format = WasteFormat::kMarkdown;
  else
    return html ? "want text, json, markdown or html" : "want text, json or markdown";
  return "";
}

}  // namespace

bool parse_waste_diff_flags(std::span<char* const> args, WasteDiffFlags& flags,
                            std::string& error) {
  internal::FlagSet set;
  set.allow_interspersed();
  set.value("format", [&flags](const std::string& v) { return parse_format(v, flags.format); });
  set.value("o", [&flags](const std::string& v) -> std::string {
    if (v.empty()) return "empty file name";
    flags.output = v;
    return "";
  });
  set.value("fail-on", [&flags](const std::string& v) -> std::string {
    FailOn f;
    std::string why;
    if (!parse_fail_on(v, f, why)) return why;
    flags.fail_on.push_back(f);
    return "";
  });
  if (!set.parse(args, flags.help, error)) return false;
  if (flags.help) return true;
  const std::vector<std::string> files = set.operands();
  if (files.size() != 2) {
    error = "diff wants two reports, got " + std::to_string(files.size()) +
            " (usage: zerolab waste diff [flags] OLD.json NEW.json)";
    return false;
  }
  flags.old_path = files[0];
  flags.new_path = files[1];
  return true;
}

bool parse_waste_flags(std::span<char* const> args, WasteFlags& flags, std::string& error) {
  internal::FlagSet set;  // flags end at "--" or at the program (Go's rule)
  set.value("format",
            [&flags](const std::string& v) { return parse_format(v, flags.format, true); });
  set.value("o", [&flags](const std::string& v) -> std::string {
    if (v.empty()) return "empty file name";
    flags.output = v;
    return "";
  });
  set.value("profile", [&flags](const std::string& v) -> std::string {
    if (v.empty()) return "empty directory name";
    flags.profile_dir = v;
    return "";
  });
  set.value("fail-on", [&flags](const std::string& v) -> std::string {
    FailOn f;
    std::string why;
    if (!parse_fail_on(v, f, why)) return why;
    flags.fail_on.push_back(f);
    return "";
  });
  for (std::uint64_t* rate : {&flags.check_rate, &flags.sample_rate}) {
    set.value(rate == &flags.check_rate ? "check-rate" : "sample-rate",
              [rate](const std::string& v) -> std::string {
                std::uint64_t n = 0;
                if (!internal::parse_byte_size(v, n) || n == 0) return "want a byte count >= 1";
                *rate = n;
                return "";
              });
  }
  set.value("skip-frame", [&flags](const std::string& v) -> std::string {
    if (v.empty()) return "empty pattern (it would match every frame)";
    flags.skip_frames.push_back(v);
    return "";
  });
  set.value("baseline", [&flags](const std::string& v) -> std::string {
    if (v.empty()) return "empty file name";
    flags.baseline = v;
    return "";
  });
  set.boolean("no-follow", [&flags](bool v) {
    flags.follow = !v;
    return std::string();
  });
  set.boolean("recalibrate", [&flags](bool v) {
    flags.recalibrate = v;
    return std::string();
  });
  if (!set.parse(args, flags.help, error)) return false;
  if (flags.help) return true;
  flags.program = set.operands();
  if (flags.program.empty()) {
    error = "no program to run (usage: zerolab waste [flags] -- PROGRAM [ARG...])";
    return false;
  }
  return true;
}

}  // namespace zerolab::waste
