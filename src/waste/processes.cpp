// `zerolab waste`'s findings per process image (processes.hpp).
#include "waste/processes.hpp"

namespace zerolab::waste {

std::vector<ProcessRow> process_rows(const std::vector<Collected>& per_image,
                                     const Symbolizer& symbols, const Calibration& calibration,
                                     const RunFacts& run, const FrameFilter& skip) {
  std::vector<ProcessRow> rows;
  for (const Collected& image : per_image) {
    if (image.images.empty()) continue;
    ProcessRow row;
    row.image = image.images.front();
    const Report alone = build_report(image, symbols, calibration, run, skip);
    for (const Finding& f : alone.findings) {
      Amount& a = row.kinds[static_cast<int>(f.kind)];
      a.bytes = f.bytes;
      a.calls = f.calls;
      a.seconds = f.estimated_seconds;
      row.total.bytes += f.bytes;
      row.total.calls += f.calls;
      row.total.seconds += f.estimated_seconds;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace zerolab::waste
