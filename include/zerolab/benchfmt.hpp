// zerolab/benchfmt.hpp — the Go benchmark format: the one record type every
// part of zerolab produces and consumes (golang.org/design/14313-benchmark-format).
//
// A Result is one benchmark line: a name, an iteration count and value–unit
// pairs. Config lines ("key: value") describe the results that follow them.
// This header has the writer, formatting exactly as Go's testing package
// prints results (its prettyPrint rules), so the harness output and anything
// else zerolab writes read the same to benchstat.
//
// Thread-safety: pure functions; safe from any thread.
//
// Example:
//   zerolab::benchfmt::Result r{"BenchmarkMerge-2", 58723, {{20018, "ns/op"}, {81920, "B/op"}}};
//   std::string line = zerolab::benchfmt::format_result_line(r, 20);
//   // "BenchmarkMerge-2    \t   58723\t     20018 ns/op\t   81920 B/op"
#ifndef ZEROLAB_BENCHFMT_HPP_
#define ZEROLAB_BENCHFMT_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zerolab::benchfmt {

struct Metric {
  double value = 0;
  std::string unit;  // non-empty, no whitespace, e.g. "ns/op", "B/op", "faults/op"
};

struct Result {
  std::string name;  // full name as printed: "BenchmarkFoo/size=4-8"
  std::int64_t iterations = 0;
  std::vector<Metric> metrics;  // in the order they are printed
};

// Appends `value unit` right-aligned as Go's testing.prettyPrint does: whole
// numbers at or above 999.95 without decimals in 10 places, smaller ones with
// four significant figures, decimal points aligned.
void append_pretty(std::string& out, double value, std::string_view unit);

// Formats one result line (without newline) as Go's testing package prints
// it: the name left-aligned in name_width columns, a tab, the iteration count
// in 8 columns, then each metric after a tab. "MB/s" is printed as %7.2f,
// "B/op" and "allocs/op" as %8d of their integer part, every other unit with
// append_pretty.
std::string format_result_line(const Result& result, std::size_t name_width);

// Formats a config line "key: value" (without newline).
// REQUIRES: key has no whitespace, no uppercase first letter and no colon.
std::string format_config_line(std::string_view key, std::string_view value);

}  // namespace zerolab::benchfmt

#endif  // ZEROLAB_BENCHFMT_HPP_
