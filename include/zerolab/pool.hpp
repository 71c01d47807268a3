// zerolab/pool.hpp — a cache of reusable objects, Go's sync.Pool for threads.
//
// Pool<T> keeps objects that are expensive to make (buffers, builders) for
// the next get(), so a hot loop stops allocating. Its layout follows Go's
// sync.Pool: every thread that uses a pool gets its own private slot (get
// and put touch nothing shared when it hits: no lock, no atomic RMW), a
// per-thread shared list other threads steal from when their own is empty,
// and a victim cache that holds what the last rotation moved out. Without a
// garbage collector the clean-up is explicit: rotate() moves every primary
// cache to the victim and drops the old victim, so an object unused for one
// rotation survives it and is freed by the second; rotation can also run
// automatically every K gets or every T milliseconds (PoolOptions). Each
// thread's shared list is bounded (extra puts free the object). When a
// thread exits, its cache goes back to the pool (into the victim), and a
// new thread takes over the exited thread's slot.
//
// FIRST VERSION, said plainly: the private slot is lock-free, but each
// per-thread shared list is a mutex-protected vector (uncontended unless
// someone steals), not Go's lock-free poolChain; the victim is one
// mutex-protected list per pool, not per thread. A thread that stops using
// a pool keeps at most its private object until it exits or uses the pool
// again (rotation ages it lazily, by epoch).
//
// SimplePool<T> is the baseline: one mutex around one vector.
//
// Thread-safety: get, put, borrow and rotate are safe from any thread. An
// object belongs to exactly one owner: the pool or whoever got it. The pool
// must outlive every call on it and every Borrowed handle.
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
  std::size_t per_thread_bound = 64;  // objects in one thread's shared list
  std::uint64_t rotate_every_gets = 0;  // > 0: rotate() after this many gets (per thread)
  std::chrono::milliseconds rotate_every{0};  // > 0: rotate() when a get misses and this passed
};

struct PoolStats {
  std::uint64_t created = 0;    // objects made by the factory
  std::uint64_t destroyed = 0;  // objects freed by bound, rotation or the pool's end
  std::uint64_t rotations = 0;
};

namespace detail {

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

}  // namespace detail

template <typename T>
class Pool {
 public:
  using Factory = std::function<std::unique_ptr<T>()>;
  using ResetHook = std::function<void(T&)>;
  using Borrowed = detail::PoolHandle<Pool, T>;

  // REQUIRES: factory (or T default-constructible) returns non-null objects.
  explicit Pool(Factory factory = detail::default_pool_factory<T>(), ResetHook reset = {},
                PoolOptions options = {})
      : id_(detail::next_pool_id()),
        shared_(std::make_shared<Shared>(std::move(factory), std::move(reset), options)) {}
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // An object from the cache, or a new one from the factory.
  T* get() {
    Local* l = local();
    Shared& s = *shared_;
    if (l->seen_epoch_ != s.epoch_.load(std::memory_order_relaxed)) s.catch_up(l);
    if (s.options_.rotate_every_gets != 0 && ++l->gets_ >= s.options_.rotate_every_gets) {
      l->gets_ = 0;
      rotate();
    }
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

  // Moves the primary caches to the victim and frees the old victim.
  void rotate() { shared_->rotate(); }

  PoolStats stats() const {
    PoolStats st;
    st.created = shared_->created_.load(std::memory_order_relaxed);
    st.destroyed = shared_->destroyed_.load(std::memory_order_relaxed);
    st.rotations = shared_->epoch_.load(std::memory_order_relaxed);
    return st;
  }

 private:
  struct alignas(64) Local : detail::PoolLocalBase {
    // Owner-only (the thread holding `owned`):
    T* private_ = nullptr;
    std::uint64_t private_epoch_ = 0;
    std::uint64_t seen_epoch_ = 0;
    std::uint64_t gets_ = 0;
    // Shared, under mu_:
    std::mutex mu_;
    std::vector<T*> shared_;
    Local* next_ = nullptr;  // immutable once published
  };

  struct Shared final : detail::PoolSharedBase {
    Shared(Factory f, ResetHook r, PoolOptions o)
        : factory_(std::move(f)), reset_(std::move(r)), options_(o) {
      last_rotate_ns_.store(now_ns(), std::memory_order_relaxed);
    }
    ~Shared() override {
      Local* l = head_.load(std::memory_order_acquire);
      while (l != nullptr) {
        Local* next = l->next_;
        delete l->private_;
        for (T* x : l->shared_) delete x;
        delete l;
        l = next;
      }
      for (T* x : victim_) delete x;
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

    // The owner catches up with rotations it missed: its private object
    // ages by epoch (one rotation: to the victim; two: freed).
    void catch_up(Local* l) {
      const std::uint64_t e = epoch_.load(std::memory_order_acquire);
      if (T* x = l->private_) {
        l->private_ = nullptr;
        if (e - l->private_epoch_ >= 2) {
          destroy(x);
        } else {
          std::lock_guard<std::mutex> g(victim_mu_);
          victim_.push_back(x);
        }
      }
      l->seen_epoch_ = e;
    }

    T* get_slow(Local* l) {
      {
        std::lock_guard<std::mutex> g(l->mu_);
        if (!l->shared_.empty()) {
          T* x = l->shared_.back();
          l->shared_.pop_back();
          return x;
        }
      }
      for (Local* o = head_.load(std::memory_order_acquire); o != nullptr; o = o->next_) {
        if (o == l) continue;
        std::lock_guard<std::mutex> g(o->mu_);
        if (!o->shared_.empty()) {  // steal the oldest
          T* x = o->shared_.front();
          o->shared_.erase(o->shared_.begin());
          return x;
        }
      }
      {
        std::lock_guard<std::mutex> g(victim_mu_);
        if (!victim_.empty()) {
          T* x = victim_.back();
          victim_.pop_back();
          return x;
        }
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

    void put_slow(Local* l, T* x) {
      {
        std::lock_guard<std::mutex> g(l->mu_);
        if (l->shared_.size() < options_.per_thread_bound) {
          l->shared_.push_back(x);
          return;
        }
      }
      destroy(x);
    }

    void rotate() {
      std::lock_guard<std::mutex> rg(rotate_mu_);
      std::vector<T*> old;
      {
        std::lock_guard<std::mutex> g(victim_mu_);
        old.swap(victim_);
      }
      for (Local* o = head_.load(std::memory_order_acquire); o != nullptr; o = o->next_) {
        std::vector<T*> moved;
        {
          std::lock_guard<std::mutex> g(o->mu_);
          moved.swap(o->shared_);
        }
        if (!moved.empty()) {
          std::lock_guard<std::mutex> g(victim_mu_);
          victim_.insert(victim_.end(), moved.begin(), moved.end());
        }
      }
      epoch_.fetch_add(1, std::memory_order_release);
      last_rotate_ns_.store(now_ns(), std::memory_order_relaxed);
      for (T* x : old) destroy(x);
    }

    void thread_exit(detail::PoolLocalBase* base) noexcept override {
      auto* l = static_cast<Local*>(base);
      catch_up(l);  // ages the private object, and it goes to the victim
      if (T* x = l->private_) {
        l->private_ = nullptr;
        std::lock_guard<std::mutex> g(victim_mu_);
        victim_.push_back(x);
      }
      std::vector<T*> moved;
      {
        std::lock_guard<std::mutex> g(l->mu_);
        moved.swap(l->shared_);
      }
      {
        std::lock_guard<std::mutex> g(victim_mu_);
        victim_.insert(victim_.end(), moved.begin(), moved.end());
      }
      l->owned.store(false, std::memory_order_release);
    }

    // This thread's Local: an abandoned one if any, else a new one.
    Local* claim() {
      for (Local* o = head_.load(std::memory_order_acquire); o != nullptr; o = o->next_) {
        bool expected = false;
        if (!o->owned.load(std::memory_order_relaxed) &&
            o->owned.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
          o->seen_epoch_ = epoch_.load(std::memory_order_acquire);
          o->gets_ = 0;
          return o;
        }
      }
      auto* l = new Local;
      l->seen_epoch_ = epoch_.load(std::memory_order_acquire);
      Local* h = head_.load(std::memory_order_relaxed);
      do {
        l->next_ = h;
      } while (!head_.compare_exchange_weak(h, l, std::memory_order_release,
                                            std::memory_order_relaxed));
      return l;
    }

    Factory factory_;
    ResetHook reset_;
    PoolOptions options_;
    std::atomic<std::uint64_t> epoch_{0};
    std::atomic<Local*> head_{nullptr};
    std::mutex rotate_mu_;
    std::mutex victim_mu_;
    std::vector<T*> victim_;
    std::atomic<std::uint64_t> created_{0};
    std::atomic<std::uint64_t> destroyed_{0};
    std::atomic<std::int64_t> last_rotate_ns_{0};
  };

  Local* local() {
    detail::PoolTls& tls = detail::pool_tls;
    if (tls.id == id_) return static_cast<Local*>(tls.local);
    return local_slow();
  }

  Local* local_slow() {
    detail::PoolLocalBase* base = detail::find_pool_local(id_);
    if (base == nullptr) {
      base = shared_->claim();
      detail::register_pool_local(id_, shared_, base);
    }
    detail::pool_tls = detail::PoolTls{id_, base};
    return static_cast<Local*>(base);
  }

  std::uint64_t id_;
  std::shared_ptr<Shared> shared_;
};

// The seed's baseline: one mutex, one vector. Same get/put/borrow.
template <typename T>
class SimplePool {
 public:
  using Factory = std::function<std::unique_ptr<T>()>;
  using ResetHook = std::function<void(T&)>;
  using Borrowed = detail::PoolHandle<SimplePool, T>;

  explicit SimplePool(Factory factory = detail::default_pool_factory<T>(), ResetHook reset = {},
                      std::size_t bound = SIZE_MAX)
      : factory_(std::move(factory)), reset_(std::move(reset)), bound_(bound) {}
  SimplePool(const SimplePool&) = delete;
  SimplePool& operator=(const SimplePool&) = delete;
  ~SimplePool() {
    for (T* x : free_) delete x;
  }

  // An object from the list, or a new one from the factory.
  T* get() {
    {
      std::lock_guard<std::mutex> g(mu_);
      if (!free_.empty()) {
        T* x = free_.back();
        free_.pop_back();
        return x;
      }
    }
    return factory_().release();
  }
  // Gives obj back (reset hook first); frees it past the bound.
  void put(T* obj) {
    if (obj == nullptr) return;
    if (reset_) reset_(*obj);
    {
      std::lock_guard<std::mutex> g(mu_);
      if (free_.size() < bound_) {
        free_.push_back(obj);
        return;
      }
    }
    delete obj;
  }
  Borrowed borrow() { return Borrowed(this, get()); }

 private:
  Factory factory_;
  ResetHook reset_;
  std::size_t bound_;
  std::mutex mu_;
  std::vector<T*> free_;
};

}  // namespace zerolab

#endif  // ZEROLAB_POOL_HPP_
