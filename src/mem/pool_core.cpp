// zerolab::Pool's machinery (include/zerolab/pool.hpp), type-erased: the
// objects are void* here; Pool<T> inlines get/put's fast path and makes and
// frees objects through PoolCore's two virtual functions.
//
// Pool<T> keeps objects that are expensive to make (buffers, builders) for
// the next get(), so a hot loop stops allocating. Its layout is Go's
// sync.Pool (sync/pool.go, sync/poolqueue.go) with threads in the place of
// Ps. Every thread that uses a pool owns a Local with
//   - a private slot: get and put touch nothing shared when it hits (no
//     lock, no atomic read-modify-write; one relaxed load of the epoch);
//   - a shared chain, Go's poolChain: a lock-free chain of ring buffers
//     (8 slots, then each ring twice the last) into which the owner pushes
//     and from which it pops at the head, while other threads steal the
//     oldest objects from the tail (internal::PoolChain, pool_chain.hpp);
//   - a victim chain, the same structure: what the last rotation moved out
//     of this thread's cache, which any thread may take from the tail.
// get() looks at the private slot, then its own shared head, then steals
// from the other threads' shared tails, then tries its own victim and the
// other threads' victims, and only then calls the factory. put() fills the
// private slot, else pushes onto the shared head; past the per-thread bound
// (PoolOptions::per_thread_bound objects in one thread's shared chain) it
// frees the object.
//
// Rotation, the clean-up Go does at each GC with the world stopped, is
// explicit here, and runs while other threads get, put and steal: rotate()
// takes the pool's registry mutex (which also guards the victim chains'
// push end and thread registration, never the get/put fast paths), bumps
// the epoch, and for every Local frees what is left in its victim chain,
// then moves its shared chain into its victim chain by stealing from the
// tail, as any thief would. The private slot belongs to its owner alone, so
// it ages lazily: the owner notices the new epoch at its next get or put
// and, under the same mutex, moves a private object one rotation old to its
// victim chain and frees one two rotations old. The guarantee: an object
// that sits in the pool while rotate() runs is still there for a get() after
// it (in a victim), and after a second rotate() no get() hands it out again
// and it is freed — at that rotation if it was in a chain, or at the owner's
// next get/put or exit if it was a private object (a thread that stops
// using a pool keeps that one object until then). A put or get that runs at
// the same time as a rotation counts as before or after it. Optional
// automatic rotation: every K gets of one thread, or on a get that misses
// when T milliseconds have passed (PoolOptions).
//
// Memory: rings are never freed while the pool lives (a thief may still be
// reading one the chain has moved past; keeping them is the reclamation
// scheme, instead of Go's GC), and a chain stops growing at twice the bound
// rounded up to a power of two, so each thread costs a few KiB of rings at
// most. A put that finds a ring it cannot grow (the bound, or a thief slow
// to release a slot of a full ring) frees the object, as sync.Pool may drop
// anything. When a thread exits, its private object goes to its shared
// chain (within the bound) and its Local stays in the pool: other threads
// steal from it, rotations age it, and the next new thread takes it over.
// Nothing leaks; the pool's end frees every cached object and every ring.
//
// Example: see include/zerolab/pool.hpp; Pool<T>::get() calls get_slow()
// here when its private slot is empty.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "mem/pool_chain.hpp"
#include "mem/pool_registry.hpp"
#include "zerolab/pool.hpp"

namespace zerolab::internal {
namespace {

// A thread's slot with its caches.
struct alignas(64) LocalCaches : PoolLocal {
  explicit LocalCaches(std::size_t bound)
      : shared_(PoolChain::ring_limit(bound)),
        victim_(PoolChain::ring_limit(bound == SIZE_MAX ? bound : bound + 1)) {}
  LocalCaches* next_ = nullptr;  // the pool's list of slots; immutable once published
  // Producer: the owner. Consumers: thieves, the rotator.
  alignas(64) PoolChain shared_;
  // Producer: whoever holds State::mu_ (the rotator, a catching-up owner).
  // Consumers: any get.
  alignas(64) PoolChain victim_;
};

LocalCaches* caches(PoolLocal* l) {
  return static_cast<LocalCaches*>(l);
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Calls f(o) for every slot but l, starting after l (as Go starts at pid+1,
// so thieves spread over their victims), until f returns non-null.
template <typename F>
void* each_other(LocalCaches* head, LocalCaches* l, F&& f) {
  for (LocalCaches* o = l->next_; o != nullptr; o = o->next_) {
    if (void* x = f(o)) return x;
  }
  for (LocalCaches* o = head; o != l && o != nullptr; o = o->next_) {
    if (void* x = f(o)) return x;
  }
  return nullptr;
}

}  // namespace

struct PoolCore::State {
  ~State() {
    LocalCaches* l = head_.load(std::memory_order_acquire);
    while (l != nullptr) {
      LocalCaches* next = l->next_;
      delete l;  // and its rings
      l = next;
    }
  }
  std::atomic<LocalCaches*> head_{nullptr};  // slots are only added, and freed with the pool
  std::mutex mu_;                            // registration, rotation, the victim chains' push end
  std::atomic<std::uint64_t> created_{0};
  std::atomic<std::uint64_t> destroyed_{0};
  std::atomic<std::int64_t> last_rotate_ns_{0};
};

PoolCore::PoolCore(PoolOptions options) : options_(options), state_(std::make_unique<State>()) {
  state_->last_rotate_ns_.store(now_ns(), std::memory_order_relaxed);
}

PoolCore::~PoolCore() = default;

void PoolCore::destroy_all() noexcept {
  // No other thread can use the pool now: plain walks.
  for (LocalCaches* l = state_->head_.load(std::memory_order_acquire); l != nullptr; l = l->next_) {
    if (l->private_ != nullptr) destroy_object(l->private_);
    l->private_ = nullptr;
    while (void* x = l->shared_.pop_tail()) destroy_object(x);
    while (void* x = l->victim_.pop_tail()) destroy_object(x);
  }
}

void PoolCore::destroy(void* x) noexcept {
  destroy_object(x);
  state_->destroyed_.fetch_add(1, std::memory_order_relaxed);
}

// The owner catches up with the rotations it missed: its private object
// ages by epoch (one rotation: to its victim chain; two: freed). Under mu_,
// so no rotation runs in between and the victim's producer is us.
void PoolCore::catch_up(PoolLocal* slot) {
  LocalCaches* l = caches(slot);
  void* dead = nullptr;
  {
    std::lock_guard<std::mutex> g(state_->mu_);
    const std::uint64_t e = epoch_.load(std::memory_order_relaxed);
    if (void* x = l->private_; x != nullptr && e != l->private_epoch_) {
      l->private_ = nullptr;
      if (e - l->private_epoch_ >= 2 || !l->victim_.push_head(x)) dead = x;
    }
    l->seen_epoch_ = e;
  }
  if (dead != nullptr) destroy(dead);
}

void* PoolCore::get_slow(PoolLocal* slot) {
  LocalCaches* l = caches(slot);
  if (void* x = l->shared_.pop_head()) return x;
  LocalCaches* head = state_->head_.load(std::memory_order_acquire);
  if (void* x = each_other(head, l, [](LocalCaches* o) { return o->shared_.pop_tail(); })) return x;
  if (void* x = l->victim_.pop_tail()) return x;
  if (void* x = each_other(head, l, [](LocalCaches* o) { return o->victim_.pop_tail(); })) return x;
  if (options_.rotate_every.count() > 0) {
    const std::int64_t now = now_ns();
    const std::int64_t last = state_->last_rotate_ns_.load(std::memory_order_relaxed);
    if (now - last >= std::chrono::nanoseconds(options_.rotate_every).count()) rotate();
  }
  void* made = make();
  state_->created_.fetch_add(1, std::memory_order_relaxed);
  return made;
}

void PoolCore::put_slow(PoolLocal* slot, void* x) {
  LocalCaches* l = caches(slot);
  if (l->shared_.size_bound() < options_.per_thread_bound && l->shared_.push_head(x)) return;
  destroy(x);
}

void PoolCore::rotate() {
  std::vector<void*> dead;
  // Objects are destroyed after mu_ is released; if remembering one fails
  // for want of memory, it is destroyed at once instead of leaked.
  auto drop = [&](void* x) {
    try {
      dead.push_back(x);
    } catch (...) {
      destroy(x);
    }
  };
  {
    std::lock_guard<std::mutex> g(state_->mu_);
    // Relaxed: every reader that acts on the epoch (catch_up) reads it
    // again under mu_; the fast paths only compare it.
    epoch_.fetch_add(1, std::memory_order_relaxed);
    // At most the bound per chain, so an owner pushing as fast as we steal
    // cannot keep us here: what it pushes after we start counts as put
    // after this rotation.
    const std::size_t limit = options_.per_thread_bound < PoolChain::kMaxRing
                                  ? options_.per_thread_bound
                                  : PoolChain::kMaxRing;
    for (LocalCaches* o = state_->head_.load(std::memory_order_acquire); o != nullptr;
         o = o->next_) {
      // The old victim goes (only mu_'s holder pushes to it: this ends).
      while (void* x = o->victim_.pop_tail()) drop(x);
      for (std::size_t i = 0; i < limit; ++i) {
        void* x = o->shared_.pop_tail();
        if (x == nullptr) break;
        if (!o->victim_.push_head(x)) drop(x);
      }
    }
    state_->last_rotate_ns_.store(now_ns(), std::memory_order_relaxed);
  }
  for (void* x : dead) destroy(x);
}

PoolStats PoolCore::stats() const {
  PoolStats st;
  st.created = state_->created_.load(std::memory_order_relaxed);
  st.destroyed = state_->destroyed_.load(std::memory_order_relaxed);
  st.rotations = epoch_.load(std::memory_order_relaxed);
  for (LocalCaches* o = state_->head_.load(std::memory_order_acquire); o != nullptr; o = o->next_) {
    st.rings += o->shared_.rings() + o->victim_.rings();
  }
  return st;
}

void PoolCore::thread_exit(PoolLocal* slot) noexcept {
  LocalCaches* l = caches(slot);
  catch_up(l);                  // ages the private object
  if (void* x = l->private_) {  // still current: to the shared chain, where thieves find it
    l->private_ = nullptr;
    put_slow(l, x);
  }
  l->gets_ = 0;
  // Release: the next owner (claim's acquire CAS) sees this thread's
  // producer-side state of the chains and the empty private slot.
  l->owned.store(false, std::memory_order_release);
}

// This thread's slot: an abandoned one if any, else a new one.
PoolLocal* PoolCore::claim() {
  for (LocalCaches* o = state_->head_.load(std::memory_order_acquire); o != nullptr; o = o->next_) {
    bool expected = false;
    if (!o->owned.load(std::memory_order_relaxed) &&
        o->owned.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
      return o;  // seen_epoch_ is stale at worst: the first get or put catches up
    }
  }
  auto* l = new LocalCaches(options_.per_thread_bound);
  {
    std::lock_guard<std::mutex> g(state_->mu_);
    l->seen_epoch_ = epoch_.load(std::memory_order_relaxed);
    // Release: a thread that finds l through head_ (acquire) sees it
    // constructed. Under mu_ so rotate's walk and ours stay simple.
    l->next_ = state_->head_.load(std::memory_order_relaxed);
    state_->head_.store(l, std::memory_order_release);
  }
  return l;
}

PoolLocal* PoolCore::attach(std::uint64_t id, const std::shared_ptr<PoolCore>& core) {
  PoolLocal* l = find_pool_local(id);
  if (l == nullptr) {
    l = core->claim();
    register_pool_local(id, core, l);
  }
  pool_tls = PoolTls{id, l};
  return l;
}

}  // namespace zerolab::internal
