// lab/simple_pool.hpp — the baseline the lab measures zerolab::Pool
// against: one mutex around one vector of free objects, with Pool's
// get/put/borrow. Not library API (it was zerolab::SimplePool in
// zerolab/pool.hpp); bench/rigs/mem_bench and the pool tests use it.
//
// Thread-safety: every call takes the mutex; safe from any thread.
//
// Example:
//   zerolab::lab::SimplePool<std::string> pool;
//   std::string* s = pool.get();
//   pool.put(s);
#ifndef ZEROLAB_LAB_SIMPLE_POOL_HPP_
#define ZEROLAB_LAB_SIMPLE_POOL_HPP_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "zerolab/pool.hpp"

namespace zerolab::lab {

template <typename T>
class SimplePool {
 public:
  using Factory = std::function<std::unique_ptr<T>()>;
  using ResetHook = std::function<void(T&)>;
  using Borrowed = zerolab::internal::PoolHandle<SimplePool, T>;

  explicit SimplePool(Factory factory = zerolab::internal::default_pool_factory<T>(),
                      ResetHook reset = {}, std::size_t bound = SIZE_MAX)
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

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_SIMPLE_POOL_HPP_
