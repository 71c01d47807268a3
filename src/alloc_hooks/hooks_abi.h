// The C interface between zerolab::alloc_hooks and the rest of zerolab.
//
// zerolab::alloc_hooks defines these functions; zerolab::bench refers to them
// weakly through one bridge (src/alloc_hooks/alloc_stats.hpp), so a binary without the hooks links
// and simply reports that allocation counting is unavailable.
//
// Counting model: every thread owns a counter block (never freed, reused by a
// later thread once its owner exits), written only by its owner with relaxed
// atomics; totals sum all blocks, so threads that exited still count. Counts
// are monotonic; the harness takes differences around the timed region.
//
// Example:
//   zerolab_alloc_totals before, after;
//   zerolab_alloc_hooks_totals(&before);
//   delete new int;
//   zerolab_alloc_hooks_totals(&after);   // after.allocs - before.allocs == 1
#ifndef ZEROLAB_SRC_ALLOC_HOOKS_HOOKS_ABI_H_
#define ZEROLAB_SRC_ALLOC_HOOKS_HOOKS_ABI_H_

#include <stdint.h>

extern "C" {

struct zerolab_alloc_totals {
  uint64_t allocs;  // successful allocations (malloc, new, calloc, realloc to n > 0, …)
  uint64_t bytes;   // bytes requested by those allocations
};

// Referenced with -u by the alloc_hooks target so the archive member links in.
void zerolab_alloc_hooks_anchor(void);

// "interpose" (glibc forwarding), "asan" or "tsan" (sanitizer allocator hooks).
const char* zerolab_alloc_hooks_mode(void);

// Sums the counters of every thread that ever allocated.
void zerolab_alloc_hooks_totals(struct zerolab_alloc_totals* out);

// While the calling thread's pause depth is > 0 its allocations are not
// counted (the harness wraps its own bookkeeping in this). Nests.
void zerolab_alloc_hooks_pause_thread(int delta);

// Starts (on != 0) or stops live-heap tracking. Starting resets the growth
// and the peak growth to 0. While on, every allocation adds and every free
// subtracts the block's usable size from a process-wide counter.
void zerolab_alloc_hooks_heap_tracking(int on);
int64_t zerolab_alloc_hooks_heap_growth(void);       // net bytes since start
int64_t zerolab_alloc_hooks_heap_peak_growth(void);  // max of growth since start

// Bytes the allocator reports in use right now (glibc mallinfo2: uordblks +
// hblkhd; sanitizers: __sanitizer_get_current_allocated_bytes).
uint64_t zerolab_alloc_hooks_heap_in_use(void);

// Diagnostics: how many per-thread counter blocks exist (they are created 64
// at a time and reused after their threads exit, so this stays near the peak
// number of live threads, however many threads come and go). Added so tests
// can check block reuse; the harness does not need it.
uint64_t zerolab_alloc_hooks_thread_blocks(void);

// ---- allocation sampling (the memory profiler, src/profile/mem_profiler.*) --
//
// A sampler sees, on average, one allocation per `rate` requested bytes
// (Go's MemProfileRate: each thread counts down an exponentially distributed
// number of bytes; the allocation that crosses zero is sampled; rate 1
// samples every allocation). Only counted allocations are candidates: a
// paused thread's are never sampled. on_alloc runs inside the allocator with
// the thread paused, so what it allocates is neither counted nor sampled;
// `caller` is the return address into the code that called the allocator's
// entry point (malloc, operator new, ...). on_free runs for every free and
// every realloc'ed block while a sampler is installed, before the block is
// released; it must not allocate or free.
typedef void (*zerolab_alloc_sample_fn)(void* block, uint64_t bytes, void* caller);
typedef void (*zerolab_free_sample_fn)(void* block);

// Installs the sampler (null callbacks remove it; sampling is then off).
// Returns 1, or 0 when this build cannot sample (the sanitizer modes).
// REQUIRES: rate >= 1 when installing.
int zerolab_alloc_hooks_set_sampler(zerolab_alloc_sample_fn on_alloc,
                                    zerolab_free_sample_fn on_free, uint64_t rate);

// Turns sampling of allocations on or off (frees are always reported while a
// sampler is installed). The harness turns it on while a benchmark's timer runs.
void zerolab_alloc_hooks_sampling(int on);

}  // extern "C"

#endif  // ZEROLAB_SRC_ALLOC_HOOKS_HOOKS_ABI_H_
