// Parser of the harness flags (options.hpp).
#include "bench/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <utility>

#include "bench/name_matcher.hpp"

namespace zerolab::internal {
namespace {

bool parse_int(const std::string& text, long long& out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && end == text.c_str() + text.size();
}

bool parse_bool(const std::string& text, bool& out) {
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

// Go's time.ParseDuration, for the units a benchmark needs.
bool parse_duration(std::string_view s, std::chrono::nanoseconds& out) {
  if (s.empty()) return false;
  if (s == "0") {
    out = std::chrono::nanoseconds(0);
    return true;
  }
  long double total_ns = 0;
  while (!s.empty()) {
    std::size_t i = 0;
    while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) ++i;
    if (i == 0) return false;
    const std::string number(s.substr(0, i));
    if (number == "." || number.find('.') != number.rfind('.')) return false;
    s.remove_prefix(i);
    std::size_t u = 0;
    while (u < s.size() && !((s[u] >= '0' && s[u] <= '9') || s[u] == '.')) ++u;
    const std::string_view unit = s.substr(0, u);
    s.remove_prefix(u);
    long double scale = 0;
    if (unit == "ns") scale = 1;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") scale = 1e3L;
    else if (unit == "ms") scale = 1e6L;
    else if (unit == "s") scale = 1e9L;
    else if (unit == "m") scale = 60e9L;
    else if (unit == "h") scale = 3600e9L;
    else return false;
    total_ns += std::strtold(number.c_str(), nullptr) * scale;
  }
  if (total_ns > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) return false;
  out = std::chrono::nanoseconds(static_cast<std::int64_t>(total_ns));
  return true;
}


std::string bad_value(std::string_view flag, const std::string& value, std::string_view why) {
  std::string e = "invalid value \"" + value + "\" for flag -" + std::string(flag);
  if (!why.empty()) e += ": " + std::string(why);
  return e;
}

}  // namespace

bool parse_byte_count(const std::string& text, std::uint64_t& out) {
  std::string digits = text;
  std::uint64_t scale = 1;
  for (const auto& [suffix, factor] : {std::pair<std::string_view, std::uint64_t>{"KiB", 1024},
                                       std::pair<std::string_view, std::uint64_t>{"MiB", 1 << 20}}) {
    if (digits.size() > suffix.size() && digits.ends_with(suffix)) {
      digits.resize(digits.size() - suffix.size());
      scale = factor;
      break;
    }
  }
  long long n = 0;
  if (digits.empty() || digits[0] < '0' || digits[0] > '9' || !parse_int(digits, n) || n < 1 ||
      static_cast<std::uint64_t>(n) > (std::uint64_t{1} << 40) / scale) {
    return false;
  }
  out = static_cast<std::uint64_t>(n) * scale;
  return true;
}

bool parse_benchtime(const std::string& text, BenchTime& out, std::string& error) {
  if (!text.empty() && text.back() == 'x') {
    long long n = 0;
    if (!parse_int(text.substr(0, text.size() - 1), n) || n <= 0) {
      error = "invalid count";
      return false;
    }
    out.iterations = n;
    out.duration = std::chrono::nanoseconds(0);
    return true;
  }
  std::chrono::nanoseconds d{};
  if (!parse_duration(text, d) || d.count() <= 0) {
    error = "invalid duration";
    return false;
  }
  out.duration = d;
  out.iterations = 0;
  return true;
}

bool parse_options(int argc, char** argv, Options& options, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') {
      error = "unexpected argument \"" + arg + "\" (flags start with -)";
      return false;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::optional<std::string> value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (name.rfind("test.", 0) == 0) name.erase(0, 5);  // Go's -test.bench spelling

    const bool is_bool = name == "benchmem" || name == "heap" || name == "faults" ||
                         name == "h" || name == "help";
    const bool is_valued = name == "bench" || name == "benchtime" || name == "count" ||
                           name == "cpu" || name == "o" || name == "list" ||
                           name == "cpuprofile" || name == "cpuprofilerate" ||
                           name == "memprofile" || name == "memprofilerate";
    if (!is_bool && !is_valued) {
      error = "flag provided but not defined: -" + name;
      return false;
    }
    if (!is_bool && !value) {
      if (i + 1 >= argc) {
        error = "flag needs an argument: -" + name;
        return false;
      }
      value = argv[++i];
    }
    if (name == "bench") {
      std::string regex_error;
      if (!NameMatcher::validate(*value, regex_error)) {
        error = bad_value(name, *value, regex_error);
        return false;
      }
      options.bench = *value;
    } else if (name == "benchtime") {
      std::string why;
      if (!parse_benchtime(*value, options.benchtime, why)) {
        error = bad_value(name, *value, why);
        return false;
      }
    } else if (name == "count") {
      long long n = 0;
      if (!parse_int(*value, n) || n <= 0 || n > std::numeric_limits<int>::max()) {
        error = bad_value(name, *value, "must be a positive integer");
        return false;
      }
      options.count = static_cast<int>(n);
    } else if (name == "cpu") {
      options.cpus.clear();
      std::string_view rest = *value;
      while (true) {
        const auto comma = rest.find(',');
        const std::string item(rest.substr(0, comma));
        long long n = 0;
        if (!parse_int(item, n) || n <= 0 || n > 1 << 20) {
          error = bad_value(name, *value, "each entry must be a positive integer");
          return false;
        }
        options.cpus.push_back(static_cast<int>(n));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    } else if (name == "o") {
      if (value->empty()) {
        error = bad_value(name, *value, "empty file name");
        return false;
      }
      options.output_file = *value;
    } else if (name == "cpuprofile" || name == "memprofile") {
      if (value->empty()) {
        error = bad_value(name, *value, "empty file name");
        return false;
      }
      (name == "cpuprofile" ? options.cpuprofile : options.memprofile) = *value;
    } else if (name == "cpuprofilerate") {
      long long n = 0;
      if (!parse_int(*value, n) || n < 1 || n > 10000) {
        error = bad_value(name, *value, "must be an integer from 1 to 10000 (samples per second)");
        return false;
      }
      options.cpuprofilerate = static_cast<int>(n);
    } else if (name == "memprofilerate") {
      if (!parse_byte_count(*value, options.memprofilerate)) {
        error = bad_value(name, *value, "must be a positive byte count (512KiB, 4096, 1)");
        return false;
      }
    } else if (name == "list") {
      std::string regex_error;
      if (!NameMatcher::validate(*value, regex_error)) {
        error = bad_value(name, *value, regex_error);
        return false;
      }
      options.list = *value;
    } else {
      bool b = true;
      if (value && !parse_bool(*value, b)) {
        error = bad_value(name, *value, "not a boolean");
        return false;
      }
      if (name == "benchmem") options.benchmem = b;
      else if (name == "heap") options.heap = b;
      else if (name == "faults") options.faults = b;
      else options.help = b;
    }
  }
  return true;
}

std::string usage_text(const std::string& program) {
  return "usage: " + program + " [flags]\n"
         "  -bench REGEX       run benchmarks whose names match (slash-separated levels\n"
         "                     match sub-benchmarks, as in Go); default: all\n"
         "  -benchtime D       run each benchmark for duration D (1s, 500ms) or exactly\n"
         "                     N iterations (100x); default 1s\n"
         "  -count N           run each benchmark N times; default 1\n"
         "  -cpu LIST          comma-separated parallelism levels for run_parallel;\n"
         "                     names get a -N suffix when N != 1; default: CPU count\n"
         "  -benchmem[=false]  report B/op and allocs/op; default true\n"
         "  -faults[=false]    report page faults/op (minor + major); default true\n"
         "  -heap              report heap-before-B, heap-peak-B, heap-after-B,\n"
         "                     heap-leaked-B (slows allocation while on)\n"
         "  -o FILE            also write the results to FILE\n"
         "  -list REGEX        list the benchmarks matching REGEX and exit\n"
         "  -cpuprofile FILE   write a CPU profile of the timed code to FILE (pprof's\n"
         "                     legacy format: google-pprof --text BINARY FILE)\n"
         "  -cpuprofilerate HZ CPU profile samples per second; default 100\n"
         "  -memprofile FILE   write an allocation profile of the timed code to FILE\n"
         "                     (pprof's legacy heap format)\n"
         "  -memprofilerate N  sample one allocation per N bytes on average (512KiB,\n"
         "                     4096; 1 = every allocation); default 512KiB\n"
         "  -h                 show this help\n";
}

}  // namespace zerolab::internal
