// A function run on a stack of its own, on the caller's thread, one side at
// a time: resume() runs it until it calls yield() or returns, and only then
// does the caller go on. A stackful coroutine (glibc's ucontext) for code
// that cannot be rewritten as one: nlohmann-json's SAX parser reads a whole
// document in one call, and the JSON reader (reader_json.cpp) must hand its
// records out one at a time without holding the whole file's records. No
// thread and no lock: the body runs only inside resume(), so what the two
// share is ordered by the calls themselves. ASan and TSan are told of every
// switch of stacks.
//
// Thread-safety: not thread-safe; one thread at a time calls resume().
//
// Example:
//   int v = 0;
//   zerolab::stat::Fiber f([&v](zerolab::stat::Fiber& self) {
//     for (v = 1; v <= 3; ++v) {
//       if (!self.yield()) return;  // the owner went away
//     }
//   });
//   while (f.resume()) use(v);  // 1, 2, 3
#ifndef ZEROLAB_SRC_STAT_FIBER_HPP_
#define ZEROLAB_SRC_STAT_FIBER_HPP_

#include <ucontext.h>

#include <cstddef>
#include <exception>
#include <functional>

namespace zerolab::stat {

class Fiber {
 public:
  using Body = std::function<void(Fiber&)>;

  // The body's stack, reserved (not committed) at the first resume(), below
  // a page that faults on overflow.
  static constexpr std::size_t kStackBytes = 1 << 20;

  explicit Fiber(Body body) : body_(std::move(body)) {}
  // A body still running is cancelled (its yield() returns false from then
  // on; it must return) and run until it has returned.
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the body until it yields (true) or has returned (false). The first
  // call makes the stack (std::system_error when it cannot). What the body
  // threw is rethrown here, once, and the body counts as returned. Not to be
  // called from the body.
  bool resume();

  // For the body: hands the turn back and waits for the next resume().
  // False when the owner is being destroyed: the body should return.
  bool yield();

  // Whether the owner is being destroyed (yield() then returns false at once).
  bool cancelled() const { return cancelled_; }

 private:
  static void entry(unsigned high, unsigned low);  // makecontext's start: the Fiber's address
  void run();
  void switch_to_body();
  void switch_to_owner();

  Body body_;
  void* mapping_ = nullptr;  // guard page + stack, kStackBytes + a page
  ucontext_t owner_{};
  ucontext_t body_context_{};
  bool finished_ = false;
  bool cancelled_ = false;
  std::exception_ptr failure_;
  // The sanitizers' bookkeeping across switches (unused without them).
  [[maybe_unused]] void* owner_fake_stack_ = nullptr;
  [[maybe_unused]] void* body_fake_stack_ = nullptr;
  [[maybe_unused]] const void* owner_stack_bottom_ = nullptr;
  [[maybe_unused]] std::size_t owner_stack_size_ = 0;
  [[maybe_unused]] void* tsan_owner_ = nullptr;
  [[maybe_unused]] void* tsan_body_ = nullptr;
};

}  // namespace zerolab::stat

#endif  // ZEROLAB_SRC_STAT_FIBER_HPP_
