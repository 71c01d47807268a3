// zerolab::alloc_hooks, "interpose" mode (normal builds): defines malloc,
// calloc, realloc, free, aligned_alloc, posix_memalign, memalign, valloc,
// pvalloc, malloc_usable_size, reallocarray and every replaceable operator
// new/delete, forwarding to glibc's exported __libc_* entry points and
// counting through hooks_state.hpp. The static library is linked into the
// executable, so these definitions preempt libc's and libstdc++'s
// process-wide. CMake compiles this file only into builds without a
// sanitizer (src/CMakeLists.txt).
//
// Every entry point passes __builtin_return_address(0) down, and internal
// calls between entry points (realloc(nullptr) -> malloc, ...) go to *_impl
// functions, so the sampler learns the first frame outside the hooks.
//
// Thread-safety: as malloc's; the counting state is hooks_state.hpp's.
//
// Example:
//   void* p = malloc(100);  // counted: 1 alloc, 100 bytes
//   free(p);
#include <dlfcn.h>
#include <malloc.h>
#include <stdlib.h>

#include <new>

#include "alloc_hooks/glibc_alloc.hpp"
#include "alloc_hooks/hooks_abi.h"
#include "alloc_hooks/hooks_state.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#error "alloc_hooks: interpose.cpp in a sanitizer build (src/CMakeLists.txt picks the mode's files)"
#endif

// In a fully static executable (the zerolab CLI, src/CMakeLists.txt's
// zerolab_alloc_hooks_wrapped) libc.a defines malloc in the same archive
// member as __libc_malloc, so a second definition of malloc cannot
// preempt it: there the C entry points are named __wrap_malloc & co., and
// the link's --wrap=malloc,... sends every other object's calls to them.
#if defined(ZEROLAB_ALLOC_HOOKS_WRAPPED)
#define ZEROLAB_ALLOC_ENTRY(name) __wrap_##name
extern "C" std::size_t __real_malloc_usable_size(void* p) noexcept;
#else
#define ZEROLAB_ALLOC_ENTRY(name) name
#endif

namespace zerolab::internal::alloc_hooks {
namespace {

using UsableSizeFn = std::size_t (*)(void*) noexcept;
constinit std::atomic<UsableSizeFn> g_real_usable_size{nullptr};

// malloc_usable_size is a weak symbol in libc with no __libc_ alias; we
// define it ourselves, so look up the next definition (libc's) once.
UsableSizeFn real_usable_size() noexcept {
#if defined(ZEROLAB_ALLOC_HOOKS_WRAPPED)
  return &__real_malloc_usable_size;  // the link's --wrap names libc's
#else
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
#endif
}

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
  if (p == nullptr) [[unlikely]]
    return new_retry(n, 0, caller);
  note_alloc(p, n, caller);
  return p;
}

inline void* new_aligned_impl(std::size_t n, std::align_val_t alignment, void* caller) {
  const auto align = static_cast<std::size_t>(alignment);
  void* p = __libc_memalign(align, n);
  if (p == nullptr) [[unlikely]]
    return new_retry(n, align, caller);
  note_alloc(p, n, caller);
  return p;
}

inline void* new_nothrow_impl(std::size_t n, std::size_t alignment, void* caller) noexcept {
  void* p = raw_alloc(n, alignment);
  if (p == nullptr) [[unlikely]]
    return new_retry_nothrow(n, alignment, caller);
  note_alloc(p, n, caller);
  return p;
}

inline void delete_impl(void* p) noexcept {
  note_free(p);
  __libc_free(p);
}

// The bodies of the entry points that other entry points call, taking the
// caller's return address from the outermost one.
inline void* malloc_impl(std::size_t n, void* caller) noexcept {
  void* p = __libc_malloc(n);
  if (p != nullptr) [[likely]]
    note_alloc(p, n, caller);
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
  if (g_sampler.free_on_.load(std::memory_order_relaxed)) [[unlikely]]
    sample_free(p);
  if (g_heap.on_.load(std::memory_order_relaxed)) [[unlikely]]
    return realloc_tracked(p, n, caller);
  void* result = __libc_realloc(p, n);
  if (result != nullptr && n != 0 && count_alloc(n) &&
      g_sampler.alloc_on_.load(std::memory_order_relaxed)) [[unlikely]] {
    sample_alloc(result, n, caller);
  }
  return result;
}

}  // namespace

std::size_t usable_size(void* p) noexcept {
  if (p == nullptr) return 0;
  UsableSizeFn fn = real_usable_size();
  return fn != nullptr ? fn(p) : 0;
}

bool allocator_owns(void*) noexcept {
  return true;
}

bool can_sample() noexcept {
  return true;
}

void initialize_mode() noexcept {
  real_usable_size();
}

}  // namespace zerolab::internal::alloc_hooks

namespace hooks = zerolab::internal::alloc_hooks;

extern "C" {

const char* zerolab_alloc_hooks_mode(void) {
  return "interpose";
}

uint64_t zerolab_alloc_hooks_heap_in_use(void) {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

void ZEROLAB_ALLOC_ENTRY(free)(void* p) noexcept {
  hooks::delete_impl(p);
}

void* ZEROLAB_ALLOC_ENTRY(calloc)(size_t count, size_t size) noexcept {
  void* p = __libc_calloc(count, size);
  // success: no overflow
  if (p != nullptr) hooks::note_alloc(p, count * size, __builtin_return_address(0));
  return p;
}

void* ZEROLAB_ALLOC_ENTRY(malloc)(size_t n) noexcept {
  return hooks::malloc_impl(n, __builtin_return_address(0));
}

void* ZEROLAB_ALLOC_ENTRY(realloc)(void* p, size_t n) noexcept {
  return hooks::realloc_impl(p, n, __builtin_return_address(0));
}

void* ZEROLAB_ALLOC_ENTRY(reallocarray)(void* p, size_t count, size_t size) noexcept {
  void* const caller = __builtin_return_address(0);
  return zerolab::glibc_alloc::reallocarray_via(
      p, count, size, [caller](void* q, size_t n) { return hooks::realloc_impl(q, n, caller); });
}

void* ZEROLAB_ALLOC_ENTRY(memalign)(size_t alignment, size_t n) noexcept {
  return hooks::memalign_impl(alignment, n, __builtin_return_address(0));
}

// The alignment rules are glibc_alloc.hpp's.
void* ZEROLAB_ALLOC_ENTRY(aligned_alloc)(size_t alignment, size_t n) noexcept {
  void* const caller = __builtin_return_address(0);
  return zerolab::glibc_alloc::aligned_alloc_via(
      alignment, n, [caller](size_t a, size_t m) { return hooks::memalign_impl(a, m, caller); });
}

int ZEROLAB_ALLOC_ENTRY(posix_memalign)(void** out, size_t alignment, size_t n) noexcept {
  void* const caller = __builtin_return_address(0);
  return zerolab::glibc_alloc::posix_memalign_via(out, alignment, n, [caller](size_t a, size_t m) {
    return hooks::memalign_impl(a, m, caller);
  });
}

void* ZEROLAB_ALLOC_ENTRY(valloc)(size_t n) noexcept {
  void* p = __libc_valloc(n);
  if (p != nullptr) hooks::note_alloc(p, n, __builtin_return_address(0));
  return p;
}

void* ZEROLAB_ALLOC_ENTRY(pvalloc)(size_t n) noexcept {
  void* p = __libc_pvalloc(n);
  if (p != nullptr) hooks::note_alloc(p, hooks::pvalloc_bytes(n), __builtin_return_address(0));
  return p;
}

size_t ZEROLAB_ALLOC_ENTRY(malloc_usable_size)(void* p) noexcept {
  return hooks::usable_size(p);
}

}  // extern "C"

#define ZEROLAB_HOOKS_CALLER __builtin_return_address(0)
void* operator new(std::size_t n) {
  return hooks::new_impl(n, ZEROLAB_HOOKS_CALLER);
}
void* operator new[](std::size_t n) {
  return hooks::new_impl(n, ZEROLAB_HOOKS_CALLER);
}
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

void operator delete(void* p) noexcept {
  hooks::delete_impl(p);
}
void operator delete[](void* p) noexcept {
  hooks::delete_impl(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  hooks::delete_impl(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  hooks::delete_impl(p);
}
void operator delete(void* p, std::size_t) noexcept {
  hooks::delete_impl(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  hooks::delete_impl(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  hooks::delete_impl(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  hooks::delete_impl(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  hooks::delete_impl(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  hooks::delete_impl(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  hooks::delete_impl(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  hooks::delete_impl(p);
}
