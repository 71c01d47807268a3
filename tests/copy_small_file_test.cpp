// copy_fd's small file → file copies by read and write, the path a process
// takes when its machine profile says read and write beat copy_file_range
// for them (src/io/path_choice.hpp). ZEROLAB_COPY_SMALL_FILE=read_write decides it
// for this whole binary, so every copy here is deterministic: exact bytes
// and positions, every guarantee of the inspected copy (bad modes, O_APPEND,
// one file), and the one-shot hint staying copy_file_range.
//
// Example: build/release/tests/copy_small_file_test
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "copy_test_util.hpp"
#include "io/path_choice.hpp"
#include "zerolab/copy.hpp"

namespace zerolab {
namespace {

using namespace copy_test;  // NOLINT(google-build-using-namespace): the shared helpers

// Read once, at the first small file → file copy of the process.
const bool kReadWrite = setenv("ZEROLAB_COPY_SMALL_FILE", "read_write", 1) == 0;

class CopySmallFile : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(kReadWrite);
    src_ = create_file(dir_.file("src"), data_);
    dst_ = create_file(dir_.file("dst"), "");
    ASSERT_GE(src_, 0);
    ASSERT_GE(dst_, 0);
  }
  void TearDown() override {
    if (src_ >= 0) close(src_);
    if (dst_ >= 0) close(dst_);
  }

  TempDir dir_{"/tmp"};
  const std::string data_ = pattern(40000, 3);
  int src_ = -1;
  int dst_ = -1;
};

TEST_F(CopySmallFile, TheOverrideDecides) {
  EXPECT_EQ(io::small_file_path(), CopyPath::kReadWrite);
  EXPECT_STREQ(io::small_file_source(), "ZEROLAB_COPY_SMALL_FILE");
}

TEST_F(CopySmallFile, PlanCopySaysSo) {
  const CopyPlan plan = plan_copy(src_, dst_, CopyOptions{});
  ASSERT_FALSE(plan.error);
  EXPECT_EQ(plan.path, CopyPath::kReadWrite);
  EXPECT_STREQ(plan.reason,
               "a small file → file copy: read/write, as ZEROLAB_COPY_SMALL_FILE says");
  const std::string big = pattern(io::kSmallFileCopy + 1, 9);
  const int src = create_file(dir_.file("big"), big);
  ASSERT_GE(src, 0);
  EXPECT_EQ(plan_copy(src, dst_, CopyOptions{}).path, CopyPath::kCopyFileRange);
  close(src);
}

// The first copy is inspected and takes read and write; the next between
// the same numbers runs on the hint, by copy_file_range.
TEST_F(CopySmallFile, OneShotCopiesThenTheHint) {
  CopyResult r = copy_fd(src_, dst_);
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data_.size());
  EXPECT_EQ(r.path, CopyPath::kReadWrite);
  EXPECT_EQ(lseek(src_, 0, SEEK_CUR), 40000);
  EXPECT_EQ(lseek(dst_, 0, SEEK_CUR), 40000);
  r = copy_fd(src_, dst_);  // at the end of the source: nothing
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 0u);
  ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
  CopyOptions o;
  o.max_bytes = 16384;
  r = copy_fd(src_, dst_, o);
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 16384u);
  EXPECT_EQ(r.path, CopyPath::kCopyFileRange);
  EXPECT_EQ(pread_all(dst_), data_ + data_.substr(0, 16384));
}

// Above kSmallFileCopy the chain of file → file paths is unchanged.
TEST_F(CopySmallFile, LargerCopiesKeepTheChain) {
  const std::string big = pattern(io::kSmallFileCopy + 1, 9);
  const int src = create_file(dir_.file("big"), big);
  ASSERT_GE(src, 0);
  const CopyResult r = copy_fd(src, dst_);
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, big.size());
  EXPECT_EQ(r.path, CopyPath::kCopyFileRange);
  EXPECT_EQ(pread_all(dst_), big);
  close(src);
}

// Every size up to 1 KiB past a page, at unaligned offsets, on a pair
// prepared once (which takes the read/write path on every call).
TEST_F(CopySmallFile, PreparedPositionalCopiesAreExact) {
  const PreparedCopy pair = prepare_copy(src_, dst_);
  ASSERT_TRUE(pair) << pair.plan().reason;
  for (std::uint64_t n : {0u, 1u, 63u, 4095u, 4096u, 4097u, 5120u, 30000u}) {
    for (std::int64_t off : {0, 1, 33, 4095}) {
      ASSERT_EQ(ftruncate(dst_, 0), 0);
      CopyOptions o;
      o.max_bytes = n;
      o.src_offset = off;
      o.dst_offset = off + 7;
      const CopyResult r = copy_fd(pair, o);
      ASSERT_FALSE(r.error) << r.message;
      ASSERT_EQ(r.bytes, n) << "n=" << n << " off=" << off;
      const std::string got = pread_all(dst_);
      if (n == 0) {
        EXPECT_EQ(got, "");
        continue;
      }
      EXPECT_EQ(r.path, CopyPath::kReadWrite);
      ASSERT_EQ(got.size(), static_cast<std::size_t>(off + 7) + n);
      EXPECT_EQ(got.substr(static_cast<std::size_t>(off + 7)),
                data_.substr(static_cast<std::size_t>(off), n));
    }
  }
  EXPECT_EQ(lseek(src_, 0, SEEK_CUR), 0);  // positional: the positions stay
  EXPECT_EQ(lseek(dst_, 0, SEEK_CUR), 0);
}

// On a prepared pair, copies from the descriptors' positions with
// max_bytes at most kSmallFileCopy are the plain read/write loop: exact
// bytes, both positions moved by them, end of file ends a copy.
TEST_F(CopySmallFile, PreparedCopiesFromThePositionsAreExact) {
  const PreparedCopy pair = prepare_copy(src_, dst_);
  ASSERT_TRUE(pair) << pair.plan().reason;
  CopyOptions o;
  std::uint64_t at = 0;
  for (const std::uint64_t n : {0u, 1u, 4095u, 16384u, 19519u}) {
    o.max_bytes = n;
    const CopyResult r = copy_fd(pair, o);
    ASSERT_FALSE(r.error) << r.message;
    EXPECT_EQ(r.bytes, n);
    EXPECT_EQ(r.path, CopyPath::kReadWrite);
    at += n;
    EXPECT_EQ(lseek(src_, 0, SEEK_CUR), static_cast<off_t>(at));
    EXPECT_EQ(lseek(dst_, 0, SEEK_CUR), static_cast<off_t>(at));
  }
  o.max_bytes = io::kSmallFileCopy;  // 1 byte left before end of file
  CopyResult r = copy_fd(pair, o);
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, data_.size() - at);
  r = copy_fd(pair, o);
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(pread_all(dst_), data_);
}

// A prepared small copy that the destination takes only in part (a file
// size limit: the write is short, then EFBIG) ends with the bytes the
// destination got, the error, and the source just after those bytes. In
// a child: the limit and SIGXFSZ ignored stay there.
TEST_F(CopySmallFile, APreparedCopyCutShortByAFileSizeLimitIsExact) {
  const PreparedCopy pair = prepare_copy(src_, dst_);
  ASSERT_TRUE(pair) << pair.plan().reason;
  run_in_child([&](std::string& failures) -> std::string {
    if (!limit_file_size(20000)) {
      failures = "setrlimit(RLIMIT_FSIZE) failed";
      return "";
    }
    CopyOptions o;
    o.max_bytes = 30000;
    const CopyResult r = copy_fd(pair, o);
    if (r.error.value() != EFBIG) failures += "not EFBIG: " + r.message + "; ";
    if (r.bytes != 20000) failures += "bytes " + std::to_string(r.bytes) + "; ";
    if (lseek(src_, 0, SEEK_CUR) != 20000) failures += "the source is not at 20000; ";
    if (r.message.find("write") == std::string::npos) failures += "message: " + r.message;
    return "RLIMIT_FSIZE of 20000 bytes";
  });
  EXPECT_EQ(pread_all(dst_), data_.substr(0, 20000));
}

TEST_F(CopySmallFile, AnAppendingDestinationGetsTheBytesAtItsEnd) {
  const int append = open(dir_.file("dst").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  ASSERT_GE(append, 0);
  write_all(append, "head", 4);
  CopyOptions o;
  o.max_bytes = 1000;
  const CopyResult r = copy_fd(src_, append, o);
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 1000u);
  EXPECT_EQ(pread_all(dst_), "head" + data_.substr(0, 1000));
  o.dst_offset = 0;  // refused as ever
  const CopyResult refused = copy_fd(src_, append, o);
  EXPECT_EQ(refused.error, std::errc::invalid_argument);
  close(append);
}

// A destination not open for writing: nothing written, the source where
// it was, the descriptor named.
TEST_F(CopySmallFile, ADestinationNotOpenForWritingIsNamed) {
  const int ro = open(dir_.file("dst").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(ro, 0);
  const CopyResult r = copy_fd(src_, ro);
  EXPECT_EQ(r.error, std::errc::bad_file_descriptor);
  EXPECT_EQ(r.message, "destination fd " + std::to_string(ro) + " is not open for writing");
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(lseek(src_, 0, SEEK_CUR), 0);
  close(ro);
}

// Within one file: ranges apart copy exactly and stop at the size the file
// had; ranges that overlap are refused.
TEST_F(CopySmallFile, OneFile) {
  const int same = open(dir_.file("src").c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(same, 0);
  ASSERT_EQ(lseek(same, 0, SEEK_END), 40000);
  CopyOptions o;
  o.max_bytes = 100000;
  CopyResult r = copy_fd(src_, same, o);
  ASSERT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, 40000u);
  EXPECT_EQ(r.path, CopyPath::kReadWrite);
  EXPECT_EQ(pread_all(src_), data_ + data_);
  ASSERT_EQ(lseek(src_, 0, SEEK_SET), 0);
  ASSERT_EQ(lseek(same, 100, SEEK_SET), 100);
  r = copy_fd(src_, same);
  EXPECT_EQ(r.error, std::errc::invalid_argument);
  EXPECT_EQ(pread_all(src_), data_ + data_);
  close(same);
}

}  // namespace
}  // namespace zerolab
