// Tests of -cpuprofile and -memprofile: runs profile_fixture
// (tests/profile_fixture.cpp) as a subprocess and reads the profiles it
// writes with the tools a user reads them with: `go tool pprof -raw/-top`
// for pprof's format (exact sample values, function names and lines), and
// google-pprof for the legacy formats (-profileformat legacy); checks that
// the profiler's own allocations never reach B/op or allocs/op, that
// profiles are written atomically and that bad profile flags are usage
// errors.
//
// Example:
//   build/tests/profile_test --gtest_filter='MemProfile.*'
#include <dirent.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "bench/options.hpp"
#include "go_format.hpp"
#include "test_util.hpp"

namespace {

const std::string kFixture = ZEROLAB_PROFILE_FIXTURE;
const std::string kFixtureSource = ZEROLAB_PROFILE_FIXTURE_SOURCE;

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

CommandRun run_fixture(const std::string& args) {
  return run_command(kFixture + " " + args);
}

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

bool go_available() {
  static const bool available = std::system("command -v go >/dev/null 2>&1") == 0;
  return available;
}

#define SKIP_WITHOUT_GO() \
  if (!go_available()) GTEST_SKIP() << "go not installed (Debian: golang-go; make deps)"
#define SKIP_WITHOUT_PPROF()                    \
  if (!pprof_available())                       \
  GTEST_SKIP() << "google-pprof not installed " \
                  "(Debian: google-perftools; make deps)"
#define SKIP_WITHOUT_MEMPROFILE()                                     \
  if (const std::string why = memprofile_unsupported(); !why.empty()) \
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
  const CommandRun r = run_command("google-pprof --text --nodecount=100000 --nodefraction=0 " +
                                   options + " " + kFixture + " " + file);
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

// `go tool pprof ARGS` (HOME in a scratch directory: pprof keeps ~/pprof).
std::string go_pprof(const std::string& args) {
  static const std::string home = zerolab::test::temp_dir("profile_test_home");
  const CommandRun r = run_command("HOME=" + home + " go tool pprof " + args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  return r.out;
}

// One sample of `go tool pprof -raw`: its values, and per location (leaf
// first) the innermost function and its "file:line", the file's base name.
struct RawSample {
  std::vector<std::int64_t> values;
  std::vector<std::string> functions;
  std::vector<std::string> places;
};

struct RawProfile {
  std::string period_type;  // "cpu nanoseconds"
  std::int64_t period = 0;
  std::string sample_types;  // "samples/count cpu/nanoseconds"
  std::vector<RawSample> samples;
  std::string text;  // all of -raw's output
};

RawProfile pprof_raw(const std::string& file) {
  RawProfile p;
  p.text = go_pprof("-raw " + file);
  std::istringstream in(p.text);
  std::string line;
  std::vector<std::vector<std::uint64_t>> stacks;
  std::map<std::uint64_t, std::pair<std::string, std::string>> locations;  // innermost line
  enum { kHeader, kTypes, kSamples, kLocations, kMappings } part = kHeader;
  while (std::getline(in, line)) {
    if (line.rfind("PeriodType: ", 0) == 0) p.period_type = line.substr(12);
    if (line.rfind("Period: ", 0) == 0) p.period = std::stoll(line.substr(8));
    if (line == "Samples:" || line == "Locations" || line == "Mappings") {
      part = line == "Samples:" ? kTypes : line == "Locations" ? kLocations : kMappings;
      continue;
    }
    if (part == kTypes) {
      p.sample_types = line;
      part = kSamples;
    } else if (part == kSamples && line.find(':') != std::string::npos) {
      RawSample sample;
      std::istringstream values(line.substr(0, line.find(':')));
      std::istringstream ids(line.substr(line.find(':') + 1));
      for (std::int64_t v = 0; values >> v;) sample.values.push_back(v);
      stacks.emplace_back();
      for (std::uint64_t id = 0; ids >> id;) stacks.back().push_back(id);
      p.samples.push_back(sample);
    } else if (part == kLocations && line.find(": 0x") != std::string::npos) {
      // "     1: 0x55d0 M=1 name file:line s=0(system name)"
      const std::uint64_t id = std::stoull(line.substr(0, line.find(':')));
      std::string rest = line.substr(line.find(" M=") + 3);
      rest = rest.substr(rest.find(' ') + 1);
      rest = rest.substr(0, rest.rfind(" s="));
      std::string place = rest.substr(rest.rfind(' ') + 1);
      if (place.find('/') != std::string::npos) place = place.substr(place.rfind('/') + 1);
      locations[id] = {rest.substr(0, rest.rfind(' ')), place};
    }
  }
  for (std::size_t i = 0; i < p.samples.size(); ++i) {
    for (const std::uint64_t id : stacks[i]) {
      p.samples[i].functions.push_back(locations[id].first);
      p.samples[i].places.push_back(locations[id].second);
    }
  }
  return p;
}

// The lines of profile_fixture.cpp from "<signature> {" to the next "}".
std::pair<int, int> fixture_lines(const std::string& signature) {
  std::istringstream in(read_file(kFixtureSource));
  std::string line;
  int number = 0;
  int first = 0;
  while (std::getline(in, line)) {
    ++number;
    if (first == 0 && line.find(signature) != std::string::npos) first = number;
    if (first != 0 && line == "}") return {first, number};
  }
  ADD_FAILURE() << signature << " not in " << kFixtureSource;
  return {0, 0};
}

// Whether `place` is "profile_fixture.cpp:N" with N in `lines`.
bool in_fixture_lines(const std::string& place, std::pair<int, int> lines) {
  const std::string prefix = "profile_fixture.cpp:";
  if (place.rfind(prefix, 0) != 0) return false;
  const int line = std::atoi(place.c_str() + prefix.size());
  return line >= lines.first && line <= lines.second;
}

bool is_gzip(const std::string& path) {
  const std::string data = read_file(path);
  return data.size() > 18 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
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

TEST(CpuProfile, PprofNamesTheHotFunctionAndLineAndOnlyTimedCode) {
  SKIP_WITHOUT_GO();
  const std::string dir = make_temp_dir();
  const std::string file = dir + "/cpu.out";
  const CommandRun r =
      run_fixture("-bench '^BenchmarkCpuHot$' -benchtime 300ms -cpu 1 -cpuprofile " + file +
                  " -cpuprofilerate 250");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(is_gzip(file));
  const RawProfile p = pprof_raw(file);
  EXPECT_EQ(p.period_type, "cpu nanoseconds");
  EXPECT_EQ(p.period, 4000000);  // 1e9 / 250
  EXPECT_EQ(p.sample_types, "samples/count cpu/nanoseconds");
  ASSERT_FALSE(p.samples.empty()) << p.text;
  const auto hot_lines = fixture_lines("spin_hot_function(std::uint64_t x) {");
  std::map<std::string, std::int64_t> leaf_samples;
  for (const RawSample& s : p.samples) {
    ASSERT_EQ(s.values.size(), 2u) << p.text;
    EXPECT_EQ(s.values[1], s.values[0] * 4000000) << p.text;
    leaf_samples[s.functions.at(0)] += s.values[0];
    if (s.functions[0] == "profile_fixture::spin_hot_function") {
      EXPECT_TRUE(in_fixture_lines(s.places[0], hot_lines)) << s.places[0];
      EXPECT_EQ(s.functions.at(1), "zerolab_benchmark_CpuHot") << p.text;
    }
    // 100 ms of CPU with the timer stopped: not one sample.
    for (const std::string& f : s.functions)
      EXPECT_EQ(f.find("spin_outside_timer"), std::string::npos);
  }
  std::int64_t most = 0;
  for (const auto& [function, n] : leaf_samples) most = std::max(most, n);
  EXPECT_EQ(leaf_samples["profile_fixture::spin_hot_function"], most) << p.text;
  // As `go tool pprof BINARY FILE` shows it: the hot function on top.
  const std::string top = go_pprof("-top " + kFixture + " " + file);
  const std::size_t header = top.find("cum%\n");
  ASSERT_NE(header, std::string::npos) << top;
  const std::string first = top.substr(header + 5, top.find('\n', header + 5) - header - 5);
  const std::string hot = "%  profile_fixture::spin_hot_function";
  EXPECT_EQ(first.size() > hot.size() ? first.substr(first.size() - hot.size()) : first, hot)
      << top;
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"cpu.out"});
}

// `s` without the sanitizers' interceptor frames: under ASan and TSan,
// memset is __interceptor_memset (sanitizer_common_interceptors.inc) or
// __asan_memset / __tsan_memset, which checks the range and calls glibc's.
RawSample without_sanitizer_frames(const RawSample& s) {
  RawSample kept;
  kept.values = s.values;
  for (std::size_t i = 0; i < s.functions.size(); ++i) {
    const std::string& f = s.functions[i];
    if (f.starts_with("__interceptor_") || f.starts_with("__asan_") || f.starts_with("__tsan_") ||
        s.places.at(i).find("sanitizer_common") != std::string::npos) {
      continue;
    }
    kept.functions.push_back(f);
    kept.places.push_back(s.places[i]);
  }
  return kept;
}

TEST(CpuProfile, LibcFramesAreNamedWithTheirLines) {
  SKIP_WITHOUT_GO();
  const std::string dir = make_temp_dir();
  const CommandRun r =
      run_fixture("-bench '^BenchmarkCpuMemset$' -benchtime 300ms -cpu 1 -cpuprofile " + dir +
                  "/cpu.out -cpuprofilerate 250");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const RawProfile p = pprof_raw(dir + "/cpu.out");
  std::int64_t in_memset = 0;
  std::int64_t total = 0;
  for (const RawSample& sampled : p.samples) {
    const RawSample s = without_sanitizer_frames(sampled);
    total += s.values.at(0);
    // glibc's memset variants (__memset_avx2_unaligned_erms, ...) in its .S files.
    if (s.functions.at(0).find("memset") == std::string::npos) {
      // Under ASan the interceptor checks the 256 KiB range's shadow before
      // it calls glibc's (about half the samples in a CI run): memset's time
      // too, in the sanitizer's frames.
      if (std::any_of(sampled.functions.begin(), sampled.functions.end(), [](const std::string& f) {
            return f == "__interceptor_memset" || f == "__asan_memset" || f == "__tsan_memset";
          })) {
        in_memset += s.values[0];
      }
      continue;
    }
    in_memset += s.values[0];
    EXPECT_NE(s.places[0].find(".S:"), std::string::npos) << s.functions[0] << " " << s.places[0];
    EXPECT_EQ(s.functions.at(1), "zerolab_benchmark_CpuMemset") << p.text;
  }
  EXPECT_GT(in_memset * 2, total) << p.text;  // most samples, named: no bare [libc.so.6]
  EXPECT_EQ(p.text.find("[libc.so.6]"), std::string::npos) << p.text;
}

TEST(CpuProfile, LegacyFormatHotFunctionIsOnTopAndUntimedCodeIsAbsent) {
  SKIP_WITHOUT_PPROF();
  const std::string dir = make_temp_dir();
  const std::string file = dir + "/cpu.out";
  const CommandRun r =
      run_fixture("-bench '^BenchmarkCpuHot$' -benchtime 300ms -cpu 1 -cpuprofile " + file +
                  " -cpuprofilerate 250 -profileformat legacy");
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

// Runs BenchmarkMemSites as `c` says with -memprofilerate 1 and `flags`;
// the profile's path in a fresh directory, "" if the run failed.
std::string run_mem_sites(const MemCase& c, const std::string& flags) {
  const std::string file = make_temp_dir() + "/mem.out";
  const CommandRun r = run_fixture(std::string("-bench '^BenchmarkMemSites$' -cpu 1 -benchtime ") +
                                   c.benchtime + " -count " + std::to_string(c.count) +
                                   " -memprofilerate 1 -memprofile " + file + flags);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return r.exit_code == 0 ? file : "";
}

TEST(MemProfile, PprofRateOneCountsEveryAllocationAndLiveByte) {
  SKIP_WITHOUT_GO();
  SKIP_WITHOUT_MEMPROFILE();
  constexpr std::int64_t k = 3;
  constexpr std::int64_t b = 48;
  const auto lines = fixture_lines("void allocate_tracked_objects() {");
  for (const MemCase c : {MemCase{"100x", 1, 100}, MemCase{"25x", 3, 75}}) {
    SCOPED_TRACE(std::string(c.benchtime) + " -count " + std::to_string(c.count));
    const std::string file = run_mem_sites(c, "");
    ASSERT_NE(file, "");
    const RawProfile p = pprof_raw(file);
    EXPECT_EQ(p.period_type, "space bytes");
    EXPECT_EQ(p.period, 1);
    EXPECT_EQ(p.sample_types,
              "alloc_objects/count alloc_space/bytes[dflt] inuse_objects/count inuse_space/bytes");
    std::vector<std::int64_t> sums(4, 0);
    for (const RawSample& s : p.samples) {
      ASSERT_EQ(s.values.size(), 4u) << p.text;
      if (s.functions.at(0) != "profile_fixture::allocate_tracked_objects") continue;
      EXPECT_TRUE(in_fixture_lines(s.places[0], lines)) << s.places[0];
      for (std::size_t i = 0; i < 4; ++i) sums[i] += s.values[i];
    }
    const std::int64_t n = c.iterations;
    // One object of each iteration is kept: live at the end.
    EXPECT_EQ(sums, (std::vector<std::int64_t>{k * n, k * b * n, n, b * n})) << p.text;
    const std::string top = go_pprof("-top -sample_index=inuse_objects " + file);
    EXPECT_NE(top.find(std::to_string(n) + "   100%   100%"), std::string::npos) << top;
    EXPECT_NE(go_pprof("-top " + file).find("\nType: alloc_space\n"), std::string::npos);
    EXPECT_EQ(list_dir(file.substr(0, file.rfind('/'))), std::vector<std::string>{"mem.out"});
  }
}

TEST(MemProfile, PprofSampledCountsAreScaledAsGoDoes) {
  SKIP_WITHOUT_GO();
  SKIP_WITHOUT_MEMPROFILE();
  const std::string dir = make_temp_dir();
  // 10000 iterations of 3 x 48 bytes at 4 KiB: about 350 samples of
  // 1 / (1 - exp(-48/4096)) = 85.8 objects each, 30000 objects in all.
  const CommandRun r = run_fixture(
      "-bench '^BenchmarkMemSites$' -benchtime 10000x -cpu 1 "
      "-memprofilerate 4KiB -memprofile " +
      dir + "/mem.out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RawProfile p = pprof_raw(dir + "/mem.out");
  EXPECT_EQ(p.period, 4096);
  std::int64_t objects = 0;
  std::int64_t bytes = 0;
  for (const RawSample& s : p.samples) {
    if (s.functions.at(0) != "profile_fixture::allocate_tracked_objects") continue;
    objects += s.values.at(0);
    bytes += s.values.at(1);
  }
  // Unscaled, the counts would be about 350: 6 standard deviations lie within 30%.
  EXPECT_GT(objects, 21000) << p.text;
  EXPECT_LT(objects, 39000) << p.text;
  EXPECT_NEAR(static_cast<double>(bytes) / static_cast<double>(objects), 48.0, 0.5) << p.text;
}

TEST(MemProfile, LegacyFormatRateOneAttributesEveryAllocationAndLiveByte) {
  SKIP_WITHOUT_PPROF();
  SKIP_WITHOUT_MEMPROFILE();
  const std::string function = "profile_fixture::allocate_tracked_objects";
  constexpr int k = 3;
  constexpr int b = 48;
  for (const MemCase c : {MemCase{"100x", 1, 100}, MemCase{"25x", 3, 75}}) {
    SCOPED_TRACE(std::string(c.benchtime) + " -count " + std::to_string(c.count));
    const std::string file = run_mem_sites(c, " -profileformat legacy");
    ASSERT_NE(file, "");
    const std::string dir = file.substr(0, file.rfind('/'));
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

TEST(MemProfile, LegacySampledProfileNamesTheRateForPprofToScale) {
  SKIP_WITHOUT_MEMPROFILE();
  const std::string dir = make_temp_dir();
  for (const auto& [flag, header] : {std::pair<std::string, std::string>{"", "@ heap_v2/524288"},
                                     {"-memprofilerate 4KiB", "@ heap_v2/4096"},
                                     {"-memprofilerate 1000", "@ heap_v2/1000"}}) {
    const CommandRun r =
        run_fixture("-bench '^BenchmarkMemSites$' -benchtime 1000x -cpu 1 " + flag +
                    " -profileformat legacy -memprofile " + dir + "/mem.out");
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
    const CommandRun r =
        run_fixture("-bench '^BenchmarkMemSites$' -benchtime 1x -" + flag + " " + bad);
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
  const CommandRun r =
      run_fixture("-bench '^BenchmarkMemSites$' -benchtime 10x -cpuprofile " + dir + "/cpu.out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(is_gzip(dir + "/cpu.out"));
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"cpu.out"});
}

TEST(ProfileFiles, FullDeviceIsAFailedWriteAfterTheResults) {
  for (const std::string flag : {"cpuprofile", "memprofile"}) {
    if (flag == "memprofile" && !memprofile_unsupported().empty()) continue;
    SCOPED_TRACE(flag);
    const CommandRun r =
        run_fixture("-bench '^BenchmarkMemSites$' -benchtime 10x -cpu 1 -" + flag + " /dev/full");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("BenchmarkMemSites"), std::string::npos) << r.out;
    EXPECT_EQ(r.err,
              "profile_fixture: -" + flag + ": cannot write /dev/full: No space left on device\n");
  }
}

TEST(ProfileFiles, FileSizeLimitIsAFailedWriteNotASignal) {
  const std::string dir = make_temp_dir();
  // ulimit -f 2: 1 KiB in sh's 512-byte blocks, more than the results, less
  // than the legacy CPU profile (the memory map alone is several KiB).
  const CommandRun r = run_command("ulimit -f 2; exec " + kFixture +
                                   " -bench '^BenchmarkMemSites$' -benchtime 10x -cpu 1 "
                                   "-profileformat legacy -cpuprofile " +
                                   dir + "/cpu.out");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("BenchmarkMemSites"), std::string::npos) << r.out;
  EXPECT_EQ(r.err,
            "profile_fixture: -cpuprofile: cannot write " + dir + "/cpu.out: File too large\n");
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{});
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
        "-memprofilerate -5", "-memprofilerate 1.5", "-memprofilerate KiB", "-memprofilerate 2TiB",
        "-memprofilerate 2048GiB", "-cpuprofile=", "-memprofile=", "-memprofile",
        "-profileformat text", "-profileformat=", "-cpuprofile -", "-memprofile -"}) {
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
  if (!zerolab::internal::parse_options(static_cast<int>(argv.size()), argv.data(), options,
                                        error)) {
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
  EXPECT_EQ(o.profileformat, zerolab::internal::profile::ProfileFormat::kPprof);
  EXPECT_EQ(parse({"-profileformat", "legacy"}, error).profileformat,
            zerolab::internal::profile::ProfileFormat::kLegacy);
  EXPECT_EQ(parse({"-profileformat=pprof"}, error).profileformat,
            zerolab::internal::profile::ProfileFormat::kPprof);
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
  // The one byte-size grammar (text/byte_size.hpp): 32M as well as 32MiB.
  EXPECT_EQ(parse({"-memprofilerate", "32M"}, error).memprofilerate, 33554432u);
  EXPECT_EQ(parse({"-memprofilerate", "2GiB"}, error).memprofilerate, 2147483648u);
  parse({"-memprofilerate", "0"}, error);
  EXPECT_EQ(error,
            "invalid value \"0\" for flag -memprofilerate: must be a positive byte count "
            "(512KiB, 4096, 1)");
  parse({"-cpuprofilerate", "0"}, error);
  EXPECT_EQ(error,
            "invalid value \"0\" for flag -cpuprofilerate: must be an integer from 1 to "
            "10000 (samples per second)");
}

}  // namespace
