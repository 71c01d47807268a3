// `zerolab lab -o DIR` and the profile directories, through the real CLI
// (tools/zerolab/lab_output_dir.hpp): a rerun replaces the previous report
// whole (no stale results of experiments not run again), a directory that is
// not a lab report is refused with nothing created (no --cpuprofile
// directory either), -o equal to --memprofile keeps both, and a killed run's
// staging directory is removed by the next run. placed_path, which maps
// paths between -o's directory and its staging directory both ways, is
// checked on exact paths. Each run is one experiment,
// one iteration, without the Go peer: seconds. No test asserts a timing.
//
// Example:
//   ./lab_output_dir_test --gtest_filter='LabOutputDir.*'
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "lab/framework/directory_swap.hpp"
#include "lab_cli_util.hpp"

namespace {

using lab_test_util::Command;
using lab_test_util::exists;
using lab_test_util::read_file;
using zerolab::test::write_file;

const std::string kQuick = " --count 1 --benchtime 1x --go=off --no-store";

Command lab(const std::string& args, const std::string& dir) {
  return lab_test_util::run_cli(ZEROLAB_CLI, "lab " + args, dir);
}

// The names in `dir`, sorted.
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

TEST(LabOutputDir, ARerunReplacesThePreviousReportWhole) {
  const std::string dir = lab_test_util::temp_dir("zerolab_lab_output");
  const std::string out = dir + "/out";
  Command c = lab("merge" + kQuick + " -o " + out, dir);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(entries(out), (std::vector<std::string>{"merge.txt", "report.html", "report.md"}));
  EXPECT_NE(c.out.find("\nresults: " + out + "\n"), std::string::npos) << c.out;
  c = lab("arena" + kQuick + " -o " + out, dir);
  ASSERT_EQ(c.code, 0) << c.err;
  // merge.txt of the first run is gone with it: the report lists what is there.
  EXPECT_EQ(entries(out), (std::vector<std::string>{"arena.txt", "report.html", "report.md"}));
  EXPECT_NE(read_file(out + "/report.md").find("\n## arena: "), std::string::npos);
  EXPECT_EQ(read_file(out + "/report.md").find("\n## merge: "), std::string::npos);
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"out"}));  // no staging left
}

TEST(LabOutputDir, ADirectoryThatIsNotALabReportIsRefusedAndNothingIsCreated) {
  const std::string dir = lab_test_util::temp_dir("zerolab_lab_output");
  const std::string out = dir + "/mine";
  const std::string prof = dir + "/prof";
  ASSERT_EQ(::mkdir(out.c_str(), 0777), 0);
  write_file(out + "/data.csv", "1,2\n");
  Command c = lab("merge" + kQuick + " --cpuprofile " + prof + " -o " + out, dir);
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(
      c.err,
      "zerolab lab: flag -o: " + out +
          " is not empty and not a previous zerolab lab report, so it is not replaced (it holds "
          "\"data.csv\"); choose a new or empty directory\n");
  EXPECT_EQ(c.out, "");
  EXPECT_EQ(read_file(out + "/data.csv"), "1,2\n");
  EXPECT_FALSE(exists(prof));
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"mine"}));

  // Only names the lab writes, but no report.md of the lab: refused too.
  ASSERT_EQ(std::remove((out + "/data.csv").c_str()), 0);
  write_file(out + "/merge.txt", "kept\n");
  write_file(out + "/report.md", "# my notes\n");
  c = lab("merge" + kQuick + " -o " + out, dir);
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.err,
            "zerolab lab: flag -o: " + out +
                " is not empty and not a previous zerolab lab report, so it is not replaced (its "
                "report.md is missing or not the lab's); choose a new or empty directory\n");
  EXPECT_EQ(read_file(out + "/merge.txt"), "kept\n");
}

TEST(LabOutputDir, TheProfileDirectoryIsNotCreatedWhenOFails) {
  const std::string dir = lab_test_util::temp_dir("zerolab_lab_output");
  write_file(dir + "/file", "x");
  const Command c = lab("merge" + kQuick + " --cpuprofile " + dir + "/prof --memprofile " + dir +
                            "/mem -o " + dir + "/file/out",
                        dir);
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.err, "zerolab lab: flag -o: cannot use directory " + dir + "/file/out: " + dir +
                       "/file is not a directory\n");
  EXPECT_FALSE(exists(dir + "/prof"));
  EXPECT_FALSE(exists(dir + "/mem"));
}

TEST(LabOutputDir, OEqualToTheProfileDirectoryKeepsBoth) {
  const std::string dir = lab_test_util::temp_dir("zerolab_lab_output");
  const std::string out = dir + "/out";
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // No --memprofile in sanitizer builds: the CPU profile goes into -o.
  const std::string flags = " --cpuprofile " + out;
  const std::vector<std::string> want{"merge.cpu.prof", "merge.txt", "report.html", "report.md"};
#else
  // The allocation profile into -o itself, the CPU profile into a folder of it.
  const std::string flags = " --memprofile " + out + " --cpuprofile " + out + "/cpu";
  const std::vector<std::string> want{"cpu", "merge.mem.prof", "merge.txt", "report.html",
                                      "report.md"};
#endif
  for (int run = 0; run < 2; ++run) {  // the second replaces the first's report, profiles included
    const Command c = lab("merge" + kQuick + " -o " + out + flags, dir);
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_EQ(entries(out), want) << run;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    EXPECT_EQ(entries(out + "/cpu"), (std::vector<std::string>{"merge.cpu.prof"}));
    // pprof's format since -memprofile moved to the pprof writer: gzipped profile.proto.
    EXPECT_EQ(read_file(out + "/merge.mem.prof").rfind("\x1f\x8b", 0), 0u);
#endif
  }
}

TEST(LabOutputDir, AKilledRunsStagingDirectoryIsRemovedByTheNextRun) {
  const std::string dir = lab_test_util::temp_dir("zerolab_lab_output");
  const std::string out = dir + "/out";
  // A process that is gone: its pid names the leftover staging directory.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  const std::string leftover = out + "+tmp." + std::to_string(child);
  ASSERT_EQ(::mkdir(leftover.c_str(), 0777), 0);
  write_file(leftover + "/merge.txt", "half a run\n");
  const Command c = lab("merge" + kQuick + " -o " + out, dir);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_FALSE(exists(leftover));
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"out"}));
}

// A path, or a message naming paths, and what it reads once directory
// `from` has moved to `to`.
struct MoveCase {
  const char* text;
  const char* from;
  const char* to;
  const char* want;
};

template <typename Move, std::size_t N>
void expect_moves(Move move, const MoveCase (&cases)[N]) {
  for (const MoveCase& c : cases) {
    EXPECT_EQ(move(c.text, c.from, c.to), c.want) << c.text << " from " << c.from << " to " << c.to;
  }
}

// The one mapping between a directory and its staging directory, both ways:
// the stored baseline's path (staging -> -o) and a profile directory inside
// -o (-o -> staging).
TEST(LabOutputDir, PlacedPathMapsPathsInsideTheMovedDirectoryOnly) {
  const MoveCase cases[] = {
      {"r+tmp.42/baseline/main", "r+tmp.42", "r", "r/baseline/main"},
      {"r+tmp.42", "r+tmp.42", "r", "r"},
      {"r+tmp.42/", "r+tmp.42", "r", "r"},
      // Trailing slashes of either directory are not part of its name.
      {"r+tmp.42/baseline/main", "r+tmp.42/", "r/", "r/baseline/main"},
      {"r+tmp.42//baseline", "r+tmp.42//", "r//", "r/baseline"},
      // Relative and absolute, either way round.
      {"out/cpu", "out", "out+tmp.7", "out+tmp.7/cpu"},
      {"/a/out/cpu/x", "/a/out", "/a/out+tmp.7", "/a/out+tmp.7/cpu/x"},
      {"/a/out/cpu", "/a/out", "out", "out/cpu"},
      {"/x/y", "/", "/b", "/b/x/y"},
      {"x", "/", "/b", "x"},  // relative: not under "/" as spelled
      {"/x", "/x", "/", "/"},
      {"/x/y", "/x", "/", "/y"},
      {"d/f", "d", "", "./f"},
      // Not inside: a sibling whose name starts the same, a parent, another tree.
      {"r+tmp.420/baseline", "r+tmp.42", "r", "r+tmp.420/baseline"},
      {"out+tmp.7/cpu", "out", "x", "out+tmp.7/cpu"},
      {"r", "r+tmp.42", "r", "r"},
      {"/a/out", "out", "x", "/a/out"},
      {"out", "", "x", "out"},
  };
  expect_moves(zerolab::lab::placed_path, cases);
}

// placed_in_text moves every path inside `from` that a message names, and
// only paths: a longer directory name or a path ending in `from` stays.
TEST(LabOutputDir, PlacedInTextMovesThePathsAMessageNames) {
  const MoveCase cases[] = {
      {"/a/r+tmp.7/x.txt: this run has no results", "/a/r+tmp.7", "/a/r",
       "/a/r/x.txt: this run has no results"},
      {"cannot compare /a/r+tmp.7/x.txt with /b/x.txt: e", "/a/r+tmp.7/", "/a/r",
       "cannot compare /a/r/x.txt with /b/x.txt: e"},
      {"\"r+tmp.7/a\" and (r+tmp.7/b) `r+tmp.7/c`", "r+tmp.7", "r", "\"r/a\" and (r/b) `r/c`"},
      {"/z/a/r/x and a/r/y and /a/r", "/a/r", "/q", "/z/a/r/x and a/r/y and /a/r"},
      {"/a/r+tmp.70/x", "/a/r+tmp.7", "/a/r", "/a/r+tmp.70/x"},
      {"d/f", "d", "", "./f"},
      {"d/f", "", "x", "d/f"},
  };
  expect_moves(zerolab::lab::placed_in_text, cases);
}

// A relative -o with a trailing slash and a profile directory inside it,
// spelled differently ("./out/cpu"): the profiles land in the new out/cpu,
// nothing is left beside it, and the run is named where it is.
TEST(LabOutputDir, ARelativeOWithATrailingSlashKeepsItsProfileDirectory) {
  const std::string dir = lab_test_util::temp_dir("zerolab_lab_output");
  const Command c = zerolab::test::run("cd " + dir + " && " + ZEROLAB_CLI + " lab merge" + kQuick +
                                           " -o out/ --cpuprofile ./out/cpu",
                                       dir);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.out.find("\nresults: out\n"), std::string::npos) << c.out;
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"out"}));
  EXPECT_EQ(entries(dir + "/out"),
            (std::vector<std::string>{"cpu", "merge.txt", "report.html", "report.md"}));
  EXPECT_EQ(entries(dir + "/out/cpu"), (std::vector<std::string>{"merge.cpu.prof"}));
}

}  // namespace
