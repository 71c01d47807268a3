// PageHeap's bookkeeping (zerolab/page_heap.hpp): sets of disjoint address
// ranges kept coalesced, whose changes never allocate.
//
// A RangeSet is a std::map from a range's start to its end. Every change
// takes the map nodes it needs from a NodePool and gives back the ones it
// frees, so once the caller has topped the pool up (which may throw
// std::bad_alloc before anything changed), inserting and erasing cannot
// fail half-way: the heap's operations are all-or-nothing.
//
// Thread-safety: none; PageHeap holds its mutex around every use.
#ifndef ZEROLAB_SRC_MEM_PAGE_HEAP_RANGES_HPP_
#define ZEROLAB_SRC_MEM_PAGE_HEAP_RANGES_HPP_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <vector>

namespace zerolab::internal {

using RangeMap = std::map<std::uintptr_t, std::uintptr_t>;  // start -> end

// Spare map nodes.
class NodePool {
 public:
  static constexpr std::size_t kCapacity = 16;
  NodePool() { spare_.reserve(kCapacity); }

  // Makes sure at least `count` nodes are spare. May throw std::bad_alloc.
  void fill(std::size_t count);
  // A spare node with key start and value end. REQUIRES: one is spare.
  RangeMap::node_type take(std::uintptr_t start, std::uintptr_t end) noexcept;
  // Keeps `node` for later (or frees it when the pool is full).
  void give(RangeMap::node_type node) noexcept;
  std::size_t size() const noexcept { return spare_.size(); }

 private:
  std::vector<RangeMap::node_type> spare_;
};

class RangeSet {
 public:
  // Adds [start, end), merging with ranges that touch it. Takes at most one
  // node. REQUIRES: start < end, no overlap with the set.
  void insert(std::uintptr_t start, std::uintptr_t end, NodePool& pool) noexcept;

  // Removes [start, end) from the set, calling piece(s, e) for every part
  // that was in it, in address order; returns the bytes removed. Takes at
  // most one node (when a range is split in two).
  template <class Piece>
  std::size_t erase(std::uintptr_t start, std::uintptr_t end, NodePool& pool,
                    Piece&& piece) noexcept;

  // The range holding addr, or ranges().end().
  RangeMap::const_iterator find(std::uintptr_t addr) const noexcept;
  // Whether any range overlaps [start, end).
  bool overlaps(std::uintptr_t start, std::uintptr_t end) const noexcept;

  // The lowest range of at least n bytes, or ranges().end().
  RangeMap::iterator first_fit(std::size_t n) noexcept;

  // Shortens the range at `it` from above by n bytes (erasing it when n is
  // its whole size). REQUIRES: n <= its size.
  void trim_back(RangeMap::iterator it, std::size_t n, NodePool& pool) noexcept;

  std::size_t bytes() const noexcept { return bytes_; }
  const RangeMap& ranges() const noexcept { return map_; }
  RangeMap& ranges() noexcept { return map_; }

 private:
  RangeMap map_;
  std::size_t bytes_ = 0;
};

template <class Piece>
std::size_t RangeSet::erase(std::uintptr_t start, std::uintptr_t end, NodePool& pool,
                            Piece&& piece) noexcept {
  std::size_t removed = 0;
  auto it = map_.upper_bound(start);
  if (it != map_.begin() && std::prev(it)->second > start) --it;
  while (it != map_.end() && it->first < end) {
    const std::uintptr_t rs = it->first;
    const std::uintptr_t re = it->second;
    const std::uintptr_t s = rs < start ? start : rs;
    const std::uintptr_t e = re > end ? end : re;
    if (s >= e) {
      ++it;
      continue;
    }
    piece(s, e);
    removed += e - s;
    if (rs < start && re > end) {  // split in two
      it->second = start;
      map_.insert(pool.take(end, re));
      break;
    }
    if (rs < start) {  // keep the head
      it->second = start;
      ++it;
    } else if (re > end) {  // keep the tail: re-key the node
      auto next = std::next(it);
      auto node = map_.extract(it);
      node.key() = end;
      map_.insert(next, std::move(node));
      break;
    } else {
      auto next = std::next(it);
      pool.give(map_.extract(it));
      it = next;
    }
  }
  bytes_ -= removed;
  return removed;
}

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_PAGE_HEAP_RANGES_HPP_
