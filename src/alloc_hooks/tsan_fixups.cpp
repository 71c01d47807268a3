// zerolab::alloc_hooks in TSan builds: the calls whose TSan hooks (GCC 12 /
// LLVM 14) would make the counts differ from the interposed build. TSan
// runs no malloc hook for the memalign family, hands its hook nmemb instead
// of the byte count for reallocarray, and runs the free hook before a
// realloc that may fail; the wrappers below define those functions and
// reach the runtime's allocator through its __interceptor_ names.
//
// Each wrapper is uninstrumented straight-line code: the runtime may call it
// on a thread whose sanitizer state does not exist yet (TSan's thread start
// calls pthread_getattr_np, which reallocs), where any instrumented call
// would crash.
//
// Thread-safety: per thread (t_state).
//
// Example: void* p = aligned_alloc(64, 100);  // counted once: 1 alloc, 100 bytes
#include <stddef.h>

#include "alloc_hooks/glibc_alloc.hpp"
#include "alloc_hooks/hooks_state.hpp"
#include "alloc_hooks/uninstrumented.hpp"

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

namespace zerolab::internal::alloc_hooks {
namespace {

// Out of line and instrumented: the uninstrumented wrappers call these only
// on threads the runtime has set up (they have allocated from user code).
[[gnu::noinline]] void tsan_note_alloc(void* p, std::size_t n) noexcept {
  note_alloc(p, n);
}
[[gnu::noinline]] void tsan_untrack(std::int64_t size) noexcept {
  heap_add(-size);
}

// Calls the runtime's allocator fn(args...) and counts the block, of `n`
// bytes (`page_rounded`: pvalloc's n rounded up to a page), unless TSan's
// malloc hook counted it already (a runtime that adds the hooks will not
// double count).
template <typename... Args>
ZEROLAB_HOOKS_UNINSTRUMENTED inline void* count_unless_hooked(std::size_t n, bool page_rounded,
                                                              void* (*fn)(Args...),
                                                              Args... args) noexcept {
  ThreadState& t = t_state;
  t.malloc_hook_seen_ = false;
  void* p = fn(args...);
  if (p != nullptr && !t.malloc_hook_seen_) tsan_note_alloc(p, page_rounded ? pvalloc_bytes(n) : n);
  return p;
}

}  // namespace

void initialize_fixups() noexcept {}

}  // namespace zerolab::internal::alloc_hooks

namespace hooks = zerolab::internal::alloc_hooks;

extern "C" {

const char* zerolab_alloc_hooks_mode(void) {
  return "tsan";
}

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
  return zerolab::glibc_alloc::reallocarray_via(p, count, size, &realloc);
}

// The memalign family runs no malloc hook in TSan 14: counted here.
ZEROLAB_HOOKS_UNINSTRUMENTED void* memalign(size_t alignment, size_t n) noexcept {
  return hooks::count_unless_hooked(n, false, &__interceptor_memalign, alignment, n);
}

ZEROLAB_HOOKS_UNINSTRUMENTED void* aligned_alloc(size_t alignment, size_t n) noexcept {
  return hooks::count_unless_hooked(n, false, &__interceptor_aligned_alloc, alignment, n);
}

ZEROLAB_HOOKS_UNINSTRUMENTED void* valloc(size_t n) noexcept {
  return hooks::count_unless_hooked(n, false, &__interceptor_valloc, n);
}

ZEROLAB_HOOKS_UNINSTRUMENTED void* pvalloc(size_t n) noexcept {
  return hooks::count_unless_hooked(n, true, &__interceptor_pvalloc, n);
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
