// `zerolab lab` flag parsing (lab_flags.hpp).
#include "lab_flags.hpp"

#include <cerrno>
#include <cstdlib>

#include "bench/options.hpp"
#include "lab/baseline_name.hpp"

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
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      f.experiments.push_back(arg);
      continue;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string value;
    bool has_value = false;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    auto take_value = [&]() -> bool {
      if (has_value) return true;
      if (i + 1 >= args.size()) {
        error = "flag needs an argument: -" + name;
        return false;
      }
      value = args[++i];
      return true;
    };
    if (name == "list" || name == "quick" || name == "h" || name == "help" || name == "no-store") {
      if (has_value) {
        error = "flag -" + name + " takes no value (got \"" + value + "\")";
        return false;
      }
      if (name == "list") f.list = true;
      if (name == "quick") f.quick = true;
      if (name == "h" || name == "help") f.help = true;
      if (name == "no-store") f.no_store = true;
    } else if (name == "store" || name == "label") {
      if (!take_value()) return false;
      if (name == "store") {
        f.store_url = value;
      } else {
        f.labels.push_back(value);
      }
    } else if (name == "fail-on-regression") {
      f.fail_on_regression = true;
      if (has_value) {
        std::string pct = value;
        if (!pct.empty() && pct.back() == '%') pct.pop_back();
        char* end = nullptr;
        f.fail_percent = pct.empty() ? -1 : std::strtod(pct.c_str(), &end);
        if (pct.empty() || *end != '\0' || pct.find_first_of(" \t\n") != std::string::npos ||
            !(f.fail_percent >= 0)) {
          error = bad(name, value, "must be a percentage >= 0 (5 or 5%)");
          return false;
        }
      }
    } else if (name == "save" || name == "baseline") {
      if (!take_value()) return false;
      std::string why;
      if (!lab::check_baseline_name(value, why)) {
        error = "flag -" + name + ": " + why;
        return false;
      }
      (name == "save" ? f.save_name : f.baseline_name) = value;
    } else if (name == "count" || name == "benchtime" || name == "cpuprofilerate" ||
               name == "memprofilerate") {
      if (!take_value()) return false;
      (name == "count"       ? count_text
       : name == "benchtime" ? benchtime_text
       : name == "cpuprofilerate" ? cpu_rate_text
                                  : mem_rate_text) = value;
    } else if (name == "go") {
      if (!take_value()) return false;
      if (value != "on" && value != "off") {
        error = bad(name, value, "must be on or off");
        return false;
      }
      f.go = value == "on";
    } else if (name == "o" || name == "cpuprofile" || name == "memprofile" || name == "baseline-dir") {
      if (!take_value()) return false;
      if (value.empty()) {
        error = bad(name, value, "empty directory name");
        return false;
      }
      (name == "o"            ? f.out_dir
       : name == "cpuprofile" ? f.cpuprofile_dir
       : name == "memprofile" ? f.memprofile_dir
                              : f.baseline_dir) = value;
    } else {
      error = "flag provided but not defined: " + arg;
      return false;
    }
  }

  if (f.no_store && !f.store_url.empty()) {
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
