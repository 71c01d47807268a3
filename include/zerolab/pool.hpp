// zerolab/pool.hpp — a cache of reusable objects, Go's sync.Pool for threads.
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
//     oldest objects from the tail (internal::PoolChain, src/mem/pool_chain.cpp);
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
// Thread-safety: get, put, borrow, rotate and stats are safe from any
// thread. An object belongs to exactly one owner: the pool or whoever got
// it. The pool must outlive every call on it and every Borrowed handle. The
// factory, the reset hook and ~T run outside the pool's mutex.
//
// Example:
//   zerolab::Pool<std::string> pool([] { return std::make_unique<std::string>(); },
//                                   [](std::string& s) { s.clear(); });
//   std::string* s = pool.get();
//   s->append("hello");
//   pool.put(s);
//   {
//     auto b = pool.borrow();   // put back at the end of the scope
//     b->append("world");
//   }
//   pool.rotate();              // from a timer, say: drops what sat unused
#ifndef ZEROLAB_POOL_HPP_
#define ZEROLAB_POOL_HPP_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

namespace zerolab {

struct PoolOptions {
  std::size_t per_thread_bound = 64;  // objects in one thread's shared chain
  std::uint64_t rotate_every_gets = 0;  // > 0: rotate() after this many gets (per thread)
  std::chrono::milliseconds rotate_every{0};  // > 0: rotate() when a get misses and this passed
};

struct PoolStats {
  std::uint64_t created = 0;    // objects made by the factory
  std::uint64_t destroyed = 0;  // objects freed by bound, rotation or the pool's end
  std::uint64_t rotations = 0;
  std::uint64_t rings = 0;      // ring buffers allocated by all threads' chains
};

namespace internal {

struct PoolLocalBase {
  std::atomic<bool> owned{true};
};

class PoolSharedBase {
 public:
  virtual ~PoolSharedBase() = default;
  // Called by an exiting thread that used the pool: give its cache back.
  virtual void thread_exit(PoolLocalBase* local) noexcept = 0;
};

struct PoolTls {
  std::uint64_t id = 0;
  PoolLocalBase* local = nullptr;
};
// The last pool this thread used: the fast path's only lookup.
inline thread_local PoolTls pool_tls;

std::uint64_t next_pool_id() noexcept;
// This thread's local for pool id, or null (slow: a scan of the thread's list).
PoolLocalBase* find_pool_local(std::uint64_t id) noexcept;
// Remembers (id, local) for this thread; thread_exit runs when it exits.
void register_pool_local(std::uint64_t id, std::weak_ptr<PoolSharedBase> shared,
                         PoolLocalBase* local);

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

// A move-only handle that puts its object back when it goes out of scope.
template <typename P, typename T>
class PoolHandle {
 public:
  PoolHandle(P* pool, T* obj) : pool_(pool), obj_(obj) {}
  PoolHandle(PoolHandle&& o) noexcept : pool_(o.pool_), obj_(std::exchange(o.obj_, nullptr)) {}
  PoolHandle& operator=(PoolHandle&& o) noexcept {
    if (this != &o) {
      reset();
      pool_ = o.pool_;
      obj_ = std::exchange(o.obj_, nullptr);
    }
    return *this;
  }
  PoolHandle(const PoolHandle&) = delete;
  PoolHandle& operator=(const PoolHandle&) = delete;
  ~PoolHandle() { reset(); }

  T* get() const { return obj_; }
  T& operator*() const { return *obj_; }
  T* operator->() const { return obj_; }
  // Puts the object back now.
  void reset() {
    if (obj_ != nullptr) pool_->put(std::exchange(obj_, nullptr));
  }
  // Keeps the object: the caller owns it (and may put it back later).
  T* release() { return std::exchange(obj_, nullptr); }

 private:
  P* pool_;
  T* obj_;
};

template <typename T>
std::function<std::unique_ptr<T>()> default_pool_factory() {
  if constexpr (std::is_default_constructible_v<T>) {
    return [] { return std::make_unique<T>(); };
  } else {
    return {};
  }
}

}  // namespace internal

template <typename T>
class Pool {
 public:
  using Factory = std::function<std::unique_ptr<T>()>;
  using ResetHook = std::function<void(T&)>;
  using Borrowed = internal::PoolHandle<Pool, T>;

  // REQUIRES: factory (or T default-constructible) returns non-null objects.
  explicit Pool(Factory factory = internal::default_pool_factory<T>(), ResetHook reset = {},
                PoolOptions options = {})
      : id_(internal::next_pool_id()),
        shared_(std::make_shared<Shared>(std::move(factory), std::move(reset), options)) {}
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // An object from the cache, or a new one from the factory.
  T* get() {
    Local* l = local();
    Shared& s = *shared_;
    if (s.options_.rotate_every_gets != 0 && ++l->gets_ >= s.options_.rotate_every_gets) {
      l->gets_ = 0;
      s.rotate();
    }
    // Relaxed: a stale epoch only means this get counts as before the
    // rotation it has not seen (the private slot is ours alone); catch_up
    // reads the epoch again under the mutex.
    if (l->seen_epoch_ != s.epoch_.load(std::memory_order_relaxed)) s.catch_up(l);
    if (T* x = l->private_) {
      l->private_ = nullptr;
      return x;
    }
    return s.get_slow(l);
  }

  // Gives obj back (the reset hook runs first). put(nullptr) does nothing.
  // REQUIRES: obj came from this pool's get() and is not used afterwards.
  void put(T* obj) {
    if (obj == nullptr) return;
    Shared& s = *shared_;
    if (s.reset_) s.reset_(*obj);
    Local* l = local();
    if (l->seen_epoch_ != s.epoch_.load(std::memory_order_relaxed)) s.catch_up(l);
    if (l->private_ == nullptr) {
      l->private_ = obj;
      l->private_epoch_ = l->seen_epoch_;
      return;
    }
    s.put_slow(l, obj);
  }

  // get() with a handle that put()s the object back at the end of its scope.
  Borrowed borrow() { return Borrowed(this, get()); }

  // Frees every thread's victim chain and moves every thread's shared chain
  // into its victim chain; private objects age at their owner's next use.
  void rotate() { shared_->rotate(); }

  PoolStats stats() const {
    PoolStats st;
    st.created = shared_->created_.load(std::memory_order_relaxed);
    st.destroyed = shared_->destroyed_.load(std::memory_order_relaxed);
    st.rotations = shared_->epoch_.load(std::memory_order_relaxed);
    for (Local* o = shared_->head_.load(std::memory_order_acquire); o != nullptr; o = o->next_) {
      st.rings += o->shared_.rings() + o->victim_.rings();
    }
    return st;
  }

 private:
  struct alignas(64) Local : internal::PoolLocalBase {
    explicit Local(std::size_t bound)
        : shared_(internal::PoolChain::ring_limit(bound)),
          victim_(internal::PoolChain::ring_limit(bound == SIZE_MAX ? bound : bound + 1)) {}
    // Owner-only (the thread holding `owned`; handed over with it):
    T* private_ = nullptr;
    std::uint64_t private_epoch_ = 0;  // the epoch private_ was put in
    std::uint64_t seen_epoch_ = 0;     // the last epoch this owner caught up with
    std::uint64_t gets_ = 0;
    Local* next_ = nullptr;  // the pool's list of Locals; immutable once published
    // Producer: the owner. Consumers: thieves, the rotator.
    alignas(64) internal::PoolChain shared_;
    // Producer: whoever holds Shared::mu_ (the rotator, a catching-up
    // owner). Consumers: any get.
    alignas(64) internal::PoolChain victim_;
  };

  struct Shared final : internal::PoolSharedBase {
    Shared(Factory f, ResetHook r, PoolOptions o)
        : factory_(std::move(f)), reset_(std::move(r)), options_(o) {
      last_rotate_ns_.store(now_ns(), std::memory_order_relaxed);
    }
    ~Shared() override {
      // No other thread can use the pool now: plain walks.
      Local* l = head_.load(std::memory_order_acquire);
      while (l != nullptr) {
        Local* next = l->next_;
        delete l->private_;
        while (void* x = l->shared_.pop_tail()) delete static_cast<T*>(x);
        while (void* x = l->victim_.pop_tail()) delete static_cast<T*>(x);
        delete l;  // and its rings
        l = next;
      }
    }

    static std::int64_t now_ns() {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    }

    void destroy(T* x) {
      delete x;
      destroyed_.fetch_add(1, std::memory_order_relaxed);
    }

    // The slow paths are kept out of line, so the inlined get/put stay small.
    // The owner catches up with the rotations it missed: its private object
    // ages by epoch (one rotation: to its victim chain; two: freed). Under
    // mu_, so no rotation runs in between and the victim's producer is us.
    [[gnu::noinline]] void catch_up(Local* l) {
      T* dead = nullptr;
      {
        std::lock_guard<std::mutex> g(mu_);
        const std::uint64_t e = epoch_.load(std::memory_order_relaxed);
        if (T* x = l->private_; x != nullptr && e != l->private_epoch_) {
          l->private_ = nullptr;
          if (e - l->private_epoch_ >= 2 || !l->victim_.push_head(x)) dead = x;
        }
        l->seen_epoch_ = e;
      }
      if (dead != nullptr) destroy(dead);
    }

    // Calls f(o) for every Local but l, starting after l (as Go starts at
    // pid+1, so thieves spread over their victims), until f returns non-null.
    template <typename F>
    static void* each_other(Local* head, Local* l, F&& f) {
      for (Local* o = l->next_; o != nullptr; o = o->next_) {
        if (void* x = f(o)) return x;
      }
      for (Local* o = head; o != l && o != nullptr; o = o->next_) {
        if (void* x = f(o)) return x;
      }
      return nullptr;
    }

    [[gnu::noinline]] T* get_slow(Local* l) {
      if (void* x = l->shared_.pop_head()) return static_cast<T*>(x);
      Local* head = head_.load(std::memory_order_acquire);
      if (void* x = each_other(head, l, [](Local* o) { return o->shared_.pop_tail(); })) {
        return static_cast<T*>(x);
      }
      if (void* x = l->victim_.pop_tail()) return static_cast<T*>(x);
      if (void* x = each_other(head, l, [](Local* o) { return o->victim_.pop_tail(); })) {
        return static_cast<T*>(x);
      }
      if (options_.rotate_every.count() > 0) {
        const std::int64_t now = now_ns();
        const std::int64_t last = last_rotate_ns_.load(std::memory_order_relaxed);
        if (now - last >= std::chrono::nanoseconds(options_.rotate_every).count()) rotate();
      }
      std::unique_ptr<T> made = factory_();
      created_.fetch_add(1, std::memory_order_relaxed);
      return made.release();
    }

    [[gnu::noinline]] void put_slow(Local* l, T* x) {
      if (l->shared_.size_bound() < options_.per_thread_bound && l->shared_.push_head(x)) return;
      destroy(x);
    }

    [[gnu::noinline]] void rotate() {
      std::vector<void*> dead;
      // Objects are destroyed after mu_ is released; if remembering one
      // fails for want of memory, it is destroyed at once instead of leaked.
      auto drop = [&](void* x) {
        try {
          dead.push_back(x);
        } catch (...) {
          destroy(static_cast<T*>(x));
        }
      };
      {
        std::lock_guard<std::mutex> g(mu_);
        // Relaxed: every reader that acts on the epoch (catch_up) reads it
        // again under mu_; the fast paths only compare it.
        epoch_.fetch_add(1, std::memory_order_relaxed);
        // At most the bound per chain, so an owner pushing as fast as we
        // steal cannot keep us here: what it pushes after we start counts
        // as put after this rotation.
        const std::size_t limit = options_.per_thread_bound < internal::PoolChain::kMaxRing
                                      ? options_.per_thread_bound
                                      : internal::PoolChain::kMaxRing;
        for (Local* o = head_.load(std::memory_order_acquire); o != nullptr; o = o->next_) {
          // The old victim goes (only mu_'s holder pushes to it: this ends).
          while (void* x = o->victim_.pop_tail()) drop(x);
          for (std::size_t i = 0; i < limit; ++i) {
            void* x = o->shared_.pop_tail();
            if (x == nullptr) break;
            if (!o->victim_.push_head(x)) drop(x);
          }
        }
        last_rotate_ns_.store(now_ns(), std::memory_order_relaxed);
      }
      for (void* x : dead) destroy(static_cast<T*>(x));
    }

    void thread_exit(internal::PoolLocalBase* base) noexcept override {
      auto* l = static_cast<Local*>(base);
      catch_up(l);  // ages the private object
      if (T* x = l->private_) {  // still current: to the shared chain, where thieves find it
        l->private_ = nullptr;
        put_slow(l, x);
      }
      l->gets_ = 0;
      // Release: the next owner (claim's acquire CAS) sees this thread's
      // producer-side state of the chains and the empty private slot.
      l->owned.store(false, std::memory_order_release);
    }

    // This thread's Local: an abandoned one if any, else a new one.
    Local* claim() {
      for (Local* o = head_.load(std::memory_order_acquire); o != nullptr; o = o->next_) {
        bool expected = false;
        if (!o->owned.load(std::memory_order_relaxed) &&
            o->owned.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
          return o;  // seen_epoch_ is stale at worst: the first get or put catches up
        }
      }
      auto* l = new Local(options_.per_thread_bound);
      {
        std::lock_guard<std::mutex> g(mu_);
        l->seen_epoch_ = epoch_.load(std::memory_order_relaxed);
        // Release: a thread that finds l through head_ (acquire) sees it
        // constructed. Under mu_ so rotate's walk and ours stay simple.
        l->next_ = head_.load(std::memory_order_relaxed);
        head_.store(l, std::memory_order_release);
      }
      return l;
    }

    Factory factory_;
    ResetHook reset_;
    PoolOptions options_;
    std::atomic<std::uint64_t> epoch_{0};
    std::atomic<Local*> head_{nullptr};  // Locals are only added, and freed with the pool
    std::mutex mu_;  // registration, rotation, the victim chains' push end
    std::atomic<std::uint64_t> created_{0};
    std::atomic<std::uint64_t> destroyed_{0};
    std::atomic<std::int64_t> last_rotate_ns_{0};
  };

  Local* local() {
    internal::PoolTls& tls = internal::pool_tls;
    if (tls.id == id_) return static_cast<Local*>(tls.local);
    return local_slow();
  }

  [[gnu::noinline]] Local* local_slow() {
    internal::PoolLocalBase* base = internal::find_pool_local(id_);
    if (base == nullptr) {
      base = shared_->claim();
      internal::register_pool_local(id_, shared_, base);
    }
    internal::pool_tls = internal::PoolTls{id_, base};
    return static_cast<Local*>(base);
  }

  std::uint64_t id_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace zerolab

#endif  // ZEROLAB_POOL_HPP_
