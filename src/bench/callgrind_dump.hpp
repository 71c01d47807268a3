// The header of one callgrind dump file: which client request wrote it and
// the event totals it holds.
//
// callgrind writes one file per CALLGRIND_DUMP_STATS_AT request, named
// `<out-file>.<n>`. Its header carries `desc: Trigger: Client Request:
// <text>`, `events: Ir Dr Dw ...` (the names of the columns) and
// `summary: 6014 1000 1007 2` (the totals, trailing zero columns left out).
// Only those three lines are read; the per-function costs after them are
// skipped.
//
// Example:
//   CallgrindDump dump;
//   std::string error;
//   if (!parse_callgrind_dump(text, dump, error)) { ...error says which line... }
//   std::uint64_t ir = dump.event("Ir");   // 0 for an event not collected
#ifndef ZEROLAB_SRC_BENCH_CALLGRIND_DUMP_HPP_
#define ZEROLAB_SRC_BENCH_CALLGRIND_DUMP_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zerolab::internal {

struct CallgrindDump {
  std::string trigger;                                        // the text after "desc: Trigger: "
  std::vector<std::pair<std::string, std::uint64_t>> events;  // in the file's order

  // The total of `name`, or 0 when the dump has no such event.
  std::uint64_t event(std::string_view name) const;
  bool has_event(std::string_view name) const;
};

// Parses a dump's header. False with `error` naming the line (1-based) and
// what was wrong when the text is not a callgrind dump with an `events:`
// line and a `summary:` line of at most as many counts.
bool parse_callgrind_dump(std::string_view text, CallgrindDump& out, std::string& error);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_BENCH_CALLGRIND_DUMP_HPP_
