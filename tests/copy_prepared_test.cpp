// Tests of copy_fd on a prepared pair (zerolab/copy.hpp, prepare_copy):
// repeated copies are exact and read to end of file whatever size the
// source had when the pair was prepared; a refused pair reports what the
// one-shot copy_fd reports; one file on both ends keeps the overlap check;
// SIGPIPE, EAGAIN with a timeout, O_APPEND and pseudo filesystems behave as
// in the one-shot call. (Paths and overrides: copy_path_test; allocations:
// copy_alloc_test.)
//
// Example:
//   ./copy_prepared_test --gtest_filter='CopyPrepared.*'
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "copy_test_util.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::copy_test {
namespace {

TEST(CopyPrepared, RepeatedCopiesReadToEndOfFileWhateverTheSizeWas) {
  TempDir disk("/tmp");
  const std::string data = pattern(200000, 5);
  const int in = create_file(disk.file("in"), data.substr(0, 10));
  const int out = create_file(disk.file("out"), "");
  const PreparedCopy pair = prepare_copy(in, out);
  ASSERT_TRUE(pair) << pair.plan().reason;
  EXPECT_EQ(pair.src(), in);
  EXPECT_EQ(pair.dst(), out);
  EXPECT_EQ(pair.plan().path, CopyPath::kCopyFileRange);
  CopyResult r = copy_fd(pair);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 10u);
  // The source grows after prepare_copy: the next copy takes all of it.
  write_all(in, data.data() + 10, data.size() - 10);
  lseek(in, 0, SEEK_SET);
  lseek(out, 0, SEEK_SET);
  r = copy_fd(pair);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data.size());
  EXPECT_EQ(r.path, CopyPath::kCopyFileRange);
  EXPECT_EQ(pread_all(out), data);
  // It shrinks: the copy stops at its end.
  ASSERT_EQ(ftruncate(in, 7), 0);
  ASSERT_EQ(ftruncate(out, 0), 0);
  lseek(in, 0, SEEK_SET);
  lseek(out, 0, SEEK_SET);
  r = copy_fd(pair);
  EXPECT_EQ(r.bytes, 7u);
  EXPECT_EQ(pread_all(out), data.substr(0, 7));
  // Limits and offsets apply per call.
  CopyOptions o;
  o.src_offset = 2;
  o.dst_offset = 100;
  o.max_bytes = 3;
  r = copy_fd(pair, o);
  EXPECT_EQ(r.bytes, 3u);
  EXPECT_EQ(pread_all(out), data.substr(0, 7) + std::string(93, '\0') + data.substr(2, 3));
  close(in);
  close(out);
}

TEST(CopyPrepared, ARefusedPairSaysWhyAsTheOneShotCallDoes) {
  TempDir disk("/tmp");
  const int in = create_file(disk.file("in"), "abc");
  const int out = create_file(disk.file("out"), "");
  const int write_only = create_file(disk.file("wo"), "abc", O_WRONLY);
  const int read_only = open(disk.file("out").c_str(), O_RDONLY | O_CLOEXEC);
  const int dir = open(disk.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct Case {
    int src;
    int dst;
    int error;
    std::string message;
  };
  const Case cases[] = {
      {-1, out, EBADF, "source fd -1: "},
      {in, 9999, EBADF, "destination fd 9999: "},
      {dir, out, EISDIR, "source fd " + std::to_string(dir) + " is a directory"},
      {write_only, out, EBADF,
       "source fd " + std::to_string(write_only) + " is not open for reading"},
      {in, read_only, EBADF,
       "destination fd " + std::to_string(read_only) + " is not open for writing"},
  };
  for (const Case& c : cases) {
    const PreparedCopy pair = prepare_copy(c.src, c.dst);
    EXPECT_FALSE(pair) << c.message;
    EXPECT_EQ(pair.plan().path, CopyPath::kNone);
    EXPECT_EQ(pair.plan().error, std::error_code(c.error, std::system_category())) << c.message;
    EXPECT_NE(std::string(pair.plan().reason), "");
    const CopyResult r = copy_fd(pair);
    EXPECT_EQ(r.error, std::error_code(c.error, std::system_category())) << r.message;
    EXPECT_EQ(r.bytes, 0u);
    EXPECT_EQ(r.message.rfind(c.message, 0), 0u) << r.message;
  }
  EXPECT_EQ(pread_all(out), "");
  for (int fd : {in, out, write_only, read_only, dir}) close(fd);
}

// One file on both ends: every call checks the ranges with the size of now.
TEST(CopyPrepared, OneFileOnBothEndsKeepsTheOverlapCheck) {
  TempDir disk("/tmp");
  const std::string data = pattern(5000, 2);
  const int fd = create_file(disk.file("f"), data);
  const PreparedCopy pair = prepare_copy(fd, fd);
  ASSERT_TRUE(pair) << pair.plan().reason;
  CopyOptions o;
  o.src_offset = 0;
  o.dst_offset = 100;
  CopyResult r = copy_fd(pair, o);
  EXPECT_EQ(r.error, std::error_code(EINVAL, std::system_category()));
  EXPECT_NE(r.message.find("overlap"), std::string::npos) << r.message;
  o.dst_offset = static_cast<std::int64_t>(data.size());
  r = copy_fd(pair, o);  // stops at the size the file had, not its own output
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data.size());
  o.dst_offset = static_cast<std::int64_t>(2 * data.size());
  r = copy_fd(pair, o);
  EXPECT_EQ(r.bytes, 2 * data.size());
  EXPECT_EQ(pread_all(fd), data + data + data + data);
  close(fd);
}

TEST(CopyPrepared, AnAppendDestinationAppendsAndRefusesAnOffset) {
  TempDir disk("/tmp");
  const int in = create_file(disk.file("in"), "0123456789");
  const int out = create_file(disk.file("out"), "ab", O_WRONLY | O_APPEND);
  const PreparedCopy pair = prepare_copy(in, out);
  ASSERT_TRUE(pair) << pair.plan().reason;
  EXPECT_EQ(pair.plan().path, CopyPath::kReadWrite);
  for (int i = 0; i < 2; ++i) {
    lseek(in, 0, SEEK_SET);
    const CopyResult r = copy_fd(pair);
    EXPECT_FALSE(r.error) << r.message;
    EXPECT_EQ(r.bytes, 10u);
  }
  CopyOptions o;
  o.dst_offset = 0;
  const CopyResult r = copy_fd(pair, o);
  EXPECT_EQ(r.error, std::error_code(EINVAL, std::system_category()));
  EXPECT_NE(r.message.find("O_APPEND"), std::string::npos) << r.message;
  const int check = open(disk.file("out").c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(read_all(check), "ab01234567890123456789");
  for (int fd : {in, out, check}) close(fd);
}

// procfs reports size 0: prepare_copy asks the filesystem whatever the size.
TEST(CopyPrepared, APseudoFilesystemSourceIsReadToEndOfFile) {
  const int in = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(in, 0);
  const int out = make_memfd("");
  const PreparedCopy pair = prepare_copy(in, out);
  ASSERT_TRUE(pair) << pair.plan().reason;
  EXPECT_EQ(pair.plan().path, CopyPath::kReadWrite);
  const CopyResult r = copy_fd(pair);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.path, CopyPath::kReadWrite);
  EXPECT_GT(r.bytes, 100u);
  EXPECT_NE(pread_all(out).find("VmRSS"), std::string::npos);
  close(in);
  close(out);
}

bool sigpipe_pending_or_blocked() {
  sigset_t pending;
  sigpending(&pending);
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &mask);
  return sigismember(&pending, SIGPIPE) == 1 || sigismember(&mask, SIGPIPE) == 1;
}

// The default SIGPIPE disposition is in force: a signal let through would
// end the test binary.
TEST(CopyPrepared, AClosedReaderGivesEpipeNotDeath) {
  ASSERT_NE(signal(SIGPIPE, SIG_DFL), SIG_ERR);
  TempDir disk("/tmp");
  const int in = create_file(disk.file("in"), pattern(16384));
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  close(p[0]);
  SocketPair sp = unix_pair();
  close(sp.b);
  for (const int dst : {p[1], sp.a}) {
    const PreparedCopy pair = prepare_copy(in, dst);
    ASSERT_TRUE(pair) << pair.plan().reason;
    CopyOptions o;
    o.max_bytes = 16384;  // a small copy: sendfile into the socket too
    lseek(in, 0, SEEK_SET);
    const CopyResult r = copy_fd(pair, o);
    EXPECT_EQ(r.error, std::errc::broken_pipe) << r.message;
    EXPECT_EQ(r.path, CopyPath::kSendfile);
    EXPECT_EQ(r.bytes, 0u);
    EXPECT_EQ(lseek(in, 0, SEEK_CUR), 0);
    EXPECT_FALSE(sigpipe_pending_or_blocked());
  }
  for (int fd : {in, p[1], sp.a}) close(fd);
}

TEST(CopyPrepared, AStalledNonBlockingDestinationTimesOutWithExactCount) {
  TempDir disk("/tmp");
  const std::string data = pattern(8 << 20);
  const int in = create_file(disk.file("in"), data);
  SocketPair sp = tcp_pair(4096, 4096);
  fcntl(sp.a, F_SETFL, fcntl(sp.a, F_GETFL) | O_NONBLOCK);
  const PreparedCopy pair = prepare_copy(in, sp.a);
  ASSERT_TRUE(pair) << pair.plan().reason;
  CopyOptions o;
  o.timeout = std::chrono::milliseconds(50);
  const CopyResult r = copy_fd(pair, o);  // nobody reads sp.b until the copy gave up
  EXPECT_EQ(r.error, std::errc::timed_out) << r.message;
  EXPECT_LT(r.bytes, data.size());
  EXPECT_EQ(lseek(in, 0, SEEK_CUR), static_cast<off_t>(r.bytes));
  close(sp.a);
  const std::string got = read_all(sp.b);
  EXPECT_EQ(got.size(), r.bytes);
  EXPECT_EQ(got, data.substr(0, got.size()));
  close(in);
  close(sp.b);
}

}  // namespace
}  // namespace zerolab::copy_test
