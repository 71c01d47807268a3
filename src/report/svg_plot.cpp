// Line and strip plots as inline SVG (svg_plot.hpp).
#include "report/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace zerolab::report {
namespace {

// Colour-blind-safe categorical palette (Okabe & Ito's eight, then darker
// variants), cycled when there are more series.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
                                    "#56B4E9", "#000000", "#F0E442", "#7F3C8D", "#11A579"};
constexpr std::size_t kPaletteSize = sizeof kPalette / sizeof kPalette[0];

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string truncate(const std::string& s, std::size_t max_chars) {
  if (s.size() <= max_chars) return s;
  std::size_t cut = max_chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
  return s.substr(0, cut) + "…";
}

bool drawable(double v, bool log) {
  return std::isfinite(v) && (!log || v > 0);
}

std::string svg_open(double width, double height, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(width) + " " +
         num(height) + "\" width=\"" + num(width) + "\" height=\"" + num(height) +
         "\" role=\"img\" aria-label=\"" + html_escape(title) + "\">\n";
}

std::string figure_open(const std::string& title, const std::string& caption, int points) {
  std::string out = "<figure class=\"plot\" data-points=\"" + std::to_string(points) + "\">\n";
  out += "<figcaption><b>" + html_escape(title) + "</b>";
  if (!caption.empty()) out += "<br><span class=\"caption\">" + html_escape(caption) + "</span>";
  out += "</figcaption>\n";
  return out;
}

std::string empty_figure(const std::string& title, const std::string& why) {
  return "<figure class=\"plot-empty\"><figcaption><b>" + html_escape(title) +
         "</b></figcaption><p class=\"empty\">" + html_escape(why) + "</p></figure>\n";
}

std::string text(double x, double y, const std::string& anchor, const std::string& content,
                 const std::string& cls = "tick") {
  return "<text class=\"" + cls + "\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" +
         anchor + "\">" + html_escape(content) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& cls) {
  return "<line class=\"" + cls + "\" x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" +
         num(x2) + "\" y2=\"" + num(y2) + "\"/>\n";
}

// Vertical grid lines at the x ticks, with their labels under the plot area.
std::string x_ticks(const AxisScale& sx, ValueKind kind, double left, double width, double top,
                    double height) {
  std::string out;
  const std::vector<std::string> labels = format_ticks(sx.ticks, kind);
  for (std::size_t i = 0; i < sx.ticks.size(); ++i) {
    const double x = left + sx.to_unit(sx.ticks[i]) * width;
    out += line(x, top, x, top + height, "grid");
    out += text(x, top + height + 16, "middle", labels[i]);
  }
  return out;
}

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void add_point(LinePlot& plot, const std::string& series, double x, double y) {
  auto it = std::find_if(plot.series.begin(), plot.series.end(),
                         [&](const Series& s) { return s.name == series; });
  if (it == plot.series.end()) it = plot.series.insert(plot.series.end(), Series{series, {}});
  it->points.emplace_back(x, y);
}

std::vector<double> x_values(const LinePlot& plot) {
  std::vector<double> xs;
  for (const Series& s : plot.series) {
    for (const auto& point : s.points) xs.push_back(point.first);
  }
  return xs;
}

std::vector<double> y_values(const LinePlot& plot) {
  std::vector<double> ys;
  for (const Series& s : plot.series) {
    for (const auto& point : s.points) ys.push_back(point.second);
  }
  return ys;
}

std::vector<double> all_samples(const StripPlot& plot) {
  std::vector<double> xs;
  for (const StripRow& r : plot.rows) xs.insert(xs.end(), r.samples.begin(), r.samples.end());
  return xs;
}

std::string render_line_plot(const LinePlot& p) {
  std::vector<double> xs;
  std::vector<double> ys;
  int points = 0;
  for (const Series& s : p.series) {
    for (const auto& [x, y] : s.points) {
      if (!drawable(x, p.x.log) || !drawable(y, p.y.log)) continue;
      xs.push_back(x);
      ys.push_back(y);
      ++points;
    }
  }
  if (points == 0) return empty_figure(p.title, "No measurements to plot.");
  for (const Mark& m : p.marks) {
    if (drawable(m.x, p.x.log)) xs.push_back(m.x);
  }
  const AxisScale sx = make_scale(xs, p.x.log, p.x.kind);
  const AxisScale sy = make_scale(ys, p.y.log, p.y.kind, p.y_from_zero && !p.y.log);

  constexpr double kWidth = 760, kHeight = 360;
  constexpr double kLeft = 76, kRight = 170, kTop = 14, kBottom = 50;
  constexpr double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + sx.to_unit(x) * pw; };
  auto py = [&](double y) { return kTop + (1 - sy.to_unit(y)) * ph; };

  std::string out = figure_open(p.title, p.caption, points);
  out += svg_open(kWidth, kHeight, p.title);
  out += "<rect class=\"area\" x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" +
         num(pw) + "\" height=\"" + num(ph) + "\"/>\n";
  out += x_ticks(sx, p.x.kind, kLeft, pw, kTop, ph);
  const std::vector<std::string> y_labels = format_ticks(sy.ticks, p.y.kind);
  for (std::size_t i = 0; i < sy.ticks.size(); ++i) {
    out += line(kLeft, py(sy.ticks[i]), kLeft + pw, py(sy.ticks[i]), "grid");
    out += text(kLeft - 6, py(sy.ticks[i]) + 4, "end", y_labels[i]);
  }
  int mark_row = 0;
  for (const Mark& m : p.marks) {
    if (!drawable(m.x, p.x.log)) continue;
    out += line(px(m.x), kTop, px(m.x), kTop + ph, "mark");
    // Labels near the right edge go left of their line, so they stay inside the plot.
    const bool right = px(m.x) > kLeft + pw * 0.8;
    out += text(px(m.x) + (right ? -3 : 3), kTop + 12 + 12.0 * (mark_row++ % 3),
                right ? "end" : "start", m.label, "mark-label");
  }
  for (std::size_t i = 0; i < p.series.size(); ++i) {
    const Series& s = p.series[i];
    const char* colour = kPalette[i % kPaletteSize];
    auto pts = s.points;
    std::sort(pts.begin(), pts.end());
    std::string poly;
    for (const auto& [x, y] : pts) {
      if (!drawable(x, p.x.log) || !drawable(y, p.y.log)) continue;
      poly += (poly.empty() ? "" : " ") + num(px(x)) + "," + num(py(y));
    }
    if (!poly.empty()) {
      out += "<polyline class=\"series\" fill=\"none\" stroke=\"" + std::string(colour) +
             "\" points=\"" + poly + "\"/>\n";
    }
    for (const auto& [x, y] : pts) {
      if (!drawable(x, p.x.log) || !drawable(y, p.y.log)) continue;
      out += "<circle class=\"pt\" cx=\"" + num(px(x)) + "\" cy=\"" + num(py(y)) +
             "\" r=\"3\" fill=\"" + colour + "\"><title>" + html_escape(s.name) + ": " +
             html_escape(format_value(x, p.x.kind)) + " → " +
             html_escape(format_value(y, p.y.kind)) + "</title></circle>\n";
    }
    const double ly = kTop + 8 + 16.0 * static_cast<double>(i);
    if (ly < kHeight - 8) {
      out += "<rect x=\"" + num(kLeft + pw + 12) + "\" y=\"" + num(ly - 5) +
             "\" width=\"12\" height=\"4\" fill=\"" + colour + "\"/>\n";
      out += text(kLeft + pw + 28, ly, "start", truncate(s.name, 22), "legend");
    }
  }
  out += text(kLeft + pw / 2, kHeight - 10, "middle", p.x.label + (p.x.log ? " (log scale)" : ""),
              "axis");
  out += "<text class=\"axis\" transform=\"translate(14 " + num(kTop + ph / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" +
         html_escape(p.y.label + (p.y.log ? " (log scale)" : "")) + "</text>\n";
  out += "</svg>\n</figure>\n";
  return out;
}

std::string render_strip_plot(const StripPlot& p) {
  // A row's dots: every drawable sample, or of a row with more than
  // kMaxDotsPerRow of them, that many evenly spaced quantiles (the
  // smallest and the largest among them), so a page of a huge input stays
  // readable and its size bounded by the rows, not the samples.
  std::vector<std::vector<double>> dots(p.rows.size());
  bool thinned = false;
  std::vector<double> xs;
  int points = 0;
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const StripRow& r = p.rows[i];
    std::vector<double>& d = dots[i];
    for (const double v : r.samples) {
      if (drawable(v, p.x.log)) d.push_back(v);
    }
    if (d.size() > kMaxDotsPerRow) {
      std::vector<double> sorted = std::move(d);
      std::sort(sorted.begin(), sorted.end());
      d.clear();
      for (std::size_t k = 0; k < kMaxDotsPerRow; ++k)
        d.push_back(sorted[k * (sorted.size() - 1) / (kMaxDotsPerRow - 1)]);
      thinned = true;
    }
    for (const double v : d) {
      xs.push_back(v);
      ++points;
    }
    for (const double v : {r.lo, r.hi}) {
      if (drawable(v, p.x.log) && !r.samples.empty()) xs.push_back(v);
    }
  }
  if (points == 0) return empty_figure(p.title, "No samples to plot.");
  const AxisScale sx = make_scale(xs, p.x.log, p.x.kind);

  constexpr double kWidth = 760, kRowHeight = 30;
  constexpr double kLeft = 250, kRight = 24, kTop = 10, kBottom = 42;
  const double height = kTop + kRowHeight * static_cast<double>(p.rows.size()) + kBottom;
  constexpr double pw = kWidth - kLeft - kRight;
  const double ph = kRowHeight * static_cast<double>(p.rows.size());
  auto px = [&](double x) { return kLeft + sx.to_unit(x) * pw; };

  std::string out = figure_open(
      p.title,
      p.caption + (thinned ? (p.caption.empty() ? "" : " ") + std::string("Rows with more than ") +
                                 std::to_string(kMaxDotsPerRow) + " samples show " +
                                 std::to_string(kMaxDotsPerRow) + " evenly spaced quantiles."
                           : std::string()),
      points);
  out += svg_open(kWidth, height, p.title);
  out += "<rect class=\"area\" x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" +
         num(pw) + "\" height=\"" + num(ph) + "\"/>\n";
  out += x_ticks(sx, p.x.kind, kLeft, pw, kTop, ph);
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const StripRow& r = p.rows[i];
    const char* colour = kPalette[i % kPaletteSize];
    const double mid = kTop + kRowHeight * (static_cast<double>(i) + 0.5);
    out += text(kLeft - 8, mid + 4, "end", truncate(r.label, 40), "row-label");
    if (r.samples.empty()) {
      out += text(kLeft + 6, mid + 4, "start", "no samples", "note");
      continue;
    }
    if (drawable(r.lo, p.x.log) && drawable(r.hi, p.x.log) && r.hi > r.lo) {
      out += "<rect class=\"ci\" x=\"" + num(px(r.lo)) + "\" y=\"" + num(mid - 10) + "\" width=\"" +
             num(std::max(px(r.hi) - px(r.lo), 1.0)) + "\" height=\"20\" fill=\"" + colour +
             "\"><title>confidence interval " + html_escape(format_value(r.lo, p.x.kind)) + " – " +
             html_escape(format_value(r.hi, p.x.kind)) + "</title></rect>\n";
    }
    if (drawable(r.center, p.x.log)) {
      out += "<line class=\"median\" x1=\"" + num(px(r.center)) + "\" y1=\"" + num(mid - 12) +
             "\" x2=\"" + num(px(r.center)) + "\" y2=\"" + num(mid + 12) + "\"><title>median " +
             html_escape(format_value(r.center, p.x.kind)) + "</title></line>\n";
    }
    for (std::size_t k = 0; k < dots[i].size(); ++k) {
      const double v = dots[i][k];
      // A fixed vertical spread, so equal samples stay visible as several dots.
      const double jitter = (static_cast<double>((k * 7) % 5) - 2.0) * 2.5;
      out += "<circle class=\"pt\" cx=\"" + num(px(v)) + "\" cy=\"" + num(mid + jitter) +
             "\" r=\"3.5\" fill=\"" + colour + "\"><title>" + html_escape(r.label) + ": " +
             html_escape(format_value(v, p.x.kind)) + "</title></circle>\n";
    }
  }
  out += text(kLeft + pw / 2, height - 10, "middle", p.x.label + (p.x.log ? " (log scale)" : ""),
              "axis");
  out += "</svg>\n</figure>\n";
  return out;
}

}  // namespace zerolab::report
