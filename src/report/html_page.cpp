// The shared page shell (html_page.hpp).
#include "report/html_page.hpp"

#include "report/svg_plot.hpp"

namespace zerolab::report {
namespace {

constexpr const char* kStyle = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f;
       max-width: 1100px; margin: 24px auto; padding: 0 16px; background: #fff; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 36px 0 4px; padding-top: 8px; border-top: 1px solid #ddd; }
h3 { font-size: 15px; margin: 20px 0 6px; }
.sub { color: #555; margin: 0 0 10px; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 13px; }
th, td { border: 1px solid #d6d6d6; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f6; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code, pre { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
pre { background: #f7f7f9; border: 1px solid #e2e2e6; padding: 8px; overflow-x: auto; }
.verdict { font-weight: 600; white-space: nowrap; }
.v-replicates, .v-holds { color: #0a7a2f; }
.v-contradicts, .v-does-not-hold { color: #b3261e; }
.v-inconclusive { color: #8a6100; }
.v-error { color: #fff; background: #b3261e; padding: 0 4px; border-radius: 3px; }
.summary span { display: inline-block; margin-right: 14px; }
.warning { background: #fff4d6; border: 1px solid #e9c46a; padding: 6px 10px; margin: 6px 0; }
.failure { background: #fde7e6; border: 1px solid #e8a29d; padding: 6px 10px; margin: 6px 0; }
figure { margin: 14px 0 22px; }
figcaption { margin-bottom: 4px; }
figcaption .caption { color: #555; font-size: 13px; }
svg { max-width: 100%; height: auto; font: 11px system-ui, sans-serif; }
svg .area { fill: #fbfbfd; stroke: #bbb; }
svg .grid { stroke: #e6e6ea; }
svg .tick { fill: #444; }
svg .axis { fill: #222; font-size: 12px; }
svg .legend, svg .row-label { fill: #222; }
svg .note { fill: #888; font-style: italic; }
svg .mark { stroke: #777; stroke-dasharray: 4 3; }
svg .mark-label { fill: #555; font-size: 10px; }
svg .series { stroke-width: 1.6; }
svg .ci { opacity: 0.18; }
svg .median { stroke: #111; stroke-width: 2; }
svg .pt { stroke: #fff; stroke-width: 0.6; }
.plot-empty p { color: #777; font-style: italic; }
nav ul { columns: 2; margin: 4px 0; }
footer { color: #777; margin-top: 40px; font-size: 12px; }
)css";

}  // namespace

std::string html_page_open(const std::string& title) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'; img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      // An empty icon, so a browser does not try to fetch /favicon.ico.
      "<link rel=\"icon\" href=\"data:,\">\n<title>";
  out += html_escape(title);
  out += "</title>\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n";
  return out;
}

std::string html_page_close() {
  return "</body>\n</html>\n";
}

}  // namespace zerolab::report
