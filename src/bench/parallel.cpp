// The worker pool behind B::run_parallel (worker_pool.hpp).
#include "alloc_hooks/alloc_stats.hpp"
#include "bench/worker_pool.hpp"

namespace zerolab::internal {

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::run(int threads, void (*task)(void*, int), void* context) {
  std::unique_lock lock(mu_);
  while (static_cast<int>(threads_.size()) < threads) {
    alloc_stats::ScopedPause
        pause;  // the harness's own threads are not the benchmark's allocations
    const int index = static_cast<int>(threads_.size());
    threads_.emplace_back([this, index] { worker_main(index); });
  }
  task_ = task;
  context_ = context;
  active_ = threads;
  remaining_ = threads;
  error_ = nullptr;
  ++generation_;
  wake_.notify_all();
  done_.wait(lock, [this] { return remaining_ == 0; });
  task_ = nullptr;
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void WorkerPool::worker_main(int index) {
  std::uint64_t seen = 0;
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    if (index >= active_) continue;
    void (*task)(void*, int) = task_;
    void* context = context_;
    lock.unlock();
    std::exception_ptr error;
    try {
      task(context, index);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_) error_ = error;
    if (--remaining_ == 0) done_.notify_one();
  }
}

}  // namespace zerolab::internal
