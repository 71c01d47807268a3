// zerolab/benchfmt.hpp — the Go benchmark format: the one record type every
// part of zerolab produces and consumes (golang.org/design/14313-benchmark-format).
//
// A Result is one benchmark line: a name, an iteration count and value–unit
// pairs. Config lines ("key: value") describe the results that follow them.
// This header has the writer, formatting exactly as Go's testing package
// prints results (its prettyPrint rules), so the harness output and anything
// else zerolab writes read the same to benchstat.
//
// A MessageBlock is what Go's testing package prints about one benchmark or
// test besides its result: "--- FAIL: name", "--- SKIP: name", "--- BENCH:
// name" (its log lines) or "--- PASS: name (0.01s)", each message line below
// it indented four spaces. format_message_block writes one; read_message_blocks
// is the one reader of such blocks in zerolab (for output that only exists as
// text: a Go peer's, a Go test binary's).
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

enum class BlockKind { kPass, kFail, kSkip, kBench };

struct MessageBlock {
  BlockKind kind = BlockKind::kFail;
  std::string name;                // "BenchmarkX/size=4-2" (as printed, -N suffix kept)
  std::vector<std::string> lines;  // the messages, without their four-space indent
};

// "FAIL", "SKIP", "BENCH" or "PASS".
std::string_view block_kind_name(BlockKind kind);

// "--- FAIL: BenchmarkX\n    message\n" (every line ends in a newline).
std::string format_message_block(const MessageBlock& block);

// The blocks of `text`: a block starts at a line beginning "--- KIND: "
// (KIND one of the four), or at such text after a benchmark's name and a
// tab ("BenchmarkX-2  \t--- FAIL: BenchmarkX-2", how Go prints a benchmark
// that fails while measured); its name runs to the first space; the lines
// right after it that start with four spaces are its messages (with those
// four spaces removed). Every other line is not a block's and is skipped.
// Example: read_message_blocks("--- SKIP: TestA (0.00s)\n    why\nPASS\n")
//   == {{BlockKind::kSkip, "TestA", {"why"}}}
std::vector<MessageBlock> read_message_blocks(std::string_view text);

}  // namespace zerolab::benchfmt

#endif  // ZEROLAB_BENCHFMT_HPP_
