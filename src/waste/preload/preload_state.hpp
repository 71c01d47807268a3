// The shared state of zerolab::waste, the LD_PRELOAD library behind
// `zerolab waste -- PROGRAM`: the mapped record of this process image
// (record_format.hpp), each thread's state, call sites, and the raw system
// calls the hooks use so they never re-enter themselves.
//
// The hooks live one family per file: preload_alloc.cpp (malloc family:
// temporary allocations, oversized buffers), preload_zero.cpp (memset and
// bzero: zeroed fresh pages, zeroed zeros), preload_copy.cpp (read/write
// family: copies through user space), preload_maps.cpp (mmap, munmap, mremap:
// keeps the anonymous-mapping cache honest). preload_state.cpp starts and
// forks the record and adds sites.
//
// Hot-path rule: a hook reads `g_active` and the thread's state, does a few
// compares and adds, and calls into the slow path only for a sampled event,
// a large block, a page-sized memset or a copy. The slow paths set
// ThreadState::in_hook, so whatever they call (the unwinder, pthread
// functions) is passed straight to libc.
//
// Example (a hook):
//   extern "C" void* malloc(size_t n) {
//     void* p = __libc_malloc(n);
//     if (p != nullptr) zerolab::waste::note_alloc(p, n);   // preload_alloc.cpp
//     return p;
//   }
#ifndef ZEROLAB_SRC_WASTE_PRELOAD_STATE_HPP_
#define ZEROLAB_SRC_WASTE_PRELOAD_STATE_HPP_

#include <sys/types.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "waste/record_format.hpp"

#define ZEROLAB_WASTE_EXPORT extern "C" __attribute__((visibility("default")))
#define ZEROLAB_WASTE_TLS __attribute__((tls_model("initial-exec")))

namespace zerolab::waste {

inline constexpr int kSizeClasses = 64;  // bit lengths of a size_t
// A block's size class: the bit length of its size (60 -> 6, 4096 -> 13),
// 1 for 0, at most 63.
inline int size_class(std::uint64_t n) {
  const int bits = 64 - __builtin_clzll(n | 1);
  return bits < kSizeClasses ? bits : kSizeClasses - 1;
}
// The size class's bit in ThreadState::fast_classes: size_class(n) - 1
// below class 63 (one bsr).
inline int class_bit(std::uint64_t n) {
  return 63 - __builtin_clzll(n | 1);
}
// The class of the large blocks (kLargeBlock and up): its bit and the
// ones above are never set in fast_classes, so free's fast path never
// sees a large block (the live table must judge it).
inline constexpr int kLargeClass = 15;
static_assert(kLargeBlock == std::uint64_t{1} << (kLargeClass - 1));
// ThreadState::last_size of a sampled allocation: no allocation is this
// big, and its bit (63) is never set in fast_classes.
inline constexpr std::uint64_t kSampledSize = ~std::uint64_t{0};

// The most allocations and frees of its thread a block may live through
// and still be a temporary in its allocating frame (preload_frame.cpp).
inline constexpr std::uint64_t kShortLifetimeEvents = 16;
// Sampled blocks per thread the frame table keeps: a block that
// kShortLifetimeEvents + 1 later sampled allocations of its thread have
// followed is long-lived whenever it is freed (each of them is an event).
inline constexpr int kYoungBlocks = static_cast<int>(kShortLifetimeEvents) + 2;
// Threads whose young blocks the frame table holds at once.
inline constexpr int kMaxTrackedThreads = 227;

// What a thread remembers about its last read (copies through user space):
// the ranges it filled and a hash of every chunk of them, so a later write
// is counted as a copy only if its bytes are the bytes read (preload_copy.cpp).
struct ReadMemory {
  static constexpr int kSegments = 4;
  static constexpr int kChunks = 64;  // hashes kept per read, over all its segments
  int fd;
  int segments;
  std::uintptr_t begin[kSegments];
  std::uintptr_t end[kSegments];
  int first_chunk[kSegments];  // index of the segment's first chunk in chunk_hash
  std::uint64_t chunk_bytes;   // a power of two >= 4096: the read's bytes fit in kChunks chunks
  std::uint64_t chunk_hash[kChunks];
};

struct ThreadState {
  // What malloc and free read and write on their fast paths, together at
  // the start (one cache line).
  // The hot path's one test: the thread's own counter slot while it may
  // count (the record is live, the thread owns a slot, no slow path runs);
  // nullptr sends every event through the checks of the slow path.
  ThreadSlot* armed;
  std::uint64_t events;  // the thread's allocations and frees so far (a lifetime clock)
  // The thread's most recent allocation until it is freed, then kNoBlock:
  // null only until the thread's first allocation.
  void* last_alloc;
  // Its requested size, or kSampledSize if it was sampled (its size is then
  // in sampled_size, its stack in last_pcs, its weight in last_weight).
  std::uint64_t last_size;
  // malloc's fast path: an allocation of at most alloc_budget bytes is
  // neither sampled nor large, and is subtracted; a larger one (the
  // subtraction borrows) takes the slow path. The bytes to the next
  // sampled allocation are alloc_countdown + alloc_budget + 1
  // (set_alloc_countdown).
  std::uint64_t alloc_budget;
  // Bit c - 1 set: size class c counts every temporary (temp_seen[c] is 2)
  // and holds no large blocks (c < kLargeClass). free() counts a temporary
  // itself only if its class's bit is set (bit_index(last_size)).
  std::uint64_t fast_classes;
  ThreadSlot* slot;  // nullptr until the thread's first counted event
  bool slot_shared;  // slot 0: add with fetch_add
  bool detached;     // the thread's exit destructor ran: slot 0 from now on
  int in_hook;       // > 0 while a slow path runs: nested calls are not looked at
  // Allocations.
  // Temporaries repeat: per size class (bit length of the size), 0 none
  // seen yet, 1 one seen and held back (its bytes in temp_pending), 2 counting.
  std::uint8_t temp_seen[kSizeClasses];
  std::uint64_t temp_pending[kSizeClasses];
  // The held-back block's site and weighted counts, if it was sampled.
  Site* temp_pending_site[kSizeClasses];
  std::uint64_t temp_pending_site_calls[kSizeClasses];
  std::uint64_t temp_pending_site_bytes[kSizeClasses];
  std::uint64_t sampled_size;  // the size of a sampled last_alloc
  double last_weight;
  int last_depth;
  std::uint64_t last_pcs[kMaxFrames];
  void* calloc_block;  // the thread's latest calloc block (fresh while events is calloc_events)
  std::uint64_t calloc_bytes;
  std::uint64_t calloc_events;
  void* heap_span;  // the latest span zerolab::PageHeap handed this thread zeroed (or null)
  std::uint64_t heap_bytes;
  // Return addresses of zero fills this thread put in Record::zero_unsafe_callers
  // (direct-mapped by address): a repeated call is one compare.
  std::uint64_t unsafe_callers[16];
  std::int64_t alloc_countdown;  // bytes to the next sample beyond alloc_budget + 1
  std::int64_t zero_countdown;   // bytes to the next content check
  bool countdowns_set;
  std::uint64_t rng;
  // Temporaries in the allocating frame (preload_frame.cpp): as temp_seen,
  // and the held-back block's site and weighted counts.
  std::uint8_t frame_seen[kSizeClasses];
  Site* frame_pending_site[kSizeClasses];
  std::uint64_t frame_pending_calls[kSizeClasses];
  std::uint64_t frame_pending_bytes[kSizeClasses];
  std::uint64_t serial;  // 0 until the thread's first sampled allocation
  // The thread's latest kYoungBlocks sampled allocations (address, `events`
  // at the allocation), oldest at young_next: a block older than these can
  // no longer be short-lived, so it leaves the frame table (preload_frame.cpp).
  std::uintptr_t young_address[kYoungBlocks];
  std::uint64_t young_events[kYoungBlocks];
  int young_next;
  std::uintptr_t stack_lo;  // the thread's stack, [lo, hi); 0 until looked up
  std::uintptr_t stack_hi;
  ReadMemory read;
};

extern std::atomic<bool> g_active;  // the record is mapped and hooks may count
extern Record* g_record;
extern std::uint64_t g_sample_rate;
extern std::uint64_t g_check_rate;
extern bool g_follow;  // children are to run with the preload ($ZEROLAB_WASTE_FOLLOW != "0")
extern constinit ZEROLAB_WASTE_TLS thread_local ThreadState t_state;

// The calling thread's counter slot (claims one on first use).
ThreadSlot& thread_slot(ThreadState& t);
// The calling thread's Totals (its slot's; claims one on first use).
inline Totals& thread_totals(ThreadState& t) {
  return thread_slot(t).totals;
}
// The index of the calling thread's slot in the record (0: the shared one).
std::uint16_t thread_slot_index(ThreadState& t);
// Reads every live slot owner's name again (/proc/self/task/TID/comm): at
// exit, before an exec, after the program renamed a thread.
void refresh_thread_names();
// Sets t.armed if the thread owns a slot (claims one first).
// REQUIRES: g_active, t.in_hook == 0.
void arm(ThreadState& t);
// Adds to a slot counter: a plain store for an owned slot, fetch_add for slot 0.
inline void slot_add(const ThreadState& t, std::atomic<std::uint64_t>& counter, std::uint64_t v) {
  if (t.slot_shared) {
    counter.fetch_add(v, std::memory_order_relaxed);
  } else {
    counter.store(counter.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
  }
}

// An exponentially distributed byte count with mean `rate` (1 when rate is 1).
std::int64_t draw_countdown(ThreadState& t, std::uint64_t rate);
// Sets the bytes to the thread's next sampled allocation (>= 1): the first
// min(bytes, kLargeBlock) - 1 go to malloc's fast-path budget.
inline void set_alloc_countdown(ThreadState& t, std::int64_t bytes) {
  constexpr auto kLarge = static_cast<std::int64_t>(kLargeBlock);
  const std::int64_t fast = bytes < kLarge ? bytes : kLarge;
  t.alloc_budget = static_cast<std::uint64_t>(fast - 1);
  t.alloc_countdown = bytes - fast;
}
// The bytes to the thread's next sampled allocation (alloc_budget may have
// wrapped below zero: the allocation that took the slow path is subtracted).
inline std::int64_t alloc_countdown_left(const ThreadState& t) {
  return t.alloc_countdown + static_cast<std::int64_t>(t.alloc_budget) + 1;
}
void set_countdowns(ThreadState& t);

// The calling thread's return addresses, innermost first (this function's
// frames included), and if `cfas` is given each frame's CFA. Returns the depth.
int capture_stack(std::uint64_t* pcs, int max, std::uint64_t* cfas = nullptr);

// The site for this kind and stack (and descriptor pair), added if new;
// nullptr when the table is full (counted in Totals::sites_dropped).
// `thread`: Site::thread (a slot index; in-frame sites only, else 0).
Site* find_or_add_site(Kind kind, const std::uint64_t* pcs, int depth, FdType src = FdType::kFile,
                       FdType dst = FdType::kFile, std::uint16_t thread = 0);

// The calling thread's stack, [lo, hi), as pthread_getattr_np gives it, if
// the thread is the one the preload started on (the process's initial
// thread): found in the /proc/self/maps read that also refreshes the
// record's snapshot, where pthread_getattr_np would read the maps through
// stdio on its own. False for any other thread, or if the maps cannot be read.
bool initial_thread_stack(std::uintptr_t& lo, std::uintptr_t& hi);

// Present bits from /proc/self/pagemap for the pages [first_page,
// first_page + count): out[i] = true if page i is present or swapped.
// Returns false if pagemap cannot be read.
bool pages_touched(std::uintptr_t first_page, std::size_t count, bool* out);

// True if [begin, end) lies in one anonymous private writable mapping
// (cached; read again after note_mappings_changed()).
bool anonymous_private(std::uintptr_t begin, std::uintptr_t end);
// The program mapped, unmapped or moved memory (preload_maps.cpp).
extern std::atomic<std::uint64_t> g_maps_generation;
inline void note_mappings_changed() {
  g_maps_generation.fetch_add(1, std::memory_order_relaxed);
}

// System calls that bypass the preload's own read/write hooks.
ssize_t raw_read(int fd, void* buf, std::size_t n);
ssize_t raw_pread(int fd, void* buf, std::size_t n, off_t offset);

// RAII: marks the thread as inside a slow path (and disarms its hot path),
// and gives the program back its errno: the system calls of a slow path
// (pagemap, /proc/self/maps, fstat) must not show through a malloc, memset
// or write that succeeded.
class InHook {
 public:
  explicit InHook(ThreadState& t) : t_(t), armed_(t.armed), errno_(errno) {
    ++t_.in_hook;
    t_.armed = nullptr;
  }
  ~InHook() {
    --t_.in_hook;
    t_.armed = armed_;
    errno = errno_;
  }
  InHook(const InHook&) = delete;
  InHook& operator=(const InHook&) = delete;

 private:
  ThreadState& t_;
  ThreadSlot* armed_;
  int errno_;
};

// A spin lock that is safe to take inside malloc (never allocates).
class SpinLock {
 public:
  void lock();
  void unlock() { flag_.store(false, std::memory_order_release); }
  void reset() { flag_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<bool> flag_{false};
};

// Fork support for the allocation hooks' live-block table.
void alloc_fork_prepare();
void alloc_fork_parent();
void alloc_fork_child();

// Temporaries in the allocating frame (preload_frame.cpp). A sampled
// allocation of `n` bytes at `p` with its stack (and the frames' CFAs):
void frame_note_sampled(ThreadState& t, void* p, std::size_t n, double weight,
                        const std::uint64_t* pcs, const std::uint64_t* cfas, int depth);
// Before `p` goes back to glibc (or is resized: `resized`, not judged).
void frame_note_free(ThreadState& t, void* p, bool resized);
// The thread exits: its young blocks leave the frame table.
void frame_thread_exit(ThreadState& t);
void frame_fork_prepare();
void frame_fork_parent();
void frame_fork_child();

}  // namespace zerolab::waste

#endif  // ZEROLAB_SRC_WASTE_PRELOAD_STATE_HPP_
