// copy_bench — zerolab::copy_fd against every other way to move the same
// bytes, so its path choice can be checked on this machine.
//
//   BenchmarkPair/pair=P/size=S/way=W   P: file-file, file-tcp, tcp-file,
//                                       file-pipe, pipe-file, file-unix
//                                       S: 16KiB, 1MiB, 1GiB
//                                       W: copy_fd (its own choice),
//                                          copy_file_range, sendfile, splice,
//                                          read_write (copy_fd forced onto
//                                          that path; the ones the pair
//                                          allows), rw64k (a plain 64 KiB
//                                          read/write loop, user code)
//   BenchmarkRace/pair=P/size=S         the same ways of one pair in alternating
//                                       blocks over the same descriptors
//                                       (one round per iteration, the order
//                                       shuffled each round): x-vs-W is
//                                       W's time over copy_fd's, median over
//                                       rounds (above 1: copy_fd is faster);
//                                       x-vs-best the smallest of them;
//                                       p-vs-best the same for copy_fd on a
//                                       pair prepared once (prepare_copy);
//                                       stderr says copy_fd's path and
//                                       why (the machine profile's, or
//                                       the table's)
//   BenchmarkFloor/pair=P/size=16KiB    P: file-file, file-tcp, pipe-file,
//                                       file-unix (the one-shot 16 KiB pairs
//                                       that read below 0.95 at times): as
//                                       Race with copy_fd, prepared and rw64k,
//                                       and bare system-call sequences F that
//                                       keep copy_fd's guarantees with the
//                                       fewest calls: F-x-vs-rw64k is the
//                                       loop's time over F's (below 0.95: no
//                                       copy_fd that keeps them can reach
//                                       0.95 of the loop by F's way)
//   BenchmarkFileToFile/warm|cold       a 1 GiB file copied whole: copy_file
//                                       with reflink (cp's --reflink=auto),
//                                       or with ZEROLAB_COPY_WAY=cp GNU cp;
//                                       =copy_fd-noreflink copy_file without
//                                       reflink (copy_fd's own path: the
//                                       table's or the profile's), =cp-noreflink
//                                       cp --reflink=never
//   BenchmarkFileToTCP, TCPToFile       64 MiB over loopback TCP (copy_fd, or
//                                       with ZEROLAB_COPY_WAY=rw64k the loop)
//   ZEROLAB_COPY_DIR=/tmp               where the test files live
//   ZEROLAB_COPY_PIPE_SIZE=1048576      the pipes' capacity (default the
//                                       kernel's 64 KiB)
//
// Socket peers, and pipe peers where a copy does not fit the pipe twice,
// are threads of this process that drain or feed their end as fast as they
// can; Race serves a pipe that holds two copies or more itself, between
// its timed blocks (open_end says why). The files are made once
// and kept.
//
// Example (interleaved runs, then one table with the ways as columns):
//   for i in $(seq 5); do copy_bench -bench 'Pair/.*/size=(16KiB|1MiB)' >> pairs.txt; done
//   zerolab compare -col .name/way pairs.txt
//   copy_bench -bench 'Race/.*/size=16KiB' -benchtime 40x   # x-vs-best per pair
//   rm /tmp/zerolab_copy_bench_*
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "files/atomic_file.hpp"
#include "lab/experiments/loopback.hpp"
#include "zerolab/bench.hpp"
#include "zerolab/copy.hpp"

extern char** environ;

namespace {

// The project's one write loop (files/atomic_file.hpp): write(2), or
// send(2) without SIGPIPE to a socket.
using zerolab::internal::write_all;
using zerolab::internal::WriteCall;

constexpr std::size_t kBig = std::size_t{1} << 30;
constexpr std::size_t kNet = std::size_t{64} << 20;
constexpr std::size_t kLoopBuffer = 64 << 10;

std::string way() {
  const char* w = std::getenv("ZEROLAB_COPY_WAY");
  return w == nullptr ? "copy_fd" : w;
}

std::string dir() {
  const char* d = std::getenv("ZEROLAB_COPY_DIR");
  return d == nullptr ? "/tmp" : d;
}

// ZEROLAB_COPY_PIPE_SIZE: the capacity of the rig's pipes in bytes (0 or
// unset: the kernel's default, 64 KiB). A pipe larger than a few copies
// lets the peer thread run ahead, so that a small copy does not find the
// pipe empty (or full) and sleep until the peer's next call: the way
// with the fewest calls waited most often (pipe → file, 16 KiB). Race
// serves a pipe that holds two of its copies itself, with no peer thread.
long pipe_size(zerolab::B& b) {
  const char* v = std::getenv("ZEROLAB_COPY_PIPE_SIZE");
  if (v == nullptr || *v == '\0') return 0;
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(v, &end, 10);
  if (errno != 0 || *end != '\0' || n < 0) {
    b.fatal(std::string("ZEROLAB_COPY_PIPE_SIZE=") + v + ": not a number of bytes");
  }
  return n;
}

// A file of `size` bytes of non-zero data at `path`, made once and kept
// (the runs are separate processes; remove it by hand afterwards).
void ensure_file(zerolab::B& b, const std::string& path, std::size_t size) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && static_cast<std::size_t>(st.st_size) == size) return;
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) b.fatal("cannot create " + path);
  std::vector<char> chunk(1 << 20);
  for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<char>(i * 131 + 7);
  for (std::size_t done = 0; done < size; done += chunk.size()) {
    const std::size_t n = std::min(chunk.size(), size - done);
    if (write(fd, chunk.data(), n) != static_cast<ssize_t>(n)) b.fatal("cannot write " + path);
  }
  fsync(fd);
  close(fd);
}

std::size_t rw_loop(int src, int dst, std::size_t limit, bool dst_socket) {
  static std::vector<char> buffer(kLoopBuffer);
  std::size_t total = 0;
  while (total < limit) {
    const ssize_t n = read(src, buffer.data(), std::min(buffer.size(), limit - total));
    if (n <= 0) break;
    if (!write_all(dst, {buffer.data(), static_cast<std::size_t>(n)},
                   dst_socket ? WriteCall::kSend : WriteCall::kWrite)) {
      break;
    }
    total += static_cast<std::size_t>(n);
  }
  return total;
}

void file_to_file(zerolab::B& b, bool cold) {
  const std::string src = dir() + "/zerolab_copy_bench_src";
  const std::string dst = dir() + "/zerolab_copy_bench_dst";
  ensure_file(b, src, kBig);
  const std::string w = way();
  b.set_bytes(static_cast<std::int64_t>(kBig));
  for (std::int64_t i = 0; i < b.n(); ++i) {
    b.stop_timer();
    unlink(dst.c_str());
    if (cold) {
      const int fd = open(src.c_str(), O_RDONLY | O_CLOEXEC);
      posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      close(fd);
    } else {
      const int fd = open(src.c_str(), O_RDONLY | O_CLOEXEC);
      const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
      rw_loop(fd, null, kBig, false);  // every page of the source in the cache
      close(fd);
      close(null);
    }
    b.start_timer();
    if (w == "cp" || w == "cp-noreflink") {
      pid_t pid = 0;
      char never[] = "--reflink=never";
      std::vector<char*> argv{const_cast<char*>("cp")};
      if (w == "cp-noreflink") argv.push_back(never);
      argv.push_back(const_cast<char*>(src.c_str()));
      argv.push_back(const_cast<char*>(dst.c_str()));
      argv.push_back(nullptr);
      if (posix_spawnp(&pid, "cp", nullptr, nullptr, argv.data(), environ) != 0) {
        b.fatal("cannot run cp");
      }
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) b.fatal("cp failed");
    } else {
      zerolab::CopyOptions o;
      o.reflink = w != "copy_fd-noreflink";  // as cp's --reflink=auto, or =never
      const zerolab::CopyResult r = zerolab::copy_file(src, dst, o);
      if (r.error || r.bytes != kBig) b.fatal("copy_file failed: " + r.message);
    }
  }
  b.stop_timer();
  unlink(dst.c_str());
}

// A loopback pair, or the benchmark stops with why not.
zerolab::lab::LoopbackPair loopback(zerolab::B& b) {
  std::string error;
  zerolab::lab::LoopbackPair net = zerolab::lab::LoopbackPair::open(error);
  if (!error.empty()) b.fatal(error);
  return net;
}

void file_to_tcp(zerolab::B& b) {
  const std::string src = dir() + "/zerolab_copy_bench_net";
  ensure_file(b, src, kNet);
  const int fd = open(src.c_str(), O_RDONLY | O_CLOEXEC);
  const zerolab::lab::LoopbackPair net = loopback(b);
  zerolab::lab::PeerThread sink(net.peer(), true);
  const bool use_copy_fd = way() == "copy_fd";
  b.set_bytes(static_cast<std::int64_t>(kNet));
  rw_loop(fd, net.ours(), kNet, true);  // warm the page cache and the socket
  b.reset_timer();
  for (std::int64_t i = 0; i < b.n(); ++i) {
    lseek(fd, 0, SEEK_SET);
    const std::size_t n =
        use_copy_fd ? zerolab::copy_fd(fd, net.ours()).bytes : rw_loop(fd, net.ours(), kNet, true);
    if (n != kNet) b.fatal("short copy");
  }
  b.stop_timer();
  close(fd);
}

void tcp_to_file(zerolab::B& b) {
  const std::string dst = dir() + "/zerolab_copy_bench_net_dst";
  const int fd = open(dst.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const zerolab::lab::LoopbackPair net = loopback(b);
  zerolab::lab::PeerThread source(net.peer(), false);
  const bool use_copy_fd = way() == "copy_fd";
  b.set_bytes(static_cast<std::int64_t>(kNet));
  rw_loop(net.ours(), fd, kNet, false);  // allocate the file's blocks once
  b.reset_timer();
  for (std::int64_t i = 0; i < b.n(); ++i) {
    lseek(fd, 0, SEEK_SET);
    zerolab::CopyOptions o;
    o.max_bytes = kNet;
    const std::size_t n = use_copy_fd ? zerolab::copy_fd(net.ours(), fd, o).bytes
                                      : rw_loop(net.ours(), fd, kNet, false);
    if (n != kNet) b.fatal("short copy");
  }
  b.stop_timer();
  close(fd);
  unlink(dst.c_str());
}

// ---- the pair matrix ------------------------------------------------------------

enum class End { kFile, kTcp, kPipe, kUnix };

struct PairSpec {
  const char* name;
  End src;
  End dst;
};

constexpr PairSpec kPairs[] = {
    {"file-file", End::kFile, End::kFile}, {"file-tcp", End::kFile, End::kTcp},
    {"tcp-file", End::kTcp, End::kFile},   {"file-pipe", End::kFile, End::kPipe},
    {"pipe-file", End::kPipe, End::kFile}, {"file-unix", End::kFile, End::kUnix},
};

// A thread that keeps one end of a pipe or socket busy: reads everything
// (sink) or writes an endless stream (source) until destroyed, which closes
// `fd` to wake it.
class Peer {
 public:
  Peer(int fd, bool sink)
      : fd_(fd), thread_([this, sink] {
          std::vector<char> buf(256 << 10, 'p');
          while (!stop_.load(std::memory_order_relaxed)) {
            const ssize_t n =
                sink ? ::read(fd_, buf.data(), buf.size()) : ::write(fd_, buf.data(), buf.size());
            if (n <= 0 && errno != EINTR) break;
          }
        }) {}
  ~Peer() {
    stop_.store(true, std::memory_order_relaxed);
    ::shutdown(fd_, SHUT_RDWR);  // sockets; for a pipe, closing our end wakes it
    thread_.join();
    ::close(fd_);
  }
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

 private:
  int fd_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The measured descriptors of one pair and the peers that keep them flowing.
// A pipe end is served either by a Peer thread or, when `feed`/`drain` is
// set, by the benchmark thread itself between timed blocks (see
// open_end).
struct Rig {
  int src = -1;
  int dst = -1;
  bool src_is_file = false;
  bool dst_is_file = false;
  bool dst_is_socket = false;
  int feed = -1;                   // the write end of a source pipe fed here
  int drain = -1;                  // the read end of a destination pipe drained here
  std::size_t pipe_capacity = 0;   // of the pipe fed or drained here
  std::size_t undrained = 0;       // bytes copied into `drain`'s pipe, not yet read
  std::vector<int> to_close;       // closed after the peers are gone
  std::unique_ptr<Peer> peers[2];  // joined first

  bool synchronous() const { return feed >= 0 || drain >= 0; }
  // Both files back at their start, for the next copy of the same bytes.
  void rewind() const {
    if (src_is_file) lseek(src, 0, SEEK_SET);
    if (dst_is_file) lseek(dst, 0, SEEK_SET);
  }
  // Copies of `size` bytes that fit the pipe served here at once.
  std::size_t copies_per_fill(std::size_t size) const { return pipe_capacity / size; }
  // Readies the served pipe for `copies` copies of `size` bytes: an empty
  // destination pipe, or a source pipe holding exactly their bytes.
  // REQUIRES: copies * size <= pipe_capacity.
  void ready(zerolab::B& b, std::size_t copies, std::size_t size) {
    static std::vector<char> buffer(std::size_t{1} << 20, 'f');
    if (drain >= 0) {
      while (undrained > 0) {
        const ssize_t n = ::read(drain, buffer.data(), std::min(buffer.size(), undrained));
        if (n <= 0) b.fatal("cannot drain the destination pipe");
        undrained -= static_cast<std::size_t>(n);
      }
      undrained = copies * size;
    }
    if (feed >= 0 && !write_all(feed, {buffer.data(), copies * size})) {
      b.fatal("cannot feed the source pipe");
    }
  }

  ~Rig() {
    // A pipe's peer blocks in read or write until our end closes.
    for (int fd : to_close) ::close(fd);
    peers[0].reset();
    peers[1].reset();
  }
};

// Opens `end` as the source (the bytes flow out of it) or the destination.
// A pipe's other end goes to a Peer thread, or with `serve_small_pipes`,
// when the pipe holds two copies of `size` or more, to the rig (fed or
// drained by the benchmark thread between timed blocks).
//
// Why Race serves such a pipe itself (16 KiB in the kernel's 64 KiB): a
// Peer thread on the other end of so small a pipe makes the timing the two
// threads' rhythm, not the copy's: the pipe is found empty (or full) and
// the copy sleeps until the peer's next call, and a way with fewer calls
// sleeps more often. Seen as copy_fd on its own, on the very path it was
// forced onto, timing 0.55x of the forced copy (pipe → file, 16 KiB). Fed
// or drained between timed blocks, every way finds the pipe in the same
// state and the timed part is the copies alone; the peer's read or write
// is untimed for all ways.
void open_end(zerolab::B& b, Rig& rig, End end, bool source, std::size_t size, int slot,
              bool serve_small_pipes) {
  int& fd = source ? rig.src : rig.dst;
  switch (end) {
    case End::kFile: {
      const std::string path =
          dir() + "/zerolab_copy_bench_" + (source ? "src_" : "dst_") + std::to_string(size);
      if (source) ensure_file(b, path, size);
      fd = open(path.c_str(), source ? O_RDONLY | O_CLOEXEC : O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0) b.fatal("cannot open " + path);
      if (!source && ftruncate(fd, static_cast<off_t>(size)) != 0) b.fatal("cannot size " + path);
      (source ? rig.src_is_file : rig.dst_is_file) = true;
      rig.to_close.push_back(fd);
      return;
    }
    case End::kTcp: {
      std::string error;
      zerolab::lab::LoopbackPair net = zerolab::lab::LoopbackPair::open(error);
      if (!error.empty()) b.fatal(error);
      const auto [ours, peer] = net.release();
      fd = ours;
      rig.to_close.push_back(ours);
      rig.peers[slot] = std::make_unique<Peer>(peer, /*sink=*/!source);
      if (!source) rig.dst_is_socket = true;
      return;
    }
    case End::kUnix: {
      int sv[2];
      if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) b.fatal("socketpair failed");
      fd = sv[0];
      rig.to_close.push_back(sv[0]);
      rig.peers[slot] = std::make_unique<Peer>(sv[1], /*sink=*/!source);
      if (!source) rig.dst_is_socket = true;
      return;
    }
    case End::kPipe: {
      int p[2];
      if (pipe2(p, O_CLOEXEC) != 0) b.fatal("pipe2 failed");
      if (const long bytes = pipe_size(b); bytes > 0 && fcntl(p[0], F_SETPIPE_SZ, bytes) < 0) {
        b.fatal("cannot set the pipe's size to " + std::to_string(bytes) + " (F_SETPIPE_SZ: " +
                std::strerror(errno) + "; at most /proc/sys/fs/pipe-max-size)");
      }
      fd = source ? p[0] : p[1];
      rig.to_close.push_back(fd);
      const auto capacity = static_cast<std::size_t>(fcntl(p[0], F_GETPIPE_SZ));
      if (serve_small_pipes && 2 * size <= capacity) {
        (source ? rig.feed : rig.drain) = source ? p[1] : p[0];
        rig.to_close.push_back(source ? p[1] : p[0]);
        rig.pipe_capacity = capacity;
        return;
      }
      rig.peers[slot] = std::make_unique<Peer>(source ? p[1] : p[0], /*sink=*/!source);
      return;
    }
  }
}

// One copy of `size` bytes from the start of the rig's files: copy_fd with
// `o` (on `prepared` when given), or with `user_loop` the plain 64 KiB
// loop. Returns the bytes moved.
std::size_t copy_once(zerolab::B& b, const Rig& rig, std::size_t size,
                      const zerolab::CopyOptions& o, bool user_loop,
                      const zerolab::PreparedCopy* prepared = nullptr) {
  rig.rewind();
  if (user_loop) return rw_loop(rig.src, rig.dst, size, rig.dst_is_socket);
  const zerolab::CopyResult r =
      prepared != nullptr ? zerolab::copy_fd(*prepared, o) : zerolab::copy_fd(rig.src, rig.dst, o);
  if (r.error) b.fatal("copy_fd: " + r.message);
  return static_cast<std::size_t>(r.bytes);
}

void open_rig(zerolab::B& b, Rig& rig, const PairSpec& pair, std::size_t size,
              bool serve_small_pipes = false) {
  open_end(b, rig, pair.src, true, size, 0, serve_small_pipes);
  open_end(b, rig, pair.dst, false, size, 1, serve_small_pipes);
}

void pair_bench(zerolab::B& b, const PairSpec& pair, std::size_t size, zerolab::CopyPath path,
                bool user_loop) {
  Rig rig;
  open_rig(b, rig, pair, size);
  zerolab::CopyOptions o;
  o.max_bytes = size;
  o.path = path;
  // The first copy warms the page cache, the pipes and the socket.
  if (copy_once(b, rig, size, o, user_loop) != size) b.fatal("short copy");
  b.set_bytes(static_cast<std::int64_t>(size));
  b.reset_timer();
  for (std::int64_t i = 0; i < b.n(); ++i) {
    if (copy_once(b, rig, size, o, user_loop) != size) b.fatal("short copy");
  }
  b.stop_timer();
}

// One way of a race: copy_fd on its own choice or forced, copy_fd on a
// pair prepared once (prepare_copy), or the user loop.
struct RaceWay {
  std::string name;
  zerolab::CopyPath path;
  bool user_loop;
  bool prepared = false;
  // Floor only: bare system calls instead of copy_fd (floor_ways_of).
  std::size_t (*raw)(const Rig&, std::size_t) = nullptr;
};

// Race: all `ways` of one pair in alternating blocks (each about 2 MiB of
// copies, after one untimed copy below 64 MiB; the order shuffled every
// round) over the same descriptors, one round per b.n(), so a loaded
// machine slows them alike. ways[0] is the one-shot copy_fd, ways[1] copy_fd
// on the prepared pair. Reports for each other way W the median over
// rounds of W's block time over the one-shot copy_fd's as "x-vs-W" (above
// 1: copy_fd is faster), the smallest of those as "x-vs-best", the same
// smallest for the prepared call as "p-vs-best", and the one-shot
// copy_fd's median time per copy as ns/op.
void race_bench(zerolab::B& b, const PairSpec& pair, std::size_t size,
                const std::vector<RaceWay>& ways) {
  using Clock = std::chrono::steady_clock;
  Rig rig;
  open_rig(b, rig, pair, size, /*serve_small_pipes=*/true);
  const zerolab::PreparedCopy once = zerolab::prepare_copy(rig.src, rig.dst);
  if (!once) b.fatal(std::string("prepare_copy: ") + once.plan().reason);
  std::vector<zerolab::CopyOptions> options(ways.size());
  std::vector<const zerolab::PreparedCopy*> prepared(ways.size());
  const auto copy_ready = [&](std::size_t w) {
    std::size_t moved = 0;
    if (ways[w].raw != nullptr) {
      rig.rewind();
      moved = ways[w].raw(rig, size);
    } else {
      moved = copy_once(b, rig, size, options[w], ways[w].user_loop, prepared[w]);
    }
    if (moved != size) b.fatal("short copy (" + ways[w].name + ")");
  };
  // One copy, the pipe served here readied for it first.
  const auto copy = [&](std::size_t w) {
    if (rig.synchronous()) rig.ready(b, 1, size);
    copy_ready(w);
  };
  for (std::size_t w = 0; w < ways.size(); ++w) {
    options[w].max_bytes = size;
    options[w].path = ways[w].path;
    prepared[w] = ways[w].prepared ? &once : nullptr;
    copy(w);
  }
  const zerolab::CopyPlan settled = zerolab::plan_copy(rig.src, rig.dst, options[0]);
  std::fprintf(stderr, "copy_bench: %s: copy_fd takes %s: %s\n", b.name().c_str(),
               std::string(zerolab::to_string(settled.path)).c_str(), settled.reason);
  const std::size_t block = std::max<std::size_t>(1, (std::size_t{2} << 20) / size);
  std::vector<std::vector<double>> ns(ways.size());
  std::vector<std::size_t> order(ways.size());
  for (std::size_t w = 0; w < order.size(); ++w) order[w] = w;
  std::mt19937 shuffle_seed(42);
  b.reset_timer();
  for (std::int64_t round = 0; round < b.n(); ++round) {
    std::shuffle(order.begin(), order.end(), shuffle_seed);
    for (const std::size_t w : order) {
      // One untimed copy first: what the previous way left in a socket or
      // pipe (a partly drained queue) must not be charged to this one.
      if (size < kNet) copy(w);
      if (!rig.synchronous()) {
        const auto t0 = Clock::now();
        for (std::size_t i = 0; i < block; ++i) copy(w);
        ns[w].push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
        continue;
      }
      // The block in fills of the pipe: each readied untimed, its copies timed.
      double timed = 0;
      for (std::size_t done = 0; done < block;) {
        const std::size_t copies = std::min(block - done, rig.copies_per_fill(size));
        rig.ready(b, copies, size);
        const auto t0 = Clock::now();
        for (std::size_t i = 0; i < copies; ++i) copy_ready(w);
        timed += std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
        done += copies;
      }
      ns[w].push_back(timed);
    }
  }
  b.stop_timer();
  const auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  // The median over rounds of ways[w]'s time over ways[against]'s.
  const auto ratio = [&](std::size_t w, std::size_t against) {
    std::vector<double> r(ns[w].size());
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = ns[w][i] / ns[against][i];
    return median(r);
  };
  double best = 0;
  double prepared_best = 0;
  bool first = true;
  std::size_t loop = 0;
  for (std::size_t w = 2; w < ways.size(); ++w) {
    if (ways[w].raw != nullptr) continue;
    if (ways[w].user_loop) loop = w;
    const double x = ratio(w, 0);
    const double p = ratio(w, 1);
    b.report_metric(x, "x-vs-" + ways[w].name);
    best = first ? x : std::min(best, x);
    prepared_best = first ? p : std::min(prepared_best, p);
    first = false;
  }
  // A floor sequence F as "F-x-vs-rw64k": the loop's time over F's.
  for (std::size_t w = 2; w < ways.size(); ++w) {
    if (ways[w].raw != nullptr) b.report_metric(ratio(loop, w), ways[w].name + "-x-vs-rw64k");
  }
  b.report_metric(best, "x-vs-best");
  b.report_metric(prepared_best, "p-vs-best");
  b.report_metric(median(ns[0]) / static_cast<double>(block), "ns/op");
}

std::string size_name(std::size_t n) {
  if (n >= (std::size_t{1} << 30)) return std::to_string(n >> 30) + "GiB";
  if (n >= (std::size_t{1} << 20)) return std::to_string(n >> 20) + "MiB";
  return std::to_string(n >> 10) + "KiB";
}

// The paths `pair` allows, as plan_copy says for its kinds of descriptor.
zerolab::CopyPlan plan_of(const PairSpec& pair) {
  const auto as_end = [](End e, bool source) {
    switch (e) {
      case End::kFile:
        return zerolab::CopyEnd::kFile;
      case End::kPipe:
        return zerolab::CopyEnd::kPipe;
      case End::kTcp:
        return source ? zerolab::CopyEnd::kRemoteStream : zerolab::CopyEnd::kLoopbackStream;
      case End::kUnix:
        return zerolab::CopyEnd::kUnixStream;
    }
    return zerolab::CopyEnd::kOther;
  };
  return zerolab::plan_copy(as_end(pair.src, true), as_end(pair.dst, false));
}

// copy_fd on its own, every path the pair allows forced, then the loop.
std::vector<RaceWay> ways_of(const PairSpec& pair) {
  using zerolab::CopyPath;
  std::vector<RaceWay> ways{{"copy_fd", CopyPath::kAuto, false},
                            {"prepared", CopyPath::kAuto, false, true}};
  const zerolab::CopyPlan plan = plan_of(pair);
  for (const CopyPath p :
       {CopyPath::kCopyFileRange, CopyPath::kSendfile, CopyPath::kSplice, CopyPath::kReadWrite}) {
    if (plan.allows(p)) ways.push_back({std::string(zerolab::to_string(p)), p, false});
  }
  ways.push_back({"rw64k", CopyPath::kAuto, true});
  return ways;
}

// ---- Floor: the fewest system calls a one-shot copy that keeps
// copy_fd's guarantees can make, written out bare ----
//
// rw64k checks nothing: it reads and writes. copy_fd, called on numbers
// that may name anything by now, must not let a write raise SIGPIPE, must
// refuse overlapping ranges of one file, and must not read what it cannot
// write or put back. Each sequence below is one way to know that with the
// fewest calls (no copy_fd code runs): where even the fastest of them
// takes longer than the loop, so must copy_fd.

// `call(left)` (one system call that moves up to `left` bytes) until
// `size` bytes moved, or it moves none; returns the bytes moved.
template <class Call>
std::size_t call_until(std::size_t size, Call call) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = call(size - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

// The kernel checks both ends: regular files, not O_APPEND, ranges apart.
std::size_t floor_copy_file_range(const Rig& rig, std::size_t size) {
  return call_until(size, [&rig](std::size_t left) {
    return copy_file_range(rig.src, nullptr, rig.dst, nullptr, left, 0);
  });
}

// Both ends asked (regular files, two inodes), then the loop.
std::size_t floor_statx_read_write(const Rig& rig, std::size_t size) {
  struct statx a {};
  struct statx d {};
  if (statx(rig.src, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO, &a) != 0 ||
      statx(rig.dst, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO, &d) != 0) {
    return 0;
  }
  return rw_loop(rig.src, rig.dst, size, false);
}

// SIGPIPE blocked around sendfile (which has no MSG_NOSIGNAL).
std::size_t floor_masked_sendfile(const Rig& rig, std::size_t size) {
  sigset_t set;
  sigset_t old;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  const std::size_t done = call_until(
      size, [&rig](std::size_t left) { return sendfile(rig.dst, rig.src, nullptr, left); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return done;
}

// lseek says the source can be put back if the send fails (a destination
// that is no socket: ENOTSOCK); send has MSG_NOSIGNAL.
std::size_t floor_seekable_read_send(const Rig& rig, std::size_t size) {
  if (lseek(rig.src, 0, SEEK_CUR) < 0) return 0;
  return rw_loop(rig.src, rig.dst, size, true);
}

// A write of no bytes at offset 0 says the destination is seekable (no
// SIGPIPE) and open for writing, before anything leaves the pipe.
std::size_t floor_checked_splice(const Rig& rig, std::size_t size) {
  if (pwrite(rig.dst, "", 0, 0) != 0) return 0;
  return call_until(size, [&rig](std::size_t left) {
    return splice(rig.src, nullptr, rig.dst, nullptr, left, 0);
  });
}

std::size_t floor_checked_read_write(const Rig& rig, std::size_t size) {
  if (pwrite(rig.dst, "", 0, 0) != 0) return 0;
  return rw_loop(rig.src, rig.dst, size, false);
}

// copy_fd, its prepared call and the loop, then the floor sequences of the
// pairs where copy_fd's one-shot 16 KiB copy has read below 0.95 of the
// loop (file → AF_UNIX with those of file → TCP).
std::vector<RaceWay> floor_ways_of(const PairSpec& pair) {
  using zerolab::CopyPath;
  std::vector<RaceWay> ways{{"copy_fd", CopyPath::kAuto, false},
                            {"prepared", CopyPath::kAuto, false, true},
                            {"rw64k", CopyPath::kAuto, true}};
  const auto add = [&ways](const char* name, std::size_t (*raw)(const Rig&, std::size_t)) {
    ways.push_back({name, CopyPath::kAuto, false, false, raw});
  };
  if (pair.src == End::kFile && pair.dst == End::kFile) {
    add("copy_file_range", floor_copy_file_range);
    add("statx-statx-read-write", floor_statx_read_write);
  } else if (pair.src == End::kFile && (pair.dst == End::kTcp || pair.dst == End::kUnix)) {
    add("masked-sendfile", floor_masked_sendfile);
    add("lseek-read-send", floor_seekable_read_send);
  } else if (pair.src == End::kPipe && pair.dst == End::kFile) {
    add("pwrite0-splice", floor_checked_splice);
    add("pwrite0-read-write", floor_checked_read_write);
  }
  return ways;
}

constexpr PairSpec kFloorPairs[] = {kPairs[0], kPairs[1], kPairs[4], kPairs[5]};

constexpr std::size_t kPairSizes[] = {std::size_t{16} << 10, std::size_t{1} << 20,
                                      std::size_t{1} << 30};

}  // namespace

ZEROLAB_BENCHMARK(Pair) {
  signal(SIGPIPE, SIG_IGN);  // a peer that goes away must not kill the run
  for (const PairSpec& pair : kPairs) {
    for (const std::size_t size : kPairSizes) {
      const std::string prefix =
          std::string("pair=") + pair.name + "/size=" + size_name(size) + "/way=";
      for (const RaceWay& way : ways_of(pair)) {
        if (way.prepared) continue;  // Race only
        b.run(prefix + way.name, [&pair, size, way](zerolab::B& sb) {
          pair_bench(sb, pair, size, way.path, way.user_loop);
        });
      }
    }
  }
}

ZEROLAB_BENCHMARK(Race) {
  signal(SIGPIPE, SIG_IGN);
  for (const PairSpec& pair : kPairs) {
    for (const std::size_t size : kPairSizes) {
      b.run(std::string("pair=") + pair.name + "/size=" + size_name(size),
            [&pair, size](zerolab::B& sb) { race_bench(sb, pair, size, ways_of(pair)); });
    }
  }
}

ZEROLAB_BENCHMARK(Floor) {
  signal(SIGPIPE, SIG_IGN);
  for (const PairSpec& pair : kFloorPairs) {
    b.run(std::string("pair=") + pair.name + "/size=16KiB", [&pair](zerolab::B& sb) {
      race_bench(sb, pair, std::size_t{16} << 10, floor_ways_of(pair));
    });
  }
}

ZEROLAB_BENCHMARK(FileToFile) {
  b.run("warm", [](zerolab::B& sub) { file_to_file(sub, false); });
  b.run("cold", [](zerolab::B& sub) { file_to_file(sub, true); });
}
ZEROLAB_BENCHMARK(FileToTCP) {
  file_to_tcp(b);
}
ZEROLAB_BENCHMARK(TCPToFile) {
  tcp_to_file(b);
}
