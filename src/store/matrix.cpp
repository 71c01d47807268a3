// store/matrix.cpp — see matrix.hpp.
#include "store/matrix.hpp"

#include <map>
#include <utility>

#include "store/history.hpp"
#include "store/store_args.hpp"
#include "text/markdown.hpp"

namespace zerolab::store {

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

std::string verdict_or_dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

std::string cpp_verdict(const StoredClaim& c) {
  return c.cpp_verdict.empty() ? c.verdict : c.cpp_verdict;
}

std::string cell_text(const MatrixCell& cell) {
  if (!cell.present) return "not run";
  return "Go: " + verdict_or_dash(cell.claim.go_verdict) +
         "  C++: " + verdict_or_dash(cpp_verdict(cell.claim)) +
         (cell.claim.provisional ? " (provisional)" : "");
}

std::string render_matrix_text(const ClaimMatrix& m) {
  std::string out;
  for (std::size_t c = 0; c < m.columns.size(); ++c) {
    out += "machine " + std::to_string(c + 1) + ": " + terminal_text(m.columns[c].machine) +
           " (run " + m.columns[c].run_id.substr(0, 8) + ", " +
           format_time_ms(m.columns[c].unix_ms) + ")\n";
  }
  for (const MatrixRow& row : m.rows) {
    out += terminal_text(row.experiment) + ": " + terminal_text(row.statement) + "\n";
    for (std::size_t c = 0; c < row.cells.size(); ++c) {
      out += "  machine " + std::to_string(c + 1) + ": " + terminal_text(cell_text(row.cells[c])) +
             "\n";
    }
  }
  if (m.columns.empty()) out += "no lab runs in the store\n";
  return out;
}

std::string render_matrix_markdown(const ClaimMatrix& m) {
  // Stored text: control characters escaped, then Markdown's own.
  auto esc = [](const std::string& s) { return internal::markdown_text(terminal_text(s)); };
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
             ", \"cpp\": " + json_string(cpp_verdict(cell.claim)) +
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

}  // namespace zerolab::store
