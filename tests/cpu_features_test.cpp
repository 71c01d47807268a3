// The cache sizes zero_fill's bands start from (src/mem/cpu_features.hpp):
// the sysfs size parser, the reader over a cache folder built here, and
// the live reading against the kernel's own description.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "mem/cpu_features.hpp"
#include "test_util.hpp"

namespace {

using zerolab::internal::cache_size;
using zerolab::internal::CacheSizes;
using zerolab::internal::cpu_family;
using zerolab::internal::cpu_features;
using zerolab::internal::cpuid_executions;
using zerolab::internal::parse_cache_size;
using zerolab::internal::read_cache_sizes;

TEST(ParseCacheSize, AcceptsTheKernelsSuffixes) {
  EXPECT_EQ(parse_cache_size("32K\n"), 32u << 10);
  EXPECT_EQ(parse_cache_size("32768K"), 32u << 20);
  EXPECT_EQ(parse_cache_size("2M\n"), 2u << 20);
  EXPECT_EQ(parse_cache_size("1G"), 1u << 30);
  EXPECT_EQ(parse_cache_size("512"), 512u);
  EXPECT_EQ(parse_cache_size("18446744073709551615"), ~std::size_t{0});
}

TEST(ParseCacheSize, RefusesAnythingElseWithZero) {
  for (const char* bad : {"", "\n", "K", "0", "0K", "32k", " 32K", "32K ", "32K\n\n", "-1K", "3 2K",
                          "32KB", "0x20K", "18446744073709551616", "18014398509481984K"}) {
    EXPECT_EQ(parse_cache_size(bad), 0u) << '"' << bad << '"';
  }
}

// A cache folder as the kernel lays it out, under a fresh temporary dir.
class CacheFolder : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void index(int i, const std::string& level, const std::string& type, const std::string& size) {
    const std::string d = dir_ + "/index" + std::to_string(i);
    ASSERT_EQ(mkdir(d.c_str(), 0755), 0);
    zerolab::test::write_file(d + "/level", level + '\n');
    zerolab::test::write_file(d + "/type", type + '\n');
    zerolab::test::write_file(d + "/size", size + '\n');
  }

  std::string dir_ = zerolab::test::temp_dir("zerolab_cache");
};

TEST_F(CacheFolder, ReadsTheDataAndUnifiedCachesOfEachLevel) {
  index(0, "1", "Data", "48K");
  index(1, "1", "Instruction", "32K");
  index(2, "2", "Unified", "2048K");
  index(3, "3", "Unified", "32768K");
  const CacheSizes c = read_cache_sizes(dir_.c_str());
  EXPECT_EQ(c.l1d, 48u << 10);
  EXPECT_EQ(c.l2, 2u << 20);
  EXPECT_EQ(c.l3, 32u << 20);
}

TEST_F(CacheFolder, StopsAtTheFirstMissingIndex) {
  index(0, "1", "Data", "32K");
  index(2, "3", "Unified", "32M");  // after a gap: not the kernel's layout
  const CacheSizes c = read_cache_sizes(dir_.c_str());
  EXPECT_EQ(c.l1d, 32u << 10);
  EXPECT_EQ(c.l3, 0u);
}

TEST_F(CacheFolder, AnUnreadableSizeOrLevelLeavesZero) {
  index(0, "1", "Data", "lots");
  index(1, "4", "Unified", "128M");
  index(2, "2", "Unified", "1M");
  const CacheSizes c = read_cache_sizes(dir_.c_str());
  EXPECT_EQ(c.l1d, 0u);
  EXPECT_EQ(c.l2, 1u << 20);
  EXPECT_EQ(c.l3, 0u);
}

TEST_F(CacheFolder, AMissingFolderReadsAsUnknown) {
  const CacheSizes c = read_cache_sizes((dir_ + "/absent").c_str());
  EXPECT_EQ(c.l1d, 0u);
  EXPECT_EQ(c.l2, 0u);
  EXPECT_EQ(c.l3, 0u);
}

// The L3 is shared by every CPU here, so whichever CPU cache_size() read,
// it must say what cpu0's folder says (glibc's sysconf said 320 MiB where
// this folder said 32 MiB on an AMD EPYC KVM guest); the L2 and L1d are
// the kernel's too.
TEST(CpuFeatures, TheCacheSizesAreTheKernels) {
  const CacheSizes kernel = read_cache_sizes("/sys/devices/system/cpu/cpu0/cache");
  if (kernel.l3 == 0) GTEST_SKIP() << "this kernel describes no L3 in sysfs";
  EXPECT_EQ(cache_size(3), kernel.l3);
  EXPECT_EQ(cache_size(2), kernel.l2);
  EXPECT_EQ(cache_size(1), kernel.l1d);
  EXPECT_EQ(cache_size(0), 0u);
  EXPECT_EQ(cache_size(4), 0u);
}

// A level is read from CPUID once: asking again executes none, and the
// features execute none at all (glibc and libgcc read them at start-up).
TEST(CpuFeatures, EachLevelCostsCpuidOnceAndTheFeaturesNone) {
  const unsigned long before = cpuid_executions();
  (void)cpu_features();
  EXPECT_EQ(cpuid_executions(), before);
  const std::size_t l3 = cache_size(3);
  const unsigned long after_first = cpuid_executions();
  EXPECT_EQ(cache_size(3), l3);
  EXPECT_EQ(cache_size(3), l3);
  EXPECT_EQ(cpuid_executions(), after_first);
}

// Leaf 1's eax of parts whose family their vendors print: an Ice Lake Xeon
// (6), an EPYC 7xx3 (Zen 3, 25), an EPYC 9xx4 (Zen 4, 25), an EPYC 9xx5
// (Zen 5, 26), and a family-0xF part with extended family 0 (15).
TEST(CpuFamily, AddsTheExtendedFamilyOnlyToBaseFamilyF) {
  EXPECT_EQ(cpu_family(0x000606A6), 6u);
  EXPECT_EQ(cpu_family(0x00A00F11), 25u);
  EXPECT_EQ(cpu_family(0x00A10F11), 25u);
  EXPECT_EQ(cpu_family(0x00B00F21), 26u);
  EXPECT_EQ(cpu_family(0x00000F29), 15u);
  EXPECT_EQ(cpu_family(0x0FF00F00), 15u + 255u);
  EXPECT_EQ(cpu_family(0x0FF00600), 6u);  // the extended family is ignored below 0xF
}

// The family and vendor CPUID gave must be what the kernel printed.
TEST(CpuFeatures, TheFamilyAndVendorAreTheKernels) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::string vendor;
  unsigned family = 0;
  bool have_family = false;
  while (std::getline(cpuinfo, line) && !(have_family && !vendor.empty())) {
    const auto value = [&] { return line.substr(line.find(':') + 2); };
    if (line.rfind("vendor_id", 0) == 0) vendor = value();
    if (line.rfind("cpu family", 0) == 0) {
      family = static_cast<unsigned>(std::stoul(value()));
      have_family = true;
    }
  }
  if (!have_family || vendor.empty()) GTEST_SKIP() << "/proc/cpuinfo names no vendor or family";
  EXPECT_EQ(cpu_features().family, family);
  EXPECT_EQ(cpu_features().amd, vendor == "AuthenticAMD");
}

}  // namespace
