// report/svg_plot.hpp — the two plots zerolab's HTML reports draw, as inline
// SVG inside a <figure>: a line plot (medians against a swept parameter,
// one line per series, optional vertical marks such as cache sizes) and a
// strip plot (every sample of a few benchmarks as dots, with the median and
// its confidence interval).
//
// The markup follows one contract, which tests/browser checks in Chromium:
// each plot is <figure class="plot" data-points="K">, and its K data points
// are the SVG elements with class "pt" (each with a <title> giving its
// values, shown on hover). A plot with nothing to draw becomes
// <figure class="plot-empty"> with a sentence saying so, never an empty axis.
//
// Thread-safety: pure functions.
//
// Example:
//   LinePlot p;
//   p.title = "zeroing throughput";
//   p.x = {"size", true, ValueKind::kBytes};
//   p.y = {"throughput", true, ValueKind::kBytesPerSecond};
//   p.series.push_back({"memset", {{4096, 6.1e10}, {65536, 8.9e10}}});
//   p.marks.push_back({49152, "L1d"});
//   std::string html = render_line_plot(p);
#ifndef ZEROLAB_SRC_REPORT_SVG_PLOT_HPP_
#define ZEROLAB_SRC_REPORT_SVG_PLOT_HPP_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/plot_scale.hpp"

namespace zerolab::report {

struct Axis {
  std::string label;
  bool log = false;
  ValueKind kind = ValueKind::kNumber;
};

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in x order
};

// A labelled vertical line at x ("L2 1 MiB").
struct Mark {
  double x = 0;
  std::string label;
};

struct LinePlot {
  std::string title;
  std::string caption;  // one sentence under the title; may be empty
  Axis x;
  Axis y;
  bool y_from_zero = false;  // linear y axis starts at 0
  std::vector<Series> series;
  std::vector<Mark> marks;
};

// One benchmark's samples, with its median and confidence interval.
struct StripRow {
  std::string label;
  std::vector<double> samples;
  double center = 0;
  double lo = 0;  // the interval; lo == hi == center when it is unknown
  double hi = 0;
};

// A strip shows at most this many dots (see render_strip_plot).
inline constexpr std::size_t kMaxDotsPerRow = 100;

struct StripPlot {
  std::string title;
  std::string caption;
  Axis x;  // the measured value
  std::vector<StripRow> rows;
};

// Appends (x, y) to the series named `series`, adding it last when new.
void add_point(LinePlot& plot, const std::string& series, double x, double y);

// Every x, or every y, of every series' points; every sample of every row.
std::vector<double> x_values(const LinePlot& plot);
std::vector<double> y_values(const LinePlot& plot);
std::vector<double> all_samples(const StripPlot& plot);

// <figure class="plot" ...> with an inline <svg>, or <figure class="plot-empty">.
std::string render_line_plot(const LinePlot& plot);
std::string render_strip_plot(const StripPlot& plot);

// Text made safe for HTML element content and double-quoted attributes.
std::string html_escape(std::string_view text);

}  // namespace zerolab::report

#endif  // ZEROLAB_SRC_REPORT_SVG_PLOT_HPP_
