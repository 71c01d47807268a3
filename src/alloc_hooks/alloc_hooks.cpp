// zerolab::alloc_hooks — counts the heap allocations of the whole process for
// the benchmark harness; the C interface is src/alloc_hooks/hooks_abi.h.
//
// Modes (chosen at compile time, reported by zerolab_alloc_hooks_mode()):
//   "interpose"  Normal builds. This file defines malloc, calloc, realloc,
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
//                "Sanitizer fix-ups" at the end): TSan (GCC 12 / LLVM 14) runs
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
#include "alloc_hooks/hooks_abi.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define ZEROLAB_HOOKS_ASAN 1
#elif defined(__SANITIZE_THREAD__)
#define ZEROLAB_HOOKS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZEROLAB_HOOKS_ASAN 1
#elif __has_feature(thread_sanitizer)
#define ZEROLAB_HOOKS_TSAN 1
#endif
#endif

#if defined(ZEROLAB_HOOKS_ASAN) || defined(ZEROLAB_HOOKS_TSAN)
#define ZEROLAB_HOOKS_SANITIZER 1
#if __has_include(<sanitizer/allocator_interface.h>)
#include <sanitizer/allocator_interface.h>
#else
// GCC ships the runtime but not this header; these are its declarations.
extern "C" {
int __sanitizer_install_malloc_and_free_hooks(
    void (*malloc_hook)(const volatile void*, size_t),
    void (*free_hook)(const volatile void*));
size_t __sanitizer_get_allocated_size(const volatile void* p);
int __sanitizer_get_ownership(const volatile void* p);
size_t __sanitizer_get_current_allocated_bytes(void);
}
#endif
#endif

// For the fix-up wrappers, which the runtimes may call on a thread they have
// not finished setting up: no sanitizer instrumentation at all (clang's
// no_sanitize keeps TSan's function entry/exit calls; this attribute does not).
#if defined(__has_attribute)
#if __has_attribute(disable_sanitizer_instrumentation)
#define ZEROLAB_HOOKS_UNINSTRUMENTED __attribute__((disable_sanitizer_instrumentation))
#endif
#endif
#if !defined(ZEROLAB_HOOKS_UNINSTRUMENTED)
#define ZEROLAB_HOOKS_UNINSTRUMENTED __attribute__((no_sanitize("address", "thread")))
#endif

#if defined(ZEROLAB_HOOKS_TSAN)
// The TSan runtime (GCC's libtsan.so and clang's static one alike) defines
// each interceptor strongly as __interceptor_NAME and weakly as NAME, so our
// strong NAME wins and can still reach the runtime's allocator.
extern "C" {
void* __interceptor_realloc(void* p, size_t n);
void* __interceptor_memalign(size_t alignment, size_t n);
int __interceptor_posix_memalign(void** out, size_t alignment, size_t n);
void* __interceptor_aligned_alloc(size_t alignment, size_t n);
void* __interceptor_valloc(size_t n);
void* __interceptor_pvalloc(size_t n);
}
#endif

#if !defined(ZEROLAB_HOOKS_SANITIZER)
// glibc's real allocator, exported @GLIBC_2.2.5. Internal calls between them
// (e.g. __libc_memalign -> malloc for small alignments) do not go through the
// PLT, so nothing below is counted twice.
// noplt (GCC): call through the GOT, one jump fewer on the hot path.
#if defined(__has_attribute)
#if __has_attribute(noplt)
#define ZEROLAB_HOOKS_NOPLT __attribute__((noplt))
#endif
#endif
#if !defined(ZEROLAB_HOOKS_NOPLT)
#define ZEROLAB_HOOKS_NOPLT
#endif
extern "C" {
ZEROLAB_HOOKS_NOPLT void* __libc_malloc(size_t n) noexcept;
ZEROLAB_HOOKS_NOPLT void* __libc_calloc(size_t count, size_t size) noexcept;
ZEROLAB_HOOKS_NOPLT void* __libc_realloc(void* p, size_t n) noexcept;
ZEROLAB_HOOKS_NOPLT void __libc_free(void* p) noexcept;
ZEROLAB_HOOKS_NOPLT void* __libc_memalign(size_t alignment, size_t n) noexcept;
ZEROLAB_HOOKS_NOPLT void* __libc_valloc(size_t n) noexcept;
ZEROLAB_HOOKS_NOPLT void* __libc_pvalloc(size_t n) noexcept;
}
#endif

namespace zerolab::alloc_hooks {
namespace {

constexpr std::size_t kCacheLine = 64;
constexpr std::size_t kBlockPageBytes = 4096;
constexpr int kKeyNone = 0;
constexpr int kKeyCreating = 1;
constexpr int kKeyReady = 2;
constexpr int kKeyFailed = 3;

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
static_assert(kBlockPageBytes % sizeof(CounterBlock) == 0);
constexpr std::size_t kBlocksPerPage = kBlockPageBytes / sizeof(CounterBlock);

// Per-thread state. Trivial and constant-initialised, so the initial-exec
// access compiles to one %fs-relative load with no guard or wrapper call.
struct ThreadState {
  CounterBlock* active_;  // where to count; nullptr sends the thread to the slow path
  CounterBlock* owned_;   // the claimed block, or nullptr
  int pause_depth_;
  bool detached_;         // exit destructor ran or mmap failed: use the shared block
#if defined(ZEROLAB_HOOKS_TSAN)
  bool malloc_hook_seen_;     // set by every malloc hook call (see wrappers)
  const void* realloc_ptr_;     // the pointer a realloc wrapper is moving
  std::int64_t realloc_freed_;  // its usable size, untracked after the call
#else
  bool resolving_;        // inside the malloc_usable_size lookup
#endif
  std::uint64_t sample_left_;   // bytes until the next sampled allocation
  std::uint64_t sample_epoch_;  // the sampler installation sample_left_ belongs to
  std::uint64_t sample_rng_;    // xorshift state for the exponential draws
};

constinit thread_local ThreadState t_state __attribute__((tls_model("initial-exec"))) = {};

struct alignas(kCacheLine) Registry {
  std::atomic<CounterBlock*> head_{nullptr};
  std::atomic<std::uint64_t> blocks_created_{0};
  std::atomic<int> key_state_{kKeyNone};
  pthread_key_t key_ = 0;  // written once before key_state_ becomes kKeyReady
};

struct alignas(kCacheLine) HeapTracking {
  std::atomic<bool> on_{false};  // read by every free(); written only on toggles
  alignas(kCacheLine) std::atomic<std::int64_t> growth_{0};
  std::atomic<std::int64_t> peak_{0};
};

// The installed allocation sampler (hooks_abi.h). alloc_on_ and free_on_ are
// read by every allocation and free; the rest only when they are set.
using SampleAllocFn = zerolab_alloc_sample_fn;
using SampleFreeFn = zerolab_free_sample_fn;
struct alignas(kCacheLine) Sampler {
  std::atomic<bool> alloc_on_{false};  // installed and turned on
  std::atomic<bool> free_on_{false};   // installed
  std::atomic<bool> wanted_{false};    // zerolab_alloc_hooks_sampling's last value
  std::atomic<SampleAllocFn> on_alloc_{nullptr};
  std::atomic<SampleFreeFn> on_free_{nullptr};
  std::atomic<std::uint64_t> rate_{1};
  std::atomic<std::uint64_t> epoch_{0};  // bumped by every installation
};

constinit Registry g_registry;
constinit CounterBlock g_shared_block;
constinit HeapTracking g_heap;
constinit Sampler g_sampler;

// ---- usable size ---------------------------------------------------------

#if defined(ZEROLAB_HOOKS_SANITIZER)

std::size_t usable_size(const void* p) noexcept {
  return __sanitizer_get_allocated_size(p);
}

#else

using UsableSizeFn = std::size_t (*)(void*) noexcept;
constinit std::atomic<UsableSizeFn> g_real_usable_size{nullptr};

// malloc_usable_size is a weak symbol in libc with no __libc_ alias; we
// define it ourselves, so look up the next definition (libc's) once.
UsableSizeFn real_usable_size() noexcept {
  UsableSizeFn fn = g_real_usable_size.load(std::memory_order_acquire);
  if (fn != nullptr) return fn;
  ThreadState& t = t_state;
  if (t.resolving_) return nullptr;  // the lookup re-entered us
  t.resolving_ = true;
  void* sym = dlvsym(RTLD_NEXT, "malloc_usable_size", "GLIBC_2.2.5");
  if (sym == nullptr) sym = dlsym(RTLD_NEXT, "malloc_usable_size");
  t.resolving_ = false;
  if (sym == nullptr || sym == reinterpret_cast<void*>(&::malloc_usable_size)) return nullptr;
  fn = reinterpret_cast<UsableSizeFn>(sym);
  g_real_usable_size.store(fn, std::memory_order_release);
  return fn;
}

std::size_t usable_size(void* p) noexcept {
  if (p == nullptr) return 0;
  UsableSizeFn fn = real_usable_size();
  return fn != nullptr ? fn(p) : 0;
}

#endif

// ---- heap tracking -------------------------------------------------------

void heap_add(std::int64_t delta) noexcept {
  const std::int64_t now = g_heap.growth_.fetch_add(delta, std::memory_order_relaxed) + delta;
  std::int64_t peak = g_heap.peak_.load(std::memory_order_relaxed);
  while (now > peak &&
         !g_heap.peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

std::int64_t signed_size(std::size_t n) noexcept { return static_cast<std::int64_t>(n); }

[[gnu::noinline]] void heap_note_alloc(void* p) noexcept { heap_add(signed_size(usable_size(p))); }

[[gnu::noinline]] void heap_note_free(void* p) noexcept {
  ThreadState& t = t_state;
  if (p == nullptr || t.pause_depth_ > 0) return;
#if defined(ZEROLAB_HOOKS_SANITIZER)
  if (__sanitizer_get_ownership(p) == 0) return;
#endif
  const std::int64_t size = signed_size(usable_size(p));
#if defined(ZEROLAB_HOOKS_TSAN)
  if (p == t.realloc_ptr_) {  // the realloc wrapper settles it (see there)
    t.realloc_freed_ = size;
    return;
  }
#endif
  heap_add(-size);
}

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
  if (state == kKeyNone &&
      g_registry.key_state_.compare_exchange_strong(state, kKeyCreating,
                                                    std::memory_order_acq_rel)) {
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
  void* page = mmap(nullptr, kBlockPageBytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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

inline void bump_owned(CounterBlock& b, std::size_t bytes) noexcept {
  b.allocs_.store(b.allocs_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  b.bytes_.store(b.bytes_.load(std::memory_order_relaxed) + bytes, std::memory_order_relaxed);
}

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

// Counts one allocation of n requested bytes; false if the thread is paused.
inline bool count_alloc(std::size_t n) noexcept {
  const std::size_t bytes = n + (n == 0);  // zero-byte requests count 1 byte
  CounterBlock* b = t_state.active_;
  if (b == nullptr) [[unlikely]] return count_alloc_slow(bytes);
  bump_owned(*b, bytes);
  return true;
}

// ---- sampling --------------------------------------------------------------

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
  const SampleAllocFn fn = g_sampler.on_alloc_.load(std::memory_order_acquire);
  if (fn == nullptr) return;
  zerolab_alloc_hooks_pause_thread(1);
  fn(p, bytes, caller);
  zerolab_alloc_hooks_pause_thread(-1);
}

[[gnu::noinline]] void sample_free(void* p) noexcept {
  if (p == nullptr) return;
  const SampleFreeFn fn = g_sampler.on_free_.load(std::memory_order_acquire);
  if (fn != nullptr) fn(p);
}

// Counts and, when heap tracking or sampling is on, tracks a successful
// allocation made on behalf of the code at `caller`.
inline void note_alloc(void* p, std::size_t n, void* caller = nullptr) noexcept {
  if (count_alloc(n)) {
    if (g_heap.on_.load(std::memory_order_relaxed)) [[unlikely]] heap_note_alloc(p);
    if (g_sampler.alloc_on_.load(std::memory_order_relaxed)) [[unlikely]] sample_alloc(p, n, caller);
  }
}

inline void note_free(void* p) noexcept {
  if (g_heap.on_.load(std::memory_order_relaxed)) [[unlikely]] heap_note_free(p);
  if (g_sampler.free_on_.load(std::memory_order_relaxed)) [[unlikely]] sample_free(p);
}

#if !defined(ZEROLAB_HOOKS_ASAN)

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

// What pvalloc(n) counts: n rounded up to a page, one page for 0.
std::size_t pvalloc_bytes(std::size_t n) noexcept {
  const std::size_t page = page_size();
  return n == 0 ? page : (n + page - 1) / page * page;
}

#endif  // !ZEROLAB_HOOKS_ASAN

#if !defined(ZEROLAB_HOOKS_SANITIZER)
bool is_power_of_two(std::size_t n) noexcept { return n != 0 && (n & (n - 1)) == 0; }
#endif

// ---- operator new support (interpose mode) -------------------------------

#if !defined(ZEROLAB_HOOKS_SANITIZER)

void* raw_alloc(std::size_t n, std::size_t alignment) noexcept {
  return alignment == 0 ? __libc_malloc(n) : __libc_memalign(alignment, n);
}

// Keeps the exception object that __cxa_allocate_exception mallocs out of
// the counts: a failed allocation counts nothing.
struct PauseScope {
  PauseScope() noexcept { zerolab_alloc_hooks_pause_thread(1); }
  ~PauseScope() { zerolab_alloc_hooks_pause_thread(-1); }
  PauseScope(const PauseScope&) = delete;
  PauseScope& operator=(const PauseScope&) = delete;
};

// [new.delete.single]: after a failure, call the new_handler and retry; with
// no handler, throw std::bad_alloc.
[[gnu::noinline]] void* new_retry(std::size_t n, std::size_t alignment, void* caller) {
  for (;;) {
    const std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) {
      PauseScope pause;
      throw std::bad_alloc();
    }
    handler();
    if (void* p = raw_alloc(n, alignment)) {
      note_alloc(p, n, caller);
      return p;
    }
  }
}

// The nothrow forms: as the throwing ones, but nullptr instead of bad_alloc.
[[gnu::noinline]] void* new_retry_nothrow(std::size_t n, std::size_t alignment,
                                          void* caller) noexcept {
  for (;;) {
    const std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) return nullptr;
    try {
      handler();
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
    if (void* p = raw_alloc(n, alignment)) {
      note_alloc(p, n, caller);
      return p;
    }
  }
}

inline void* new_impl(std::size_t n, void* caller) {
  void* p = __libc_malloc(n);
  if (p == nullptr) [[unlikely]] return new_retry(n, 0, caller);
  note_alloc(p, n, caller);
  return p;
}

inline void* new_aligned_impl(std::size_t n, std::align_val_t alignment, void* caller) {
  const auto align = static_cast<std::size_t>(alignment);
  void* p = __libc_memalign(align, n);
  if (p == nullptr) [[unlikely]] return new_retry(n, align, caller);
  note_alloc(p, n, caller);
  return p;
}

inline void* new_nothrow_impl(std::size_t n, std::size_t alignment, void* caller) noexcept {
  void* p = raw_alloc(n, alignment);
  if (p == nullptr) [[unlikely]] return new_retry_nothrow(n, alignment, caller);
  note_alloc(p, n, caller);
  return p;
}

inline void delete_impl(void* p) noexcept {
  note_free(p);
  __libc_free(p);
}

#endif  // !ZEROLAB_HOOKS_SANITIZER

// ---- sanitizer hooks -----------------------------------------------------

#if defined(ZEROLAB_HOOKS_SANITIZER)

void on_malloc_hook(const volatile void* p, std::size_t n) {
#if defined(ZEROLAB_HOOKS_TSAN)
  t_state.malloc_hook_seen_ = true;
#endif
  if (p == nullptr) return;  // TSan also reports failures, with a null pointer
  note_alloc(const_cast<void*>(p), n);
}

void on_free_hook(const volatile void* p) { note_free(const_cast<void*>(p)); }

#endif

#if defined(ZEROLAB_HOOKS_TSAN)

// Out of line and instrumented: the uninstrumented wrappers call these only
// on threads the runtime has set up (they have allocated from user code).
[[gnu::noinline]] void tsan_note_alloc(void* p, std::size_t n) noexcept { note_alloc(p, n); }
[[gnu::noinline]] void tsan_untrack(std::int64_t size) noexcept { heap_add(-size); }

#endif

#if defined(ZEROLAB_HOOKS_ASAN)

using GetattrFn = int (*)(pthread_t, pthread_attr_t*);
using AttrDestroyFn = int (*)(pthread_attr_t*);
constinit std::atomic<GetattrFn> g_real_getattr{nullptr};
constinit std::atomic<AttrDestroyFn> g_real_attr_destroy{nullptr};

// libc's definitions (ASan intercepts neither function).
ZEROLAB_HOOKS_UNINSTRUMENTED GetattrFn real_getattr() noexcept {
  GetattrFn fn = g_real_getattr.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<GetattrFn>(dlsym(RTLD_NEXT, "pthread_getattr_np"));
    g_real_getattr.store(fn, std::memory_order_release);
  }
  return fn;
}

ZEROLAB_HOOKS_UNINSTRUMENTED AttrDestroyFn real_attr_destroy() noexcept {
  AttrDestroyFn fn = g_real_attr_destroy.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<AttrDestroyFn>(dlsym(RTLD_NEXT, "pthread_attr_destroy"));
    g_real_attr_destroy.store(fn, std::memory_order_release);
  }
  return fn;
}

// True while a thread has not counted anything yet: on a new thread that is
// the runtime's set-up, before the start routine runs.
ZEROLAB_HOOKS_UNINSTRUMENTED bool in_thread_setup() noexcept {
  const ThreadState& t = t_state;
  return t.owned_ == nullptr && !t.detached_;
}

#endif

__attribute__((constructor(101))) void initialize() noexcept {
  ensure_key();  // early, so the key gets a low index (no allocation in setspecific)
#if defined(ZEROLAB_HOOKS_SANITIZER)
  __sanitizer_install_malloc_and_free_hooks(&on_malloc_hook, &on_free_hook);
#endif
#if defined(ZEROLAB_HOOKS_ASAN)
  real_getattr();
  real_attr_destroy();
#endif
#if !defined(ZEROLAB_HOOKS_SANITIZER)
  real_usable_size();
#endif
#if !defined(ZEROLAB_HOOKS_ASAN)
  page_size();
#endif
}

}  // namespace
}  // namespace zerolab::alloc_hooks

namespace hooks = zerolab::alloc_hooks;

// ---- the C ABI -----------------------------------------------------------

extern "C" {

void zerolab_alloc_hooks_anchor(void) {}

const char* zerolab_alloc_hooks_mode(void) {
#if defined(ZEROLAB_HOOKS_ASAN)
  return "asan";
#elif defined(ZEROLAB_HOOKS_TSAN)
  return "tsan";
#else
  return "interpose";
#endif
}

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

uint64_t zerolab_alloc_hooks_heap_in_use(void) {
#if defined(ZEROLAB_HOOKS_SANITIZER)
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
#endif
}

uint64_t zerolab_alloc_hooks_thread_blocks(void) {
  return hooks::g_registry.blocks_created_.load(std::memory_order_relaxed);
}

int zerolab_alloc_hooks_set_sampler(zerolab_alloc_sample_fn on_alloc,
                                    zerolab_free_sample_fn on_free, uint64_t rate) {
#if defined(ZEROLAB_HOOKS_SANITIZER)
  // The sanitizer hooks run inside the runtime's allocator, where capturing
  // a stack is not safe; no sampling in these builds.
  (void)on_alloc;
  (void)on_free;
  (void)rate;
  return 0;
#else
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
#endif
}

void zerolab_alloc_hooks_sampling(int on) {
  hooks::Sampler& s = hooks::g_sampler;
  s.wanted_.store(on != 0, std::memory_order_relaxed);
  const bool installed = s.on_alloc_.load(std::memory_order_relaxed) != nullptr;
  s.alloc_on_.store(on != 0 && installed, std::memory_order_relaxed);
}

}  // extern "C"

// ---- Sanitizer fix-ups -------------------------------------------------------
//
// Each wrapper is uninstrumented straight-line code: the runtime may call it
// on a thread whose sanitizer state does not exist yet (TSan's and ASan's
// thread start call pthread_getattr_np, which reallocs), where any
// instrumented call would crash.

#if defined(ZEROLAB_HOOKS_ASAN)

extern "C" {

// AsanThread::Init calls pthread_getattr_np and pthread_attr_destroy on
// every new thread before its start routine runs; glibc's implementations
// allocate three blocks (realloc, calloc, realloc: 216 bytes) and free them
// through the user allocator, so ASan's hooks see them. Pause the thread
// around both while it has not counted anything yet (in_thread_setup). The
// one visible difference: a thread whose very first allocating call is its
// own pthread_getattr_np goes uncounted for that call under ASan alone.
ZEROLAB_HOOKS_UNINSTRUMENTED int pthread_getattr_np(pthread_t thread, pthread_attr_t* attr) noexcept {
  const hooks::GetattrFn real = hooks::real_getattr();
  if (real == nullptr) return ENOSYS;
  const bool setup = hooks::in_thread_setup();
  if (setup) ++hooks::t_state.pause_depth_;
  const int result = real(thread, attr);
  if (setup) --hooks::t_state.pause_depth_;
  return result;
}

ZEROLAB_HOOKS_UNINSTRUMENTED int pthread_attr_destroy(pthread_attr_t* attr) noexcept {
  const hooks::AttrDestroyFn real = hooks::real_attr_destroy();
  if (real == nullptr) return ENOSYS;
  const bool setup = hooks::in_thread_setup();
  if (setup) ++hooks::t_state.pause_depth_;
  const int result = real(attr);
  if (setup) --hooks::t_state.pause_depth_;
  return result;
}

}  // extern "C"

#endif  // ZEROLAB_HOOKS_ASAN

#if defined(ZEROLAB_HOOKS_TSAN)

extern "C" {

// TSan runs the free hook for p first, before it allocates the new block
// and even when the realloc then fails. For heap tracking, the free of p is
// deferred to here: untracked after the new block was tracked (as ASan and
// the interposed realloc order it), or not at all if p survived.
ZEROLAB_HOOKS_UNINSTRUMENTED void* realloc(void* p, size_t n) noexcept {
  hooks::ThreadState& t = hooks::t_state;
  t.realloc_ptr_ = p;
  t.realloc_freed_ = 0;
  void* result = __interceptor_realloc(p, n);
  t.realloc_ptr_ = nullptr;
  // Only our free hook sets realloc_freed_, so the thread is set up.
  if (t.realloc_freed_ != 0 && (result != nullptr || n == 0)) hooks::tsan_untrack(t.realloc_freed_);
  return result;
}

// TSan's reallocarray hands its malloc hook nmemb instead of nmemb * size.
ZEROLAB_HOOKS_UNINSTRUMENTED void* reallocarray(void* p, size_t count, size_t size) noexcept {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, bytes);
}

// The memalign family runs no malloc hook in TSan 14: count here, unless the
// hook did after all (a runtime that adds the hooks will not double count).
ZEROLAB_HOOKS_UNINSTRUMENTED void* memalign(size_t alignment, size_t n) noexcept {
  hooks::ThreadState& t = hooks::t_state;
  t.malloc_hook_seen_ = false;
  void* p = __interceptor_memalign(alignment, n);
  if (p != nullptr && !t.malloc_hook_seen_) hooks::tsan_note_alloc(p, n);
  return p;
}

ZEROLAB_HOOKS_UNINSTRUMENTED void* aligned_alloc(size_t alignment, size_t n) noexcept {
  hooks::ThreadState& t = hooks::t_state;
  t.malloc_hook_seen_ = false;
  void* p = __interceptor_aligned_alloc(alignment, n);
  if (p != nullptr && !t.malloc_hook_seen_) hooks::tsan_note_alloc(p, n);
  return p;
}

ZEROLAB_HOOKS_UNINSTRUMENTED void* valloc(size_t n) noexcept {
  hooks::ThreadState& t = hooks::t_state;
  t.malloc_hook_seen_ = false;
  void* p = __interceptor_valloc(n);
  if (p != nullptr && !t.malloc_hook_seen_) hooks::tsan_note_alloc(p, n);
  return p;
}

ZEROLAB_HOOKS_UNINSTRUMENTED void* pvalloc(size_t n) noexcept {
  hooks::ThreadState& t = hooks::t_state;
  t.malloc_hook_seen_ = false;
  void* p = __interceptor_pvalloc(n);
  if (p != nullptr && !t.malloc_hook_seen_) hooks::tsan_note_alloc(p, hooks::pvalloc_bytes(n));
  return p;
}

ZEROLAB_HOOKS_UNINSTRUMENTED int posix_memalign(void** out, size_t alignment, size_t n) noexcept {
  hooks::ThreadState& t = hooks::t_state;
  t.malloc_hook_seen_ = false;
  void* p = nullptr;
  const int result = __interceptor_posix_memalign(&p, alignment, n);
  if (result != 0) return result;
  if (!t.malloc_hook_seen_) hooks::tsan_note_alloc(p, n);
  *out = p;
  return 0;
}

}  // extern "C"

#endif  // ZEROLAB_HOOKS_TSAN

// ---- interposed allocator (normal builds) ----------------------------------

#if !defined(ZEROLAB_HOOKS_SANITIZER)

extern "C" {

void free(void* p) noexcept { hooks::delete_impl(p); }

void* calloc(size_t count, size_t size) noexcept {
  void* p = __libc_calloc(count, size);
  // success: no overflow
  if (p != nullptr) hooks::note_alloc(p, count * size, __builtin_return_address(0));
  return p;
}

}  // extern "C"

namespace zerolab::alloc_hooks {
namespace {

// The bodies of the entry points that other entry points call, taking the
// caller's return address from the outermost one.
inline void* malloc_impl(std::size_t n, void* caller) noexcept {
  void* p = __libc_malloc(n);
  if (p != nullptr) [[likely]] note_alloc(p, n, caller);
  return p;
}

inline void* memalign_impl(std::size_t alignment, std::size_t n, void* caller) noexcept {
  void* p = __libc_memalign(alignment, n);
  if (p != nullptr) note_alloc(p, n, caller);
  return p;
}

// realloc while heap tracking is on: track the new block, untrack the old.
// A block that moved coexisted with its copy, so the peak sees both.
[[gnu::noinline]] void* realloc_tracked(void* p, std::size_t n, void* caller) noexcept {
  const bool track = t_state.pause_depth_ <= 0;
  const std::int64_t old_size = track ? signed_size(usable_size(p)) : 0;
  const auto old_address = reinterpret_cast<std::uintptr_t>(p);
  void* result = __libc_realloc(p, n);
  if (n == 0) {  // glibc freed p and returned nullptr
    if (track) heap_add(-old_size);
    return result;
  }
  if (result == nullptr) return nullptr;
  if (count_alloc(n) && track) {
    const std::int64_t new_size = signed_size(usable_size(result));
    if (reinterpret_cast<std::uintptr_t>(result) == old_address) {
      heap_add(new_size - old_size);
    } else {
      heap_add(new_size);
      heap_add(-old_size);
    }
    if (g_sampler.alloc_on_.load(std::memory_order_relaxed)) sample_alloc(result, n, caller);
  }
  return result;
}

// realloc: the old block is reported freed to the sampler first (afterwards
// its address may already belong to another thread's allocation); the
// result is a new allocation of n bytes.
inline void* realloc_impl(void* p, std::size_t n, void* caller) noexcept {
  if (p == nullptr) return malloc_impl(n, caller);
  if (g_sampler.free_on_.load(std::memory_order_relaxed)) [[unlikely]] sample_free(p);
  if (g_heap.on_.load(std::memory_order_relaxed)) [[unlikely]] return realloc_tracked(p, n, caller);
  void* result = __libc_realloc(p, n);
  if (result != nullptr && n != 0 && count_alloc(n) &&
      g_sampler.alloc_on_.load(std::memory_order_relaxed)) [[unlikely]] {
    sample_alloc(result, n, caller);
  }
  return result;
}

}  // namespace
}  // namespace zerolab::alloc_hooks

extern "C" {

void* malloc(size_t n) noexcept { return hooks::malloc_impl(n, __builtin_return_address(0)); }

void* realloc(void* p, size_t n) noexcept {
  return hooks::realloc_impl(p, n, __builtin_return_address(0));
}

void* reallocarray(void* p, size_t count, size_t size) noexcept {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return hooks::realloc_impl(p, bytes, __builtin_return_address(0));
}

void* memalign(size_t alignment, size_t n) noexcept {
  return hooks::memalign_impl(alignment, n, __builtin_return_address(0));
}

// C17 and glibc >= 2.38: the alignment must be a power of two (glibc 2.36
// alone would round it up). The size need not be a multiple of it.
void* aligned_alloc(size_t alignment, size_t n) noexcept {
  if (!hooks::is_power_of_two(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  return hooks::memalign_impl(alignment, n, __builtin_return_address(0));
}

int posix_memalign(void** out, size_t alignment, size_t n) noexcept {
  if (alignment % sizeof(void*) != 0 || !hooks::is_power_of_two(alignment)) return EINVAL;
  const int saved_errno = errno;
  void* p = __libc_memalign(alignment, n);
  if (p == nullptr) {
    errno = saved_errno;
    return ENOMEM;
  }
  hooks::note_alloc(p, n, __builtin_return_address(0));
  *out = p;
  return 0;
}

void* valloc(size_t n) noexcept {
  void* p = __libc_valloc(n);
  if (p != nullptr) hooks::note_alloc(p, n, __builtin_return_address(0));
  return p;
}

void* pvalloc(size_t n) noexcept {
  void* p = __libc_pvalloc(n);
  if (p != nullptr) hooks::note_alloc(p, hooks::pvalloc_bytes(n), __builtin_return_address(0));
  return p;
}

size_t malloc_usable_size(void* p) noexcept { return hooks::usable_size(p); }

}  // extern "C"

#define ZEROLAB_HOOKS_CALLER __builtin_return_address(0)
void* operator new(std::size_t n) { return hooks::new_impl(n, ZEROLAB_HOOKS_CALLER); }
void* operator new[](std::size_t n) { return hooks::new_impl(n, ZEROLAB_HOOKS_CALLER); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return hooks::new_nothrow_impl(n, 0, ZEROLAB_HOOKS_CALLER);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return hooks::new_nothrow_impl(n, 0, ZEROLAB_HOOKS_CALLER);
}
void* operator new(std::size_t n, std::align_val_t alignment) {
  return hooks::new_aligned_impl(n, alignment, ZEROLAB_HOOKS_CALLER);
}
void* operator new[](std::size_t n, std::align_val_t alignment) {
  return hooks::new_aligned_impl(n, alignment, ZEROLAB_HOOKS_CALLER);
}
void* operator new(std::size_t n, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return hooks::new_nothrow_impl(n, static_cast<std::size_t>(alignment), ZEROLAB_HOOKS_CALLER);
}
void* operator new[](std::size_t n, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return hooks::new_nothrow_impl(n, static_cast<std::size_t>(alignment), ZEROLAB_HOOKS_CALLER);
}
#undef ZEROLAB_HOOKS_CALLER

void operator delete(void* p) noexcept { hooks::delete_impl(p); }
void operator delete[](void* p) noexcept { hooks::delete_impl(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { hooks::delete_impl(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { hooks::delete_impl(p); }
void operator delete(void* p, std::size_t) noexcept { hooks::delete_impl(p); }
void operator delete[](void* p, std::size_t) noexcept { hooks::delete_impl(p); }
void operator delete(void* p, std::align_val_t) noexcept { hooks::delete_impl(p); }
void operator delete[](void* p, std::align_val_t) noexcept { hooks::delete_impl(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  hooks::delete_impl(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  hooks::delete_impl(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { hooks::delete_impl(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  hooks::delete_impl(p);
}

#endif  // !ZEROLAB_HOOKS_SANITIZER
