// copy_fd data integrity: every source kind × every destination kind ×
// sizes 0, 1, 4095, 4096 and 1 MiB + 7, checked by size and checksum; the
// path each pair takes; and a sparse file over 4 GiB.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>
#include <tuple>

#include "copy_test_util.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::copy_test {
namespace {

enum class Src { kDisk, kTmpfs, kPipe, kTcp, kUnix, kMemfd, kProc, kDevZero };
enum class Dst { kFile, kPipe, kTcp, kUnix, kMemfd };

const char* name(Src s) {
  switch (s) {
    case Src::kDisk:
      return "disk";
    case Src::kTmpfs:
      return "tmpfs";
    case Src::kPipe:
      return "pipe";
    case Src::kTcp:
      return "tcp";
    case Src::kUnix:
      return "unix";
    case Src::kMemfd:
      return "memfd";
    case Src::kProc:
      return "proc";
    case Src::kDevZero:
      return "devzero";
  }
  return "?";
}

const char* name(Dst d) {
  switch (d) {
    case Dst::kFile:
      return "file";
    case Dst::kPipe:
      return "pipe";
    case Dst::kTcp:
      return "tcp";
    case Dst::kUnix:
      return "unix";
    case Dst::kMemfd:
      return "memfd";
  }
  return "?";
}

struct Source {
  int fd = -1;
  std::string expected;
  std::uint64_t max_bytes = CopyOptions::kNoLimit;
  std::unique_ptr<Feed> feed;
  ~Source() {
    feed.reset();
    if (fd >= 0) close(fd);
  }
};

struct Sink {
  int fd = -1;
  std::unique_ptr<Drain> drain;
  bool file = false;
  // Everything the destination received.
  std::string collect() {
    if (file) return pread_all(fd);
    close(fd);
    fd = -1;
    return drain->take();
  }
  ~Sink() {
    if (fd >= 0) close(fd);
  }
};

// A destination that is a new empty file on `disk` or the write end of a
// pipe drained by a thread; false if the pipe cannot be made.
bool make_file_or_pipe_sink(bool pipe, const TempDir& disk, Sink& s) {
  if (!pipe) {
    s.fd = create_file(disk.file("b"), "");
    s.file = true;
    return s.fd >= 0;
  }
  int p[2] = {-1, -1};
  if (pipe2(p, O_CLOEXEC) != 0) return false;
  s.fd = p[1];
  s.drain = std::make_unique<Drain>(p[0]);
  return true;
}

void make_source(Src kind, std::size_t size, const TempDir& disk, const TempDir& shm, Source& s) {
  const std::string data = pattern(size, static_cast<std::uint32_t>(size) + 7);
  switch (kind) {
    case Src::kDisk:
      s.fd = create_file(disk.file("src"), data);
      s.expected = data;
      break;
    case Src::kTmpfs:
      s.fd = create_file(shm.file("src"), data);
      s.expected = data;
      break;
    case Src::kMemfd:
      s.fd = make_memfd(data);
      s.expected = data;
      break;
    case Src::kPipe: {
      int p[2];
      ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
      s.fd = p[0];
      s.expected = data;
      s.feed = std::make_unique<Feed>(p[1], data);
      break;
    }
    case Src::kTcp:
    case Src::kUnix: {
      const SocketPair sp = kind == Src::kTcp ? tcp_pair() : unix_pair();
      ASSERT_GE(sp.a, 0);
      ASSERT_GE(sp.b, 0);
      s.fd = sp.b;
      s.expected = data;
      s.feed = std::make_unique<Feed>(sp.a, data);
      break;
    }
    case Src::kProc: {
      // A procfs file: st_size is 0, the contents are not.
      const int probe = open("/proc/version", O_RDONLY | O_CLOEXEC);
      ASSERT_GE(probe, 0);
      s.expected = read_all(probe);
      close(probe);
      s.fd = open("/proc/version", O_RDONLY | O_CLOEXEC);
      break;
    }
    case Src::kDevZero:
      s.fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
      s.expected.assign(size, '\0');
      s.max_bytes = size;
      break;
  }
  ASSERT_GE(s.fd, 0);
}

void make_sink(Dst kind, const TempDir& disk, Sink& k) {
  switch (kind) {
    case Dst::kFile:
      k.fd = create_file(disk.file("dst"), "");
      k.file = true;
      break;
    case Dst::kMemfd:
      k.fd = make_memfd("");
      k.file = true;
      break;
    case Dst::kPipe: {
      int p[2];
      ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
      k.fd = p[1];
      k.drain = std::make_unique<Drain>(p[0]);
      break;
    }
    case Dst::kTcp:
    case Dst::kUnix: {
      const SocketPair sp = kind == Dst::kTcp ? tcp_pair() : unix_pair();
      ASSERT_GE(sp.a, 0);
      ASSERT_GE(sp.b, 0);
      k.fd = sp.a;
      k.drain = std::make_unique<Drain>(sp.b);
      break;
    }
  }
  ASSERT_GE(k.fd, 0);
}

using Pair = std::tuple<Src, Dst, std::size_t>;

class CopyIntegrity : public ::testing::TestWithParam<Pair> {};

TEST_P(CopyIntegrity, DestinationGetsExactlyTheSourceBytes) {
  const auto [src_kind, dst_kind, size] = GetParam();
  TempDir disk("/tmp");
  TempDir shm("/dev/shm");
  ASSERT_FALSE(disk.path().empty());
  ASSERT_FALSE(shm.path().empty());
  Source s;
  ASSERT_NO_FATAL_FAILURE(make_source(src_kind, size, disk, shm, s));
  Sink k;
  ASSERT_NO_FATAL_FAILURE(make_sink(dst_kind, disk, k));
  CopyOptions o;
  o.max_bytes = s.max_bytes;
  const CopyResult r = copy_fd(s.fd, k.fd, o);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_TRUE(r.message.empty());
  EXPECT_EQ(r.bytes, s.expected.size()) << to_string(r.path);
  const std::string got = k.collect();
  EXPECT_EQ(got.size(), s.expected.size());
  EXPECT_EQ(checksum(got), checksum(s.expected)) << to_string(r.path);
}

std::string pair_name(const ::testing::TestParamInfo<Pair>& info) {
  return std::string(name(std::get<0>(info.param))) + "_to_" + name(std::get<1>(info.param)) + "_" +
         std::to_string(std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(
    AllPairs, CopyIntegrity,
    ::testing::Combine(::testing::Values(Src::kDisk, Src::kTmpfs, Src::kPipe, Src::kTcp, Src::kUnix,
                                         Src::kMemfd, Src::kProc, Src::kDevZero),
                       ::testing::Values(Dst::kFile, Dst::kPipe, Dst::kTcp, Dst::kUnix,
                                         Dst::kMemfd),
                       ::testing::Values(std::size_t{0}, std::size_t{1}, std::size_t{4095},
                                         std::size_t{4096}, std::size_t{(1 << 20) + 7})),
    pair_name);

// The path copy_fd takes for each pair kind (non-empty sources).
TEST(CopyPaths, EachPairTakesItsKernelPath) {
  TempDir disk("/tmp");
  const std::string data = pattern(100000);
  {
    const int in = create_file(disk.file("a"), data);
    const int out = create_file(disk.file("b"), "");
    const CopyResult r = copy_fd(in, out);
    EXPECT_EQ(r.path, CopyPath::kCopyFileRange);
    EXPECT_EQ(to_string(r.path), "copy_file_range");
    close(in);
    close(out);
  }
  {
    const int in = create_file(disk.file("a"), data);
    SocketPair sp = tcp_pair();
    Drain sink(sp.b);
    const CopyResult r = copy_fd(in, sp.a);
    close(sp.a);
    // TCP to this host (copy.hpp's table); up to 128 KiB sendfile
    EXPECT_EQ(r.path, data.size() > (128u << 10) ? CopyPath::kSplice : CopyPath::kSendfile);
    EXPECT_EQ(sink.take(), data);
    close(in);
  }
  {
    SocketPair sp = tcp_pair();
    Feed feed(sp.a, data);
    const int out = create_file(disk.file("c"), "");
    const CopyResult r = copy_fd(sp.b, out);
    EXPECT_EQ(r.path, CopyPath::kReadWrite);  // from a socket into a file (copy.hpp's table)
    EXPECT_EQ(pread_all(out), data);
    close(sp.b);
    close(out);
  }
  {
    const int in = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    const int out = create_file(disk.file("d"), "");
    const CopyResult r = copy_fd(in, out);
    EXPECT_EQ(r.path, CopyPath::kReadWrite);
    EXPECT_GT(r.bytes, 0u);
    close(in);
    close(out);
  }
}

// A sysfs file reports st_size 4096 whatever it holds.
TEST(CopyPaths, SysfsFileIsReadToEndOfFile) {
  const char* path = "/sys/kernel/mm/transparent_hugepage/enabled";
  const int probe = open(path, O_RDONLY | O_CLOEXEC);
  if (probe < 0) GTEST_SKIP() << path << " is not readable here";
  const std::string expected = read_all(probe);
  close(probe);
  const int in = open(path, O_RDONLY | O_CLOEXEC);
  const int out = make_memfd("");
  const CopyResult r = copy_fd(in, out);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.path, CopyPath::kReadWrite);
  EXPECT_EQ(pread_all(out), expected);
  close(in);
  close(out);
}

TEST(CopyOptionsTest, LimitAndOffsetsLeaveFilePositionsAlone) {
  TempDir disk("/tmp");
  const std::string data = pattern(50000);
  const int in = create_file(disk.file("a"), data);
  const int out = create_file(disk.file("b"), std::string(100, 'x'));
  lseek(in, 11, SEEK_SET);
  lseek(out, 22, SEEK_SET);
  CopyOptions o;
  o.src_offset = 1000;
  o.dst_offset = 50;
  o.max_bytes = 30000;
  const CopyResult r = copy_fd(in, out, o);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 30000u);
  EXPECT_EQ(lseek(in, 0, SEEK_CUR), 11);
  EXPECT_EQ(lseek(out, 0, SEEK_CUR), 22);
  EXPECT_EQ(pread_all(out), std::string(50, 'x') + data.substr(1000, 30000));
  close(in);
  close(out);
}

TEST(CopyOptionsTest, LimitedCopyAdvancesPositionsByTheBytesCopied) {
  TempDir disk("/tmp");
  const std::string data = pattern(70000);
  for (bool pipe_dst : {false, true}) {
    const int in = create_file(disk.file("a"), data);
    Sink sink;
    ASSERT_TRUE(make_file_or_pipe_sink(pipe_dst, disk, sink));
    const int out = sink.fd;
    CopyOptions o;
    o.max_bytes = 12345;
    const CopyResult r = copy_fd(in, out, o);
    EXPECT_EQ(r.bytes, 12345u);
    EXPECT_EQ(lseek(in, 0, SEEK_CUR), 12345);
    const CopyResult rest = copy_fd(in, out);
    EXPECT_EQ(rest.bytes, 70000u - 12345u);
    EXPECT_EQ(sink.collect(), data);
    close(in);
  }
}

// copy_file_range and sendfile stop once they moved st_size bytes from the
// start of a regular file, without the call that returns 0; a file that
// grew since is still read to its new end, from wherever its position is.
TEST(CopyOptionsTest, SourceThatGrewIsReadToItsNewEnd) {
  TempDir disk("/tmp");
  const std::string first = pattern(20000, 1);
  const std::string more = pattern(5000, 2);
  for (bool pipe_dst : {false, true}) {
    const int in = create_file(disk.file("a"), first);
    Sink sink;
    ASSERT_TRUE(make_file_or_pipe_sink(pipe_dst, disk, sink));
    const int out = sink.fd;
    CopyResult r = copy_fd(in, out);
    EXPECT_EQ(r.bytes, first.size()) << r.message;
    EXPECT_EQ(r.path, pipe_dst ? CopyPath::kSendfile : CopyPath::kCopyFileRange);
    EXPECT_EQ(lseek(in, 0, SEEK_CUR), static_cast<off_t>(first.size()));
    // Grows by less than its old size, then by more than its whole size.
    ASSERT_EQ(pwrite(in, more.data(), more.size(), static_cast<off_t>(first.size())),
              static_cast<ssize_t>(more.size()));
    r = copy_fd(in, out);
    EXPECT_EQ(r.bytes, more.size()) << r.message;
    const std::string big = pattern(60000, 3);
    const off_t end = static_cast<off_t>(first.size() + more.size());
    ASSERT_EQ(pwrite(in, big.data(), big.size(), end), static_cast<ssize_t>(big.size()));
    r = copy_fd(in, out);
    EXPECT_EQ(r.bytes, big.size()) << r.message;
    // Positional: from an offset to the end, the file position untouched.
    CopyOptions o;
    o.src_offset = static_cast<std::int64_t>(first.size());
    r = copy_fd(in, out, o);
    EXPECT_EQ(r.bytes, more.size() + big.size()) << r.message;
    EXPECT_EQ(lseek(in, 0, SEEK_CUR), end + static_cast<off_t>(big.size()));
    const std::string want = first + more + big + more + big;
    EXPECT_EQ(sink.collect(), want);
    close(in);
  }
}

TEST(CopyOptionsTest, AppendDestinationGetsTheBytesAtItsEnd) {
  TempDir disk("/tmp");
  const std::string data = pattern(20000);
  const int in = create_file(disk.file("a"), data);
  create_file(disk.file("b"), "head");
  const int out = open(disk.file("b").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  const CopyResult r = copy_fd(in, out);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data.size());
  const int check = open(disk.file("b").c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(pread_all(check), "head" + data);
  close(check);
  close(in);
  close(out);
}

// splice declines an O_APPEND destination (EINVAL) before it moves a byte;
// copy_fd learns of the flag only then and appends with read/write.
TEST(CopyOptionsTest, PipeIntoAnAppendDestinationAppends) {
  TempDir disk("/tmp");
  const std::string data = pattern(100000);
  create_file(disk.file("b"), "head");
  const int out = open(disk.file("b").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  std::thread writer([&] {
    write_all(p[1], data.data(), data.size());
    close(p[1]);
  });
  const CopyResult r = copy_fd(p[0], out);
  writer.join();
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data.size());
  EXPECT_EQ(r.path, CopyPath::kReadWrite);
  const int check = open(disk.file("b").c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(pread_all(check), "head" + data);
  for (int fd : {check, out, p[0]}) close(fd);
}

TEST(CopyOptionsTest, ReflinkFallsBackWhereTheFilesystemCannotClone) {
  TempDir disk("/tmp");
  const std::string data = pattern(30000);
  const int in = create_file(disk.file("a"), data);
  const int out = create_file(disk.file("b"), "");
  CopyOptions o;
  o.reflink = true;
  const CopyResult r = copy_fd(in, out, o);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data.size());
  EXPECT_EQ(pread_all(out), data);
  EXPECT_EQ(lseek(in, 0, SEEK_CUR), 30000);
  EXPECT_EQ(lseek(out, 0, SEEK_CUR), 30000);
  close(in);
  close(out);
}

TEST(CopyFile, CopiesContentsAndPermissions) {
  TempDir disk("/tmp");
  const std::string data = pattern(9999);
  close(create_file(disk.file("a"), data));
  chmod(disk.file("a").c_str(), 0741);
  close(create_file(disk.file("b"), "old contents, longer than nothing"));
  const CopyResult r = copy_file(disk.file("a"), disk.file("b"));
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data.size());
  struct stat st {};
  ASSERT_EQ(stat(disk.file("b").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0741u);
  const int check = open(disk.file("b").c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(pread_all(check), data);
  close(check);
  // Onto itself: refused before anything is truncated.
  const CopyResult same = copy_file(disk.file("a"), disk.file("a"));
  EXPECT_EQ(same.error, std::errc::invalid_argument);
  const int again = open(disk.file("a").c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(pread_all(again), data);
  close(again);
  const CopyResult missing = copy_file(disk.file("nope"), disk.file("c"));
  EXPECT_EQ(missing.error, std::errc::no_such_file_or_directory);
  EXPECT_NE(missing.message.find("nope"), std::string::npos);
  EXPECT_NE(access(disk.file("c").c_str(), F_OK), 0);
}

// A sparse file over 4 GiB: data around 0, across the 4 GiB boundary and at
// the end, holes elsewhere. Copied sparse, it stays sparse.
TEST(CopySparse, FileOver4GiBCopiesAsSparse) {
  TempDir disk("/tmp");
  constexpr off_t kSize = (off_t{5} << 30) + 123;
  constexpr off_t kBoundary = off_t{4} << 30;
  const int in = open(disk.file("big").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(in, 0);
  ASSERT_EQ(ftruncate(in, kSize), 0);
  const std::string a = pattern(10000, 1), b = pattern(70000, 2), c = pattern(123, 3);
  ASSERT_EQ(pwrite(in, a.data(), a.size(), 0), static_cast<ssize_t>(a.size()));
  ASSERT_EQ(pwrite(in, b.data(), b.size(), kBoundary - 30000), static_cast<ssize_t>(b.size()));
  ASSERT_EQ(pwrite(in, c.data(), c.size(), kSize - 123), static_cast<ssize_t>(c.size()));
  const int out = open(disk.file("copy").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  CopyOptions o;
  o.sparse = true;
  const CopyResult r = copy_fd(in, out, o);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, static_cast<std::uint64_t>(kSize));
  EXPECT_EQ(lseek(in, 0, SEEK_CUR), kSize);
  EXPECT_EQ(lseek(out, 0, SEEK_CUR), kSize);
  struct stat st {};
  ASSERT_EQ(fstat(out, &st), 0);
  EXPECT_EQ(st.st_size, kSize);
  EXPECT_LT(st.st_blocks * 512, 4 << 20) << "the copy is not sparse";
  auto at = [&](int fd, off_t off, std::size_t n) {
    std::string s(n, '\0');
    EXPECT_EQ(pread(fd, s.data(), n, off), static_cast<ssize_t>(n));
    return s;
  };
  EXPECT_EQ(at(out, 0, a.size()), a);
  EXPECT_EQ(at(out, kBoundary - 30000, b.size()), b);
  EXPECT_EQ(at(out, kSize - 123, c.size()), c);
  EXPECT_EQ(at(out, kBoundary + 100000, 4096), std::string(4096, '\0'));
  EXPECT_EQ(at(out, off_t{2} << 30, 4096), std::string(4096, '\0'));

  // A small window across the 4 GiB boundary, by offset, into a memfd.
  const int mem = make_memfd("");
  CopyOptions window;
  window.src_offset = kBoundary - 100;
  window.max_bytes = 200;
  const CopyResult w = copy_fd(in, mem, window);
  EXPECT_EQ(w.bytes, 200u);
  EXPECT_EQ(pread_all(mem), b.substr(30000 - 100, 200));
  close(mem);
  close(in);
  close(out);
}

}  // namespace
}  // namespace zerolab::copy_test
