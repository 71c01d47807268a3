// report/store_pages.hpp — the HTML pages of the results store's views:
// `zerolab history -format html` (one plot per series, its change points
// marked) and `zerolab store matrix -format html` (every lab claim against
// every machine). The store (src/store/) builds the data; these render it
// in the shell every zerolab HTML report shares (html_page.hpp).
//
// Thread-safety: pure functions.
//
// Example:
//   store::History h = store::build_history(runs, filter, options);
//   std::string page = report::render_history_html(h, store.display());
//   std::string grid = report::render_matrix_html(store::build_matrix(lab_runs), store.display());
#ifndef ZEROLAB_SRC_REPORT_STORE_PAGES_HPP_
#define ZEROLAB_SRC_REPORT_STORE_PAGES_HPP_

#include <string>

#include "store/history.hpp"
#include "store/matrix.hpp"

namespace zerolab::report {

// One self-contained page, one plot per series with its change points
// marked; store_display names the store in the page's first paragraph.
std::string render_history_html(const store::History& h, const std::string& store_display);

// The claims (rows) against the machines (columns), each cell coloured by
// its C++ verdict.
std::string render_matrix_html(const store::ClaimMatrix& m, const std::string& store_display);

}  // namespace zerolab::report

#endif  // ZEROLAB_SRC_REPORT_STORE_PAGES_HPP_
