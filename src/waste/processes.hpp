// `zerolab waste`'s findings per process image and per thread: each
// image's record is reported alone (build_report on it, with the run's
// calibration and --skip-frame), so a row holds exactly what the run's
// report would say had that process been the only one, and the rows of the
// exact kinds sum to the run's totals. Likewise each thread of an image,
// from its slot of the record (its counters and its in-frame sites): the
// thread rows of the exact kinds sum to their image's row. The report lists
// the processes when children are followed (a build: which of its 136
// processes wasted what) and the threads when more than one wasted
// anything.
//
// Example:
//   std::vector<Collected> images;
//   collect_records(dir, symbols, collected, error, &images);
//   report.per_process = process_rows(images, symbols, calibration, run, skip);
//   report.per_process[0].image.command   // {"make", "-j2"}
//   report.per_process[0].kinds[int(WasteKind::kTemporaryAllocations)].calls
//   report.per_process[0].threads[0].thread.name   // "worker-1"
#ifndef ZEROLAB_SRC_WASTE_PROCESSES_HPP_
#define ZEROLAB_SRC_WASTE_PROCESSES_HPP_

#include <cmath>
#include <vector>

#include "waste/report.hpp"

namespace zerolab::waste {

std::vector<ProcessRow> process_rows(const std::vector<Collected>& per_image,
                                     const Symbolizer& symbols, const Calibration& calibration,
                                     const RunFacts& run, const FrameFilter& skip);

}  // namespace zerolab::waste

#endif  // ZEROLAB_SRC_WASTE_PROCESSES_HPP_
