// The kernel side of PageHeap (zerolab/page_heap.hpp): mapping arenas,
// huge-page advice, prefaulting.
//
// Thread-safety: all functions are safe from any thread.
#ifndef ZEROLAB_SRC_MEM_PAGE_HEAP_OS_HPP_
#define ZEROLAB_SRC_MEM_PAGE_HEAP_OS_HPP_

#include <cstddef>

namespace zerolab::internal {

// mmap(PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE), or
// nullptr with errno set.
void* map_anonymous(std::size_t bytes) noexcept;
void unmap_anonymous(void* p, std::size_t bytes) noexcept;

// madvise(MADV_HUGEPAGE) when `huge`, else MADV_NOHUGEPAGE; errors ignored
// (a kernel without THP says EINVAL and 4 KiB pages are what it gives).
void advise_huge_pages(void* p, std::size_t bytes, bool huge) noexcept;

// Makes every page of [p, p+bytes) present and writable without changing
// its bytes: MADV_POPULATE_WRITE, or, where the kernel lacks it, one
// atomic `or 0` per page. Returns false when it had to fall back.
bool prefault_pages(void* p, std::size_t bytes) noexcept;

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_PAGE_HEAP_OS_HPP_
