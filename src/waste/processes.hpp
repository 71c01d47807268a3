// `zerolab waste`'s findings per process image: each image's record is
// reported alone (build_report on it, with the run's calibration and
// --skip-frame), so a row holds exactly what the run's report would say
// had that process been the only one, and the rows of the exact kinds sum
// to the run's totals. The report lists the rows when children are
// followed (a build: which of its 136 processes wasted what).
//
// Example:
//   std::vector<Collected> images;
//   collect_records(dir, symbols, collected, error, &images);
//   report.per_process = process_rows(images, symbols, calibration, run, skip);
//   report.per_process[0].image.command   // {"make", "-j2"}
//   report.per_process[0].kinds[int(WasteKind::kTemporaryAllocations)].calls
#ifndef ZEROLAB_SRC_WASTE_PROCESSES_HPP_
#define ZEROLAB_SRC_WASTE_PROCESSES_HPP_

#include <vector>

#include "waste/report.hpp"

namespace zerolab::waste {

std::vector<ProcessRow> process_rows(const std::vector<Collected>& per_image,
                                     const Symbolizer& symbols, const Calibration& calibration,
                                     const RunFacts& run, const FrameFilter& skip);

}  // namespace zerolab::waste

#endif  // ZEROLAB_SRC_WASTE_PROCESSES_HPP_
