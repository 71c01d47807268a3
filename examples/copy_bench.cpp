// copy_bench — the speed figures of issue 7 for zerolab::copy_fd, as
// harness benchmarks whose competitor is chosen by the environment, so two
// runs with the same benchmark names can be interleaved and compared:
//
//   ZEROLAB_COPY_WAY=copy_fd | cp | rw64k   (default copy_fd)
//   ZEROLAB_COPY_DIR=/tmp                   where the test files live
//
//   BenchmarkFileToFile/warm  a 1 GiB file copied whole (copy_file, or a
//   BenchmarkFileToFile/cold  fork/exec of GNU cp); cold evicts the source
//                             from the page cache (POSIX_FADV_DONTNEED)
//                             before each copy
//   BenchmarkFileToTCP        64 MiB from a cached file into a loopback TCP
//                             socket (copy_fd, or a 64 KiB read/send loop)
//   BenchmarkTCPToFile        64 MiB from a loopback TCP socket into a file
//                             (copy_fd, or a 64 KiB read/write loop)
//
// Example (interleaved, then compared):
//   for i in $(seq 10); do for w in rw64k copy_fd; do
//     ZEROLAB_COPY_WAY=$w copy_bench -bench TCP -count 1 >> $w.txt; done; done
//   zerolab compare rw64k.txt copy_fd.txt
//   rm /tmp/zerolab_copy_bench_*
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "lab/loopback.hpp"
#include "zerolab/bench.hpp"
#include "zerolab/copy.hpp"

extern char** environ;

namespace {

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
    if (write(fd, chunk.data(), chunk.size()) != static_cast<ssize_t>(chunk.size())) {
      b.fatal("cannot write " + path);
    }
  }
  fsync(fd);
  close(fd);
}

bool write_all(int fd, const char* p, std::size_t n, bool socket) {
  while (n > 0) {
    const ssize_t m = socket ? send(fd, p, n, MSG_NOSIGNAL) : write(fd, p, n);
    if (m <= 0) return false;
    p += m;
    n -= static_cast<std::size_t>(m);
  }
  return true;
}

std::size_t rw_loop(int src, int dst, std::size_t limit, bool dst_socket) {
  static std::vector<char> buffer(kLoopBuffer);
  std::size_t total = 0;
  while (total < limit) {
    const ssize_t n = read(src, buffer.data(), std::min(buffer.size(), limit - total));
    if (n <= 0) break;
    if (!write_all(dst, buffer.data(), static_cast<std::size_t>(n), dst_socket)) break;
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
    if (w == "cp") {
      pid_t pid = 0;
      char* argv[] = {const_cast<char*>("cp"), const_cast<char*>(src.c_str()),
                      const_cast<char*>(dst.c_str()), nullptr};
      if (posix_spawnp(&pid, "cp", nullptr, nullptr, argv, environ) != 0) b.fatal("cannot run cp");
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) b.fatal("cp failed");
    } else {
      zerolab::CopyOptions o;
      o.reflink = true;  // cp's --reflink=auto
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
    const std::size_t n = use_copy_fd ? zerolab::copy_fd(fd, net.ours()).bytes
                                      : rw_loop(fd, net.ours(), kNet, true);
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

}  // namespace

ZEROLAB_BENCHMARK(FileToFile) {
  b.run("warm", [](zerolab::B& sub) { file_to_file(sub, false); });
  b.run("cold", [](zerolab::B& sub) { file_to_file(sub, true); });
}
ZEROLAB_BENCHMARK(FileToTCP) { file_to_tcp(b); }
ZEROLAB_BENCHMARK(TCPToFile) { tcp_to_file(b); }
