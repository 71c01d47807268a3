// lab/loopback.hpp — the loopback TCP plumbing the copy measurements share
// (lab/experiments/copy.cpp, bench/rigs/copy_bench.cpp, bench/rigs/copy_probe.cpp):
// a connected pair of sockets on 127.0.0.1, and a thread that keeps the far
// end busy, draining it or streaming into it, until it is destroyed.
// Header-only, POSIX only, nothing of zerolab.
//
// Thread-safety: a LoopbackPair is used from one thread; a PeerThread owns
// its thread and its end of the pair's traffic.
//
// Example:
//   std::string error;
//   LoopbackPair net = LoopbackPair::open(error);
//   if (!error.empty()) b.fatal(error);
//   PeerThread sink(net.peer(), /*sink=*/true);   // reads whatever we send
//   copy_fd(file, net.ours());
#ifndef ZEROLAB_LAB_LOOPBACK_HPP_
#define ZEROLAB_LAB_LOOPBACK_HPP_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace zerolab::lab {

// A connected loopback TCP pair: ours() is the measured end, peer() the other.
class LoopbackPair {
 public:
  // Opens the pair. before_connect(ours, listener), when given, runs before
  // connect(): socket buffer sizes must be set then for the window scale to
  // fit them (set the peer's on the listener; accept() inherits them).
  // On failure, `error` says which step failed and why, and the pair is empty.
  static LoopbackPair open(
      std::string& error,
      const std::function<void(int ours, int listener)>& before_connect = nullptr) {
    LoopbackPair p;
    error.clear();
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listener, 1) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      error = std::string("cannot listen on loopback: ") + std::strerror(errno);
      if (listener >= 0) ::close(listener);
      return p;
    }
    p.ours_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (p.ours_ >= 0 && before_connect) before_connect(p.ours_, listener);
    if (p.ours_ < 0 || ::connect(p.ours_, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
      error = std::string("cannot connect on loopback: ") + std::strerror(errno);
    } else if ((p.peer_ = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC)) < 0) {
      error = std::string("cannot accept on loopback: ") + std::strerror(errno);
    }
    ::close(listener);
    if (!error.empty()) p.reset();
    return p;
  }

  LoopbackPair() = default;
  LoopbackPair(LoopbackPair&& o) noexcept
      : ours_(std::exchange(o.ours_, -1)), peer_(std::exchange(o.peer_, -1)) {}
  LoopbackPair& operator=(LoopbackPair&& o) noexcept {
    if (this != &o) {
      reset();
      ours_ = std::exchange(o.ours_, -1);
      peer_ = std::exchange(o.peer_, -1);
    }
    return *this;
  }
  LoopbackPair(const LoopbackPair&) = delete;
  LoopbackPair& operator=(const LoopbackPair&) = delete;
  ~LoopbackPair() { reset(); }

  int ours() const noexcept { return ours_; }
  int peer() const noexcept { return peer_; }

  // Hands both descriptors to the caller, who closes them.
  std::pair<int, int> release() noexcept {
    return {std::exchange(ours_, -1), std::exchange(peer_, -1)};
  }

 private:
  void reset() noexcept {
    if (ours_ >= 0) ::close(ours_);
    if (peer_ >= 0) ::close(peer_);
    ours_ = peer_ = -1;
  }

  int ours_ = -1;
  int peer_ = -1;
};

// A thread on a socket: reads everything (sink) or sends an endless stream
// (source) until destroyed; the destructor shuts the socket down to wake it.
class PeerThread {
 public:
  PeerThread(int fd, bool sink)
      : fd_(fd), thread_([this, sink] {
          std::vector<char> buf(256 << 10, 'n');
          while (!stop_.load(std::memory_order_relaxed)) {
            const ssize_t n = sink ? ::read(fd_, buf.data(), buf.size())
                                   : ::send(fd_, buf.data(), buf.size(), MSG_NOSIGNAL);
            if (n <= 0 && errno != EINTR) break;
          }
        }) {}
  ~PeerThread() {
    stop_.store(true, std::memory_order_relaxed);
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
  }
  PeerThread(const PeerThread&) = delete;
  PeerThread& operator=(const PeerThread&) = delete;

 private:
  int fd_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_LOOPBACK_HPP_
