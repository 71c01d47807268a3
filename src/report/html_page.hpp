// report/html_page.hpp — the shell every zerolab HTML report shares: one
// self-contained file with its CSS inline, no script, and a Content
// Security Policy that forbids every fetch, so the page can never reach the
// network (a browser reports any attempt as a console error, which the
// browser test fails on).
//
// Thread-safety: pure functions.
//
// Example:
//   std::string page = html_page_open("zerolab lab — 2026-12-03");
//   page += "<h1>...</h1>" + render_line_plot(plot);
//   page += html_page_close();
#ifndef ZEROLAB_SRC_REPORT_HTML_PAGE_HPP_
#define ZEROLAB_SRC_REPORT_HTML_PAGE_HPP_

#include <string>

namespace zerolab::report {

// <!DOCTYPE html> up to and including <body>.
std::string html_page_open(const std::string& title);

// </body></html>.
std::string html_page_close();

}  // namespace zerolab::report

#endif  // ZEROLAB_SRC_REPORT_HTML_PAGE_HPP_
