// zerolab/pool.hpp — a cache of reusable objects, Go's sync.Pool for threads.
//
// Pool<T> keeps objects that are expensive to make (buffers, builders) for
// the next get(), so a hot loop stops allocating. Each thread that uses a
// pool has a private slot (get and put touch nothing shared when it hits),
// a lock-free shared cache other threads steal from, and a victim cache of
// what the last rotate() aged out. get() tries them in that order, then the
// other threads' caches, then calls the factory; put() past the per-thread
// bound frees the object. rotate() is Go's clean-up at GC, made explicit:
// an object that sits in the pool through one rotation is still there for a
// get() after it; after a second one it is freed. The design (Go's
// sync/pool.go and poolqueue.go with threads for Ps) is described in
// src/mem/pool_core.cpp.
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
#include <type_traits>
#include <utility>

namespace zerolab {

struct PoolOptions {
  std::size_t per_thread_bound = 64;          // objects in one thread's shared cache
  std::uint64_t rotate_every_gets = 0;        // > 0: rotate() after this many gets (per thread)
  std::chrono::milliseconds rotate_every{0};  // > 0: rotate() when a get misses and this passed
};

struct PoolStats {
  std::uint64_t created = 0;    // objects made by the factory
  std::uint64_t destroyed = 0;  // objects freed by bound, rotation or the pool's end
  std::uint64_t rotations = 0;
  std::uint64_t rings = 0;  // ring buffers allocated by all threads' caches
};

namespace internal {

// One thread's slot in one pool: the fields get() and put() touch inline.
// The caches (lock-free chains) follow it in src/mem/pool_core.cpp.
struct alignas(64) PoolLocal {
  std::atomic<bool> owned{true};  // a live thread owns it (handed over with release/acquire)
  // Owner-only:
  void* private_ = nullptr;
  std::uint64_t private_epoch_ = 0;  // the epoch private_ was put in
  std::uint64_t seen_epoch_ = 0;     // the last epoch this owner caught up with
  std::uint64_t gets_ = 0;
};

// The type-erased machinery behind every Pool<T> (src/mem/pool_core.cpp):
// the threads' caches, stealing, rotation, thread exit. Objects are void*;
// Pool<T>'s Shared makes and frees them through make() and destroy_object().
class PoolCore {
 public:
  explicit PoolCore(PoolOptions options);
  virtual ~PoolCore();
  PoolCore(const PoolCore&) = delete;
  PoolCore& operator=(const PoolCore&) = delete;

  // The slow paths of get and put, out of line.
  void catch_up(PoolLocal* l);           // the owner missed a rotation
  void* get_slow(PoolLocal* l);          // the private slot was empty
  void put_slow(PoolLocal* l, void* x);  // the private slot was full
  void rotate();
  PoolStats stats() const;
  // An exiting thread that used the pool gives its slot back.
  void thread_exit(PoolLocal* l) noexcept;
  // This thread's slot in the pool with this id: found or claimed, and
  // remembered for the fast path (pool_tls).
  static PoolLocal* attach(std::uint64_t id, const std::shared_ptr<PoolCore>& core);

  const PoolOptions options_;
  std::atomic<std::uint64_t> epoch_{0};

 protected:
  // Frees every cached object; the derived destructor calls it.
  void destroy_all() noexcept;

 private:
  virtual void* make() = 0;                           // the factory
  virtual void destroy_object(void* x) noexcept = 0;  // delete static_cast<T*>(x)
  void destroy(void* x) noexcept;
  PoolLocal* claim();

  struct State;  // the caches and the mutex (pool_core.cpp)
  std::unique_ptr<State> state_;
};

struct PoolTls {
  std::uint64_t id = 0;
  PoolLocal* local = nullptr;
};
// The last pool this thread used: the fast path's only lookup.
inline thread_local PoolTls pool_tls;

std::uint64_t next_pool_id() noexcept;

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
    internal::PoolLocal* l = local();
    internal::PoolCore& s = *shared_;
    if (s.options_.rotate_every_gets != 0 && ++l->gets_ >= s.options_.rotate_every_gets) {
      l->gets_ = 0;
      s.rotate();
    }
    // Relaxed: a stale epoch only means this get counts as before the
    // rotation it has not seen (the private slot is ours alone); catch_up
    // reads the epoch again under the mutex.
    if (l->seen_epoch_ != s.epoch_.load(std::memory_order_relaxed)) s.catch_up(l);
    if (void* x = l->private_) {
      l->private_ = nullptr;
      return static_cast<T*>(x);
    }
    return static_cast<T*>(s.get_slow(l));
  }

  // Gives obj back (the reset hook runs first). put(nullptr) does nothing.
  // REQUIRES: obj came from this pool's get() and is not used afterwards.
  void put(T* obj) {
    if (obj == nullptr) return;
    Shared& s = *shared_;
    if (s.reset_) s.reset_(*obj);
    internal::PoolLocal* l = local();
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

  // Frees every thread's victim cache and moves every thread's shared cache
  // into its victim cache; private objects age at their owner's next use.
  void rotate() { shared_->rotate(); }

  PoolStats stats() const { return shared_->stats(); }

 private:
  struct Shared final : internal::PoolCore {
    Shared(Factory f, ResetHook r, PoolOptions o)
        : internal::PoolCore(o), factory_(std::move(f)), reset_(std::move(r)) {}
    ~Shared() override { destroy_all(); }
    void* make() override { return factory_().release(); }
    void destroy_object(void* x) noexcept override { delete static_cast<T*>(x); }

    Factory factory_;
    ResetHook reset_;
  };

  internal::PoolLocal* local() {
    internal::PoolTls& tls = internal::pool_tls;
    if (tls.id == id_) return tls.local;
    return internal::PoolCore::attach(id_, shared_);
  }

  std::uint64_t id_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace zerolab

#endif  // ZEROLAB_POOL_HPP_
