// End-to-end tests of `zerolab waste`: the fixture programs
// (tests/waste/waste_fixture.c, waste_fixture_cpp.cpp) waste known bytes in
// known calls at marked lines; the report must say exactly that. Every run
// uses --sample-rate 1 --check-rate 1, where sites and zeroed zeros are
// exact too.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace {

using nlohmann::json;

struct CliRun {
  int status = -1;  // raw wait status
  std::string out;
  std::string err;
  int code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

using zerolab::test::read_file;

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

class WasteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/zerolab_waste_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  // `zerolab waste ARGS`, stdout and stderr captured (stdin from /dev/null).
  // Runs `zerolab waste ARGS` through sh, after `shell_prefix` (e.g. a ulimit).
  CliRun waste(const std::string& args, const std::string& redirect_out = "",
               const std::string& shell_prefix = "") {
    const std::string out = dir_ + "/cli.out";
    const std::string err = dir_ + "/cli.err";
    // The machine's costs are kept in the test's own cache directory.
    const std::string line = "export XDG_CACHE_HOME=" + dir_ + "/cache; " + shell_prefix + "exec " +
                             std::string(ZEROLAB_CLI) + " waste " + args + " </dev/null >" +
                             (redirect_out.empty() ? out : redirect_out) + " 2>" + err;
    CliRun r;
    r.status = std::system(line.c_str());
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  // The JSON report of `zerolab waste --format json -o FILE FLAGS -- fixture_args`.
  json waste_json(const std::string& fixture_args, int expected_code = 0,
                  const std::string& flags = "--sample-rate 1 --check-rate 1") {
    const std::string report = dir_ + "/report.json";
    unlink(report.c_str());
    const CliRun r = waste("--format json -o " + report + " " + flags + " -- " + fixture_args);
    EXPECT_EQ(r.code(), expected_code) << r.err;
    return json::parse(read_file(report));
  }

  std::string dir_;
};

// The line of code marked `// SITE:name` in a fixture source (comment-only
// lines, such as the header's table, do not count).
int site_line(const std::string& source, const std::string& name) {
  const std::string marker = "// SITE:" + name;
  std::ifstream in(source);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::size_t code = line.find_first_not_of(' ');
    if (code == std::string::npos || line.compare(code, 2, "//") == 0) continue;
    if (line.size() >= marker.size() &&
        line.compare(line.size() - marker.size(), marker.size(), marker) == 0) {
      return n;
    }
  }
  ADD_FAILURE() << "no " << marker << " in " << source;
  return -1;
}

const json* finding(const json& report, const std::string& kind) {
  for (const json& f : report["findings"]) {
    if (f["kind"] == kind) return &f;
  }
  return nullptr;
}

std::string base(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

// The site at `line` of `source` in finding `f`.
const json* site_at(const json& f, const std::string& source, int line) {
  for (const json& s : f["sites"]) {
    if (base(s["file"]) == base(source) && s["line"] == line) return &s;
  }
  return nullptr;
}

// Zeroed fresh pages: one call over 1 MiB, at `site` of waste_fixture.c alone.
void expect_one_fresh_megabyte(const json& r, const std::string& site) {
  const json* fresh = finding(r, "zeroed-fresh-pages");
  ASSERT_NE(fresh, nullptr) << r.dump(1);
  EXPECT_EQ((*fresh)["calls"], 1);
  EXPECT_EQ((*fresh)["bytes"], 1048576);
  ASSERT_EQ((*fresh)["sites"].size(), 1u);
  EXPECT_EQ((*fresh)["sites"][0]["line"], site_line(WASTE_FIXTURE_SOURCE, site));
}

// What `waste_fixture all` wastes (see its header), times `times`.
void expect_all_kinds(const json& r, int times = 1, int extra_temporaries = 0,
                      int extra_temp_bytes = 0) {
  const std::string src = WASTE_FIXTURE_SOURCE;
  const json* fresh = finding(r, "zeroed-fresh-pages");
  ASSERT_NE(fresh, nullptr) << r.dump(1);
  EXPECT_EQ((*fresh)["bytes"], 1048576 * times);
  EXPECT_EQ((*fresh)["calls"], times);
  EXPECT_EQ((*fresh)["pages"], 256 * times);
  EXPECT_EQ((*fresh)["exact"], true);
  ASSERT_FALSE((*fresh)["sites"].empty());
  EXPECT_EQ(base((*fresh)["sites"][0]["file"]), "waste_fixture.c");
  EXPECT_EQ((*fresh)["sites"][0]["line"], site_line(src, "fresh"));
  EXPECT_EQ((*fresh)["sites"][0]["function"], "waste_all");

  const json* zeros = finding(r, "zeroed-zeros");
  ASSERT_NE(zeros, nullptr);
  EXPECT_EQ((*zeros)["bytes"], 1000 * times);
  EXPECT_EQ((*zeros)["calls"], times);
  EXPECT_EQ((*zeros)["exact"], true);
  ASSERT_EQ((*zeros)["sites"].size(), 1U);
  EXPECT_EQ((*zeros)["sites"][0]["line"], site_line(src, "zeros"));

  // The loop's 1000 blocks; not the 256 KiB block, alone in its size class
  // (a block allocated once is no temporary, however short its life).
  const json* temp = finding(r, "temporary-allocations");
  ASSERT_NE(temp, nullptr);
  EXPECT_EQ((*temp)["calls"], 1000 * times + extra_temporaries);
  EXPECT_EQ((*temp)["bytes"], 60000 * times + extra_temp_bytes);
  const json* loop = site_at(*temp, src, site_line(src, "temp"));
  ASSERT_NE(loop, nullptr) << temp->dump(1);
  EXPECT_EQ((*loop)["calls"], 1000 * times);
  EXPECT_EQ((*loop)["bytes"], 60000 * times);

  // The second definition: the same blocks; not the 1000-byte block, which
  // lived through the loop's 2000 allocations and frees.
  const json* in_frame = finding(r, "temporary-allocations-in-frame");
  ASSERT_NE(in_frame, nullptr);
  EXPECT_EQ((*in_frame)["calls"], 1000 * times + extra_temporaries);
  EXPECT_EQ((*in_frame)["bytes"], 60000 * times + extra_temp_bytes);
  EXPECT_EQ((*in_frame)["exact"], true);
  EXPECT_EQ(site_at(*in_frame, src, site_line(src, "zeros_block")), nullptr);
  EXPECT_EQ(site_at(*temp, src, site_line(src, "zeros_block")), nullptr);

  const json* over = finding(r, "oversized-buffers");
  ASSERT_NE(over, nullptr);
  EXPECT_EQ((*over)["calls"], times);
  EXPECT_EQ((*over)["bytes"], 262144 * times);
  EXPECT_EQ((*over)["touched_bytes"], 4080 * times);  // the first page: glibc's header is on it
  ASSERT_EQ((*over)["sites"].size(), 1U);
  EXPECT_EQ((*over)["sites"][0]["line"], site_line(src, "oversized"));

  const json* copies = finding(r, "user-space-copies");
  ASSERT_NE(copies, nullptr);
  EXPECT_EQ((*copies)["bytes"], 4096 * times);
  EXPECT_EQ((*copies)["calls"], times);
  ASSERT_EQ((*copies)["pairs"].size(), 1U);
  EXPECT_EQ((*copies)["pairs"][0]["source"], "file");
  EXPECT_EQ((*copies)["pairs"][0]["destination"], "pipe");
  EXPECT_EQ((*copies)["pairs"][0]["copy_fd_path"], "sendfile");
  ASSERT_EQ((*copies)["sites"].size(), 1U);
  EXPECT_EQ((*copies)["sites"][0]["line"], site_line(src, "copy"));
  EXPECT_EQ((*copies)["sites"][0]["source"], "file");
}

TEST_F(WasteTest, EveryKindExactly) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " all");
  EXPECT_EQ(r["program"], WASTE_FIXTURE);
  EXPECT_EQ(r["arguments"], json::array({"all"}));
  EXPECT_EQ(r["exit_status"], 0);
  EXPECT_TRUE(r["signal"].is_null());
  EXPECT_EQ(r["processes"], 1);
  EXPECT_EQ(r["findings"].size(), 6U);
  expect_all_kinds(r);
  for (const json& f : r["findings"]) {
    EXPECT_GT(f["estimated_seconds"].get<double>(), 0) << f["kind"];
    EXPECT_FALSE(f["fix"].get<std::string>().empty());
  }
  // Ranked by estimated time, then bytes.
  for (std::size_t i = 1; i < r["findings"].size(); ++i) {
    EXPECT_GE(r["findings"][i - 1]["estimated_seconds"].get<double>(),
              r["findings"][i]["estimated_seconds"].get<double>());
  }
}

TEST_F(WasteTest, ThreadsCountEveryTemporary) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " threads");
  const json* temp = finding(r, "temporary-allocations");
  ASSERT_NE(temp, nullptr);
  EXPECT_EQ((*temp)["calls"], 4000);
  EXPECT_EQ((*temp)["bytes"], 240000);
  ASSERT_EQ((*temp)["sites"].size(), 1U);
  EXPECT_EQ((*temp)["sites"][0]["function"], "thread_main");
  EXPECT_EQ((*temp)["sites"][0]["line"], site_line(WASTE_FIXTURE_SOURCE, "thread-temp"));
  EXPECT_EQ((*temp)["sites"][0]["calls"], 4000);
  const json* in_frame = finding(r, "temporary-allocations-in-frame");
  ASSERT_NE(in_frame, nullptr);
  EXPECT_EQ((*in_frame)["calls"], 4000);  // each thread judged on its own stack
  EXPECT_EQ((*in_frame)["bytes"], 240000);
}

TEST_F(WasteTest, TwoDefinitionsOfTemporary) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " frames");
  const std::string src = WASTE_FIXTURE_SOURCE;
  // Freed before the thread's next allocation: q and make_block's block
  // (nothing allocated before its free); not p (q came after it).
  const json* temp = finding(r, "temporary-allocations");
  ASSERT_NE(temp, nullptr) << r.dump(1);
  EXPECT_EQ((*temp)["calls"], 110);
  EXPECT_EQ((*temp)["bytes"], 100 * 50 + 10 * 70);
  ASSERT_NE(site_at(*temp, src, site_line(src, "frame_q")), nullptr);
  EXPECT_EQ((*site_at(*temp, src, site_line(src, "frame_q")))["calls"], 100);
  ASSERT_NE(site_at(*temp, src, site_line(src, "made")), nullptr);
  EXPECT_EQ((*site_at(*temp, src, site_line(src, "made")))["calls"], 10);
  EXPECT_EQ(site_at(*temp, src, site_line(src, "frame_p")), nullptr);
  // In the allocating frame: p and q (frames() was running at both frees),
  // not make_block's (make_block had returned).
  const json* in_frame = finding(r, "temporary-allocations-in-frame");
  ASSERT_NE(in_frame, nullptr);
  EXPECT_EQ((*in_frame)["calls"], 200);
  EXPECT_EQ((*in_frame)["bytes"], 100 * 40 + 100 * 50);
  ASSERT_EQ((*in_frame)["sites"].size(), 2U) << in_frame->dump(1);
  ASSERT_NE(site_at(*in_frame, src, site_line(src, "frame_p")), nullptr);
  EXPECT_EQ((*site_at(*in_frame, src, site_line(src, "frame_p")))["bytes"], 4000);
  ASSERT_NE(site_at(*in_frame, src, site_line(src, "frame_q")), nullptr);
  EXPECT_EQ((*site_at(*in_frame, src, site_line(src, "frame_q")))["bytes"], 5000);
  EXPECT_EQ(site_at(*in_frame, src, site_line(src, "made")), nullptr);
}

// A program without waste: a hash table that lives through the whole
// computation and a work buffer used once are no temporaries of either
// definition (the last node freed before any other allocation, the work
// buffer, and every node freed in main's frame used to count).
TEST_F(WasteTest, LongLivedBuffersAreNoTemporaries) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " longlived");
  EXPECT_EQ(r["exit_status"], 0);
  EXPECT_EQ(finding(r, "temporary-allocations"), nullptr) << r.dump(1);
  EXPECT_EQ(finding(r, "temporary-allocations-in-frame"), nullptr) << r.dump(1);
}

// Exact mode counts every temporary in its frame however many blocks are
// live: 100000 live blocks did not leave room for them in a table of the
// live sampled blocks (512), which kept 511 and counted a handful.
TEST_F(WasteTest, InFrameTemporariesAreExactWithManyLiveBlocks) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " manylive");
  EXPECT_EQ(r["exit_status"], 0);
  const json* in_frame = finding(r, "temporary-allocations-in-frame");
  ASSERT_NE(in_frame, nullptr) << r.dump(1);
  EXPECT_EQ((*in_frame)["calls"], 1000);
  EXPECT_EQ((*in_frame)["bytes"], 60000);
  EXPECT_EQ((*in_frame)["exact"], true);
  ASSERT_EQ((*in_frame)["sites"].size(), 1U) << in_frame->dump(1);
  const std::string src = WASTE_FIXTURE_SOURCE;
  EXPECT_NE(site_at(*in_frame, src, site_line(src, "manylive")), nullptr) << in_frame->dump(1);
  for (const json& n : r["notes"]) {
    EXPECT_EQ(n.get<std::string>().find("not tracked"), std::string::npos) << n;
  }
}

TEST_F(WasteTest, ForkAndExecAreFollowed) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " fork");
  EXPECT_EQ(r["processes"], 3);  // parent, forked child, the image it executes
  expect_all_kinds(r, 1, 30, 30 * 32);
  const json* fork_site = site_at(*finding(r, "temporary-allocations"), WASTE_FIXTURE_SOURCE,
                                  site_line(WASTE_FIXTURE_SOURCE, "fork-temp"));
  ASSERT_NE(fork_site, nullptr);
  EXPECT_EQ((*fork_site)["calls"], 30);
}

// A site in a library loaded after the preload read the mappings is named
// by that library: a new site whose addresses the snapshot does not hold
// makes the preload read the mappings again.
TEST_F(WasteTest, SitesInLibrariesLoadedLaterAreNamedByTheirLibrary) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " dlopen " + WASTE_FIXTURE_LIB_A + " " +
                            WASTE_FIXTURE_LIB_B);
  EXPECT_EQ(r["exit_status"], 0);
  const json* temp = finding(r, "temporary-allocations");
  ASSERT_NE(temp, nullptr) << r.dump(1);
  EXPECT_EQ((*temp)["calls"], 10 + 100 + 50);
  const std::string lib = WASTE_FIXTURE_LIB_SOURCE;
  int a = 0;
  int b = 0;
  for (const json& s : (*temp)["sites"]) {
    if (base(s["file"]) != base(lib)) continue;
    EXPECT_EQ(s["line"], site_line(lib, "lib-temp"));
    if (s["function"] == "waste_lib_a") a += s["calls"].get<int>();
    if (s["function"] == "waste_lib_b") b += s["calls"].get<int>();
  }
  EXPECT_EQ(a, 100) << temp->dump(1);
  EXPECT_EQ(b, 50) << temp->dump(1);
}

TEST_F(WasteTest, NoFollowStopsAtExec) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " fork", 0, "--sample-rate 1 --no-follow");
  EXPECT_EQ(r["processes"], 2);  // the forked child is still the same image
  ASSERT_EQ(r["findings"].size(), 2U);
  EXPECT_EQ((*finding(r, "temporary-allocations"))["calls"], 30);
  EXPECT_EQ((*finding(r, "temporary-allocations-in-frame"))["calls"], 30);
}

// A child started with an environment that drops the preload is named in
// the report (pid and command), not silently missing.
TEST_F(WasteTest, ChildrenThatLostThePreloadAreListed) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " dropenv");
  EXPECT_EQ(r["exit_status"], 0);
  EXPECT_EQ(r["processes"], 2);  // the parent and its fork; not the image the fork executes
  ASSERT_EQ(r["unrecorded_children"].size(), 1U) << r.dump(1);
  EXPECT_EQ(r["unrecorded_children"][0]["command"], std::string(WASTE_FIXTURE) + " clean");
  EXPECT_GT(r["unrecorded_children"][0]["pid"].get<long>(), 0);
  bool noted = false;
  for (const json& n : r["notes"]) {
    noted = noted || n.get<std::string>().find("ran without the preload") != std::string::npos;
  }
  EXPECT_TRUE(noted) << r["notes"].dump();
  // Children that keep the environment are recorded, not listed.
  const json followed = waste_json(std::string(WASTE_FIXTURE) + " fork");
  EXPECT_EQ(followed["unrecorded_children"], json::array());
}

// What the preload cannot see is said in every report, with the way to see it.
TEST_F(WasteTest, BlindSpotsAreSaid) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " clean");
  const std::string spots = r["blind_spots"].dump();
  EXPECT_NE(spots.find("-fno-builtin-memset"), std::string::npos) << spots;
  EXPECT_NE(spots.find("zerolab::zero_fill"), std::string::npos) << spots;
  EXPECT_NE(spots.find("fgets, getline"), std::string::npos) << spots;
  const CliRun text = waste("-- " + std::string(WASTE_FIXTURE) + " clean");
  EXPECT_NE(text.err.find("not seen by zerolab waste:"), std::string::npos) << text.err;
}

TEST_F(WasteTest, VforkAndExec) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " vfork");
  EXPECT_EQ(r["processes"], 2);
  expect_all_kinds(r);
}

TEST_F(WasteTest, UnderscoreExitKeepsCountsAndStatus) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " exit", 7);
  EXPECT_EQ(r["exit_status"], 7);
  expect_all_kinds(r);
}

TEST_F(WasteTest, SignalDeathIsReportedAndPassedOn) {
  const std::string report = dir_ + "/report.json";
  const CliRun run = waste("--format json -o " + report + " --sample-rate 1 --check-rate 1 -- " +
                           std::string(WASTE_FIXTURE) + " kill");
  ASSERT_TRUE(WIFSIGNALED(run.status)) << run.status;
  EXPECT_EQ(WTERMSIG(run.status), SIGKILL);
  const json r = json::parse(read_file(report));
  EXPECT_EQ(r["signal"], "SIGKILL");
  EXPECT_EQ(r["exit_status"], 128 + SIGKILL);
  expect_all_kinds(r);
}

// zerolab waste started with stderr closed (2>&-): the report, which goes
// to stderr, is discarded as 2>/dev/null would discard it, and the status is
// the program's, 0 or not; with -o the report is written as ever.
TEST_F(WasteTest, ClosedStderrKeepsTheProgramsStatus) {
  const std::string out = dir_ + "/out";
  const std::string report = dir_ + "/report.txt";
  auto closed = [&](const std::string& args) {
    const std::string line = "export XDG_CACHE_HOME=" + dir_ + "/cache; exec " +
                             std::string(ZEROLAB_CLI) + " waste " + args + " </dev/null >" + out +
                             " 2>&-";
    const int status = std::system(line.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(closed("-- " + std::string(WASTE_FIXTURE) + " all"), 0);
  EXPECT_EQ(closed("-- " + std::string(WASTE_FIXTURE) + " exit"), 7);
  EXPECT_EQ(closed("-- " + std::string(WASTE_FIXTURE) + " clean"), 0);
  EXPECT_EQ(read_file(out), "");
  EXPECT_EQ(closed("--fail-on any=1 -- " + std::string(WASTE_FIXTURE) + " all"), 3);
  EXPECT_EQ(closed("-o " + report + " -- " + std::string(WASTE_FIXTURE) + " exit"), 7);
  EXPECT_NE(read_file(report).find("zeroed-fresh-pages"), std::string::npos) << read_file(report);
}

TEST_F(WasteTest, ProgramThatClosesStdoutAndStderr) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " closefds");
  expect_all_kinds(r);
}

TEST_F(WasteTest, CleanProgramReportsNothing) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " clean");
  EXPECT_EQ(r["findings"], json::array());
  const CliRun text = waste("-- " + std::string(WASTE_FIXTURE) + " clean");
  EXPECT_EQ(text.code(), 0);
  EXPECT_NE(text.err.find("No waste found."), std::string::npos) << text.err;
  EXPECT_EQ(text.out, "");
}

// The report goes to stderr: the program's stdout holds exactly what the
// program wrote (`zerolab waste -- prog > out` must not corrupt `out`).
TEST_F(WasteTest, ReportNeverGoesToTheProgramsStdout) {
  for (const char* format : {"text", "json", "markdown"}) {
    const CliRun r =
        waste(std::string("--format ") + format + " -- " + std::string(WASTE_FIXTURE) + " stdout");
    EXPECT_EQ(r.code(), 0) << r.err;
    EXPECT_EQ(r.out, "the program's own output\n") << format;
    EXPECT_NE(r.err.find("temporary-allocations"), std::string::npos) << format << ": " << r.err;
  }
}

// A private file mapping put where a zeroed anonymous one was: its pages
// are the file's, not the kernel's zero page, so only the first fill counts
// (the preload's cache of anonymous mappings is not trusted past an munmap).
TEST_F(WasteTest, AFileMappedWhereAnAnonymousMappingWasIsNotFreshPages) {
  expect_one_fresh_megabyte(waste_json(std::string(WASTE_FIXTURE) + " remap " + dir_ + "/mapped"),
                            "remap_fresh");
}

// memset stores its value as an unsigned char: 0x100 fills with zeros.
TEST_F(WasteTest, AFillWithAValueWhoseLowByteIsZeroIsAZeroFill) {
  expect_one_fresh_megabyte(waste_json(std::string(WASTE_FIXTURE) + " wide"), "wide");
}

// The preload's own system calls (here pagemap read again after the program
// closed its descriptor) do not change the program's errno.
TEST_F(WasteTest, ErrnoIsThePrograms) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " errno");
  EXPECT_EQ(r["exit_status"], 0);
}

// A realloc that fails leaves the block with the program: its free is
// judged like any other (it was left out of the live table before).
TEST_F(WasteTest, AFailedReallocKeepsItsBlockJudged) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " failedrealloc");
  EXPECT_EQ(r["exit_status"], 0);
  const json* over = finding(r, "oversized-buffers");
  ASSERT_NE(over, nullptr) << r.dump(1);
  EXPECT_EQ((*over)["calls"], 1);
  EXPECT_EQ((*over)["bytes"], 262144);
  EXPECT_EQ((*over)["touched_bytes"], 4080);  // the first page: glibc's header is on it
  ASSERT_EQ((*over)["sites"].size(), 1U);
  EXPECT_EQ((*over)["sites"][0]["line"], site_line(WASTE_FIXTURE_SOURCE, "failed_realloc"));
}

// A filter that changes one byte in each 64 KiB chunk it passes on writes
// bytes it did not read: no copy (copy_fd would write the input unchanged).
// The same program without the change copies all 16 chunks.
TEST_F(WasteTest, AStreamWithOneByteChangedPerChunkIsNoCopy) {
  const json filtered = waste_json(std::string(WASTE_FIXTURE) + " filter " + dir_);
  EXPECT_EQ(filtered["exit_status"], 0);
  EXPECT_EQ(finding(filtered, "user-space-copies"), nullptr) << filtered.dump(1);
  const json copied = waste_json(std::string(WASTE_FIXTURE) + " cat " + dir_);
  const json* copies = finding(copied, "user-space-copies");
  ASSERT_NE(copies, nullptr) << copied.dump(1);
  EXPECT_EQ((*copies)["calls"], 16);
  EXPECT_EQ((*copies)["bytes"], 16 * 65536);
  ASSERT_EQ((*copies)["pairs"].size(), 1U);
  EXPECT_EQ((*copies)["pairs"][0]["source"], "file");
  EXPECT_EQ((*copies)["pairs"][0]["destination"], "file");
  ASSERT_EQ((*copies)["sites"].size(), 1U);
  EXPECT_EQ((*copies)["sites"][0]["line"], site_line(WASTE_FIXTURE_SOURCE, "cat"));
}

// fread then fwrite of the same bytes is a copy through user space too.
// (The fixture first runs `cat`'s read/write copy: 16 more of 64 KiB.)
TEST_F(WasteTest, StdioCopiesAreSeen) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " stdiocat " + dir_);
  const json* copies = finding(r, "user-space-copies");
  ASSERT_NE(copies, nullptr) << r.dump(1);
  EXPECT_EQ((*copies)["calls"], 32);
  EXPECT_EQ((*copies)["bytes"], 32 * 65536);
  const json* stdio =
      site_at(*copies, WASTE_FIXTURE_SOURCE, site_line(WASTE_FIXTURE_SOURCE, "stdiocat"));
  ASSERT_NE(stdio, nullptr) << copies->dump(1);
  EXPECT_EQ((*stdio)["calls"], 16);
  EXPECT_EQ((*stdio)["bytes"], 16 * 65536);
  EXPECT_EQ((*stdio)["source"], "file");
  EXPECT_EQ((*stdio)["destination"], "file");
}

// Zeroing zeros: dropping the memset is advised only where the allocator
// guarantees the zeros (the block calloc just returned); bytes that were
// zero by coincidence keep their memset.
TEST_F(WasteTest, ZeroedZerosSaysWhenDroppingTheMemsetIsSafe) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " calloczero");
  const std::string src = WASTE_FIXTURE_SOURCE;
  const json* zeros = finding(r, "zeroed-zeros");
  ASSERT_NE(zeros, nullptr) << r.dump(1);
  const json* safe = site_at(*zeros, src, site_line(src, "after_calloc"));
  ASSERT_NE(safe, nullptr) << zeros->dump(1);
  EXPECT_EQ((*safe)["safe_to_drop"], true);
  EXPECT_EQ((*safe)["bytes"], 1000);
  EXPECT_EQ((*safe)["fix"].get<std::string>().rfind("drop the memset: calloc", 0), 0U);
  const json* coincidence = site_at(*zeros, src, site_line(src, "coincidence"));
  ASSERT_NE(coincidence, nullptr) << zeros->dump(1);
  EXPECT_EQ((*coincidence)["safe_to_drop"], false);
  EXPECT_EQ((*coincidence)["fix"].get<std::string>().rfind("keep the memset", 0), 0U);
  EXPECT_EQ((*zeros)["fix"].get<std::string>().rfind("drop the memset", 0), std::string::npos);
  // waste_fixture all zeroes a malloc'd block twice: no allocator vouches for it.
  const json all = waste_json(std::string(WASTE_FIXTURE) + " all");
  const json* twice = finding(all, "zeroed-zeros");
  ASSERT_NE(twice, nullptr);
  EXPECT_EQ((*twice)["sites"][0]["safe_to_drop"], false);
  EXPECT_EQ((*twice)["fix"].get<std::string>().rfind("keep the memset", 0), 0U);
}

// Zero fills that look safe to drop and are not: the block calloc returned
// was freed and its address handed out again by malloc; the calloc block
// was written before the memset; one memset call zeroes calloc blocks and,
// once, a dirty malloc block. Each keeps its memset (each was "drop the
// memset: calloc returned this block zeroed").
TEST_F(WasteTest, ZeroFillsThatLookSafeAndAreNotKeepTheirMemset) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " callocholes");
  ASSERT_EQ(r["exit_status"], 0) << "the freed calloc block was not handed out again";
  const std::string src = WASTE_FIXTURE_SOURCE;
  const json* zeros = finding(r, "zeroed-zeros");
  ASSERT_NE(zeros, nullptr) << r.dump(1);
  for (const char* name : {"calloc_reused", "calloc_written", "mixed_clear"}) {
    const json* site = site_at(*zeros, src, site_line(src, name));
    ASSERT_NE(site, nullptr) << name << "\n" << zeros->dump(1);
    EXPECT_EQ((*site)["safe_to_drop"], false) << name;
    EXPECT_EQ((*site)["fix"].get<std::string>().rfind("keep the memset", 0), 0U) << name;
  }
  EXPECT_EQ((*zeros)["fix"].get<std::string>().rfind("keep the memset", 0), 0U);
  // The mixed call's zero hits are the two calloc blocks: 6000 bytes.
  EXPECT_EQ((*site_at(*zeros, src, site_line(src, "mixed_clear")))["bytes"], 6000);
}

// zerolab::PageHeap is a zeroing allocator: a memset over a span it handed
// out zeroed is safe to drop, over its fresh pages and over a reused span it
// zeroed itself; over a span handed out without zeroing it is kept.
TEST_F(WasteTest, PageHeapSpansAreKnownZero) {
  if (std::string(WASTE_PAGE_HEAP_FIXTURE).empty()) {
    GTEST_SKIP() << "the PageHeap fixture is built only without sanitizers";
  }
  const json r = waste_json(WASTE_PAGE_HEAP_FIXTURE);
  ASSERT_EQ(r["exit_status"], 0) << "the span was not reused";
  const std::string src = WASTE_PAGE_HEAP_FIXTURE_SOURCE;
  const json* fresh = finding(r, "zeroed-fresh-pages");
  ASSERT_NE(fresh, nullptr) << r.dump(1);
  const json* heap_fresh = site_at(*fresh, src, site_line(src, "heap_fresh"));
  ASSERT_NE(heap_fresh, nullptr) << fresh->dump(1);
  EXPECT_EQ((*heap_fresh)["bytes"], 256 << 10);
  EXPECT_EQ((*heap_fresh)["safe_to_drop"], true);
  EXPECT_EQ((*heap_fresh)["fix"].get<std::string>().rfind("drop the memset: zerolab::PageHeap", 0),
            0U);
  const json* zeros = finding(r, "zeroed-zeros");
  ASSERT_NE(zeros, nullptr) << r.dump(1);
  const json* reused = site_at(*zeros, src, site_line(src, "heap_reused"));
  ASSERT_NE(reused, nullptr) << zeros->dump(1);
  EXPECT_EQ((*reused)["bytes"], 256 << 10);
  EXPECT_EQ((*reused)["safe_to_drop"], true);
  const json* dirty = site_at(*zeros, src, site_line(src, "heap_dirty"));
  ASSERT_NE(dirty, nullptr) << zeros->dump(1);
  EXPECT_EQ((*dirty)["safe_to_drop"], false);
  // Only these two memsets are safe: PageHeap's own zeroing of the reused
  // span is not (it ran over the dirty span).
  for (const json& s : (*zeros)["sites"]) {
    if (s["safe_to_drop"] == true) {
      EXPECT_EQ(s["line"], site_line(src, "heap_reused")) << s.dump();
    }
  }
}

// zerolab::zero_fill is seen as memset is: 11 fills of the same 1000
// bytes, the last 10 over zeros (the report said "No waste found" before:
// zero_fill's stores are its own). Its inline fills of 64 bytes or less are
// not seen.
TEST_F(WasteTest, ZeroFillIsSeen) {
  if (std::string(WASTE_PAGE_HEAP_FIXTURE).empty()) {
    GTEST_SKIP() << "the zerolab::mem fixture is built only without sanitizers";
  }
  const json r = waste_json(std::string(WASTE_PAGE_HEAP_FIXTURE) + " zerofill");
  ASSERT_EQ(r["exit_status"], 0);
  const json* zeros = finding(r, "zeroed-zeros");
  ASSERT_NE(zeros, nullptr) << r.dump(1);
  EXPECT_EQ((*zeros)["calls"], 10);
  EXPECT_EQ((*zeros)["bytes"], 10000);
  const std::string src = WASTE_PAGE_HEAP_FIXTURE_SOURCE;
  const json* site = site_at(*zeros, src, site_line(src, "zero_fill"));
  ASSERT_NE(site, nullptr) << zeros->dump(1);
  EXPECT_EQ((*site)["safe_to_drop"], false);
}

// zero_fill's one-time setup (its settings, the machine profile's read) is
// zerolab's work: no finding of a program that calls zero_fill names a site
// in it (its string temporaries were in-frame temporaries).
TEST_F(WasteTest, ZeroFillSetupIsNotTheProgramsWaste) {
  if (std::string(WASTE_PAGE_HEAP_FIXTURE).empty()) {
    GTEST_SKIP() << "the zerolab::mem fixture is built only without sanitizers";
  }
  const json r = waste_json(std::string(WASTE_PAGE_HEAP_FIXTURE) + " zerofill");
  ASSERT_EQ(r["exit_status"], 0);
  EXPECT_EQ(finding(r, "temporary-allocations-in-frame"), nullptr) << r.dump(1);
  EXPECT_EQ(finding(r, "temporary-allocations"), nullptr) << r.dump(1);
  for (const json& f : r["findings"]) {
    for (const json& s : f["sites"]) {
      const std::string file = s["file"].is_string() ? s["file"].get<std::string>() : "";
      EXPECT_EQ(file.find("/src/mem/"), std::string::npos) << f["kind"] << " " << s.dump();
      EXPECT_EQ(file.find("/src/machine/"), std::string::npos) << f["kind"] << " " << s.dump();
    }
  }
}

TEST_F(WasteTest, CppVectorZeroesFreshPages) {
  const json r = waste_json(std::string(WASTE_FIXTURE_CPP) + " vector");
  const int line = site_line(WASTE_FIXTURE_CPP_SOURCE, "vector");
  const json* fresh = finding(r, "zeroed-fresh-pages");
  ASSERT_NE(fresh, nullptr);
  // glibc maps the block: its first page holds the chunk header (touched);
  // libstdc++ writes element 0 and fills the other 1048575 bytes.
  EXPECT_EQ((*fresh)["bytes"], 1048576 - 4080);
  EXPECT_EQ((*fresh)["pages"], 256);
  EXPECT_EQ((*fresh)["calls"], 1);
  EXPECT_EQ((*fresh)["sites"][0]["function"], "main");
  EXPECT_EQ((*fresh)["sites"][0]["line"], line);
  const json* zeros = finding(r, "zeroed-zeros");
  ASSERT_NE(zeros, nullptr);
  EXPECT_EQ((*zeros)["bytes"], 4079);
  EXPECT_EQ((*zeros)["sites"][0]["line"], line);
}

TEST_F(WasteTest, CppStringTemporaries) {
  const json r = waste_json(std::string(WASTE_FIXTURE_CPP) + " strings");
  ASSERT_EQ(r["findings"].size(), 2U) << r.dump(1);
  // Both definitions agree; the site is main's line, not libstdc++'s or the
  // (-O0, not inlined) std::string constructor's frame from the headers.
  for (const char* kind : {"temporary-allocations", "temporary-allocations-in-frame"}) {
    const json* temp = finding(r, kind);
    ASSERT_NE(temp, nullptr) << kind;
    EXPECT_EQ((*temp)["calls"], 500) << kind;
    EXPECT_EQ((*temp)["bytes"], 500 * 61) << kind;
    ASSERT_EQ((*temp)["sites"].size(), 1U) << kind;
    EXPECT_EQ((*temp)["sites"][0]["function"], "main") << kind;
    EXPECT_EQ((*temp)["sites"][0]["line"], site_line(WASTE_FIXTURE_CPP_SOURCE, "strings")) << kind;
  }
}

TEST_F(WasteTest, CppFillOfZeros) {
  const json r = waste_json(std::string(WASTE_FIXTURE_CPP) + " fill");
  const json* zeros = finding(r, "zeroed-zeros");
  ASSERT_NE(zeros, nullptr) << r.dump(1);
  EXPECT_EQ((*zeros)["bytes"], 1000);
  EXPECT_EQ((*zeros)["calls"], 1);
  EXPECT_EQ((*zeros)["sites"][0]["line"], site_line(WASTE_FIXTURE_CPP_SOURCE, "fill"));
}

// The machine's costs are measured once and kept: the first run whose
// findings need them measures them and writes the cache file, the next
// prices its findings with the file's figures (whatever they are), and a
// file written under another kernel, or -recalibrate, is measured over.
// Under an address-space limit too small for the memory-sized buffer (four
// times the L3, at least 128 MiB), zeroing and copying are timed over the
// largest half that maps; the report says so and nothing is kept.
TEST_F(WasteTest, CostsTimedOverASmallerBufferSaySoAndAreNotKept) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer reserves more address space than the limit allows";
#endif
  const std::string report = dir_ + "/report.json";
  const CliRun r = waste("--format json -o " + report + " --sample-rate 1 --check-rate 1 -- " +
                             std::string(WASTE_FIXTURE) + " all",
                         "", "ulimit -v 60000; ");
  ASSERT_EQ(r.code(), 0) << r.err;
  const json j = json::parse(read_file(report));
  const json& c = j["calibration"];
  ASSERT_TRUE(c.contains("small_buffer_bytes")) << c.dump();
  const auto bytes = c["small_buffer_bytes"].get<std::uint64_t>();
  EXPECT_GE(bytes, std::uint64_t{8} << 20);
  EXPECT_LT(bytes, std::uint64_t{128} << 20);
  EXPECT_GT(c["zero_bytes_per_second"].get<double>(), 0);
  EXPECT_EQ(c["cached"], false);
  EXPECT_FALSE(exists(dir_ + "/cache/zerolab/waste-costs"));
  const std::string text = dir_ + "/report.txt";
  ASSERT_EQ(
      waste("-o " + text + " -- " + std::string(WASTE_FIXTURE) + " all", "", "ulimit -v 60000; ")
          .code(),
      0);
  EXPECT_NE(read_file(text).find("(zeroing and copying timed over only "), std::string::npos)
      << read_file(text);
}

TEST_F(WasteTest, MachineCostsAreKeptAndMeasuredAgainOnAnotherKernel) {
  const std::string cache = dir_ + "/cache/zerolab/waste-costs";
  const std::string program = std::string(WASTE_FIXTURE) + " all";
  const json first = waste_json(program);
  EXPECT_EQ(first["calibration"]["cached"], false);
  ASSERT_TRUE(exists(cache));
  const std::string text = read_file(cache);
  utsname u{};
  ASSERT_EQ(uname(&u), 0);
  const std::string kernel_line = std::string("\nkernel ") + u.release + "\n";
  EXPECT_EQ(text.rfind("zerolab-waste-costs 1\ncpu ", 0), 0u) << text;
  EXPECT_NE(text.find(kernel_line), std::string::npos) << text;
  const std::string measured = first["calibration"]["measured_at"];
  EXPECT_NE(text.find("\nmeasured " + measured + "\n"), std::string::npos) << text;
  ASSERT_NE(text.find("\nzero-bytes-per-second "), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 5), "\nend\n");

  // Figures no machine has: the next run is priced with them.
  const std::string chosen = text.substr(0, text.find("zero-bytes-per-second")) +
                             "zero-bytes-per-second 1000000000\nfault-seconds 0.001\n"
                             "malloc-free-seconds 1e-07\nlarge-block-seconds 2e-06\n"
                             "copy-bytes-per-second 500000000\nend\n";
  zerolab::test::write_file(cache, chosen);
  ASSERT_EQ(chmod(cache.c_str(), 0600), 0);
  const json second = waste_json(program);
  const json& c = second["calibration"];
  EXPECT_EQ(c["cached"], true);
  EXPECT_EQ(c["measured_at"], measured);
  EXPECT_EQ(c["zero_bytes_per_second"], 1e9);
  EXPECT_EQ(c["fault_seconds"], 0.001);
  EXPECT_EQ(c["malloc_free_seconds"], 1e-7);
  EXPECT_EQ(c["large_block_seconds"], 2e-6);
  EXPECT_EQ(c["copy_bytes_per_second"], 5e8);
  const json* fresh = finding(second, "zeroed-fresh-pages");
  ASSERT_NE(fresh, nullptr);
  EXPECT_DOUBLE_EQ((*fresh)["estimated_seconds"].get<double>(), 1048576 / 1e9 + 256 * 0.001);
  EXPECT_EQ(read_file(cache), chosen);  // read, not rewritten
  const std::string report = dir_ + "/report.txt";
  ASSERT_EQ(waste("-o " + report + " --sample-rate 1 -- " + program).code(), 0);
  EXPECT_NE(read_file(report).find("costs measured on this machine at " + measured + " (kept in " +
                                   cache +
                                   "; -recalibrate measures them again): zeroing 1.0 GB/s, "
                                   "page fault 1.0 ms"),
            std::string::npos)
      << read_file(report);

  // Written under another kernel: measured again, and the file is this machine's again.
  std::string other = chosen;
  other.replace(other.find(kernel_line), kernel_line.size(), "\nkernel 0.0.0-another\n");
  zerolab::test::write_file(cache, other);
  ASSERT_EQ(chmod(cache.c_str(), 0600), 0);
  const json third = waste_json(program);
  EXPECT_EQ(third["calibration"]["cached"], false);
  EXPECT_NE(third["calibration"]["fault_seconds"], 0.001);
  const std::string rewritten = read_file(cache);
  EXPECT_NE(rewritten.find(kernel_line), std::string::npos) << rewritten;
  EXPECT_EQ(rewritten.find("fault-seconds 0.001\n"), std::string::npos) << rewritten;

  // -recalibrate measures over a file that would do.
  zerolab::test::write_file(cache, chosen);
  ASSERT_EQ(chmod(cache.c_str(), 0600), 0);
  const json fourth = waste_json(program, 0, "--sample-rate 1 --check-rate 1 --recalibrate");
  EXPECT_EQ(fourth["calibration"]["cached"], false);
  EXPECT_NE(fourth["calibration"]["fault_seconds"], 0.001);
  EXPECT_EQ(read_file(cache).find("fault-seconds 0.001\n"), std::string::npos);

  // A program with nothing to price reads and writes nothing.
  ASSERT_EQ(unlink(cache.c_str()), 0);
  const json clean = waste_json(std::string(WASTE_FIXTURE) + " clean");
  EXPECT_TRUE(clean["calibration"]["measured_at"].is_null()) << clean["calibration"];
  EXPECT_FALSE(exists(cache));
}

// Exact mode is deterministic: the same program twice gives the same JSON,
// sites that tie on bytes and calls in the same order
// but for the times (wall time, calibration, estimated seconds, rates per
// second, and the ranking they make) and process ids.
TEST_F(WasteTest, ExactModeIsDeterministic) {
  // Estimated seconds sit in the findings, their stacks, call trees and the
  // per-process rows: dropped at every depth.
  std::function<void(json&)> drop_seconds = [&](json& j) {
    if (j.is_object()) {
      j.erase("estimated_seconds");
      j.erase("per_second");
    }
    if (j.is_object() || j.is_array()) {
      for (json& v : j) drop_seconds(v);
    }
  };
  auto without_times = [&](json r) {
    r.erase("wall_seconds");
    r.erase("calibration");
    drop_seconds(r["findings"]);
    drop_seconds(r["per_process"]);
    for (json& c : r["unrecorded_children"]) c.erase("pid");
    for (json& p : r["per_process"]) {
      p.erase("pid");
      p.erase("ppid");
      // Thread ids change; the threads' order follows their times, then
      // which started first.
      for (json& t : p["threads"]) t.erase("tid");
      std::sort(p["threads"].begin(), p["threads"].end(),
                [](const json& a, const json& b) { return a.dump() < b.dump(); });
    }
    // The ranking follows the estimated times: findings are compared by kind.
    std::sort(r["findings"].begin(), r["findings"].end(),
              [](const json& a, const json& b) { return a["kind"] < b["kind"]; });
    return r;
  };
  for (const char* mode : {" all", " fork", " threads", " frames", " calloczero", " callocholes"}) {
    const json first = without_times(waste_json(std::string(WASTE_FIXTURE) + mode));
    const json second = without_times(waste_json(std::string(WASTE_FIXTURE) + mode));
    EXPECT_EQ(first, second) << mode << "\n" << json::diff(first, second).dump(1);
    for (const json& f : first["findings"]) EXPECT_EQ(f["exact"], true) << mode << f["kind"];
  }
}

// Sampled figures say they are estimates, with their expected error, and
// no site is above its finding's total.
TEST_F(WasteTest, SampledFiguresAreLabelledAndBoundedByTheirTotal) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " threads", 0,
                            "--sample-rate 4096 --check-rate 4096");
  const json* temp = finding(r, "temporary-allocations");
  ASSERT_NE(temp, nullptr) << r.dump(1);
  EXPECT_EQ((*temp)["calls"], 4000);  // the total is exact at any rate
  EXPECT_EQ((*temp)["exact"], true);
  for (const json& f : r["findings"]) {
    double calls = 0;
    double bytes = 0;
    for (const json& s : f["sites"]) {
      EXPECT_LE(s["calls"].get<double>(), f["calls"].get<double>()) << f.dump(1);
      EXPECT_LE(s["bytes"].get<double>(), f["bytes"].get<double>()) << f.dump(1);
      calls += s["calls"].get<double>();
      bytes += s["bytes"].get<double>();
    }
    const auto rounding = static_cast<double>(f["sites"].size());  // each site rounds by < 1
    EXPECT_LE(calls, f["calls"].get<double>() + rounding) << f.dump(1);
    EXPECT_LE(bytes, f["bytes"].get<double>() + rounding) << f.dump(1);
  }
  for (const char* kind : {"temporary-allocations", "temporary-allocations-in-frame"}) {
    const json* f = finding(r, kind);
    ASSERT_NE(f, nullptr) << kind;
    for (const json& s : (*f)["sites"]) {
      EXPECT_GT(s["samples"].get<double>(), 0) << kind;
      EXPECT_GT(s["relative_error"].get<double>(), 0) << kind;
      EXPECT_LE(s["relative_error"].get<double>(), 1) << kind;
    }
  }
  const json* in_frame = finding(r, "temporary-allocations-in-frame");
  EXPECT_EQ((*in_frame)["exact"], false);
  EXPECT_GT((*in_frame)["samples"].get<double>(), 0);
  EXPECT_GT((*in_frame)["relative_error"].get<double>(), 0);
  const CliRun text = waste("--sample-rate 4096 -- " + std::string(WASTE_FIXTURE) + " threads");
  EXPECT_NE(text.err.find("samples, ±"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("top sites (estimates from samples"), std::string::npos) << text.err;
}

TEST_F(WasteTest, DefaultRatesSampleZeroChecks) {
  const json r = waste_json(std::string(WASTE_FIXTURE) + " all", 0, "");
  // Exact kinds stay exact at the default rates.
  EXPECT_EQ((*finding(r, "zeroed-fresh-pages"))["bytes"], 1048576);
  EXPECT_EQ((*finding(r, "temporary-allocations"))["calls"], 1000);
  EXPECT_EQ((*finding(r, "oversized-buffers"))["bytes"], 262144);
  EXPECT_EQ((*finding(r, "user-space-copies"))["bytes"], 4096);
  EXPECT_EQ(r["sample_rate"], 524288);
  EXPECT_EQ(r["check_rate"], 262144);
}

// Record directories in /dev/shm of a zerolab waste that died (SIGKILL) are
// removed by the next run; those of a live one are kept.
TEST_F(WasteTest, OrphanedRecordDirectoriesAreRemoved) {
  if (!exists("/dev/shm")) GTEST_SKIP() << "no /dev/shm";
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  ASSERT_GT(gone, 0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  const std::string orphan = "/dev/shm/zerolab-waste." + std::to_string(gone) + ".test01";
  const std::string live = "/dev/shm/zerolab-waste." + std::to_string(getpid()) + ".test01";
  for (const std::string& d : {orphan, live}) {
    ASSERT_EQ(mkdir(d.c_str(), 0700), 0) << d;
    std::ofstream(d + "/1.0.rec") << "x";
  }
  const CliRun r = waste("-- " + std::string(WASTE_FIXTURE) + " clean");
  EXPECT_EQ(r.code(), 0) << r.err;
  EXPECT_FALSE(exists(orphan));
  EXPECT_TRUE(exists(live + "/1.0.rec"));
  unlink((live + "/1.0.rec").c_str());
  rmdir(live.c_str());
}

TEST_F(WasteTest, StaticProgramIsRefused) {
  const std::string marker = dir_ + "/started";
  const CliRun r = waste("-- " + std::string(WASTE_FIXTURE_STATIC) + " touch " + marker);
  EXPECT_EQ(r.code(), 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("statically linked"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(marker));
}

// A record past the file size limit would kill the program with SIGXFSZ.
TEST_F(WasteTest, FileSizeLimitBelowTheRecordIsRefused) {
  const std::string marker = dir_ + "/started";
  const CliRun r =
      waste("-- " + std::string(WASTE_FIXTURE) + " touch " + marker, "", "ulimit -f 100; ");
  EXPECT_EQ(r.code(), 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // sh's ulimit -f counts 512-byte blocks (dash) or 1024-byte ones (bash).
  const bool dash = r.err.find("is 51200 bytes, below the") != std::string::npos;
  const bool bash = r.err.find("is 102400 bytes, below the") != std::string::npos;
  EXPECT_TRUE(dash || bash) << r.err;
  EXPECT_NE(r.err.find("file size limit (ulimit -f)"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(marker));
}

TEST_F(WasteTest, BadInputIsOneLineExit2AndNothingRuns) {
  const std::string marker = dir_ + "/started";
  const std::string touch = std::string(WASTE_FIXTURE) + " touch " + marker;
  const std::string text_file = dir_ + "/not-executable";
  std::ofstream(text_file) << "hello\n";
  const std::string a_file = dir_ + "/a-file";
  std::ofstream(a_file) << "x";
  const struct {
    std::string args;
    std::string says;
  } cases[] = {
      {"", "no program"},
      {"--", "no program"},
      {"-- /nonexistent/program", "/nonexistent/program"},
      {"-- no-such-program-zerolab", "not found on PATH"},
      {"-- " + text_file, "not an executable"},
      {"--frobnicate -- " + touch, "flag provided but not defined: -frobnicate"},
      {"--format xml -- " + touch, "invalid value \"xml\" for flag -format"},
      {"--fail-on bogus=1 -- " + touch, "unknown kind \"bogus\""},
      {"--fail-on bogus=1 -- " + touch, "temporary-allocations-in-frame, oversized-buffers"},
      {"--fail-on zeroed-zeros=lots -- " + touch, "bad byte count"},
      {"--check-rate 0 -- " + touch, "-check-rate"},
      {"-o /nonexistent-dir/report.txt -- " + touch,
       "-o: cannot write /nonexistent-dir/report.txt"},
      {"-o " + dir_ + " -- " + touch, "-o: cannot write " + dir_ + ": Is a directory"},
      {"--profile " + a_file + " -- " + touch, "not a directory"},
      {"--profile /proc/zerolab -- " + touch, "-profile /proc/zerolab"},
  };
  for (const auto& c : cases) {
    const CliRun r = waste(c.args);
    EXPECT_EQ(r.code(), 2) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("zerolab waste: ", 0), 0U) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
    EXPECT_FALSE(exists(marker)) << c.args;
  }
}

// --help names all six kinds, and each is a --fail-on kind.
TEST_F(WasteTest, HelpAndFailOnKnowEverySixKinds) {
  const CliRun help = waste("--help");
  EXPECT_EQ(help.code(), 0);
  for (const char* kind :
       {"zeroed-fresh-pages", "zeroed-zeros", "temporary-allocations,",
        "temporary-allocations-in-frame", "oversized-buffers", "user-space-copies"}) {
    EXPECT_NE(help.out.find(kind), std::string::npos) << kind << "\n" << help.out;
    const std::string name = std::string(kind).substr(0, std::string(kind).find(','));
    const CliRun r = waste("--fail-on " + name + "=1G -- " + std::string(WASTE_FIXTURE) + " clean");
    EXPECT_EQ(r.code(), 0) << name << ": " << r.err;
  }
  EXPECT_NE(help.out.find("stderr"), std::string::npos);
}

TEST_F(WasteTest, FailOnThresholds) {
  const std::string all = std::string(WASTE_FIXTURE) + " all";
  CliRun r = waste("--fail-on user-space-copies=4096 -- " + all);
  EXPECT_EQ(r.code(), 3);
  EXPECT_NE(r.err.find("user-space-copies=4096 reached (4096 bytes)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("user-space-copies"), std::string::npos);  // the report is still written
  r = waste("--fail-on user-space-copies=4097 --fail-on zeroed-fresh-pages=2M -- " + all);
  EXPECT_EQ(r.code(), 0) << r.err;
  r = waste("--fail-on any=1M -- " + all);
  EXPECT_EQ(r.code(), 3);
  // The program's own failure wins over the threshold.
  r = waste("--fail-on any=1 -- " + std::string(WASTE_FIXTURE) + " exit");
  EXPECT_EQ(r.code(), 7);
  r = waste("--fail-on any=1 -- " + std::string(WASTE_FIXTURE) + " clean");
  EXPECT_EQ(r.code(), 0);
}

TEST_F(WasteTest, MarkdownAndTextReports) {
  const std::string all = std::string(WASTE_FIXTURE) + " all";
  const CliRun md = waste("--format markdown -- " + all);
  ASSERT_EQ(md.code(), 0);
  EXPECT_NE(md.err.find("| # | kind | bytes | calls | estimated time | fix |"), std::string::npos)
      << md.err;
  EXPECT_NE(md.err.find("## user-space-copies"), std::string::npos);
  EXPECT_NE(md.err.find("| file | pipe | 4096 | 1 | sendfile |"), std::string::npos) << md.err;
  const CliRun text = waste("--sample-rate 1 -- " + all);
  ASSERT_EQ(text.code(), 0);
  EXPECT_NE(text.err.find("zeroed-fresh-pages: 1.0 MiB in 1 call"), std::string::npos) << text.err;
  EXPECT_NE(
      text.err.find("waste_fixture.c:" + std::to_string(site_line(WASTE_FIXTURE_SOURCE, "copy"))),
      std::string::npos);
  EXPECT_NE(text.err.find("file -> pipe: 4.0 KiB in 1 calls; copy_fd would use sendfile"),
            std::string::npos);
  const std::string file = dir_ + "/report.md";
  const CliRun to_file = waste("--format markdown -o " + file + " -- " + all);
  EXPECT_EQ(to_file.code(), 0);
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(to_file.err, "");
  EXPECT_EQ(read_file(file).rfind("# zerolab waste: ", 0), 0U);
}

// Once the program has exited and been reaped, SIGTERM is zerolab waste's
// own again: sent while waste is stuck writing the report to a full pipe,
// it ends waste (before, it went to the reaped program's pid and waste
// wrote on forever).
TEST_F(WasteTest, SignalsAfterTheProgramExitsAreNotForwarded) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  // A full pipe nobody reads: the report's first write blocks.
  ASSERT_GT(::fcntl(fds[1], F_SETPIPE_SZ, 4096), 0);
  ASSERT_EQ(::fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
  const std::string fill(4096, 'x');
  while (::write(fds[1], fill.data(), fill.size()) > 0) {
  }
  ASSERT_EQ(::fcntl(fds[1], F_SETFL, 0), 0);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The report goes to stderr.
    ::dup2(fds[1], STDERR_FILENO);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::execl(ZEROLAB_CLI, ZEROLAB_CLI, "waste", "--", WASTE_FIXTURE, "clean",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Waits until waste is blocked writing (the program is gone by then).
  auto blocked_in_write = [&] {
    const std::string proc = "/proc/" + std::to_string(pid);
    std::ifstream syscall_file(proc + "/syscall");
    std::string number;
    if (syscall_file >> number && number == "1") return true;  // write(2) on x86-64
    std::ifstream wchan(proc + "/wchan");
    std::string where;
    return static_cast<bool>(wchan >> where) && where == "pipe_write";
  };
  int status = 0;
  bool stuck = false;
  for (int i = 0; i < 6000 && !stuck; ++i) {
    ASSERT_EQ(::waitpid(pid, &status, WNOHANG), 0) << "waste ended before the report was written";
    stuck = blocked_in_write();
    if (!stuck) ::usleep(10000);
  }
  ASSERT_TRUE(stuck) << "waste never blocked writing its report";
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  bool ended = false;
  for (int i = 0; i < 1000 && !ended; ++i) {
    ended = ::waitpid(pid, &status, WNOHANG) == pid;
    if (!ended) ::usleep(10000);
  }
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  ::close(fds[0]);
  ::close(fds[1]);
  ASSERT_TRUE(ended) << "SIGTERM did not end zerolab waste after its program exited";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
}

TEST_F(WasteTest, FullReportFileFailsTheReportNotTheProgram) {
  const CliRun r = waste("-o /dev/full -- " + std::string(WASTE_FIXTURE) + " all");
  EXPECT_EQ(r.code(), 1);
  EXPECT_NE(r.err.find("-o: cannot write /dev/full: No space left on device"), std::string::npos)
      << r.err;
}

TEST_F(WasteTest, PprofProfilesPerKind) {
  const std::string profiles = dir_ + "/profiles";
  const CliRun r = waste("--sample-rate 1 --check-rate 1 --profile " + profiles + " -- " +
                         std::string(WASTE_FIXTURE) + " all");
  ASSERT_EQ(r.code(), 0) << r.err;
  for (const char* kind : {"zeroed-fresh-pages", "zeroed-zeros", "temporary-allocations",
                           "oversized-buffers", "user-space-copies"}) {
    const std::string path = profiles + "/" + kind + ".pb.gz";
    const std::string data = read_file(path);
    ASSERT_GT(data.size(), 18U) << path;
    EXPECT_EQ(static_cast<unsigned char>(data[0]), 0x1f);
    EXPECT_EQ(static_cast<unsigned char>(data[1]), 0x8b);
  }
  // gzip itself must accept the stream.
  EXPECT_EQ(std::system(("gzip -t " + profiles + "/temporary-allocations.pb.gz").c_str()), 0);
  if (std::system("command -v go >/dev/null 2>&1") != 0) GTEST_SKIP() << "no go: pprof not checked";
  const std::string top = dir_ + "/top.txt";
  ASSERT_EQ(std::system(("HOME=" + dir_ + " go tool pprof -top -sample_index=calls " + profiles +
                         "/temporary-allocations.pb.gz >" + top + " 2>&1")
                            .c_str()),
            0)
      << read_file(top);
  const std::string text = read_file(top);
  EXPECT_NE(text.find("waste_all"), std::string::npos) << text;
  EXPECT_NE(text.find("1000 total"), std::string::npos) << text;
  // The in-frame profile carries the report's finding: its 1000 blocks,
  // not the blocks whose site frame had returned or that lived long.
  ASSERT_EQ(std::system(("HOME=" + dir_ + " go tool pprof -top -sample_index=calls " + profiles +
                         "/temporary-allocations-in-frame.pb.gz >" + top + " 2>&1")
                            .c_str()),
            0)
      << read_file(top);
  EXPECT_NE(read_file(top).find("1000 total"), std::string::npos) << read_file(top);
}

}  // namespace
