// `zerolab waste`'s findings and their renderings (cmd_waste_report.hpp).
#include "waste/report.hpp"

#include "zerolab/copy.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "text/markdown.hpp"
#include "waste/html.hpp"

namespace zerolab::waste {

using internal::markdown_code_cell;
using internal::markdown_text;

namespace {

bool library_header(const std::string& file) {
  return file.rfind("/usr/include/", 0) == 0;
}

// The frame a site is named by: the first (inlined frames included) outside
// the C/C++ runtime libraries, the system headers (std::vector's memset is
// the caller's vector) and the frames `skip` names (allocation wrappers),
// else the first outside the runtime and the system headers, else the first
// outside the runtime, else the innermost. `at` is set to its stack index,
// `inlined` to its index among that address's frames.
const Frame& site_frame(const SiteRecord& s, const Symbolizer& symbols, const FrameFilter& skip,
                        std::size_t& at, std::size_t& inlined) {
  for (const bool use_skip : {true, false}) {
    for (std::size_t i = 0; i < s.stack.size(); ++i) {
      const ResolvedPc& pc = symbols.get(s.stack[i]);
      if (runtime_module(pc.module)) continue;
      for (std::size_t k = 0; k < pc.frames.size(); ++k) {
        const Frame& f = pc.frames[k];
        if (library_header(f.file) || (use_skip && skip.skipped(f.function))) continue;
        at = i;
        inlined = k;
        return f;
      }
    }
  }
  std::size_t first_outside = 0;
  while (first_outside < s.stack.size() &&
         runtime_module(symbols.get(s.stack[first_outside]).module)) {
    ++first_outside;
  }
  at = first_outside == s.stack.size() ? 0 : first_outside;
  inlined = 0;
  return symbols.get(s.stack[at]).frames.front();
}

// The relative standard error of a total estimated from `samples` Poisson
// samples (each sampled event stands for 1/P events): 1/sqrt(samples).
double poisson_error(double samples) {
  return samples > 0 ? 1 / std::sqrt(samples) : 1;
}

// The relative standard error of population * hits / samples, the hits
// being a binomial draw: sqrt((1 - p) / hits), p = hits / samples.
double binomial_error(double hits, double samples) {
  if (hits <= 0 || samples <= 0) return 1;
  return std::sqrt(std::max(0.0, 1 / hits - 1 / samples));
}

// " (estimated from N samples, ±X%)" for a sampled figure, "" for an exact one.
std::string estimate_label(double samples, double relative_error) {
  if (relative_error <= 0 && samples <= 0) return "";
  char buf[128];
  std::snprintf(buf, sizeof buf, " (estimate from %.0f samples, ±%.0f%%)", samples,
                relative_error * 100);
  return buf;
}

std::string frame_text(const CallFrame& f) {
  if (f.file.empty()) return f.function;
  return f.function + " (" + f.file + ":" + std::to_string(f.line) + ")";
}

CallFrame call_frame(const Frame& f) {
  return CallFrame{f.function, f.file, f.line};
}

double estimate_seconds(WasteKind kind, const Finding& f, const Calibration& c) {
  auto per = [](double amount, double rate) { return rate > 0 ? amount / rate : 0.0; };
  switch (kind) {
    case WasteKind::kZeroedFreshPages:
      return per(f.bytes, c.zero_bytes_per_second) + f.extra * c.fault_seconds;
    case WasteKind::kZeroedZeros:
      return per(f.bytes, c.zero_bytes_per_second);
    case WasteKind::kTemporaryAllocations:
    case WasteKind::kTemporaryInFrame:
      return f.calls * c.malloc_free_seconds;
    case WasteKind::kOversizedBuffers:
      return f.calls * c.large_block_seconds;
    case WasteKind::kUserSpaceCopies:
      return per(2 * f.bytes, c.copy_bytes_per_second);
  }
  return 0;
}

std::string human_bytes(double b) {
  char buf[64];
  if (b < 1024) {
    std::snprintf(buf, sizeof buf, "%.0f B", b);
  } else if (b < 1024.0 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024);
  } else if (b < 1024.0 * 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024 * 1024));
  }
  return buf;
}

std::string human_seconds(double s) {
  char buf[64];
  if (s < 1e-6) {
    std::snprintf(buf, sizeof buf, "%.0f ns", s * 1e9);
  } else if (s < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.1f µs", s * 1e6);
  } else if (s < 1) {
    std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  }
  return buf;
}

std::string count_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", std::round(v));
  return buf;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string command_line(const std::vector<std::string>& program) {
  std::string s;
  for (const std::string& a : program) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

std::string site_location(const ReportSite& s) {
  if (s.file.empty()) return s.function;
  return s.function + "  " + s.file + ":" + std::to_string(s.line);
}

// What each kind is and the zerolab fix for it, in WasteKind's order.
struct KindText {
  const char* blurb;
  const char* fix;
};
constexpr std::array<KindText, kWasteKinds> kKindTexts = {{
    {"memset/bzero of 0 over pages the kernel had not handed out yet (it zeroes them at first "
     "touch)",
     "allocate zeroed memory instead of zeroing it: calloc, or zerolab::PageHeap (it knows which "
     "pages "
     "are still fresh)"},
    {"memset/bzero of 0 over bytes that already read as zero",
     "drop the memset only where the allocator guarantees zeroed memory (calloc, "
     "zerolab::PageHeap): elsewhere the bytes were zero by coincidence and the memset stays"},
    {"blocks freed before the same thread allocated anything else, in a size class where the "
     "thread does that at least twice (not heaptrack's rule: see docs/waste.md)",
     "reuse one buffer (hoist it out of the loop), or take blocks from zerolab::Pool / "
     "zerolab::Arena"},
    {"blocks of 16 KiB or more freed with fewer than half their bytes on touched pages",
     "allocate what is used: a small per-connection buffer, plus a large one from a zerolab::Pool "
     "when "
     "needed"},
    {"bytes read into a buffer and written unchanged to another descriptor",
     "zerolab::copy_fd(src, dst): the kernel moves the bytes (copy_file_range, sendfile or "
     "splice)"},
    {"blocks freed before the function that allocated them returned, having lived through at "
     "most 16 allocations and frees of their thread, in a size class where that repeats "
     "(sampled allocations, weighted)",
     "the block never outlives its function: a stack buffer, one reused buffer, or a "
     "zerolab::Arena "
     "reset per call"},
}};

constexpr const char* kDropAfterCalloc =
    "drop the memset: calloc returned this block zeroed and nothing was allocated since";
constexpr const char* kDropAfterPageHeap =
    "drop the memset: zerolab::PageHeap::allocate(n, Zero::kYes) handed out this span zeroed";
constexpr const char* kKeepCoincidence =
    "keep the memset: the bytes were zero by coincidence (a recycled block, an allocator's own "
    "memory); nothing guarantees it. To save the fill, allocate with calloc or "
    "zerolab::PageHeap, which hand out zeroed memory, and drop it there";

const char* kind_blurb(WasteKind kind) {
  return kKindTexts[static_cast<std::size_t>(kind)].blurb;
}

// The per-process rows, most estimated time first (then bytes, then pid).
std::vector<const ProcessRow*> ranked_processes(const Report& r) {
  std::vector<const ProcessRow*> rows;
  for (const ProcessRow& p : r.per_process) rows.push_back(&p);
  std::stable_sort(rows.begin(), rows.end(), [](const ProcessRow* a, const ProcessRow* b) {
    if (a->total.seconds != b->total.seconds) return a->total.seconds > b->total.seconds;
    return a->total.bytes > b->total.bytes;
  });
  return rows;
}

// Every thread row of every process with waste, most estimated time first.
std::vector<std::pair<const ProcessRow*, const ThreadRow*>> ranked_threads(const Report& r) {
  std::vector<std::pair<const ProcessRow*, const ThreadRow*>> rows;
  for (const ProcessRow& p : r.per_process) {
    for (const ThreadRow& t : p.threads) {
      if (std::llround(t.total.bytes) != 0 || std::llround(t.total.calls) != 0)
        rows.emplace_back(&p, &t);
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (a.second->total.seconds != b.second->total.seconds)
      return a.second->total.seconds > b.second->total.seconds;
    return a.second->total.bytes > b.second->total.bytes;
  });
  return rows;
}

std::string render_text(const Report& r) {
  std::string out;
  const RunFacts& run = r.run;
  char line[512];
  std::snprintf(line, sizeof line, "zerolab waste: %s\n", command_line(run.program).c_str());
  out += line;
  std::string status = run.signal != 0 ? "killed by " + signal_name(run.signal)
                                       : "exit status " + std::to_string(run.exit_status);
  std::snprintf(line, sizeof line, "%s, %d process image%s, %.2f s wall\n", status.c_str(),
                r.processes, r.processes == 1 ? "" : "s", run.wall_seconds);
  out += line;
  if (r.findings.empty()) {
    out += "\nNo waste found.\n";
  } else {
    // Only the costs this run's findings are priced with were measured.
    const Calibration& c = r.calibration;
    std::string costs;
    auto cost = [&](double value, const std::string& text) {
      if (value > 0) costs += (costs.empty() ? "" : ", ") + text;
    };
    std::snprintf(line, sizeof line, "%.1f GB/s", c.zero_bytes_per_second / 1e9);
    cost(c.zero_bytes_per_second, std::string("zeroing ") + line);
    cost(c.fault_seconds, "page fault " + human_seconds(c.fault_seconds));
    cost(c.malloc_free_seconds, "malloc+free " + human_seconds(c.malloc_free_seconds));
    cost(c.large_block_seconds, "64 KiB block " + human_seconds(c.large_block_seconds));
    std::snprintf(line, sizeof line, "%.1f GB/s", c.copy_bytes_per_second / 1e9);
    cost(c.copy_bytes_per_second, std::string("memcpy ") + line);
    if (c.small_buffer_bytes != 0) {
      costs += " (zeroing and copying timed over only " +
               human_bytes(static_cast<double>(c.small_buffer_bytes)) +
               ", a larger mapping failed: they include cache and read high)";
    }
    out += "Times are estimates, priced with costs measured on this machine " +
           calibration_when(c) + ": " + costs + ".\n";
  }
  int rank = 0;
  for (const Finding& f : r.findings) {
    out += "\n";
    std::snprintf(line, sizeof line, "%d. %s: %s in %s call%s, ~%s%s\n", ++rank,
                  std::string(kind_name(f.kind)).c_str(), human_bytes(f.bytes).c_str(),
                  count_text(f.calls).c_str(), std::round(f.calls) == 1 ? "" : "s",
                  human_seconds(f.estimated_seconds).c_str(),
                  f.exact ? "" : estimate_label(f.samples, f.relative_error).c_str());
    out += line;
    out += std::string("   ") + kind_blurb(f.kind) + "\n";
    if (f.kind == WasteKind::kZeroedFreshPages) {
      out += "   " + count_text(f.extra) + " fresh pages\n";
    } else if (f.kind == WasteKind::kOversizedBuffers) {
      out += "   " + human_bytes(f.bytes) + " requested, " + human_bytes(f.extra) +
             " on touched pages\n";
    } else if ((f.kind == WasteKind::kTemporaryAllocations ||
                f.kind == WasteKind::kTemporaryInFrame) &&
               run.wall_seconds > 0) {
      std::snprintf(line, sizeof line, "   %.0f allocations/s, %s/s of run time\n",
                    f.calls / run.wall_seconds, human_bytes(f.bytes / run.wall_seconds).c_str());
      out += line;
    } else if (f.kind == WasteKind::kZeroedZeros && !f.exact) {
      std::snprintf(line, sizeof line, "   content checked on %.3g%% of the zeroed bytes\n",
                    f.sampled_fraction * 100);
      out += line;
    }
    for (const CopyPairRow& p : f.pairs) {
      std::snprintf(line, sizeof line, "   %s -> %s: %s in %llu calls; copy_fd would use %s\n",
                    fd_type_name(p.src), fd_type_name(p.dst),
                    human_bytes(static_cast<double>(p.bytes)).c_str(),
                    static_cast<unsigned long long>(p.calls), copy_fd_path(p.src, p.dst));
      out += line;
    }
    out += "   fix: " + fix_for(f) + "\n";
    if (!f.sites.empty()) {
      const bool sampled = std::any_of(f.sites.begin(), f.sites.end(),
                                       [](const ReportSite& s) { return s.relative_error > 0; });
      out += sampled ? "   top sites (estimates from samples, ± one standard error):\n"
                     : "   top sites:\n";
    }
    const std::size_t shown = std::min<std::size_t>(f.sites.size(), 5);
    for (std::size_t i = 0; i < shown; ++i) {
      const ReportSite& s = f.sites[i];
      std::string pair;
      if (s.src >= 0)
        pair = std::string("  [") + fd_type_name(s.src) + " -> " + fd_type_name(s.dst) + "]";
      if (s.after_calloc == 1) pair = "  [after calloc: safe to drop]";
      if (s.after_calloc == 2) pair = "  [after PageHeap: safe to drop]";
      if (s.after_calloc == 0 && f.kind == WasteKind::kZeroedZeros) {
        pair = "  [zero by coincidence: keep]";
      }
      std::string error;
      if (s.relative_error > 0) {
        char e[32];
        std::snprintf(e, sizeof e, " ±%.0f%%", s.relative_error * 100);
        error = e;
      }
      std::snprintf(line, sizeof line, "   %12s %8s calls%s  %s%s\n", human_bytes(s.bytes).c_str(),
                    count_text(s.calls).c_str(), error.c_str(), site_location(s).c_str(),
                    pair.c_str());
      out += line;
    }
    if (f.sites.size() > shown) {
      out += "   ... " + std::to_string(f.sites.size() - shown) +
             " more sites (--format json lists all)\n";
    }
  }
  if (r.per_process.size() > 1) {
    std::vector<const ProcessRow*> rows = ranked_processes(r);
    out +=
        "\nPer process (" + std::to_string(rows.size()) + " images, most estimated time first):\n";
    out += "   " + std::string("     pid     ppid        bytes   est. time  command") + "\n";
    const std::size_t shown = std::min<std::size_t>(rows.size(), 10);
    for (std::size_t i = 0; i < shown; ++i) {
      const ProcessRow& p = *rows[i];
      std::string command = command_line(
          p.image.command.empty() ? std::vector<std::string>{p.image.exe} : p.image.command);
      if (command.size() > 80) command = command.substr(0, 77) + "...";
      std::snprintf(line, sizeof line, "   %8ld %8ld %12s %11s  %s\n", p.image.pid, p.image.ppid,
                    human_bytes(p.total.bytes).c_str(), human_seconds(p.total.seconds).c_str(),
                    command.c_str());
      out += line;
    }
    if (rows.size() > shown) {
      out += "   ... " + std::to_string(rows.size() - shown) +
             " more processes (--format json lists all)\n";
    }
  }
  const auto threads = ranked_threads(r);
  if (threads.size() > 1) {
    out += "\nPer thread (" + std::to_string(threads.size()) +
           " threads with waste, most estimated time first):\n";
    out += "   " + std::string("     pid      tid        bytes   est. time  name") + "\n";
    const std::size_t shown = std::min<std::size_t>(threads.size(), 10);
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& [p, t] = threads[i];
      std::snprintf(line, sizeof line, "   %8ld %8ld %12s %11s  %s\n", p->image.pid, t->thread.tid,
                    human_bytes(t->total.bytes).c_str(), human_seconds(t->total.seconds).c_str(),
                    thread_label(t->thread).c_str());
      out += line;
    }
    if (threads.size() > shown) {
      out += "   ... " + std::to_string(threads.size() - shown) +
             " more threads (--format json lists all)\n";
    }
  }
  for (const std::string& n : r.notes) out += "\nnote: " + n + "\n";
  if (!r.blind_spots.empty()) {
    out += "\nnot seen by zerolab waste:\n";
    for (const std::string& b : r.blind_spots) out += "  - " + b + "\n";
  }
  return out;
}

std::string render_markdown(const Report& r) {
  const RunFacts& run = r.run;
  std::string out = "# zerolab waste: " + markdown_text(command_line(run.program)) + "\n\n";
  out += (run.signal != 0 ? "killed by " + signal_name(run.signal)
                          : "exit status " + std::to_string(run.exit_status)) +
         " · " + std::to_string(r.processes) + " process image" + (r.processes == 1 ? "" : "s") +
         "\n\n";
  if (r.findings.empty()) {
    out += "No waste found.\n";
  } else {
    out += "Times are estimates priced with costs measured on this machine " +
           calibration_when(r.calibration) + ".\n\n";
    out += "| # | kind | bytes | calls | estimated time | fix |\n|---|---|---|---|---|---|\n";
    int rank = 0;
    for (const Finding& f : r.findings) {
      out += "| " + std::to_string(++rank) + " | " + std::string(kind_name(f.kind)) + " | " +
             human_bytes(f.bytes) + (f.exact ? "" : estimate_label(f.samples, f.relative_error)) +
             " | " + count_text(f.calls) + " | " + human_seconds(f.estimated_seconds) + " | " +
             markdown_text(fix_for(f)) + " |\n";
    }
    for (const Finding& f : r.findings) {
      out += "\n## " + std::string(kind_name(f.kind)) + "\n\n";
      out += std::string(kind_blurb(f.kind)) + ".\n\n";
      if (!f.pairs.empty()) {
        out += "| source | destination | bytes | calls | copy_fd path |\n|---|---|---|---|---|\n";
        for (const CopyPairRow& p : f.pairs) {
          out += std::string("| ") + fd_type_name(p.src) + " | " + fd_type_name(p.dst) + " | " +
                 std::to_string(p.bytes) + " | " + std::to_string(p.calls) + " | " +
                 copy_fd_path(p.src, p.dst) + " |\n";
        }
        out += "\n";
      }
      out += "| bytes | calls | expected error | function | file:line |\n|---|---|---|---|---|\n";
      for (const ReportSite& s : f.sites) {
        char error[32] = "exact";
        if (s.relative_error > 0)
          std::snprintf(error, sizeof error, "±%.0f%%", s.relative_error * 100);
        out += "| " + count_text(s.bytes) + " | " + count_text(s.calls) + " | " + error + " | `" +
               markdown_code_cell(s.function) + "` | " +
               markdown_text(s.file.empty() ? "?" : s.file + ":" + std::to_string(s.line)) + " |\n";
      }
    }
  }
  if (r.per_process.size() > 1) {
    out +=
        "\n## Per process\n\n| pid | ppid | bytes | calls | estimated time | command |\n"
        "|---|---|---|---|---|---|\n";
    for (const ProcessRow* p : ranked_processes(r)) {
      out += "| " + std::to_string(p->image.pid) + " | " + std::to_string(p->image.ppid) + " | " +
             count_text(p->total.bytes) + " | " + count_text(p->total.calls) + " | " +
             human_seconds(p->total.seconds) + " | `" +
             markdown_code_cell(command_line(p->image.command)) + "` |\n";
    }
  }
  const auto threads = ranked_threads(r);
  if (threads.size() > 1) {
    out +=
        "\n## Per thread\n\n| pid | tid | name | bytes | calls | estimated time |\n"
        "|---|---|---|---|---|---|\n";
    for (const auto& [p, t] : threads) {
      out += "| " + std::to_string(p->image.pid) + " | " + std::to_string(t->thread.tid) + " | " +
             markdown_text(thread_label(t->thread)) + " | " + count_text(t->total.bytes) + " | " +
             count_text(t->total.calls) + " | " + human_seconds(t->total.seconds) + " |\n";
    }
  }
  for (const std::string& n : r.notes) out += "\n> note: " + markdown_text(n) + "\n";
  if (!r.blind_spots.empty()) {
    out += "\n## Not seen by zerolab waste\n\n";
    for (const std::string& b : r.blind_spots) out += "- " + markdown_text(b) + "\n";
  }
  return out;
}

nlohmann::ordered_json tree_json(const CallNode& node) {
  using nlohmann::ordered_json;
  ordered_json j;
  if (!node.frame.function.empty()) {
    j["function"] = node.frame.function;
    j["file"] = node.frame.file;
  }
  j["bytes"] = std::llround(node.amount.bytes);
  j["calls"] = std::llround(node.amount.calls);
  j["estimated_seconds"] = node.amount.seconds;
  ordered_json children = ordered_json::array();
  for (const CallNode& c : node.children) children.push_back(tree_json(c));
  j["children"] = std::move(children);
  return j;
}

std::string render_json(const Report& r) {
  using nlohmann::ordered_json;
  ordered_json j;
  const RunFacts& run = r.run;
  j["program"] = run.program.empty() ? "" : run.program[0];
  j["arguments"] =
      run.program.size() > 1
          ? ordered_json(std::vector<std::string>(run.program.begin() + 1, run.program.end()))
          : ordered_json::array();
  j["exit_status"] = run.exit_status;
  j["signal"] = run.signal != 0 ? ordered_json(signal_name(run.signal)) : ordered_json(nullptr);
  j["processes"] = r.processes;
  j["wall_seconds"] = run.wall_seconds;
  j["sample_rate"] = run.sample_rate;
  j["check_rate"] = run.check_rate;
  const Calibration& c = r.calibration;
  // null: not measured (no finding of this run is priced with it).
  auto measured = [](double v) { return v > 0 ? ordered_json(v) : ordered_json(nullptr); };
  j["calibration"] = {
      {"zero_bytes_per_second", measured(c.zero_bytes_per_second)},
      {"fault_seconds", measured(c.fault_seconds)},
      {"malloc_free_seconds", measured(c.malloc_free_seconds)},
      {"large_block_seconds", measured(c.large_block_seconds)},
      {"copy_bytes_per_second", measured(c.copy_bytes_per_second)},
      {"measured_at", c.measured_at.empty() ? ordered_json(nullptr) : ordered_json(c.measured_at)},
      {"cached", c.cached}};
  // Zeroing and copying timed over a buffer smaller than 4x the L3 (a
  // larger mapping failed): their figures include cache.
  if (c.small_buffer_bytes != 0) j["calibration"]["small_buffer_bytes"] = c.small_buffer_bytes;
  ordered_json findings = ordered_json::array();
  for (const Finding& f : r.findings) {
    ordered_json fj;
    fj["kind"] = std::string(kind_name(f.kind));
    fj["bytes"] = std::llround(f.bytes);
    fj["calls"] = std::llround(f.calls);
    fj["estimated_seconds"] = f.estimated_seconds;
    fj["exact"] = f.exact;
    if (!f.exact && f.relative_error > 0) {
      fj["samples"] = std::llround(f.samples);
      fj["relative_error"] = f.relative_error;
    }
    fj["fix"] = fix_for(f);
    if (f.kind == WasteKind::kZeroedFreshPages) fj["pages"] = std::llround(f.extra);
    if (f.kind == WasteKind::kOversizedBuffers) fj["touched_bytes"] = std::llround(f.extra);
    if (f.kind == WasteKind::kZeroedZeros) fj["sampled_fraction"] = f.sampled_fraction;
    if ((f.kind == WasteKind::kTemporaryAllocations || f.kind == WasteKind::kTemporaryInFrame) &&
        run.wall_seconds > 0) {
      fj["per_second"] = {{"calls", f.calls / run.wall_seconds},
                          {"bytes", f.bytes / run.wall_seconds}};
    }
    if (f.kind == WasteKind::kUserSpaceCopies) {
      ordered_json pairs = ordered_json::array();
      for (const CopyPairRow& p : f.pairs) {
        pairs.push_back({{"source", fd_type_name(p.src)},
                         {"destination", fd_type_name(p.dst)},
                         {"bytes", p.bytes},
                         {"calls", p.calls},
                         {"copy_fd_path", copy_fd_path(p.src, p.dst)}});
      }
      fj["pairs"] = pairs;
    }
    ordered_json sites = ordered_json::array();
    for (const ReportSite& s : f.sites) {
      ordered_json sj;
      sj["function"] = s.function;
      sj["file"] = s.file;
      sj["line"] = s.line;
      sj["bytes"] = std::llround(s.bytes);
      sj["calls"] = std::llround(s.calls);
      if (s.relative_error > 0) {
        sj["samples"] = std::llround(s.samples);
        sj["relative_error"] = s.relative_error;
      }
      if (f.kind == WasteKind::kZeroedFreshPages) sj["pages"] = std::llround(s.extra);
      if (f.kind == WasteKind::kOversizedBuffers) sj["touched_bytes"] = std::llround(s.extra);
      if (s.after_calloc >= 0) {
        sj["safe_to_drop"] = s.after_calloc > 0;
        sj["fix"] = zeroed_zeros_site_fix(s.after_calloc, f.kind);
      }
      if (s.src >= 0) {
        sj["source"] = fd_type_name(s.src);
        sj["destination"] = fd_type_name(s.dst);
        sj["copy_fd_path"] = copy_fd_path(s.src, s.dst);
      }
      sj["stack"] = s.stack;
      ordered_json stacks = ordered_json::array();
      for (const SiteStack& st : s.stacks) {
        ordered_json frames = ordered_json::array();
        for (const CallFrame& fr : st.frames) frames.push_back(frame_text(fr));
        stacks.push_back({{"bytes", std::llround(st.amount.bytes)},
                          {"calls", std::llround(st.amount.calls)},
                          {"estimated_seconds", st.amount.seconds},
                          {"site_frame", st.site_frame},
                          {"truncated", st.truncated},
                          {"frames", std::move(frames)}});
      }
      sj["stacks"] = std::move(stacks);
      sites.push_back(std::move(sj));
    }
    fj["sites"] = std::move(sites);
    fj["call_tree"] = tree_json(f.tree);
    findings.push_back(std::move(fj));
  }
  j["findings"] = std::move(findings);
  ordered_json per_process = ordered_json::array();
  auto kinds_json = [](const Amount(&kinds)[kWasteKinds]) {
    ordered_json out = ordered_json::object();
    for (int k = 0; k < kWasteKinds; ++k) {
      const Amount& a = kinds[k];
      if (std::llround(a.bytes) == 0 && std::llround(a.calls) == 0) continue;
      out[std::string(kind_name(static_cast<WasteKind>(k)))] = {{"bytes", std::llround(a.bytes)},
                                                                {"calls", std::llround(a.calls)},
                                                                {"estimated_seconds", a.seconds}};
    }
    return out;
  };
  for (const ProcessRow& p : r.per_process) {
    ordered_json threads = ordered_json::array();
    for (const ThreadRow& t : p.threads) {
      threads.push_back({{"tid", t.thread.tid},
                         {"name", t.thread.name},
                         {"threads", t.thread.threads},
                         {"bytes", std::llround(t.total.bytes)},
                         {"estimated_seconds", t.total.seconds},
                         {"findings", kinds_json(t.kinds)}});
    }
    per_process.push_back({{"pid", p.image.pid},
                           {"ppid", p.image.ppid},
                           {"exe", p.image.exe},
                           {"command", p.image.command},
                           {"bytes", std::llround(p.total.bytes)},
                           {"estimated_seconds", p.total.seconds},
                           {"findings", kinds_json(p.kinds)},
                           {"threads", std::move(threads)}});
  }
  j["per_process"] = std::move(per_process);
  j["notes"] = r.notes;
  ordered_json children = ordered_json::array();
  for (const UnrecordedChild& child : r.unrecorded_children) {
    children.push_back({{"pid", child.pid}, {"command", child.command}});
  }
  j["unrecorded_children"] = std::move(children);
  j["blind_spots"] = r.blind_spots;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

const char* copy_fd_path(int src, int dst) {
  // record_format.hpp's FdType, as zerolab::io's CopyEnd.
  const auto end = [](int type) {
    switch (type) {
      case 0:
        return CopyEnd::kFile;
      case 1:
        return CopyEnd::kPipe;
      case 2:
        return CopyEnd::kRemoteStream;
      case 4:
        return CopyEnd::kUnixStream;
      case 7:
        return CopyEnd::kLoopbackStream;
      default:
        return CopyEnd::kOther;  // udp, tty, other
    }
  };
  const CopyPlan plan = plan_copy(end(src), end(dst));
  return plan.path == CopyPath::kNone ? "read_write" : to_string(plan.path).data();
}

const char* fix_for(WasteKind kind) {
  return kKindTexts[static_cast<std::size_t>(kind)].fix;
}

const char* zeroed_zeros_site_fix(int after_calloc, WasteKind kind) {
  if (after_calloc == 1) return kDropAfterCalloc;
  if (after_calloc == 2) return kDropAfterPageHeap;
  return kind == WasteKind::kZeroedZeros ? kKeepCoincidence : fix_for(kind);
}

std::string fix_for(const Finding& finding) {
  const bool zeroing =
      finding.kind == WasteKind::kZeroedZeros || finding.kind == WasteKind::kZeroedFreshPages;
  if (!zeroing || finding.sites.empty()) return fix_for(finding.kind);
  bool any_calloc = false;
  bool any_heap = false;
  bool any_kept = false;
  for (const ReportSite& s : finding.sites) {
    (s.after_calloc == 1 ? any_calloc : s.after_calloc == 2 ? any_heap : any_kept) = true;
  }
  if (!any_kept && !any_heap) return kDropAfterCalloc;
  if (!any_kept && !any_calloc) return kDropAfterPageHeap;
  if (!any_calloc && !any_heap) return zeroed_zeros_site_fix(0, finding.kind);
  return finding.kind == WasteKind::kZeroedZeros
             ? "per site: drop the memset where the allocator handed out the zeros (calloc, "
               "zerolab::PageHeap: safe_to_drop); keep it elsewhere (zero by coincidence)"
             : "per site: drop the memset where the allocator handed out the zeros (calloc, "
               "zerolab::PageHeap: safe_to_drop); elsewhere allocate zeroed memory instead of "
               "zeroing it (calloc, or zerolab::PageHeap)";
}

const char* kind_description(WasteKind kind) {
  return kind_blurb(kind);
}

std::string bytes_text(double bytes) {
  return human_bytes(bytes);
}

std::string seconds_text(double seconds) {
  return human_seconds(seconds);
}

std::string thread_label(const ThreadInfo& t) {
  if (t.slot == 0) return "(threads without a slot of their own)";
  std::string label = t.name.empty() ? "?" : t.name;
  if (t.threads > 1) {
    label += " (and " + std::to_string(t.threads - 1) + " later thread" +
             (t.threads == 2 ? "" : "s") + " in the same slot)";
  }
  return label;
}

std::string status_text(const RunFacts& run) {
  return run.signal != 0 ? "killed by " + signal_name(run.signal)
                         : "exit status " + std::to_string(run.exit_status);
}

std::string calibration_when(const Calibration& c) {
  if (!c.cached) return "after the run";
  return "at " + c.measured_at + " (kept in " + c.cache_path +
         "; -recalibrate measures them again)";
}

namespace {

// The records in an order that is the same in every run of one program:
// by their stacks as addresses in their ELF files (not in the process,
// which address-space randomization moves), so sites and stacks that tie
// on bytes and calls are listed, and their sums added, alike every time.
std::vector<const SiteRecord*> in_stable_order(const std::vector<SiteRecord>& sites,
                                               const Symbolizer& symbols) {
  std::vector<const SiteRecord*> order;
  order.reserve(sites.size());
  for (const SiteRecord& s : sites) order.push_back(&s);
  auto before = [&symbols](const SiteRecord* a, const SiteRecord* b) {
    if (a->kind != b->kind) return a->kind < b->kind;
    const std::size_t n = std::min(a->stack.size(), b->stack.size());
    for (std::size_t i = 0; i < n; ++i) {
      const ResolvedPc& x = symbols.get(a->stack[i]);
      const ResolvedPc& y = symbols.get(b->stack[i]);
      if (x.vaddr != y.vaddr) return x.vaddr < y.vaddr;
      if (x.module != y.module) return x.module < y.module;
    }
    if (a->stack.size() != b->stack.size()) return a->stack.size() < b->stack.size();
    return std::tie(a->src, a->dst) < std::tie(b->src, b->dst);
  };
  std::stable_sort(order.begin(), order.end(), before);
  return order;
}

}  // namespace

Report build_report(const Collected& collected, const Symbolizer& symbols,
                    const Calibration& calibration, const RunFacts& run, const FrameFilter& skip) {
  Report r;
  r.run = run;
  r.processes = static_cast<int>(collected.images.size());
  r.calibration = calibration;
  // Copies between descriptors copy_fd has no kernel path for (a tty,
  // /dev/null, ...) are no waste: copy_fd would read and write them too.
  KindTotals kernel_copies;
  std::uint64_t plain_copy_bytes = 0;
  for (int s = 0; s < kFdTypes; ++s) {
    for (int d = 0; d < kFdTypes; ++d) {
      if (std::string(copy_fd_path(s, d)) == "read_write") {
        plain_copy_bytes += collected.copy_bytes[s][d];
        continue;
      }
      kernel_copies.calls += static_cast<double>(collected.copy_calls[s][d]);
      kernel_copies.bytes += static_cast<double>(collected.copy_bytes[s][d]);
    }
  }
  // A block counts in its allocating frame if the site's frame (the first
  // outside the runtime and library headers) was still live at the free.
  auto in_site_frame = [&](const SiteRecord& s) {
    std::size_t at = 0;
    std::size_t inlined = 0;
    site_frame(s, symbols, skip, at, inlined);
    return static_cast<int>(at) >= s.src;
  };
  KindTotals in_frame;
  for (const SiteRecord& s : collected.sites) {
    if (s.kind != WasteKind::kTemporaryInFrame || !in_site_frame(s)) continue;
    in_frame.calls += s.calls;
    in_frame.bytes += s.bytes;
    in_frame.samples += s.samples;
  }
  const std::vector<const SiteRecord*> ordered_sites = in_stable_order(collected.sites, symbols);
  for (int k = 0; k < kWasteKinds; ++k) {
    const auto kind = static_cast<WasteKind>(k);
    const KindTotals& t = kind == WasteKind::kUserSpaceCopies    ? kernel_copies
                          : kind == WasteKind::kTemporaryInFrame ? in_frame
                                                                 : collected.totals[k];
    if (std::llround(t.bytes) == 0 && std::llround(t.calls) == 0) continue;
    Finding f;
    f.kind = kind;
    f.calls = t.calls;
    f.bytes = t.bytes;
    f.extra = t.extra;
    // Sites are estimates where the preload sampled them.
    bool sites_sampled = false;
    if (kind == WasteKind::kTemporaryAllocations) sites_sampled = run.sample_rate > 1;
    if (kind == WasteKind::kTemporaryInFrame) {
      // Exact only when every allocation was sampled and tracked.
      f.exact = run.sample_rate <= 1 && collected.frame_untracked == 0;
      sites_sampled = run.sample_rate > 1;
      f.samples = t.samples;
      if (run.sample_rate > 1) f.relative_error = poisson_error(t.samples);
    }
    if (kind == WasteKind::kZeroedZeros) {
      f.exact = collected.zero_samples == collected.zero_population;
      sites_sampled = !f.exact;
      f.sampled_fraction = collected.zero_population == 0
                               ? 1
                               : static_cast<double>(collected.zero_samples) /
                                     static_cast<double>(collected.zero_population);
      if (!f.exact) {
        f.samples = static_cast<double>(collected.zero_samples);
        f.relative_error = binomial_error(static_cast<double>(collected.zero_hits), f.samples);
      }
    }
    f.estimated_seconds = estimate_seconds(kind, f, calibration);
    if (kind == WasteKind::kUserSpaceCopies) {
      for (int s = 0; s < kFdTypes; ++s) {
        for (int d = 0; d < kFdTypes; ++d) {
          if (collected.copy_calls[s][d] == 0 || std::string(copy_fd_path(s, d)) == "read_write")
            continue;
          f.pairs.push_back({s, d, collected.copy_calls[s][d], collected.copy_bytes[s][d]});
        }
      }
      std::sort(f.pairs.begin(), f.pairs.end(),
                [](const CopyPairRow& a, const CopyPairRow& b) { return a.bytes > b.bytes; });
    }
    // Sites merged by the frame they are named by, each keeping its stacks.
    std::map<std::tuple<std::string, std::string, int, int, int>, std::size_t> index;
    std::vector<std::map<std::vector<int>, std::size_t>> stack_index;  // per site
    for (const SiteRecord* record : ordered_sites) {
      const SiteRecord& s = *record;
      if (s.kind != kind) continue;
      if (kind == WasteKind::kUserSpaceCopies &&
          std::string(copy_fd_path(s.src, s.dst)) == "read_write")
        continue;
      if (kind == WasteKind::kTemporaryInFrame && !in_site_frame(s)) continue;
      std::size_t at = 0;
      std::size_t inlined = 0;
      const Frame& top = site_frame(s, symbols, skip, at, inlined);
      const int src = kind == WasteKind::kUserSpaceCopies ? s.src : -1;
      int dst = kind == WasteKind::kUserSpaceCopies ? s.dst : -1;
      // Zeroing: one site per line, safe only if every record of it is.
      const bool zeroing = kind == WasteKind::kZeroedZeros || kind == WasteKind::kZeroedFreshPages;
      const int after_calloc = zeroing ? (s.dst == 1 || s.dst == 2 ? s.dst : 0) : -1;
      const auto key = std::make_tuple(top.function, top.file, top.line, src, dst);
      auto it = index.find(key);
      if (it == index.end()) {
        ReportSite rs;
        rs.function = top.function;
        rs.file = top.file;
        rs.line = top.line;
        rs.src = src;
        rs.dst = after_calloc >= 0 ? -1 : dst;
        rs.after_calloc = after_calloc;
        it = index.emplace(key, f.sites.size()).first;
        f.sites.push_back(std::move(rs));
        stack_index.emplace_back();
      }
      f.records.push_back(static_cast<std::size_t>(&s - collected.sites.data()));
      ReportSite& rs = f.sites[it->second];
      if (rs.after_calloc != after_calloc) rs.after_calloc = 0;
      rs.calls += s.calls;
      rs.bytes += s.bytes;
      rs.extra += s.extra;
      rs.samples += s.samples;
      Finding priced;
      priced.calls = s.calls;
      priced.bytes = s.bytes;
      priced.extra = s.extra;
      const Amount amount{s.bytes, s.calls, estimate_seconds(kind, priced, calibration)};
      // The stack as recorded, and the tree's path: outermost first, down to
      // the site's frame, without the runtime's frames around main and
      // threads' start routines.
      auto [st, added] = stack_index[it->second].emplace(s.stack, rs.stacks.size());
      if (added) {
        SiteStack stack;
        stack.truncated = s.truncated;
        for (std::size_t i = 0; i < s.stack.size(); ++i) {
          const std::vector<Frame>& frames = symbols.get(s.stack[i]).frames;
          for (std::size_t j = 0; j < frames.size(); ++j) {
            if (i == at && j == inlined) stack.site_frame = stack.frames.size();
            stack.frames.push_back(call_frame(frames[j]));
          }
        }
        rs.stacks.push_back(std::move(stack));
      }
      Amount& stack_amount = rs.stacks[st->second].amount;
      stack_amount.bytes += amount.bytes;
      stack_amount.calls += amount.calls;
      stack_amount.seconds += amount.seconds;
      std::vector<CallFrame> path;
      for (std::size_t i = s.stack.size(); i-- > at;) {
        const ResolvedPc& pc = symbols.get(s.stack[i]);
        if (runtime_module(pc.module)) continue;
        for (std::size_t j = pc.frames.size(); j-- > 0;) {
          if (i == at && j < inlined) break;
          if (pc.frames[j].function == "_start") continue;
          path.push_back(call_frame(pc.frames[j]));
        }
      }
      add_stack(f.tree, path, amount);
    }
    if (sites_sampled) {
      double site_calls = 0;
      double site_bytes = 0;
      for (ReportSite& rs : f.sites) {
        rs.relative_error =
            kind == WasteKind::kZeroedZeros
                ? binomial_error(rs.samples, static_cast<double>(collected.zero_samples))
                : poisson_error(rs.samples);
        site_calls += rs.calls;
        site_bytes += rs.bytes;
      }
      // Weighted samples can add up past the exact total they estimate a
      // share of: sites are scaled down to it, so none exceeds its finding.
      const double call_scale = site_calls > f.calls ? f.calls / site_calls : 1;
      const double byte_scale = site_bytes > f.bytes ? f.bytes / site_bytes : 1;
      for (ReportSite& rs : f.sites) {
        rs.calls *= call_scale;
        rs.bytes *= byte_scale;
      }
      f.record_call_scale = call_scale;
      f.record_byte_scale = byte_scale;
      // The stacks and the call tree are scaled alike (time as its kind is priced).
      const bool priced_by_calls = kind == WasteKind::kTemporaryAllocations ||
                                   kind == WasteKind::kTemporaryInFrame ||
                                   kind == WasteKind::kOversizedBuffers;
      const Amount scale{byte_scale, call_scale, priced_by_calls ? call_scale : byte_scale};
      for (ReportSite& rs : f.sites) {
        for (SiteStack& st : rs.stacks) scale_amount(st.amount, scale);
      }
      scale_tree(f.tree, scale);
    } else {
      for (ReportSite& rs : f.sites) rs.samples = 0;
    }
    for (ReportSite& rs : f.sites) {
      std::stable_sort(rs.stacks.begin(), rs.stacks.end(),
                       [](const SiteStack& a, const SiteStack& b) {
                         return a.amount.bytes != b.amount.bytes ? a.amount.bytes > b.amount.bytes
                                                                 : a.amount.calls > b.amount.calls;
                       });
      const SiteStack& largest = rs.stacks.front();
      for (std::size_t i = largest.site_frame; i < largest.frames.size(); ++i)
        rs.stack.push_back(frame_text(largest.frames[i]));
    }
    sort_by_bytes(f.tree);
    std::stable_sort(f.sites.begin(), f.sites.end(), [](const ReportSite& a, const ReportSite& b) {
      return a.bytes != b.bytes ? a.bytes > b.bytes : a.calls > b.calls;
    });
    r.findings.push_back(std::move(f));
  }
  std::stable_sort(r.findings.begin(), r.findings.end(), [](const Finding& a, const Finding& b) {
    return a.estimated_seconds != b.estimated_seconds ? a.estimated_seconds > b.estimated_seconds
                                                      : a.bytes > b.bytes;
  });
  if (collected.images.empty()) {
    r.notes.push_back(
        "no process image recorded anything: the preload was not loaded (a set-user-ID program, "
        "or one that clears LD_PRELOAD)");
  }
  if (plain_copy_bytes > 0) {
    r.notes.push_back(
        std::to_string(plain_copy_bytes) +
        " bytes went through user space between descriptors zerolab::copy_fd has no "
        "kernel path for (a tty, a character device such as /dev/null): not counted as waste");
  }
  if (collected.sites_dropped > 0) {
    r.notes.push_back(std::to_string(collected.sites_dropped) +
                      " events had no room in the site table (4096 sites per process): their "
                      "totals are counted, their sites are not");
  }
  // Sites named by an address: their module has no symbol there (stripped,
  // no debug file), so no wrapper list or --skip-frame can match that frame.
  std::size_t unnamed = 0;
  std::string example;
  for (const Finding& f : r.findings) {
    for (const ReportSite& s : f.sites) {
      if (!s.file.empty() || s.function.find("+0x") == std::string::npos) continue;
      ++unnamed;
      if (example.empty()) example = s.function;
    }
  }
  if (unnamed > 0) {
    r.notes.push_back(
        std::to_string(unnamed) + (unnamed == 1 ? " site is" : " sites are") +
        " named by an address (" + example +
        "): its module has no symbol for that frame (stripped, and no debug file found), so an "
        "allocation wrapper there cannot be recognised and the site may be the wrapper, not its "
        "caller. Install the module's debug symbols (Debian: its -dbgsym package), or skip the "
        "frame by its address with --skip-frame");
  }
  if (collected.frame_untracked > 0) {
    r.notes.push_back(std::to_string(collected.frame_untracked) +
                      " sampled allocations were not tracked (the frame table keeps the latest "
                      "18 of each thread, for 227 threads at once): "
                      "temporary-allocations-in-frame misses those, and is not exact");
  }
  r.unrecorded_children = collected.unrecorded_children;
  if (!collected.unrecorded_children.empty() || collected.unrecorded_children_dropped > 0) {
    std::string list;
    for (const UnrecordedChild& c : collected.unrecorded_children) {
      list += (list.empty() ? "" : "; ") + std::string("pid ") + std::to_string(c.pid) + ": " +
              c.command;
    }
    const std::size_t n =
        collected.unrecorded_children.size() + collected.unrecorded_children_dropped;
    r.notes.push_back(
        std::to_string(n) + " child process" + (n == 1 ? "" : "es") +
        " ran without the preload (started with an environment that dropped "
        "LD_PRELOAD or ZEROLAB_WASTE_DIR), so their waste is not in this report: " +
        list +
        (collected.unrecorded_children_dropped > 0
             ? "; and " + std::to_string(collected.unrecorded_children_dropped) + " more"
             : ""));
  }
  r.blind_spots = {
      "memsets the compiler inlines (a small constant size at -O2) never reach the preload: "
      "build with -fno-builtin-memset, or zero through zerolab::zero_fill (its fills of more "
      "than 64 bytes are seen), to count them",
      "copies through stdio calls other than fread/fwrite (fgets, getline, fputs, printf) and "
      "through other libraries' internal calls are not seen: only the read/write/send/recv "
      "family and fread/fwrite calls the program makes itself are",
      "oversized-buffers judges the pages a block's memory ever touched: a large block on "
      "reused heap pages looks touched, so it is not reported even if its bytes went unused",
      "programs started without the environment zerolab waste set (a static or set-user-ID "
      "program, a raw execve system call) are not recorded; those started through exec or "
      "posix_spawn with an environment that drops the preload are listed"};
  if (collected.large_untracked > 0) {
    r.notes.push_back(std::to_string(collected.large_untracked) +
                      " blocks of 16 KiB or more were not tracked (more than 32768 live at once): "
                      "oversized-buffers may miss some");
  }
  return r;
}

std::string render_report(const Report& report, WasteFormat format) {
  switch (format) {
    case WasteFormat::kJson:
      return render_json(report);
    case WasteFormat::kMarkdown:
      return render_markdown(report);
    case WasteFormat::kHtml:
      return render_html(report);
    case WasteFormat::kText:
      break;
  }
  return render_text(report);
}

std::string failed_threshold(const Report& report, const std::vector<FailOn>& fail_on) {
  for (const FailOn& f : fail_on) {
    double bytes = 0;
    for (const Finding& finding : report.findings) {
      if (!f.kind || *f.kind == finding.kind) bytes += finding.bytes;
    }
    const auto reached = static_cast<std::uint64_t>(std::llround(bytes));
    if (reached > 0 && reached >= f.bytes) {
      return std::string(f.kind ? kind_name(*f.kind) : "any") + "=" + std::to_string(f.bytes) +
             " reached (" + std::to_string(reached) + " bytes)";
    }
  }
  return "";
}

}  // namespace zerolab::waste
