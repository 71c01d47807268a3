// copy_probe — raw-syscall measurements behind copy_fd's socket figures:
// how fast can this kernel move a cached file into a loopback TCP
// socket, and a loopback TCP socket into a file, with each system call
// strategy, and which side (sender or receiver) is the bottleneck? No
// zerolab copy code is involved: every strategy is a few lines of plain
// syscalls (their writes go through the project's write loop, a plain
// write(2) or send(2) retried until done).
//
//   copy_probe send [options] STRATEGY...   file → TCP; STRATEGY is
//       rw:BYTES        read()+send() through a buffer of BYTES
//       sendfile:BYTES  sendfile() in calls of at most BYTES
//       splice:BYTES    splice file → own pipe of BYTES → socket
//   copy_probe recv [options] STRATEGY...   TCP → file; STRATEGY is
//       rw:BYTES        read()+write() through a buffer of BYTES
//       splice:BYTES    splice socket → own pipe of BYTES → file
//   copy_probe small [--size BYTES] [--rounds N]
//       the fixed cost of one small copy (default 16 KiB, a cached file
//       rewound each time), ns per operation: the calls copy_fd makes to
//       inspect descriptors (fstat, fcntl F_GETFL, getsockopt SO_TYPE, a
//       SIGPIPE block/unblock pair) and whole small copies file → file
//       (read+write+read-to-EOF, copy_file_range to EOF, sendfile to EOF)
//       and file → TCP (read+send, sendfile)
//   options:
//       --size BYTES       payload per copy (default 64M); the source file
//                          (send) is this large, the peer streams it (recv)
//       --total BYTES      bytes per timed sample, whole copies (default 256M)
//       --rounds N         interleaved rounds (default 10): each round times
//                          every strategy once, in rotating order
//       --sndbuf BYTES     SO_SNDBUF on the sending end (default: autotuned)
//       --rcvbuf BYTES     SO_RCVBUF on the receiving end (default: autotuned)
//       --peer-buf BYTES   the peer's read/send buffer (default 256K)
//       --peer-process     the peer is a forked process, not a thread
//       --pin              copier on CPU 0, peer on CPU 1
//       --same-cpu         copier and peer both on CPU 0
//       --nodelay          TCP_NODELAY on the copier's socket
//       --dir DIR          where the file lives (default /tmp)
// Output: one line per strategy and round (GB/s; the copier's and the
// peer's CPU seconds per GB, user+sys of each thread over the sample; the
// sending socket's retransmits and bytes per segment; how often each side
// went to sleep per MB), then per strategy the median GB/s and the median
// of per-round ratios to the first strategy.
//
// What it showed on a 2-vCPU PVM guest (kernel 6.18): a
// syscall costs 1.2-2.5 µs; read+send of a 64 MiB cached file into loopback
// TCP runs at a steady 3.2 GB/s, sender-bound (0.30 s/GB on the sender,
// 0.15 on the receiver); sendfile takes the sender's two copies away but
// the receiver then copies out of page-cache pages, and its sender cost
// per GB swings 0.12-0.57 s/GB from round to round, so its throughput
// swings 1.7-8.2 GB/s (median 0.74-1.21x the loop; smaller sendfile chunks
// are worse); with both threads on one CPU it is a steady 0.81x (total CPU
// 0.67 vs 0.56 s/GB).
//
// Example:
//   copy_probe send rw:65536 sendfile:2147479552 splice:1048576
//   copy_probe send --size 1M rw:65536 sendfile:2147479552
//   copy_probe recv rw:65536 splice:1048576
//   copy_probe small --size 16K
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/tcp.h>  // struct tcp_info with tcpi_segs_out (glibc's lacks it)
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "files/atomic_file.hpp"
#include "lab/experiments/loopback.hpp"

namespace {

// The project's one write loop (files/atomic_file.hpp): write(2), or
// send(2) without SIGPIPE to a socket.
using zerolab::internal::write_all;
using zerolab::internal::WriteCall;

struct Config {
  bool send = true;
  std::size_t size = std::size_t{64} << 20;
  std::size_t total = std::size_t{256} << 20;
  int rounds = 10;
  int sndbuf = 0;
  int rcvbuf = 0;
  std::size_t peer_buf = 256 << 10;
  bool peer_process = false;
  bool pin = false;
  bool same_cpu = false;
  bool nodelay = false;
  std::string dir = "/tmp";
};

struct Strategy {
  std::string kind;  // rw, sendfile, splice
  std::size_t bytes = 0;
  std::string label;
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "copy_probe: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

std::size_t parse_size(const char* text) {
  char* end = nullptr;
  double v = std::strtod(text, &end);
  if (end == text) {
    std::fprintf(stderr, "copy_probe: bad size %s\n", text);
    std::exit(2);
  }
  switch (*end) {
    case 'K':
    case 'k':
      v *= 1024;
      break;
    case 'M':
    case 'm':
      v *= 1024 * 1024;
      break;
    case 'G':
    case 'g':
      v *= 1024.0 * 1024 * 1024;
      break;
    default:
      break;
  }
  return static_cast<std::size_t>(v);
}

double now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double cpu_of(int who) {
  rusage ru{};
  getrusage(who, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

// Times the calling thread went to sleep (voluntary context switches): a
// peer that keeps up sleeps, and each sleep costs the other side a wake-up.
double sleeps_of_thread() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return static_cast<double>(ru.ru_nvcsw);
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) die("sched_setaffinity");
}

// A connected loopback TCP pair: `ours` (the copier's) and `peer`, which the
// caller closes. Buffer sizes are set before connect, so the window scale
// fits them; the peer's on the listener, which accept() copies.
void tcp_pair(const Config& c, int& ours, int& peer) {
  std::string error;
  zerolab::lab::LoopbackPair pair =
      zerolab::lab::LoopbackPair::open(error, [&c](int us, int listener) {
        if (c.sndbuf > 0)
          setsockopt(c.send ? us : listener, SOL_SOCKET, SO_SNDBUF, &c.sndbuf, sizeof c.sndbuf);
        if (c.rcvbuf > 0)
          setsockopt(c.send ? listener : us, SOL_SOCKET, SO_RCVBUF, &c.rcvbuf, sizeof c.rcvbuf);
      });
  if (!error.empty()) {
    std::fprintf(stderr, "copy_probe: %s\n", error.c_str());
    std::exit(1);
  }
  std::tie(ours, peer) = pair.release();
  if (c.nodelay) {
    const int one = 1;
    setsockopt(ours, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
}

// The peer: drains (send mode) or streams (recv mode) until the socket
// closes. Accumulates its CPU time in *cpu when it is a thread; a process
// reports it through `report`.
void peer_loop(int fd, bool sink, std::size_t buf_size, std::atomic<double>* cpu_now,
               std::atomic<double>* sleeps_now) {
  std::vector<char> buf(buf_size, 'p');
  double last = 0;
  for (std::size_t i = 0;; ++i) {
    const ssize_t n =
        sink ? read(fd, buf.data(), buf.size()) : send(fd, buf.data(), buf.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (cpu_now != nullptr && (i & 15) == 0) {
      last = cpu_of(RUSAGE_THREAD);
      cpu_now->store(last, std::memory_order_relaxed);
      sleeps_now->store(sleeps_of_thread(), std::memory_order_relaxed);
    }
  }
}

class Peer {
 public:
  Peer(const Config& c, int fd, bool sink) : fd_(fd) {
    if (c.peer_process) {
      pid_ = fork();
      if (pid_ < 0) die("fork");
      if (pid_ == 0) {
        if (c.pin) pin_to(1);
        if (c.same_cpu) pin_to(0);
        peer_loop(fd, sink, c.peer_buf, nullptr, nullptr);
        _exit(0);
      }
      return;
    }
    thread_ = std::thread([this, c, fd, sink] {
      if (c.pin) pin_to(1);
      if (c.same_cpu) pin_to(0);
      peer_loop(fd, sink, c.peer_buf, &cpu_, &sleeps_);
    });
  }
  ~Peer() {
    shutdown(fd_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
    close(fd_);
  }
  // The peer's CPU seconds so far (a thread: sampled every 16 calls; a
  // process: /proc/PID/stat).
  double cpu() const {
    if (pid_ <= 0) return cpu_.load(std::memory_order_relaxed);
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid_));
    FILE* f = std::fopen(path, "r");
    if (f == nullptr) return 0;
    char buf[1024];
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    const char* p = std::strrchr(buf, ')');
    unsigned long ut = 0, st = 0;
    if (p == nullptr ||
        std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2) {
      return 0;
    }
    return static_cast<double>(ut + st) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }

 private:
  int fd_;
  pid_t pid_ = 0;
  std::thread thread_;
  std::atomic<double> cpu_{0};
  std::atomic<double> sleeps_{0};

 public:
  // The peer thread's sleeps so far (0 for a process).
  double sleeps() const { return sleeps_.load(std::memory_order_relaxed); }
};

struct Pipe {
  int fds[2] = {-1, -1};
  explicit Pipe(std::size_t size) {
    if (pipe2(fds, O_CLOEXEC) != 0) die("pipe2");
    if (fcntl(fds[1], F_SETPIPE_SZ, static_cast<int>(size)) < 0) die("F_SETPIPE_SZ");
  }
  ~Pipe() {
    close(fds[0]);
    close(fds[1]);
  }
};

// One copy of `size` bytes by strategy `s`; false on a short copy.
bool copy_once(const Strategy& s, int src, int dst, std::size_t size, bool dst_socket,
               std::vector<char>& buf, Pipe* pipe) {
  std::size_t done = 0;
  if (s.kind == "rw") {
    while (done < size) {
      const ssize_t n = read(src, buf.data(), std::min(s.bytes, size - done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      if (!write_all(dst, {buf.data(), static_cast<std::size_t>(n)},
                     dst_socket ? WriteCall::kSend : WriteCall::kWrite)) {
        return false;
      }
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
  if (s.kind == "sendfile") {
    while (done < size) {
      const ssize_t n = sendfile(dst, src, nullptr, std::min(s.bytes, size - done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
  while (done < size) {  // splice through the pipe
    const ssize_t n =
        splice(src, nullptr, pipe->fds[1], nullptr, std::min(s.bytes, size - done), SPLICE_F_MOVE);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    for (std::size_t left = static_cast<std::size_t>(n); left > 0;) {
      const ssize_t m = splice(pipe->fds[0], nullptr, dst, nullptr, left, SPLICE_F_MOVE);
      if (m < 0 && errno == EINTR) continue;
      if (m <= 0) return false;
      left -= static_cast<std::size_t>(m);
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::vector<Strategy> parse_strategies(const std::vector<std::string>& args, bool send) {
  std::vector<Strategy> out;
  for (const std::string& a : args) {
    const std::size_t colon = a.find(':');
    Strategy s;
    s.kind = a.substr(0, colon);
    s.bytes = colon == std::string::npos ? (64 << 10) : parse_size(a.c_str() + colon + 1);
    s.label = a;
    if (s.kind != "rw" && s.kind != "splice" && !(send && s.kind == "sendfile")) {
      std::fprintf(stderr, "copy_probe: unknown strategy %s\n", a.c_str());
      std::exit(2);
    }
    out.push_back(s);
  }
  return out;
}

// Segments the sending end of the connection has retransmitted so far
// (TCP_INFO): on loopback every one is a reordering the sender took for a
// loss, and each costs a congestion-window cut until DSACK undoes it.
unsigned retransmits(int sending_fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (getsockopt(sending_fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return 0;
  return info.tcpi_total_retrans;
}

// Segments the sending end has sent so far (TCP_INFO): bytes per segment
// shows whether a strategy sends full 64 KiB loopback segments.
unsigned segments_out(int sending_fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (getsockopt(sending_fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return 0;
  return info.tcpi_segs_out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int run(const Config& c, const std::vector<Strategy>& strategies) {
  const std::string path = c.dir + "/copy_probe_" + std::to_string(getpid());
  const int file = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file < 0) die("open " + path);
  unlink(path.c_str());
  {
    std::vector<char> chunk(1 << 20);
    for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<char>(i * 131 + 7);
    for (std::size_t done = 0; done < c.size; done += chunk.size()) {
      if (!write_all(file, {chunk.data(), std::min(chunk.size(), c.size - done)})) die("write");
    }
  }
  if (c.pin || c.same_cpu) pin_to(0);
  int ours = -1;
  int peer_fd = -1;
  tcp_pair(c, ours, peer_fd);
  Peer peer(c, peer_fd, c.send);
  std::size_t max_buf = 1 << 16;
  std::size_t max_pipe = 1 << 16;
  for (const Strategy& s : strategies) {
    if (s.kind == "rw") max_buf = std::max(max_buf, s.bytes);
    if (s.kind == "splice") max_pipe = std::max(max_pipe, s.bytes);
  }
  std::vector<char> buf(max_buf, 'c');
  Pipe pipe(max_pipe);
  const std::size_t copies = std::max<std::size_t>(1, c.total / c.size);
  const int src = c.send ? file : ours;
  const int dst = c.send ? ours : file;

  // Warm-up: every strategy once.
  for (const Strategy& s : strategies) {
    lseek(file, 0, SEEK_SET);
    if (!copy_once(s, src, dst, c.size, c.send, buf, &pipe)) die("warm-up copy " + s.label);
  }
  int sock_buf = 0;
  socklen_t len = sizeof sock_buf;
  getsockopt(ours, SOL_SOCKET, c.send ? SO_SNDBUF : SO_RCVBUF, &sock_buf, &len);
  std::printf("# %s, payload %zu B x %zu copies per sample, copier's %s %d B, peer %s%s%s\n",
              c.send ? "file -> TCP" : "TCP -> file", c.size, copies,
              c.send ? "SO_SNDBUF" : "SO_RCVBUF", sock_buf, c.peer_process ? "process" : "thread",
              c.pin        ? ", pinned 0/1"
              : c.same_cpu ? ", both on CPU 0"
                           : "",
              c.nodelay ? ", TCP_NODELAY" : "");
  std::printf("%-22s %5s %9s %12s %12s %8s %8s %13s %13s\n", "strategy", "round", "GB/s",
              "copier s/GB", "peer s/GB", "retrans", "KB/seg", "copier slp/MB", "peer slp/MB");
  const int sending = c.send ? ours : peer_fd;

  const std::size_t k = strategies.size();
  std::vector<std::vector<double>> rates(k), ratios(k), copier_cpu(k), peer_cpu(k);
  std::vector<unsigned> retrans(k);
  for (int round = 0; round < c.rounds; ++round) {
    std::vector<double> this_round(k);
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t i = (j + static_cast<std::size_t>(round)) % k;  // rotate the order
      const Strategy& s = strategies[i];
      const double peer0 = peer.cpu();
      const double cpu0 = cpu_of(RUSAGE_THREAD);
      const unsigned r0 = retransmits(sending);
      const unsigned s0 = segments_out(sending);
      const double sl0 = sleeps_of_thread();
      const double psl0 = peer.sleeps();
      const double t0 = now();
      for (std::size_t n = 0; n < copies; ++n) {
        lseek(file, 0, SEEK_SET);
        if (!copy_once(s, src, dst, c.size, c.send, buf, &pipe)) die("copy " + s.label);
      }
      const double t = now() - t0;
      const double gb = static_cast<double>(copies * c.size) / 1e9;
      const double cc = (cpu_of(RUSAGE_THREAD) - cpu0) / gb;
      const double pc = (peer.cpu() - peer0) / gb;
      const unsigned rt = retransmits(sending) - r0;
      const double kb_per_seg =
          static_cast<double>(copies * c.size) / 1e3 / std::max(1u, segments_out(sending) - s0);
      retrans[i] += rt;
      this_round[i] = gb / t;
      rates[i].push_back(gb / t);
      copier_cpu[i].push_back(cc);
      peer_cpu[i].push_back(pc);
      std::printf("%-22s %5d %9.3f %12.3f %12.3f %8u %8.1f %13.2f %13.2f\n", s.label.c_str(), round,
                  gb / t, cc, pc, rt, kb_per_seg, (sleeps_of_thread() - sl0) / (gb * 1e3),
                  (peer.sleeps() - psl0) / (gb * 1e3));
    }
    for (std::size_t i = 0; i < k; ++i) ratios[i].push_back(this_round[i] / this_round[0]);
    std::fflush(stdout);
  }
  std::printf("\n%-22s %9s %12s %12s %8s %14s %s\n", "strategy", "med GB/s", "copier s/GB",
              "peer s/GB", "retrans", "ratio to first", "(min..max per round)");
  for (std::size_t i = 0; i < k; ++i) {
    std::printf("%-22s %9.3f %12.3f %12.3f %8u %14.2f (%.2f..%.2f)\n", strategies[i].label.c_str(),
                median(rates[i]), median(copier_cpu[i]), median(peer_cpu[i]), retrans[i],
                median(ratios[i]), *std::min_element(ratios[i].begin(), ratios[i].end()),
                *std::max_element(ratios[i].begin(), ratios[i].end()));
  }
  close(ours);
  close(file);
  return 0;
}

// `small`: ns per call of each primitive, median over interleaved rounds.
int run_small(const Config& c) {
  const std::string base = c.dir + "/copy_probe_small_" + std::to_string(getpid());
  const int src = open((base + "_src").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int dst = open((base + "_dst").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (src < 0 || dst < 0) die("open " + base);
  unlink((base + "_src").c_str());
  unlink((base + "_dst").c_str());
  std::vector<char> buf(std::max<std::size_t>(c.size, 32 << 10), 'x');
  if (!write_all(src, {buf.data(), c.size})) die("write");
  int ours = -1;
  int peer_fd = -1;
  Config tcp = c;
  tcp.send = true;
  tcp_pair(tcp, ours, peer_fd);
  Peer peer(tcp, peer_fd, true);
  const auto rewind = [&] {
    lseek(src, 0, SEEK_SET);
    lseek(dst, 0, SEEK_SET);
  };
  const auto to_eof = [&](auto&& one_call) {
    for (;;) {
      const ssize_t n = one_call();
      if (n <= 0) return;
    }
  };
  struct Op {
    const char* name;
    std::function<void()> run;
  };
  const std::vector<Op> ops = {
      {"fstat",
       [&] {
         struct stat st {};
         fstat(src, &st);
       }},
      {"fcntl(F_GETFL)", [&] { (void)fcntl(src, F_GETFL); }},
      {"getsockopt(SO_TYPE)",
       [&] {
         int type = 0;
         socklen_t len = sizeof type;
         getsockopt(ours, SOL_SOCKET, SO_TYPE, &type, &len);
       }},
      {"sigmask block+unblock",
       [&] {
         sigset_t set;
         sigemptyset(&set);
         sigaddset(&set, SIGPIPE);
         pthread_sigmask(SIG_BLOCK, &set, nullptr);
         pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
       }},
      {"lseek x2 (rewind)", [&] { rewind(); }},
      {"file>file read/write",
       [&] {
         rewind();
         to_eof([&] {
           const ssize_t n = read(src, buf.data(), buf.size());
           if (n > 0) write_all(dst, {buf.data(), static_cast<std::size_t>(n)});
           return n;
         });
       }},
      {"file>file copy_file_range",
       [&] {
         rewind();
         to_eof(
             [&] { return copy_file_range(src, nullptr, dst, nullptr, std::size_t{1} << 30, 0); });
       }},
      {"file>file sendfile",
       [&] {
         rewind();
         to_eof([&] { return sendfile(dst, src, nullptr, 0x7ffff000); });
       }},
      {"file>tcp read/send",
       [&] {
         lseek(src, 0, SEEK_SET);
         to_eof([&] {
           const ssize_t n = read(src, buf.data(), buf.size());
           if (n > 0) write_all(ours, {buf.data(), static_cast<std::size_t>(n)}, WriteCall::kSend);
           return n;
         });
       }},
      {"file>tcp sendfile",
       [&] {
         lseek(src, 0, SEEK_SET);
         to_eof([&] { return sendfile(ours, src, nullptr, 0x7ffff000); });
       }},
  };
  const int iters = 2000;
  std::vector<std::vector<double>> ns(ops.size());
  for (const Op& op : ops) op.run();  // warm-up
  for (int round = 0; round < c.rounds; ++round) {
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[(i + static_cast<std::size_t>(round)) % ops.size()];
      const double t0 = now();
      for (int n = 0; n < iters; ++n) op.run();
      ns[(i + static_cast<std::size_t>(round)) % ops.size()].push_back((now() - t0) * 1e9 / iters);
    }
  }
  std::printf("# %zu-byte copies, %d rounds of %d calls, median ns per operation (min..max)\n",
              c.size, c.rounds, iters);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::printf("%-28s %9.0f  (%.0f..%.0f)\n", ops[i].name, median(ns[i]),
                *std::min_element(ns[i].begin(), ns[i].end()),
                *std::max_element(ns[i].begin(), ns[i].end()));
  }
  close(ours);
  close(src);
  close(dst);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool small = argc >= 2 && std::strcmp(argv[1], "small") == 0;
  if (!small &&
      (argc < 3 || (std::strcmp(argv[1], "send") != 0 && std::strcmp(argv[1], "recv") != 0))) {
    std::fprintf(stderr,
                 "usage: copy_probe send|recv [options] STRATEGY... | small [options] "
                 "(see the source's header)\n");
    return 2;
  }
  Config c;
  c.send = std::strcmp(argv[1], "send") == 0;
  std::vector<std::string> names;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "copy_probe: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--size")
      c.size = parse_size(value());
    else if (a == "--total")
      c.total = parse_size(value());
    else if (a == "--rounds")
      c.rounds = std::atoi(value());
    else if (a == "--sndbuf")
      c.sndbuf = static_cast<int>(parse_size(value()));
    else if (a == "--rcvbuf")
      c.rcvbuf = static_cast<int>(parse_size(value()));
    else if (a == "--peer-buf")
      c.peer_buf = parse_size(value());
    else if (a == "--peer-process")
      c.peer_process = true;
    else if (a == "--pin")
      c.pin = true;
    else if (a == "--same-cpu")
      c.same_cpu = true;
    else if (a == "--nodelay")
      c.nodelay = true;
    else if (a == "--dir")
      c.dir = value();
    else
      names.push_back(a);
  }
  if (small) {
    if (c.size == Config{}.size) c.size = 16 << 10;
    return run_small(c);
  }
  return run(c, parse_strategies(names, c.send));
}
