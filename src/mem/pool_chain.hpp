// internal::PoolChain: Go's poolChain for pointers, the lock-free deque
// behind zerolab::Pool's per-thread caches (include/zerolab/pool.hpp,
// src/mem/pool_core.cpp); the algorithm is described in pool_chain.cpp.
//
// Example:
//   zerolab::internal::PoolChain chain(zerolab::internal::PoolChain::ring_limit(64));
//   chain.push_head(p);            // the owner
//   void* oldest = chain.pop_tail();  // any thread
#ifndef ZEROLAB_SRC_MEM_POOL_CHAIN_HPP_
#define ZEROLAB_SRC_MEM_POOL_CHAIN_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace zerolab::internal {

struct PoolRing;  // one ring buffer of a PoolChain (src/mem/pool_chain.cpp)

// Go's poolChain for pointers: a single-producer, multi-consumer deque made
// of ring buffers (Go's poolDequeue), each twice the size of the one before.
// The producer pushes and pops at the head (LIFO: the object it put last is
// the warmest); any thread pops at the tail (FIFO: thieves take the oldest).
// Lock-free: a push is two loads, a store and an atomic add; a pop is a CAS
// loop on the ring's packed head/tail word. Rings the tail has moved past
// stay allocated until the chain is destroyed (a slow thief may still be
// looking at one), so no pointer in the chain ever dangles; the chain stops
// growing at max_ring slots per ring, which bounds that memory.
//
// Thread-safety: push_head, pop_head and size_bound are for the producer
// only (one thread at a time; a handover between threads needs a
// release/acquire pair, as Pool's `owned` flag gives); pop_tail and rings
// are safe from any thread at any time. Null is never stored.
class PoolChain {
 public:
  static constexpr std::size_t kFirstRing = 8;
  static constexpr std::size_t kMaxRing = std::size_t{1} << 30;

  // The ring size that holds `bound` objects with room to spare: twice the
  // bound rounded up to a power of two, at least kFirstRing, at most
  // kMaxRing; 0 for a bound of 0 (a chain that holds nothing).
  static std::size_t ring_limit(std::size_t bound) noexcept;

  // max_ring: the largest ring it may allocate (a power of two, or 0).
  explicit PoolChain(std::size_t max_ring) noexcept : max_ring_(max_ring) {}
  ~PoolChain();
  PoolChain(const PoolChain&) = delete;
  PoolChain& operator=(const PoolChain&) = delete;

  // Producer: adds x at the head. False when the head ring is full and
  // cannot grow (max_ring reached, or out of memory): x stays the caller's.
  bool push_head(void* x) noexcept;
  // Producer: the newest object, or null when empty.
  void* pop_head() noexcept;
  // Producer: at least the number of objects held (exact when no pop_tail
  // is half done).
  std::size_t size_bound() const noexcept {
    return static_cast<std::size_t>(pushed_ - popped_head_ -
                                    popped_tail_.load(std::memory_order_relaxed));
  }
  // Any thread: the oldest object, or null when empty.
  void* pop_tail() noexcept;
  // Any thread: ring buffers allocated so far.
  std::size_t rings() const noexcept { return rings_.load(std::memory_order_relaxed); }

 private:
  // Producer side.
  PoolRing* head_ = nullptr;  // the ring pushes go to; each ring links the one before
  std::uint64_t pushed_ = 0;
  std::uint64_t popped_head_ = 0;
  std::size_t max_ring_;
  // Consumer side, on its own cache line: thieves write it, the owner
  // rarely reads it.
  alignas(64) std::atomic<PoolRing*> tail_{nullptr};
  std::atomic<std::uint64_t> popped_tail_{0};
  std::atomic<std::size_t> rings_{0};
};

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_POOL_CHAIN_HPP_
