// zerolab::alloc_hooks — counts the heap allocations of the whole process for
// the benchmark harness; the C interface is src/alloc_hooks/hooks_abi.h.
// This file is the counting core and the C interface; the allocator entry
// points of each mode are in the files hooks_state.hpp lists.
//
// Modes (chosen at compile time, reported by zerolab_alloc_hooks_mode()):
//   "interpose"  Normal builds. interpose.cpp defines malloc, calloc, realloc,
//                free, aligned_alloc, posix_memalign, memalign, valloc,
//                pvalloc, malloc_usable_size, reallocarray and every
//                replaceable operator new/delete, forwarding to glibc's
//                exported __libc_* entry points. The static library is linked
//                into the executable (-u zerolab_alloc_hooks_anchor), so these
//                definitions preempt libc's and libstdc++'s process-wide.
//   "asan"/"tsan" The sanitizer owns malloc, so no allocator is interposed;
//                the counters are fed from
//                __sanitizer_install_malloc_and_free_hooks. Where a runtime's
//                hooks would make the counts differ from the interposed
//                build, a thin uninstrumented wrapper compensates (see
//                asan_fixups.cpp and tsan_fixups.cpp): TSan (GCC 12 / LLVM 14) runs
//                no malloc hook for the memalign family, hands its hook nmemb
//                instead of the byte count for reallocarray, and runs the free
//                hook before a realloc that may fail; ASan's thread start-up
//                allocates through the user allocator (pthread_getattr_np)
//                on every new thread.
//
// Counting rules (identical in every mode; tests/alloc_hooks_test.cpp):
//   * A successful allocation counts 1 alloc and the requested bytes
//     (calloc: n * size; realloc(p, n > 0): n, whether it grows, shrinks or
//     moves; realloc(nullptr, n) is malloc(n); realloc(p, 0) frees and counts
//     nothing; operator new counts once). Failures and frees count nothing.
//   * A zero-byte request counts 1 byte: ASan turns it into a 1-byte request
//     before its hook sees it (indistinguishable from malloc(1)), and
//     libstdc++'s own operator new asks malloc for 1 byte, so 1 is the only
//     value all modes can report alike.
//   * pvalloc(n) counts n rounded up to the page size (one page for 0): that
//     is what pvalloc allocates, and what the sanitizers report.
//   * While a thread's pause depth is > 0 (zerolab_alloc_hooks_pause_thread)
//     its allocations and frees are neither counted nor heap-tracked. So is
//     anything the hooks allocate internally, and the std::bad_alloc object a
//     failing operator new throws.
//   * Heap tracking (when on) adds the usable size (malloc_usable_size, or
//     __sanitizer_get_allocated_size) on allocation and subtracts it on free;
//     a realloc that moves the block adds the new block before removing the
//     old one, so the peak sees both, as they coexist during the copy.
//
// Design: each thread owns a 64-byte CounterBlock (mmap'ed 64 per page, kept
// on a lock-free singly linked list, never freed), reached through an
// initial-exec thread_local pointer; only the owner writes it (relaxed load +
// store). A pthread key destructor releases the block when its thread exits;
// a later thread claims it and keeps adding, so the sums stay monotonic and
// include exited threads. Allocations after that destructor ran (from other
// TSD destructors), or when mmap fails, go to one shared block with fetch_add.
// free() does one relaxed load of the heap-tracking flag and forwards.
//
// Sampling (interpose mode only; hooks_abi.h): while a sampler is installed
// and sampling is on, each counted allocation subtracts its bytes from the
// thread's countdown; the one that reaches zero calls the sampler (thread
// paused) and draws a new exponential countdown with mean `rate`. Every
// entry point passes __builtin_return_address(0) down, and internal calls
// between entry points (realloc(nullptr) -> malloc, ...) go to *_impl
// functions, so the sampler learns the first frame outside the hooks. While
// no sampler is installed, allocation and free each pay one more relaxed
// load of a flag that never changes.
//
// Thread-safety: every hooks_abi.h function may be called from any thread at
// any time; all shared state is atomic (TSan-clean). Totals are a sum of
// relaxed loads: exact once the counted threads are joined or otherwise
// synchronised with the reader, monotonic always.
//
// Example:
//   zerolab_alloc_totals before, after;
//   zerolab_alloc_hooks_totals(&before);
//   std::string s(100, 'x');              // one allocation of 101 bytes
//   zerolab_alloc_hooks_totals(&after);   // allocs +1, bytes +101
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <new>

#include "alloc_hooks/glibc_alloc.hpp"
#include "alloc_hooks/hooks_abi.h"
#include "alloc_hooks/hooks_state.hpp"

namespace zerolab::internal::alloc_hooks {

constinit thread_local ThreadState t_state __attribute__((tls_model("initial-exec"))) = {};
constinit HeapTracking g_heap;
constinit Sampler g_sampler;

namespace {

constexpr std::size_t kBlockPageBytes = 4096;
static_assert(kBlockPageBytes % sizeof(CounterBlock) == 0);
constexpr std::size_t kBlocksPerPage = kBlockPageBytes / sizeof(CounterBlock);
constexpr int kKeyNone = 0;
constexpr int kKeyCreating = 1;
constexpr int kKeyReady = 2;
constexpr int kKeyFailed = 3;

struct alignas(kCacheLine) Registry {
  std::atomic<CounterBlock*> head_{nullptr};
  std::atomic<std::uint64_t> blocks_created_{0};
  std::atomic<int> key_state_{kKeyNone};
  pthread_key_t key_ = 0;  // written once before key_state_ becomes kKeyReady
};

constinit Registry g_registry;
constinit CounterBlock g_shared_block;

// ---- counter blocks ------------------------------------------------------

void on_thread_exit(void* value) noexcept {
  ThreadState& t = t_state;
  t.active_ = nullptr;
  t.owned_ = nullptr;
  t.detached_ = true;  // later allocations of this thread go to the shared block
  static_cast<CounterBlock*>(value)->owned_.store(0, std::memory_order_release);
}

bool ensure_key() noexcept {
  int state = g_registry.key_state_.load(std::memory_order_acquire);
  if (state == kKeyReady) return true;
  if (state == kKeyNone && g_registry.key_state_.compare_exchange_strong(
                               state, kKeyCreating, std::memory_order_acq_rel)) {
    const bool ok = pthread_key_create(&g_registry.key_, &on_thread_exit) == 0;
    g_registry.key_state_.store(ok ? kKeyReady : kKeyFailed, std::memory_order_release);
    return ok;
  }
  while ((state = g_registry.key_state_.load(std::memory_order_acquire)) == kKeyCreating) {
    sched_yield();
  }
  return state == kKeyReady;
}

// A released block, or a fresh page of them (the first one claimed).
CounterBlock* claim_block() noexcept {
  for (CounterBlock* b = g_registry.head_.load(std::memory_order_acquire); b != nullptr;
       b = b->next_) {
    std::uint32_t expected = 0;
    if (b->owned_.load(std::memory_order_relaxed) == 0 &&
        b->owned_.compare_exchange_strong(expected, 1, std::memory_order_acquire,
                                          std::memory_order_relaxed)) {
      return b;
    }
  }
  void* page =
      mmap(nullptr, kBlockPageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return nullptr;
  auto* blocks = static_cast<CounterBlock*>(page);
  for (std::size_t i = 0; i < kBlocksPerPage; ++i) {
    ::new (static_cast<void*>(&blocks[i])) CounterBlock();
    if (i + 1 < kBlocksPerPage) blocks[i].next_ = &blocks[i + 1];
  }
  blocks[0].owned_.store(1, std::memory_order_relaxed);
  CounterBlock* head = g_registry.head_.load(std::memory_order_relaxed);
  do {
    blocks[kBlocksPerPage - 1].next_ = head;
  } while (!g_registry.head_.compare_exchange_weak(head, &blocks[0], std::memory_order_release,
                                                   std::memory_order_relaxed));
  g_registry.blocks_created_.fetch_add(kBlocksPerPage, std::memory_order_relaxed);
  return &blocks[0];
}

std::size_t page_size() noexcept {
  static constinit std::atomic<std::size_t> cached{0};
  std::size_t size = cached.load(std::memory_order_relaxed);
  if (size == 0) {
    const long value = sysconf(_SC_PAGESIZE);
    size = value > 0 ? static_cast<std::size_t>(value) : 4096;
    cached.store(size, std::memory_order_relaxed);
  }
  return size;
}

// The next countdown: exponential with mean `rate` bytes (0 for rate 1, so
// every allocation is sampled).
std::uint64_t next_sample_gap(ThreadState& t, std::uint64_t rate) noexcept {
  if (rate <= 1) return 0;
  std::uint64_t x = t.sample_rng_;
  if (x == 0) x = reinterpret_cast<std::uintptr_t>(&t) | 1;  // per-thread seed
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  t.sample_rng_ = x;
  // 53 random bits -> u in (0, 1].
  const double u = (static_cast<double>(x >> 11) + 1.0) * (1.0 / 9007199254740992.0);
  return static_cast<std::uint64_t>(-std::log(u) * static_cast<double>(rate));
}

__attribute__((constructor(101))) void initialize() noexcept {
  ensure_key();  // early, so the key gets a low index (no allocation in setspecific)
  page_size();
  initialize_mode();
}

}  // namespace

// First allocation of a thread, a paused thread, or a detached one.
[[gnu::noinline]] bool count_alloc_slow(std::size_t bytes) noexcept {
  ThreadState& t = t_state;
  if (t.pause_depth_ > 0) return false;
  if (t.owned_ == nullptr && !t.detached_) {
    ++t.pause_depth_;  // pthread_setspecific may calloc: keep that out of the counts
    CounterBlock* b = claim_block();
    if (b != nullptr && ensure_key()) pthread_setspecific(g_registry.key_, b);
    --t.pause_depth_;
    t.owned_ = b;
    t.detached_ = b == nullptr;
  }
  if (t.owned_ != nullptr) {
    t.active_ = t.owned_;
    bump_owned(*t.owned_, bytes);
  } else {
    g_shared_block.allocs_.fetch_add(1, std::memory_order_relaxed);
    g_shared_block.bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  return true;
}

std::size_t pvalloc_bytes(std::size_t n) noexcept {
  return glibc_alloc::pvalloc_bytes(n, page_size());
}

// ---- heap tracking -------------------------------------------------------

void heap_add(std::int64_t delta) noexcept {
  const std::int64_t now = g_heap.growth_.fetch_add(delta, std::memory_order_relaxed) + delta;
  std::int64_t peak = g_heap.peak_.load(std::memory_order_relaxed);
  while (now > peak && !g_heap.peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

[[gnu::noinline]] void heap_note_alloc(void* p) noexcept {
  heap_add(signed_size(usable_size(p)));
}

[[gnu::noinline]] void heap_note_free(void* p) noexcept {
  ThreadState& t = t_state;
  if (p == nullptr || t.pause_depth_ > 0) return;
  if (!allocator_owns(p)) return;
  const std::int64_t size = signed_size(usable_size(p));
  if (p == t.realloc_ptr_) {  // TSan's realloc wrapper settles it (tsan_fixups.cpp)
    t.realloc_freed_ = size;
    return;
  }
  heap_add(-size);
}

// ---- sampling --------------------------------------------------------------

// Counts `bytes` against the thread's countdown; calls the sampler (thread
// paused) for the allocation that reaches zero.
[[gnu::noinline]] void sample_alloc(void* p, std::size_t n, void* caller) noexcept {
  ThreadState& t = t_state;
  const std::uint64_t bytes = n + (n == 0);
  const std::uint64_t epoch = g_sampler.epoch_.load(std::memory_order_acquire);
  const std::uint64_t rate = g_sampler.rate_.load(std::memory_order_relaxed);
  if (t.sample_epoch_ != epoch) {
    t.sample_epoch_ = epoch;
    t.sample_left_ = next_sample_gap(t, rate);
  }
  if (t.sample_left_ > bytes) {
    t.sample_left_ -= bytes;
    return;
  }
  t.sample_left_ = next_sample_gap(t, rate);
  const zerolab_alloc_sample_fn fn = g_sampler.on_alloc_.load(std::memory_order_acquire);
  if (fn == nullptr) return;
  zerolab_alloc_hooks_pause_thread(1);
  fn(p, bytes, caller);
  zerolab_alloc_hooks_pause_thread(-1);
}

[[gnu::noinline]] void sample_free(void* p) noexcept {
  if (p == nullptr) return;
  const zerolab_free_sample_fn fn = g_sampler.on_free_.load(std::memory_order_acquire);
  if (fn != nullptr) fn(p);
}

}  // namespace zerolab::internal::alloc_hooks

namespace hooks = zerolab::internal::alloc_hooks;

// ---- the C ABI -----------------------------------------------------------

extern "C" {

void zerolab_alloc_hooks_anchor(void) {}

void zerolab_alloc_hooks_totals(struct zerolab_alloc_totals* out) {
  if (out == nullptr) return;
  std::uint64_t allocs = hooks::g_shared_block.allocs_.load(std::memory_order_relaxed);
  std::uint64_t bytes = hooks::g_shared_block.bytes_.load(std::memory_order_relaxed);
  for (const hooks::CounterBlock* b = hooks::g_registry.head_.load(std::memory_order_acquire);
       b != nullptr; b = b->next_) {
    allocs += b->allocs_.load(std::memory_order_relaxed);
    bytes += b->bytes_.load(std::memory_order_relaxed);
  }
  out->allocs = allocs;
  out->bytes = bytes;
}

void zerolab_alloc_hooks_pause_thread(int delta) {
  hooks::ThreadState& t = hooks::t_state;
  t.pause_depth_ += delta;
  t.active_ = t.pause_depth_ > 0 ? nullptr : t.owned_;
}

void zerolab_alloc_hooks_heap_tracking(int on) {
  if (on != 0) {
    hooks::g_heap.growth_.store(0, std::memory_order_relaxed);
    hooks::g_heap.peak_.store(0, std::memory_order_relaxed);
  }
  hooks::g_heap.on_.store(on != 0, std::memory_order_release);
}

int64_t zerolab_alloc_hooks_heap_growth(void) {
  return hooks::g_heap.growth_.load(std::memory_order_relaxed);
}

int64_t zerolab_alloc_hooks_heap_peak_growth(void) {
  return hooks::g_heap.peak_.load(std::memory_order_relaxed);
}

uint64_t zerolab_alloc_hooks_thread_blocks(void) {
  return hooks::g_registry.blocks_created_.load(std::memory_order_relaxed);
}

int zerolab_alloc_hooks_set_sampler(zerolab_alloc_sample_fn on_alloc,
                                    zerolab_free_sample_fn on_free, uint64_t rate) {
  if (!hooks::can_sample()) return 0;
  hooks::Sampler& s = hooks::g_sampler;
  if (on_alloc == nullptr || on_free == nullptr) {
    s.alloc_on_.store(false, std::memory_order_relaxed);
    s.free_on_.store(false, std::memory_order_relaxed);
    s.on_alloc_.store(nullptr, std::memory_order_release);
    s.on_free_.store(nullptr, std::memory_order_release);
    return 1;
  }
  s.rate_.store(rate < 1 ? 1 : rate, std::memory_order_relaxed);
  s.on_alloc_.store(on_alloc, std::memory_order_release);
  s.on_free_.store(on_free, std::memory_order_release);
  s.epoch_.fetch_add(1, std::memory_order_acq_rel);  // every thread redraws its countdown
  s.free_on_.store(true, std::memory_order_relaxed);
  s.alloc_on_.store(s.wanted_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  return 1;
}

void zerolab_alloc_hooks_sampling(int on) {
  hooks::Sampler& s = hooks::g_sampler;
  s.wanted_.store(on != 0, std::memory_order_relaxed);
  const bool installed = s.on_alloc_.load(std::memory_order_relaxed) != nullptr;
  s.alloc_on_.store(on != 0 && installed, std::memory_order_relaxed);
}

}  // extern "C"
