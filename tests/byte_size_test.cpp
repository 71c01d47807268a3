// The one byte-size grammar and formatter (src/text/byte_size.hpp): both
// "32M" and "512KiB" forms, and what the formatter writes reads back.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "text/byte_size.hpp"

namespace zerolab::internal {
namespace {

std::uint64_t parsed(const std::string& text) {
  std::uint64_t n = 12345;
  EXPECT_TRUE(parse_byte_size(text, n)) << text;
  return n;
}

TEST(ByteSize, BothGrammars) {
  EXPECT_EQ(parsed("0"), 0u);
  EXPECT_EQ(parsed("4096"), 4096u);
  EXPECT_EQ(parsed("100B"), 100u);
  EXPECT_EQ(parsed("64K"), 65536u);
  EXPECT_EQ(parsed("64k"), 65536u);
  EXPECT_EQ(parsed("32M"), 33554432u);
  EXPECT_EQ(parsed("1g"), 1073741824u);
  EXPECT_EQ(parsed("512KiB"), 524288u);
  EXPECT_EQ(parsed("2MiB"), 2097152u);
  EXPECT_EQ(parsed("1GiB"), 1073741824u);
  EXPECT_EQ(parsed("16KB"), 16384u);
}

TEST(ByteSize, WhatIsNotASize) {
  for (const char* bad : {"", "K", "KiB", "-5", "+5", "1.5", " 1", "1 ", "1T", "2TiB", "1Ki",
                          "1KiBB", "1kib", "1BB", "18446744073709551616", "17179869184G", "0x10"}) {
    std::uint64_t n = 7;
    EXPECT_FALSE(parse_byte_size(bad, n)) << bad;
    EXPECT_EQ(n, 7u) << bad;
  }
  std::uint64_t n = 0;
  EXPECT_TRUE(parse_byte_size("18446744073709551615", n));
  EXPECT_EQ(n, UINT64_MAX);
  EXPECT_TRUE(parse_byte_size("17179869183G", n));
}

TEST(ByteSize, FormatIsExactAndReadsBack) {
  EXPECT_EQ(format_byte_size(0), "0B");
  EXPECT_EQ(format_byte_size(512), "512B");
  EXPECT_EQ(format_byte_size(4096), "4KiB");
  EXPECT_EQ(format_byte_size(1536), "1536B");
  EXPECT_EQ(format_byte_size(3 << 19), "1536KiB");
  EXPECT_EQ(format_byte_size(32u << 20), "32MiB");
  EXPECT_EQ(format_byte_size(std::uint64_t{1} << 30), "1GiB");
  for (const std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1023},
                                std::uint64_t{1} << 40, std::uint64_t{3} << 20, UINT64_MAX}) {
    std::uint64_t back = 1;
    ASSERT_TRUE(parse_byte_size(format_byte_size(n), back)) << n;
    EXPECT_EQ(back, n);
  }
}

}  // namespace
}  // namespace zerolab::internal
