// Tests of -cpuprofile and -memprofile: runs profile_fixture
// (tests/profile_fixture.cpp) as a subprocess and reads the profiles it
// writes with google-pprof, the tool a user reads them with; checks that the
// profiler's own allocations never reach B/op or allocs/op, that profiles
// are written atomically and that bad profile flags are usage errors.
//
// Example:
//   build/tests/profile_test --gtest_filter='MemProfile.*'
#include <dirent.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/options.hpp"
#include "go_format.hpp"
#include "test_util.hpp"

namespace {

const std::string kFixture = ZEROLAB_PROFILE_FIXTURE;

struct CommandRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using zerolab::test::read_file;

// A fresh empty directory for one test's files.
std::string make_temp_dir() {
  std::string pattern = ::testing::TempDir() + "profile_test_XXXXXX";
  const char* dir = mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
  return pattern;
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

CommandRun run_command(const std::string& command) {
  static const std::string dir = zerolab::test::temp_dir("profile_test");
  const zerolab::test::CommandResult c = zerolab::test::run(command, dir);
  return CommandRun{c.code, c.out, c.err};
}

CommandRun run_fixture(const std::string& args) { return run_command(kFixture + " " + args); }

bool pprof_available() {
  static const bool available = std::system("google-pprof --version >/dev/null 2>&1") == 0;
  return available;
}

// Empty if this build can write memory profiles, else the fixture's reason.
std::string memprofile_unsupported() {
  static const std::string reason = [] {
    const std::string dir = make_temp_dir();
    const CommandRun r = run_fixture("-bench NONE -memprofile " + dir + "/probe.out");
    std::remove((dir + "/probe.out").c_str());
    rmdir(dir.c_str());
    return r.exit_code == 0 ? std::string() : r.err;
  }();
  return reason;
}

#define SKIP_WITHOUT_PPROF()                                                          \
  if (!pprof_available()) GTEST_SKIP() << "google-pprof not installed "               \
                                          "(Debian: google-perftools; make deps)"
#define SKIP_WITHOUT_MEMPROFILE()                                                     \
  if (const std::string why = memprofile_unsupported(); !why.empty())                 \
  GTEST_SKIP() << "-memprofile unavailable in this build: " << why

// One function's line of `google-pprof --text`: flat and cumulative values.
struct PprofEntry {
  double flat = 0;
  double cum = 0;
  int rank = 0;  // 0 for the first line after "Total:"
};

// Runs `google-pprof --text <options> profile_fixture <file>`; every node
// shown, keyed by function name.
std::map<std::string, PprofEntry> pprof_text(const std::string& options, const std::string& file,
                                             std::string* raw = nullptr) {
  const CommandRun r = run_command("google-pprof --text --nodecount=100000 --nodefraction=0 " + options +
                            " " + kFixture + " " + file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (raw != nullptr) *raw = r.out;
  // Lines are "flat flat% sum% cum cum% name [(inline)]".
  std::map<std::string, PprofEntry> entries;
  std::istringstream in(r.out);
  std::string text;
  int rank = 0;
  while (std::getline(in, text)) {
    std::istringstream fields(text);
    std::string flat, flat_pct, sum_pct, cum, cum_pct, name, word;
    if (!(fields >> flat >> flat_pct >> sum_pct >> cum >> cum_pct >> name)) continue;
    if (flat_pct.back() != '%' || sum_pct.back() != '%' || cum_pct.back() != '%') continue;
    while (fields >> word) name += " " + word;
    entries.emplace(name, PprofEntry{std::strtod(flat.c_str(), nullptr),
                                     std::strtod(cum.c_str(), nullptr), rank++});
  }
  return entries;
}

std::vector<std::uint64_t> read_words(const std::string& path, std::size_t count) {
  const std::string bytes = read_file(path);
  std::vector<std::uint64_t> words(count, ~std::uint64_t{0});
  for (std::size_t i = 0; i < count && (i + 1) * 8 <= bytes.size(); ++i) {
    std::memcpy(&words[i], bytes.data() + i * 8, 8);
  }
  return words;
}

// ---- CPU profile -----------------------------------------------------------------

TEST(CpuProfile, HotFunctionIsOnTopAndUntimedCodeIsAbsent) {
  SKIP_WITHOUT_PPROF();
  const std::string dir = make_temp_dir();
  const std::string file = dir + "/cpu.out";
  const CommandRun r = run_fixture("-bench '^BenchmarkCpuHot$' -benchtime 300ms -cpu 1 -cpuprofile " +
                            file + " -cpuprofilerate 250");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Legacy header: 0, 3 header words, version 0, period 1e6/250 µs, 0.
  EXPECT_EQ(read_words(file, 5), (std::vector<std::uint64_t>{0, 3, 0, 4000, 0}));
  std::string raw;
  const auto entries = pprof_text("", file, &raw);
  ASSERT_EQ(entries.count("profile_fixture::spin_hot_function"), 1u) << raw;
  const PprofEntry& hot = entries.at("profile_fixture::spin_hot_function");
  EXPECT_EQ(hot.rank, 0) << raw;
  EXPECT_GT(hot.flat, 0) << raw;
  // 100 ms of CPU with the timer stopped: not one sample.
  EXPECT_EQ(entries.count("profile_fixture::spin_outside_timer"), 0u) << raw;
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"cpu.out"});
}

// ---- memory profile ----------------------------------------------------------------

struct MemCase {
  const char* benchtime;
  int count;
  int iterations;  // benchtime x count: b.loop() runs the function once per -count
};

TEST(MemProfile, RateOneAttributesEveryAllocationAndLiveByte) {
  SKIP_WITHOUT_PPROF();
  SKIP_WITHOUT_MEMPROFILE();
  const std::string function = "profile_fixture::allocate_tracked_objects";
  constexpr int k = 3;
  constexpr int b = 48;
  for (const MemCase c : {MemCase{"100x", 1, 100}, MemCase{"25x", 3, 75}}) {
    SCOPED_TRACE(std::string(c.benchtime) + " -count " + std::to_string(c.count));
    const std::string dir = make_temp_dir();
    const std::string file = dir + "/mem.out";
    const CommandRun r = run_fixture(std::string("-bench '^BenchmarkMemSites$' -cpu 1 -benchtime ") +
                              c.benchtime + " -count " + std::to_string(c.count) +
                              " -memprofilerate 1 -memprofile " + file);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const std::string text = read_file(file);
    EXPECT_EQ(text.substr(0, text.find('\n')).substr(text.find('@')), "@ heapprofile");
    EXPECT_NE(text.find("\nMAPPED_LIBRARIES:\n"), std::string::npos);

    std::string raw;
    auto entries = pprof_text("--alloc_objects", file, &raw);
    ASSERT_EQ(entries.count(function), 1u) << raw;
    EXPECT_EQ(entries.at(function).flat, k * c.iterations) << raw;
    entries = pprof_text("--alloc_space --show_bytes", file, &raw);
    EXPECT_EQ(entries.at(function).flat, k * b * c.iterations) << raw;
    // One object of each iteration is kept: live at the end.
    entries = pprof_text("--inuse_objects", file, &raw);
    EXPECT_EQ(entries.at(function).flat, c.iterations) << raw;
    entries = pprof_text("--inuse_space --show_bytes", file, &raw);
    EXPECT_EQ(entries.at(function).flat, b * c.iterations) << raw;
    EXPECT_EQ(list_dir(dir), std::vector<std::string>{"mem.out"});
  }
}

TEST(MemProfile, SampledProfileNamesTheRateForPprofToScale) {
  SKIP_WITHOUT_MEMPROFILE();
  const std::string dir = make_temp_dir();
  for (const auto& [flag, header] : {std::pair<std::string, std::string>{"", "@ heap_v2/524288"},
                                     {"-memprofilerate 4KiB", "@ heap_v2/4096"},
                                     {"-memprofilerate 1000", "@ heap_v2/1000"}}) {
    const CommandRun r = run_fixture("-bench '^BenchmarkMemSites$' -benchtime 1000x -cpu 1 " + flag +
                              " -memprofile " + dir + "/mem.out");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string text = read_file(dir + "/mem.out");
    const std::string first = text.substr(0, text.find('\n'));
    EXPECT_EQ(first.substr(0, 14), "heap profile: ") << first;
    EXPECT_EQ(first.substr(first.find('@')), header) << flag;
  }
}

// ---- the profiler's own allocations -------------------------------------------------

TEST(ProfileOverhead, ProfilersAddNothingToBytesOrAllocsPerOp) {
  std::vector<std::string> variants = {"", "-cpuprofile {dir}/cpu.out"};
  if (memprofile_unsupported().empty()) {
    variants.push_back("-memprofile {dir}/mem.out -memprofilerate 1");
    variants.push_back("-memprofile {dir}/mem.out");
    variants.push_back("-memprofile {dir}/mem.out -memprofilerate 1 -cpuprofile {dir}/cpu.out");
  }
  const std::string dir = make_temp_dir();
  for (const auto& [bench, bytes, allocs] :
       {std::tuple<std::string, double, double>{"MemSites", 3 * 48, 3},
        {"AllocMix", 100 + 80 + 16 + 4096 + 8 + 4 + 10 + 64 + 8188 + 101, 20}}) {
    for (std::string flags : variants) {
      for (auto at = flags.find("{dir}"); at != std::string::npos; at = flags.find("{dir}")) {
        flags.replace(at, 5, dir);
      }
      SCOPED_TRACE(bench + " " + flags);
      const CommandRun r =
          run_fixture("-bench '^Benchmark" + bench + "$' -benchtime 200x -cpu 1 -count 2 " + flags);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const auto parsed = zerolab::test::parse_go_output(r.out);
      ASSERT_EQ(parsed.error, "") << r.out;
      ASSERT_EQ(parsed.results.size(), 2u) << r.out;
      for (const auto& result : parsed.results) {
        EXPECT_EQ(result.values.at("B/op"), bytes);
        EXPECT_EQ(result.values.at("allocs/op"), allocs);
      }
    }
  }
}

// ---- files and errors -------------------------------------------------------------

TEST(ProfileFiles, UnwritablePathIsAUsageErrorBeforeAnythingRuns) {
  const std::string dir = make_temp_dir();
  const std::string bad = dir + "/no/such/dir/prof.out";
  for (const std::string flag : {"cpuprofile", "memprofile"}) {
    SCOPED_TRACE(flag);
    const CommandRun r = run_fixture("-bench '^BenchmarkMemSites$' -benchtime 1x -" + flag + " " + bad);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");  // no header, no result: nothing ran
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("-" + flag), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
  }
  // A good -memprofile next to a bad -cpuprofile leaves no file behind.
  const CommandRun r = run_fixture("-bench '^BenchmarkMemSites$' -benchtime 1x -memprofile " + dir +
                            "/mem.out -cpuprofile " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{});
}

TEST(ProfileFiles, ExistingFileIsReplacedAndNoTemporaryIsLeft) {
  const std::string dir = make_temp_dir();
  std::ofstream(dir + "/cpu.out") << "old contents";
  const CommandRun r = run_fixture("-bench '^BenchmarkMemSites$' -benchtime 10x -cpuprofile " + dir +
                            "/cpu.out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_words(dir + "/cpu.out", 2), (std::vector<std::uint64_t>{0, 3}));
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"cpu.out"});
}

TEST(ProfileFiles, MemprofileInSanitizerBuildsSaysSo) {
  const std::string why = memprofile_unsupported();
  if (why.empty()) GTEST_SKIP() << "this build supports -memprofile";
  EXPECT_NE(why.find("invalid value"), std::string::npos) << why;
  EXPECT_NE(why.find("-memprofile: not supported in sanitizer builds"), std::string::npos) << why;
}

TEST(ProfileFlags, BadValuesAreUsageErrors) {
  for (const std::string args :
       {"-cpuprofilerate 0", "-cpuprofilerate 10001", "-cpuprofilerate x", "-memprofilerate 0",
        "-memprofilerate -5", "-memprofilerate 1.5", "-memprofilerate KiB", "-memprofilerate 2TiB", "-memprofilerate 2048GiB",
        "-cpuprofile=", "-memprofile=", "-memprofile"}) {
    SCOPED_TRACE(args);
    const CommandRun r = run_fixture("-bench '^BenchmarkMemSites$' -benchtime 1x " + args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

zerolab::internal::Options parse(std::vector<std::string> args, std::string& error) {
  args.insert(args.begin(), "bench");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  zerolab::internal::Options options;
  error.clear();
  if (!zerolab::internal::parse_options(static_cast<int>(argv.size()), argv.data(), options, error)) {
    EXPECT_NE(error, "");
  }
  return options;
}

TEST(ProfileFlags, ParsedValues) {
  std::string error;
  auto o = parse({}, error);
  EXPECT_EQ(o.cpuprofile, "");
  EXPECT_EQ(o.cpuprofilerate, 100);
  EXPECT_EQ(o.memprofile, "");
  EXPECT_EQ(o.memprofilerate, 512u * 1024u);
  o = parse({"-cpuprofile", "c.out", "--memprofile=m.out", "-cpuprofilerate=1000",
             "-test.memprofilerate", "1"},
            error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(o.cpuprofile, "c.out");
  EXPECT_EQ(o.memprofile, "m.out");
  EXPECT_EQ(o.cpuprofilerate, 1000);
  EXPECT_EQ(o.memprofilerate, 1u);
  EXPECT_EQ(parse({"-memprofilerate", "512KiB"}, error).memprofilerate, 524288u);
  EXPECT_EQ(parse({"-memprofilerate", "2MiB"}, error).memprofilerate, 2097152u);
  EXPECT_EQ(parse({"-memprofilerate", "4096"}, error).memprofilerate, 4096u);
  // The one byte-size grammar (format/byte_size.hpp): 32M as well as 32MiB.
  EXPECT_EQ(parse({"-memprofilerate", "32M"}, error).memprofilerate, 33554432u);
  EXPECT_EQ(parse({"-memprofilerate", "2GiB"}, error).memprofilerate, 2147483648u);
  parse({"-memprofilerate", "0"}, error);
  EXPECT_EQ(error, "invalid value \"0\" for flag -memprofilerate: must be a positive byte count "
                   "(512KiB, 4096, 1)");
  parse({"-cpuprofilerate", "0"}, error);
  EXPECT_EQ(error, "invalid value \"0\" for flag -cpuprofilerate: must be an integer from 1 to "
                   "10000 (samples per second)");
}

}  // namespace
