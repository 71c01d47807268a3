// copy_fd's file → file copies of 1 MiB and more under a machine profile
// whose file → file line says splice: splice through copy_fd's own pipe
// where copy_file_range is only the kernel's splice through a 64 KiB pipe
// (ext2/3/4, tmpfs), copy_file_range elsewhere and below 1 MiB; the same
// bytes and guarantees either way (copy_plan.hpp, kSpliceFileFrom). The
// test writes that profile into a cache directory of its own
// (XDG_CACHE_HOME, set before the first copy reads it). Without a profile
// the table takes copy_file_range at every size (copy_path_test).
//
// Example: build/release/tests/copy_splice_file_test
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "copy_test_util.hpp"
#include "io/copy_plan.hpp"
#include "io/fd_info.hpp"
#include "machine/machine_profile.hpp"
#include "zerolab/copy.hpp"

namespace {

using zerolab::copy_fd;
using zerolab::CopyOptions;
using zerolab::CopyPath;
using zerolab::CopyResult;
using zerolab::io::kSpliceFileFrom;
using namespace zerolab::copy_test;

constexpr std::size_t kTwoMiB = std::size_t{2} << 20;

const TempDir& cache() {
  static const TempDir dir{"/tmp"};
  return dir;
}

// A profile for this machine whose one line sends large file → file copies
// through splice.
const bool kProfileWritten = [] {
  zerolab::machine::MachineProfile p;
  p.key = zerolab::machine::this_machine_key();
  p.written = "2026-01-01T00:00:00Z";
  p.copy = {{zerolab::CopyEnd::kFile, zerolab::CopyEnd::kFile, CopyPath::kSplice}};
  return setenv("XDG_CACHE_HOME", cache().path().c_str(), 1) == 0 &&
         unsetenv("ZEROLAB_COPY_PROFILE") == 0 &&
         zerolab::machine::write_profile(cache().path() + "/zerolab/machine-profile", p).empty();
}();

// The folders to copy in: /tmp and, where it exists, /dev/shm (tmpfs).
std::vector<std::string> bases() {
  std::vector<std::string> b{"/tmp"};
  struct stat st {};
  if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0) {
    b.emplace_back("/dev/shm");
  }
  return b;
}

// What copy_fd must take for a copy of `bytes` from `src` to `dst`.
CopyPath expected_path(int src, int dst, std::uint64_t bytes) {
  struct stat s {};
  struct stat d {};
  fstat(src, &s);
  fstat(dst, &d);
  const bool generic = zerolab::io::copy_file_range_is_splice(src) &&
                       (s.st_dev == d.st_dev || zerolab::io::copy_file_range_is_splice(dst));
  return generic && bytes >= kSpliceFileFrom ? CopyPath::kSplice : CopyPath::kCopyFileRange;
}

TEST(CopySpliceFile, TheSizeAndTheFilesystemChooseThePath) {
  ASSERT_TRUE(kProfileWritten);
  ASSERT_TRUE(zerolab::machine::machine_profile().usable)
      << zerolab::machine::machine_profile().why;
  const std::string data = pattern(kTwoMiB);
  for (const std::string& base : bases()) {
    TempDir dir(base.c_str());
    const int src = create_file(dir.file("src"), data);
    ASSERT_GE(src, 0) << base;
    for (const std::uint64_t max :
         {std::uint64_t{kSpliceFileFrom - 1}, std::uint64_t{kSpliceFileFrom},
          std::uint64_t{CopyOptions::kNoLimit}}) {
      const int dst = create_file(dir.file("dst"), "");
      lseek(src, 0, SEEK_SET);
      CopyOptions o;
      o.max_bytes = max;
      const std::uint64_t bytes = std::min<std::uint64_t>(max, kTwoMiB);
      const CopyPath want = expected_path(src, dst, bytes);
      EXPECT_EQ(zerolab::plan_copy(src, dst, o).path, want) << base << " " << max;
      const CopyResult r = copy_fd(src, dst, o);
      EXPECT_FALSE(r.error) << r.message;
      EXPECT_EQ(r.path, want) << base << " " << max << ": took " << zerolab::to_string(r.path);
      EXPECT_EQ(r.bytes, bytes);
      EXPECT_EQ(pread_all(dst), data.substr(0, bytes)) << base << " " << max;
      EXPECT_EQ(lseek(src, 0, SEEK_CUR), static_cast<off_t>(bytes));
      close(dst);
    }
    close(src);
  }
}

// Files on two filesystems: splice only when both are of the generic kind
// (copy_file_range would say EXDEV between two superblocks there).
TEST(CopySpliceFile, AcrossFilesystems) {
  ASSERT_TRUE(kProfileWritten);
  const std::vector<std::string> b = bases();
  if (b.size() < 2) GTEST_SKIP() << "no /dev/shm here";
  TempDir from(b[0].c_str());
  TempDir to(b[1].c_str());
  const std::string data = pattern(kTwoMiB, 7);
  const int src = create_file(from.file("src"), data);
  const int dst = create_file(to.file("dst"), "");
  const CopyPath want = expected_path(src, dst, kTwoMiB);
  const CopyResult r = copy_fd(src, dst);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.path, want == CopyPath::kSplice ? CopyPath::kSplice : CopyPath::kSendfile)
      << zerolab::to_string(r.path);
  EXPECT_EQ(r.bytes, kTwoMiB);
  EXPECT_EQ(pread_all(dst), data);
  close(src);
  close(dst);
}

// After a small copy between the same numbers (which leaves the file
// hint), a large one is inspected and takes the filesystem's path.
TEST(CopySpliceFile, ALargeCopyAfterASmallOneIsNotHinted) {
  ASSERT_TRUE(kProfileWritten);
  TempDir dir("/tmp");
  const std::string data = pattern(kTwoMiB, 3);
  const int src = create_file(dir.file("src"), data);
  const int dst = create_file(dir.file("dst"), "");
  CopyOptions small;
  small.max_bytes = 4096;
  CopyResult r = copy_fd(src, dst, small);
  ASSERT_EQ(r.path, CopyPath::kCopyFileRange) << r.message;
  r = copy_fd(src, dst);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.path, expected_path(src, dst, kTwoMiB - 4096));
  EXPECT_EQ(r.bytes, kTwoMiB - 4096);
  EXPECT_EQ(pread_all(dst), data);
  close(src);
  close(dst);
}

// An O_APPEND destination: splice would refuse it after reading, so the
// flags are read first and the copy appends by the usual chain.
TEST(CopySpliceFile, AnAppendDestinationIsAppendedTo) {
  ASSERT_TRUE(kProfileWritten);
  TempDir dir("/tmp");
  const std::string data = pattern(kTwoMiB, 5);
  const int src = create_file(dir.file("src"), data);
  const int fill = create_file(dir.file("dst"), "head");
  close(fill);
  const int dst = open(dir.file("dst").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  ASSERT_GE(dst, 0);
  const CopyResult r = copy_fd(src, dst);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_NE(r.path, CopyPath::kSplice);
  EXPECT_EQ(r.bytes, kTwoMiB);
  const int check = open(dir.file("dst").c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(pread_all(check), "head" + data);
  close(check);
  close(src);
  close(dst);
}

// A destination not open for writing: named, and nothing read.
TEST(CopySpliceFile, AReadOnlyDestinationReadsNothing) {
  ASSERT_TRUE(kProfileWritten);
  TempDir dir("/tmp");
  const int src = create_file(dir.file("src"), pattern(kTwoMiB));
  const int made = create_file(dir.file("dst"), "");
  close(made);
  const int dst = open(dir.file("dst").c_str(), O_RDONLY | O_CLOEXEC);
  const CopyResult r = copy_fd(src, dst);
  EXPECT_EQ(r.error, std::errc::bad_file_descriptor);
  EXPECT_EQ(r.message, "destination fd " + std::to_string(dst) + " is not open for writing");
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(lseek(src, 0, SEEK_CUR), 0);
  close(src);
  close(dst);
}

// A prepared pair knows no size without max_bytes: copy_file_range; with
// max_bytes of 1 MiB or more, the filesystem's path.
TEST(CopySpliceFile, APreparedPairSplicesOnlyAKnownLargeCount) {
  ASSERT_TRUE(kProfileWritten);
  TempDir dir("/tmp");
  const std::string data = pattern(kTwoMiB, 9);
  const int src = create_file(dir.file("src"), data);
  const int dst = create_file(dir.file("dst"), "");
  const zerolab::PreparedCopy pair = zerolab::prepare_copy(src, dst);
  ASSERT_TRUE(pair) << pair.plan().reason;
  CopyResult r = copy_fd(pair);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.path, CopyPath::kCopyFileRange);
  EXPECT_EQ(r.bytes, kTwoMiB);
  lseek(src, 0, SEEK_SET);
  lseek(dst, 0, SEEK_SET);
  CopyOptions o;
  o.max_bytes = kTwoMiB;
  r = copy_fd(pair, o);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.path, expected_path(src, dst, kTwoMiB));
  EXPECT_EQ(r.bytes, kTwoMiB);
  EXPECT_EQ(pread_all(dst), data);
  close(src);
  close(dst);
}

}  // namespace
