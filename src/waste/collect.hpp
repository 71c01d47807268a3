// `zerolab waste`: reads the records the preload left in the run directory
// (src/waste/record_format.hpp, one per process image) and sums them into
// one Collected: exact totals per kind, the copy pairs, and every call site
// with its stack as symbolizer ids (the preload's own frames cut).
//
// Zeroed zeros are sampled: each image's hit bytes are scaled by its
// population (bytes zero-filled on touched pages) over its samples, and its
// calls are the sampled calls weighted by 1/P(sampled), so the totals and
// sites of that kind are estimates (exact at --check-rate 1).
//
// Example:
//   Symbolizer sym;
//   Collected c;
//   std::string error;
//   if (!collect_records("/tmp/zerolab-waste.XYZ", sym, c, error)) ...;
//   sym.resolve(false);
//   c.totals[int(WasteKind::kTemporaryAllocations)].calls   // exact
#ifndef ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_COLLECT_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_COLLECT_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "profile/symbolizer.hpp"
#include "waste/flags.hpp"

namespace zerolab::waste {

// The profilers' symbolizer (profile/symbolizer.hpp) names waste's sites too.
using internal::profile::Frame;
using internal::profile::MapEntry;
using internal::profile::parse_maps;
using internal::profile::ResolvedPc;
using internal::profile::runtime_module;
using internal::profile::Symbolizer;

inline constexpr int kFdTypes = 8;  // record_format.hpp's FdType
// "file", "pipe", "tcp", "udp", "unix", "tty", "other", "tcp-loopback".
const char* fd_type_name(int type);

struct ProcessImage {
  long pid = 0;
  long ppid = 0;
  std::string exe;
  std::vector<std::string> command;  // its arguments (argv), as it started
  std::string record;                // the record's file name, "<pid>.<n>.rec"
};

// A child that ran without the preload (its environment dropped it).
struct UnrecordedChild {
  long pid = 0;
  std::string command;  // path and arguments, as the exec or spawn call had them (cut)
};

// Which thread a per-thread collection is (Collected::thread).
struct ThreadInfo {
  int slot = -1;         // the record's thread slot; 0: threads without a slot of their own
  long tid = 0;          // the first thread that had the slot (0 for slot 0)
  std::string name;      // its name (comm) as last read: at its exit, the image's, or a rename
  unsigned threads = 0;  // threads that had the slot: > 1 after the program ran past 511
};

struct SiteRecord {
  WasteKind kind{};
  int src = 0;  // copies: FdType of the source and destination; in frame: innermost live frame
  int dst = 0;
  std::vector<int> stack;  // Symbolizer ids, innermost first
  bool truncated = false;  // the preload kept kMaxFrames frames: the outermost may be missing
  double calls = 0;
  double bytes = 0;
  double extra = 0;  // fresh pages: pages; oversized: touched bytes
  // Sampled sites: the samples behind calls and bytes (temporaries: the
  // sampled allocations; zeroed zeros: the zero samples). 0: exact counts.
  double samples = 0;
};

struct KindTotals {
  double calls = 0;
  double bytes = 0;
  double extra = 0;    // as SiteRecord::extra
  double samples = 0;  // as SiteRecord::samples, for totals that are sums of samples
};

struct Collected {
  std::vector<ProcessImage> images;
  KindTotals totals[kWasteKinds];
  std::uint64_t zero_population = 0;  // bytes zero-filled on touched pages
  std::uint64_t zero_samples = 0;     // of which sampled
  std::uint64_t zero_hits = 0;        // of the samples, those that read zero
  std::uint64_t copy_calls[kFdTypes][kFdTypes] = {};
  std::uint64_t copy_bytes[kFdTypes][kFdTypes] = {};
  std::uint64_t large_blocks = 0;
  std::uint64_t large_untracked = 0;
  std::uint64_t frame_untracked = 0;  // sampled blocks the frame table had no room for
  std::uint64_t sites_dropped = 0;
  std::vector<SiteRecord> sites;
  std::vector<UnrecordedChild> unrecorded_children;
  std::uint64_t unrecorded_children_dropped = 0;  // past the record's list
  // Per-image collections only: each thread's share, as a collection of
  // its own (`thread` says which; its sites are its in-frame sites alone).
  ThreadInfo thread;
  std::vector<Collected> per_thread;
};

// Reads every <pid>.<n>.rec in `dir`. False with `error` only if the
// directory cannot be read; unreadable or partial records are skipped.
// With `per_image`, each image is also collected alone into its own
// Collected there (in out.images' order), each with its threads' shares
// (Collected::per_thread).
bool collect_records(const std::string& dir, Symbolizer& symbols, Collected& out,
                     std::string& error, std::vector<Collected>* per_image = nullptr);

}  // namespace zerolab::waste

#endif  // ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_COLLECT_HPP_
