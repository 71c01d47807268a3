// RangeSet and NodePool (page_heap_ranges.hpp).
#include "mem/page_heap_ranges.hpp"

#include <iterator>
#include <utility>

namespace zerolab::internal {

void NodePool::fill(std::size_t count) {
  while (spare_.size() < count) {
    RangeMap scratch;
    scratch.emplace(0, 0);
    spare_.push_back(scratch.extract(scratch.begin()));
  }
}

RangeMap::node_type NodePool::take(std::uintptr_t start, std::uintptr_t end) noexcept {
  RangeMap::node_type node = std::move(spare_.back());
  spare_.pop_back();
  node.key() = start;
  node.mapped() = end;
  return node;
}

void NodePool::give(RangeMap::node_type node) noexcept {
  if (spare_.size() < kCapacity) spare_.push_back(std::move(node));
}

void RangeSet::insert(std::uintptr_t start, std::uintptr_t end, NodePool& pool) noexcept {
  auto next = map_.lower_bound(start);
  auto prev = next == map_.begin() ? map_.end() : std::prev(next);
  const bool merge_prev = prev != map_.end() && prev->second == start;
  const bool merge_next = next != map_.end() && next->first == end;
  bytes_ += end - start;
  if (merge_prev && merge_next) {
    prev->second = next->second;
    pool.give(map_.extract(next));
  } else if (merge_prev) {
    prev->second = end;
  } else if (merge_next) {
    auto after = std::next(next);
    auto node = map_.extract(next);
    node.key() = start;
    map_.insert(after, std::move(node));
  } else {
    map_.insert(next, pool.take(start, end));
  }
}

RangeMap::const_iterator RangeSet::find(std::uintptr_t addr) const noexcept {
  auto it = map_.upper_bound(addr);
  if (it == map_.begin()) return map_.end();
  --it;
  return addr < it->second ? it : map_.end();
}

bool RangeSet::overlaps(std::uintptr_t start, std::uintptr_t end) const noexcept {
  auto it = map_.lower_bound(start);
  if (it != map_.end() && it->first < end) return true;
  return it != map_.begin() && std::prev(it)->second > start;
}

RangeMap::iterator RangeSet::first_fit(std::size_t n) noexcept {
  for (auto it = map_.begin(); it != map_.end(); ++it) {
    if (it->second - it->first >= n) return it;
  }
  return map_.end();
}

void RangeSet::trim_back(RangeMap::iterator it, std::size_t n, NodePool& pool) noexcept {
  bytes_ -= n;
  if (it->second - it->first == n) {
    pool.give(map_.extract(it));
  } else {
    it->second -= n;
  }
}

}  // namespace zerolab::internal
