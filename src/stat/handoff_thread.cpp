// HandOffThread (stat/handoff_thread.hpp): a thread that runs only while its
// owner waits, handing the turn back and forth under one mutex.
//
// Example:
//   zerolab::stat::HandOffThread t([](zerolab::stat::HandOffThread& self) { self.yield(); });
//   t.resume();  // true: the body yielded
//   t.resume();  // false: the body returned
#include "handoff_thread.hpp"

#include <utility>

namespace zerolab::stat {

HandOffThread::~HandOffThread() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    body_turn_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool HandOffThread::resume() {
  std::unique_lock<std::mutex> lock(mu_);
  if (finished_) return false;
  body_turn_ = true;
  if (thread_.joinable()) {
    cv_.notify_all();
  } else {
    try {
      thread_ = std::thread(&HandOffThread::run, this);
    } catch (...) {
      body_turn_ = false;
      throw;
    }
  }
  cv_.wait(lock, [this] { return !body_turn_; });
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  return !finished_;
}

bool HandOffThread::yield() {
  std::unique_lock<std::mutex> lock(mu_);
  if (cancelled_) return false;
  body_turn_ = false;
  cv_.notify_all();
  cv_.wait(lock, [this] { return body_turn_; });
  return !cancelled_;
}

void HandOffThread::run() {
  bool cancelled = false;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return body_turn_; });
    cancelled = cancelled_;
  }
  std::exception_ptr failure;
  if (!cancelled) {
    try {
      body_(*this);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    failure_ = std::move(failure);  // the exception now belongs to the owner alone
    finished_ = true;
    body_turn_ = false;
  }
  cv_.notify_all();
}

}  // namespace zerolab::stat
