// copy_fd while another thread keeps interrupting it with a signal whose
// handler is installed without SA_RESTART: every blocking call returns
// EINTR again and again, and the copy must still deliver every byte on
// every path. Labelled "concurrent" (runs under TSan too).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "copy_test_util.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::copy_test {
namespace {

std::atomic<int> g_interruptions{0};
extern "C" void count_signal(int) {
  g_interruptions.fetch_add(1, std::memory_order_relaxed);
}

// Sends SIGUSR1 to `target` every 50 µs until destroyed.
class Interrupter {
 public:
  explicit Interrupter(pthread_t target)
      : thread_([this, target] {
          while (!stop_.load(std::memory_order_relaxed)) {
            pthread_kill(target, SIGUSR1);
            usleep(50);
          }
        }) {}
  ~Interrupter() {
    stop_.store(true, std::memory_order_relaxed);
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class CopyInterrupted : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    struct sigaction sa {};
    sa.sa_handler = count_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: blocking calls fail with EINTR
    ASSERT_EQ(sigaction(SIGUSR1, &sa, &old_), 0);
  }
  void TearDown() override { sigaction(SIGUSR1, &old_, nullptr); }
  struct sigaction old_ {};
};

TEST_P(CopyInterrupted, EveryByteArrives) {
  const int variant = GetParam();
  TempDir disk("/tmp");
  const std::string data = pattern(3 << 20, 5);
  const int out = create_file(disk.file("out"), "");
  std::unique_ptr<Feed> feed;
  int src = -1;
  CopyOptions o;
  SocketPair sp;
  switch (variant) {
    case 0: {  // pipe → file: splice, the writer trickling
      int p[2];
      ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
      src = p[0];
      feed = std::make_unique<Feed>(p[1], data, 65536, 200);
      break;
    }
    case 1:  // TCP → file: splice through the cached pipe
      sp = tcp_pair();
      src = sp.b;
      feed = std::make_unique<Feed>(sp.a, data, 65536, 200);
      break;
    case 2: {  // pipe → file, forced read/write (O_APPEND destination)
      int p[2];
      ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
      src = p[0];
      feed = std::make_unique<Feed>(p[1], data, 65536, 200);
      fcntl(out, F_SETFL, O_APPEND);
      break;
    }
  }
  g_interruptions.store(0);
  CopyResult r;
  {
    Interrupter interrupter(pthread_self());
    r = copy_fd(src, out, o);
  }
  feed->join();
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data.size());
  EXPECT_EQ(checksum(pread_all(out)), checksum(data));
  EXPECT_GT(g_interruptions.load(), 0);
  close(src);
  close(out);
}

// File → pipe via sendfile, the reader slow, signals flying.
TEST_F(CopyInterrupted, SendfileIntoASlowPipe) {
  TempDir disk("/tmp");
  const std::string data = pattern(2 << 20, 6);
  const int in = create_file(disk.file("in"), data);
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  std::string got;
  std::thread reader([&] {
    char buf[16384];
    for (;;) {
      const ssize_t n = read(p[0], buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
      usleep(20);
    }
  });
  CopyResult r;
  {
    Interrupter interrupter(pthread_self());
    r = copy_fd(in, p[1]);
  }
  close(p[1]);
  reader.join();
  close(p[0]);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data.size());
  EXPECT_EQ(checksum(got), checksum(data));
  close(in);
}

INSTANTIATE_TEST_SUITE_P(Paths, CopyInterrupted, ::testing::Values(0, 1, 2));

}  // namespace
}  // namespace zerolab::copy_test
