// Mapping, huge-page advice and prefaulting for PageHeap (page_heap_os.hpp),
// and transparent_huge_pages_available (zerolab/page_heap.hpp).
#include "mem/page_heap_os.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "zerolab/page_heap.hpp"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace zerolab {
namespace internal {
namespace {

constinit std::atomic<bool> g_populate_unsupported{false};

}  // namespace

void* map_anonymous(std::size_t bytes) noexcept {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void unmap_anonymous(void* p, std::size_t bytes) noexcept {
  munmap(p, bytes);
}

void advise_huge_pages(void* p, std::size_t bytes, bool huge) noexcept {
  const int saved = errno;
  madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  errno = saved;
}

bool prefault_pages(void* p, std::size_t bytes) noexcept {
  if (!g_populate_unsupported.load(std::memory_order_relaxed)) {
    if (madvise(p, bytes, MADV_POPULATE_WRITE) == 0) return true;
    if (errno == EINVAL) g_populate_unsupported.store(true, std::memory_order_relaxed);
  }
  auto* bytes_p = static_cast<unsigned char*>(p);
  for (std::size_t off = 0; off < bytes; off += PageHeap::kPageBytes) {
    __atomic_fetch_or(bytes_p + off, static_cast<unsigned char>(0), __ATOMIC_RELAXED);
  }
  return false;
}

}  // namespace internal

bool transparent_huge_pages_available() noexcept {
  static const bool available = [] {
    std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f == nullptr) return false;
    char line[128] = {};
    const bool read = std::fgets(line, sizeof line, f) != nullptr;
    std::fclose(f);
    return read &&
           (std::strstr(line, "[always]") != nullptr || std::strstr(line, "[madvise]") != nullptr);
  }();
  return available;
}

}  // namespace zerolab
