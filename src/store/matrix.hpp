// store/matrix.hpp — the lab across machines: every claim (rows) against
// every machine that submitted a lab run (columns), each cell the claim's
// Go-here and C++-here verdicts from that machine's latest lab run.
//
// Thread-safety: pure functions.
//
// Example:
//   ClaimMatrix m = build_matrix(store.load_lab_claims());
//   std::string text = render_matrix_text(m);  // the HTML page: report/store_pages.hpp
//   // merge: ... | Go: replicates  C++: replicates | Go: -  C++: contradicts
#ifndef ZEROLAB_SRC_STORE_MATRIX_HPP_
#define ZEROLAB_SRC_STORE_MATRIX_HPP_

#include <string>
#include <vector>

#include "store/run.hpp"

namespace zerolab::store {

struct MatrixColumn {
  std::string machine;
  std::string run_id;  // the latest lab run of this machine
  std::int64_t unix_ms = 0;
};

struct MatrixCell {
  bool present = false;  // the machine's run judged this claim
  StoredClaim claim;
};

struct MatrixRow {
  std::string experiment;
  std::string statement;
  std::vector<MatrixCell> cells;  // one per column
};

struct ClaimMatrix {
  std::vector<MatrixColumn> columns;
  std::vector<MatrixRow> rows;
};

// runs: lab runs oldest first (Store::load_lab_claims()).
ClaimMatrix build_matrix(const std::vector<Run>& runs);

// The claim's C++ verdict: the lab's own verdict stands in for it when
// cpp_verdict is empty.
std::string cpp_verdict(const StoredClaim& claim);

// A verdict as a cell shows it: "-" when none was recorded.
std::string verdict_or_dash(const std::string& verdict);

// "Go: replicates  C++: contradicts"; "-" for a verdict not recorded.
std::string cell_text(const MatrixCell& cell);

std::string render_matrix_text(const ClaimMatrix& m);
std::string render_matrix_markdown(const ClaimMatrix& m);
std::string render_matrix_json(const ClaimMatrix& m);
// The HTML page is report/store_pages.hpp's render_matrix_html.

}  // namespace zerolab::store

#endif  // ZEROLAB_SRC_STORE_MATRIX_HPP_
