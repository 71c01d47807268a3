// A pool of persistent threads for B::run_parallel.
//
// Threads are created on first need (with allocation counting paused, so a
// benchmark's allocs/op never include the harness's threads) and reused, so
// a parallel run costs a wake-up, not a thread creation. run() executes
// task(worker_index) on `threads` workers and returns when all have finished;
// the first exception a task throws is rethrown in the caller.
//
// Thread-safety: run() is called from one thread at a time.
//
// Example:
//   WorkerPool pool;
//   std::atomic<int> hits{0};
//   pool.run(4, [](void* c, int) { ++*static_cast<std::atomic<int>*>(c); }, &hits);
//   // hits == 4
#ifndef ZEROLAB_SRC_BENCH_WORKER_POOL_HPP_
#define ZEROLAB_SRC_BENCH_WORKER_POOL_HPP_

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace zerolab::internal {

class WorkerPool {
 public:
  WorkerPool() = default;
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Calls task(context, i) for i in [0, threads) on pool threads.
  // REQUIRES: threads >= 1.
  void run(int threads, void (*task)(void* context, int index), void* context);

 private:
  void worker_main(int index);

  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<std::thread> threads_;
  void (*task_)(void*, int) = nullptr;  // guarded by mu_
  void* context_ = nullptr;             // guarded by mu_
  int active_ = 0;                      // workers taking part in this generation
  int remaining_ = 0;                   // of those, not finished yet
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_BENCH_WORKER_POOL_HPP_
