// The counting core of zerolab::alloc_hooks, shared by the files CMake
// picks for the build's mode (src/CMakeLists.txt):
//   counters.cpp        always: per-thread counter blocks, heap tracking,
//                       sampling, the C interface (hooks_abi.h)
//   interpose.cpp       normal builds: malloc ... and operator new/delete
//                       defined here, forwarding to glibc's __libc_* entries
//   sanitizer_feed.cpp  ASan/TSan builds: the runtime's malloc/free hooks
//   asan_fixups.cpp     ASan: thread set-up allocations kept out
//   tsan_fixups.cpp     TSan: the allocation calls whose hooks TSan runs
//                       differently (memalign family, realloc, reallocarray)
// Each mode's files define the functions declared under "per mode" below.
// The counting rules, the design and the thread-safety are described in
// counters.cpp; the hot path (count_alloc, note_alloc, note_free) is here,
// inline, so the allocator entry points compile to a TLS load and two
// relaxed stores.
//
// Example (an allocator entry point of a mode file):
//   void* p = __libc_malloc(n);
//   if (p != nullptr) note_alloc(p, n, __builtin_return_address(0));
#ifndef ZEROLAB_SRC_ALLOC_HOOKS_HOOKS_STATE_HPP_
#define ZEROLAB_SRC_ALLOC_HOOKS_HOOKS_STATE_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "alloc_hooks/hooks_abi.h"

namespace zerolab::internal::alloc_hooks {

constexpr std::size_t kCacheLine = 64;

// One thread's counters, on a cache line of its own. Only the owning thread
// writes allocs_/bytes_ (the shared block is the exception: fetch_add).
// next_ is set before the block is published and never changes afterwards.
struct alignas(kCacheLine) CounterBlock {
  std::atomic<std::uint64_t> allocs_{0};
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<std::uint32_t> owned_{0};  // 1 while a live thread owns it
  CounterBlock* next_ = nullptr;
};
static_assert(sizeof(CounterBlock) == kCacheLine);

// Per-thread state. Trivial and constant-initialised, so the initial-exec
// access compiles to one %fs-relative load with no guard or wrapper call.
struct ThreadState {
  CounterBlock* active_;  // where to count; nullptr sends the thread to the slow path
  CounterBlock* owned_;   // the claimed block, or nullptr
  int pause_depth_;
  bool detached_;               // exit destructor ran or mmap failed: use the shared block
  bool resolving_;              // interpose: inside the malloc_usable_size lookup
  bool malloc_hook_seen_;       // TSan: set by every malloc hook call (tsan_fixups.cpp)
  const void* realloc_ptr_;     // TSan: the pointer a realloc wrapper is moving
  std::int64_t realloc_freed_;  // TSan: its usable size, untracked after the call
  std::uint64_t sample_left_;   // bytes until the next sampled allocation
  std::uint64_t sample_epoch_;  // the sampler installation sample_left_ belongs to
  std::uint64_t sample_rng_;    // xorshift state for the exponential draws
};

extern constinit thread_local ThreadState t_state __attribute__((tls_model("initial-exec")));

struct alignas(kCacheLine) HeapTracking {
  std::atomic<bool> on_{false};  // read by every free(); written only on toggles
  alignas(kCacheLine) std::atomic<std::int64_t> growth_{0};
  std::atomic<std::int64_t> peak_{0};
};

// The installed allocation sampler (hooks_abi.h). alloc_on_ and free_on_ are
// read by every allocation and free; the rest only when they are set.
struct alignas(kCacheLine) Sampler {
  std::atomic<bool> alloc_on_{false};  // installed and turned on
  std::atomic<bool> free_on_{false};   // installed
  std::atomic<bool> wanted_{false};    // zerolab_alloc_hooks_sampling's last value
  std::atomic<zerolab_alloc_sample_fn> on_alloc_{nullptr};
  std::atomic<zerolab_free_sample_fn> on_free_{nullptr};
  std::atomic<std::uint64_t> rate_{1};
  std::atomic<std::uint64_t> epoch_{0};  // bumped by every installation
};

extern constinit HeapTracking g_heap;
extern constinit Sampler g_sampler;

// ---- counters.cpp ------------------------------------------------------------

// First allocation of a thread, a paused thread, or a detached one.
bool count_alloc_slow(std::size_t bytes) noexcept;
void heap_add(std::int64_t delta) noexcept;
void heap_note_alloc(void* p) noexcept;
void heap_note_free(void* p) noexcept;
void sample_alloc(void* p, std::size_t n, void* caller) noexcept;
void sample_free(void* p) noexcept;
// What pvalloc(n) counts: n rounded up to a page, one page for 0.
std::size_t pvalloc_bytes(std::size_t n) noexcept;

inline std::int64_t signed_size(std::size_t n) noexcept {
  return static_cast<std::int64_t>(n);
}

inline void bump_owned(CounterBlock& b, std::size_t bytes) noexcept {
  b.allocs_.store(b.allocs_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  b.bytes_.store(b.bytes_.load(std::memory_order_relaxed) + bytes, std::memory_order_relaxed);
}

// Counts one allocation of n requested bytes; false if the thread is paused.
inline bool count_alloc(std::size_t n) noexcept {
  const std::size_t bytes = n + (n == 0);  // zero-byte requests count 1 byte
  CounterBlock* b = t_state.active_;
  if (b == nullptr) [[unlikely]]
    return count_alloc_slow(bytes);
  bump_owned(*b, bytes);
  return true;
}

// Counts and, when heap tracking or sampling is on, tracks a successful
// allocation made on behalf of the code at `caller`.
inline void note_alloc(void* p, std::size_t n, void* caller = nullptr) noexcept {
  if (count_alloc(n)) {
    if (g_heap.on_.load(std::memory_order_relaxed)) [[unlikely]]
      heap_note_alloc(p);
    if (g_sampler.alloc_on_.load(std::memory_order_relaxed)) [[unlikely]]
      sample_alloc(p, n, caller);
  }
}

inline void note_free(void* p) noexcept {
  if (g_heap.on_.load(std::memory_order_relaxed)) [[unlikely]]
    heap_note_free(p);
  if (g_sampler.free_on_.load(std::memory_order_relaxed)) [[unlikely]]
    sample_free(p);
}

// ---- per mode ----------------------------------------------------------------

// The block's usable size (malloc_usable_size, or the sanitizer's figure).
std::size_t usable_size(void* p) noexcept;
// Whether p is the allocator's (the sanitizers also report foreign frees).
bool allocator_owns(void* p) noexcept;
// Whether an allocation sampler can run in this mode.
bool can_sample() noexcept;
// Run once at start-up (from counters.cpp, which also pulls the mode's
// archive members into the link through this reference).
void initialize_mode() noexcept;
// Sanitizer builds: run by sanitizer_feed.cpp's initialize_mode, defined by
// the runtime's fix-ups (asan_fixups.cpp or tsan_fixups.cpp).
void initialize_fixups() noexcept;

}  // namespace zerolab::internal::alloc_hooks

#endif  // ZEROLAB_SRC_ALLOC_HOOKS_HOOKS_STATE_HPP_
