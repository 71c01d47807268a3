// PageHeap's span cache (zerolab/page_heap.hpp): the spans freed most
// recently, kept whole so that the next allocation of exactly their size
// takes one back without touching the range maps.
//
// A cached span stays in PageHeap's live map (so a pointer into it is
// still found with one lookup) but is free: it belongs to no caller, it
// counts as free dirty memory, and a deallocate of it is a double free.
// Every cached span is dirty as a whole (it was freed after use; release()
// empties the cache before it hands memory back), so the cache needs no
// per-page state.
//
// A fixed array used as a LIFO stack: push on free, take the newest span
// of the exact size on allocate. kCapacity bounds the linear scans (take,
// contains) and the work of PageHeap's flush (a miss or a release returns
// every cached span to the free and dirty sets); it never allocates.
//
// Thread-safety: none; PageHeap holds its mutex around every use.
#ifndef ZEROLAB_SRC_MEM_PAGE_HEAP_CACHE_HPP_
#define ZEROLAB_SRC_MEM_PAGE_HEAP_CACHE_HPP_

#include <array>
#include <cstddef>
#include <cstdint>

namespace zerolab::internal {

class SpanCache {
 public:
  // Spans kept at most; a free that finds the cache full takes the slow
  // path (straight into the free and dirty sets).
  static constexpr std::size_t kCapacity = 32;

  struct Span {
    std::uintptr_t start;
    std::size_t size;  // bytes, page-rounded
  };

  bool empty() const noexcept { return count_ == 0; }
  bool full() const noexcept { return count_ == kCapacity; }
  std::size_t size() const noexcept { return count_; }
  // The bytes of all cached spans.
  std::size_t bytes() const noexcept { return bytes_; }

  // REQUIRES: !full(), the span is not cached.
  void push(std::uintptr_t start, std::size_t size) noexcept {
    spans_[count_++] = {start, size};
    bytes_ += size;
  }

  // Removes the most recently pushed span of exactly `size` bytes and
  // returns its start, or 0 when there is none.
  std::uintptr_t take(std::size_t size) noexcept {
    for (std::size_t i = count_; i-- > 0;) {
      if (spans_[i].size != size) continue;
      const std::uintptr_t start = spans_[i].start;
      for (std::size_t j = i + 1; j < count_; ++j) spans_[j - 1] = spans_[j];
      --count_;
      bytes_ -= size;
      return start;
    }
    return 0;
  }

  // Whether a cached span starts at `start`.
  bool contains(std::uintptr_t start) const noexcept {
    for (std::size_t i = 0; i < count_; ++i) {
      if (spans_[i].start == start) return true;
    }
    return false;
  }

  void clear() noexcept {
    count_ = 0;
    bytes_ = 0;
  }

  // Oldest first.
  const Span* begin() const noexcept { return spans_.data(); }
  const Span* end() const noexcept { return spans_.data() + count_; }

 private:
  // The counts first: they share a cache line with the newest spans
  // while the cache holds few.
  std::size_t count_ = 0;
  std::size_t bytes_ = 0;
  std::array<Span, kCapacity> spans_;
};

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_PAGE_HEAP_CACHE_HPP_
