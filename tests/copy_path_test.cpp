// Tests of copy_fd's path choice (zerolab/copy.hpp): plan_copy's rule for
// every pair of descriptor kinds; for each pair bench/rigs/copy_bench
// measures, the path copy_fd takes on its own is the one plan_copy names
// and one the pair allows; CopyOptions::path forces every allowed path
// (the bytes arrive exactly) and refuses the others with EINVAL before a
// byte moves.
//
// Example:
//   ./copy_path_test --gtest_filter='CopyPathChoice.*'
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "copy_test_util.hpp"
#include "zerolab/copy.hpp"

namespace zerolab {
namespace {

using namespace copy_test;  // NOLINT(google-build-using-namespace): the shared helpers

// These tests check the table, so the machine profile is left unread for
// the whole binary (copy_profile_test and copy_splice_file_test read one).
const bool kRuleOnly = setenv("ZEROLAB_COPY_PROFILE", "0", 1) == 0;

constexpr CopyPath kPaths[] = {CopyPath::kClone, CopyPath::kCopyFileRange, CopyPath::kSendfile,
                               CopyPath::kSplice, CopyPath::kReadWrite};
constexpr CopyEnd kEnds[] = {CopyEnd::kFile,           CopyEnd::kPipe,         CopyEnd::kUnixStream,
                             CopyEnd::kLoopbackStream, CopyEnd::kRemoteStream, CopyEnd::kOther};

// Whether the live pairs below copy on a pair prepared for the call
// (prepare_copy) instead of with the one-shot copy_fd.
bool g_prepared = false;

CopyResult copy(int src, int dst, const CopyOptions& o) {
  return g_prepared ? copy_fd(prepare_copy(src, dst), o) : copy_fd(src, dst, o);
}

bool stream(CopyEnd e) {
  return e == CopyEnd::kPipe || e == CopyEnd::kUnixStream || e == CopyEnd::kLoopbackStream ||
         e == CopyEnd::kRemoteStream;
}

TEST(CopyPlanRule, EveryPairChoosesAPathItAllows) {
  for (const CopyEnd s : kEnds) {
    for (const CopyEnd d : kEnds) {
      const CopyPlan p = plan_copy(s, d);
      SCOPED_TRACE(std::to_string(static_cast<int>(s)) + " -> " +
                   std::to_string(static_cast<int>(d)));
      EXPECT_TRUE(p.allows(p.path)) << to_string(p.path);
      EXPECT_TRUE(p.allows(CopyPath::kReadWrite));
      EXPECT_FALSE(p.allows(CopyPath::kAuto));
      EXPECT_FALSE(p.allows(CopyPath::kNone));
      EXPECT_NE(std::string(p.reason), "");
      EXPECT_EQ(p.allows(CopyPath::kCopyFileRange), s == CopyEnd::kFile && d == CopyEnd::kFile);
      EXPECT_EQ(p.allows(CopyPath::kSendfile),
                s == CopyEnd::kFile && (d == CopyEnd::kFile || stream(d)));
      EXPECT_EQ(p.allows(CopyPath::kSplice),
                (s == CopyEnd::kFile || stream(s)) && (d == CopyEnd::kFile || stream(d)));
    }
  }
}

TEST(CopyPlanRule, TheTableOfTheHeader) {
  EXPECT_EQ(plan_copy(CopyEnd::kFile, CopyEnd::kFile).path, CopyPath::kCopyFileRange);
  EXPECT_EQ(plan_copy(CopyEnd::kFile, CopyEnd::kPipe).path, CopyPath::kSendfile);
  EXPECT_EQ(plan_copy(CopyEnd::kFile, CopyEnd::kUnixStream).path, CopyPath::kSplice);
  EXPECT_EQ(plan_copy(CopyEnd::kFile, CopyEnd::kRemoteStream).path, CopyPath::kSendfile);
  EXPECT_EQ(plan_copy(CopyEnd::kFile, CopyEnd::kLoopbackStream).path, CopyPath::kSplice);
  for (const CopyEnd s : {CopyEnd::kPipe, CopyEnd::kUnixStream, CopyEnd::kRemoteStream}) {
    for (const CopyEnd d : {CopyEnd::kFile, CopyEnd::kPipe, CopyEnd::kRemoteStream}) {
      // From a socket into a file read/write; everything else with a pipe or socket source splices.
      const CopyPath want =
          s != CopyEnd::kPipe && d == CopyEnd::kFile ? CopyPath::kReadWrite : CopyPath::kSplice;
      EXPECT_EQ(plan_copy(s, d).path, want) << static_cast<int>(s) << " -> " << static_cast<int>(d);
    }
  }
  EXPECT_EQ(plan_copy(CopyEnd::kOther, CopyEnd::kFile).path, CopyPath::kReadWrite);
  EXPECT_EQ(plan_copy(CopyEnd::kFile, CopyEnd::kOther).path, CopyPath::kReadWrite);
}

// One pair of live descriptors as copy_bench builds them: `run` copies with
// the options given and returns what the destination received.
struct LivePair {
  std::string name;
  std::function<CopyResult(const CopyOptions&, const std::string& data, std::string& got, int& src,
                           int& dst)>
      run;
};

// A file (dir/in) copied into one end of a socket pair from make_pair and
// drained from the other end.
LivePair file_to_socket(TempDir& dir, std::string name, std::string in, SocketPair (*make_pair)()) {
  return {std::move(name),
          [&dir, in = std::move(in), make_pair](const CopyOptions& o, const std::string& data,
                                                std::string& got, int& src, int& dst) {
            src = create_file(dir.file(in), data);
            SocketPair sp = make_pair();
            dst = sp.a;
            Drain sink(sp.b);
            const CopyResult r = copy(src, dst, o);
            shutdown(dst, SHUT_WR);
            got = sink.take();
            return r;
          }};
}

// The two ends of a socket pair or pipe: data written into write_end come
// out of read_end.
struct Channel {
  int read_end;
  int write_end;
};

// Data fed into a channel from open_channel, copied from its read end into
// a file (dir/out).
LivePair channel_to_file(TempDir& dir, std::string name, std::string out,
                         Channel (*open_channel)()) {
  return {std::move(name),
          [&dir, out = std::move(out), open_channel](const CopyOptions& o, const std::string& data,
                                                     std::string& got, int& src, int& dst) {
            const Channel c = open_channel();
            src = c.read_end;
            Feed feed(c.write_end, data);
            dst = create_file(dir.file(out), "");
            const CopyResult r = copy(src, dst, o);
            got = pread_all(dst);
            close(src);  // a refused copy read nothing: the feeder must not block
            src = -1;
            return r;
          }};
}

std::vector<LivePair> live_pairs(TempDir& dir) {
  std::vector<LivePair> pairs;
  pairs.push_back({"file-file", [&dir](const CopyOptions& o, const std::string& data,
                                       std::string& got, int& src, int& dst) {
                     src = create_file(dir.file("ff_in"), data);
                     dst = create_file(dir.file("ff_out"), "");
                     const CopyResult r = copy(src, dst, o);
                     got = pread_all(dst);
                     return r;
                   }});
  pairs.push_back(file_to_socket(dir, "file-tcp", "ft_in", [] { return tcp_pair(); }));
  pairs.push_back(file_to_socket(dir, "file-unix", "fu_in", unix_pair));
  pairs.push_back({"file-pipe", [&dir](const CopyOptions& o, const std::string& data,
                                       std::string& got, int& src, int& dst) {
                     src = create_file(dir.file("fp_in"), data);
                     int p[2];
                     if (pipe2(p, O_CLOEXEC) != 0) std::abort();
                     dst = p[1];
                     Drain sink(p[0]);
                     const CopyResult r = copy(src, dst, o);
                     close(dst);
                     dst = -1;
                     got = sink.take();
                     return r;
                   }});
  pairs.push_back(channel_to_file(dir, "tcp-file", "tf_out", [] {
    const SocketPair sp = tcp_pair();
    return Channel{sp.b, sp.a};
  }));
  pairs.push_back(channel_to_file(dir, "pipe-file", "pf_out", [] {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) std::abort();
    return Channel{p[0], p[1]};
  }));
  return pairs;
}

void close_if_open(int fd) {
  if (fd >= 0) close(fd);
}

// The source and destination kinds of each live pair, for plan_copy.
CopyPlan plan_of(const std::string& name) {
  if (name == "file-file") return plan_copy(CopyEnd::kFile, CopyEnd::kFile);
  if (name == "file-tcp") return plan_copy(CopyEnd::kFile, CopyEnd::kLoopbackStream);
  if (name == "file-unix") return plan_copy(CopyEnd::kFile, CopyEnd::kUnixStream);
  if (name == "file-pipe") return plan_copy(CopyEnd::kFile, CopyEnd::kPipe);
  if (name == "tcp-file") return plan_copy(CopyEnd::kRemoteStream, CopyEnd::kFile);
  return plan_copy(CopyEnd::kPipe, CopyEnd::kFile);
}

TEST(CopyPathChoice, EachPairTakesThePathItsPlanNames) {
  TempDir dir("/tmp");
  const std::string data = pattern(300000);
  for (const bool prepared : {false, true}) {  // one-shot, then on a prepared pair
    g_prepared = prepared;
    for (const LivePair& pair : live_pairs(dir)) {
      std::string got;
      int src = -1;
      int dst = -1;
      const CopyResult r = pair.run(CopyOptions{}, data, got, src, dst);
      const CopyPlan plan = plan_of(pair.name);
      EXPECT_FALSE(r.error) << pair.name << ": " << r.message;
      EXPECT_EQ(r.path, plan.path)
          << pair.name << (prepared ? " prepared" : "") << ": took " << to_string(r.path);
      EXPECT_TRUE(plan.allows(r.path)) << pair.name;
      EXPECT_EQ(r.bytes, data.size()) << pair.name;
      EXPECT_EQ(got, data) << pair.name;
      close_if_open(src);
      close_if_open(dst);
    }
  }
  g_prepared = false;
}

TEST(CopyPathChoice, PlanOfLiveDescriptorsMatchesTheKinds) {
  TempDir dir("/tmp");
  const int file = create_file(dir.file("a"), pattern(200000));  // above kSmallIntoSocket
  const int out = create_file(dir.file("b"), "");
  SocketPair tcp = tcp_pair();
  SocketPair unix_socks = unix_pair();
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  EXPECT_EQ(plan_copy(file, out).path, plan_copy(CopyEnd::kFile, CopyEnd::kFile).path);
  EXPECT_EQ(plan_copy(file, tcp.a).path, plan_copy(CopyEnd::kFile, CopyEnd::kLoopbackStream).path);
  EXPECT_EQ(plan_copy(file, unix_socks.a).path,
            plan_copy(CopyEnd::kFile, CopyEnd::kUnixStream).path);
  EXPECT_EQ(plan_copy(file, p[1]).path, plan_copy(CopyEnd::kFile, CopyEnd::kPipe).path);
  EXPECT_EQ(plan_copy(tcp.b, out).path, CopyPath::kReadWrite);
  // A small copy from a file into a stream socket: sendfile, whatever the peer.
  CopyOptions small;
  small.max_bytes = 16384;
  EXPECT_EQ(plan_copy(file, tcp.a, small).path, CopyPath::kSendfile);
  EXPECT_EQ(plan_copy(file, unix_socks.a, small).path, CopyPath::kSendfile);
  EXPECT_EQ(plan_copy(file, out, small).path, CopyPath::kCopyFileRange);
  const int tiny = create_file(dir.file("c"), "x");
  EXPECT_EQ(plan_copy(tiny, unix_socks.a).path, CopyPath::kSendfile);
  close(tiny);
  CopyOptions forced;
  forced.path = CopyPath::kCopyFileRange;
  const CopyPlan refused = plan_copy(file, tcp.a, forced);
  EXPECT_EQ(refused.path, CopyPath::kNone);
  EXPECT_EQ(refused.error, std::error_code(EINVAL, std::system_category()));
  forced.path = CopyPath::kSplice;
  EXPECT_EQ(plan_copy(file, tcp.a, forced).path, CopyPath::kSplice);
  const CopyPlan bad = plan_copy(-1, out);
  EXPECT_EQ(bad.path, CopyPath::kNone);
  EXPECT_EQ(bad.error, std::error_code(EBADF, std::system_category()));
  for (int fd : {file, out, tcp.a, tcp.b, unix_socks.a, unix_socks.b, p[0], p[1]}) close(fd);
}

// Without a profile a file → file copy takes copy_file_range at every
// size, on ext4 and tmpfs too (where a profile may choose splice from
// 1 MiB: copy_splice_file_test), one-shot and prepared.
TEST(CopyPathChoice, ALargeFileCopyTakesCopyFileRangeWithoutAProfile) {
  std::vector<std::string> bases{"/tmp"};
  if (access("/dev/shm", W_OK) == 0) bases.emplace_back("/dev/shm");
  const std::string data = pattern(std::size_t{2} << 20, 11);
  for (const std::string& base : bases) {
    TempDir dir(base.c_str());
    const int src = create_file(dir.file("src"), data);
    const int dst = create_file(dir.file("dst"), "");
    const CopyPlan plan = plan_copy(src, dst);
    EXPECT_EQ(plan.path, CopyPath::kCopyFileRange) << base << ": " << plan.reason;
    CopyResult r = copy_fd(src, dst);
    EXPECT_TRUE(r) << r.message;
    EXPECT_EQ(r.path, CopyPath::kCopyFileRange) << base;
    EXPECT_EQ(r.bytes, data.size());
    EXPECT_EQ(pread_all(dst), data);
    lseek(src, 0, SEEK_SET);
    ASSERT_EQ(ftruncate(dst, 0), 0);
    lseek(dst, 0, SEEK_SET);
    CopyOptions o;
    o.max_bytes = data.size();
    r = copy_fd(prepare_copy(src, dst), o);
    EXPECT_TRUE(r) << r.message;
    EXPECT_EQ(r.path, CopyPath::kCopyFileRange) << base << " prepared";
    EXPECT_EQ(pread_all(dst), data);
    close(src);
    close(dst);
  }
}

TEST(CopyPathChoice, AnOverrideForcesEveryAllowedPathAndRefusesTheOthers) {
  TempDir dir("/tmp");
  const std::string data = pattern(200000, 7);
  for (const bool prepared : {false, true}) {  // one-shot, then on a prepared pair
    g_prepared = prepared;
    for (const LivePair& pair : live_pairs(dir)) {
      const CopyPlan plan = plan_of(pair.name);
      for (const CopyPath path : kPaths) {
        if (path == CopyPath::kClone) continue;  // ext4/tmpfs decline FICLONE; forced below
        CopyOptions o;
        o.path = path;
        std::string got;
        int src = -1;
        int dst = -1;
        const CopyResult r = pair.run(o, data, got, src, dst);
        const std::string what =
            pair.name + (prepared ? " prepared," : "") + " forced " + std::string(to_string(path));
        if (plan.allows(path)) {
          EXPECT_FALSE(r.error) << what << ": " << r.message;
          EXPECT_EQ(r.path, path) << what;
          EXPECT_EQ(r.bytes, data.size()) << what;
          EXPECT_EQ(got, data) << what;
        } else {
          EXPECT_EQ(r.error, std::error_code(EINVAL, std::system_category())) << what;
          EXPECT_EQ(r.bytes, 0u) << what;
          EXPECT_EQ(r.path, CopyPath::kNone) << what;
          EXPECT_NE(r.message.find("is not a path this pair allows"), std::string::npos)
              << r.message;
          EXPECT_EQ(got, "") << what;
        }
        close_if_open(src);
        close_if_open(dst);
      }
    }
  }
  g_prepared = false;
}

// A forced path the kernel declines fails with the kernel's errno and
// never falls back: FICLONE between ext4 files is EOPNOTSUPP (or EXDEV,
// EINVAL), and nothing is written.
TEST(CopyPathChoice, AForcedPathThatTheKernelDeclinesFails) {
  TempDir dir("/tmp");
  const std::string data = pattern(10000);
  const int in = create_file(dir.file("a"), data);
  const int out = create_file(dir.file("b"), "");
  CopyOptions o;
  o.path = CopyPath::kClone;
  const CopyResult r = copy_fd(in, out, o);
  if (!r.error) {
    EXPECT_EQ(r.path, CopyPath::kClone);  // a filesystem with reflinks
    EXPECT_EQ(pread_all(out), data);
  } else {
    EXPECT_EQ(r.path, CopyPath::kClone);
    EXPECT_EQ(r.bytes, 0u);
    EXPECT_EQ(pread_all(out), "");
    EXPECT_EQ(r.message.rfind("ioctl(FICLONE) from source fd", 0), 0u) << r.message;
  }
  close(in);
  close(out);
}

// A small copy from a file into a stream socket takes sendfile, and into a
// datagram socket read/write; the bytes arrive exactly either way.
TEST(CopyPathChoice, SmallCopiesIntoSocketsTakeSendfile) {
  TempDir dir("/tmp");
  const std::string data = pattern(16384, 3);
  for (const bool prepared : {false, true}) {
    g_prepared = prepared;
    for (const LivePair& pair : live_pairs(dir)) {
      if (pair.name != "file-tcp" && pair.name != "file-unix") continue;
      std::string got;
      int src = -1;
      int dst = -1;
      // A prepared pair knows no size now: only max_bytes makes it small.
      CopyOptions o;
      if (prepared) o.max_bytes = data.size();
      const CopyResult r = pair.run(o, data, got, src, dst);
      EXPECT_FALSE(r.error) << pair.name << ": " << r.message;
      EXPECT_EQ(r.path, CopyPath::kSendfile) << pair.name << " prepared " << prepared;
      EXPECT_EQ(got, data) << pair.name;
      close_if_open(src);
      close_if_open(dst);
    }
  }
  g_prepared = false;
  int dgram[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, dgram), 0);
  const int in = create_file(dir.file("d"), data.substr(0, 1000));
  const CopyResult r = copy_fd(in, dgram[0]);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.path, CopyPath::kReadWrite);
  EXPECT_EQ(r.bytes, 1000u);
  char buf[2000];
  EXPECT_EQ(recv(dgram[1], buf, sizeof buf, MSG_DONTWAIT), 1000);
  EXPECT_EQ(std::string(buf, 1000), data.substr(0, 1000));
  for (int fd : {in, dgram[0], dgram[1]}) close(fd);
}

TEST(CopyPathChoice, PathNames) {
  EXPECT_EQ(to_string(CopyPath::kAuto), "auto");
  EXPECT_EQ(to_string(CopyPath::kReadWrite), "read_write");
  EXPECT_EQ(to_string(CopyPath::kSplice), "splice");
}

}  // namespace
}  // namespace zerolab
