// Parser of the harness flags (options.hpp).
#include "bench/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <span>
#include <string_view>
#include <utility>

#include "bench/name_matcher.hpp"
#include "format/go_flags.hpp"
#include "text/byte_size.hpp"
#include "text/quote.hpp"

namespace zerolab::internal {
namespace {

// strconv.ParseInt's grammar: an optional sign and digits, no spaces.
bool parse_int(const std::string& text, long long& out) {
  if (text.empty() || text.find_first_of(" \t\n\v\f\r") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && end == text.c_str() + text.size();
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
    if (unit == "ns")
      scale = 1;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs")
      scale = 1e3L;
    else if (unit == "ms")
      scale = 1e6L;
    else if (unit == "s")
      scale = 1e9L;
    else if (unit == "m")
      scale = 60e9L;
    else if (unit == "h")
      scale = 3600e9L;
    else
      return false;
    total_ns += std::strtold(number.c_str(), nullptr) * scale;
  }
  if (total_ns > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) return false;
  out = std::chrono::nanoseconds(static_cast<std::int64_t>(total_ns));
  return true;
}

}  // namespace

bool parse_byte_count(const std::string& text, std::uint64_t& out) {
  std::uint64_t n = 0;
  if (!parse_byte_size(text, n) || n < 1 || n > (std::uint64_t{1} << 40)) return false;
  out = n;
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
  FlagSet flags;
  flags.accept_prefix("test.");  // Go's -test.bench spelling
  auto regexp = [](std::string& target) {
    return [&target](const std::string& v) {
      std::string why;
      if (!NameMatcher::validate(v, why)) return why;
      target = v;
      return std::string();
    };
  };
  flags.value("bench", regexp(options.bench));
  std::string list;
  flags.value("list", [&](const std::string& v) {
    std::string why = regexp(list)(v);
    if (why.empty()) options.list = v;
    return why;
  });
  flags.value("benchtime", [&](const std::string& v) {
    std::string why;
    parse_benchtime(v, options.benchtime, why);
    return why;
  });
  flags.value("count", [&](const std::string& v) -> std::string {
    long long n = 0;
    if (!parse_int(v, n) || n <= 0 || n > std::numeric_limits<int>::max()) {
      return "must be a positive integer";
    }
    options.count = static_cast<int>(n);
    return "";
  });
  flags.value("cpu", [&](const std::string& v) -> std::string {
    options.cpus.clear();
    std::string_view rest = v;
    while (true) {
      const auto comma = rest.find(',');
      long long n = 0;
      if (!parse_int(std::string(rest.substr(0, comma)), n) || n <= 0 || n > 1 << 20) {
        return "each entry must be a positive integer";
      }
      options.cpus.push_back(static_cast<int>(n));
      if (comma == std::string_view::npos) return "";
      rest.remove_prefix(comma + 1);
    }
  });
  auto file_name = [](std::string& target) {
    return [&target](const std::string& v) -> std::string {
      if (v.empty()) return "empty file name";
      target = v;
      return "";
    };
  };
  flags.value("o", file_name(options.output_file));
  flags.value("cpuprofile", file_name(options.cpuprofile));
  flags.value("memprofile", file_name(options.memprofile));
  flags.value("cpuprofilerate", [&](const std::string& v) -> std::string {
    long long n = 0;
    if (!parse_int(v, n) || n < 1 || n > 10000) {
      return "must be an integer from 1 to 10000 (samples per second)";
    }
    options.cpuprofilerate = static_cast<int>(n);
    return "";
  });
  flags.value("memprofilerate", [&](const std::string& v) -> std::string {
    if (!parse_byte_count(v, options.memprofilerate)) {
      return "must be a positive byte count (512KiB, 4096, 1)";
    }
    return "";
  });
  flags.value("profileformat", [&](const std::string& v) -> std::string {
    if (v == "pprof") {
      options.profileformat = profile::ProfileFormat::kPprof;
    } else if (v == "legacy") {
      options.profileformat = profile::ProfileFormat::kLegacy;
    } else {
      return "must be pprof or legacy";
    }
    return "";
  });
  flags.value("benchmeasure", [&](const std::string& v) -> std::string {
    if (v == "time") {
      options.measure = Measure::kTime;
    } else if (v == "instructions") {
      options.measure = Measure::kInstructions;
    } else {
      return "must be time or instructions";
    }
    return "";
  });
  flags.boolean("benchmem", options.benchmem);
  flags.boolean("faults", options.faults);
  flags.boolean("heap", options.heap);

  const std::span<char* const> args(argv + (argc > 0 ? 1 : 0),
                                    static_cast<std::size_t>(argc > 1 ? argc - 1 : 0));
  if (!flags.parse(args, options.help, error)) return false;
  if (options.help) return true;
  if (options.measure == Measure::kInstructions &&
      (!options.cpuprofile.empty() || !options.memprofile.empty())) {
    error = "-benchmeasure=instructions cannot be combined with -cpuprofile or -memprofile";
    return false;
  }
  if (!flags.operands().empty()) {
    error = "unexpected argument " + quote_text(flags.operands().front()) + " (flags start with -)";
    return false;
  }
  return true;
}

std::string usage_text(const std::string& program) {
  return "usage: " + program +
         " [flags]\n"
         "  -bench REGEX       run benchmarks whose names match (slash-separated levels\n"
         "                     match sub-benchmarks, as in Go); default: all\n"
         "  -benchtime D       run each benchmark for duration D (1s, 500ms) or exactly\n"
         "                     N iterations (100x); default 1s\n"
         "  -benchmeasure M    time (default) or instructions: re-run under valgrind's\n"
         "                     callgrind and report exact instructions/op, L1-misses/op,\n"
         "                     LL-misses/op and estimated cycles/op, at -benchtime Nx\n"
         "                     iterations (default 100x; docs/counting.md)\n"
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
         "                     format, symbols resolved: go tool pprof -top FILE)\n"
         "  -cpuprofilerate HZ CPU profile samples per second; default 100\n"
         "  -memprofile FILE   write an allocation profile of the timed code to FILE\n"
         "  -memprofilerate N  sample one allocation per N bytes on average (512KiB,\n"
         "                     4096; 1 = every allocation); default 512KiB\n"
         "  -profileformat F   pprof (default) or legacy: gperftools' formats, which\n"
         "                     Debian's google-pprof reads (google-pprof BINARY FILE)\n"
         "  -h                 show this help\n";
}

}  // namespace zerolab::internal
