// `zerolab waste --format html`: the report as one self-contained page (CSS
// inline, no script, a Content-Security-Policy that forbids every fetch).
// It holds the findings table (bytes, calls, estimated time, fix), then per
// kind two icicle graphs of its call tree (call_tree.hpp) — one sized by
// bytes, one by estimated time — whose boxes name the frame and, on hover,
// its bytes, calls and time; the kind's top sites with their fix; the
// per-process table when there was more than one process; and the notes.
//
// Each icicle is a <figure class="plot" data-points="N"> whose N boxes are
// SVG <rect class="pt"> elements, the contract tests/browser/check_html_page.py
// checks. A box narrower than one pixel is not drawn (its bytes still count
// in its parent's box).
//
// Example:
//   const std::string page = render_html(report);  // write it to report.html
#ifndef ZEROLAB_SRC_WASTE_HTML_HPP_
#define ZEROLAB_SRC_WASTE_HTML_HPP_

#include <string>

#include "waste/report.hpp"

namespace zerolab::waste {

std::string render_html(const Report& report);

}  // namespace zerolab::waste

#endif  // ZEROLAB_SRC_WASTE_HTML_HPP_
