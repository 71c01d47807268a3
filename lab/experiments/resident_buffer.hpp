// lab/resident_buffer.hpp — memory for benchmarks that zero a buffer in
// place: `size` bytes of private anonymous memory with every page written
// (1s), so what they time is the stores, not first-touch page faults.
//
// Thread-safety: the function maps new memory on each call; keep the
// result in a function-local static to share one buffer.
//
// Example:
//   static unsigned char* const p = map_resident(std::size_t{256} << 20);
//   if (p == nullptr) b.fatal("mmap of 256 MiB failed");
#ifndef ZEROLAB_LAB_RESIDENT_BUFFER_HPP_
#define ZEROLAB_LAB_RESIDENT_BUFFER_HPP_

#include <sys/mman.h>

#include <cstddef>
#include <cstring>

namespace zerolab::lab {

// Null when mmap fails; never unmapped (it lives as long as the process).
inline unsigned char* map_resident(std::size_t size) {
  void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  std::memset(m, 1, size);
  return static_cast<unsigned char*>(m);
}

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_RESIDENT_BUFFER_HPP_
