// Tests of zero_fill's environment overrides and calibration provenance:
// ZEROLAB_ZERO_STOSB/ZEROLAB_ZERO_NT (or ZEROLAB_ZERO_CALIBRATE=0) make the
// bands the same on every run; bad values of every ZEROLAB_ZERO_* variable
// are ignored and reported in zero_config().env_error, naming the variable
// and the value; the zerolab CLI warns about them once on stderr. Each case
// runs zero_config_probe (or zerolab) in a fresh process, since the
// settings are read once per process.
//
// Example:
//   ./zero_env_test --gtest_filter='ZeroEnvironment.*'
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "zerolab/zero.hpp"

namespace zerolab {
namespace {

struct Output {
  std::string text;
  int status = -1;
};

// Runs `command` under sh with `env` prepended, the other ZEROLAB_ZERO_*
// variables cleared; stdout (and stderr when `with_stderr`) captured.
Output run(const std::string& env, const std::string& command, bool with_stderr = false) {
  const std::string line =
      "env -u ZEROLAB_ZERO_ISA -u ZEROLAB_ZERO_STOSB -u ZEROLAB_ZERO_NT "
      "-u ZEROLAB_ZERO_CALIBRATE " +
      env + " " + command + (with_stderr ? " 2>&1" : " 2>/dev/null");
  Output out;
  FILE* p = popen(line.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.text.append(buf, n);
  out.status = pclose(p);
  return out;
}

std::string probe(const std::string& env) {
  return run(env, ZERO_CONFIG_PROBE).text;
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
  EXPECT_EQ(probe(env), first);
  EXPECT_EQ(field(probe("ZEROLAB_ZERO_STOSB=0 ZEROLAB_ZERO_NT=0"), "bands"), "");
}

TEST(ZeroEnvironment, CalibrateZeroGivesTheCpuidRule) {
  const ZeroConfig rule = default_zero_config();
  std::string want;
  for (const ZeroBand& b : rule.bands) {
    want += (want.empty() ? "" : ",") + std::to_string(b.from) + " " + to_string(b.method);
  }
  const std::string first = probe("ZEROLAB_ZERO_CALIBRATE=0");
  EXPECT_EQ(field(first, "source"), "cpuid");
  EXPECT_EQ(field(first, "bands"), want);
  EXPECT_EQ(probe("ZEROLAB_ZERO_CALIBRATE=0"), first);
}

TEST(ZeroEnvironment, WithoutOverridesTheBandsAreCalibrated) {
  const std::string out = probe("");
  EXPECT_EQ(field(out, "source"), "calibrated");
  EXPECT_EQ(field(out, "env_error"), "");
}

TEST(ZeroEnvironment, IsaOverrideIsKeptThroughCalibration) {
  const std::string out = probe("ZEROLAB_ZERO_ISA=sse2");
  EXPECT_EQ(field(out, "isa"), "sse2");
  EXPECT_EQ(field(out, "source"), "calibrated");
}

TEST(ZeroEnvironment, BadValuesAreIgnoredAndNamed) {
  const std::string out = probe(
      "ZEROLAB_ZERO_ISA=bogus ZEROLAB_ZERO_STOSB=12x ZEROLAB_ZERO_NT=-1 "
      "ZEROLAB_ZERO_CALIBRATE=maybe");
  EXPECT_EQ(field(out, "env_error"),
            "ZEROLAB_ZERO_ISA=bogus: not one of sse2, avx2, avx512; "
            "ZEROLAB_ZERO_STOSB=12x: not a size in bytes (K/M/G allowed); "
            "ZEROLAB_ZERO_NT=-1: not a size in bytes (K/M/G allowed); "
            "ZEROLAB_ZERO_CALIBRATE=maybe: not 0 or 1");
  EXPECT_EQ(field(out, "isa"), to_string(default_zero_config().isa));
  EXPECT_EQ(field(out, "source"), "calibrated");  // the bad values changed nothing
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
