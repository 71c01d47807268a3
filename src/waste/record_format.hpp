// The record a process running under zerolab::waste (the LD_PRELOAD library
// of `zerolab waste`) leaves behind: one file per process image, mapped
// MAP_SHARED by the preload and updated in place, so every count survives
// however the process ends (exit, _exit, exec, a signal, SIGKILL). The CLI
// reads the files once the program has exited (tools/zerolab/cmd_waste*).
//
// File name: $ZEROLAB_WASTE_DIR/<pid>.<n>.rec, n = 0, 1, ... (an exec keeps
// the pid, so each image takes the next free n). Layout: one Record, fixed
// size; the preload and the CLI are built from the same tree, so the layout
// is checked only by magic, version and size.
//
// Exactness: totals are exact counts, kept per thread (ThreadSlot: no atomic
// read-modify-write on the allocation path); sites carry sampled
// stacks with either exact or weighted counts, as each Kind says.
//
// Example (the CLI side):
//   const Record* r = ...mmap of a .rec file...;
//   if (r->magic == kRecordMagic && r->version == kRecordVersion) {
//     uint64_t temp = 0;
//     for (const ThreadSlot& s : r->slots) temp += s.temp_calls.load();   // one per thread
//   }
#ifndef ZEROLAB_SRC_WASTE_RECORD_FORMAT_HPP_
#define ZEROLAB_SRC_WASTE_RECORD_FORMAT_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace zerolab::waste {

inline constexpr std::uint64_t kRecordMagic = 0x315453415742'5a4cULL;  // "LZBWAST1"
inline constexpr std::uint32_t kRecordVersion = 7;

// Environment the CLI hands the preload.
inline constexpr const char* kEnvDir = "ZEROLAB_WASTE_DIR";                 // where .rec files go
inline constexpr const char* kEnvSampleRate = "ZEROLAB_WASTE_SAMPLE_RATE";  // bytes, >= 1
inline constexpr const char* kEnvCheckRate = "ZEROLAB_WASTE_CHECK_RATE";    // bytes, >= 1
inline constexpr const char* kEnvFollow = "ZEROLAB_WASTE_FOLLOW";  // "0": not into children
// Benchmarks only (bench/waste/overhead.sh): the deepest stack captured,
// 1..kMaxFrames (default kMaxFrames), to price full stacks against short ones.
inline constexpr const char* kEnvMaxFrames = "ZEROLAB_WASTE_MAX_FRAMES";

inline constexpr int kMaxFrames = 40;                    // deepest stack a site keeps
inline constexpr std::uint32_t kMaxSites = 4096;         // per process image
inline constexpr std::uint32_t kThreadSlots = 511;       // + slot 0, shared by the rest
inline constexpr std::uint32_t kThreadNameBytes = 16;    // a thread's name (comm), NUL included
inline constexpr std::uint32_t kMapsBytes = 128 * 1024;  // executable mappings text
inline constexpr std::uint64_t kLargeBlock = 16 * 1024;  // oversized-buffer candidates
inline constexpr std::uint64_t kPageBytes = 4096;
inline constexpr std::uint32_t kCommandBytes = 2048;  // the command line a record keeps

enum class Kind : std::uint32_t {
  kZeroedFreshPages = 0,      // memset 0 over never-touched anonymous pages (exact)
  kZeroedZeros = 1,           // memset 0 over zero bytes (sampled by --check-rate)
  kTemporaryAllocations = 2,  // freed before the thread's next allocation (exact; sites sampled)
  kOversizedBuffers = 3,  // >= 16 KiB, fewer than half its bytes on touched pages at free (exact)
  kUserSpaceCopies = 4,   // read bytes written unchanged to another descriptor (exact)
  kTemporaryInFrame = 5,  // freed before the allocating function returned (sampled)
};
inline constexpr int kKindCount = 6;

// kTcp: a peer on another host; kTcpLoopback: on this one (loopback or one
// of this host's addresses); kUnix: AF_UNIX stream sockets only.
enum class FdType : std::uint8_t { kFile, kPipe, kTcp, kUdp, kUnix, kTty, kOther, kTcpLoopback };
inline constexpr int kFdTypeCount = 8;

// One thread slot's totals (fetch_add; each event here costs a system call
// or a sample anyway). The process's totals are the sum over its slots.
struct Totals {
  std::atomic<std::uint64_t> fresh_calls;         // memsets that hit >= 1 fresh page
  std::atomic<std::uint64_t> fresh_bytes;         // their bytes on fresh pages
  std::atomic<std::uint64_t> fresh_pages;         // fresh pages they touched
  std::atomic<std::uint64_t> zero_samples;        // sampled bytes of zero_bytes
  std::atomic<std::uint64_t> zero_hits;           // of those, bytes whose 64-byte line read as zero
  std::atomic<std::uint64_t> zero_sampled_calls;  // calls with >= 1 sample
  std::atomic<std::uint64_t> zero_hit_calls;      // calls with >= 1 zero sample
  // Those calls, each weighted by 1/P(the call was sampled), in 1/1024ths:
  // P = 1 - exp(-checked bytes / --check-rate), so small calls, rarely
  // sampled, count for many (1 each at --check-rate 1).
  std::atomic<std::uint64_t> zero_hit_weight_1024;
  std::atomic<std::uint64_t> over_calls;       // oversized blocks freed
  std::atomic<std::uint64_t> over_bytes;       // their requested bytes
  std::atomic<std::uint64_t> over_touched;     // of which on touched pages
  std::atomic<std::uint64_t> large_blocks;     // blocks >= kLargeBlock freed (oversized or not)
  std::atomic<std::uint64_t> large_untracked;  // large blocks the live table had no room for
  std::atomic<std::uint64_t> copy_calls[kFdTypeCount][kFdTypeCount];  // [source][destination]
  std::atomic<std::uint64_t> copy_bytes[kFdTypeCount][kFdTypeCount];
  std::atomic<std::uint64_t> sites_dropped;    // events whose site did not fit in the table
  std::atomic<std::uint64_t> frame_untracked;  // sampled blocks the frame table had no room for
};

// One thread's counters: the hot ones written only by the thread that owns
// the slot (slot 0: by every thread without one, with fetch_add), and the
// thread's Totals. A slot is given to one thread for good while unused
// slots remain; past kThreadSlots threads, the slots of threads that
// exited are handed out again (`threads` counts them).
struct alignas(64) ThreadSlot {
  std::atomic<std::uint64_t> owned;       // 1 while a live thread owns it
  std::atomic<std::uint64_t> temp_calls;  // temporary allocations
  std::atomic<std::uint64_t> temp_bytes;  // their requested bytes
  std::atomic<std::uint64_t> zero_calls;  // memset/bzero of 0 over non-fresh bytes
  std::atomic<std::uint64_t> zero_bytes;  // their bytes (the population --check-rate samples)
  std::atomic<std::int64_t> tid;          // the first thread that owned it (slot 0: 0)
  std::atomic<std::uint32_t> threads;     // threads that have owned it (> 1: reused)
  char name[kThreadNameBytes];            // the owner's name (comm), as last looked at
  Totals totals;
};

// A call site: one stack (return addresses, innermost first, the preload's
// own frames included; the CLI cuts them) and what happened there.
//   fresh pages:   calls, bytes, extra = pages                 (exact), dst as zeroed zeros
//   zeroed zeros:  calls = calls with a zero sample, bytes = zero sampled bytes (scaled by the
//                  CLI), extra = those calls weighted as Totals::zero_hit_weight_1024,
//                  dst = the ZeroSource of the fill (safe to drop unless its memset call
//                  is in Record::zero_unsafe_callers)
//   temporary:     calls, bytes (weighted by the allocation sampler; exact at --sample-rate 1),
//                  extra = samples (allocations whose stacks were kept)
//   in frame:      calls, bytes, extra (as temporary), src = index of the innermost frame
//                  still live at the free (the CLI decides which frame is the site)
//   oversized:     calls, bytes = requested, extra = touched   (exact)
//   copies:        calls, bytes, src/dst = FdType              (exact)
struct Site {
  std::atomic<std::uint64_t> key;    // 0 empty, else hash | 1 (odd); set once
  std::atomic<std::uint32_t> ready;  // 1 once kind/depth/pcs are written
  std::uint32_t kind;
  std::uint32_t depth;
  std::uint8_t src;
  std::uint8_t dst;
  std::uint16_t thread;  // in frame only: the ThreadSlot index of the freeing thread (else 0)
  std::uint8_t pad[4];
  std::uint64_t pcs[kMaxFrames];
  std::atomic<std::uint64_t> calls;
  std::atomic<std::uint64_t> bytes;
  std::atomic<std::uint64_t> extra;
};

// Where a zero fill's bytes were known to be zero before it ran: the
// allocator handed them out zeroed to this thread, and every byte still
// read as zero at the fill (preload_zero.cpp).
enum class ZeroSource : std::uint8_t {
  kNone = 0,      // no allocator says so: zero by coincidence, if zero
  kCalloc = 1,    // the block calloc just returned (no allocation or free since)
  kPageHeap = 2,  // a span zerolab::PageHeap::allocate(n, Zero::kYes) handed out
};

// The return addresses of zero fills some call of which was not over
// memory known zero (ZeroSource::kNone, or a byte not zero): a site whose
// memset call is one of these is not safe to drop, whatever its other calls
// were. Open addressing on the address; when it is full
// (zero_unsafe_full), no site is safe.
inline constexpr std::uint32_t kZeroCallers = 8192;

// A child started without the preload (its environment dropped it):
// preload_exec.cpp. pid 0: an exec that failed took its entry back.
inline constexpr std::uint32_t kMaxLostChildren = 32;
struct LostChild {
  std::int64_t pid;
  char command[248];  // path and arguments, space separated, cut to fit
};

struct Record {
  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t record_bytes;  // sizeof(Record)
  std::int64_t pid;
  std::int64_t ppid;
  std::uint64_t sample_rate;
  std::uint64_t check_rate;
  std::int64_t start_ns;  // CLOCK_MONOTONIC at the preload's start
  char exe[1024];         // /proc/self/exe at start
  char preload[1024];     // this library's path (its frames are cut)
  // /proc/self/cmdline at start: the arguments, each ended by a NUL (cut at
  // kCommandBytes; cmdline_length counts the bytes kept).
  std::uint32_t cmdline_length;
  char cmdline[kCommandBytes];
  // Executable mappings ("start-end perms offset dev inode path" lines of
  // /proc/self/maps), refreshed whenever a new site is added; two buffers,
  // maps_current names the complete one.
  std::atomic<std::uint32_t> maps_current;
  std::uint32_t maps_length[2];
  char maps[2][kMapsBytes];
  ThreadSlot slots[kThreadSlots + 1];
  Site sites[kMaxSites];
  std::atomic<std::uint32_t> lost_count;  // children noted (may exceed kMaxLostChildren)
  LostChild lost[kMaxLostChildren];
  std::atomic<std::uint32_t> zero_unsafe_full;
  std::atomic<std::uint64_t> zero_unsafe_callers[kZeroCallers];  // 0: empty
};

}  // namespace zerolab::waste

#endif  // ZEROLAB_SRC_WASTE_RECORD_FORMAT_HPP_
