// tests/page_heap_test_util.hpp — the PageHeap the tests use: arenas of a
// given size (2 MiB unless told) and no huge pages, so every span and count
// is exact.
//
// Example:
//   zerolab::PageHeap heap(zerolab::test::small_arenas(std::size_t{8} << 20));
#ifndef ZEROLAB_TESTS_PAGE_HEAP_TEST_UTIL_HPP_
#define ZEROLAB_TESTS_PAGE_HEAP_TEST_UTIL_HPP_

#include <cstddef>

#include "zerolab/page_heap.hpp"

namespace zerolab::test {

inline PageHeapOptions small_arenas(std::size_t arena = std::size_t{2} << 20) {
  PageHeapOptions o;
  o.arena_bytes = arena;
  o.huge_pages = HugePages::kOff;
  return o;
}

}  // namespace zerolab::test

#endif  // ZEROLAB_TESTS_PAGE_HEAP_TEST_UTIL_HPP_
