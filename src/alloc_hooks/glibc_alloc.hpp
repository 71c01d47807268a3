// glibc's real allocator and the argument rules of the malloc family, for
// every zerolab front that defines malloc & co. itself: alloc_hooks'
// interpose.cpp and tsan_fixups.cpp, and the zerolab::waste preload
// (src/waste/preload/preload_alloc.cpp). Header-only and free of libstdc++, so the
// preload (which links no C++ runtime) can use it.
//
// glibc exports its allocator a second time as __libc_malloc, ... @GLIBC_2.2.5.
// Internal calls between them (e.g. __libc_memalign -> malloc for small
// alignments) do not go through the PLT, so a front that forwards here
// counts nothing twice.
//
// The rules (C17, POSIX, glibc >= 2.38): aligned_alloc's alignment must be a
// power of two (EINVAL); posix_memalign's must also be a multiple of
// sizeof(void*) and it leaves errno alone; reallocarray fails with ENOMEM
// when count * size overflows; pvalloc rounds up to a page (one page for 0).
// The helpers are uninstrumented so the sanitizer fix-ups, which run on
// threads the runtime has not set up, may inline them.
//
// Example:
//   void* reallocarray(void* p, size_t count, size_t size) noexcept {
//     return zerolab::glibc_alloc::reallocarray_via(p, count, size, my_realloc);
//   }
#ifndef ZEROLAB_SRC_ALLOC_HOOKS_GLIBC_ALLOC_HPP_
#define ZEROLAB_SRC_ALLOC_HOOKS_GLIBC_ALLOC_HPP_

#include <errno.h>
#include <stddef.h>

#include "alloc_hooks/uninstrumented.hpp"

// noplt (GCC): call glibc through the GOT, one jump fewer on the hot path.
#if defined(__has_attribute)
#if __has_attribute(noplt)
#define ZEROLAB_GLIBC_NOPLT __attribute__((noplt))
#endif
#endif
#if !defined(ZEROLAB_GLIBC_NOPLT)
#define ZEROLAB_GLIBC_NOPLT
#endif

extern "C" {
ZEROLAB_GLIBC_NOPLT void* __libc_malloc(size_t n) noexcept;
ZEROLAB_GLIBC_NOPLT void* __libc_calloc(size_t count, size_t size) noexcept;
ZEROLAB_GLIBC_NOPLT void* __libc_realloc(void* p, size_t n) noexcept;
ZEROLAB_GLIBC_NOPLT void __libc_free(void* p) noexcept;
ZEROLAB_GLIBC_NOPLT void* __libc_memalign(size_t alignment, size_t n) noexcept;
ZEROLAB_GLIBC_NOPLT void* __libc_valloc(size_t n) noexcept;
ZEROLAB_GLIBC_NOPLT void* __libc_pvalloc(size_t n) noexcept;
}

namespace zerolab::glibc_alloc {

ZEROLAB_HOOKS_UNINSTRUMENTED inline bool is_power_of_two(size_t n) noexcept {
  return n != 0 && (n & (n - 1)) == 0;
}

// What pvalloc(n) allocates: n rounded up to `page`, one page for 0.
ZEROLAB_HOOKS_UNINSTRUMENTED inline size_t pvalloc_bytes(size_t n, size_t page) noexcept {
  return n == 0 ? page : (n + page - 1) / page * page;
}

// reallocarray on top of a realloc: ENOMEM (and p untouched) on overflow.
template <typename Realloc>
ZEROLAB_HOOKS_UNINSTRUMENTED inline void* reallocarray_via(void* p, size_t count, size_t size,
                                                           Realloc realloc_fn) noexcept {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc_fn(p, bytes);
}

// aligned_alloc on top of a memalign: EINVAL for an alignment that is not a
// power of two (the size need not be a multiple of it).
template <typename Memalign>
inline void* aligned_alloc_via(size_t alignment, size_t n, Memalign memalign_fn) noexcept {
  if (!is_power_of_two(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  return memalign_fn(alignment, n);
}

// posix_memalign on top of a memalign: EINVAL for a bad alignment, ENOMEM
// on failure, errno unchanged either way.
template <typename Memalign>
inline int posix_memalign_via(void** out, size_t alignment, size_t n,
                              Memalign memalign_fn) noexcept {
  if (alignment % sizeof(void*) != 0 || !is_power_of_two(alignment)) return EINVAL;
  const int saved_errno = errno;
  void* p = memalign_fn(alignment, n);
  if (p == nullptr) {
    errno = saved_errno;
    return ENOMEM;
  }
  *out = p;
  return 0;
}

}  // namespace zerolab::glibc_alloc

#endif  // ZEROLAB_SRC_ALLOC_HOOKS_GLIBC_ALLOC_HPP_
