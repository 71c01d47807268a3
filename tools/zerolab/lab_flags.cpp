// `zerolab lab` flag parsing (lab_flags.hpp).
#include "lab_flags.hpp"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <utility>

#include "bench/options.hpp"
#include "format/go_flags.hpp"
#include "lab/framework/baseline_name.hpp"
#include "text/quote.hpp"

namespace zerolab::cli {
namespace {

// A whole number in [lo, hi], nothing else.
bool parse_ranged(const std::string& text, long lo, long hi, long& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtol(text.c_str(), &end, 10);
  return end != text.c_str() && *end == '\0' && errno == 0 && out >= lo && out <= hi;
}

std::string bad(const std::string& flag, const std::string& value, const std::string& why) {
  return "invalid value \"" + value + "\" for flag -" + flag + ": " + why;
}

}  // namespace

bool parse_lab_flags(std::span<char* const> args, LabFlags& f, std::string& error) {
  std::string count_text;
  std::string benchtime_text;
  std::string cpu_rate_text;
  std::string mem_rate_text;
  internal::FlagSet flags;
  flags.allow_interspersed();  // `zerolab lab arena --quick`
  flags.boolean("list", f.list);
  flags.boolean("quick", f.quick);
  flags.boolean("full", f.full);
  flags.boolean("no-store", f.no_store);
  flags.string("store", f.store_url);
  flags.value("label", [&f](const std::string& v) {
    f.labels.push_back(v);
    return std::string();
  });
  flags.optional("fail-on-regression", [&f](const std::optional<std::string>& v) -> std::string {
    f.fail_on_regression = true;
    if (!v) return "";
    std::string pct = *v;
    if (!pct.empty() && pct.back() == '%') pct.pop_back();
    char* end = nullptr;
    f.fail_percent = pct.empty() ? -1 : std::strtod(pct.c_str(), &end);
    if (pct.empty() || *end != '\0' || pct.find_first_of(" \t\n") != std::string::npos ||
        !(f.fail_percent >= 0)) {
      return "must be a percentage >= 0 (5 or 5%)";
    }
    return "";
  });
  flags.value("save", [&f](const std::string& v) {
    std::string why = lab::baseline_name_problem(v);
    if (why.empty()) f.save_name = v;
    return why;
  });
  flags.value("baseline", [&f](const std::string& v) {
    std::string why = lab::baseline_reference_problem(v);
    if (why.empty()) f.baseline_name = v;
    return why;
  });
  flags.string("count", count_text);
  flags.string("benchtime", benchtime_text);
  flags.string("cpuprofilerate", cpu_rate_text);
  flags.string("memprofilerate", mem_rate_text);
  flags.value("measure", [&f](const std::string& v) -> std::string {
    if (v != "time" && v != "instructions") return "must be time or instructions";
    f.count_instructions = v == "instructions";
    return "";
  });
  flags.value("go", [&f](const std::string& v) -> std::string {
    if (v != "on" && v != "off") return "must be on or off";
    f.go = v == "on";
    return "";
  });
  for (const auto& flag : {std::pair<const char*, std::string*>{"o", &f.out_dir},
                           {"cpuprofile", &f.cpuprofile_dir},
                           {"memprofile", &f.memprofile_dir},
                           {"baseline-dir", &f.baseline_dir}}) {
    std::string* target = flag.second;
    flags.value(flag.first, [target](const std::string& v) -> std::string {
      if (v.empty()) return "empty directory name";
      *target = v;
      return "";
    });
  }
  if (!flags.parse(args, f.help, error)) return false;
  if (f.help) return true;
  f.experiments = flags.operands();

  if (f.list && !f.experiments.empty()) {
    error = "flag -list takes no experiment names (got " +
            internal::quote_text(f.experiments.front()) + ")";
    return false;
  }
  // With --baseline, --store names where the baseline is read and
  // --no-store keeps this run out of it (a store this user may only read).
  if (f.no_store && !f.store_url.empty() && f.baseline_name.empty()) {
    error = "flags --store and --no-store contradict each other";
    return false;
  }
  if (f.fail_on_regression && f.baseline_name.empty()) {
    error = "flag -fail-on-regression needs --baseline NAME (a baseline to compare with)";
    return false;
  }
  f.count = f.quick ? 1 : 10;
  long n = 0;
  if (!count_text.empty()) {
    if (!parse_ranged(count_text, 1, 100000, n)) {
      error = bad("count", count_text, "must be a whole number from 1 to 100000");
      return false;
    }
    f.count = static_cast<int>(n);
  }
  f.benchtime_text = !benchtime_text.empty() ? benchtime_text : f.quick ? "20ms" : "500ms";
  internal::BenchTime bt;
  std::string why;
  if (!internal::parse_benchtime(f.benchtime_text, bt, why)) {
    error = bad("benchtime", f.benchtime_text, why);
    return false;
  }
  f.benchtime = bt.duration;
  f.iterations = bt.iterations;
  if (!cpu_rate_text.empty()) {
    if (!parse_ranged(cpu_rate_text, 1, 10000, n)) {
      error = bad("cpuprofilerate", cpu_rate_text,
                  "must be an integer from 1 to 10000 (samples per second)");
      return false;
    }
    f.cpuprofile_rate = static_cast<int>(n);
  }
  if (!mem_rate_text.empty() && !internal::parse_byte_count(mem_rate_text, f.memprofile_rate)) {
    error = bad("memprofilerate", mem_rate_text, "must be a positive byte count (512KiB, 4096, 1)");
    return false;
  }
  return true;
}

}  // namespace zerolab::cli
