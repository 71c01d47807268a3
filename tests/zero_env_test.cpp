// Tests of where zero_fill's bands come from, each in a fresh process
// (zero_config_probe, or zerolab), since the settings are read once per
// process: nothing is timed on first use (zero_config().calibration_runs
// stays 0); without a machine profile the CPUID rule; with one written for
// this machine its bands, the same in every process; a stale, foreign,
// truncated or hostile profile is refused with its reason and the rule
// applies; ZEROLAB_ZERO_STOSB/ZEROLAB_ZERO_NT (or ZEROLAB_ZERO_PROFILE=0)
// make the bands the same on every run; bad values of every ZEROLAB_ZERO_*
// variable are ignored and reported in zero_config().env_error, naming the
// variable and the value; the zerolab CLI warns about them once on stderr.
// Every probe gets its own XDG_CACHE_HOME, so a profile in the user's
// cache never decides a test.
//
// Example:
//   ./zero_env_test --gtest_filter='ZeroEnvironment.*'
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "machine/machine_profile.hpp"
#include "zerolab/zero.hpp"

namespace zerolab {
namespace {

struct Output {
  std::string text;
  int status = -1;
};

// A fresh cache directory for one test (XDG_CACHE_HOME), removed after.
class CacheHome {
 public:
  CacheHome() {
    char dir[] = "/tmp/zero_env_test.XXXXXX";
    if (mkdtemp(dir) != nullptr) path_ = dir;
  }
  ~CacheHome() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string profile() const { return path_ + "/zerolab/machine-profile"; }
  // Writes `text` as the profile, mode 0600 (the directory 0700).
  void write_profile_text(const std::string& text) const {
    ::mkdir((path_ + "/zerolab").c_str(), 0700);
    std::ofstream(profile(), std::ios::trunc) << text;
    ::chmod(profile().c_str(), 0600);
  }

 private:
  std::string path_;
};

// Runs `command` under sh with `env` prepended, the other ZEROLAB_ZERO_*
// variables cleared and XDG_CACHE_HOME at `cache` (an empty directory of
// its own when not given); stdout (and stderr when `with_stderr`) captured.
Output run(const std::string& env, const std::string& command, bool with_stderr = false,
           const CacheHome* cache = nullptr) {
  const CacheHome own;
  const std::string line =
      "env -u ZEROLAB_ZERO_ISA -u ZEROLAB_ZERO_STOSB -u ZEROLAB_ZERO_NT "
      "-u ZEROLAB_ZERO_PROFILE XDG_CACHE_HOME=" +
      (cache != nullptr ? cache->path() : own.path()) + " " + env + " " + command +
      (with_stderr ? " 2>&1" : " 2>/dev/null");
  Output out;
  FILE* p = popen(line.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.text.append(buf, n);
  out.status = pclose(p);
  return out;
}

std::string probe(const std::string& env, const CacheHome* cache = nullptr) {
  return run(env, ZERO_CONFIG_PROBE, false, cache).text;
}

std::string bands_text(const std::vector<ZeroBand>& bands) {
  std::string out;
  for (const ZeroBand& b : bands) {
    out += (out.empty() ? "" : ",") + std::to_string(b.from) + " " + to_string(b.method);
  }
  return out;
}

// A profile for this machine with bands no rule gives (so a test can tell).
machine::MachineProfile test_profile() {
  machine::MachineProfile p;
  p.key = machine::this_machine_key();
  p.written = "2026-01-01T00:00:00Z";
  p.zero_isa = default_zero_config().isa;
  p.zero_bands = {{12288, ZeroMethod::kMemset}, {3 << 20, ZeroMethod::kNonTemporal}};
  return p;
}

std::string field(const std::string& text, const std::string& name) {
  const std::size_t at = text.find(name + "=");
  if (at == std::string::npos) return "<missing " + name + ">";
  const std::size_t from = at + name.size() + 1;
  return text.substr(from, text.find('\n', from) - from);
}

TEST(ZeroEnvironment, ThresholdsMakeTheBandsDeterministic) {
  const std::string env = "ZEROLAB_ZERO_STOSB=4096 ZEROLAB_ZERO_NT=1M";
  const std::string first = probe(env);
  EXPECT_EQ(field(first, "source"), "environment");
  EXPECT_EQ(field(first, "bands"), "4096 rep-stosb,1048576 nt");
  EXPECT_EQ(field(first, "stosb"), "4096 nt=1048576");
  EXPECT_EQ(field(first, "env_error"), "");
  // Both thresholds given: no cache size is read, no CPUID executed.
  EXPECT_EQ(field(first, "first_call_cpuid"), "0");
  EXPECT_EQ(probe(env), first);
  EXPECT_EQ(field(probe("ZEROLAB_ZERO_STOSB=0 ZEROLAB_ZERO_NT=0"), "bands"), "");
}

TEST(ZeroEnvironment, CalibrateZeroGivesTheCpuidRule) {
  const ZeroConfig rule = default_zero_config();
  std::string want;
  for (const ZeroBand& b : rule.bands) {
    want += (want.empty() ? "" : ",") + std::to_string(b.from) + " " + to_string(b.method);
  }
  const std::string first = probe("ZEROLAB_ZERO_PROFILE=0");
  EXPECT_EQ(field(first, "source"), "cpuid");
  EXPECT_EQ(field(first, "bands"), want);
  EXPECT_EQ(probe("ZEROLAB_ZERO_PROFILE=0"), first);
}

// The first zero_fill of a process times nothing: without a profile the
// bands are the CPUID rule's, and no calibration ran. Of CPUID (a trap to
// the hypervisor in a VM) it executes at most the L3's cache leaf and, on
// AMD family 1Ah, the L2's: the features were read at start-up. (None on
// a CPU or hypervisor without the cache leaf: the sizes come from sysfs.)
TEST(ZeroEnvironment, FirstUseMeasuresNothingAndWithoutAProfileTakesTheRule) {
  const CacheHome cache;
  const std::string out = probe("", &cache);
  EXPECT_EQ(field(out, "calibration_runs"), "0");
  const int cpuid = std::stoi(field(out, "first_call_cpuid"));
  EXPECT_LE(cpuid, 2) << out;
  EXPECT_EQ(field(out, "source"), "cpuid");
  EXPECT_EQ(field(out, "bands"), bands_text(default_zero_config().bands));
  EXPECT_NE(field(out, "reason").find("(no profile at " + cache.profile() + ")"), std::string::npos)
      << out;
  EXPECT_EQ(field(out, "env_error"), "");
}

TEST(ZeroEnvironment, IsaOverrideKeepsTheRule) {
  const std::string out = probe("ZEROLAB_ZERO_ISA=sse2");
  EXPECT_EQ(field(out, "isa"), "sse2");
  EXPECT_EQ(field(out, "source"), "cpuid");
  EXPECT_EQ(field(out, "calibration_runs"), "0");
}

// A profile written for this machine gives its bands, the same in two
// processes, with no timing; ZEROLAB_ZERO_PROFILE=0 and the thresholds
// still override it.
TEST(ZeroEnvironment, AProfileForThisMachineGivesItsBandsInEveryProcess) {
  const CacheHome cache;
  ASSERT_EQ(machine::write_profile(cache.profile(), test_profile()), "");
  const std::string first = probe("", &cache);
  EXPECT_EQ(field(first, "source"), "profile");
  EXPECT_EQ(field(first, "bands"), "12288 memset,3145728 nt");
  EXPECT_EQ(field(first, "calibration_runs"), "0");
  // The profile's bands need no cache size: no CPUID on the first call.
  EXPECT_EQ(field(first, "first_call_cpuid"), "0");
  EXPECT_EQ(field(first, "reason"),
            "the machine profile " + cache.profile() + ", written 2026-01-01T00:00:00Z");
  EXPECT_EQ(probe("", &cache), first);
  EXPECT_EQ(field(probe("ZEROLAB_ZERO_PROFILE=0", &cache), "source"), "cpuid");
  EXPECT_EQ(field(probe("ZEROLAB_ZERO_NT=1M", &cache), "source"), "environment");
  // Bands measured with another vector width are not this process's.
  const std::string other =
      default_zero_config().isa == ZeroIsa::kSse2 ? "" : "ZEROLAB_ZERO_ISA=sse2";
  if (!other.empty()) {
    const std::string sse2 = probe(other, &cache);
    EXPECT_EQ(field(sse2, "source"), "cpuid");
    EXPECT_NE(field(sse2, "reason").find("the machine profile's bands are for "), std::string::npos)
        << sse2;
  }
}

// Each way a profile can be wrong: refused with its reason, the rule applies.
TEST(ZeroEnvironment, AStaleForeignTruncatedOrHostileProfileIsRefusedWithItsReason) {
  const std::string rule = bands_text(default_zero_config().bands);
  const std::string good = machine::format_profile(test_profile());
  machine::MachineProfile stale_profile = test_profile();
  stale_profile.key.kernel += "-older";
  const struct {
    std::string text;
    std::string reason;
  } cases[] = {
      {machine::format_profile(stale_profile), ": stale: kernel is \""},
      {"some-other-tool 1\n" + good.substr(good.find('\n') + 1),
       ": refused: line 1: not a zerolab machine profile"},
      {"zerolab-machine-profile 2\n" + good.substr(good.find('\n') + 1),
       ": refused: line 1: version \"2\", this build reads version 1"},
      {good.substr(0, good.size() - 4), ": refused: truncated: no final end line"},
      {good.substr(0, good.size() - 6), ": refused: truncated: line "},
      {good.substr(0, good.size() - 4) + "zero-band 99999999999999999999 nt\nend\n",
       ": refused: line "},
      {std::string(20000, 'x'), ": refused: larger than 16384 bytes"},
  };
  for (const auto& c : cases) {
    const CacheHome cache;
    cache.write_profile_text(c.text);
    const std::string out = probe("", &cache);
    EXPECT_EQ(field(out, "source"), "cpuid") << c.reason;
    EXPECT_EQ(field(out, "bands"), rule) << c.reason;
    EXPECT_NE(field(out, "reason").find(cache.profile() + c.reason), std::string::npos)
        << c.reason << "\n"
        << out;
  }
  // A profile others may write, or a symlink to one: refused.
  {
    const CacheHome cache;
    cache.write_profile_text(good);
    ::chmod(cache.profile().c_str(), 0622);
    EXPECT_NE(probe("", &cache).find(": refused: writable by group or others"), std::string::npos);
  }
  {
    const CacheHome cache;
    cache.write_profile_text(good);
    const std::string real = cache.path() + "/real";
    ASSERT_EQ(::rename(cache.profile().c_str(), real.c_str()), 0);
    ASSERT_EQ(::symlink(real.c_str(), cache.profile().c_str()), 0);
    const std::string out = probe("", &cache);
    EXPECT_EQ(field(out, "source"), "cpuid");
    EXPECT_NE(out.find(cache.profile() + ": refused: a symlink"), std::string::npos) << out;
  }
}

// zerolab calibrate writes a profile for this machine that the next
// process's zero_fill takes, and prints its time and decisions; it refuses
// to write through a symlink.
TEST(ZeroEnvironment, CalibrateWritesTheProfileTheNextProcessReads) {
  const CacheHome cache;
  const Output out = run("", std::string(ZEROLAB_CLI) + " calibrate", true, &cache);
  ASSERT_EQ(out.status, 0) << out.text;
  EXPECT_EQ(out.text.rfind("zerolab calibrate: wrote " + cache.profile() + " in ", 0), 0u)
      << out.text;
  EXPECT_NE(out.text.find("\nzero_fill ("), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("\ncopy pipe → file: "), std::string::npos) << out.text;
  const machine::LoadedProfile loaded =
      machine::load_profile(cache.profile(), machine::this_machine_key());
  ASSERT_TRUE(loaded.usable) << loaded.why;
  const std::string next = probe("", &cache);
  EXPECT_EQ(field(next, "source"), "profile");
  EXPECT_EQ(field(next, "bands"), bands_text(loaded.profile.zero_bands));
  EXPECT_EQ(field(next, "calibration_runs"), "0");

  const std::string victim = cache.path() + "/victim";
  std::ofstream(victim) << "keep\n";
  const std::string link = cache.path() + "/link";
  ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
  const Output refused = run("", std::string(ZEROLAB_CLI) + " calibrate -o " + link, true, &cache);
  EXPECT_NE(refused.status, 0);
  EXPECT_EQ(refused.text,
            "zerolab calibrate: " + link + ": refused: exists and is not a regular file\n");
  std::ifstream in(victim);
  std::string kept;
  std::getline(in, kept);
  EXPECT_EQ(kept, "keep");
}

TEST(ZeroEnvironment, BadValuesAreIgnoredAndNamed) {
  const std::string out = probe(
      "ZEROLAB_ZERO_ISA=bogus ZEROLAB_ZERO_STOSB=12x ZEROLAB_ZERO_NT=-1 "
      "ZEROLAB_ZERO_PROFILE=maybe");
  EXPECT_EQ(field(out, "env_error"),
            "ZEROLAB_ZERO_ISA=bogus: not one of sse2, avx2, avx512; "
            "ZEROLAB_ZERO_STOSB=12x: not a size in bytes (K/M/G allowed); "
            "ZEROLAB_ZERO_NT=-1: not a size in bytes (K/M/G allowed); "
            "ZEROLAB_ZERO_PROFILE=maybe: not 0 or 1");
  EXPECT_EQ(field(out, "isa"), to_string(default_zero_config().isa));
  EXPECT_EQ(field(out, "source"), "cpuid");  // the bad values changed nothing
  // One bad value beside a good one: the good one holds.
  const std::string mixed = probe("ZEROLAB_ZERO_STOSB=8K ZEROLAB_ZERO_NT=32Q");
  EXPECT_EQ(field(mixed, "env_error"), "ZEROLAB_ZERO_NT=32Q: not a size in bytes (K/M/G allowed)");
  EXPECT_EQ(field(mixed, "source"), "environment");
  EXPECT_EQ(field(mixed, "stosb").rfind("8192 ", 0), 0u) << field(mixed, "stosb");
}

TEST(ZeroEnvironment, TheCliWarnsOnceNamingTheVariableAndValue) {
  const Output out =
      run("ZEROLAB_ZERO_NT=lots ZEROLAB_ZERO_ISA=x86", std::string(ZEROLAB_CLI) + " version",
          /*with_stderr=*/true);
  EXPECT_EQ(out.status, 0);
  const std::string warning =
      "zerolab: warning: ignored ZEROLAB_ZERO_ISA=x86: not one of sse2, avx2, avx512; "
      "ZEROLAB_ZERO_NT=lots: not a size in bytes (K/M/G allowed)\n";
  ASSERT_EQ(out.text.rfind(warning, 0), 0u) << out.text;
  EXPECT_EQ(out.text.find("warning", warning.size()), std::string::npos) << out.text;
  EXPECT_EQ(out.text.substr(warning.size()).rfind("zerolab ", 0), 0u) << out.text;
  // Good values: not a word on stderr.
  const Output quiet = run("ZEROLAB_ZERO_NT=64M", std::string(ZEROLAB_CLI) + " version", true);
  EXPECT_EQ(quiet.text.rfind("zerolab ", 0), 0u) << quiet.text;
  EXPECT_EQ(quiet.text.find("warning"), std::string::npos) << quiet.text;
}

}  // namespace
}  // namespace zerolab
