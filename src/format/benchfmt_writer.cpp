// Writer half of the Go benchmark format (include/zerolab/benchfmt.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "zerolab/benchfmt.hpp"

namespace zerolab::benchfmt {
namespace {

void append_printf_double(std::string& out, const char* format, double value,
                          std::string_view unit) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, format, value);
  if (n > 0)
    out.append(buf, static_cast<std::size_t>(std::min(n, static_cast<int>(sizeof buf) - 1)));
  out.push_back(' ');
  out.append(unit);
}

}  // namespace

void append_pretty(std::string& out, double value, std::string_view unit) {
  const double y = std::fabs(value);
  const char* format = "%18.7f";
  if (y == 0 || y >= 999.95) {
    format = "%10.0f";
  } else if (y >= 99.995) {
    format = "%12.1f";
  } else if (y >= 9.9995) {
    format = "%13.2f";
  } else if (y >= 0.99995) {
    format = "%14.3f";
  } else if (y >= 0.099995) {
    format = "%15.4f";
  } else if (y >= 0.0099995) {
    format = "%16.5f";
  } else if (y >= 0.00099995) {
    format = "%17.6f";
  }
  append_printf_double(out, format, value, unit);
}

std::string format_result_line(const Result& result, std::size_t name_width) {
  std::string out = result.name;
  if (out.size() < name_width) out.append(name_width - out.size(), ' ');
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "\t%8lld", static_cast<long long>(result.iterations));
  out.append(buf, static_cast<std::size_t>(n));
  for (const Metric& m : result.metrics) {
    out.push_back('\t');
    if (m.unit == "MB/s") {
      append_printf_double(out, "%7.2f", m.value, m.unit);
    } else if ((m.unit == "B/op" || m.unit == "allocs/op") && m.value > -9.2e18 &&
               m.value < 9.2e18) {
      n = std::snprintf(buf, sizeof buf, "%8lld ", static_cast<long long>(m.value));
      out.append(buf, static_cast<std::size_t>(n));
      out.append(m.unit);
    } else if (m.unit == "B/op" || m.unit == "allocs/op") {
      // Not an int64 (NaN, infinite or huge: only from parsed input).
      append_printf_double(out, "%8.0f", m.value, m.unit);
    } else {
      append_pretty(out, m.value, m.unit);
    }
  }
  return out;
}

std::string format_config_line(std::string_view key, std::string_view value) {
  std::string out(key);
  out.append(": ");
  out.append(value);
  return out;
}

}  // namespace zerolab::benchfmt
