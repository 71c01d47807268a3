// store/matrix.cpp — see matrix.hpp.
#include "store/matrix.hpp"

#include <map>
#include <utility>

#include "report/html_page.hpp"
#include "report/svg_plot.hpp"
#include "store/history.hpp"
#include "store/store_args.hpp"

namespace zerolab::store {
namespace {

std::string or_dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

std::string cpp_of(const StoredClaim& c) {
  return c.cpp_verdict.empty() ? c.verdict : c.cpp_verdict;
}

// A CSS class for a verdict word.
std::string verdict_class(const std::string& v) {
  if (v == "replicates" || v == "holds") return "ok";
  if (v == "contradicts" || v == "does not hold" || v == "error") return "bad";
  if (v.empty() || v == "-") return "none";
  return "unsure";
}

}  // namespace

ClaimMatrix build_matrix(const std::vector<Run>& runs) {
  ClaimMatrix m;
  std::map<std::string, const Run*> latest;  // machine → run (runs are oldest first)
  for (const Run& r : runs) {
    if (r.kind == "lab") latest[r.machine] = &r;
  }
  std::map<std::pair<std::string, std::string>, std::size_t> row_index;
  for (const auto& [machine, run] : latest) {
    m.columns.push_back({machine, run->id, run->unix_ms});
  }
  for (std::size_t col = 0; col < m.columns.size(); ++col) {
    const Run& run = *latest[m.columns[col].machine];
    for (const StoredClaim& c : run.claims) {
      auto [it, added] = row_index.try_emplace({c.experiment, c.statement}, m.rows.size());
      if (added)
        m.rows.push_back(
            MatrixRow{c.experiment, c.statement, std::vector<MatrixCell>(m.columns.size())});
      m.rows[it->second].cells[col] = MatrixCell{true, c};
    }
  }
  return m;
}

std::string cell_text(const MatrixCell& cell) {
  if (!cell.present) return "not run";
  return "Go: " + or_dash(cell.claim.go_verdict) + "  C++: " + or_dash(cpp_of(cell.claim)) +
         (cell.claim.provisional ? " (provisional)" : "");
}

std::string render_matrix_text(const ClaimMatrix& m) {
  std::string out;
  for (std::size_t c = 0; c < m.columns.size(); ++c) {
    out += "machine " + std::to_string(c + 1) + ": " + m.columns[c].machine + " (run " +
           m.columns[c].run_id.substr(0, 8) + ", " + format_time_ms(m.columns[c].unix_ms) + ")\n";
  }
  for (const MatrixRow& row : m.rows) {
    out += row.experiment + ": " + row.statement + "\n";
    for (std::size_t c = 0; c < row.cells.size(); ++c) {
      out += "  machine " + std::to_string(c + 1) + ": " + cell_text(row.cells[c]) + "\n";
    }
  }
  if (m.columns.empty()) out += "no lab runs in the store\n";
  return out;
}

std::string render_matrix_markdown(const ClaimMatrix& m) {
  auto esc = [](std::string s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '|') s.replace(i++, 1, "\\|");
    }
    return s;
  };
  std::string out = "| experiment | claim |";
  std::string sep = "|---|---|";
  for (const MatrixColumn& c : m.columns) {
    out += " " + esc(c.machine) + " |";
    sep += "---|";
  }
  out += "\n" + sep + "\n";
  for (const MatrixRow& row : m.rows) {
    out += "| " + esc(row.experiment) + " | " + esc(row.statement) + " |";
    for (const MatrixCell& cell : row.cells) out += " " + esc(cell_text(cell)) + " |";
    out += "\n";
  }
  return out;
}

std::string render_matrix_json(const ClaimMatrix& m) {
  std::string out = "{\"machines\": [";
  for (std::size_t c = 0; c < m.columns.size(); ++c) {
    out += (c ? ", " : "") + std::string("{\"machine\": ") + json_string(m.columns[c].machine) +
           ", \"run\": " + json_string(m.columns[c].run_id) +
           ", \"time\": " + json_string(format_time_ms(m.columns[c].unix_ms)) + "}";
  }
  out += "], \"claims\": [";
  for (std::size_t r = 0; r < m.rows.size(); ++r) {
    const MatrixRow& row = m.rows[r];
    out += r ? ",\n" : "\n";
    out += "{\"experiment\": " + json_string(row.experiment) +
           ", \"claim\": " + json_string(row.statement) + ", \"cells\": [";
    for (std::size_t c = 0; c < row.cells.size(); ++c) {
      const MatrixCell& cell = row.cells[c];
      out += c ? ", " : "";
      if (!cell.present) {
        out += "null";
        continue;
      }
      out += "{\"go\": " + json_string(cell.claim.go_verdict) +
             ", \"cpp\": " + json_string(cpp_of(cell.claim)) +
             ", \"verdict\": " + json_string(cell.claim.verdict) +
             ", \"figure\": " + json_string(cell.claim.figure) +
             ", \"seed_figure\": " + json_string(cell.claim.seed_figure) +
             ", \"detail\": " + json_string(cell.claim.detail) +
             ", \"provisional\": " + (cell.claim.provisional ? "true" : "false") + "}";
    }
    out += "]}";
  }
  out += "\n]}\n";
  return out;
}

std::string render_matrix_html(const ClaimMatrix& m, const std::string& store_display) {
  using report::html_escape;
  std::string page = report::html_page_open("zerolab lab across machines");
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
  for (const MatrixColumn& c : m.columns) {
    page += "<th>" + html_escape(c.machine) + "<br><small>" + html_escape(c.run_id.substr(0, 8)) +
            " " + html_escape(format_time_ms(c.unix_ms)) + "</small></th>";
  }
  page += "</tr>\n";
  for (const MatrixRow& row : m.rows) {
    page += "<tr><td>" + html_escape(row.experiment) + "</td><td>" + html_escape(row.statement) +
            "</td>";
    for (const MatrixCell& cell : row.cells) {
      if (!cell.present) {
        page += "<td class=\"none\">not run</td>";
        continue;
      }
      const std::string cpp = cpp_of(cell.claim);
      page += "<td class=\"" + verdict_class(cpp) +
              "\">Go: " + html_escape(or_dash(cell.claim.go_verdict)) +
              "<br>C++: " + html_escape(or_dash(cpp)) +
              (cell.claim.provisional ? " (provisional)" : "") +
              (cell.claim.figure.empty()
                   ? ""
                   : "<br><small>" + html_escape(cell.claim.figure) + "</small>") +
              "</td>";
    }
    page += "</tr>\n";
  }
  page += "</table>\n";
  page += report::html_page_close();
  return page;
}

}  // namespace zerolab::store
