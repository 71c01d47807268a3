// report/compare_html.hpp — `zerolab compare -format html`: benchstat's
// tables as text (exactly as -format text prints them) and, per table, the
// plots the lab report draws, for any result files:
//   - a sweep: when the rows' names carry a size or count ("size=64KiB",
//     "conns=1000"), the medians against it on a log axis, one line per
//     series (and per column when there are several);
//   - strips: every sample with its median and confidence interval — one
//     plot per row with a strip per column (with the comparison's delta and
//     p-value) when there are several columns, else one plot of all rows.
//
// Thread-safety: pure function.
//
// Example:
//   stat::Tables tables = builder.finish(options);
//   std::string page = render_compare_html(tables, {"old.txt", "new.txt"});
#ifndef ZEROLAB_SRC_REPORT_COMPARE_HTML_HPP_
#define ZEROLAB_SRC_REPORT_COMPARE_HTML_HPP_

#include <string>
#include <vector>

#include "zerolab/stat_table.hpp"

namespace zerolab::report {

// At most this many strip plots per table; the page says when it stops.
inline constexpr int kMaxStripPlotsPerTable = 60;

std::string render_compare_html(const stat::Tables& tables, const std::vector<std::string>& inputs);

// The sections of render_compare_html without the page around them (the
// lab's baseline comparison embeds them in report.html).
std::string compare_sections_html(const stat::Tables& tables);

}  // namespace zerolab::report

#endif  // ZEROLAB_SRC_REPORT_COMPARE_HTML_HPP_
