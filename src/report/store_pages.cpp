// report/store_pages.cpp — see store_pages.hpp.
#include "report/store_pages.hpp"

#include <cmath>

#include "report/html_page.hpp"
#include "report/plot_scale.hpp"
#include "report/svg_plot.hpp"
#include "store/store_args.hpp"
#include "zerolab/stat.hpp"

namespace zerolab::report {
namespace {

// A CSS class for a verdict word.
std::string verdict_class(const std::string& v) {
  if (v == "replicates" || v == "holds") return "ok";
  if (v == "contradicts" || v == "does not hold" || v == "error") return "bad";
  if (v.empty() || v == "-") return "none";
  return "unsure";
}

}  // namespace

std::string render_history_html(const store::History& h, const std::string& store_display) {
  std::string page = html_page_open("zerolab history");
  page += "<h1>zerolab history</h1>\n<p>" + html_escape(store_display) + ": " +
          std::to_string(h.series.size()) + " series over " + std::to_string(h.runs) +
          (h.options.by_commit ? " runs, one point per commit" : " runs") +
          ". A change point (a vertical line) is where the " + std::to_string(h.options.window) +
          " points before and the points from it on differ by more than " +
          html_escape(stat::format_go_float(h.options.threshold)) + "% with p &le; " +
          html_escape(stat::format_go_float(h.options.alpha)) +
          " (Mann-Whitney U, as zerolab compare).</p>\n";
  std::string list;
  for (const store::Series& s : h.series) {
    for (const store::ChangePoint& c : s.changes)
      list += "<li>" + html_escape(store::describe_change(s, c, h.several_machines)) + "</li>\n";
  }
  page += list.empty() ? "<p>No change points.</p>\n"
                       : "<h2>Change points</h2>\n<ul>\n" + list + "</ul>\n";
  for (const store::Series& s : h.series) {
    LinePlot plot;
    plot.title = store::series_title(s, h.several_machines);
    plot.caption = std::to_string(s.points.size()) + " points from " +
                   store::format_time_ms(s.points.front().unix_ms) + " to " +
                   store::format_time_ms(s.points.back().unix_ms) +
                   "; each is the median of its samples.";
    const UnitView view = unit_view(s.unit);
    plot.x = {h.options.by_commit ? "commit (in order)" : "run (in time order)", false,
              ValueKind::kNumber};
    plot.y = {s.unit, false, view.kind};
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      if (std::isfinite(s.points[i].center)) {
        add_point(plot, "median", static_cast<double>(i + 1), s.points[i].center * view.scale);
      }
    }
    for (const store::ChangePoint& c : s.changes) {
      plot.marks.push_back({static_cast<double>(c.point + 1), store::percent_text(c.percent)});
    }
    page += render_line_plot(plot);
  }
  page += html_page_close();
  return page;
}

std::string render_matrix_html(const store::ClaimMatrix& m, const std::string& store_display) {
  std::string page = html_page_open("zerolab lab across machines");
  page +=
      "<style>table.matrix td.ok{background:#dff0d8}table.matrix td.bad{background:#f2dede}"
      "table.matrix td.unsure{background:#fcf8e3}table.matrix td.none{color:#888}"
      "table.matrix td,table.matrix th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}"
      "table.matrix{border-collapse:collapse}</style>\n";
  page += "<h1>The lab across machines</h1>\n<p>" + html_escape(store_display) + ": " +
          std::to_string(m.rows.size()) + " claims on " + std::to_string(m.columns.size()) +
          " machines, each machine's latest lab run. Each cell: the claim measured in Go on that "
          "machine "
          "(Go) and on zerolab's C++ (C++).</p>\n";
  page += "<table class=\"matrix\">\n<tr><th>experiment</th><th>claim</th>";
  for (const store::MatrixColumn& c : m.columns) {
    page += "<th>" + html_escape(c.machine) + "<br><small>" + html_escape(c.run_id.substr(0, 8)) +
            " " + html_escape(store::format_time_ms(c.unix_ms)) + "</small></th>";
  }
  page += "</tr>\n";
  for (const store::MatrixRow& row : m.rows) {
    page += "<tr><td>" + html_escape(row.experiment) + "</td><td>" + html_escape(row.statement) +
            "</td>";
    for (const store::MatrixCell& cell : row.cells) {
      if (!cell.present) {
        page += "<td class=\"none\">not run</td>";
        continue;
      }
      const std::string cpp = store::cpp_verdict(cell.claim);
      page += "<td class=\"" + verdict_class(cpp) +
              "\">Go: " + html_escape(store::verdict_or_dash(cell.claim.go_verdict)) +
              "<br>C++: " + html_escape(store::verdict_or_dash(cpp)) +
              (cell.claim.provisional ? " (provisional)" : "") +
              (cell.claim.figure.empty()
                   ? ""
                   : "<br><small>" + html_escape(cell.claim.figure) + "</small>") +
              "</td>";
    }
    page += "</tr>\n";
  }
  page += "</table>\n";
  page += html_page_close();
  return page;
}

}  // namespace zerolab::report
