// `zerolab waste`'s findings per process image and per thread (processes.hpp).
#include "waste/processes.hpp"

#include <algorithm>

namespace zerolab::waste {
namespace {

// build_report on one collection, summed per kind.
void add_findings(const Collected& c, const Symbolizer& symbols, const Calibration& calibration,
                  const RunFacts& run, const FrameFilter& skip, Amount (&kinds)[kWasteKinds],
                  Amount& total) {
  const Report alone = build_report(c, symbols, calibration, run, skip);
  for (const Finding& f : alone.findings) {
    Amount& a = kinds[static_cast<int>(f.kind)];
    a.bytes = f.bytes;
    a.calls = f.calls;
    a.seconds = f.estimated_seconds;
    total.bytes += f.bytes;
    total.calls += f.calls;
    total.seconds += f.estimated_seconds;
  }
}

}  // namespace

std::vector<ProcessRow> process_rows(const std::vector<Collected>& per_image,
                                     const Symbolizer& symbols, const Calibration& calibration,
                                     const RunFacts& run, const FrameFilter& skip) {
  std::vector<ProcessRow> rows;
  for (const Collected& image : per_image) {
    if (image.images.empty()) continue;
    ProcessRow row;
    row.image = image.images.front();
    add_findings(image, symbols, calibration, run, skip, row.kinds, row.total);
    for (const Collected& thread : image.per_thread) {
      ThreadRow t;
      t.thread = thread.thread;
      add_findings(thread, symbols, calibration, run, skip, t.kinds, t.total);
      const bool empty = std::llround(t.total.bytes) == 0 && std::llround(t.total.calls) == 0;
      if (t.thread.slot == 0 && empty) continue;
      row.threads.push_back(std::move(t));
    }
    std::stable_sort(row.threads.begin(), row.threads.end(),
                     [](const ThreadRow& a, const ThreadRow& b) {
                       if (a.total.seconds != b.total.seconds)
                         return a.total.seconds > b.total.seconds;
                       return a.total.bytes > b.total.bytes;
                     });
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace zerolab::waste
