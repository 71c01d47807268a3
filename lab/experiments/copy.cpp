// Experiment `copy` (seed 003, fasthttp PR #1893 "perf: improve
// copyZeroAlloc for os.File and net.TCPConn", its Linux table): the PR's
// seven benchmarks, each with the PR's old and new copyZeroAlloc path as
// they ran on the PR's Go (1.22+) on Linux, ported op for op:
//   pair                    old (before the PR)         new (the PR)
//   OSFileToBytesBuffer     buffer's ReadFrom           buffer's ReadFrom
//   BytesBufferToOSFile     buffer's WriteTo            buffer's WriteTo
//   OSFileToStringsBuilder  a fresh 32 KiB buffer       the pooled buffer
//   IOLimitedReaderToOSFile copy_file_range path        the pooled buffer
//   OSFileToOSFile          a fresh 32 KiB buffer       the pooled buffer
//   OSFileToNetConn         sendfile                    sendfile
//   NetConnToOSFile         splice                      splice
// ("a fresh 32 KiB buffer": Go 1.22's File.WriteTo fell back to io.Copy,
// which makes, and zeroes, one per call; "the pooled buffer": fasthttp's
// 4 KiB copyBufPool buffer, reused.) Where old and new are the same path,
// Go's difference was its wrapper objects (allocs/op), which C++ does not
// have: those claims are marked not comparable on the C++ side.
//
// As in fasthttp's benchmarks, the source file is opened once and never
// rewound — only the destination is seeked — so after the first op every
// file reader is at end of file and an op is one read (or sendfile) that
// returns 0: the PR's timings measure the path's fixed cost, not a copy.
// The bytes.Buffer source is drained by the first op, the limited reader
// exhausted. NetConnToOSFile copies 16 KiB per op from a connection whose
// peer keeps sending (fasthttp dials a new connection per op outside the
// timer). The payload is a 16 KiB file in a temporary directory under /tmp
// (the PR's was fasthttp's README.md).
//
// Example:
//   zerolab lab copy
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "files/atomic_file.hpp"
#include "lab/experiments/catalog.hpp"
#include "lab/experiments/loopback.hpp"
#include "lab/framework/experiment.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::lab {
namespace {

constexpr std::size_t kPayload = 16 << 10;
constexpr std::size_t kLimit = 1024;         // the PR's io.LimitReader(f, 1024)
constexpr std::size_t kGoBuffer = 32 << 10;  // io.Copy's buffer
constexpr std::size_t kPoolBuffer = 4096;    // fasthttp's copyBufPool buffer

// A temporary directory with a source file of kPayload bytes (open for
// reading, at offset 0) and an empty destination file (open for writing);
// removed on destruction.
class Files {
 public:
  explicit Files(B& b) {
    dir_ = "/tmp/zerolab_lab_copy_XXXXXX";
    if (mkdtemp(dir_.data()) == nullptr)
      b.fatal("mkdtemp failed: " + std::string(std::strerror(errno)));
    src = open((dir_ + "/src").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    dst = open((dir_ + "/dst").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (src < 0 || dst < 0) b.fatal("cannot create the benchmark's files");
    std::string data(kPayload, '\0');
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + i % 26);
    if (write(src, data.data(), data.size()) != static_cast<ssize_t>(data.size()) ||
        lseek(src, 0, SEEK_SET) != 0) {
      b.fatal("cannot write the source file");
    }
  }
  ~Files() {
    close(src);
    close(dst);
    unlink((dir_ + "/src").c_str());
    unlink((dir_ + "/dst").c_str());
    rmdir(dir_.c_str());
  }
  Files(const Files&) = delete;
  Files& operator=(const Files&) = delete;
  // What fasthttp's loops do before each op: seek the destination only.
  void seek_dst(B& b) const {
    if (lseek(dst, 0, SEEK_SET) != 0) b.fatal("lseek: " + std::string(std::strerror(errno)));
  }
  int src = -1;
  int dst = -1;

 private:
  std::string dir_;
};

// A growable byte buffer that, like bytes.Buffer, reads straight into its
// spare capacity (ReadFrom) and writes out and drains what it holds
// (WriteTo).
class ByteBuffer {
 public:
  void reset() noexcept { begin_ = end_ = 0; }
  std::size_t size() const noexcept { return end_ - begin_; }
  // bytes.Buffer.ReadFrom: grow by at least 512 bytes, read, until EOF.
  bool read_from(int fd) {
    for (;;) {
      if (capacity_ - end_ < 512) grow(512);
      const ssize_t n = read(fd, data_.get() + end_, capacity_ - end_);
      if (n < 0) return false;
      if (n == 0) return true;
      end_ += static_cast<std::size_t>(n);
    }
  }
  // bytes.Buffer.WriteTo: write what is unread, and drain it.
  bool write_to(int fd) {
    if (size() == 0) return true;
    const ssize_t n = write(fd, data_.get() + begin_, size());
    if (n != static_cast<ssize_t>(size())) return false;
    reset();
    return true;
  }

 private:
  void grow(std::size_t more) {
    const std::size_t cap = std::max(capacity_ * 2, end_ + more);
    std::unique_ptr<char[]> bigger(new char[cap]);
    if (end_ > begin_) std::memcpy(bigger.get(), data_.get() + begin_, size());
    end_ -= begin_;
    begin_ = 0;
    data_ = std::move(bigger);
    capacity_ = cap;
  }
  std::unique_ptr<char[]> data_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::size_t capacity_ = 0;
};

// Writes all of p[0, n) (the project's one write loop).
bool write_all(int fd, const char* p, std::size_t n) {
  return internal::write_all(fd, std::string_view(p, n));
}

// The pooled buffer (fasthttp's copyBufPool): one per thread, reused.
char* pooled_buffer() {
  static thread_local std::unique_ptr<char[]> buffer(new char[kPoolBuffer]);
  return buffer.get();
}

// io.Copy's buffer: made and zeroed per call, as Go's make does.
std::vector<char> fresh_buffer() {
  return std::vector<char>(kGoBuffer);
}

// A read/write loop from fd `src` (at most `limit` bytes) into `put`.
template <class Put>
bool buffer_loop(int src, char* buf, std::size_t size, std::size_t limit, Put put) {
  std::size_t done = 0;
  while (done < limit) {
    const ssize_t n = read(src, buf, std::min(size, limit - done));
    if (n < 0) return false;
    if (n == 0) return true;
    if (!put(buf, static_cast<std::size_t>(n))) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

enum class Way { kOld, kNew };

void ok_or_fail(B& b, bool ok, const char* what) {
  if (!ok) b.fatal(std::string(what) + ": " + std::strerror(errno));
}

// ---- the seven pairs -------------------------------------------------------

void file_to_bytes_buffer(B& b, Way) {
  Files f(b);
  ByteBuffer buffer;
  for (auto _ : b.loop()) {
    buffer.reset();
    ok_or_fail(b, buffer.read_from(f.src), "read");  // old and new: ReadFrom
  }
}

void bytes_buffer_to_file(B& b, Way) {
  Files f(b);
  ByteBuffer buffer;
  ok_or_fail(b, buffer.read_from(f.src), "read");
  for (auto _ : b.loop()) {
    f.seek_dst(b);
    ok_or_fail(b, buffer.write_to(f.dst), "write");  // old and new: WriteTo
  }
}

void file_to_string(B& b, Way way) {
  Files f(b);
  std::string s;
  const auto append = [&s](const char* p, std::size_t n) {
    s.append(p, n);
    return true;
  };
  for (auto _ : b.loop()) {
    s.clear();
    if (way == Way::kOld) {
      std::vector<char> buf = fresh_buffer();
      ok_or_fail(b, buffer_loop(f.src, buf.data(), buf.size(), SIZE_MAX, append), "read");
    } else {
      ok_or_fail(b, buffer_loop(f.src, pooled_buffer(), kPoolBuffer, SIZE_MAX, append), "read");
    }
  }
}

void limited_to_file(B& b, Way way) {
  Files f(b);
  std::size_t remaining = kLimit;  // the io.LimitedReader's N, used up by the first op
  for (auto _ : b.loop()) {
    f.seek_dst(b);
    if (way == Way::kOld) {
      // Go's File.ReadFrom of a LimitedReader: copy_file_range, none when N <= 0.
      if (remaining > 0) {
        const ssize_t n = copy_file_range(f.src, nullptr, f.dst, nullptr, remaining, 0);
        ok_or_fail(b, n >= 0, "copy_file_range");
        remaining -= static_cast<std::size_t>(n);
      }
    } else {
      std::size_t copied = 0;
      ok_or_fail(b,
                 buffer_loop(f.src, pooled_buffer(), kPoolBuffer, remaining,
                             [&](const char* p, std::size_t n) {
                               copied += n;
                               return write_all(f.dst, p, n);
                             }),
                 "copy");
      remaining -= copied;
    }
  }
}

void file_to_file(B& b, Way way) {
  Files f(b);
  const auto put = [&f](const char* p, std::size_t n) { return write_all(f.dst, p, n); };
  for (auto _ : b.loop()) {
    f.seek_dst(b);
    if (way == Way::kOld) {
      std::vector<char> buf = fresh_buffer();
      ok_or_fail(b, buffer_loop(f.src, buf.data(), buf.size(), SIZE_MAX, put), "copy");
    } else {
      ok_or_fail(b, buffer_loop(f.src, pooled_buffer(), kPoolBuffer, SIZE_MAX, put), "copy");
    }
  }
}

// A loopback pair, or the benchmark stops with why not.
LoopbackPair loopback(B& b) {
  std::string error;
  LoopbackPair net = LoopbackPair::open(error);
  if (!error.empty()) b.fatal(error);
  return net;
}

void file_to_tcp(B& b, Way) {
  Files f(b);
  const LoopbackPair net = loopback(b);
  PeerThread sink(net.peer(), true);
  for (auto _ : b.loop()) {
    // old and new: sendfile (copy_fd picks it for file -> socket); the file
    // is at end of file after the first op.
    const CopyResult r = copy_fd(f.src, net.ours());
    if (r.error) b.fatal("copy_fd: " + r.error.message());
  }
}

void tcp_to_file(B& b, Way) {
  Files f(b);
  const LoopbackPair net = loopback(b);
  PeerThread source(net.peer(), false);
  CopyOptions o;
  o.max_bytes = kPayload;
  for (auto _ : b.loop()) {
    f.seek_dst(b);
    // old and new: splice (copy_fd picks it for socket -> file).
    const CopyResult r = copy_fd(net.ours(), f.dst, o);
    if (r.error || r.bytes != kPayload)
      b.fatal("copy_fd: copied " + std::to_string(r.bytes) + " bytes");
  }
}

struct Pair {
  const char* name;  // the PR's benchmark name, without CopyZeroAlloc
  void (*run)(B&, Way);
};

constexpr Pair kPairs[] = {
    {"OSFileToBytesBuffer", &file_to_bytes_buffer},
    {"BytesBufferToOSFile", &bytes_buffer_to_file},
    {"OSFileToStringsBuilder", &file_to_string},
    {"IOLimitedReaderToOSFile", &limited_to_file},
    {"OSFileToOSFile", &file_to_file},
    {"OSFileToNetConn", &file_to_tcp},
    {"NetConnToOSFile", &tcp_to_file},
};

std::string format_count(double n) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", n);
  return text;
}

std::string bench(const char* pair, const char* way) {
  return std::string("BenchmarkCopy/") + pair + "/" + way;
}

}  // namespace

Experiment make_copy_experiment() {
  Experiment e = Experiment::from_seed(
      "copy",
      "copyZeroAlloc before and after fasthttp PR #1893, op for op, the reader at end of file",
      {"003_8cb2aa8b072200dd.txt",
       "fasthttp PR #1893, the Linux table (old_linux.txt vs new_linux.txt)"},
      {"As in fasthttp's benchmarks the reader is never rewound: after the first op a file "
       "reader is at end of file, so an op is one read or sendfile at EOF and the ratios are "
       "the paths' fixed costs.",
       "Go's old path paid a zeroed 32 KiB make plus GC per call; C++'s is a zeroed 32 KiB "
       "std::vector (malloc + memset + free).",
       "Where old and new take the same path (bytes.Buffer pairs, sendfile, splice), Go's "
       "gap was its wrapper allocations, which C++ does not have (those claims: C++ not "
       "comparable).",
       "NetConnToOSFile: the C++ peer keeps sending and each op copies 16 KiB, where "
       "fasthttp (and the Go peer) dial a connection per op outside the timer.",
       "Payload: a 16 KiB file of letters, where the PR read fasthttp's README.md."},
      {"copy",
       "50ms",
       {"fasthttp cannot be fetched here: copyZeroAlloc's old and new paths are written with "
        "the standard library.",
        "Go 1.19's File and TCPConn have no WriteTo: the old path adds Go 1.22's (sendfile to "
        "TCP, else io.Copy's 32 KiB buffer), where the PR's regression came from.",
        "File.ReadFrom has no splice from a socket before Go 1.21: NetConnToOSFile takes "
        "io.Copy's buffer on both paths.",
        "mallocs/op and malloc-B/op added: the timed code's allocations untruncated (Go 1.19 "
        "prints integers)."}});
  const std::chrono::nanoseconds benchtime = std::chrono::milliseconds(50);
  for (const Pair& p : kPairs) {
    const auto run = p.run;
    e.benchmarks.push_back(
        {bench(p.name, "old"), [run](B& b) { run(b, Way::kOld); }, 0, benchtime});
    e.benchmarks.push_back(
        {bench(p.name, "new"), [run](B& b) { run(b, Way::kNew); }, 0, benchtime});
  }
  const std::string sec = "Linux (the PR's table, old_linux.txt vs new_linux.txt)";
  const auto claim = [&](Claim c, const char* pair, const char* slower, const char* faster) {
    c.go_names(bench(pair, slower), bench(pair, faster));
    e.claims.push_back(std::move(c));
  };
  // What the PR's Go (1.22+) did that Go 1.19 does not.
  const Precondition splice_from_socket =
      go_at_least(21, "File.ReadFrom splices from a socket, the PR's new path for a TCPConn");
  const Precondition sendfile_at_eof = go_at_least(
      22,
      "the PR's Go: File.WriteTo's sendfile at end of file returns without falling back to "
      "io.Copy's 32 KiB buffer");
  const char* same_path =
      "old and new take the same path in C++; Go's difference was its WriteTo wrappers' "
      "allocations, which C++ does not have";
  claim(Claim::direction(
            {"CopyZeroAllocOSFileToOSFile-8 12.132µ ± 1% 2.386µ ± 2% -80.33% (p=0.000 n=25)", sec,
             "5.08x (12.132 vs 2.386 µs/op)"},
            12.132 / 2.386, bench("OSFileToOSFile", "old"), bench("OSFileToOSFile", "new")),
        "OSFileToOSFile", "old", "new");
  claim(Claim::direction(
            {"CopyZeroAllocOSFileToStringsBuilder-8 9.477µ ± 0% 1.345µ ± 2% -85.81% (p=0.000 n=25)",
             sec, "7.05x (9.477 vs 1.345 µs/op)"},
            9.477 / 1.345, bench("OSFileToStringsBuilder", "old"),
            bench("OSFileToStringsBuilder", "new")),
        "OSFileToStringsBuilder", "old", "new");
  claim(Claim::direction(
            {"CopyZeroAllocOSFileToBytesBuffer-8 1.802µ ± 3% 1.303µ ± 2% -27.69% (p=0.000 n=25)",
             sec, "1.38x (1.802 vs 1.303 µs/op)"},
            1.802 / 1.303, bench("OSFileToBytesBuffer", "old"), bench("OSFileToBytesBuffer", "new"))
            .cpp_not_comparable_because(same_path),
        "OSFileToBytesBuffer", "old", "new");
  claim(Claim::is_faster(
            {"CopyZeroAllocBytesBufferToOSFile-8 1.066µ ± 17% 1.048µ ± 1% -1.69% (p=0.043 n=25)",
             sec, "1.02x (1.066 vs 1.048 µs/op)"},
            bench("BytesBufferToOSFile", "old"), bench("BytesBufferToOSFile", "new"))
            .cpp_not_comparable_because("old and new are bytes.Buffer's WriteTo in both; C++ runs "
                                        "the same code for both"),
        "BytesBufferToOSFile", "old", "new");
  claim(Claim::is_faster(
            {"CopyZeroAllocIOLimitedReaderToOSFile-8 1.031µ ± 1% 1.092µ ± 4% +5.92% (p=0.000 n=25)",
             sec, "new 1.06x slower (1.092 vs 1.031 µs/op)"},
            bench("IOLimitedReaderToOSFile", "new"), bench("IOLimitedReaderToOSFile", "old"))
            .sized(1.092 / 1.031),
        "IOLimitedReaderToOSFile", "new", "old");
  claim(Claim::is_faster(
            {"CopyZeroAllocNetConnToOSFile-8 21.86µ ± 2% 20.21µ ± 1% -7.56% (p=0.000 n=25)", sec,
             "1.08x (21.86 vs 20.21 µs/op)"},
            bench("NetConnToOSFile", "old"), bench("NetConnToOSFile", "new"))
            .sized(21.86 / 20.21)
            .needs(splice_from_socket)
            .cpp_not_comparable_because(same_path),
        "NetConnToOSFile", "old", "new");
  claim(Claim::no_change({"CopyZeroAllocOSFileToNetConn-8 2.009µ ± 2% 1.995µ ± 2% ~ (p=0.733 n=25)",
                          sec, "~ (2.009 vs 1.995 µs/op, ±2%; sendfile on both, 96 B/op each)"},
                         0.02, bench("OSFileToNetConn", "new"), bench("OSFileToNetConn", "old"))
            .needs(sendfile_at_eof),
        "OSFileToNetConn", "new", "old");
  e.claims.push_back(
      Claim::within(
          {"CopyZeroAllocOSFileToOSFile-8 32.06Ki ± 0% 0.00Ki ± 0% -100.00% (p=0.000 n=25)",
           sec + " (B/op)",
           "old: 32.06 KiB/op; the bound: io.Copy's 32 KiB buffer up to 32.065 KiB"},
          bench("OSFileToOSFile", "old"), kBytesPerOp, 32768, 32.065 * 1024)
          .go_bench(bench("OSFileToOSFile", "old")));
  for (const char* pair : {"OSFileToOSFile", "OSFileToStringsBuilder"}) {
    e.claims.push_back(
        Claim::within(
            {std::string("CopyZeroAlloc") + pair + "-8 … 0.00Ki ± 0% -100.00%", sec + " (B/op)",
             "new: 0.00Ki B/op, below 5.12 B/op at benchstat's precision"},
            bench(pair, "new"), kBytesPerOp, 0, 0.005 * 1024)
            .go_bench(bench(pair, "new")));
  }
  e.claims.push_back(
      Claim::within({"CopyZeroAllocNetConnToOSFile-8 2.000 ± 0% 1.000 ± 0% -50.00% (p=0.000 n=25)",
                     sec + " (allocs/op)", "old: 2 allocs/op, Go's truncated count: [2, 3)"},
                    bench("NetConnToOSFile", "old"), kAllocsPerOp, 2, 2 + kBelowNextCount)
          .go_bench(bench("NetConnToOSFile", "old"))
          .needs(splice_from_socket)
          .cpp_not_comparable_because("C++ allocates nothing on either path: Go's 2 and 1 are "
                                      "its wrapper and interface objects"));
  e.claims.push_back(
      Claim::within({"CopyZeroAllocNetConnToOSFile-8 2.000 ± 0% 1.000 ± 0% -50.00% (p=0.000 n=25)",
                     sec + " (allocs/op)", "new: 1 allocs/op, Go's truncated count: [1, 2)"},
                    bench("NetConnToOSFile", "new"), kAllocsPerOp, 1, 1 + kBelowNextCount)
          .go_bench(bench("NetConnToOSFile", "new"))
          .needs(splice_from_socket)
          .cpp_not_comparable_because("C++ allocates nothing on either path: Go's 2 and 1 are "
                                      "its wrapper and interface objects"));
  // The table's other exact counts, Go here only: Go's allocations are its
  // wrapper and interface objects and io.Copy's buffer, which C++ does not
  // make the same way. Go's allocs/op and B/op are truncated integers: "4.000"
  // is [4, 5), "40.00" B is [40, 41); "0.000" is nothing.
  const char* go_objects =
      "Go's counts are its wrapper and interface objects and io.Copy's buffer; C++ allocates "
      "its own way";
  struct Count {
    const char* pair;
    const char* way;
    const char* unit;
    double n;  // the table's count; 0: nothing
    const char* quote;
    const char* figure;
    const Precondition* needs;
  };
  const std::string row_4 =
      "CopyZeroAllocOSFileToBytesBuffer-8 4.000 ± 0% 0.000 ± 0% -100.00% (p=0.000 n=25)";
  const std::string row_40 =
      "CopyZeroAllocOSFileToBytesBuffer-8 40.00 ± 0% 0.00 ± 0% -100.00% (p=0.000 n=25)";
  const std::string row_5 =
      "CopyZeroAllocOSFileToStringsBuilder-8 5.000 ± 0% 0.000 ± 0% -100.00% (p=0.000 n=25)";
  const std::string row_8 =
      "CopyZeroAllocOSFileToOSFile-8 8.000 ± 0% 0.000 ± 0% -100.00% (p=0.000 n=25)";
  const std::string row_16 =
      "CopyZeroAllocNetConnToOSFile-8 16.000 ± 6% 8.000 ± 12% -50.00% (p=0.000 n=25)";
  const std::string row_96 =
      "CopyZeroAllocOSFileToNetConn-8 96.00 ± 0% 96.00 ± 0% ~ (p=1.000 n=25) ¹";
  const std::string row_6 =
      "CopyZeroAllocOSFileToNetConn-8 6.000 ± 0% 6.000 ± 0% ~ (p=1.000 n=25) ¹";
  // The old path's counts are Go 1.22's File.WriteTo wrappers and io.Copy
  // call (the PR's Go); Go 1.19 has no File.WriteTo, and the peer's stand-in
  // for it allocates its own way.
  const Precondition file_write_to = go_at_least(
      22,
      "the PR's Go: os.File.WriteTo, whose wrappers and io.Copy call the old path's counts are");
  const Count counts[] = {
      {"OSFileToBytesBuffer", "old", kAllocsPerOp, 4, row_4.c_str(), "old: 4 allocs/op",
       &file_write_to},
      {"OSFileToBytesBuffer", "new", kAllocsPerOp, 0, row_4.c_str(), "new: 0 allocs/op", nullptr},
      {"OSFileToBytesBuffer", "old", kBytesPerOp, 40, row_40.c_str(), "old: 40 B/op",
       &file_write_to},
      {"OSFileToBytesBuffer", "new", kBytesPerOp, 0, row_40.c_str(), "new: 0 B/op", nullptr},
      {"OSFileToStringsBuilder", "old", kAllocsPerOp, 5, row_5.c_str(), "old: 5 allocs/op",
       &file_write_to},
      {"OSFileToStringsBuilder", "new", kAllocsPerOp, 0, row_5.c_str(), "new: 0 allocs/op",
       nullptr},
      {"OSFileToOSFile", "old", kAllocsPerOp, 8, row_8.c_str(), "old: 8 allocs/op", &file_write_to},
      {"OSFileToOSFile", "new", kAllocsPerOp, 0, row_8.c_str(), "new: 0 allocs/op", nullptr},
      {"NetConnToOSFile", "old", kBytesPerOp, 16, row_16.c_str(), "old: 16 B/op",
       &splice_from_socket},
      {"NetConnToOSFile", "new", kBytesPerOp, 8, row_16.c_str(), "new: 8 B/op",
       &splice_from_socket},
      {"OSFileToNetConn", "old", kBytesPerOp, 96, row_96.c_str(), "old: 96 B/op", &sendfile_at_eof},
      {"OSFileToNetConn", "new", kBytesPerOp, 96, row_96.c_str(), "new: 96 B/op", &sendfile_at_eof},
      {"OSFileToNetConn", "old", kAllocsPerOp, 6, row_6.c_str(), "old: 6 allocs/op",
       &sendfile_at_eof},
      {"OSFileToNetConn", "new", kAllocsPerOp, 6, row_6.c_str(), "new: 6 allocs/op",
       &sendfile_at_eof},
  };
  for (const Count& c : counts) {
    const bool allocs = std::string(c.unit) == kAllocsPerOp;
    const std::string section = sec + (allocs ? " (allocs/op)" : " (B/op)");
    std::string figure = c.figure;
    double lo = 0;
    double hi = allocs ? kNothingAllocsPerOp : kNothingBytesPerOp;
    if (c.n > 0) {
      lo = c.n;
      hi = c.n + kBelowNextCount;
      figure +=
          ", Go's truncated count: [" + format_count(c.n) + ", " + format_count(c.n + 1) + ")";
    } else {
      figure += ": nothing (below " + std::string(allocs ? "0.001 allocs/op" : "0.1 B/op") + ")";
    }
    Claim count = Claim::within({c.quote, section, figure}, bench(c.pair, c.way), c.unit, lo, hi);
    count.go_bench(bench(c.pair, c.way)).cpp_not_comparable_because(go_objects);
    if (c.needs != nullptr) count.needs(*c.needs);
    e.claims.push_back(std::move(count));
  }
  return e;
}

}  // namespace zerolab::lab
