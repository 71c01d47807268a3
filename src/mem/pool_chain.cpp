// zerolab::internal::PoolChain (pool_chain.hpp): Go's poolChain and
// poolDequeue (sync/poolqueue.go) for pointers, written for C++ atomics.
//
// A PoolRing is a fixed ring of 2^k slots with one 64-bit word that packs
// head (the next slot to fill, high 32 bits) and tail (the oldest object,
// low 32 bits). The producer pushes at head with an atomic add and pops at
// head with a CAS; consumers pop at tail with a CAS. Both ends move through
// the same word, so the last object goes to exactly one of them. A slot
// holds null when free: a consumer that has won slot t by moving tail still
// has to read it, and only then stores null, which hands the slot back to
// the producer; the producer never writes a slot that is not null (it
// reports the ring full instead). The indices are 32-bit and wrap; a ring
// holds at most 2^30 slots, so head - tail never wraps.
//
// A PoolChain links rings: pushes go to the newest (head_), and when it is
// full the producer links a ring twice its size after it. Tail pops start at
// the oldest ring still in the chain (tail_) and move tail_ on when a ring is
// empty for good, which is when a newer ring existed before the failed pop:
// the producer never pushes into a ring once a newer one exists. Go's GC
// frees rings nobody points to; here a thief may still hold a pointer to a
// ring tail_ has moved past, so rings stay allocated until the chain is
// destroyed. That is bounded: ring sizes double up to max_ring_, so a chain
// allocates at most log2(max_ring_ / 8) + 1 rings in its life.
#include <bit>
#include <new>

#include "mem/pool_chain.hpp"

namespace zerolab::internal {

struct PoolRing {
  // The word both ends move: head << 32 | tail. Its own cache line: the
  // owner and every thief write it.
  alignas(64) std::atomic<std::uint64_t> head_tail{0};
  // Written by the producer before the ring is published (tail_ or next,
  // with release), read-only after.
  std::uint32_t size = 0;  // a power of two
  std::atomic<void*>* slots = nullptr;
  PoolRing* older = nullptr;  // producer-only: every ring, for the destructor
  // The newer ring: null until the producer links one, then fixed.
  std::atomic<PoolRing*> next{nullptr};
  // The older ring, for pop_head to back up into; a consumer clears it
  // when it drops the older ring from the chain.
  std::atomic<PoolRing*> prev{nullptr};

  static std::uint32_t head_of(std::uint64_t ht) { return static_cast<std::uint32_t>(ht >> 32); }
  static std::uint32_t tail_of(std::uint64_t ht) { return static_cast<std::uint32_t>(ht); }
  static std::uint64_t pack(std::uint32_t head, std::uint32_t tail) {
    return (std::uint64_t{head} << 32) | tail;
  }
  std::atomic<void*>& slot(std::uint32_t i) { return slots[i & (size - 1)]; }

  // Producer only.
  bool push_head(void* x) noexcept {
    // Relaxed: only the producer moves head, so head is exact; a stale tail
    // only makes the ring look fuller than it is.
    const std::uint64_t ht = head_tail.load(std::memory_order_relaxed);
    const std::uint32_t head = head_of(ht);
    if (static_cast<std::uint32_t>(head - tail_of(ht)) == size) return false;  // full
    std::atomic<void*>& s = slot(head);
    // Acquire pairs with the release store of null in pop_tail: the thief
    // that last held this slot has finished reading it before we reuse it.
    // Not null: a thief has moved tail past the slot but not read it yet,
    // so the ring is still full.
    if (s.load(std::memory_order_acquire) != nullptr) return false;
    s.store(x, std::memory_order_relaxed);
    // Release publishes the slot (and the object's contents, written before
    // put) to whoever pops index head: consumers acquire head_tail by CAS,
    // and every later RMW on head_tail continues this release sequence.
    // Adding to the high half: a head that wraps past 2^32 carries out of
    // the word, harmlessly.
    head_tail.fetch_add(std::uint64_t{1} << 32, std::memory_order_release);
    return true;
  }

  // Producer only.
  void* pop_head() noexcept {
    std::uint64_t ht = head_tail.load(std::memory_order_relaxed);
    std::uint32_t head = 0;
    for (;;) {
      head = head_of(ht);
      const std::uint32_t tail = tail_of(ht);
      if (head == tail) return nullptr;
      // Take back slot head-1 before reading it: once head is lowered no
      // consumer can win that index. The CAS (rather than a store) is what
      // settles a race with a consumer for the last object. Relaxed is
      // enough: the slot was written by this producer (or a previous owner
      // that handed over with release/acquire), not by the consumers.
      if (head_tail.compare_exchange_weak(ht, pack(head - 1, tail), std::memory_order_relaxed,
                                          std::memory_order_relaxed)) {
        break;
      }
    }
    std::atomic<void*>& s = slot(head - 1);
    void* x = s.load(std::memory_order_relaxed);
    // No consumer can be reading this slot (it was never below tail in
    // this lap), so a relaxed store is enough to free it for our next push.
    s.store(nullptr, std::memory_order_relaxed);
    return x;
  }

  // Any thread.
  void* pop_tail() noexcept {
    std::uint64_t ht = head_tail.load(std::memory_order_acquire);
    std::uint32_t tail = 0;
    for (;;) {
      const std::uint32_t head = head_of(ht);
      tail = tail_of(ht);
      if (head == tail) return nullptr;
      // Confirms head (so the slot is published) and claims index tail.
      // Acquire on success synchronizes with the producer's release add
      // that published the slot: its store of the pointer, and the
      // object's contents, are visible to us.
      if (head_tail.compare_exchange_weak(ht, pack(head, tail + 1), std::memory_order_acquire,
                                          std::memory_order_acquire)) {
        break;
      }
    }
    std::atomic<void*>& s = slot(tail);
    void* x = s.load(std::memory_order_relaxed);
    // Release hands the slot back: the producer's acquire load of null in
    // push_head sees our read as done.
    s.store(nullptr, std::memory_order_release);
    return x;
  }
};

std::size_t PoolChain::ring_limit(std::size_t bound) noexcept {
  if (bound == 0) return 0;
  if (bound >= kMaxRing / 2) return kMaxRing;
  const std::size_t n = std::bit_ceil(bound) * 2;
  return n < kFirstRing ? kFirstRing : n;
}

PoolChain::~PoolChain() {
  for (PoolRing* r = head_; r != nullptr;) {
    PoolRing* older = r->older;
    delete[] r->slots;
    delete r;
    r = older;
  }
}

namespace {

PoolRing* new_ring(std::size_t size) noexcept {
  auto* r = new (std::nothrow) PoolRing;
  if (r == nullptr) return nullptr;
  r->slots = new (std::nothrow) std::atomic<void*>[size]();  // all null
  if (r->slots == nullptr) {
    delete r;
    return nullptr;
  }
  r->size = static_cast<std::uint32_t>(size);
  return r;
}

}  // namespace

bool PoolChain::push_head(void* x) noexcept {
  PoolRing* d = head_;
  if (d == nullptr) {
    if (max_ring_ == 0) return false;
    d = new_ring(kFirstRing < max_ring_ ? kFirstRing : max_ring_);
    if (d == nullptr) return false;
    head_ = d;
    rings_.fetch_add(1, std::memory_order_relaxed);
    // Release: a consumer that loads tail_ (acquire) sees the ring built.
    tail_.store(d, std::memory_order_release);
  }
  if (d->push_head(x)) {
    ++pushed_;
    return true;
  }
  // Full: link a ring twice the size, if we may.
  const std::size_t size = std::size_t{d->size} * 2;
  if (size > max_ring_) return false;
  PoolRing* d2 = new_ring(size);
  if (d2 == nullptr) return false;
  d2->older = d;
  d2->prev.store(d, std::memory_order_relaxed);  // published by the release below
  head_ = d2;
  // Release: a consumer that reads next (acquire) sees d2 built, and every
  // push into d before this point, so a failed pop on d after reading next
  // means d is empty for good.
  d->next.store(d2, std::memory_order_release);
  rings_.fetch_add(1, std::memory_order_relaxed);
  d2->push_head(x);  // an empty ring of size >= 16 has room
  ++pushed_;
  return true;
}

void* PoolChain::pop_head() noexcept {
  for (PoolRing* d = head_; d != nullptr;) {
    if (void* x = d->pop_head()) {
      ++popped_head_;
      return x;
    }
    // Older rings may still hold objects thieves have not taken. Acquire
    // is not needed for the ring's contents (we built it), only a valid
    // pointer; relaxed would do, acquire costs nothing on x86.
    d = d->prev.load(std::memory_order_acquire);
  }
  return nullptr;
}

void* PoolChain::pop_tail() noexcept {
  PoolRing* d = tail_.load(std::memory_order_acquire);
  while (d != nullptr) {
    // Read next *before* trying d: if it was already set and the pop then
    // fails, d will never be pushed to again and can leave the chain (if
    // next were read after, a push into d and the linking of a new ring
    // could both fall between the failed pop and the read).
    PoolRing* d2 = d->next.load(std::memory_order_acquire);
    if (void* x = d->pop_tail()) {
      popped_tail_.fetch_add(1, std::memory_order_relaxed);
      return x;
    }
    if (d2 == nullptr) return nullptr;  // the newest ring, empty for now
    // Drop the empty ring; one thief wins, the rest just move on. The ring
    // stays allocated (another thief may be inside it). Clearing d2->prev
    // keeps pop_head from backing up into it.
    PoolRing* expected = d;
    if (tail_.compare_exchange_strong(expected, d2, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      d2->prev.store(nullptr, std::memory_order_relaxed);
    }
    d = d2;
  }
  return nullptr;
}

}  // namespace zerolab::internal
