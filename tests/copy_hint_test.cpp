// copy_fd's per-thread hint (src/io/copy_hints.cpp): after a file → file copy
// by copy_file_range, the next copy between the same descriptor numbers
// starts with copy_file_range before inspecting anything. These tests make
// the numbers name something else between two copies (dup2 onto them) and
// check that each copy still does exactly what an uninspected copy_fd
// does: the bytes, the count, the path, the errors.
//
// The second hint: after a copy into a stream socket, a small copy between
// the same numbers goes straight to sendfile under the SIGPIPE mask. The
// same renumbering checks that a stale hint reads nothing it cannot
// deliver.
//
// The third: after a small copy by splice or sendfile with a pipe at one
// end, or from a stream socket into a file, the next small copy between
// the same numbers splices after one check (the SIGPIPE mask into a pipe;
// into a file, that it still is a regular file, and for a socket source
// that it takes the bytes).
//
// Example: build/release/tests/copy_hint_test --gtest_filter='*SameFile*'
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "copy_test_util.hpp"
#include "zerolab/copy.hpp"

namespace zerolab {
namespace {

// The file → file hint is copy_file_range's; the inspected copies before it
// take copy_file_range too, whatever a machine profile says.
const bool kCopyFileRange = setenv("ZEROLAB_COPY_SMALL_FILE", "copy_file_range", 1) == 0;

using copy_test::create_file;
using copy_test::limit_file_size;
using copy_test::pattern;
using copy_test::pipe_holding;
using copy_test::pread_all;
using copy_test::read_all;
using copy_test::run_in_child;
using copy_test::SocketPair;
using copy_test::tcp_pair;
using copy_test::TempDir;
using copy_test::unix_pair;
using copy_test::write_all;

// Makes `number` name what `fd` names, and closes `fd`.
void renumber(int fd, int number) {
  ASSERT_EQ(dup2(fd, number), number);
  close(fd);
}

// Two files and a copy between them that leaves the hint on (src, dst).
class CopyHint : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = create_file(dir_.file("src"), data_);
    dst_ = create_file(dir_.file("dst"), "");
    ASSERT_GE(src_, 0);
    ASSERT_GE(dst_, 0);
    warm();
  }
  void TearDown() override {
    close(src_);
    close(dst_);
  }

  // A whole-file copy, then the same again from the start: the second
  // runs on the hint.
  void warm() {
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
      ASSERT_EQ(lseek(dst_, 0, SEEK_SET), 0);
      const CopyResult r = copy_fd(src_, dst_);
      ASSERT_FALSE(r.error) << r.message;
      ASSERT_EQ(r.bytes, data_.size());
      ASSERT_EQ(r.path, CopyPath::kCopyFileRange);
    }
    ASSERT_EQ(pread_all(dst_), data_);
  }

  TempDir dir_{"/tmp"};
  const std::string data_ = pattern(20000);
  int src_ = -1;
  int dst_ = -1;
};

TEST_F(CopyHint, RepeatedCopiesAreExact) {
  CopyOptions o;
  o.max_bytes = 7000;
  ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
  ASSERT_EQ(lseek(dst_, 0, SEEK_SET), 0);
  ASSERT_EQ(ftruncate(dst_, 0), 0);
  for (int i = 0; i < 3; ++i) {
    const CopyResult r = copy_fd(src_, dst_, o);
    ASSERT_FALSE(r.error) << r.message;
    EXPECT_EQ(r.bytes, i < 2 ? 7000u : 6000u);  // the third reaches the end at 20000
    EXPECT_EQ(r.path, CopyPath::kCopyFileRange);
  }
  EXPECT_EQ(lseek(src_, 0, SEEK_CUR), 20000);
  EXPECT_EQ(lseek(dst_, 0, SEEK_CUR), 20000);
  EXPECT_EQ(pread_all(dst_), data_);
  // At end of file: nothing, and no error.
  const CopyResult r = copy_fd(src_, dst_, o);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 0u);
}

TEST_F(CopyHint, PositionalCopiesAreExact) {
  CopyOptions o;
  o.src_offset = 15000;
  o.dst_offset = 100;
  // Unlimited from an offset: the rest of the source, file positions alone.
  CopyResult r = copy_fd(src_, dst_, o);
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 5000u);
  r = copy_fd(src_, dst_, o);
  EXPECT_EQ(r.bytes, 5000u);
  EXPECT_EQ(lseek(src_, 0, SEEK_CUR), 20000);
  EXPECT_EQ(pread_all(dst_), data_.substr(0, 100) + data_.substr(15000) + data_.substr(5100));
  // More asked than there is.
  o.max_bytes = 9000;
  r = copy_fd(src_, dst_, o);
  EXPECT_EQ(r.bytes, 5000u);
  EXPECT_EQ(r.path, CopyPath::kCopyFileRange);
}

TEST_F(CopyHint, DestinationNumberNowAPipe) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  renumber(p[1], dst_);
  ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
  const CopyResult r = copy_fd(src_, dst_);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data_.size());
  EXPECT_EQ(r.path, CopyPath::kSendfile);
  close(dst_);
  dst_ = -1;
  EXPECT_EQ(read_all(p[0]), data_);
  close(p[0]);
}

TEST_F(CopyHint, SourceNumberNowAPipe) {
  const int held = pipe_holding("from a pipe");
  ASSERT_GE(held, 0);
  renumber(held, src_);
  ASSERT_EQ(ftruncate(dst_, 0), 0);
  ASSERT_EQ(lseek(dst_, 0, SEEK_SET), 0);
  const CopyResult r = copy_fd(src_, dst_);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 11u);
  EXPECT_EQ(r.path, CopyPath::kSplice);
  EXPECT_EQ(pread_all(dst_), "from a pipe");
}

TEST_F(CopyHint, DestinationNumberNowAppends) {
  const int append = open(dir_.file("dst").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  ASSERT_GE(append, 0);
  renumber(append, dst_);
  ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
  const CopyResult r = copy_fd(src_, dst_);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data_.size());
  const int check = open(dir_.file("dst").c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(pread_all(check), data_ + data_);
  close(check);
  // dst_offset with O_APPEND is refused as before, naming the descriptor.
  CopyOptions o;
  o.dst_offset = 0;
  const CopyResult refused = copy_fd(src_, dst_, o);
  EXPECT_EQ(refused.error, std::errc::invalid_argument);
  EXPECT_EQ(refused.message, "destination fd " + std::to_string(dst_) +
                                 " is O_APPEND: writes ignore dst_offset, so it cannot be given");
}

TEST_F(CopyHint, DestinationNumberNowNotWritable) {
  const int ro = open(dir_.file("dst").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(ro, 0);
  renumber(ro, dst_);
  ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
  const CopyResult r = copy_fd(src_, dst_);
  EXPECT_EQ(r.error, std::errc::bad_file_descriptor);
  EXPECT_EQ(r.message, "destination fd " + std::to_string(dst_) + " is not open for writing");
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(lseek(src_, 0, SEEK_CUR), 0);
}

// The destination number now names the source file, at its end: one copy
// of what the file held, not a copy that reads its own output.
TEST_F(CopyHint, DestinationNumberNowTheSourceFile) {
  const int same = open(dir_.file("src").c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(same, 0);
  renumber(same, dst_);
  ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
  ASSERT_EQ(lseek(dst_, 0, SEEK_END), 20000);
  CopyResult r = copy_fd(src_, dst_);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data_.size());
  EXPECT_EQ(pread_all(src_), data_ + data_);
  // A limit past the end: the copy stops at the size the file had.
  ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
  CopyOptions o;
  o.max_bytes = 100000;
  r = copy_fd(src_, dst_, o);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 2 * data_.size());
  EXPECT_EQ(pread_all(src_), data_ + data_ + data_ + data_);
  // Ranges that overlap are refused as without the hint.
  ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
  ASSERT_EQ(lseek(dst_, 100, SEEK_SET), 100);
  r = copy_fd(src_, dst_);
  EXPECT_EQ(r.error, std::errc::invalid_argument);
  EXPECT_EQ(r.message, "source fd " + std::to_string(src_) + " and destination fd " +
                           std::to_string(dst_) + " are the same file and the byte ranges overlap");
  EXPECT_EQ(pread_all(src_), data_ + data_ + data_ + data_);
}

// The source number now names a procfs file, whose st_size is 0: read to
// its end as without the hint.
TEST_F(CopyHint, SourceNumberNowAProcfsFile) {
  const int self = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(self, 0);
  const std::string want = read_all(self);
  ASSERT_FALSE(want.empty());
  ASSERT_EQ(lseek(self, 0, SEEK_SET), 0);
  renumber(self, src_);
  for (const std::uint64_t limit : {CopyOptions::kNoLimit, std::uint64_t{1} << 20}) {
    ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
    ASSERT_EQ(ftruncate(dst_, 0), 0);
    ASSERT_EQ(lseek(dst_, 0, SEEK_SET), 0);
    CopyOptions o;
    o.max_bytes = limit;
    const CopyResult r = copy_fd(src_, dst_, o);
    EXPECT_FALSE(r.error) << r.message;
    EXPECT_EQ(r.bytes, want.size());
    EXPECT_EQ(r.path, CopyPath::kReadWrite);
    EXPECT_EQ(pread_all(dst_), want);
  }
}

TEST_F(CopyHint, ANumberNowClosedIsReported) {
  close(dst_);
  ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
  const CopyResult r = copy_fd(src_, dst_);
  EXPECT_EQ(r.error, std::errc::bad_file_descriptor);
  EXPECT_EQ(r.message, "destination fd " + std::to_string(dst_) + ": Bad file descriptor");
  dst_ = -1;
}

// A file and the sending end of a unix stream socket, after a small copy
// that leaves the socket hint on (src, dst). Small copies (16 KiB) fit the
// socket's buffer, so the test reads what arrived after each copy.
class CopySocketHint : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = create_file(dir_.file("src"), data_);
    ASSERT_GE(src_, 0);
    const SocketPair s = unix_pair();
    ASSERT_GE(s.a, 0);
    dst_ = s.a;
    peer_ = s.b;
    const CopyResult r = copy_fd(src_, dst_, small());
    ASSERT_FALSE(r.error) << r.message;
    ASSERT_EQ(r.bytes, 16384u);
    // sendfile (the table's path) when inspected; read_write when an
    // earlier test left the hint on these same numbers, now this socket.
    ASSERT_TRUE(r.path == CopyPath::kSendfile || r.path == CopyPath::kReadWrite);
    ASSERT_EQ(received(16384), data_.substr(0, 16384));
  }
  void TearDown() override {
    for (int fd : {src_, dst_, peer_}) {
      if (fd >= 0) close(fd);
    }
  }

  static CopyOptions small() {
    CopyOptions o;
    o.max_bytes = 16384;
    return o;
  }

  // Exactly `n` bytes from the peer end.
  std::string received(std::size_t n) {
    std::string got(n, '\0');
    std::size_t off = 0;
    while (off < n) {
      const ssize_t m = recv(peer_, got.data() + off, n - off, 0);
      if (m <= 0) break;
      off += static_cast<std::size_t>(m);
    }
    got.resize(off);
    return got;
  }

  TempDir dir_{"/tmp"};
  const std::string data_ = pattern(40000, 7);
  int src_ = -1;
  int dst_ = -1;
  int peer_ = -1;
};

TEST_F(CopySocketHint, SmallCopiesSendfile) {
  CopyResult r = copy_fd(src_, dst_, small());
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 16384u);
  EXPECT_EQ(r.path, CopyPath::kSendfile);
  EXPECT_EQ(received(16384), data_.substr(16384, 16384));
  // The rest of the file is shorter than max_bytes: the copy ends there.
  r = copy_fd(src_, dst_, small());
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 40000u - 32768u);
  EXPECT_EQ(r.path, CopyPath::kSendfile);
  EXPECT_EQ(received(40000 - 32768), data_.substr(32768));
  EXPECT_EQ(lseek(src_, 0, SEEK_CUR), 40000);
  // Without a limit (the size unknown) or above 128 KiB, copy_fd inspects.
  ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
  CopyOptions big;
  big.max_bytes = 200000;
  r = copy_fd(src_, dst_, big);
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 40000u);
  EXPECT_EQ(r.path, CopyPath::kSendfile);
  EXPECT_EQ(received(40000), data_);
}

// A non-blocking TCP socket with little room takes a hinted copy (128
// KiB, the most a hint takes) only in pieces: what the first sendfile
// calls moved counts, and the copy waits for room (poll) and goes on until
// every byte is there.
TEST(CopySocketHintPieces, ANonBlockingSocketWithLittleRoomGetsEveryByte) {
  TempDir dir("/tmp");
  const std::string data = pattern(128 << 10, 11);
  const int src = create_file(dir.file("src"), data);
  ASSERT_GE(src, 0);
  const SocketPair tcp = tcp_pair(/*sndbuf=*/16384, /*rcvbuf=*/16384);
  ASSERT_GE(tcp.a, 0);
  std::string got;
  std::thread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the copy finds the socket full
    got = read_all(tcp.b);
  });
  CopyOptions o;
  o.max_bytes = 1000;  // the inspected copy, which leaves the hint on (src, tcp.a)
  CopyResult r = copy_fd(src, tcp.a, o);
  ASSERT_FALSE(r.error) << r.message;
  ASSERT_EQ(fcntl(tcp.a, F_SETFL, O_RDWR | O_NONBLOCK), 0);
  o.max_bytes = data.size() - 1000;
  o.timeout = std::chrono::seconds(10);
  r = copy_fd(src, tcp.a, o);
  shutdown(tcp.a, SHUT_WR);
  reader.join();
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data.size() - 1000);
  EXPECT_EQ(r.path, CopyPath::kSendfile);
  EXPECT_EQ(got, data);
  EXPECT_EQ(lseek(src, 0, SEEK_CUR), static_cast<off_t>(data.size()));
  close(tcp.a);
  close(tcp.b);
  close(src);
}

TEST_F(CopySocketHint, DestinationNumberNowAPipe) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  renumber(p[1], dst_);
  const CopyResult r = copy_fd(src_, dst_, small());
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 16384u);
  EXPECT_EQ(r.path, CopyPath::kSendfile);  // the table's file → pipe path
  close(dst_);
  dst_ = -1;
  EXPECT_EQ(read_all(p[0]), data_.substr(16384, 16384));
  close(p[0]);
}

// A stale hint must not consume what it cannot deliver: a pipe source and
// a destination that is no longer a socket (here not open for writing)
// leave the pipe's bytes where they were.
TEST_F(CopySocketHint, NothingIsReadWhenTheDestinationIsNoLongerASocket) {
  const int held = pipe_holding("still here");
  ASSERT_GE(held, 0);
  renumber(held, src_);
  const int read_only = open(dir_.file("src").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(read_only, 0);
  renumber(read_only, dst_);
  const CopyResult r = copy_fd(src_, dst_, small());
  EXPECT_EQ(r.error, std::errc::bad_file_descriptor);
  EXPECT_EQ(r.message, "destination fd " + std::to_string(dst_) + " is not open for writing");
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(read_all(src_), "still here");
}

// The hint's sendfile takes a destination that is now a file as well: an
// exact copy at the file's position.
TEST_F(CopySocketHint, DestinationNumberNowAFile) {
  const int f = open(dir_.file("dst").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(f, 0);
  renumber(f, dst_);
  const CopyResult r = copy_fd(src_, dst_, small());
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 16384u);
  EXPECT_EQ(r.path, CopyPath::kSendfile);
  EXPECT_EQ(lseek(src_, 0, SEEK_CUR), 32768);
  EXPECT_EQ(lseek(dst_, 0, SEEK_CUR), 16384);
  ASSERT_EQ(lseek(dst_, 0, SEEK_SET), 0);
  EXPECT_EQ(read_all(dst_), data_.substr(16384, 16384));
}

TEST_F(CopySocketHint, DestinationNumberNowClosed) {
  close(dst_);
  const int closed = dst_;
  dst_ = -1;
  const CopyResult r = copy_fd(src_, closed, small());
  EXPECT_EQ(r.error, std::errc::bad_file_descriptor);
  EXPECT_EQ(r.message, "destination fd " + std::to_string(closed) + ": Bad file descriptor");
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(lseek(src_, 0, SEEK_CUR), 16384);
}

// A source that cannot be put back (a pipe) is never read on the hint.
TEST_F(CopySocketHint, SourceNumberNowAPipe) {
  const int held = pipe_holding("from a pipe");
  ASSERT_GE(held, 0);
  renumber(held, src_);
  const CopyResult r = copy_fd(src_, dst_, small());
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 11u);
  EXPECT_EQ(r.path, CopyPath::kSplice);  // the table's pipe → socket path, inspected
  EXPECT_EQ(received(11), "from a pipe");
}

TEST_F(CopySocketHint, SourceNumberNowADirectory) {
  const int d = open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(d, 0);
  renumber(d, src_);
  const CopyResult r = copy_fd(src_, dst_, small());
  EXPECT_EQ(r.error, std::errc::is_a_directory);
  EXPECT_EQ(r.message, "source fd " + std::to_string(src_) + " is a directory");
  EXPECT_EQ(r.bytes, 0u);
}

// The peer gone: EPIPE (no SIGPIPE: this process keeps its default
// disposition), nothing delivered, and the file position where it was.
TEST_F(CopySocketHint, APeerThatLeftIsEpipeWithTheSourceRewound) {
  close(peer_);
  peer_ = -1;
  const CopyResult r = copy_fd(src_, dst_, small());
  EXPECT_EQ(r.error, std::errc::broken_pipe);
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(r.path, CopyPath::kSendfile);
  EXPECT_EQ(r.message, "sendfile from source fd " + std::to_string(src_) + " to destination fd " +
                           std::to_string(dst_) + ": Broken pipe (after 0 bytes)");
  EXPECT_EQ(lseek(src_, 0, SEEK_CUR), 16384);
}

TEST_F(CopySocketHint, DestinationNumberNowADatagramSocket) {
  int d[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, d), 0);
  renumber(d[0], dst_);
  CopyOptions o;
  o.max_bytes = 1000;
  const CopyResult r = copy_fd(src_, dst_, o);
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 1000u);
  EXPECT_EQ(r.path, CopyPath::kSendfile);  // one datagram of the 1000 bytes
  char buf[2000];
  ASSERT_EQ(recv(d[1], buf, sizeof buf, MSG_DONTWAIT), 1000);
  EXPECT_EQ(std::string(buf, 1000), data_.substr(16384, 1000));
  close(d[1]);
}

// Small copies with a pipe at one end or from a socket into a file. Each
// test primes the hint with one inspected copy of 16 KiB (prime()), then
// copies again between the same numbers, renumbered or not.
class CopySpliceHint : public ::testing::Test {
 protected:
  void TearDown() override {
    for (int fd : open_) close(fd);
  }

  static CopyOptions small() {
    CopyOptions o;
    o.max_bytes = 16384;
    return o;
  }

  int keep(int fd) {
    if (fd >= 0) open_.push_back(fd);
    return fd;
  }
  // A pipe holding `data` whose write end is closed: its read end.
  int kept_pipe_holding(const std::string& data) { return keep(pipe_holding(data)); }
  // A unix stream socket holding `data` whose peer has shut down writing:
  // the reading end (both ends kept).
  int socket_holding(const std::string& data) {
    const SocketPair s = unix_pair();
    keep(s.a);
    keep(s.b);
    write_all(s.b, data.data(), data.size());
    shutdown(s.b, SHUT_WR);
    return s.a;
  }
  // An empty pipe: its ends, both kept.
  void pipe_ends(int& read_end, int& write_end) {
    int p[2];
    ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
    read_end = keep(p[0]);
    write_end = keep(p[1]);
  }
  // Closes a kept descriptor before TearDown.
  void close_kept(int fd) {
    ASSERT_EQ(close(fd), 0);
    open_.erase(std::find(open_.begin(), open_.end(), fd));
  }
  // The write end of a pipe whose read end is closed (kept).
  int pipe_without_reader() {
    int out = -1, in = -1;
    pipe_ends(out, in);
    close_kept(out);
    return in;
  }
  // Makes `number` name what `fd` names; `fd` stays open and kept.
  static void point(int number, int fd) { ASSERT_EQ(dup2(fd, number), number); }
  // The path of a small copy into a file from `src`: splice from the pipe
  // `pipe_src`, read/write from a socket (the table's, and the hint's).
  static CopyPath into_file_path(int src, int pipe_src) {
    return src == pipe_src ? CopyPath::kSplice : CopyPath::kReadWrite;
  }

  // The first copy of 16 KiB, inspected (by the table's path), which
  // leaves the hint on (src, dst). An earlier test of this process may
  // have left a hint on these same numbers: a forced copy of nothing
  // forgets it first.
  void prime(int src, int dst, CopyPath inspected) {
    CopyOptions forget;
    forget.path = CopyPath::kReadWrite;
    forget.max_bytes = 0;
    ASSERT_FALSE(copy_fd(src, dst, forget).error);
    const CopyResult r = copy_fd(src, dst, small());
    ASSERT_FALSE(r.error) << r.message;
    ASSERT_EQ(r.bytes, 16384u);
    ASSERT_EQ(r.path, inspected);
  }

  TempDir dir_{"/tmp"};
  const std::string data_ = pattern(40000, 9);
  std::vector<int> open_;
};

TEST_F(CopySpliceHint, FileIntoPipe) {
  const int src = keep(create_file(dir_.file("src"), data_));
  int out = -1, dst = -1;
  pipe_ends(out, dst);
  prime(src, dst, CopyPath::kSendfile);
  CopyResult r = copy_fd(src, dst, small());
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 16384u);
  EXPECT_EQ(r.path, CopyPath::kSplice);
  r = copy_fd(src, dst, small());  // the rest, shorter than max_bytes
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 40000u - 32768u);
  EXPECT_EQ(r.path, CopyPath::kSplice);
  EXPECT_EQ(lseek(src, 0, SEEK_CUR), 40000);
  // Without a limit, copy_fd inspects.
  ASSERT_EQ(lseek(src, 30000, SEEK_SET), 30000);
  r = copy_fd(src, dst);
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 10000u);
  EXPECT_EQ(r.path, CopyPath::kSendfile);
  close_kept(dst);
  EXPECT_EQ(read_all(out), data_ + data_.substr(30000));
}

// From a pipe the hinted copies splice; from a socket, after the empty
// pwrite that says the file takes writes, they read and write.
TEST_F(CopySpliceHint, PipeOrSocketIntoFile) {
  const int pipe_src = kept_pipe_holding(data_);
  const int sock = socket_holding(data_);
  for (const int src : {pipe_src, sock}) {
    SCOPED_TRACE(src == pipe_src ? "pipe source" : "socket source");
    const int dst = keep(create_file(dir_.file("dst" + std::to_string(src)), ""));
    prime(src, dst, into_file_path(src, pipe_src));
    for (const std::uint64_t expected : {16384u, 40000u - 32768u, 0u}) {
      const CopyResult r = copy_fd(src, dst, small());
      ASSERT_FALSE(r.error) << r.message;
      EXPECT_EQ(r.bytes, expected);
      EXPECT_EQ(r.path, into_file_path(src, pipe_src));
    }
    EXPECT_EQ(pread_all(dst), data_);
  }
}

// file → pipe, the destination now a file: the inspected file → file copy.
TEST_F(CopySpliceHint, DestinationPipeNowAFile) {
  const int src = keep(create_file(dir_.file("src"), data_));
  int out = -1, dst = -1;
  pipe_ends(out, dst);
  prime(src, dst, CopyPath::kSendfile);
  const int file = keep(create_file(dir_.file("dst"), ""));
  point(dst, file);
  const CopyResult r = copy_fd(src, dst, small());
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 16384u);
  EXPECT_EQ(r.path, CopyPath::kCopyFileRange);
  EXPECT_EQ(pread_all(file), data_.substr(16384, 16384));
}

// The pipe's reader gone: EPIPE with nothing moved and no SIGPIPE (this
// process keeps the default disposition, which would end it), as the
// inspected copy reports it.
TEST_F(CopySpliceHint, APipeWithoutReaderIsEpipe) {
  const int src = keep(create_file(dir_.file("src"), data_));
  int out = -1, dst = -1;
  pipe_ends(out, dst);
  prime(src, dst, CopyPath::kSendfile);
  close_kept(out);
  const CopyResult r = copy_fd(src, dst, small());
  EXPECT_EQ(r.error, std::errc::broken_pipe);
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(r.message, "sendfile from source fd " + std::to_string(src) + " to destination fd " +
                           std::to_string(dst) + ": Broken pipe (after 0 bytes)");
  EXPECT_EQ(lseek(src, 0, SEEK_CUR), 16384);
  sigset_t pending;
  ASSERT_EQ(sigpending(&pending), 0);
  EXPECT_EQ(sigismember(&pending, SIGPIPE), 0);
}

// pipe → file and socket → file, the destination now a pipe without a
// reader: not a file (from a socket, the empty pwrite fails with ESPIPE
// before anything is read), so the inspected copy, under the SIGPIPE mask,
// says EPIPE; the source keeps its bytes.
TEST_F(CopySpliceHint, DestinationFileNowAPipeWithoutReader) {
  const int pipe_src = kept_pipe_holding(data_);
  const int sock = socket_holding(data_);
  for (const int src : {pipe_src, sock}) {
    SCOPED_TRACE(src == pipe_src ? "pipe source" : "socket source");
    const int dst = keep(create_file(dir_.file("dst" + std::to_string(src)), ""));
    prime(src, dst, into_file_path(src, pipe_src));
    point(dst, pipe_without_reader());
    const CopyResult r = copy_fd(src, dst, small());
    EXPECT_EQ(r.error, std::errc::broken_pipe);
    EXPECT_EQ(r.bytes, 0u);
    EXPECT_EQ(read_all(src), data_.substr(16384));
  }
}

// The destination now read-only: nothing is taken from the pipe or socket.
TEST_F(CopySpliceHint, NothingIsReadWhenTheDestinationIsNotWritable) {
  const int pipe_src = kept_pipe_holding(data_);
  const int sock = socket_holding(data_);
  for (const int src : {pipe_src, sock}) {
    SCOPED_TRACE(src == pipe_src ? "pipe source" : "socket source");
    const int dst = keep(create_file(dir_.file("dst" + std::to_string(src)), ""));
    prime(src, dst, into_file_path(src, pipe_src));
    const int read_only =
        keep(open(dir_.file("dst" + std::to_string(src)).c_str(), O_RDONLY | O_CLOEXEC));
    point(dst, read_only);
    const CopyResult r = copy_fd(src, dst, small());
    EXPECT_EQ(r.error, std::errc::bad_file_descriptor);
    EXPECT_EQ(r.message, "destination fd " + std::to_string(dst) + " is not open for writing");
    EXPECT_EQ(r.bytes, 0u);
    EXPECT_EQ(read_all(src), data_.substr(16384));
  }
}

// pipe → file and socket → file, the destination now appends (the empty
// pwrite passes, splice would refuse it): the inspected copy appends
// exactly max_bytes.
TEST_F(CopySpliceHint, DestinationNowAppends) {
  const int pipe_src = kept_pipe_holding(data_);
  const int sock = socket_holding(data_);
  for (const int src : {pipe_src, sock}) {
    SCOPED_TRACE(src == pipe_src ? "pipe source" : "socket source");
    const std::string name = "dst" + std::to_string(src);
    const int dst = keep(create_file(dir_.file(name), ""));
    prime(src, dst, into_file_path(src, pipe_src));
    const int appending = keep(create_file(dir_.file(name + ".log"), "head", O_WRONLY | O_APPEND));
    point(dst, appending);
    const CopyResult r = copy_fd(src, dst, small());
    ASSERT_FALSE(r.error) << r.message;
    EXPECT_EQ(r.bytes, 16384u);
    const int log = keep(open(dir_.file(name + ".log").c_str(), O_RDONLY | O_CLOEXEC));
    EXPECT_EQ(read_all(log), "head" + data_.substr(16384, 16384));
    EXPECT_EQ(read_all(src), data_.substr(32768));
  }
}

TEST_F(CopySpliceHint, SourceNumberNowADirectory) {
  const int src = kept_pipe_holding(data_);
  const int dst = keep(create_file(dir_.file("dst"), ""));
  prime(src, dst, CopyPath::kSplice);
  const int d = keep(open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  point(src, d);
  const CopyResult r = copy_fd(src, dst, small());
  EXPECT_EQ(r.error, std::errc::is_a_directory);
  EXPECT_EQ(r.message, "source fd " + std::to_string(src) + " is a directory");
  EXPECT_EQ(r.bytes, 0u);
}

// Non-blocking ends on the hinted path wait with the options' timeout and
// count exactly what moved: a pipe source that stalls after 1000 bytes,
// and a pipe destination that fills up after 65536.
TEST_F(CopySpliceHint, StalledNonBlockingEndsTimeOut) {
  CopyOptions o = small();
  o.timeout = std::chrono::milliseconds(50);
  {
    int src = -1, feed = -1;
    pipe_ends(src, feed);
    ASSERT_EQ(fcntl(src, F_SETFL, O_NONBLOCK), 0);
    write_all(feed, data_.data(), 16384);
    const int dst = keep(create_file(dir_.file("dst"), ""));
    prime(src, dst, CopyPath::kSplice);
    write_all(feed, data_.data() + 16384, 1000);  // then nothing, the pipe still open
    const CopyResult r = copy_fd(src, dst, o);
    EXPECT_EQ(r.error, std::errc::timed_out);
    EXPECT_NE(r.message.find("timed out"), std::string::npos) << r.message;
    EXPECT_EQ(r.bytes, 1000u);
    EXPECT_EQ(pread_all(dst), data_.substr(0, 17384));
  }
  {
    const int src = keep(create_file(dir_.file("src"), pattern(100000, 3)));
    int out = -1, dst = -1;
    pipe_ends(out, dst);
    ASSERT_EQ(fcntl(dst, F_SETFL, O_WRONLY | O_NONBLOCK), 0);
    prime(src, dst, CopyPath::kSendfile);
    ASSERT_EQ(fcntl(dst, F_SETPIPE_SZ, 65536), 65536);
    std::uint64_t moved = 16384;
    CopyResult r;
    for (int i = 0; i < 8 && !r.error; ++i) {  // 64 KiB fit; the fifth copy stalls
      r = copy_fd(src, dst, o);
      moved += r.bytes;
    }
    EXPECT_EQ(r.error, std::errc::timed_out);
    EXPECT_EQ(r.path, CopyPath::kSplice);
    EXPECT_EQ(moved, 65536u);
    EXPECT_EQ(lseek(src, 0, SEEK_CUR), 65536);
  }
}

// From a socket into a file on the hint: a non-blocking socket that stalls
// after 1000 bytes times out with exactly those in the file; a file that
// takes only part of what was read (a file size limit: a short write,
// then EFBIG) ends with the bytes it got and the write's error. The limit
// and SIGXFSZ ignored stay in a child.
TEST_F(CopySpliceHint, ASocketIntoAFileStopsExactly) {
  {
    const SocketPair s = unix_pair();
    keep(s.a);
    keep(s.b);
    write_all(s.b, data_.data(), 16384);
    const int dst = keep(create_file(dir_.file("stalled"), ""));
    prime(s.a, dst, CopyPath::kReadWrite);
    ASSERT_EQ(fcntl(s.a, F_SETFL, O_RDWR | O_NONBLOCK), 0);
    write_all(s.b, data_.data() + 16384, 1000);  // then nothing, the peer still there
    CopyOptions o = small();
    o.timeout = std::chrono::milliseconds(50);
    const CopyResult r = copy_fd(s.a, dst, o);
    EXPECT_EQ(r.error, std::errc::timed_out);
    EXPECT_EQ(r.bytes, 1000u);
    EXPECT_EQ(r.path, CopyPath::kReadWrite);
    EXPECT_EQ(pread_all(dst), data_.substr(0, 17384));
  }
  const int sock = socket_holding(data_);
  const int dst = keep(create_file(dir_.file("limited"), ""));
  prime(sock, dst, CopyPath::kReadWrite);  // 16384 bytes in the file
  run_in_child([&](std::string& failures) -> std::string {
    if (!limit_file_size(20000)) {
      failures = "setrlimit(RLIMIT_FSIZE) failed";
      return "";
    }
    const CopyResult r = copy_fd(sock, dst, small());
    if (r.error.value() != EFBIG) failures += "not EFBIG; ";
    if (r.bytes != 20000 - 16384) failures += "bytes " + std::to_string(r.bytes) + "; ";
    if (r.path != CopyPath::kReadWrite) failures += "path " + std::string(to_string(r.path)) + "; ";
    const std::string expected = "write from source fd " + std::to_string(sock) +
                                 " to destination fd " + std::to_string(dst) +
                                 ": File too large (after 3616 bytes)";
    if (r.message != expected) failures += "message: " + r.message;
    return "RLIMIT_FSIZE of 20000 bytes";
  });
  EXPECT_EQ(pread_all(dst), data_.substr(0, 20000));
}

// The empty pwrite that checks a file destination changes nothing in it,
// its modification time included (from a pipe the copy then splices, from
// a socket it reads and writes).
TEST_F(CopySpliceHint, TheWritabilityCheckLeavesTheFileAsItWas) {
  const int pipe_src = kept_pipe_holding(data_.substr(0, 16384));
  const int sock = socket_holding(data_.substr(0, 16384));
  for (const int src : {pipe_src, sock}) {
    SCOPED_TRACE(src == pipe_src ? "pipe source" : "socket source");
    const int dst = keep(create_file(dir_.file("dst" + std::to_string(src)), ""));
    prime(src, dst, into_file_path(src, pipe_src));
    const timespec long_ago[2] = {{1000000000, 0}, {1000000000, 0}};
    ASSERT_EQ(futimens(dst, long_ago), 0);
    const CopyResult r = copy_fd(src, dst, small());  // the source at its end: nothing to copy
    ASSERT_FALSE(r.error) << r.message;
    EXPECT_EQ(r.bytes, 0u);
    EXPECT_EQ(r.path, into_file_path(src, pipe_src));
    struct stat st {};
    ASSERT_EQ(fstat(dst, &st), 0);
    EXPECT_EQ(st.st_mtim.tv_sec, 1000000000);
    EXPECT_EQ(st.st_size, 16384);
    EXPECT_EQ(pread_all(dst), data_.substr(0, 16384));
  }
}

}  // namespace
}  // namespace zerolab
