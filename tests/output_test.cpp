// How zerolab's programs treat their outputs: the one output
// writer behind every -o (files/atomic_file.hpp) and the standard streams
// at start and exit (bench/std_streams.hpp), tried as a hostile user would,
// through the real `zerolab` CLI and a real benchmark binary.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "cli_test_fixture.hpp"

namespace {

using zerolab::test::CommandResult;
using zerolab::test::kCli;
using zerolab::test::read_file;
using zerolab::test::write_file;

class OutputPaths : public zerolab::test::CliTest {
 protected:
  CommandResult compare(const std::string& args) const { return cli("compare " + args); }
  CommandResult fixture(const std::string& args) const {
    return bench("-bench '^BenchmarkLoopCount$' -benchtime 1x -cpu 1 " + args);
  }
  static mode_t mode_of(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st.st_mode;
  }
};

// A6: the output must never replace an input.
TEST_F(OutputPaths, AnOutputThatIsAnInputIsRefused) {
  const std::string before = read_file(old_);
  const CommandResult r = compare("-o " + old_ + " " + old_ + " " + new_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(),
            "zerolab compare: -o: cannot write " + old_ + ": it is also an input (" + old_ + ")");
  EXPECT_EQ(read_file(old_), before);
  // Through another name of the same file (a labelled input, a hard link).
  ASSERT_EQ(::link(new_.c_str(), (dir_ + "/same.txt").c_str()), 0);
  EXPECT_EQ(compare("-o " + dir_ + "/same.txt old=" + old_ + " new=" + new_).code, 2);
}

// A3: a device node is written in place, never replaced by a regular file.
TEST_F(OutputPaths, ADeviceNodeIsWrittenInPlace) {
  const std::string node = dir_ + "/null";
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    GTEST_SKIP() << "mknod not allowed here (" << std::strerror(errno) << ")";
  }
  const CommandResult r = compare("-o " + node + " " + old_ + " " + new_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(S_ISCHR(mode_of(node)));
  EXPECT_EQ(r.out, "");
}

// B12: a read-only target is refused and kept, mode and contents.
TEST_F(OutputPaths, AReadOnlyTargetIsRefusedAndKept) {
  const std::string target = dir_ + "/ro.txt";
  write_file(target, "keep me\n");
  ASSERT_EQ(::chmod(target.c_str(), 0444), 0);
  const CommandResult r = compare("-o " + target + " " + old_ + " " + new_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(),
            "zerolab compare: -o: cannot write " + target + ": the file is read-only");
  EXPECT_EQ(read_file(target), "keep me\n");
  EXPECT_EQ(mode_of(target) & 07777, 0444u);
}

// A symlink is refused, never written through nor replaced (a link planted
// in a shared directory must not let a root run overwrite its target).
TEST_F(OutputPaths, ASymlinkIsRefusedAndItsTargetKept) {
  const std::string target = dir_ + "/real.txt";
  const std::string link = dir_ + "/link.txt";
  write_file(target, "old\n");
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
  ASSERT_EQ(::symlink("real.txt", link.c_str()), 0);
  const CommandResult r = compare("-o " + link + " " + old_ + " " + new_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(), "zerolab compare: -o: cannot write " + link +
                                    ": it is a symbolic link (zerolab does not write through "
                                    "links; give the path of the file itself)");
  EXPECT_TRUE(S_ISLNK(mode_of(link)));
  EXPECT_EQ(mode_of(target) & 07777, 0640u);
  EXPECT_EQ(read_file(target), "old\n");
}

// A regular file keeps its mode when replaced; a FIFO is refused at once
// (opening it would wait for a reader).
TEST_F(OutputPaths, TheModeIsKeptAndAFifoIsRefused) {
  const std::string out = dir_ + "/out.txt";
  write_file(out, "old\n");
  ASSERT_EQ(::chmod(out.c_str(), 0600), 0);
  ASSERT_EQ(compare("-o " + out + " " + old_ + " " + new_).code, 0);
  EXPECT_EQ(mode_of(out) & 07777, 0600u);
  EXPECT_NE(read_file(out).find("sec/op"), std::string::npos);

  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const CommandResult r = compare("-o " + fifo + " " + old_ + " " + new_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(), "zerolab compare: -o: cannot write " + fifo +
                                    ": not a regular file (a FIFO, socket or block device)");
}

// B2: errors name the path the user gave and the real cause.
TEST_F(OutputPaths, ErrorsNameTheUsersPathAndTheRealCause) {
  CommandResult r = compare("-o /proc/version " + old_ + " " + new_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(),
            "zerolab compare: -o: cannot write /proc/version: the file is read-only");
  r = compare("-o " + dir_ + "/no/such/out.txt " + old_ + " " + new_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(), "zerolab compare: -o: cannot write " + dir_ +
                                    "/no/such/out.txt: No such file or directory");
  r = compare("-o " + dir_ + " " + old_ + " " + new_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(), "zerolab compare: -o: cannot write " + dir_ + ": Is a directory");
}

// C: "-o -" is stdout, "-o ''" an error; nothing named "-" appears.
TEST_F(OutputPaths, DashIsStdoutAndAnEmptyPathIsAnError) {
  CommandResult r = compare("-o - " + old_ + " " + new_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("sec/op"), std::string::npos);
  EXPECT_EQ(::access((dir_ + "/-").c_str(), F_OK), -1);
  // The standard streams' names are not refused as links: they are written.
  r = compare("-o /dev/stdout " + old_ + " " + new_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("sec/op"), std::string::npos);
  r = compare("-o '' " + old_ + " " + new_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(), "zerolab compare: -o: cannot write \"\": empty output path");
  EXPECT_EQ(r.out, "");
}

// C: temporaries of processes that died are swept at the next write.
TEST_F(OutputPaths, StaleTemporariesOfDeadProcessesAreSwept) {
  const std::string out = dir_ + "/out.txt";
  write_file(out + ".tmp.999999999", "left by a killed run");
  write_file(out + ".tmp.notapid", "not ours");
  ASSERT_EQ(compare("-o " + out + " " + old_ + " " + new_).code, 0);
  EXPECT_EQ(::access((out + ".tmp.999999999").c_str(), F_OK), -1);
  EXPECT_EQ(::access((out + ".tmp.notapid").c_str(), F_OK), 0);
}

// A4: a failed write on stdout is an error, for every command.
TEST_F(OutputPaths, AFailedStdoutIsExit1WithTheCause) {
  CommandResult r = compare(old_ + " " + new_ + " >/dev/full");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.first_err_line(), "zerolab: cannot write standard output: No space left on device");
  r = zerolab::test::run(kCli + " help >&-", dir_);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.first_err_line(), "zerolab: cannot write standard output: Bad file descriptor");
  r = zerolab::test::run(kCli + " version >/dev/full", dir_);
  EXPECT_EQ(r.code, 1);
  r = fixture(">/dev/full");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.first_err_line(),
            "bench_fixture: cannot write standard output: No space left on device");
}

// The store's commands and history on a full or closed stdout: one line
// naming the write's own error (not a second line, not EIO), exit 1.
TEST_F(OutputPaths, TheStoreCommandsNameTheRealErrorOfAFailedStdout) {
  const std::string url = "--store sqlite:" + dir_ + "/s.db";
  struct Case {
    std::string args, command;
  };
  const Case cases[] = {
      {"store add " + url + " " + old_, "store add"},
      {"store list " + url, "store list"},
      {"store export " + url + " " + "RUN", "store export"},
      {"history " + url, "history"},
      {"store matrix " + url, "store matrix"},
  };
  for (const auto& [redirect, cause] :
       {std::pair<std::string, std::string>{">/dev/full", "No space left on device"},
        {">&-", "Bad file descriptor"}}) {
    for (const Case& c : cases) {
      std::string args = c.args;
      if (const std::size_t at = args.find("RUN"); at != std::string::npos) {
        const std::string list = cli("store list " + url).out;
        ASSERT_GE(list.size(), 36u) << list;
        args.replace(at, 3, list.substr(0, 36));
      }
      SCOPED_TRACE(args + " " + redirect);
      const CommandResult r = cli(args + " " + redirect);
      EXPECT_EQ(r.code, 1);
      EXPECT_EQ(r.err, "zerolab " + c.command + ": cannot write standard output: " + cause + "\n");
    }
  }
}

// A directory on the way to -o that is a symbolic link another user put
// in a sticky directory others may write (/tmp/x -> /etc) is not followed:
// a root run cannot be made to write where the link points. The user's own
// link there, and links elsewhere, are followed.
TEST_F(OutputPaths, ADirectoryLinkAnotherUserPlantedInAStickyDirectoryIsNotFollowed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a link owned by another user";
  const std::string shared = dir_ + "/shared";
  const std::string victim = dir_ + "/victim";
  ASSERT_EQ(::mkdir(shared.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  ASSERT_EQ(::mkdir(victim.c_str(), 0755), 0);
  write_file(victim + "/passwd", "root:x:0:0\n");
  ASSERT_EQ(::symlink(victim.c_str(), (shared + "/planted").c_str()), 0);
  ASSERT_EQ(::lchown((shared + "/planted").c_str(), 65534, 65534), 0);
  for (const std::string& out : {shared + "/planted/passwd", shared + "/planted/new.txt",
                                 shared + "/planted/../victim/passwd"}) {
    SCOPED_TRACE(out);
    const CommandResult r = compare("-o " + out + " " + old_ + " " + new_);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.first_err_line(),
              "zerolab compare: -o: cannot write " + out + ": " + shared +
                  "/planted is a symbolic link another user made in a sticky directory others "
                  "may write (zerolab does not follow it; give the real path)");
  }
  EXPECT_EQ(read_file(victim + "/passwd"), "root:x:0:0\n");
  EXPECT_EQ(::access((victim + "/new.txt").c_str(), F_OK), -1);
  // The user's own link in the sticky directory, and a link in a private
  // directory: followed.
  ASSERT_EQ(::symlink(victim.c_str(), (shared + "/mine").c_str()), 0);
  EXPECT_EQ(compare("-o " + shared + "/mine/mine.txt " + old_ + " " + new_).code, 0);
  EXPECT_NE(read_file(victim + "/mine.txt").find("sec/op"), std::string::npos);
  ASSERT_EQ(::symlink(victim.c_str(), (dir_ + "/private").c_str()), 0);
  ASSERT_EQ(::lchown((dir_ + "/private").c_str(), 65534, 65534), 0);
  EXPECT_EQ(compare("-o " + dir_ + "/private/private.txt " + old_ + " " + new_).code, 0);
  EXPECT_NE(read_file(victim + "/private.txt").find("sec/op"), std::string::npos);
}

// B1: a benchmark binary checks -o before running anything.
TEST_F(OutputPaths, ABenchmarkBinaryChecksItsOutputBeforeRunning) {
  for (const std::string& bad : {dir_ + "/no/such/out.txt", dir_, std::string("/proc/version")}) {
    SCOPED_TRACE(bad);
    const CommandResult r = fixture("-o " + bad);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");  // nothing ran
    EXPECT_EQ(r.first_err_line().rfind("bench_fixture: -o: cannot write " + bad + ": ", 0), 0u)
        << r.err;
  }
  // "-o -" is stdout, printed once.
  const CommandResult r = fixture("-o -");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("PASS"), r.out.rfind("PASS"));
  EXPECT_EQ(::access((dir_ + "/-").c_str(), F_OK), -1);
}

// A5: with fd 1 closed, the profile does not receive the benchmark's text.
TEST_F(OutputPaths, AClosedStdoutDoesNotLandInAProfile) {
  const std::string profile = dir_ + "/cpu.out";
  const CommandResult r = fixture("-cpuprofile " + profile + " >&-");
  EXPECT_EQ(r.code, 1);  // the results could not be written
  EXPECT_EQ(r.first_err_line(), "bench_fixture: cannot write standard output: Bad file descriptor");
  const std::string bytes = read_file(profile);
  EXPECT_EQ(bytes.find("BenchmarkLoopCount"), std::string::npos);
  EXPECT_EQ(bytes.find("PASS"), std::string::npos);
}

// B9: --fail-on-regression with nothing to compare cannot pass.
TEST_F(OutputPaths, AGateWithNothingComparedIsExit1) {
  const CommandResult r = compare("--fail-on-regression " + new_);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.first_err_line(),
            "zerolab compare: --fail-on-regression: nothing was compared (no row has two columns), "
            "so the "
            "run could not be judged");
}

}  // namespace

namespace {

// A2: what zerolab reads whole has a size cap; an endless file is exit 2
// naming it, not an allocation failure.
TEST_F(OutputPaths, AnEndlessBaselineFileIsExit2NamingIt) {
  const std::string base = dir_ + "/baselines/z";
  ASSERT_EQ(::mkdir((dir_ + "/baselines").c_str(), 0777), 0);
  ASSERT_EQ(::mkdir(base.c_str(), 0777), 0);
  ASSERT_EQ(::symlink("/dev/zero", (base + "/manifest").c_str()), 0);
  const std::string lab =
      kCli + " lab merge --baseline z --baseline-dir " + dir_ + "/baselines -o " + dir_ + "/r";
  CommandResult r = zerolab::test::run(lab, dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(), "zerolab lab: cannot read " + base +
                                    "/manifest: not a regular file (a FIFO, socket or device)");
  ASSERT_EQ(::unlink((base + "/manifest").c_str()), 0);
  write_file(base + "/manifest", "format: 1\nname: z\nexperiment: merge 1\n");
  ASSERT_EQ(::symlink("/dev/zero", (base + "/merge.txt").c_str()), 0);
  r = zerolab::test::run(lab, dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(), "zerolab lab: cannot read " + base +
                                    "/merge.txt: not a regular file (a FIFO, socket or device)");
  // A FIFO manifest is refused at once, not waited on.
  ASSERT_EQ(::unlink((base + "/manifest").c_str()), 0);
  ASSERT_EQ(::mkfifo((base + "/manifest").c_str(), 0600), 0);
  r = zerolab::test::run("timeout 20 " + lab, dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.first_err_line(), "zerolab lab: cannot read " + base +
                                    "/manifest: not a regular file (a FIFO, socket or device)");
}

}  // namespace
