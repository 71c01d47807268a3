// Seed 001's OID conversions (lab/experiments/oid.hpp): every formatter
// gives the same canonical string, and every parser reads it back, over
// 1,000,000 seeded random OIDs of 1..5 sections and every edge value; both
// parsers reject bad input with the same exact message and value 0, and
// agree with each other on arbitrary short strings.
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "lab/experiments/oid.hpp"

namespace {

namespace oid = zerolab::lab::oid;

constexpr std::int64_t kPow[] = {1, 1000, 1000000, 1000000000, 1000000000000, 1000000000000000};

// An independent reference: sections least significant first, up to the
// last non-zero one.
std::string reference(std::int64_t n) {
  std::string out;
  char buf[8];
  for (;;) {
    std::snprintf(buf, sizeof buf, "%d", static_cast<int>(n % 1000));
    out += buf;
    n /= 1000;
    if (n == 0) return out;
    out += '.';
  }
}

// Checks every formatter and both parsers on n; returns "" or what failed.
class Checker {
 public:
  std::string check(std::int64_t n) {
    const std::string want = reference(n);
    const std::string got[] = {
        oid::format_foolish(n), oid::format_naive(n),
        oid::format_builder(n), oid::format_append_int(n),
        oid::format_table(n),   std::string(oid::format_memoized(cache(), n))};
    static const char* const kNames[] = {"Foolish",   "Naive",       "StringBuilder",
                                         "AppendInt", "StringTable", "Memoized"};
    for (std::size_t i = 0; i < std::size(got); ++i) {
      if (got[i] != want) return std::string(kNames[i]) + " gave " + got[i] + " for " + want;
    }
    // All formatters agree, so parsing `want` is parsing each one's output.
    const oid::Parsed a = oid::parse_naive(want);
    const oid::Parsed b = oid::parse_no_alloc(want);
    if (a.error != nullptr || a.value != n) return "ParseNaive failed on " + want;
    if (b.error != nullptr || b.value != n) return "ParseNoAlloc failed on " + want;
    return "";
  }

 private:
  // Memoized: a fresh Interner every 65536 values keeps memory bounded;
  // each value is looked up twice (a miss, then a hit on the same view).
  zerolab::Interner<std::int64_t>& cache() {
    if (++used_ > 65536 || !cache_) {
      cache_ = std::make_unique<zerolab::Interner<std::int64_t>>(1024);
      used_ = 0;
    }
    return *cache_;
  }
  std::unique_ptr<zerolab::Interner<std::int64_t>> cache_;
  int used_ = 0;
};

// The Go peer (peers/go/oid/oid_test.go) pins the same three numbers, so
// the two sides time the same OIDs.
TEST(Oid, BenchmarkOidsAreTheGoPeers) {
  const std::vector<std::int64_t> v = zerolab::lab::oid::benchmark_oids();
  ASSERT_EQ(v.size(), 1000u);
  std::int64_t sum = 0;
  for (std::int64_t n : v) sum += n;
  EXPECT_EQ(v[0], 456245648421624);
  EXPECT_EQ(v[1], 867311691464299);
  EXPECT_EQ(sum, 478445316261395931);
}

TEST(Oid, KnownStrings) {
  EXPECT_EQ(oid::format_table(0), "0");
  EXPECT_EQ(oid::format_table(1002003), "3.2.1");
  EXPECT_EQ(oid::format_table(1000), "0.1");
  EXPECT_EQ(oid::format_table(kPow[4]), "0.0.0.0.1");
  EXPECT_EQ(oid::format_table(kPow[4] + 1), "1.0.0.0.1");
  EXPECT_EQ(oid::format_table(oid::kMax), "999.999.999.999.999");
  EXPECT_EQ(oid::format_table(oid::kMax).size(), oid::kMaxLen);
  EXPECT_EQ(oid::format_table(10), "10");
  EXPECT_EQ(oid::format_table(100100), "100.100");
}

TEST(Oid, MemoizedHitReturnsTheSameView) {
  zerolab::Interner<std::int64_t> cache(8);
  const std::string_view a = oid::format_memoized(cache, 1002003);
  const std::string_view b = oid::format_memoized(cache, 1002003);
  EXPECT_EQ(a, "3.2.1");
  EXPECT_EQ(a.data(), b.data());
}

TEST(Oid, RoundTripEdgeValues) {
  Checker c;
  std::vector<std::int64_t> values = {0, oid::kMax};
  for (std::int64_t v = 0; v < 1000; ++v) values.push_back(v);  // single sections
  for (int k = 1; k <= 5; ++k) {
    values.push_back(kPow[k] - 1);  // k sections of 999
    values.push_back(kPow[k - 1]);  // a 1 in section k, zeros below
    values.push_back(999 * kPow[k - 1]);
  }
  // Every 5-section combination of the digit-count edges of a section.
  const std::int64_t edges[] = {0, 1, 9, 10, 99, 100, 999};
  for (std::int64_t s0 : edges)
    for (std::int64_t s1 : edges)
      for (std::int64_t s2 : edges)
        for (std::int64_t s3 : edges)
          for (std::int64_t s4 : edges)
            values.push_back(s0 + s1 * kPow[1] + s2 * kPow[2] + s3 * kPow[3] + s4 * kPow[4]);
  for (std::int64_t v : values) ASSERT_EQ(c.check(v), "") << "value " << v;
}

TEST(Oid, RoundTripMillionRandomValues) {
  Checker c;
  std::mt19937_64 rng(0x0D1D5EED);
  for (int i = 0; i < 1000000; ++i) {
    // 1..5 sections, uniform within each length (uniform over all values
    // would almost always give 5 sections).
    const auto k = static_cast<int>(rng() % 5) + 1;
    const auto v = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(kPow[k]));
    ASSERT_EQ(c.check(v), "") << "value " << v << " (draw " << i << ")";
  }
}

TEST(Oid, NonCanonicalButValidInput) {
  struct Case {
    const char* in;
    std::int64_t want;
  };
  const Case cases[] = {{"007", 7},
                        {"1.0", 1},
                        {"0.0.0.0.0", 0},
                        {"000.001", 1000},
                        {"0000000000000000000000005", 5}};
  for (const Case& c : cases) {
    for (const oid::Parsed p : {oid::parse_naive(c.in), oid::parse_no_alloc(c.in)}) {
      EXPECT_EQ(p.error, nullptr) << c.in;
      EXPECT_EQ(p.value, c.want) << c.in;
    }
  }
}

TEST(Oid, BadInputNamesTheProblem) {
  const std::string nondigit = "section has a non-digit (sign, space or other)";
  struct Case {
    std::string in;
    std::string error;
  };
  const Case cases[] = {
      {"", "empty OID"},
      {".", "empty section"},
      {"1.", "empty section"},
      {".1", "empty section"},
      {"1..2", "empty section"},
      {"1.2.3.4.5.", "empty section"},
      {"1.2.3.4.5.6", "too many sections"},
      {"0.0.0.0.0.0", "too many sections"},
      {".1.2.3.4.5", "too many sections"},
      {"x.1.2.3.4.5", "too many sections"},
      {"1.2.3.4.5.6.7.8.9.10", "too many sections"},
      {"1000", "section >= 1000"},
      {"1.2.1000", "section >= 1000"},
      {"1000.2", "section >= 1000"},
      {"2147483647", "section >= 1000"},
      {"2147483648", "section overflows"},
      {"99999999999999999999999", "section overflows"},
      {"1.99999999999999999999", "section overflows"},
      {"-1", nondigit},
      {"-0", nondigit},
      {"-", nondigit},
      {"+1", nondigit},
      {"1.-2", nondigit},
      {"-99999999999999999999", nondigit},
      {" 1", nondigit},
      {"1 ", nondigit},
      {"1. 2", nondigit},
      {"1 .2", nondigit},
      {"\t1", nondigit},
      {" ", nondigit},
      {"a", nondigit},
      {"1a", nondigit},
      {"99999999999x", nondigit},
      {"0x10", nondigit},
      {"1e3", nondigit},
      {"1,2", nondigit},
      {"1\n", nondigit},
      {"\xd9\xa1", nondigit},  // ARABIC-INDIC DIGIT ONE
      {std::string("1\0", 2), nondigit},
  };
  for (const Case& c : cases) {
    const oid::Parsed a = oid::parse_naive(c.in);
    const oid::Parsed b = oid::parse_no_alloc(c.in);
    ASSERT_NE(a.error, nullptr) << "ParseNaive accepted '" << c.in << "' as " << a.value;
    ASSERT_NE(b.error, nullptr) << "ParseNoAlloc accepted '" << c.in << "' as " << b.value;
    EXPECT_EQ(a.error, c.error) << "ParseNaive on '" << c.in << "'";
    EXPECT_EQ(b.error, c.error) << "ParseNoAlloc on '" << c.in << "'";
    EXPECT_EQ(a.value, 0) << c.in;
    EXPECT_EQ(b.value, 0) << c.in;
  }
}

// Random short strings over digits, dots, signs, spaces and a letter: the
// parsers agree exactly, and an accepted string means its canonical form.
TEST(Oid, ParsersAgreeOnArbitraryStrings) {
  static constexpr char kAlphabet[] = "0123456789000999..-+ a";
  std::mt19937_64 rng(42);
  int accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string s(rng() % 24, ' ');
    for (char& ch : s) ch = kAlphabet[rng() % (sizeof kAlphabet - 1)];
    const oid::Parsed a = oid::parse_naive(s);
    const oid::Parsed b = oid::parse_no_alloc(s);
    ASSERT_EQ(a.value, b.value) << "'" << s << "'";
    ASSERT_EQ(std::string(a.error ? a.error : ""), std::string(b.error ? b.error : ""))
        << "'" << s << "'";
    if (a.error == nullptr) {
      ++accepted;
      ASSERT_GE(a.value, 0);
      ASSERT_LE(a.value, oid::kMax);
      ASSERT_EQ(oid::parse_no_alloc(oid::format_table(a.value)).value, a.value) << s;
    } else {
      ASSERT_EQ(a.value, 0) << s;
    }
  }
  EXPECT_GT(accepted, 1000);  // the alphabet makes valid OIDs common enough
}

}  // namespace
