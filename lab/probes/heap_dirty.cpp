// lab/probes/heap_dirty.cpp — seed 004's heap_dirty.c ("То же самое в
// куче") in C++, built beside the lab and run as a fresh process by the
// dirty-memory experiment, as the seed ran its program: malloc(64), fill it
// with 0xBB, free it, malloc(64) again; malloc(10 MiB), fill it with 0xCC,
// free it, malloc(10 MiB) again. For each of the four blocks it prints one
// line:
//   <label> <address> <mmapped 0|1> <non-zero bytes> <first non-zero offset> <hex of bytes 16..63>
// (bytes 0..15 of a freed small block hold glibc's tcache pointers, as the
// seed notes; the large blocks are scanned whole).
//
// Reading memory nobody initialized is undefined behaviour in C++: an empty
// asm statement claims to have written each block first ("memory"
// clobber), so what is read is defined at the language level and is the
// machine's bytes.
//
// Example:
//   build/release/lab/probes/heap_dirty
//   small-first 0x5581e2a012a0 0 0 0 00 00 ...
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr std::size_t kSmall = 64;
constexpr std::size_t kLarge = std::size_t{10} << 20;

unsigned char* opaque(unsigned char* p) {
  asm volatile("" : "+r"(p) : : "memory");
  return p;
}

// Prints one block's line; returns false if malloc failed.
bool report(const char* label, unsigned char* p, std::size_t n, bool mmapped) {
  if (p == nullptr) {
    std::printf("%s failed\n", label);
    return false;
  }
  std::size_t nonzero = 0;
  std::size_t first = 0;
  for (std::size_t i = (n == kSmall ? 16 : 0); i < n; ++i) {
    if (p[i] != 0 && nonzero++ == 0) first = i;
  }
  std::printf("%s %p %d %zu %zu", label, static_cast<void*>(p), mmapped ? 1 : 0, nonzero, first);
  for (std::size_t i = 16; i < kSmall; ++i) std::printf(" %02X", p[i]);
  std::printf("\n");
  return true;
}

// malloc(n) and whether glibc took it from mmap.
unsigned char* allocate(std::size_t n, bool& mmapped) {
  const std::size_t before = mallinfo2().hblkhd;
  unsigned char* p = opaque(static_cast<unsigned char*>(std::malloc(n)));
  mmapped = mallinfo2().hblkhd > before;
  return p;
}

// The seed's steps for one size: malloc, print, fill with `fill`, free,
// malloc the same size again, print, free. False if a malloc failed.
bool first_then_after_free(const char* first, const char* after_free, std::size_t n,
                           unsigned char fill) {
  bool mmapped = false;
  unsigned char* p = allocate(n, mmapped);
  if (!report(first, p, n, mmapped)) return false;
  std::memset(p, fill, n);
  std::free(opaque(p));
  unsigned char* again = allocate(n, mmapped);
  if (!report(after_free, again, n, mmapped)) return false;
  std::free(again);
  return true;
}

}  // namespace

int main() {
  if (!first_then_after_free("small-first", "small-after-free", kSmall, 0xBB)) return 1;
  if (!first_then_after_free("large-first", "large-after-free", kLarge, 0xCC)) return 1;
  return 0;
}
