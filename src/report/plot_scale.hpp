// report/plot_scale.hpp — the numbers behind a plot axis: how a value maps
// to a pixel (linear or log), where the ticks go, and how a value is written
// for a person ("64 KiB", "1.5 ms", "68 GB/s").
//
// Thread-safety: pure functions and plain values.
//
// Example:
//   AxisScale s = make_scale({16, 1 << 30}, /*log=*/true, ValueKind::kBytes);
//   double px = s.to_unit(4096) * width;            // 0..1 across the axis
//   for (double t : s.ticks) label(format_value(t, ValueKind::kBytes));
#ifndef ZEROLAB_SRC_REPORT_PLOT_SCALE_HPP_
#define ZEROLAB_SRC_REPORT_PLOT_SCALE_HPP_

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zerolab::report {

// What the numbers on an axis are, for formatting and tick placement.
enum class ValueKind {
  kNumber,          // plain: "12", "3.5k", "2e+09"
  kBytes,           // binary sizes: "512 B", "64 KiB", "1 GiB"; log ticks at powers of 2
  kNanoseconds,     // durations given in ns: "850 ns", "1.2 µs", "3 ms", "1.5 s"
  kBytesPerSecond,  // decimal rates: "950 MB/s", "68 GB/s"
};

// The kind for a Go benchmark unit: "ns/op", "alloc-ns/op" → ns; "B/op",
// "heap-after-B" → bytes; "B/s" → rate; anything else a number.
ValueKind kind_of_unit(std::string_view unit);

// How a unit's values are drawn: the factor to its kind's base unit, and
// the kind. "ns/op" → (1, ns); benchstat's tidied "sec/op" → (1e9, ns);
// "MB/s" → (1e6, B/s); a unit naming KiB or MiB ("held-KiB/conn") → (1024
// or 1048576, bytes); anything else → (1, kind_of_unit).
struct UnitView {
  double scale = 1;
  ValueKind kind = ValueKind::kNumber;
};
UnitView unit_view(std::string_view unit);

// A value as a short label: `digits` significant digits at most, with the
// kind's unit ("64 KiB", "1.25 ms").
std::string format_value(double value, ValueKind kind, int digits = 3);

// Labels for a set of ticks: as short as format_value's, with more digits
// where that is what tells neighbouring ticks apart ("611.5 ns", "612 ns").
std::vector<std::string> format_ticks(std::span<const double> ticks, ValueKind kind);

struct AxisScale {
  bool log = false;
  double lo = 0;  // domain, after padding and rounding out to ticks
  double hi = 1;
  std::vector<double> ticks;  // inside [lo, hi], increasing

  // Where value lies across the axis, 0 at lo and 1 at hi (clamped).
  double to_unit(double value) const;
};

// A scale covering `values` (finite ones; non-positive ones are ignored on a
// log scale). An empty range gets a unit-wide domain around its one value;
// no values at all get [0, 1]. With include_zero a linear domain reaches 0.
AxisScale make_scale(std::span<const double> values, bool log, ValueKind kind,
                     bool include_zero = false);

// A size or count as benchmark names write them: "64KiB" → 65536 with
// bytes = true, "100000" → 1e5 and "10k" → 1e4 with bytes = false. Accepts
// B, KiB, MiB, GiB, TiB and k/K, M, G; false for anything else.
bool parse_quantity(std::string_view text, double& value, bool& bytes);

// A benchmark name's "/"-separated parts, without Go's "-N" GOMAXPROCS
// suffix: "Zero/size=4KiB-8" → {"Zero", "size=4KiB"}.
std::vector<std::string> split_name(std::string_view name);

// Whether values spread widely enough (max/min >= 30, all positive) that a
// log axis reads better.
bool wants_log(std::span<const double> values);

}  // namespace zerolab::report

#endif  // ZEROLAB_SRC_REPORT_PLOT_SCALE_HPP_
