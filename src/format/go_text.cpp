// Go's number formatting and parsing (strconv, fmt) and UTF-8 helpers
// (src/format/go_text.hpp).
//
// Example:
//   std::string s = zerolab::internal::format_g(0.1);  // "0.1"

#include "format/go_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>

namespace zerolab::internal {

// ---- formatting ---------------------------------------------------------------

namespace {

// Shortest round-trip decimal digits of |v| (finite, non-zero): digits and
// the decimal point position dp (value = 0.d1d2... * 10^dp).
void shortest_digits(double v, std::string& digits, int& dp) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific);
  std::string_view s(buf, static_cast<std::size_t>(res.ptr - buf));
  const std::size_t e = s.find('e');
  digits.clear();
  for (std::size_t i = 0; i < e; ++i) {
    if (s[i] != '.') digits.push_back(s[i]);
  }
  int exp10 = 0;
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+' ? 1 : 0), s.data() + s.size(), exp10);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  dp = exp10 + 1;
}

}  // namespace

std::string format_g(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  std::string out;
  if (std::signbit(v)) out.push_back('-');
  if (v == 0) {
    out.push_back('0');
    return out;
  }
  std::string d;
  int dp = 0;
  shortest_digits(v, d, dp);
  const int nd = static_cast<int>(d.size());
  const int exp = dp - 1;
  if (exp < -4 || exp >= 6) {
    out.push_back(d[0]);
    if (nd > 1) {
      out.push_back('.');
      out.append(d, 1, std::string::npos);
    }
    out.push_back('e');
    int x = exp;
    out.push_back(x < 0 ? '-' : '+');
    if (x < 0) x = -x;
    if (x < 10) {
      out.push_back('0');
      out.push_back(static_cast<char>('0' + x));
    } else {
      out.append(std::to_string(x));
    }
    return out;
  }
  // %f with max(nd - dp, 0) fraction digits.
  if (dp > 0) {
    for (int i = 0; i < dp; ++i) out.push_back(i < nd ? d[static_cast<std::size_t>(i)] : '0');
  } else {
    out.push_back('0');
  }
  const int prec = nd - dp > 0 ? nd - dp : 0;
  if (prec > 0) {
    out.push_back('.');
    for (int i = 0; i < prec; ++i) {
      const int j = dp + i;
      out.push_back(j >= 0 && j < nd ? d[static_cast<std::size_t>(j)] : '0');
    }
  }
  return out;
}

void append_format_f(std::string& out, double v, int prec, bool plus) {
  if (std::isnan(v)) {
    out.append(plus ? "+NaN" : "NaN");
    return;
  }
  if (std::isinf(v)) {
    out.append(v > 0 ? "+Inf" : "-Inf");
    return;
  }
  char buf[400];
  const int n = std::snprintf(buf, sizeof buf, plus ? "%+.*f" : "%.*f", prec, v);
  if (n > 0 && static_cast<std::size_t>(n) < sizeof buf) {
    out.append(buf, static_cast<std::size_t>(n));
  } else {
    std::string big(static_cast<std::size_t>(n > 0 ? n : 0) + 1, '\0');
    std::snprintf(big.data(), big.size(), plus ? "%+.*f" : "%.*f", prec, v);
    big.pop_back();
    out.append(big);
  }
}

std::string format_f(double v, int prec, bool plus) {
  std::string s;
  append_format_f(s, v, prec, plus);
  return s;
}

// ---- parsing -------------------------------------------------------------------

namespace {

char lower(char c) {
  return static_cast<char>(c | ('x' - 'X'));
}

bool equal_fold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char c1 = a[i];
    char c2 = b[i];
    if (c1 >= 'A' && c1 <= 'Z') c1 = static_cast<char>(c1 + ('a' - 'A'));
    if (c2 >= 'A' && c2 <= 'Z') c2 = static_cast<char>(c2 + ('a' - 'A'));
    if (c1 != c2) return false;
  }
  return true;
}

bool underscore_ok(std::string_view s) {
  char saw = '^';
  std::size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  bool hex = false;
  if (s.size() >= 2 && s[0] == '0' &&
      (lower(s[1]) == 'b' || lower(s[1]) == 'o' || lower(s[1]) == 'x')) {
    i = 2;
    saw = '0';
    hex = lower(s[1]) == 'x';
  }
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if ((c >= '0' && c <= '9') || (hex && lower(c) >= 'a' && lower(c) <= 'f')) {
      saw = '0';
      continue;
    }
    if (c == '_') {
      if (saw != '0') return false;
      saw = '_';
      continue;
    }
    if (saw == '_') return false;
    saw = '!';
  }
  return saw != '_';
}

// Checks readFloat's grammar; on success fills `clean` with the number
// without underscores (and without a hex "0x" prefix) for from_chars.
bool read_float_syntax(std::string_view s, std::string& clean, bool& neg, bool& hex) {
  std::size_t i = 0;
  neg = false;
  hex = false;
  clean.clear();
  if (i >= s.size()) return false;
  if (s[i] == '+') {
    ++i;
  } else if (s[i] == '-') {
    neg = true;
    ++i;
  }
  char exp_char = 'e';
  if (i + 2 < s.size() && s[i] == '0' && lower(s[i + 1]) == 'x') {
    hex = true;
    i += 2;
    exp_char = 'p';
  }
  bool saw_dot = false;
  bool saw_digits = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '_') continue;
    if (c == '.') {
      if (saw_dot) return false;
      saw_dot = true;
      clean.push_back('.');
      continue;
    }
    if ((c >= '0' && c <= '9') || (hex && lower(c) >= 'a' && lower(c) <= 'f')) {
      saw_digits = true;
      clean.push_back(c);
      continue;
    }
    break;
  }
  if (!saw_digits) return false;
  if (i < s.size() && lower(s[i]) == exp_char) {
    clean.push_back(exp_char);
    ++i;
    if (i >= s.size()) return false;
    if (s[i] == '+') {
      ++i;
    } else if (s[i] == '-') {
      clean.push_back('-');
      ++i;
    }
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    for (; i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '_'); ++i) {
      if (s[i] != '_') clean.push_back(s[i]);
    }
  } else if (hex) {
    return false;
  }
  return i == s.size();
}

}  // namespace

NumError parse_go_float(std::string_view s, double& out) {
  // benchfmt's fast path: plain digits that fit in an int64.
  {
    std::int64_t val = 0;
    bool ok = true;
    for (char ch : s) {
      const unsigned digit = static_cast<unsigned char>(ch) - static_cast<unsigned>('0');
      if (digit >= 10 || val > (std::numeric_limits<std::int64_t>::max() - 10) / 10) {
        ok = false;
        break;
      }
      val = val * 10 + static_cast<std::int64_t>(digit);
    }
    if (ok) {
      out = static_cast<double>(val);
      return NumError::kNone;
    }
  }
  if (!underscore_ok(s)) return NumError::kSyntax;
  if (!s.empty()) {
    const char c = s[0];
    if ((c == '+' && (equal_fold(s, "+inf") || equal_fold(s, "+infinity"))) ||
        ((c == 'i' || c == 'I') && (equal_fold(s, "inf") || equal_fold(s, "infinity")))) {
      out = std::numeric_limits<double>::infinity();
      return NumError::kNone;
    }
    if (c == '-' && (equal_fold(s, "-inf") || equal_fold(s, "-infinity"))) {
      out = -std::numeric_limits<double>::infinity();
      return NumError::kNone;
    }
    if ((c == 'n' || c == 'N') && equal_fold(s, "nan")) {
      out = std::numeric_limits<double>::quiet_NaN();
      return NumError::kNone;
    }
  }
  std::string clean;
  bool neg = false;
  bool hex = false;
  if (!read_float_syntax(s, clean, neg, hex)) return NumError::kSyntax;
  double v = 0;
  const auto fmt = hex ? std::chars_format::hex : std::chars_format::general;
  auto res = std::from_chars(clean.data(), clean.data() + clean.size(), v, fmt);
  NumError err = NumError::kNone;
  if (res.ec == std::errc::result_out_of_range) {
    // Distinguish overflow (Go: ±Inf and a range error) from underflow
    // (Go: the rounded tiny value, no error).
    std::string c_text = hex ? "0x" + clean : clean;
    v = std::strtod(c_text.c_str(), nullptr);
    if (std::isinf(v)) err = NumError::kRange;
  } else if (res.ec != std::errc()) {
    return NumError::kSyntax;
  }
  out = neg ? -v : v;
  return err;
}

NumError parse_go_int(std::string_view s, std::int64_t& out) {
  out = 0;
  if (!s.empty() && s.size() < 19) {
    std::string_view d = s;
    if (d[0] == '-' || d[0] == '+') {
      d.remove_prefix(1);
      if (d.empty()) return NumError::kSyntax;
    }
    std::int64_t n = 0;
    for (char ch : d) {
      const unsigned digit = static_cast<unsigned char>(ch) - static_cast<unsigned>('0');
      if (digit > 9) return NumError::kSyntax;
      n = n * 10 + static_cast<std::int64_t>(digit);
    }
    out = s[0] == '-' ? -n : n;
    return NumError::kNone;
  }
  if (s.empty()) return NumError::kSyntax;
  std::string_view d = s;
  bool neg = false;
  if (d[0] == '+') {
    d.remove_prefix(1);
  } else if (d[0] == '-') {
    neg = true;
    d.remove_prefix(1);
  }
  if (d.empty()) return NumError::kSyntax;
  // ParseUint(d, 10, 64): per-character syntax check, overflow reported
  // as soon as it happens.
  constexpr std::uint64_t kCutoff = std::numeric_limits<std::uint64_t>::max() / 10 + 1;
  std::uint64_t n = 0;
  bool range = false;
  for (char c : d) {
    unsigned digit = 0;
    if (c >= '0' && c <= '9') {
      digit = static_cast<unsigned>(c - '0');
    } else if (lower(c) >= 'a' && lower(c) <= 'z') {
      digit = static_cast<unsigned>(lower(c) - 'a' + 10);
    } else {
      return NumError::kSyntax;
    }
    if (digit >= 10) return NumError::kSyntax;
    if (n >= kCutoff) {
      range = true;
      break;
    }
    n *= 10;
    const std::uint64_t n1 = n + digit;
    if (n1 < n) {
      range = true;
      break;
    }
    n = n1;
  }
  constexpr std::uint64_t kIntCutoff = std::uint64_t{1} << 63;
  if (range) {
    out = neg ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
    return NumError::kRange;
  }
  if (!neg && n >= kIntCutoff) {
    out = std::numeric_limits<std::int64_t>::max();
    return NumError::kRange;
  }
  if (neg && n > kIntCutoff) {
    out = std::numeric_limits<std::int64_t>::min();
    return NumError::kRange;
  }
  out = neg ? static_cast<std::int64_t>(0 - n) : static_cast<std::int64_t>(n);
  return NumError::kNone;
}

const char* num_error_text(NumError e) {
  switch (e) {
    case NumError::kSyntax:
      return "invalid syntax";
    case NumError::kRange:
      return "value out of range";
    case NumError::kNone:
      break;
  }
  return "";
}

// ---- UTF-8 and unicode -----------------------------------------------------------

std::pair<char32_t, std::size_t> decode_rune(std::string_view s) {
  if (s.empty()) return {kRuneError, 0};
  const auto b0 = static_cast<unsigned char>(s[0]);
  if (b0 < 0x80) return {b0, 1};
  auto cont = [&s](std::size_t i, unsigned char lo, unsigned char hi) {
    if (i >= s.size()) return false;
    const auto b = static_cast<unsigned char>(s[i]);
    return b >= lo && b <= hi;
  };
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    if (!cont(1, 0x80, 0xBF)) return {kRuneError, 1};
    return {static_cast<char32_t>(((b0 & 0x1Fu) << 6) | (static_cast<unsigned char>(s[1]) & 0x3Fu)),
            2};
  }
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    const unsigned char lo = b0 == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = b0 == 0xED ? 0x9F : 0xBF;
    if (!cont(1, lo, hi) || !cont(2, 0x80, 0xBF)) return {kRuneError, 1};
    return {static_cast<char32_t>(((b0 & 0x0Fu) << 12) |
                                  ((static_cast<unsigned char>(s[1]) & 0x3Fu) << 6) |
                                  (static_cast<unsigned char>(s[2]) & 0x3Fu)),
            3};
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    const unsigned char lo = b0 == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = b0 == 0xF4 ? 0x8F : 0xBF;
    if (!cont(1, lo, hi) || !cont(2, 0x80, 0xBF) || !cont(3, 0x80, 0xBF)) return {kRuneError, 1};
    return {static_cast<char32_t>(((b0 & 0x07u) << 18) |
                                  ((static_cast<unsigned char>(s[1]) & 0x3Fu) << 12) |
                                  ((static_cast<unsigned char>(s[2]) & 0x3Fu) << 6) |
                                  (static_cast<unsigned char>(s[3]) & 0x3Fu)),
            4};
  }
  return {kRuneError, 1};
}

std::size_t rune_count(std::string_view s) {
  std::size_t n = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
    } else {
      i += decode_rune(s.substr(i)).second;
    }
    ++n;
  }
  return n;
}

bool is_space(char32_t r) {
  if (r <= 0xFF) {
    return r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r' || r == ' ' || r == 0x85 ||
           r == 0xA0;
  }
  return r == 0x1680 || (r >= 0x2000 && r <= 0x200A) || r == 0x2028 || r == 0x2029 || r == 0x202F ||
         r == 0x205F || r == 0x3000;
}

bool is_upper(char32_t r) {
  if (r < 0x80) return r >= 'A' && r <= 'Z';
  if (r >= 0xC0 && r <= 0xDE) return r != 0xD7;
  if (r >= 0x100 && r <= 0x137) return r % 2 == 0;
  if (r >= 0x139 && r <= 0x148) return r % 2 == 1;
  if (r >= 0x14A && r <= 0x177) return r % 2 == 0;
  if (r == 0x178) return true;
  if (r >= 0x179 && r <= 0x17E) return r % 2 == 1;
  if (r >= 0x391 && r <= 0x3AB) return r != 0x3A2;
  if (r >= 0x400 && r <= 0x42F) return true;
  if (r >= 0x460 && r <= 0x481) return r % 2 == 0;
  if (r >= 0x48A && r <= 0x4BF) return r % 2 == 0;
  return false;
}

bool is_lower(char32_t r) {
  if (r < 0x80) return r >= 'a' && r <= 'z';
  if (r == 0xB5) return true;
  if (r >= 0xDF && r <= 0xFF) return r != 0xF7;
  if (r >= 0x100 && r <= 0x137) return r % 2 == 1;
  if (r == 0x138) return true;
  if (r >= 0x139 && r <= 0x148) return r % 2 == 0;
  if (r == 0x149) return true;
  if (r >= 0x14A && r <= 0x177) return r % 2 == 1;
  if (r >= 0x179 && r <= 0x17E) return r % 2 == 0;
  if (r == 0x17F) return true;
  if (r >= 0x3AC && r <= 0x3CE) return true;
  if (r >= 0x430 && r <= 0x45F) return true;
  if (r >= 0x460 && r <= 0x481) return r % 2 == 1;
  if (r >= 0x48A && r <= 0x4BF) return r % 2 == 1;
  return false;
}

bool is_graphic(char32_t r) {
  if (r < 0x20 || (r >= 0x7F && r < 0xA0)) return false;
  if (r == 0xAD || r == 0x2028 || r == 0x2029 || r == 0xFEFF) return false;
  if (r >= 0x200B && r <= 0x200F) return false;
  if (r >= 0x202A && r <= 0x202E) return false;
  if (r >= 0x2060 && r <= 0x206F) return false;
  if (r >= 0xD800 && r <= 0xDFFF) return false;
  return r <= 0x10FFFF;
}

void append_rune(std::string& out, char32_t r) {
  if (r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) r = kRuneError;
  if (r < 0x80) {
    out.push_back(static_cast<char>(r));
  } else if (r < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (r >> 6)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else if (r < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (r >> 12)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (r >> 18)));
    out.push_back(static_cast<char>(0x80 | ((r >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  }
}

bool is_blank(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto [r, n] = decode_rune(s.substr(i));
    if (!is_space(r)) return false;
    i += n;
  }
  return true;
}

}  // namespace zerolab::internal
