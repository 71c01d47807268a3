// `zerolab waste`'s report: the findings built from the collected records,
// priced with the calibration, ranked by estimated time then bytes, and
// rendered as text, JSON or markdown.
//
// JSON schema (--format json; every number is a JSON number; a calibration
// figure no finding of the run is priced with is not measured: null):
//   {"program": "./prog", "arguments": ["-x"], "exit_status": 0,
//    "signal": null | "SIGKILL",          // the program died of this signal
//    "processes": 1, "wall_seconds": 0.52,
//    "sample_rate": 524288, "check_rate": 262144,
//    "calibration": {"zero_bytes_per_second":…, "fault_seconds":…,
//                    "malloc_free_seconds":…, "large_block_seconds":…,
//                    "copy_bytes_per_second":…,
//                    "measured_at": "2026-12-07T17:50:00Z" | null,  // null: nothing measured
//                    "cached": false},  // true: read from the cache (calibrate.hpp)
//    "findings": [{
//      "kind": "zeroed-fresh-pages" | "zeroed-zeros" | "temporary-allocations"
//              | "oversized-buffers" | "user-space-copies"
//              | "temporary-allocations-in-frame",  // freed before the allocating function
//              returned
//      "bytes": 1048576, "calls": 1,
//      "estimated_seconds": 0.00011,      // an estimate from the calibration
//      "exact": true,                     // false: bytes/calls scaled from samples
//      "samples": 400, "relative_error": 0.05,  // estimates only: one standard error, relative
//      "fix": "…",
//      "pages": 256,                      // zeroed-fresh-pages only
//      "touched_bytes": 4080,             // oversized-buffers only
//      "sampled_fraction": 0.004,         // zeroed-zeros only: samples / bytes
//      "per_second": {"calls": …, "bytes": …},  // both temporary-allocations kinds
//      "pairs": [{"source": "file", "destination": "pipe", "bytes": 4096,
//                 "calls": 1, "copy_fd_path": "sendfile"}],  // user-space-copies only
//      "sites": [{"function": "main", "file": "/src/prog.c", "line": 42,
//                 "safe_to_drop": false, "fix": "keep the memset: …",  // zeroed-zeros only
//                 "bytes": 1048576, "calls": 1,
//                 "samples": 12, "relative_error": 0.29,  // sampled sites only
//                 "source": "file", "destination": "pipe", "copy_fd_path": "sendfile",  // copies
//                 "stack": ["main (/src/prog.c:42)", …]}]}],
//    "per_process": [{"pid": 12, "ppid": 11, "exe": "/usr/bin/prog", "command": ["prog", "-x"],
//                     "bytes": …, "estimated_seconds": …,
//                     "findings": {"temporary-allocations": {"bytes", "calls",
//                     "estimated_seconds"}}, "threads": [{"tid": 13, "name": "worker-1", "threads":
//                     1,  // > 1: slot reused
//                                  "bytes": …, "estimated_seconds": …, "findings": {…}}]}],
//    "notes": ["…"],
//    "unrecorded_children": [{"pid": 1234, "command": "/bin/ls -l"}],  // ran without the preload
//    "blind_spots": ["…"]}                  // what the preload cannot see, and how to see it
// user-space-copies counts only descriptor pairs zerolab::copy_fd moves in
// the kernel (copy_fd_path != "read_write"); the rest is one note.
// Sites are the first frame outside the preload and the C/C++ runtime
// libraries, merged by function, file and line, largest bytes first; per
// site, temporary allocations are weighted samples (exact at
// --sample-rate 1), everything else exact except zeroed zeros.
// temporary-allocations-in-frame is sampled in its totals too ("exact" only
// at --sample-rate 1): heaptrack's definition needs only the last
// allocation, this one the allocating frame's CFA, which only a sampled
// stack has (src/waste/preload_frame.cpp).
//
// Example:
//   Report r = build_report(collected, symbols, calibration, run);
//   std::string text = render_report(r, WasteFormat::kText);
#ifndef ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_REPORT_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_REPORT_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "waste/calibrate.hpp"
#include "waste/call_tree.hpp"
#include "waste/collect.hpp"
#include "waste/flags.hpp"
#include "waste/frame_filter.hpp"

namespace zerolab::waste {

struct RunFacts {
  std::vector<std::string> program;  // PROGRAM ARG...
  int exit_status = 0;               // 128 + signal when killed
  int signal = 0;                    // 0: exited
  double wall_seconds = 0;
  std::uint64_t sample_rate = 0;
  std::uint64_t check_rate = 0;
};

// One distinct stack of a site: every frame the preload recorded (inlined
// frames expanded, runtime and wrapper frames included), innermost first;
// frames[site_frame] is the frame the site is named by.
struct SiteStack {
  std::vector<CallFrame> frames;
  std::size_t site_frame = 0;
  bool truncated = false;  // the stack was deeper than the preload keeps (kMaxFrames)
  Amount amount;
};

struct ReportSite {
  std::string function;
  std::string file;
  int line = 0;
  double calls = 0;
  double bytes = 0;
  double extra = 0;
  int src = -1;  // copies only
  int dst = -1;
  // zeroed zeros and zeroed fresh pages only: which allocator handed out
  // the zeros every call of this site's memset ran over (record_format.hpp's
  // ZeroSource: 1 calloc, 2 zerolab::PageHeap; dropping the memset is
  // safe), or 0: some call was not over memory an allocator zeroed (keep
  // it); -1 for other kinds.
  int after_calloc = -1;
  // Sampled sites: the samples behind calls and bytes, and the expected
  // error of both (one standard error, relative: 0.1 = ±10%). 0: exact.
  double samples = 0;
  double relative_error = 0;
  // "function (file:line)", innermost first, from the site's frame out (its
  // largest stack).
  std::vector<std::string> stack;
  std::vector<SiteStack> stacks;  // every stack merged into the site, largest bytes first
};

struct CopyPairRow {
  int src = 0;
  int dst = 0;
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
};

struct Finding {
  WasteKind kind{};
  double calls = 0;
  double bytes = 0;
  double extra = 0;
  double estimated_seconds = 0;
  bool exact = true;
  // Estimated totals (exact false): the samples behind them and their
  // expected error, as ReportSite's (0 when exact).
  double samples = 0;
  double relative_error = 0;
  double sampled_fraction = 1;
  std::vector<ReportSite> sites;
  std::vector<CopyPairRow> pairs;
  // The Collected::sites records behind `sites` (indices), and the scale
  // their calls and bytes took (sampled sites scaled down to the total):
  // what the pprof profiles carry (profile.hpp).
  std::vector<std::size_t> records;
  double record_call_scale = 1;
  double record_byte_scale = 1;
  // Every site's stacks, outermost first down to the site's frame (runtime
  // frames outside the program's own left out).
  CallNode tree;
};

// One thread's share of its image's findings: what build_report finds in
// its counters alone (processes.hpp).
struct ThreadRow {
  ThreadInfo thread;
  Amount kinds[kWasteKinds];  // by WasteKind
  Amount total;
};

// One process image's share of the findings: what build_report finds in
// its record alone (processes.hpp), and its threads'.
struct ProcessRow {
  ProcessImage image;
  Amount kinds[kWasteKinds];  // by WasteKind
  Amount total;               // every kind: bytes and calls summed, estimated seconds summed
  // Every thread that counted anything, most estimated time first; slot 0
  // ("other threads", tid 0) only if it has waste.
  std::vector<ThreadRow> threads;
};

struct Report {
  RunFacts run;
  int processes = 0;
  Calibration calibration;
  std::vector<Finding> findings;        // ranked
  std::vector<ProcessRow> per_process;  // every image, by pid (filled by process_rows)
  std::vector<std::string> notes;
  // What no run can see (inlined memsets, stdio copies, ...), and what to
  // do to see it; and the children that ran without the preload.
  std::vector<std::string> blind_spots;
  std::vector<UnrecordedChild> unrecorded_children;
};

// The kernel path zerolab::copy_fd takes for a pair of FdTypes: io's own
// rule, zerolab::plan_copy (include/zerolab/copy.hpp), e.g. "sendfile" for
// file -> pipe, "splice" for file -> unix, "read_write" for file ->
// tcp-loopback (sendfile only moves the copy to the receiver there) or
// anything -> tty.
const char* copy_fd_path(int src, int dst);
// The zerolab fix for a kind, one sentence.
const char* fix_for(WasteKind kind);
// The fix for one finding: fix_for(kind), except zeroed zeros, whose fix
// says to drop the memset only where the allocator guarantees the zeros.
std::string fix_for(const Finding& finding);
// The fix for one zeroed-zeros or zeroed-fresh-pages site (after_calloc 0, 1 or 2).
const char* zeroed_zeros_site_fix(int after_calloc, WasteKind kind = WasteKind::kZeroedZeros);
// What a kind is, one phrase ("blocks freed before ...").
const char* kind_description(WasteKind kind);
// "1.5 MiB", "812 B"; "3.2 ms", "40 ns": as the text report writes them.
std::string bytes_text(double bytes);
std::string seconds_text(double seconds);
// A thread row's name: its name (comm), "(threads without a slot of their
// own)" for slot 0, and how many later threads shared its slot.
std::string thread_label(const ThreadInfo& t);
// "exit status 0", "killed by SIGSEGV".
std::string status_text(const RunFacts& run);
// When the costs were measured: "after the run", or for figures read from
// the cache "at 2026-12-07T17:50:00Z (kept in PATH; -recalibrate measures
// them again)".
std::string calibration_when(const Calibration& c);

// `skip`: the frames no site is named by (frame_filter.hpp).
Report build_report(const Collected& collected, const Symbolizer& symbols,
                    const Calibration& calibration, const RunFacts& run,
                    const FrameFilter& skip = FrameFilter());

std::string render_report(const Report& report, WasteFormat format);

// The first --fail-on that the report reaches, as "KIND=BYTES reached
// (N bytes)"; "" if none.
std::string failed_threshold(const Report& report, const std::vector<FailOn>& fail_on);

}  // namespace zerolab::waste

#endif  // ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_REPORT_HPP_
