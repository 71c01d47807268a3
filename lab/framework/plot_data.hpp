// lab/plot_data.hpp — turns an experiment's raw results into the plots
// report.html draws: the experiment's own PlotSpecs (sweeps against a size
// or count in the benchmark names, strips of per-pass samples) and one strip
// plot per ratio claim (both benchmarks' samples, medians and intervals).
//
// Thread-safety: pure functions.
//
// Example:
//   for (const PlotSpec& spec : outcome.experiment->plots)
//     html += render_plot(spec, outcome.results, machine);
//   for (const ClaimOutcome& c : outcome.claims)
//     if (c.claim->kind == ClaimKind::kRatio) html += render_strip_plot(ratio_claim_plot(c,
//     outcome));
#ifndef ZEROLAB_LAB_PLOT_DATA_HPP_
#define ZEROLAB_LAB_PLOT_DATA_HPP_

#include <string>
#include <string_view>
#include <vector>

#include "lab/framework/machine_info.hpp"
#include "lab/framework/outcome.hpp"
#include "report/svg_plot.hpp"

namespace zerolab::lab {

// The L1d, L2 and L3 sizes of the machine's "caches" config line
// ("L1d 48KiB, L1i 32KiB, L2 1MiB, L3 32MiB"), as plot marks.
std::vector<report::Mark> cache_marks(const MachineInfo& machine);

// A kSweep spec's plot: medians of spec.unit per (series, x).
report::LinePlot sweep_plot(const PlotSpec& spec, const std::vector<benchfmt::Result>& results,
                            const MachineInfo& machine);

// A kStrip spec's plot: one row per benchmark under spec.prefix.
report::StripPlot strip_plot(const PlotSpec& spec, const std::vector<benchfmt::Result>& results);

// A ratio claim's two benchmarks, slower first.
report::StripPlot ratio_claim_plot(const ClaimOutcome& claim, const ExperimentOutcome& outcome);

// Either kind of spec, rendered.
std::string render_plot(const PlotSpec& spec, const std::vector<benchfmt::Result>& results,
                        const MachineInfo& machine);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_PLOT_DATA_HPP_
