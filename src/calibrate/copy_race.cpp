// copy_fd's paths raced per pair kind (copy_race.hpp). Each round times one
// copy on every candidate path, in an order that rotates by round, and
// divides each candidate's time by the table path's of the same round, so a
// slow moment (another process, a frequency step) cancels; the median of
// the rounds' ratios decides.
#include "calibrate/copy_race.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "files/atomic_file.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::calibrate {
namespace {

constexpr std::size_t kLarge = std::size_t{1} << 20;
constexpr std::size_t kSmall = std::size_t{16} << 10;
constexpr int kRounds = 9;
constexpr double kSwitchAt = 0.95;  // a challenger's median time over the table's

double now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// The far end of a pipe or socket: a thread that reads everything (a
// source for copies into it) or writes `bytes` per request (a destination
// for copies out of it).
class FarEnd {
 public:
  // Reads from `fd` until end of file, counting.
  static FarEnd reader(int fd) {
    FarEnd e;
    e.fd_ = fd;
    e.thread_ = std::thread([fd, &count = *e.count_] {
      char buf[65536];
      for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        count.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_release);
      }
    });
    return e;
  }
  // Writes `bytes` into `fd` each time request() is called, until closed.
  static FarEnd writer(int fd, std::size_t bytes) {
    FarEnd e;
    e.fd_ = fd;
    e.thread_ = std::thread([fd, bytes, &asked = *e.asked_, &count = *e.count_] {
      std::vector<char> chunk(65536, 'z');
      std::uint64_t done = 0;
      for (;;) {
        const std::uint64_t want = asked.load(std::memory_order_acquire);
        if (want == UINT64_MAX) break;
        if (done == want) {
          std::this_thread::yield();
          continue;
        }
        for (std::size_t left = bytes; left > 0;) {
          const std::size_t n = std::min(left, chunk.size());
          if (!internal::write_all(fd, std::string_view(chunk.data(), n))) return;
          left -= n;
        }
        done = want;
        count.store(done, std::memory_order_release);
      }
    });
    return e;
  }
  FarEnd() = default;
  FarEnd(FarEnd&&) = default;
  FarEnd& operator=(FarEnd&&) = default;
  ~FarEnd() { stop(); }

  void request() { asked_->fetch_add(1, std::memory_order_acq_rel); }
  // Waits until the reader has read `total` bytes in all.
  void wait_read(std::uint64_t total) const {
    while (count_->load(std::memory_order_acquire) < total) std::this_thread::yield();
  }
  // REQUIRES: the near end closed first (a reader then sees end of file).
  void stop() {
    if (!thread_.joinable()) return;
    asked_->store(UINT64_MAX, std::memory_order_release);
    thread_.join();
    ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  std::thread thread_;
  std::unique_ptr<std::atomic<std::uint64_t>> count_ =
      std::make_unique<std::atomic<std::uint64_t>>(0);
  std::unique_ptr<std::atomic<std::uint64_t>> asked_ =
      std::make_unique<std::atomic<std::uint64_t>>(0);
};

struct Race {
  std::vector<CopyPath> paths;  // [0] the table's
  std::vector<std::vector<double>> ns;
};

// The index of the winner (0 unless a challenger's median ratio is at most
// kSwitchAt) and the line saying so.
std::size_t judge(const Race& race, const char* kind, std::vector<std::string>& decisions) {
  std::size_t best = 0;
  double best_ratio = 1;
  std::string others;
  for (std::size_t i = 1; i < race.paths.size(); ++i) {
    std::vector<double> r;
    for (std::size_t k = 0; k < race.ns[0].size(); ++k) r.push_back(race.ns[i][k] / race.ns[0][k]);
    std::nth_element(r.begin(), r.begin() + kRounds / 2, r.end());
    const double ratio = r[kRounds / 2];
    char text[96];
    std::snprintf(text, sizeof text, "%s%s %.2fx", others.empty() ? "" : ", ",
                  std::string(to_string(race.paths[i])).c_str(), 1 / ratio);
    others += text;
    if (ratio < best_ratio) {
      best_ratio = ratio;
      best = i;
    }
  }
  if (best_ratio > kSwitchAt) best = 0;
  decisions.push_back(
      std::string("copy ") + kind + ": " + std::string(to_string(race.paths[best])) +
      (best == 0 ? " (the table's; "
                 : " (over the table's " + std::string(to_string(race.paths[0])) + "; ") +
      "against it: " + others + ")");
  return best;
}

// Candidates for a pair kind: the table's path first, then each other of
// `among` the pair allows.
std::vector<CopyPath> candidates(CopyEnd src, CopyEnd dst, std::initializer_list<CopyPath> among) {
  const CopyPlan plan = plan_copy(src, dst);
  std::vector<CopyPath> paths{plan.path};
  for (const CopyPath p : among) {
    if (p != plan.path && plan.allows(p)) paths.push_back(p);
  }
  return paths;
}

}  // namespace

CopyRaces race_copy_paths(const std::string& dir, std::vector<std::string>& decisions) {
  CopyRaces out;
  // Names of this process's own, created (never opened if already there,
  // nor through a symlink), so two calibrations do not share them.
  const std::string pid = std::to_string(::getpid());
  const std::string src_name = dir + "/.calibrate-src." + pid;
  const std::string dst_name = dir + "/.calibrate-dst." + pid;
  constexpr int kCreate = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  const int file = ::open(src_name.c_str(), kCreate, 0600);
  const int sink = ::open(dst_name.c_str(), kCreate, 0600);
  const auto cleanup = [&] {  // removes only what this call created
    if (file >= 0) {
      ::close(file);
      ::unlink(src_name.c_str());
    }
    if (sink >= 0) {
      ::close(sink);
      ::unlink(dst_name.c_str());
    }
  };
  if (file < 0 || sink < 0) {
    out.error = dir + ": cannot create the scratch files: " + std::strerror(errno);
    cleanup();
    return out;
  }
  const std::vector<char> data(kLarge, 'c');
  if (!internal::write_all(file, std::string_view(data.data(), data.size())) ||
      ::fsync(file) != 0) {
    out.error = src_name + ": cannot write 1 MiB: " + std::strerror(errno);
    cleanup();
    return out;
  }
  const CopyPath kStream[] = {CopyPath::kSendfile, CopyPath::kSplice, CopyPath::kReadWrite};

  // One kind: `setup` makes the ends (src, dst, far end), `copies` per timed
  // sample of `bytes` each.
  struct Ends {
    int src = -1;
    int dst = -1;
    int own = -1;  // a descriptor to close after (the near end of a pipe or socket)
    FarEnd far;
    bool far_reads = false;
  };
  const auto race_kind = [&](const char* kind, CopyEnd s, CopyEnd d, std::vector<CopyPath> paths,
                             std::size_t bytes, int copies, auto make_ends) -> std::size_t {
    Race race{std::move(paths), {}};
    race.ns.assign(race.paths.size(), std::vector<double>(kRounds, 0));
    (void)s;
    (void)d;
    Ends ends = make_ends();
    std::uint64_t read_total = 0;
    std::vector<bool> failed(race.paths.size(), false);
    const auto copy_once = [&](CopyPath path) {
      CopyOptions o;
      o.path = path;
      o.max_bytes = bytes;
      if (s == CopyEnd::kFile) o.src_offset = 0;
      if (d == CopyEnd::kFile) o.dst_offset = 0;
      if (!ends.far_reads && s != CopyEnd::kFile) ends.far.request();
      const CopyResult r = copy_fd(ends.src, ends.dst, o);
      if (ends.far_reads) {
        read_total += r.bytes;
        ends.far.wait_read(read_total);
      }
      return r.bytes == bytes;
    };
    // Untimed first: pipes sized, pages cached. A path that fails here (or
    // later) is out of the race.
    for (std::size_t i = 0; i < race.paths.size(); ++i) failed[i] = !copy_once(race.paths[i]);
    for (int round = 0; round < kRounds; ++round) {
      for (std::size_t k = 0; k < race.paths.size(); ++k) {
        const std::size_t i = (k + static_cast<std::size_t>(round)) % race.paths.size();
        if (failed[i]) continue;
        const double t0 = now_ns();
        for (int c = 0; c < copies && !failed[i]; ++c) failed[i] = !copy_once(race.paths[i]);
        race.ns[i][static_cast<std::size_t>(round)] = now_ns() - t0;
      }
    }
    for (std::size_t i = 1; i < race.paths.size(); ++i) {
      if (failed[i]) std::fill(race.ns[i].begin(), race.ns[i].end(), 1e18);
    }
    if (failed[0]) {
      if (ends.own >= 0) ::close(ends.own);
      ends.far.stop();
      decisions.push_back(std::string("copy ") + kind + ": the table's " +
                          std::string(to_string(race.paths[0])) +
                          " (not raced: it failed on the calibration's descriptors)");
      return std::size_t{0};
    }
    if (ends.own >= 0) ::close(ends.own);
    ends.far.stop();
    const std::size_t best = judge(race, kind, decisions);
    if (best != 0) out.choices.push_back({s, d, race.paths[best]});
    return best;
  };
  const auto pipe_into = [&] {  // file → pipe: a reader drains the pipe
    Ends e;
    int p[2];
    if (::pipe2(p, O_CLOEXEC) == 0) {
      e.src = file;
      e.dst = p[1];
      e.own = p[1];
      e.far = FarEnd::reader(p[0]);
      e.far_reads = true;
    }
    return e;
  };
  const auto pipe_out_of = [&] {  // pipe → file: a writer fills the pipe
    Ends e;
    int p[2];
    if (::pipe2(p, O_CLOEXEC) == 0) {
      e.src = p[0];
      e.dst = sink;
      e.own = p[0];
      e.far = FarEnd::writer(p[1], kLarge);
    }
    return e;
  };
  const auto unix_into = [&] {
    Ends e;
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
      e.src = file;
      e.dst = sv[0];
      e.own = sv[0];
      e.far = FarEnd::reader(sv[1]);
      e.far_reads = true;
    }
    return e;
  };
  const auto unix_out_of = [&] {
    Ends e;
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
      e.src = sv[0];
      e.dst = sink;
      e.own = sv[0];
      e.far = FarEnd::writer(sv[1], kLarge);
    }
    return e;
  };
  const auto files = [&] {
    Ends e;
    e.src = file;
    e.dst = sink;
    return e;
  };
  race_kind("file → pipe", CopyEnd::kFile, CopyEnd::kPipe,
            candidates(CopyEnd::kFile, CopyEnd::kPipe, {kStream[0], kStream[1], kStream[2]}),
            kLarge, 1, pipe_into);
  race_kind("pipe → file", CopyEnd::kPipe, CopyEnd::kFile,
            candidates(CopyEnd::kPipe, CopyEnd::kFile, {kStream[0], kStream[1], kStream[2]}),
            kLarge, 1, pipe_out_of);
  race_kind("file → unix", CopyEnd::kFile, CopyEnd::kUnixStream,
            candidates(CopyEnd::kFile, CopyEnd::kUnixStream, {kStream[0], kStream[1], kStream[2]}),
            kLarge, 1, unix_into);
  race_kind("unix → file", CopyEnd::kUnixStream, CopyEnd::kFile,
            candidates(CopyEnd::kUnixStream, CopyEnd::kFile, {kStream[0], kStream[1], kStream[2]}),
            kLarge, 1, unix_out_of);
  // File → file, 1 MiB: the table's copy_file_range against splice through
  // copy_fd's pipe (which copies of 1 MiB or more take where the profile
  // says so and copy_file_range is itself a splice: copy_plan.hpp).
  race_kind("file → file 1 MiB", CopyEnd::kFile, CopyEnd::kFile,
            {CopyPath::kCopyFileRange, CopyPath::kSplice}, kLarge, 1, files);
  // Small file → file, 16 KiB (16 copies per sample).
  {
    const std::size_t best =
        race_kind("file → file 16 KiB", CopyEnd::kFile, CopyEnd::kFile,
                  {CopyPath::kCopyFileRange, CopyPath::kReadWrite}, kSmall, 16, files);
    // race_kind recorded it as a pair-kind choice: it is the small-file line instead.
    if (best != 0) {
      out.choices.pop_back();
      out.small_file = CopyPath::kReadWrite;
    }
  }
  cleanup();
  return out;
}

}  // namespace zerolab::calibrate
