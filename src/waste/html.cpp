// `zerolab waste --format html` (html.hpp).
#include "waste/html.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace zerolab::waste {
namespace {

constexpr double kWidth = 1160;  // svg width, px
constexpr double kRow = 18;      // one frame's height, px
constexpr double kMinBox = 1;    // narrower boxes are not drawn
constexpr double kCharWidth = 6.6;

constexpr const char* kStyle = R"css(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1200px; color: #111; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 36px; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font-size: 12px; }
.fix { background: #eef6ee; border-left: 4px solid #5a5; padding: 6px 10px; }
.blurb { color: #444; }
figure.plot { margin: 12px 0; }
figcaption { margin-bottom: 4px; }
.caption { color: #555; font-size: 12px; }
svg .pt { stroke: #fff; stroke-width: 0.5; }
svg .root { fill: #ccc; }
svg text { font: 11px monospace; fill: #111; pointer-events: none; }
.note { color: #555; }
tr.thread td { color: #444; font-size: 13px; }
tr.thread td:first-child { padding-left: 24px; }
)css";

std::string escape(const std::string& s) {
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

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string count(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", std::round(v));
  return buf;
}

std::string frame_label(const CallFrame& f) {
  if (f.file.empty()) return f.function;
  return f.function + " (" + f.file + ")";
}

// At most `chars` characters of `s` (UTF-8 kept whole), "…" when cut.
std::string fit(const std::string& s, std::size_t chars) {
  if (s.size() <= chars) return s;
  if (chars < 2) return "";
  std::size_t cut = chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "…";
}

// A warm colour per function name, stable across runs.
std::string colour(const std::string& function) {
  const std::size_t h = std::hash<std::string>{}(function);
  const int hue = static_cast<int>(h % 50);                // red to yellow
  const int light = 62 + static_cast<int>((h >> 8) % 16);  // 62..77 %
  return "hsl(" + std::to_string(hue) + ",80%," + std::to_string(light) + "%)";
}

struct Box {
  double x = 0;
  double width = 0;
  int depth = 0;
  const CallNode* node = nullptr;
};

void lay_out(const CallNode& node, double x, double width, int depth,
             const std::function<double(const Amount&)>& value, std::vector<Box>& out) {
  if (width < kMinBox) return;
  out.push_back({x, width, depth, &node});
  const double total = value(node.amount);
  if (total <= 0) return;
  double at = x;
  for (const CallNode& c : node.children) {
    const double w = width * value(c.amount) / total;
    lay_out(c, at, w, depth + 1, value, out);
    at += w;
  }
}

// One icicle graph of a finding's call tree: the root ("all") on top, each
// frame's callees below it, widths by `value`.
std::string icicle(const Finding& f, const std::string& title, const std::string& unit,
                   const std::function<double(const Amount&)>& value,
                   const std::function<std::string(double)>& shown) {
  std::vector<Box> boxes;
  lay_out(f.tree, 0, kWidth, 0, value, boxes);
  const double total = value(f.tree.amount);
  if (boxes.empty() || total <= 0) {
    return "<p class=\"note\">" + escape(title) + ": nothing to draw (no " + escape(unit) +
           " recorded at any site).</p>\n";
  }
  int depth = 0;
  for (const Box& b : boxes) depth = std::max(depth, b.depth);
  const double height = (depth + 1) * kRow;
  std::string out = "<figure class=\"plot\" data-points=\"" + std::to_string(boxes.size()) +
                    "\">\n<figcaption><b>" + escape(title) +
                    "</b><br><span class=\"caption\">Each box is a frame, as wide as the " +
                    escape(unit) +
                    " of the stacks through it; its callees are below it. Hover a box for its "
                    "figures.</span></figcaption>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(kWidth) + " " +
         num(height) + "\" width=\"" + num(kWidth) + "\" height=\"" + num(height) +
         "\" role=\"img\" aria-label=\"" + escape(title) + "\">\n";
  for (const Box& b : boxes) {
    const CallNode& n = *b.node;
    const bool root = b.depth == 0;
    const std::string name = root ? "all" : frame_label(n.frame);
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100 * value(n.amount) / total);
    const std::string tip = name + "\n" + bytes_text(n.amount.bytes) + " in " +
                            count(n.amount.calls) + " calls, ~" + seconds_text(n.amount.seconds) +
                            " (" + pct + " of " + shown(total) + ")";
    out += "<rect class=\"pt" + std::string(root ? " root" : "") + "\" x=\"" + num(b.x) +
           "\" y=\"" + num(b.depth * kRow) + "\" width=\"" + num(b.width) + "\" height=\"" +
           num(kRow - 1) + "\"" + (root ? "" : " fill=\"" + colour(n.frame.function) + "\"") +
           "><title>" + escape(tip) + "</title></rect>\n";
    const auto chars = static_cast<std::size_t>(std::max(0.0, (b.width - 4) / kCharWidth));
    const std::string label = fit(root ? "all: " + shown(total) : n.frame.function, chars);
    if (chars >= 3 && !label.empty()) {
      out += "<text x=\"" + num(b.x + 2) + "\" y=\"" + num(b.depth * kRow + 12.5) + "\">" +
             escape(label) + "</text>\n";
    }
  }
  out += "</svg>\n</figure>\n";
  return out;
}

std::string command_text(const std::vector<std::string>& args) {
  std::string s;
  for (const std::string& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

std::string render_html(const Report& r) {
  const std::string program = command_text(r.run.program);
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'; img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<link rel=\"icon\" href=\"data:,\">\n<title>zerolab waste: " +
      escape(program) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1>zerolab waste: <code>" + escape(program) + "</code></h1>\n";
  out += "<p>" + escape(status_text(r.run)) + ", " + std::to_string(r.processes) +
         " process image" + (r.processes == 1 ? "" : "s") + ", " + num(r.run.wall_seconds) +
         " s wall.</p>\n";
  if (r.findings.empty()) {
    out += "<p>No waste found.</p>\n";
  } else {
    out += "<p class=\"note\">Times are estimates, priced with costs measured on this machine " +
           escape(calibration_when(r.calibration)) +
           ".</p>\n<table>\n<tr><th>#</th><th>kind</th><th>bytes</th><th>calls</th>"
           "<th>estimated time</th><th>fix</th></tr>\n";
    int rank = 0;
    for (const Finding& f : r.findings) {
      const std::string kind(kind_name(f.kind));
      out += "<tr><td class=\"num\">" + std::to_string(++rank) + "</td><td><a href=\"#" + kind +
             "\">" + kind + "</a></td><td class=\"num\">" + bytes_text(f.bytes) +
             (f.exact ? "" : " (est.)") + "</td><td class=\"num\">" + count(f.calls) +
             "</td><td class=\"num\">" + seconds_text(f.estimated_seconds) + "</td><td>" +
             escape(fix_for(f)) + "</td></tr>\n";
    }
    out += "</table>\n";
  }
  for (const Finding& f : r.findings) {
    const std::string kind(kind_name(f.kind));
    out += "<h2 id=\"" + kind + "\">" + kind + "</h2>\n";
    out += "<p class=\"blurb\">" + escape(kind_description(f.kind)) + ". " + bytes_text(f.bytes) +
           " in " + count(f.calls) + " calls, ~" + seconds_text(f.estimated_seconds) +
           (f.exact ? "" : "; bytes and calls estimated from samples") + ".</p>\n";
    out += "<p class=\"fix\"><b>Fix:</b> " + escape(fix_for(f)) + "</p>\n";
    out += icicle(
        f, kind + ": bytes over the call tree", "bytes", [](const Amount& a) { return a.bytes; },
        [](double v) { return bytes_text(v); });
    out += icicle(
        f, kind + ": estimated time over the call tree", "estimated time",
        [](const Amount& a) { return a.seconds; }, [](double v) { return seconds_text(v); });
    if (!f.sites.empty()) {
      out += "<table>\n<tr><th>bytes</th><th>calls</th><th>site</th><th>called from</th></tr>\n";
      const std::size_t shown = std::min<std::size_t>(f.sites.size(), 20);
      for (std::size_t i = 0; i < shown; ++i) {
        const ReportSite& s = f.sites[i];
        std::string where = s.function;
        if (!s.file.empty()) where += " " + s.file + ":" + std::to_string(s.line);
        if (s.src >= 0) {
          where += std::string(" [") + fd_type_name(s.src) + " → " + fd_type_name(s.dst) + "]";
        }
        std::string callers;
        for (std::size_t k = 1; k < s.stack.size() && k < 6; ++k)
          callers += (callers.empty() ? "" : "<br>") + escape(s.stack[k]);
        out += "<tr><td class=\"num\">" + bytes_text(s.bytes) + "</td><td class=\"num\">" +
               count(s.calls) + "</td><td><code>" + escape(where) + "</code></td><td><code>" +
               callers + "</code></td></tr>\n";
      }
      out += "</table>\n";
      if (f.sites.size() > shown) {
        out += "<p class=\"note\">" + std::to_string(f.sites.size() - shown) +
               " more sites: --format json lists all.</p>\n";
      }
    }
  }
  if (!r.per_process.empty()) {
    out +=
        "<h2 id=\"processes\">Per process and thread</h2>\n<table>\n<tr><th>pid</th><th>ppid</th>"
        "<th>bytes</th><th>calls</th><th>estimated time</th><th>kinds</th><th>command</th>"
        "</tr>\n";
    for (const ProcessRow& p : r.per_process) {
      std::string kinds;
      for (int k = 0; k < kWasteKinds; ++k) {
        const Amount& a = p.kinds[k];
        if (std::llround(a.bytes) == 0 && std::llround(a.calls) == 0) continue;
        kinds +=
            (kinds.empty() ? "" : "<br>") +
            escape(std::string(kind_name(static_cast<WasteKind>(k))) + ": " + bytes_text(a.bytes));
      }
      out += "<tr><td class=\"num\">" + std::to_string(p.image.pid) + "</td><td class=\"num\">" +
             std::to_string(p.image.ppid) + "</td><td class=\"num\">" + bytes_text(p.total.bytes) +
             "</td><td class=\"num\">" + count(p.total.calls) + "</td><td class=\"num\">" +
             seconds_text(p.total.seconds) + "</td><td>" + kinds + "</td><td><code>" +
             escape(command_text(p.image.command.empty() ? std::vector<std::string>{p.image.exe}
                                                         : p.image.command)) +
             "</code></td></tr>\n";
      for (const ThreadRow& t : p.threads) {
        if (std::llround(t.total.bytes) == 0 && std::llround(t.total.calls) == 0) continue;
        std::string thread_kinds;
        for (int k = 0; k < kWasteKinds; ++k) {
          const Amount& a = t.kinds[k];
          if (std::llround(a.bytes) == 0 && std::llround(a.calls) == 0) continue;
          thread_kinds += (thread_kinds.empty() ? "" : "<br>") +
                          escape(std::string(kind_name(static_cast<WasteKind>(k))) + ": " +
                                 bytes_text(a.bytes));
        }
        out += "<tr class=\"thread\"><td class=\"num\">thread " + std::to_string(t.thread.tid) +
               "</td><td></td><td class=\"num\">" + bytes_text(t.total.bytes) +
               "</td><td class=\"num\">" + count(t.total.calls) + "</td><td class=\"num\">" +
               seconds_text(t.total.seconds) + "</td><td>" + thread_kinds + "</td><td>" +
               escape(thread_label(t.thread)) + "</td></tr>\n";
      }
    }
    out += "</table>\n";
  }
  for (const std::string& n : r.notes) out += "<p class=\"note\">note: " + escape(n) + "</p>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace zerolab::waste
