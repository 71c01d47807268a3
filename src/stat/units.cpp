// Units as benchunit handles them (include/zerolab/stat.hpp): classes,
// tidying pre-scaled units, and the common scaler of a row of values.
//
// Example:
//   zerolab::stat::scale_value(1536, zerolab::stat::UnitClass::kBinary);  // "1.500Ki"

#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "go_compat.hpp"
#include "zerolab/stat.hpp"

namespace zerolab::stat {
namespace {

// benchunit's unit tokenizer: tokens separated by '*', '/', '-' and
// spaces; '/' starts the denominator and '*' ends it.
class UnitTokens {
 public:
  explicit UnitTokens(std::string_view unit) : rest_(unit) {}

  bool next() {
    std::size_t i = 0;
    bool found = false;
    while (i < rest_.size()) {
      auto [r, n] = internal::decode_rune(rest_.substr(i));
      if (r == '*') {
        denom_ = false;
      } else if (r == '/') {
        denom_ = true;
      } else if (!(r == '-' || internal::is_space(r))) {
        found = true;
        break;
      }
      i += n;
    }
    if (!found) {
      rpos_ += rest_.size();
      rest_ = {};
      return false;
    }
    rpos_ += i;
    rest_.remove_prefix(i);
    std::size_t end = rest_.size();
    std::size_t j = 0;
    while (j < rest_.size()) {
      auto [r, n] = internal::decode_rune(rest_.substr(j));
      if (r == '*' || r == '/' || r == '-' || internal::is_space(r)) {
        end = j;
        break;
      }
      j += n;
    }
    tok_ = rest_.substr(0, end);
    pos_ = rpos_;
    rpos_ += end;
    rest_.remove_prefix(end);
    return true;
  }

  std::string_view tok() const { return tok_; }
  std::size_t pos() const { return pos_; }
  bool denom() const { return denom_; }

 private:
  std::string_view rest_;
  std::size_t rpos_ = 0;
  std::string_view tok_;
  std::size_t pos_ = 0;
  bool denom_ = false;
};

struct Factor {
  double factor;
  std::string_view prefix;
  double t100;
  double t10;
  double t1;
};

double parse_c(const std::string& s) {
  return std::strtod(s.c_str(), nullptr);
}

std::vector<Factor> make_si_factors() {
  static constexpr std::string_view kPrefixes[] = {"T", "G", "M", "k", "", "m", "µ", "n"};
  static constexpr double kPowers[] = {1e12, 1e9, 1e6, 1e3, 1, 1e-3, 1e-6, 1e-9};
  std::vector<Factor> out;
  int exp = 12;
  for (std::size_t i = 0; i < 8; ++i) {
    const std::string e = std::to_string(exp);
    out.push_back(Factor{kPowers[i], kPrefixes[i], parse_c("99.995e" + e), parse_c("9.9995e" + e),
                         parse_c(".99995e" + e)});
    exp -= 3;
  }
  return out;
}

std::vector<Factor> make_iec_factors() {
  static constexpr std::string_view kPrefixes[] = {"Ti", "Gi", "Mi", "Ki", ""};
  std::vector<Factor> out;
  int exp = 40;
  for (std::string_view p : kPrefixes) {
    out.push_back(Factor{std::ldexp(1.0, exp), p, std::ldexp(0x1.8ffae147ae148p0, 6 + exp),
                         std::ldexp(0x1.3ffbe76c8b439p0, 3 + exp),
                         std::ldexp(0x1.fff972474538fp0, -1 + exp)});
    exp -= 10;
  }
  return out;
}

const std::vector<Factor>& si_factors() {
  static const std::vector<Factor> f = make_si_factors();
  return f;
}

const std::vector<Factor>& iec_factors() {
  static const std::vector<Factor> f = make_iec_factors();
  return f;
}

const std::array<double, 8>& sigfigs() {
  static const std::array<double, 8> s = [] {
    std::array<double, 8> a{};
    for (int i = 0; i < 8; ++i)
      a[static_cast<std::size_t>(i)] = parse_c("9.9995e" + std::to_string(-1 - i));
    return a;
  }();
  return s;
}

}  // namespace

UnitClass unit_class_of(std::string_view unit) {
  UnitTokens p(unit);
  while (p.next()) {
    if ((p.tok() == "B" || p.tok() == "MB" || p.tok() == "bytes") && !p.denom()) {
      return UnitClass::kBinary;
    }
  }
  return UnitClass::kDecimal;
}

TidyUnit tidy_unit(std::string_view unit) {
  if (unit == "ns/op") return {"sec/op", 1e-9};
  if (unit == "MB/s") return {"B/s", 1e6};
  if (unit == "B/op" || unit == "allocs/op") return {std::string(unit), 1};
  if (unit.find("ns") == std::string_view::npos && unit.find("MB") == std::string_view::npos) {
    return {std::string(unit), 1};
  }
  struct Edit {
    std::size_t pos;
    std::size_t len;
    std::string_view replace;
  };
  double factor = 1;
  std::vector<Edit> edits;
  UnitTokens p(unit);
  while (p.next()) {
    if (p.denom()) continue;
    if (p.tok() == "ns") {
      edits.push_back({p.pos(), 2, "sec"});
      factor /= 1e9;
    } else if (p.tok() == "MB") {
      edits.push_back({p.pos(), 2, "B"});
      factor *= 1e6;
    }
  }
  std::string out(unit);
  for (auto it = edits.rbegin(); it != edits.rend(); ++it)
    out.replace(it->pos, it->len, it->replace);
  return {out, factor};
}

std::string Scaler::format(double value) const {
  std::string out;
  internal::append_format_f(out, value / factor, prec);
  out.append(prefix);
  return out;
}

Scaler common_scale(std::span<const double> values, UnitClass cls) {
  double min = 0;
  for (double v : values) {
    v = std::fabs(v);
    if (v != 0 && (min == 0 || v < min)) min = v;
  }
  if (min == 0) return Scaler{3, 1, ""};
  const std::vector<Factor>& factors = cls == UnitClass::kBinary ? iec_factors() : si_factors();
  for (const Factor& f : factors) {
    if (min >= f.t100) return Scaler{1, f.factor, f.prefix};
    if (min >= f.t10) return Scaler{2, f.factor, f.prefix};
    if (min >= f.t1) return Scaler{3, f.factor, f.prefix};
  }
  const Factor& last = factors.back();
  const double val = min / last.factor;
  const auto& sf = sigfigs();
  for (std::size_t i = 0; i < sf.size(); ++i) {
    if (val >= sf[i] || i == sf.size() - 1)
      return Scaler{static_cast<int>(i) + 3, last.factor, last.prefix};
  }
  return Scaler{3, 1, ""};  // not reached
}

std::string scale_value(double value, UnitClass cls) {
  const double one[] = {value};
  return common_scale(one, cls).format(value);
}

std::string format_go_float(double value) {
  return internal::format_g(value);
}

}  // namespace zerolab::stat
