// Axis scales, ticks and value labels (plot_scale.hpp).
#include "report/plot_scale.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace zerolab::report {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Up to `digits` significant digits, no exponent below 1e15.
std::string short_number(double x, int digits) {
  char buf[64];
  if (std::fabs(x) >= std::pow(10.0, digits) - 0.5) {
    std::snprintf(buf, sizeof buf, "%.0f", x);
  } else {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  }
  return buf;
}

// value scaled by the largest step in `steps` it reaches, with that step's name.
std::string scaled(double value, const double* steps, const char* const* names, int n,
                   const char* sep, int digits) {
  const double a = std::fabs(value);
  int k = 0;
  while (k + 1 < n && a >= steps[k + 1] * 0.9995) ++k;
  return short_number(value / steps[k], digits) + sep + names[k];
}

}  // namespace

ValueKind kind_of_unit(std::string_view unit) {
  if (ends_with(unit, "ns/op")) return ValueKind::kNanoseconds;
  if (unit == "B/s" || unit == "MB/s") return ValueKind::kBytesPerSecond;
  if (unit == "B/op" || ends_with(unit, "-B") || ends_with(unit, "-B/op")) return ValueKind::kBytes;
  return ValueKind::kNumber;
}

UnitView unit_view(std::string_view unit) {
  if (unit == "sec/op" || ends_with(unit, "-sec/op")) return {1e9, ValueKind::kNanoseconds};
  if (unit == "MB/s") return {1e6, ValueKind::kBytesPerSecond};
  if (unit.find("KiB") != std::string_view::npos) return {1024, ValueKind::kBytes};
  if (unit.find("MiB") != std::string_view::npos) return {1048576, ValueKind::kBytes};
  return {1, kind_of_unit(unit)};
}

std::vector<std::string> split_name(std::string_view name) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t end = name.find('/', pos);
    parts.emplace_back(
        name.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  // Go's "-8" GOMAXPROCS suffix belongs to the whole name, not the last value.
  std::string& last = parts.back();
  const std::size_t dash = last.rfind('-');
  if (dash != std::string::npos && dash + 1 < last.size() &&
      last.find_first_not_of("0123456789", dash + 1) == std::string::npos) {
    last.erase(dash);
  }
  return parts;
}

std::string format_value(double value, ValueKind kind, int digits) {
  if (!std::isfinite(value)) return value != value ? "NaN" : (value > 0 ? "+Inf" : "-Inf");
  if (value == 0) return "0";
  switch (kind) {
    case ValueKind::kBytes: {
      static const double steps[] = {1, 1024.0, 1048576.0, 1073741824.0, 1099511627776.0};
      static const char* const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
      return scaled(value, steps, names, 5, " ", digits);
    }
    case ValueKind::kNanoseconds: {
      static const double steps[] = {1, 1e3, 1e6, 1e9};
      static const char* const names[] = {"ns", "µs", "ms", "s"};
      return scaled(value, steps, names, 4, " ", digits);
    }
    case ValueKind::kBytesPerSecond: {
      static const double steps[] = {1, 1e3, 1e6, 1e9, 1e12};
      static const char* const names[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
      return scaled(value, steps, names, 5, " ", digits);
    }
    case ValueKind::kNumber:
      break;
  }
  if (std::fabs(value) < 1) return short_number(value, digits);
  static const double steps[] = {1, 1e3, 1e6, 1e9, 1e12};
  static const char* const names[] = {"", "k", "M", "G", "T"};
  return scaled(value, steps, names, 5, "", digits);
}

std::vector<std::string> format_ticks(std::span<const double> ticks, ValueKind kind) {
  std::vector<std::string> labels;
  for (int digits = 3; digits <= 9; ++digits) {
    labels.clear();
    for (const double t : ticks) labels.push_back(format_value(t, kind, digits));
    bool distinct = true;
    for (std::size_t i = 1; i < labels.size(); ++i)
      distinct = distinct && labels[i] != labels[i - 1];
    if (distinct) break;
  }
  return labels;
}

double AxisScale::to_unit(double value) const {
  double t;
  if (log) {
    if (!(value > 0)) return 0;
    t = (std::log(value) - std::log(lo)) / (std::log(hi) - std::log(lo));
  } else {
    t = (value - lo) / (hi - lo);
  }
  if (!(t >= 0)) return 0;
  return std::min(t, 1.0);
}

bool parse_quantity(std::string_view text, double& value, bool& bytes) {
  const std::string s(text);
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  char* end = nullptr;
  const double number = std::strtod(s.c_str(), &end);
  const std::string_view suffix(end);
  static const struct {
    std::string_view suffix;
    double factor;
    bool bytes;
  } kSuffixes[] = {{"", 1, false},
                   {"B", 1, true},
                   {"KiB", 1024.0, true},
                   {"MiB", 1048576.0, true},
                   {"GiB", 1073741824.0, true},
                   {"TiB", 1099511627776.0, true},
                   {"k", 1e3, false},
                   {"K", 1e3, false},
                   {"M", 1e6, false},
                   {"G", 1e9, false}};
  for (const auto& k : kSuffixes) {
    if (suffix == k.suffix) {
      value = number * k.factor;
      bytes = k.bytes;
      return std::isfinite(value);
    }
  }
  return false;
}

bool wants_log(std::span<const double> values) {
  double lo = HUGE_VAL;
  double hi = 0;
  for (const double v : values) {
    if (!std::isfinite(v)) continue;
    if (v <= 0) return false;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return hi > 0 && hi / lo >= 30;
}

AxisScale make_scale(std::span<const double> values, bool log, ValueKind kind, bool include_zero) {
  AxisScale s;
  s.log = log;
  double lo = HUGE_VAL;
  double hi = -HUGE_VAL;
  for (const double v : values) {
    if (!std::isfinite(v) || (log && v <= 0)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const bool any = lo <= hi;

  if (log) {
    if (!any) {
      lo = 1;
      hi = 10;
    }
    // Powers of two for sizes, so the ticks fall on 1 KiB, 1 MiB, ...;
    // powers of ten otherwise.
    const double base = kind == ValueKind::kBytes ? 2.0 : 10.0;
    const double lb = std::log(base);
    auto e_lo = static_cast<long>(std::floor(std::log(lo) / lb + 1e-9));
    auto e_hi = static_cast<long>(std::ceil(std::log(hi) / lb - 1e-9));
    if (e_hi <= e_lo) e_hi = e_lo + 1;
    s.lo = std::pow(base, static_cast<double>(e_lo));
    s.hi = std::pow(base, static_cast<double>(e_hi));
    static const long kBinarySteps[] = {1, 2, 5, 10, 20, 30};
    static const long kDecimalSteps[] = {1, 2, 3, 5, 10};
    const long* steps = kind == ValueKind::kBytes ? kBinarySteps : kDecimalSteps;
    const int n_steps = kind == ValueKind::kBytes ? 6 : 5;
    // A span wider than the largest step allows (10^-300..10^300) gets a
    // step of its own, so there are never more than 9 ticks.
    long step = (e_hi - e_lo) / 8 + 1;
    for (int i = 0; i < n_steps; ++i) {
      if ((e_hi - e_lo) / steps[i] + 1 <= 9) {
        step = steps[i];
        break;
      }
    }
    long first = e_lo;
    while (first % step != 0) ++first;
    for (long e = first; e <= e_hi; e += step)
      s.ticks.push_back(std::pow(base, static_cast<double>(e)));
    // One decade or less: add 2x and 5x so the axis has more than two labels.
    if (kind != ValueKind::kBytes && e_hi - e_lo <= 1) {
      for (const double m : {2.0, 5.0}) s.ticks.push_back(s.lo * m);
      std::sort(s.ticks.begin(), s.ticks.end());
    }
    return s;
  }

  if (!any) {
    lo = 0;
    hi = 1;
  }
  if (include_zero) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  if (hi == lo) {
    const double half = lo == 0 ? 0.5 : std::fabs(lo) * 0.5;
    lo -= half;
    hi += half;
    if (include_zero && lo < 0 && hi > 0 && lo + half >= 0) lo = 0;
  }
  const double raw = (hi - lo) / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (const double m : {1.0, 2.0, 5.0}) {
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  }
  s.lo = std::floor(lo / step + 1e-9) * step;
  s.hi = std::ceil(hi / step - 1e-9) * step;
  if (!(s.hi > s.lo) || !std::isfinite(s.hi - s.lo)) {
    // Too wide for doubles (±1e308) or too narrow for them to tell apart
    // (1e17 and 1e17 + 16): the values' own range, ticked at its ends.
    s.lo = lo;
    s.hi = hi > lo ? hi : std::nextafter(lo, HUGE_VAL);
    s.ticks = {s.lo, s.hi};
    return s;
  }
  for (int i = 0; i <= 12; ++i) {
    const double t = s.lo + step * i;
    if (t > s.hi + step * 1e-6) break;
    s.ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return s;
}

}  // namespace zerolab::report
