// Tests of the HTML reports' building blocks: axis scales and labels
// (report/plot_scale.hpp) and the SVG plots (report/svg_plot.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/html_page.hpp"
#include "report/plot_scale.hpp"
#include "report/svg_plot.hpp"
#include "test_util.hpp"

namespace zerolab::report {
namespace {

using zerolab::test::count_occurrences;

std::vector<std::string> labels(const AxisScale& s, ValueKind kind) {
  return format_ticks(s.ticks, kind);
}

TEST(PlotScale, FormatsValuesWithTheirKindsUnit) {
  EXPECT_EQ(format_value(65536, ValueKind::kBytes), "64 KiB");
  EXPECT_EQ(format_value(512, ValueKind::kBytes), "512 B");
  EXPECT_EQ(format_value(1536 * 1024.0 * 1024.0, ValueKind::kBytes), "1.5 GiB");
  EXPECT_EQ(format_value(850, ValueKind::kNanoseconds), "850 ns");
  EXPECT_EQ(format_value(1.5e6, ValueKind::kNanoseconds), "1.5 ms");
  EXPECT_EQ(format_value(2.5e9, ValueKind::kNanoseconds), "2.5 s");
  EXPECT_EQ(format_value(6.8e10, ValueKind::kBytesPerSecond), "68 GB/s");
  EXPECT_EQ(format_value(100000, ValueKind::kNumber), "100k");
  EXPECT_EQ(format_value(0.25, ValueKind::kNumber), "0.25");
  EXPECT_EQ(format_value(0, ValueKind::kBytes), "0");
  EXPECT_EQ(format_value(1.23456e6, ValueKind::kNanoseconds, 5), "1.2346 ms");
}

TEST(PlotScale, KindOfUnit) {
  EXPECT_EQ(kind_of_unit("ns/op"), ValueKind::kNanoseconds);
  EXPECT_EQ(kind_of_unit("alloc-ns/op"), ValueKind::kNanoseconds);
  EXPECT_EQ(kind_of_unit("B/op"), ValueKind::kBytes);
  EXPECT_EQ(kind_of_unit("heap-after-B"), ValueKind::kBytes);
  EXPECT_EQ(kind_of_unit("B/s"), ValueKind::kBytesPerSecond);
  EXPECT_EQ(kind_of_unit("faults/op"), ValueKind::kNumber);
}

TEST(PlotScale, LogBytesTicksFallOnPowersOfTwoThatReadWell) {
  const std::vector<double> v = {16, 1 << 30};
  const AxisScale s = make_scale(v, true, ValueKind::kBytes);
  EXPECT_EQ(s.lo, 16);
  EXPECT_EQ(s.hi, 1 << 30);
  EXPECT_EQ(labels(s, ValueKind::kBytes),
            (std::vector<std::string>{"32 B", "1 KiB", "32 KiB", "1 MiB", "32 MiB", "1 GiB"}));
  EXPECT_DOUBLE_EQ(s.to_unit(16), 0);
  EXPECT_DOUBLE_EQ(s.to_unit(1 << 30), 1);
  EXPECT_NEAR(s.to_unit(1 << 17), 0.5, 1e-12);  // 2^17 halfway between 2^4 and 2^30
}

TEST(PlotScale, LogDecadesAndANarrowRangeGetsMoreTicks) {
  const std::vector<double> wide = {3e3, 2e8};
  const AxisScale w = make_scale(wide, true, ValueKind::kNanoseconds);
  EXPECT_EQ(
      labels(w, ValueKind::kNanoseconds),
      (std::vector<std::string>{"1 µs", "10 µs", "100 µs", "1 ms", "10 ms", "100 ms", "1 s"}));
  const std::vector<double> narrow = {2e3, 6e3};
  const AxisScale n = make_scale(narrow, true, ValueKind::kNumber);
  EXPECT_EQ(labels(n, ValueKind::kNumber), (std::vector<std::string>{"1k", "2k", "5k", "10k"}));
}

TEST(PlotScale, LinearTicksAreRoundAndCoverTheValues) {
  const std::vector<double> v = {0.3, 9.7};
  const AxisScale s = make_scale(v, false, ValueKind::kNumber);
  EXPECT_EQ(s.ticks, (std::vector<double>{0, 2, 4, 6, 8, 10}));
  const std::vector<double> from_zero = {40, 45};
  EXPECT_EQ(make_scale(from_zero, false, ValueKind::kNumber, true).lo, 0);
  // One value: a domain around it, not a zero-width one.
  const std::vector<double> one = {7};
  const AxisScale o = make_scale(one, false, ValueKind::kNumber);
  EXPECT_LT(o.lo, 7);
  EXPECT_GT(o.hi, 7);
  // Nothing: [0, 1].
  const AxisScale none = make_scale({}, false, ValueKind::kNumber);
  EXPECT_EQ(none.lo, 0);
  EXPECT_EQ(none.hi, 1);
}

TEST(PlotScale, RangesDoublesCannotStepThroughStillGetABoundedAxis) {
  const std::vector<double> close = {1e17, 1e17 + 16};  // a step of 5 does not move 1e17
  const AxisScale c = make_scale(close, false, ValueKind::kNumber);
  EXPECT_GE(c.ticks.size(), 2u);
  EXPECT_LE(c.ticks.size(), 13u);
  EXPECT_LT(c.lo, c.hi);
  const std::vector<double> huge = {-1e308, 1e308};  // hi - lo overflows
  const AxisScale h = make_scale(huge, false, ValueKind::kNumber);
  EXPECT_EQ(h.ticks, (std::vector<double>{-1e308, 1e308}));
  const std::vector<double> decades = {1e-300, 1e300};  // 600 decades on a log axis
  EXPECT_LE(make_scale(decades, true, ValueKind::kNumber).ticks.size(), 9u);
}

TEST(PlotScale, TickLabelsGainDigitsUntilDistinct) {
  const std::vector<double> t = {611, 611.5, 612};
  EXPECT_EQ(format_ticks(t, ValueKind::kNanoseconds),
            (std::vector<std::string>{"611 ns", "611.5 ns", "612 ns"}));
}

TEST(PlotScale, ParsesSizesAndCountsAsNamesWriteThem) {
  double v = 0;
  bool bytes = false;
  ASSERT_TRUE(parse_quantity("64KiB", v, bytes));
  EXPECT_EQ(v, 65536);
  EXPECT_TRUE(bytes);
  ASSERT_TRUE(parse_quantity("100000", v, bytes));
  EXPECT_EQ(v, 100000);
  EXPECT_FALSE(bytes);
  ASSERT_TRUE(parse_quantity("10k", v, bytes));
  EXPECT_EQ(v, 10000);
  ASSERT_TRUE(parse_quantity("1GiB", v, bytes));
  EXPECT_EQ(v, 1073741824.0);
  EXPECT_FALSE(parse_quantity("fast", v, bytes));
  EXPECT_FALSE(parse_quantity("64KB/s", v, bytes));
  EXPECT_FALSE(parse_quantity("", v, bytes));
  EXPECT_FALSE(parse_quantity("1e999", v, bytes));  // not finite
}

TEST(PlotScale, WantsLogOnlyForWidePositiveRanges) {
  EXPECT_TRUE(wants_log(std::vector<double>{1, 30}));
  EXPECT_FALSE(wants_log(std::vector<double>{1, 29}));
  EXPECT_FALSE(wants_log(std::vector<double>{0, 1000}));
  EXPECT_FALSE(wants_log(std::vector<double>{}));
}

TEST(SvgPlot, LinePlotDeclaresAndDrawsEveryDrawablePoint) {
  LinePlot p;
  p.title = "throughput <by> size";
  p.x = {"size", true, ValueKind::kBytes};
  p.y = {"rate", true, ValueKind::kBytesPerSecond};
  p.series.push_back({"memset", {{4096, 6e10}, {65536, 9e10}, {1 << 20, 8e10}}});
  p.series.push_back({"nt", {{4096, 1e10}, {65536, 0}, {1 << 20, 4e10}}});  // 0: not on a log axis
  p.marks.push_back({49152, "L1d 48 KiB"});
  const std::string svg = render_line_plot(p);
  EXPECT_NE(svg.find("<figure class=\"plot\" data-points=\"5\">"), std::string::npos) << svg;
  EXPECT_EQ(count_occurrences(svg, "class=\"pt\""), 5);
  EXPECT_EQ(count_occurrences(svg, "<polyline"), 2);
  EXPECT_NE(svg.find("throughput &lt;by&gt; size"), std::string::npos);
  EXPECT_NE(svg.find(">L1d 48 KiB</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>memset: 64 KiB → 90 GB/s</title>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">memset</text>"), std::string::npos);  // legend
}

TEST(SvgPlot, NothingToDrawIsSaidNotDrawn) {
  LinePlot p;
  p.title = "empty";
  p.x.log = true;
  p.series.push_back({"only non-positive", {{0, 1}, {-1, 2}}});
  const std::string svg = render_line_plot(p);
  EXPECT_EQ(svg.find("class=\"plot\""), std::string::npos);
  EXPECT_NE(svg.find("<figure class=\"plot-empty\">"), std::string::npos);
  EXPECT_EQ(svg.find("<svg"), std::string::npos);

  StripPlot s;
  s.title = "no samples";
  s.rows.push_back({"a", {}, 0, 0, 0});
  EXPECT_NE(render_strip_plot(s).find("plot-empty"), std::string::npos);
}

TEST(SvgPlot, StripPlotShowsSamplesMedianAndInterval) {
  StripPlot p;
  p.title = "ratio";
  p.x = {"ns/op", false, ValueKind::kNanoseconds};
  p.rows.push_back({"slower", {10, 11, 12, 13, 14, 15}, 12.5, 10, 15});
  p.rows.push_back({"faster", {5, 6}, 5.5, 5.5, 5.5});  // no interval: no band
  p.rows.push_back({"missing", {}, 0, 0, 0});
  const std::string svg = render_strip_plot(p);
  EXPECT_NE(svg.find("data-points=\"8\""), std::string::npos);
  EXPECT_EQ(count_occurrences(svg, "class=\"pt\""), 8);
  EXPECT_EQ(count_occurrences(svg, "class=\"median\""), 2);
  EXPECT_EQ(count_occurrences(svg, "class=\"ci\""), 1);
  EXPECT_NE(svg.find("<title>median 12.5 ns</title>"), std::string::npos);
  EXPECT_NE(svg.find(">no samples</text>"), std::string::npos);
}

// A row of many samples draws kMaxDotsPerRow evenly spaced quantiles (its
// smallest and largest among them) and says so: the page of a huge input
// grows with its rows, not its samples.
TEST(SvgPlot, AStripOfManySamplesDrawsEvenlySpacedQuantiles) {
  StripPlot p;
  p.title = "many";
  p.caption = "Every sample.";
  p.x = {"ns/op", false, ValueKind::kNanoseconds};
  std::vector<double> samples;
  for (int i = 0; i < 100000; ++i) samples.push_back(static_cast<double>((i * 7919) % 100000) + 1);
  p.rows.push_back({"big", samples, 50000, 49000, 51000});
  p.rows.push_back({"small", {5, 6}, 5.5, 5.5, 5.5});
  const std::string svg = render_strip_plot(p);
  const std::size_t dots = kMaxDotsPerRow + 2;
  EXPECT_NE(svg.find("data-points=\"" + std::to_string(dots) + "\""), std::string::npos);
  EXPECT_EQ(count_occurrences(svg, "class=\"pt\""), static_cast<int>(dots));
  for (const double v : {1.0, 100000.0}) {
    EXPECT_NE(svg.find("<title>big: " + html_escape(format_value(v, ValueKind::kNanoseconds)) +
                       "</title>"),
              std::string::npos)
        << v;
  }
  EXPECT_NE(
      svg.find("Every sample. Rows with more than " + std::to_string(kMaxDotsPerRow) +
               " samples show " + std::to_string(kMaxDotsPerRow) + " evenly spaced quantiles."),
      std::string::npos);
  EXPECT_LT(svg.size(), 100000u);
}

TEST(HtmlPage, SelfContainedWithAPolicyThatForbidsFetches) {
  const std::string page = html_page_open("a \"title\"") + html_page_close();
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\""),
            std::string::npos);
  EXPECT_NE(page.find("<title>a &quot;title&quot;</title>"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
}

TEST(HtmlEscape, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(html_escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

}  // namespace
}  // namespace zerolab::report
