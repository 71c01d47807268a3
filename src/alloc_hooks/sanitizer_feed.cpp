// zerolab::alloc_hooks in ASan and TSan builds: the sanitizer owns malloc,
// so nothing is interposed; its allocator hooks
// (__sanitizer_install_malloc_and_free_hooks) feed the counters of
// hooks_state.hpp. Where a runtime's hooks would make the counts differ
// from the interposed build, asan_fixups.cpp or tsan_fixups.cpp
// compensate. No allocation sampling: the hooks run inside the runtime's
// allocator, where capturing a stack is not safe. CMake compiles this file
// only into sanitizer builds (src/CMakeLists.txt).
//
// Thread-safety: the hooks run on any thread; the state is hooks_state.hpp's.
//
// Example:
//   void* p = malloc(100);  // the runtime's malloc calls on_malloc_hook: 1 alloc, 100 bytes
#include <stddef.h>

#include "alloc_hooks/hooks_abi.h"
#include "alloc_hooks/hooks_state.hpp"

// The sanitizer allocator interface.
#if __has_include(<sanitizer/allocator_interface.h>)
#include <sanitizer/allocator_interface.h>
#else
// GCC ships the runtime but not this header; these are its declarations.
extern "C" {
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, size_t),
                                              void (*free_hook)(const volatile void*));
size_t __sanitizer_get_allocated_size(const volatile void* p);
int __sanitizer_get_ownership(const volatile void* p);
size_t __sanitizer_get_current_allocated_bytes(void);
}
#endif

namespace zerolab::internal::alloc_hooks {
namespace {

void on_malloc_hook(const volatile void* p, std::size_t n) {
  t_state.malloc_hook_seen_ = true;  // for tsan_fixups.cpp's wrappers
  if (p == nullptr) return;          // TSan also reports failures, with a null pointer
  note_alloc(const_cast<void*>(p), n);
}

void on_free_hook(const volatile void* p) {
  note_free(const_cast<void*>(p));
}

}  // namespace

std::size_t usable_size(void* p) noexcept {
  return __sanitizer_get_allocated_size(p);
}

bool allocator_owns(void* p) noexcept {
  return __sanitizer_get_ownership(p) != 0;
}

bool can_sample() noexcept {
  return false;
}

void initialize_mode() noexcept {
  __sanitizer_install_malloc_and_free_hooks(&on_malloc_hook, &on_free_hook);
  initialize_fixups();
}

}  // namespace zerolab::internal::alloc_hooks

extern "C" uint64_t zerolab_alloc_hooks_heap_in_use(void) {
  return __sanitizer_get_current_allocated_bytes();
}
