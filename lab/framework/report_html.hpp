// lab/report_html.hpp — report.html, the lab's page for people: the machine
// and the verdict summary at the top, then per experiment its claims table
// (seed figure, ours with its interval, verdict), its plots (sweeps against
// size or connections with the cache sizes marked, per-pass samples) and,
// for every ratio claim, both benchmarks' samples with medians and
// intervals. One self-contained file: inline CSS and SVG, no script, no
// network (report/html_page.hpp).
//
// Thread-safety: pure function.
//
// Example:
//   write_file_atomically(dir + "/report.html",
//                         report_html(outcomes, describe_machine(), context), error);
#ifndef ZEROLAB_LAB_REPORT_HTML_HPP_
#define ZEROLAB_LAB_REPORT_HTML_HPP_

#include <string>
#include <vector>

#include "lab/framework/machine_info.hpp"
#include "lab/framework/outcome.hpp"
#include "lab/framework/report.hpp"

namespace zerolab::lab {

std::string report_html(const std::vector<ExperimentOutcome>& outcomes, const MachineInfo& machine,
                        const ReportContext& context);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_REPORT_HTML_HPP_
