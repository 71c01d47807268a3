// copy_fd's per-process choice of path for a pair kind, learned from its
// first large copies (src/io/path_learning.hpp): every copy, learning or
// decided, takes a path its pair allows and moves exactly the bytes; the
// choice, once made, stays until its review (after kFirstReview copies on
// it, then kReviewGrowth times as many); small copies keep the rule; the
// decision rule itself on fixed medians. No timing is asserted: which path wins is the
// machine's.
//
// Example: build/release/tests/copy_learning_test
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "copy_test_util.hpp"
#include "io/path_learning.hpp"
#include "zerolab/copy.hpp"

namespace zerolab {
namespace {

using namespace copy_test;  // NOLINT(google-build-using-namespace): the shared helpers

TEST(PickCandidate, TheRuleStaysUnlessAnotherIsFasterByTheBar) {
  struct Case {
    std::vector<double> medians;  // [0] the rule's; -1: not enough samples
    int want;
  };
  const Case cases[] = {
      {{1.0, 0.96}, 0},        // 4% faster: under the bar
      {{1.0, 0.95}, 1},        // exactly the bar
      {{1.0, 0.50, 0.40}, 2},  // the fastest, not the first that passes
      {{1.0, 1.20, 2.00}, 0},  // the rule is fastest
      {{1.0, -1, 0.90}, 2},    // an incomplete candidate cannot win
      {{1.0, -1, -1}, 0},     {{1.0}, 0},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(io::pick_candidate(c.medians.data(), static_cast<int>(c.medians.size()), 0.95),
              c.want)
        << "medians[1]=" << (c.medians.size() > 1 ? c.medians[1] : 0);
  }
}

// One pipe → file copy of `data`; returns the path and checks the bytes.
CopyPath pipe_to_file(const TempDir& disk, const std::string& data, const char* name,
                      std::uint64_t max_bytes = CopyOptions::kNoLimit) {
  int p[2];
  EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
  const int out = create_file(disk.file(name), "");
  CopyResult r;
  {
    Feed feed(p[1], data);
    CopyOptions o;
    o.max_bytes = max_bytes;
    r = copy_fd(p[0], out, o);
    close(p[0]);  // a writer with more to write than was copied gets EPIPE
  }
  const std::uint64_t want = std::min<std::uint64_t>(max_bytes, data.size());
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.bytes, want);
  EXPECT_EQ(pread_all(out), data.substr(0, static_cast<std::size_t>(want)));
  close(out);
  return r.path;
}

TEST(CopyLearning, LearnsAmongTheAllowedPathsThenKeepsItsChoice) {
  ASSERT_TRUE(io::learning_enabled());
  TempDir disk("/tmp");
  const std::string data = pattern(300000, 9);  // above kSampleFrom
  // Two candidates (splice, read/write), kSamples each, and some to spare.
  std::vector<CopyPath> paths;
  for (int i = 0; i < 2 * io::kSamples + 4; ++i) paths.push_back(pipe_to_file(disk, data, "out"));
  int splice = 0;
  int read_write = 0;
  for (const CopyPath p : paths) {
    ASSERT_TRUE(p == CopyPath::kSplice || p == CopyPath::kReadWrite) << to_string(p);
    (p == CopyPath::kSplice ? splice : read_write) += 1;
  }
  EXPECT_GE(splice, io::kSamples);  // both were tried
  EXPECT_GE(read_write, io::kSamples);
  // Decided: the same path from now on, and plan_copy says so.
  const CopyPlan rule = plan_copy(CopyEnd::kPipe, CopyEnd::kFile);
  const CopyPath chosen = io::learned_path(rule);
  ASSERT_NE(chosen, CopyPath::kNone);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(pipe_to_file(disk, data, "again"), chosen);
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  const int out = create_file(disk.file("plan"), "");
  const CopyPlan live = plan_copy(p[0], out);
  EXPECT_EQ(live.path, chosen);
  EXPECT_STREQ(live.reason,
               chosen != rule.path
                   ? "learned in this process: the fastest when it last timed its large copies "
                     "of this kind"
                   : "the table's path, kept after this process last timed the others on large "
                     "copies of this kind (none was 5% faster)");
  close(p[0]);
  close(p[1]);
  close(out);
  // A copy limited below kLearnFrom keeps the rule's path.
  EXPECT_EQ(pipe_to_file(disk, data, "small", 1000), rule.path);
}

// Threads learning the same pair kind at once, deciding, and reviewing
// the decision (TSan runs this): 3 x 40 copies are well more than the first
// learning (2 x kSamples), kFirstReview copies on the decision and the
// second learning.
TEST(CopyLearning, ThreadsLearnTogetherAndEveryCopyIsExact) {
  static_assert(3 * 40 > 2 * io::kSamples + io::kFirstReview + 2 * io::kSamples + 20);
  TempDir disk("/tmp");
  const std::string data = pattern(400000, 4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&disk, &data, t] {
      // A kind the other test does not touch: AF_UNIX socket → file.
      for (int i = 0; i < 40; ++i) {
        SocketPair sp = unix_pair();
        const int out = create_file(disk.file("t" + std::to_string(t)), "");
        CopyResult r;
        {
          Feed feed(sp.a, data);
          r = copy_fd(sp.b, out);
        }
        EXPECT_FALSE(r.error) << r.message;
        EXPECT_EQ(r.bytes, data.size());
        EXPECT_TRUE(r.path == CopyPath::kSplice || r.path == CopyPath::kReadWrite)
            << to_string(r.path);
        EXPECT_EQ(pread_all(out), data);
        close(sp.b);
        close(out);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_NE(io::learned_path(plan_copy(CopyEnd::kRemoteStream, CopyEnd::kFile)), CopyPath::kNone);
}

// A thread reading `fd` to its end and checking every byte against
// `data` repeated (a whole copy per repetition), without keeping them.
class RepeatCheck {
 public:
  RepeatCheck(int fd, const std::string& data)
      : thread_([this, fd, &data] {
          std::vector<char> buf(1 << 16);
          ssize_t n;
          while ((n = read(fd, buf.data(), buf.size())) > 0) {
            for (ssize_t i = 0; i < n;) {
              const std::size_t at = static_cast<std::size_t>(bytes_ % data.size());
              const std::size_t run = std::min(data.size() - at, static_cast<std::size_t>(n - i));
              if (std::memcmp(buf.data() + i, data.data() + at, run) != 0) ++bad_runs_;
              i += static_cast<ssize_t>(run);
              bytes_ += run;
            }
          }
          close(fd);
        }) {}
  // Joins the thread: the bytes read, and how many stretches differed.
  std::pair<std::uint64_t, int> take() {
    thread_.join();
    return {bytes_, bad_runs_};
  }

 private:
  std::uint64_t bytes_ = 0;
  int bad_runs_ = 0;
  std::thread thread_;
};

// A decision is reviewed: after kFirstReview copies taken on it the kind
// learns again, the table's path first, and decides again after the same
// number of samples; the next review comes kReviewGrowth times later.
TEST(CopyLearning, ADecisionIsReviewedAfterTheCopiesTakenOnIt) {
  // A kind the other tests do not touch: file → AF_UNIX socket (sendfile,
  // splice, read/write: three candidates).
  ASSERT_TRUE(io::learning_enabled());
  const CopyPlan rule = plan_copy(CopyEnd::kFile, CopyEnd::kUnixStream);
  ASSERT_EQ(io::learned_path(rule), CopyPath::kNone);
  TempDir disk("/tmp");
  const std::string data = pattern(io::kSampleFrom, 11);  // each copy one sample
  const int src = create_file(disk.file("src"), data);
  ASSERT_GE(src, 0);
  SocketPair sp = unix_pair();
  RepeatCheck reader(sp.b, data);
  std::uint64_t copies = 0;
  const auto copy = [&] {
    EXPECT_EQ(lseek(src, 0, SEEK_SET), 0);
    const CopyResult r = copy_fd(src, sp.a);
    EXPECT_FALSE(r.error) << r.message;
    EXPECT_EQ(r.bytes, data.size());
    EXPECT_TRUE(rule.allows(r.path)) << to_string(r.path);
    ++copies;
    return r.path;
  };
  // Copies until the kind decides: how many it took.
  const auto learn = [&] {
    int n = 0;
    while (io::learned_path(rule) == CopyPath::kNone && n < io::kMaxAttempts) {
      copy();
      ++n;
    }
    return n;
  };
  // In a lambda, so that a failed ASSERT still reaches the close that ends the reader.
  [&] {
    EXPECT_EQ(learn(), 3 * io::kSamples);
    for (const std::uint32_t review : {io::kFirstReview, io::kFirstReview * io::kReviewGrowth}) {
      const CopyPath chosen = io::learned_path(rule);
      ASSERT_NE(chosen, CopyPath::kNone);
      for (std::uint32_t i = 1; i < review; ++i) ASSERT_EQ(copy(), chosen) << "copy " << i;
      EXPECT_EQ(io::learned_path(rule), chosen) << "reviewed before copy " << review;
      EXPECT_EQ(copy(), chosen);  // the copy that starts the review takes the decision
      EXPECT_EQ(io::learned_path(rule), CopyPath::kNone) << "not reviewed after " << review;
      EXPECT_EQ(copy(), rule.path);  // learning again, the table's path first
      EXPECT_EQ(1 + learn(), 3 * io::kSamples) << "relearning after " << review;
    }
  }();
  close(sp.a);
  const auto [bytes, bad_runs] = reader.take();
  EXPECT_EQ(bytes, copies * data.size());
  EXPECT_EQ(bad_runs, 0);
  close(src);
}

// Small file → file copies learn between copy_file_range and read/write:
// inspected copies take the two in turn, the rule's first, and once each
// has kSamples the process keeps one, for copies too small to time as well.
TEST(CopyLearning, SmallFileCopiesLearnBetweenCopyFileRangeAndReadWrite) {
  TempDir disk("/tmp");
  const std::string data = pattern(16384, 5);
  const int src = create_file(disk.file("src"), data);
  ASSERT_GE(src, 0);
  EXPECT_EQ(io::learned_small_file_path(), CopyPath::kNone);
  std::vector<int> outs;  // kept open: each copy has new numbers, so none runs on the hint
  const auto copy_into_new_file = [&](std::uint64_t max_bytes) {
    const int out = create_file(disk.file("out" + std::to_string(outs.size())), "");
    outs.push_back(out);
    EXPECT_EQ(lseek(src, 0, SEEK_SET), 0);
    CopyOptions o;
    o.max_bytes = max_bytes;
    const CopyResult r = copy_fd(src, out, o);
    EXPECT_FALSE(r.error) << r.message;
    EXPECT_EQ(pread_all(out), data.substr(0, static_cast<std::size_t>(r.bytes)));
    EXPECT_EQ(r.bytes, std::min<std::uint64_t>(max_bytes, data.size()));
    return r.path;
  };
  for (int i = 0; i < 2 * io::kSamples; ++i) {
    EXPECT_EQ(copy_into_new_file(CopyOptions::kNoLimit),
              i % 2 == 0 ? CopyPath::kCopyFileRange : CopyPath::kReadWrite)
        << "copy " << i;
  }
  const CopyPath chosen = io::learned_small_file_path();
  ASSERT_TRUE(chosen == CopyPath::kCopyFileRange || chosen == CopyPath::kReadWrite)
      << to_string(chosen);
  EXPECT_EQ(copy_into_new_file(CopyOptions::kNoLimit), chosen);
  EXPECT_EQ(copy_into_new_file(100), chosen);
  for (const int fd : outs) close(fd);
  close(src);
}

}  // namespace
}  // namespace zerolab
