// copy_fd's choice of path from the machine profile (src/io/path_choice.hpp):
// the test writes a profile for this machine into a cache directory of its
// own (XDG_CACHE_HOME, set before the first copy reads it) that picks paths
// the table does not; copies of 256 KiB or more of those kinds then take
// the profile's path, exactly, every time (nothing is timed, nothing is
// changed after any number of copies), smaller copies the table's, and
// two processes reading the profile plan the same paths.
//
// Example: build/release/tests/copy_profile_test
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "copy_test_util.hpp"
#include "machine/machine_profile.hpp"
#include "zerolab/copy.hpp"

namespace zerolab {
namespace {

using namespace copy_test;  // NOLINT(google-build-using-namespace): the shared helpers

// The profile: pipe → file by read/write (the table: splice), file → pipe
// by splice (the table: sendfile), small file → file by read/write.
const TempDir& cache() {
  static const TempDir dir{"/tmp"};
  return dir;
}

const bool kProfileWritten = [] {
  machine::MachineProfile p;
  p.key = machine::this_machine_key();
  p.written = "2026-01-01T00:00:00Z";
  p.copy = {{CopyEnd::kPipe, CopyEnd::kFile, CopyPath::kReadWrite},
            {CopyEnd::kFile, CopyEnd::kPipe, CopyPath::kSplice}};
  p.copy_small_file = CopyPath::kReadWrite;
  return setenv("XDG_CACHE_HOME", cache().path().c_str(), 1) == 0 &&
         unsetenv("ZEROLAB_COPY_PROFILE") == 0 && unsetenv("ZEROLAB_COPY_SMALL_FILE") == 0 &&
         machine::write_profile(cache().path() + "/zerolab/machine-profile", p).empty();
}();

constexpr std::size_t kLarge = std::size_t{1} << 20;

TEST(CopyProfile, PlanCopyNamesTheProfilesChoice) {
  ASSERT_TRUE(kProfileWritten);
  ASSERT_TRUE(machine::machine_profile().usable) << machine::machine_profile().why;
  EXPECT_EQ(plan_copy(CopyEnd::kPipe, CopyEnd::kFile).path, CopyPath::kSplice);  // the table
  TempDir dir;
  const int dst = create_file(dir.file("dst"), "");
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  const CopyPlan plan = plan_copy(p[0], dst);
  EXPECT_EQ(plan.path, CopyPath::kReadWrite);
  EXPECT_STREQ(plan.reason, "the machine profile's choice for this pair kind (zerolab calibrate)");
  CopyOptions small;
  small.max_bytes = 4096;  // below 256 KiB: the table
  EXPECT_EQ(plan_copy(p[0], dst, small).path, CopyPath::kSplice);
  close(p[0]);
  close(p[1]);
  close(dst);
}

// Forty large copies of one kind: the same path each time, every byte.
TEST(CopyProfile, EveryLargeCopyTakesTheProfilesPathExactly) {
  ASSERT_TRUE(kProfileWritten);
  TempDir dir;
  for (int i = 0; i < 40; ++i) {
    const std::string data = pattern(kLarge, static_cast<std::uint32_t>(i + 1));
    int p[2];
    ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
    Feed feed(p[1], data, 65536);
    const int dst = create_file(dir.file("dst"), "");
    const CopyResult r = copy_fd(p[0], dst);
    feed.join();
    ASSERT_TRUE(r) << r.message;
    EXPECT_EQ(r.path, CopyPath::kReadWrite) << "copy " << i;
    EXPECT_EQ(r.bytes, data.size());
    EXPECT_EQ(pread_all(dst), data);
    close(p[0]);
    close(dst);
  }
  // File → pipe: the profile's splice.
  const std::string data = pattern(kLarge, 77);
  const int src = create_file(dir.file("src"), data);
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  Drain drain(p[0]);
  const CopyResult r = copy_fd(src, p[1]);
  close(p[1]);
  ASSERT_TRUE(r) << r.message;
  EXPECT_EQ(r.path, CopyPath::kSplice);
  EXPECT_EQ(drain.take(), data);
  close(src);
}

TEST(CopyProfile, SmallFileCopiesTakeTheProfilesPath) {
  ASSERT_TRUE(kProfileWritten);
  TempDir dir;
  const std::string data = pattern(16384, 5);
  const int src = create_file(dir.file("src"), data);
  const int dst = create_file(dir.file("dst"), "");
  const CopyPlan plan = plan_copy(src, dst);
  EXPECT_EQ(plan.path, CopyPath::kReadWrite);
  EXPECT_STREQ(plan.reason, "a small file → file copy: read/write, the machine profile's choice");
  const CopyResult r = copy_fd(src, dst);
  ASSERT_TRUE(r) << r.message;
  EXPECT_EQ(r.path, CopyPath::kReadWrite);
  EXPECT_EQ(pread_all(dst), data);
  close(src);
  close(dst);
}

// Two processes reading the same profile plan the same paths for every
// kind (under ctest each test is a process of its own, so each child reads
// the profile itself).
TEST(CopyProfile, TwoProcessesPlanTheSamePaths) {
  ASSERT_TRUE(kProfileWritten);
  const auto plans = [](std::string&) {
    std::string out;
    TempDir dir;
    const int file = create_file(dir.file("f"), pattern(kLarge, 3));
    const int small = create_file(dir.file("s"), pattern(1000, 3));
    const int dst = create_file(dir.file("d"), "");
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return out;
    for (const auto& [s, d] : {std::pair{p[0], dst}, std::pair{file, p[1]}, std::pair{small, dst},
                               std::pair{file, dst}}) {
      out += std::string(to_string(plan_copy(s, d).path)) + ",";
    }
    return out;
  };
  const std::string first = run_in_child(plans);
  // The large file → file copy is the table's (the profile has no line for
  // it): splice or copy_file_range by the filesystem.
  EXPECT_EQ(first.rfind("read_write,splice,read_write,", 0), 0u) << first;
  EXPECT_EQ(run_in_child(plans), first);
}

}  // namespace
}  // namespace zerolab
