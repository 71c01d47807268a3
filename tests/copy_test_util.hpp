// tests/copy_test_util.hpp — descriptors of every kind for the copy_fd
// tests: temporary files on disk and tmpfs, memfds, pipes, TCP loopback and
// UNIX stream socket pairs, and threads that feed or drain a peer end.
//
// Thread-safety: each helper object belongs to one test.
//
// Example:
//   SocketPair tcp = tcp_pair();          // tcp.a <-> tcp.b
//   Drain sink(tcp.b);                     // a thread reading tcp.b until EOF
//   ... copy into tcp.a, close it ...
//   std::string got = sink.take();
#ifndef ZEROLAB_TESTS_COPY_TEST_UTIL_HPP_
#define ZEROLAB_TESTS_COPY_TEST_UTIL_HPP_

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

namespace zerolab::copy_test {

inline std::string pattern(std::size_t size, std::uint32_t seed = 1) {
  std::string s(size, '\0');
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& c : s) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  return s;
}

// FNV-1a: a checksum printed on mismatch instead of megabytes.
inline std::uint64_t checksum(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

inline void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t m = write(fd, p, n);
    if (m < 0 && errno == EINTR) continue;
    if (m <= 0) return;
    p += m;
    n -= static_cast<std::size_t>(m);
  }
}

inline std::string read_all(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      usleep(1000);
      continue;
    }
    if (n <= 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

inline std::string pread_all(int fd) {
  std::string out;
  char buf[65536];
  off_t off = 0;
  for (;;) {
    const ssize_t n = pread(fd, buf, sizeof buf, off);
    if (n <= 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
    off += n;
  }
}

// A directory removed (with its files) on destruction.
class TempDir {
 public:
  explicit TempDir(const char* base = "/tmp") {
    path_ = std::string(base) + "/zerolab_copy_XXXXXX";
    if (mkdtemp(path_.data()) == nullptr) path_.clear();
  }
  ~TempDir() {
    if (!path_.empty()) {
      const std::string cmd = "rm -rf '" + path_ + "'";
      if (std::system(cmd.c_str()) != 0) {
      }
    }
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline int create_file(const std::string& path, const std::string& data, int flags = O_RDWR) {
  const int fd = open(path.c_str(), flags | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    write_all(fd, data.data(), data.size());
    lseek(fd, 0, SEEK_SET);
  }
  return fd;
}

// The read end of a pipe holding `data` (at most a pipe's capacity) whose
// write end is closed, or -1.
inline int pipe_holding(const std::string& data) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return -1;
  write_all(p[1], data.data(), data.size());
  close(p[1]);
  return p[0];
}

inline int make_memfd(const std::string& data) {
  const int fd = memfd_create("zerolab_copy_test", MFD_CLOEXEC);
  if (fd >= 0) {
    write_all(fd, data.data(), data.size());
    lseek(fd, 0, SEEK_SET);
  }
  return fd;
}

struct SocketPair {
  int a = -1;
  int b = -1;
};

inline SocketPair unix_pair() {
  int fds[2] = {-1, -1};
  socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
  return {fds[0], fds[1]};
}

inline SocketPair tcp_pair(int sndbuf = 0, int rcvbuf = 0) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bind(listener, reinterpret_cast<sockaddr*>(&addr), len);
  listen(listener, 1);
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  const int a = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sndbuf > 0) setsockopt(a, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  connect(a, reinterpret_cast<sockaddr*>(&addr), len);
  const int b = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (rcvbuf > 0) setsockopt(b, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  close(listener);
  return {a, b};
}

// A thread reading `fd` until end of file; take() joins it.
class Drain {
 public:
  explicit Drain(int fd, bool close_after = true)
      : thread_([this, fd, close_after] {
          data_ = read_all(fd);
          if (close_after) close(fd);
        }) {}
  ~Drain() {
    if (thread_.joinable()) thread_.join();
  }
  std::string take() {
    if (thread_.joinable()) thread_.join();
    return std::move(data_);
  }

 private:
  std::string data_;
  std::thread thread_;
};

// A thread writing `data` to `fd`, then closing it (or shutting a socket's
// write side) so the reader sees end of file.
class Feed {
 public:
  Feed(int fd, std::string data, std::size_t piece = 0, int pause_us = 0)
      : data_(std::move(data)), thread_([this, fd, piece, pause_us] {
          // A reader that went away must not kill the test with SIGPIPE;
          // a signal raised here stays with this thread and ends with it.
          sigset_t set;
          sigemptyset(&set);
          sigaddset(&set, SIGPIPE);
          pthread_sigmask(SIG_BLOCK, &set, nullptr);
          std::size_t off = 0;
          const std::size_t step = piece == 0 ? data_.size() : piece;
          while (off < data_.size()) {
            const std::size_t n = std::min(step, data_.size() - off);
            write_all(fd, data_.data() + off, n);
            off += n;
            if (pause_us > 0) usleep(static_cast<useconds_t>(pause_us));
          }
          close(fd);
        }) {}
  ~Feed() {
    if (thread_.joinable()) thread_.join();
  }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::string data_;
  std::thread thread_;
};

// Runs `body` in a forked child with SIGPIPE ignored; `body` returns the
// name of what ran ("" if it could not run) and fills `failures`. The
// parent fails the test if the child's checks did (printing them), and
// returns what ran.
inline std::string run_in_child(const std::function<std::string(std::string&)>& body) {
  int report[2];
  EXPECT_EQ(pipe2(report, O_CLOEXEC), 0);
  const pid_t child = fork();
  EXPECT_GE(child, 0);
  if (child == 0) {
    close(report[0]);
    signal(SIGPIPE, SIG_IGN);
    std::string failures;
    const std::string ran = body(failures);
    const std::string line = ran + "\n" + failures;
    write_all(report[1], line.data(), line.size());
    _exit(failures.empty() ? 0 : 1);
  }
  close(report[1]);
  const std::string out = read_all(report[0]);
  close(report[0]);
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, 0), child);
  const std::string ran = out.substr(0, out.find('\n'));
  EXPECT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
  return ran;
}

// In a child of run_in_child: files no larger than `bytes` (RLIMIT_FSIZE)
// with SIGXFSZ ignored, so that a write past the limit is short, then
// EFBIG. False if the limit cannot be set.
inline bool limit_file_size(rlim_t bytes) {
  signal(SIGXFSZ, SIG_IGN);
  const rlimit limit{bytes, bytes};
  return setrlimit(RLIMIT_FSIZE, &limit) == 0;
}

}  // namespace zerolab::copy_test

#endif  // ZEROLAB_TESTS_COPY_TEST_UTIL_HPP_
