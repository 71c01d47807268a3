// The one Markdown escaper (text/markdown.hpp): each rule, exactly.
#include <string>

#include <gtest/gtest.h>

#include "text/markdown.hpp"

namespace {

using zerolab::internal::markdown_code;
using zerolab::internal::markdown_code_cell;
using zerolab::internal::markdown_text;

TEST(MarkdownText, PlainTextIsUnchanged) {
  EXPECT_EQ(markdown_text("BenchmarkZero/size=1MiB-2 sec/op +3.00% & more * _x_"),
            "BenchmarkZero/size=1MiB-2 sec/op +3.00% & more * _x_");
  EXPECT_EQ(markdown_text(""), "");
  EXPECT_EQ(markdown_text("päť — ±"), "päť — ±");
}

TEST(MarkdownText, EscapesWhatWouldEndACell) {
  EXPECT_EQ(markdown_text("a | b"), "a \\| b");
  EXPECT_EQ(markdown_text("dir\\"), "dir\\\\");
}

TEST(MarkdownText, KeepsCodeSpans) {
  EXPECT_EQ(markdown_text("in `bytes/operations` terms, one ` alone"),
            "in `bytes/operations` terms, one ` alone");
}

// Inside a kept span nothing is interpreted: '<' or '\\' escaped there
// would show as "&lt;" or two backslashes. '|' still may not end a cell.
TEST(MarkdownText, TheInsideOfACodeSpanIsWrittenAsItIs) {
  EXPECT_EQ(markdown_text("a `std::vector<int>` b<c>"), "a `std::vector<int>` b&lt;c&gt;");
  EXPECT_EQ(markdown_text("`C:\\dir` & `x | y`"), "`C:\\dir` & `x \\| y`");
  EXPECT_EQ(markdown_text("``a`<b>`` ` <c>"), "``a`<b>`` ` &lt;c&gt;");  // runs of two; a lone one
  EXPECT_EQ(markdown_text("`a\nb`"), "`a b`");
  EXPECT_EQ(markdown_text("``x` <y>"), "``x` &lt;y&gt;");  // no run of two closes: literal
}

TEST(MarkdownText, AngleBracketsAreEntities) {
  EXPECT_EQ(markdown_text("make_uninit<char[]>"), "make_uninit&lt;char[]&gt;");
  EXPECT_EQ(markdown_text("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
}

TEST(MarkdownText, LineBreaksBecomeSpaces) {
  EXPECT_EQ(markdown_text("one\ntwo\r\nthree\r"), "one two  three ");
}

TEST(MarkdownCode, BackticksAndLineBreaksOnly) {
  EXPECT_EQ(markdown_code("zerolab lab --save x | tee <log>"), "zerolab lab --save x | tee <log>");
  EXPECT_EQ(markdown_code("a`b\nc\\d"), "a'b c\\d");
}

TEST(MarkdownCodeCell, AlsoEscapesThePipe) {
  EXPECT_EQ(markdown_code_cell("operator|(a, b)"), "operator\\|(a, b)");
  EXPECT_EQ(markdown_code_cell("std::vector<int>::push_back"), "std::vector<int>::push_back");
  EXPECT_EQ(markdown_code_cell("x`y\rz"), "x'y z");
}

}  // namespace
