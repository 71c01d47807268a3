// Tests of zerolab/zero.hpp: zero_fill, zero_fill_nt and zero_chunked
// write zeros to exactly [p, p+n) — every size 0..1024 at every alignment
// 0..63, and random sizes up to 64 MiB — under every dispatch path (each ISA
// the CPU has, rep stosb forced, non-temporal forced), with guard bytes on
// both sides untouched; the configuration API and zero_pages.
//
// Example:
//   ./zero_test --gtest_filter='ZeroFill.*'
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "mem/zero_calibrate.hpp"
#include "zerolab/zero.hpp"

namespace zerolab {
namespace {

constexpr unsigned char kGuard = 0xA5;
constexpr std::size_t kGuardBytes = 64;

// Restores the configuration in force when the test started.
class ConfigGuard {
 public:
  ConfigGuard() : saved_(zero_config()) {}
  ~ConfigGuard() { set_zero_config(saved_); }

 private:
  ZeroConfig saved_;
};

// The paths to force: each ISA with vector stores only, rep stosb from 1
// byte on (the kernels still use plain stores below their vector width),
// non-temporal stores from 1 byte on, and glibc's memset from 1 byte on.
struct Path {
  std::string name;
  ZeroConfig config;
};

std::vector<Path> all_paths() {
  const ZeroConfig base = default_zero_config();
  std::vector<ZeroIsa> isas = {ZeroIsa::kSse2};
  if (base.has_avx2) isas.push_back(ZeroIsa::kAvx2);
  if (base.has_avx512) isas.push_back(ZeroIsa::kAvx512);
  std::vector<Path> paths;
  for (const ZeroIsa isa : isas) {
    ZeroConfig c = base;
    c.isa = isa;
    c.stosb_threshold = 0;
    c.nt_threshold = 0;
    paths.push_back({std::string(to_string(isa)) + "/vector", c});
    c.stosb_threshold = 1;
    paths.push_back({std::string(to_string(isa)) + "/stosb", c});
    c.stosb_threshold = 0;
    c.nt_threshold = 1;
    paths.push_back({std::string(to_string(isa)) + "/nt", c});
    c.nt_threshold = 0;
    c.bands = {{1, ZeroMethod::kMemset}};
    paths.push_back({std::string(to_string(isa)) + "/memset", c});
    c.bands.clear();
    c.nt_threshold = base.nt_threshold;
    c.stosb_threshold = base.stosb_threshold;
    paths.push_back({std::string(to_string(isa)) + "/default", c});
  }
  return paths;
}

// The first index in [from, to) whose byte is not `want`, or `to`.
std::size_t first_mismatch(const std::vector<unsigned char>& buf, std::size_t from, std::size_t to,
                           unsigned char want) {
  static const std::vector<unsigned char> zeros(1 << 16, 0);
  std::size_t i = from;
  if (want == 0) {
    // Whole blocks by memcmp, then the remainder byte by byte.
    while (to - i >= zeros.size() && std::memcmp(&buf[i], zeros.data(), zeros.size()) == 0) {
      i += zeros.size();
    }
  }
  while (i < to && buf[i] == want) ++i;
  return i;
}

// Checks that exactly [offset, offset+n) of buf is zero and the rest is kGuard.
::testing::AssertionResult only_range_zeroed(const std::vector<unsigned char>& buf,
                                             std::size_t offset, std::size_t n) {
  const std::size_t parts[3][2] = {{0, offset}, {offset, offset + n}, {offset + n, buf.size()}};
  for (int k = 0; k < 3; ++k) {
    const unsigned char want = k == 1 ? 0 : kGuard;
    const std::size_t i = first_mismatch(buf, parts[k][0], parts[k][1], want);
    if (i != parts[k][1]) {
      return ::testing::AssertionFailure()
             << "byte " << i << " (range [" << offset << ", " << offset + n << ")) is "
             << static_cast<int>(buf[i]) << ", want " << static_cast<int>(want);
    }
  }
  return ::testing::AssertionSuccess();
}

using Zeroer = void (*)(void*, std::size_t);

void check_every_small_size_and_alignment(Zeroer zero, const std::string& what) {
  std::vector<unsigned char> buf(kGuardBytes + 64 + 1024 + kGuardBytes);
  for (std::size_t n = 0; n <= 1024; ++n) {
    for (std::size_t align = 0; align < 64; ++align) {
      std::memset(buf.data(), kGuard, buf.size());
      const std::size_t offset = kGuardBytes + align;
      zero(buf.data() + offset, n);
      ASSERT_TRUE(only_range_zeroed(buf, offset, n)) << what << " n=" << n << " align=" << align;
    }
  }
}

// Four random sizes from 1025 bytes to `max` (64 MiB for the default
// paths, whose NT threshold is up to 32 MiB; 4 MiB for forced paths).
void check_random_large_sizes(Zeroer zero, const std::string& what, unsigned seed,
                              std::size_t max) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 4; ++i) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(1025, max)(rng);
    const std::size_t align = std::uniform_int_distribution<std::size_t>(0, 63)(rng);
    std::vector<unsigned char> buf(kGuardBytes + 64 + n + kGuardBytes, kGuard);
    const std::size_t offset = kGuardBytes + align;
    zero(buf.data() + offset, n);
    ASSERT_TRUE(only_range_zeroed(buf, offset, n)) << what << " n=" << n << " align=" << align;
  }
}

void fill(void* p, std::size_t n) {
  zero_fill(p, n);
}
void fill_nt(void* p, std::size_t n) {
  zero_fill_nt(p, n);
}
void chunked(void* p, std::size_t n) {
  std::size_t calls = 0;
  const std::size_t chunk = 100;
  zero_chunked(p, n, chunk, [&calls] { ++calls; });
  const std::size_t pieces = n == 0 ? 0 : (n + chunk - 1) / chunk;
  if (calls != (pieces == 0 ? 0 : pieces - 1)) std::abort();
}
void chunked_large(void* p, std::size_t n) {
  zero_chunked(p, n, 256 << 10, [] {});
}

TEST(ZeroFill, EverySmallSizeAndAlignmentOnEveryPath) {
  ConfigGuard restore;
  for (const Path& path : all_paths()) {
    ASSERT_TRUE(set_zero_config(path.config)) << path.name;
    check_every_small_size_and_alignment(&fill, "zero_fill " + path.name);
    check_every_small_size_and_alignment(&fill_nt, "zero_fill_nt " + path.name);
    check_every_small_size_and_alignment(&chunked, "zero_chunked " + path.name);
    // zero_fill handles n <= 64 inline; the ISA's kernel must too.
    check_every_small_size_and_alignment(
        [](void* p, std::size_t n) { zero_methods::vector_stores(p, n); },
        "vector_stores " + path.name);
  }
}

TEST(ZeroFill, RandomLargeSizesOnEveryPath) {
  ConfigGuard restore;
  unsigned seed = 1;
  for (const Path& path : all_paths()) {
    ASSERT_TRUE(set_zero_config(path.config)) << path.name;
    const bool full = path.name.ends_with("/default");
    const std::size_t max = full ? std::size_t{64} << 20 : std::size_t{4} << 20;
    check_random_large_sizes(&fill, "zero_fill " + path.name, seed++, max);
    check_random_large_sizes(&chunked_large, "zero_chunked " + path.name, seed++, max);
  }
  check_random_large_sizes(&fill_nt, "zero_fill_nt", seed, std::size_t{64} << 20);
}

TEST(ZeroFill, MethodsZeroExactlyTheRange) {
  check_every_small_size_and_alignment(
      [](void* p, std::size_t n) { zero_methods::rep_stosb(p, n); }, "rep_stosb");
  check_every_small_size_and_alignment(
      [](void* p, std::size_t n) { zero_methods::vector_stores(p, n); }, "vector_stores");
  check_every_small_size_and_alignment(
      [](void* p, std::size_t n) { zero_methods::nt_stores(p, n); }, "nt_stores");
}

// Calibration checks the CPUID rule at 4 KiB..512 KiB and may change only
// those sizes: below 4 KiB vector stores, from 1 MiB the rule's bands
// exactly; zero_fill under the bands it installs zeroes exactly the range
// at sizes in every band.
TEST(ZeroFill, CalibrationChangesOnlyTheLadderAndStaysExact) {
  ConfigGuard restore;
  const ZeroConfig c = zero_calibrate();
  ASSERT_EQ(c.source, "calibrated");
  ASSERT_FALSE(c.bands.empty());
  EXPECT_GE(c.bands.front().from, std::size_t{4} << 10);
  for (std::size_t i = 1; i < c.bands.size(); ++i) EXPECT_LT(c.bands[i - 1].from, c.bands[i].from);
  const ZeroConfig rule = default_zero_config();
  const auto tail = [](const std::vector<ZeroBand>& bands) {
    std::vector<ZeroBand> out;
    for (const ZeroBand& b : bands) {
      if (b.from > (std::size_t{1} << 20)) out.push_back(b);
    }
    return out;
  };
  EXPECT_EQ(tail(c.bands), tail(rule.bands));
  const std::size_t verdicts = c.reason.find("paired rounds");
  ASSERT_NE(verdicts, std::string::npos) << c.reason;
  // Every ladder size has its verdict, unless the calibration ran out of
  // time (preempted on a loaded machine; CalibrationPastItsBudgetKeepsTheRule).
  const bool cut_short = c.reason.find("ms budget: the rule unmeasured from") != std::string::npos;
  for (const char* size : {" 4KiB ", " 8KiB ", " 256KiB ", " 512KiB "}) {
    if (!cut_short) {
      EXPECT_NE(c.reason.find(size, verdicts), std::string::npos) << size << c.reason;
    }
  }
  EXPECT_GT(c.calibration_ms, 0);
  std::mt19937_64 rng(42);
  for (std::size_t from = 2048; from <= (std::size_t{32} << 20); from *= 2) {
    const std::size_t n = from + std::uniform_int_distribution<std::size_t>(0, from - 1)(rng);
    const std::size_t align = std::uniform_int_distribution<std::size_t>(0, 63)(rng);
    std::vector<unsigned char> buf(kGuardBytes + 64 + n + kGuardBytes, kGuard);
    const std::size_t offset = kGuardBytes + align;
    zero_fill(buf.data() + offset, n);
    ASSERT_TRUE(only_range_zeroed(buf, offset, n)) << "n=" << n;
  }
}

// A calibration out of time (a preempted process) keeps the rule for every
// size it did not measure: with no time at all, the rule's bands exactly.
TEST(ZeroFill, CalibrationPastItsBudgetKeepsTheRule) {
  const ZeroConfig rule = default_zero_config();
  const internal::Calibration c = internal::calibrate_bands(rule.isa, rule, /*budget_ms=*/0);
  EXPECT_EQ(c.bands, rule.bands);
  EXPECT_NE(c.reason.find("past the 0 ms budget: the rule unmeasured from 4KiB"), std::string::npos)
      << c.reason;
}

TEST(ZeroConfig, BandsRoundTripAndBadBandsAreRefused) {
  ConfigGuard restore;
  ZeroConfig c = zero_config();
  c.bands = {{4096, ZeroMethod::kMemset},
             {1 << 20, ZeroMethod::kRepStosb},
             {8 << 20, ZeroMethod::kNonTemporal}};
  c.stosb_threshold = 1 << 20;
  c.nt_threshold = 8 << 20;
  ASSERT_TRUE(set_zero_config(c));
  const ZeroConfig now = zero_config();
  EXPECT_EQ(now.bands, c.bands);
  EXPECT_EQ(now.source, "set_zero_config");
  EXPECT_NE(now.to_string().find("bands: 4KiB memset, 1MiB rep-stosb, 8MiB nt; set_zero_config"),
            std::string::npos)
      << now.to_string();
  ZeroConfig unsorted = now;
  unsorted.bands = {{8 << 20, ZeroMethod::kMemset}, {4096, ZeroMethod::kVector}};
  unsorted.stosb_threshold = unsorted.nt_threshold = 0;
  EXPECT_FALSE(set_zero_config(unsorted));
  EXPECT_EQ(zero_config().bands, c.bands);
  EXPECT_STREQ(to_string(ZeroMethod::kVector), "vector");
  EXPECT_STREQ(to_string(ZeroMethod::kRepStosb), "rep-stosb");
  EXPECT_STREQ(to_string(ZeroMethod::kNonTemporal), "nt");
  EXPECT_STREQ(to_string(ZeroMethod::kMemset), "memset");
}

TEST(ZeroFill, NullPointerWithZeroLengthIsFine) {
  zero_fill(nullptr, 0);
  zero_fill_nt(nullptr, 0);
  zero_chunked(nullptr, 0, 64, [] { std::abort(); });
}

TEST(ZeroChunked, CallsBetweenPiecesOnly) {
  std::vector<unsigned char> buf(1000, kGuard);
  std::vector<std::size_t> zeroed_at_call;
  zero_chunked(buf.data(), 1000, 300, [&] {
    std::size_t z = 0;
    while (z < buf.size() && buf[z] == 0) ++z;
    zeroed_at_call.push_back(z);
  });
  EXPECT_EQ(zeroed_at_call, (std::vector<std::size_t>{300, 600, 900}));
  EXPECT_TRUE(only_range_zeroed(buf, 0, 1000));
}

// ---- configuration ----------------------------------------------------------------

TEST(ZeroConfig, DefaultsFollowTheCpu) {
  const ZeroConfig c = default_zero_config();
  EXPECT_EQ(c.isa, c.has_avx2 ? ZeroIsa::kAvx2 : ZeroIsa::kSse2);
  if (c.has_erms) {
    EXPECT_GT(c.stosb_threshold, 0u);
    EXPECT_LE(c.stosb_threshold, std::size_t{16} << 20);
  } else {
    EXPECT_EQ(c.stosb_threshold, 0u);
  }
  EXPECT_GT(c.nt_threshold, 0u);
  EXPECT_LE(c.nt_threshold, std::size_t{32} << 20);
}

// Where the CPUID rule starts non-temporal stores (zero_calibrate.hpp).
TEST(ZeroConfig, NonTemporalStoresStartAtHalfOrAllOfTheL3) {
  using zerolab::internal::nt_after_whole_l3;
  using zerolab::internal::nt_from_cache;
  constexpr std::size_t MiB = std::size_t{1} << 20;
  EXPECT_EQ(nt_from_cache(48 * MiB, false), 16 * MiB);
  EXPECT_EQ(nt_from_cache(32 * MiB, false), 16 * MiB);
  EXPECT_EQ(nt_from_cache(32 * MiB, true), 32 * MiB);
  EXPECT_EQ(nt_from_cache(48 * MiB, true), 32 * MiB);
  EXPECT_EQ(nt_from_cache(24 * MiB, true), 16 * MiB);
  EXPECT_EQ(nt_from_cache(256 * MiB, false), 32 * MiB);  // at most Go's 32 MiB
  EXPECT_EQ(nt_from_cache(2 * MiB, false), 2 * MiB);     // at least 2 MiB
  EXPECT_EQ(nt_from_cache(512 << 10, true), 2 * MiB);
  EXPECT_EQ(nt_from_cache(0, false), 32 * MiB);  // L3 unknown
  EXPECT_EQ(nt_from_cache(0, true), 32 * MiB);
  EXPECT_TRUE(nt_after_whole_l3(true, 26));
  EXPECT_TRUE(nt_after_whole_l3(true, 27));
  EXPECT_FALSE(nt_after_whole_l3(true, 25));
  EXPECT_FALSE(nt_after_whole_l3(false, 26));
  EXPECT_FALSE(nt_after_whole_l3(false, 6));
}

// Where the CPUID rule starts rep stosb (zero_calibrate.hpp).
TEST(ZeroConfig, RepStosbStartsAt8KiBOrAtTheL2OnAmdFamily1Ah) {
  using zerolab::internal::stosb_from;
  constexpr std::size_t KiB = 1024;
  EXPECT_EQ(stosb_from(false, true, 26, 1024 * KiB), 0u);  // no ERMS: never
  EXPECT_EQ(stosb_from(false, false, 6, 2048 * KiB), 0u);
  EXPECT_EQ(stosb_from(true, false, 6, 2048 * KiB), 8 * KiB);  // Intel: 8 KiB
  EXPECT_EQ(stosb_from(true, true, 25, 1024 * KiB), 8 * KiB);  // Zen 4: 8 KiB
  EXPECT_EQ(stosb_from(true, true, 26, 1024 * KiB), 1024 * KiB);
  EXPECT_EQ(stosb_from(true, true, 27, 1024 * KiB), 1024 * KiB);
  EXPECT_EQ(stosb_from(true, true, 26, 1536 * KiB), 1024 * KiB);  // a power of two below
  EXPECT_EQ(stosb_from(true, true, 26, 0), 8 * KiB);              // L2 unknown
  EXPECT_EQ(stosb_from(true, true, 26, 4 * KiB), 8 * KiB);
}

TEST(ZeroConfig, SetAndReadBack) {
  ConfigGuard restore;
  ZeroConfig c = zero_config();
  c.isa = ZeroIsa::kSse2;
  c.stosb_threshold = 4096;
  c.nt_threshold = 1 << 20;
  ASSERT_TRUE(set_zero_config(c));
  const ZeroConfig now = zero_config();
  EXPECT_EQ(now.isa, ZeroIsa::kSse2);
  EXPECT_EQ(now.stosb_threshold, 4096u);
  EXPECT_EQ(now.nt_threshold, 1u << 20);
  EXPECT_EQ(now.to_string().rfind("isa=sse2 stosb=4096 nt=1048576 (", 0), 0u) << now.to_string();
}

TEST(ZeroConfig, UnsupportedIsaIsRefused) {
  ConfigGuard restore;
  const ZeroConfig before = zero_config();
  if (before.has_avx512) GTEST_SKIP() << "this CPU has every ISA zero_fill knows";
  ZeroConfig c = before;
  c.isa = ZeroIsa::kAvx512;
  EXPECT_FALSE(set_zero_config(c));
  EXPECT_EQ(zero_config().isa, before.isa);
}

TEST(ZeroConfig, IsaNames) {
  EXPECT_STREQ(to_string(ZeroIsa::kSse2), "sse2");
  EXPECT_STREQ(to_string(ZeroIsa::kAvx2), "avx2");
  EXPECT_STREQ(to_string(ZeroIsa::kAvx512), "avx512");
}

// ---- zero_pages ---------------------------------------------------------------------

TEST(ZeroPages, ReleasedPagesReadAsZero) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t n = 16 * page;
  void* m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  auto* p = static_cast<unsigned char*>(m);
  std::memset(p, 0x5A, n);
  const ZeroPagesResult r = zero_pages(p + page, 4 * page);
  EXPECT_FALSE(r.error) << r.message;
  EXPECT_EQ(r.released, 4 * page);
  for (std::size_t i = 0; i < n; ++i) {
    const bool released = i >= page && i < 5 * page;
    ASSERT_EQ(p[i], released ? 0 : 0x5A) << i;
  }
  munmap(m, n);
}

TEST(ZeroPages, BadArgumentsAreRefusedWithoutTouchingMemory) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* m = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  auto* p = static_cast<unsigned char*>(m);
  std::memset(p, 0x5A, 2 * page);
  ZeroPagesResult r = zero_pages(p + 1, page);
  EXPECT_EQ(r.error, std::errc::invalid_argument);
  EXPECT_EQ(r.message, "zero_pages: pointer is not page-aligned");
  r = zero_pages(p, page + 1);
  EXPECT_EQ(r.error, std::errc::invalid_argument);
  EXPECT_EQ(r.message, "zero_pages: length is not a multiple of the page size");
  r = zero_pages(nullptr, page);
  EXPECT_EQ(r.error, std::errc::invalid_argument);
  EXPECT_EQ(r.message, "zero_pages: null pointer with a non-zero length");
  r = zero_pages(p, SIZE_MAX - page + 1);
  EXPECT_EQ(r.error, std::errc::invalid_argument);
  EXPECT_EQ(r.message, "zero_pages: range wraps around the address space");
  EXPECT_EQ(r.released, 0u);
  for (std::size_t i = 0; i < 2 * page; ++i) ASSERT_EQ(p[i], 0x5A) << i;
  r = zero_pages(p, 0);
  EXPECT_FALSE(r.error);
  EXPECT_EQ(r.released, 0u);
  munmap(m, 2 * page);
}

}  // namespace
}  // namespace zerolab
