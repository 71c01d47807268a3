// A function run on a thread of its own, one side at a time: resume() runs
// it until it calls yield() or returns, and only then does the caller go on.
// The two never run at once, so what they share needs no lock of its own:
// the hand-off orders every access. It is a coroutine for code that cannot
// be rewritten as one — nlohmann-json's SAX parser reads a whole document in
// one call, and the JSON reader (reader_json.cpp) must hand its records out
// one at a time without holding the whole file's records.
//
// Example:
//   int v = 0;
//   zerolab::stat::HandOffThread t([&v](zerolab::stat::HandOffThread& self) {
//     for (v = 1; v <= 3; ++v) {
//       if (!self.yield()) return;  // the owner went away
//     }
//   });
//   while (t.resume()) use(v);  // 1, 2, 3
#ifndef ZEROLAB_SRC_STAT_HANDOFF_THREAD_HPP_
#define ZEROLAB_SRC_STAT_HANDOFF_THREAD_HPP_

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace zerolab::stat {

class HandOffThread {
 public:
  using Body = std::function<void(HandOffThread&)>;

  explicit HandOffThread(Body body) : body_(std::move(body)) {}
  // A body still running is cancelled (its yield() returns false from then
  // on; it must return) and joined.
  ~HandOffThread();
  HandOffThread(const HandOffThread&) = delete;
  HandOffThread& operator=(const HandOffThread&) = delete;

  // Runs the body until it yields (true) or has returned (false). The first
  // call starts the thread (std::system_error when it cannot). What the body
  // threw is rethrown here, once, and the body counts as returned.
  bool resume();

  // For the body: hands the turn back and waits for the next resume().
  // False when the owner is being destroyed: the body should return.
  bool yield();

 private:
  void run();

  Body body_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool body_turn_ = false;
  bool finished_ = false;
  bool cancelled_ = false;
  std::exception_ptr failure_;
  std::thread thread_;  // last: started after, and joined before, the rest
};

}  // namespace zerolab::stat

#endif  // ZEROLAB_SRC_STAT_HANDOFF_THREAD_HPP_
