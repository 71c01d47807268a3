// zerolab::waste's mmap, munmap and mremap: each tells preload_state.cpp's
// cache of anonymous private mappings that the address space changed, so a
// range that was anonymous and now holds a file (a private file mapping put
// where an anonymous one was) is not taken for the kernel's zero pages. Each
// is the one system call glibc's wrapper makes. Mappings made inside libc
// and the dynamic loader (malloc's, dlopen's) do not pass through here:
// malloc's are anonymous, and a library is mapped where nothing was cached.
//
// Example: under zerolab waste,
//   memset(anon, 0, n);   // fresh pages, counted
//   munmap(anon, n); mmap(anon, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
//   memset(anon, 0, n);   // the file's pages: not counted
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdarg>

#include "waste/preload/preload_state.hpp"

ZEROLAB_WASTE_EXPORT void* mmap(void* addr, size_t n, int prot, int flags, int fd,
                                off_t offset) noexcept {
  zerolab::waste::note_mappings_changed();
  return reinterpret_cast<void*>(syscall(SYS_mmap, addr, n, prot, flags, fd, offset));
}

ZEROLAB_WASTE_EXPORT void* mmap64(void* addr, size_t n, int prot, int flags, int fd,
                                  off_t offset) noexcept {
  return mmap(addr, n, prot, flags, fd, offset);
}

ZEROLAB_WASTE_EXPORT int munmap(void* addr, size_t n) noexcept {
  zerolab::waste::note_mappings_changed();
  return static_cast<int>(syscall(SYS_munmap, addr, n));
}

ZEROLAB_WASTE_EXPORT void* mremap(void* old, size_t old_n, size_t new_n, int flags, ...) noexcept {
  void* wanted = nullptr;
  if ((flags & MREMAP_FIXED) != 0) {
    va_list args;
    va_start(args, flags);
    wanted = va_arg(args, void*);
    va_end(args);
  }
  zerolab::waste::note_mappings_changed();
  return reinterpret_cast<void*>(syscall(SYS_mremap, old, old_n, new_n, flags, wanted));
}
