// store/store_args.cpp — see store_args.hpp.
#include "store/store_args.hpp"

#include <cstdio>

#include "text/quote.hpp"

namespace zerolab::store {
namespace {

using internal::quote_text;

bool has_control(std::string_view s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool leap(std::int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned days_in_month(std::int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Reads exactly n digits at s[pos].
bool digits(std::string_view s, std::size_t& pos, std::size_t n, unsigned& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<unsigned>(c - '0');
  }
  pos += n;
  return true;
}

bool parse_timestamp(std::string_view s, std::int64_t& ms) {
  std::size_t p = 0;
  unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  std::int64_t frac_ms = 0;
  if (!digits(s, p, 4, y) || p >= s.size() || s[p++] != '-' || !digits(s, p, 2, mo) ||
      p >= s.size() || s[p++] != '-' || !digits(s, p, 2, d)) {
    return false;
  }
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo)) return false;
  std::int64_t offset_min = 0;
  if (p < s.size()) {
    if (s[p] != 'T' && s[p] != 't' && s[p] != ' ') return false;
    ++p;
    if (!digits(s, p, 2, h) || p >= s.size() || s[p++] != ':' || !digits(s, p, 2, mi)) return false;
    if (p < s.size() && s[p] == ':') {
      ++p;
      if (!digits(s, p, 2, sec)) return false;
      if (p < s.size() && s[p] == '.') {  // a fraction: milliseconds kept
        ++p;
        const std::size_t start = p;
        std::int64_t scale = 100;
        while (p < s.size() && s[p] >= '0' && s[p] <= '9' && p - start < 9) {
          frac_ms += static_cast<std::int64_t>(s[p] - '0') * scale;
          scale /= 10;
          ++p;
        }
        if (p == start) return false;
      }
    }
    if (h > 23 || mi > 59 || sec > 59) return false;
    if (p < s.size()) {
      if ((s[p] == 'Z' || s[p] == 'z') && p + 1 == s.size()) {
        ++p;
      } else if (s[p] == '+' || s[p] == '-') {
        const bool minus = s[p] == '-';
        ++p;
        unsigned oh = 0, om = 0;
        if (!digits(s, p, 2, oh) || p >= s.size() || s[p++] != ':' || !digits(s, p, 2, om) ||
            oh > 23 || om > 59 || p != s.size()) {
          return false;
        }
        offset_min = (minus ? -1 : 1) * static_cast<std::int64_t>(oh * 60 + om);
      } else {
        return false;
      }
    }
  }
  const std::int64_t secs =
      days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60;
  ms = secs * 1000 + frac_ms;
  return true;
}

}  // namespace

bool parse_store_url(std::string_view text, StoreUrl& url, std::string& error) {
  if (has_control(text)) {
    error = "malformed store URL " + quote_text(text) + ": control character";
    return false;
  }
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    error = "malformed store URL " + quote_text(text) + ": expected sqlite:PATH or postgres://...";
    return false;
  }
  const std::string_view scheme = text.substr(0, colon);
  for (const char c : scheme) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '+' || c == '-' || c == '.';
    if (!ok) {
      error =
          "malformed store URL " + quote_text(text) + ": expected sqlite:PATH or postgres://...";
      return false;
    }
  }
  if (scheme == "sqlite") {
    std::string_view path = text.substr(colon + 1);
    if (path.empty()) {
      error =
          "malformed store URL " + quote_text(text) + ": sqlite: needs a file path (sqlite:PATH)";
      return false;
    }
    // SQLite would keep ":memory:" in memory only: the runs "added" would
    // be gone when the command ends.
    if (path == ":memory:") {
      error = "malformed store URL " + quote_text(text) +
              ": an in-memory database keeps nothing (write sqlite:./:memory: for a file of "
              "that name)";
      return false;
    }
    url.engine = Engine::kSqlite;
    url.target.assign(path);
    url.display.assign(text);
    return true;
  }
  if (scheme == "postgres" || scheme == "postgresql") {
    const std::string_view rest = text.substr(colon + 1);
    if (rest.size() < 2 || rest.substr(0, 2) != "//") {
      error = "malformed store URL " + quote_text(redact_url(text)) + ": expected " +
              std::string(scheme) + "://...";
      return false;
    }
    for (const char c : rest) {
      if (c == ' ') {
        error = "malformed store URL " + quote_text(redact_url(text)) + ": space in URL";
        return false;
      }
    }
    // libpq ends the user name and password at the first '@': another one
    // would make the rest of the password part of the host name, and so of
    // libpq's error messages.
    const std::size_t authority_end = rest.find('/', 2);
    const std::string_view authority = rest.substr(
        2, authority_end == std::string_view::npos ? std::string_view::npos : authority_end - 2);
    if (authority.find('@') != authority.rfind('@')) {
      error = "malformed store URL " + quote_text(redact_url(text)) +
              ": more than one '@' before the host (write an '@' in the user name or password as "
              "%40)";
      return false;
    }
    url.engine = Engine::kPostgres;
    url.target.assign(text);
    url.display = redact_url(text);
    return true;
  }
  error = "unknown store URL scheme " + quote_text(scheme) + " in " + quote_text(redact_url(text)) +
          " (expected sqlite:PATH or postgres://...)";
  return false;
}

std::string redact_url(std::string_view url) {
  std::string out(url);
  // libpq reads "scheme://[userinfo@]host..." with the authority ending at
  // the first '/'; the last '@' before it ends the userinfo, so a password
  // holding an unencoded '@' or '?' is still covered (redacting too much is
  // harmless in a message, too little is a leak).
  std::size_t params_from = 0;
  const std::size_t sep = out.find("://");
  if (sep != std::string::npos) {
    const std::size_t auth_begin = sep + 3;
    std::size_t auth_end = out.find('/', auth_begin);
    if (auth_end == std::string::npos) auth_end = out.size();
    const std::size_t at = out.rfind('@', auth_end);
    if (at != std::string::npos && at >= auth_begin) {
      const std::size_t colon = out.find(':', auth_begin);
      if (colon != std::string::npos && colon < at) {
        out.replace(colon + 1, at - colon - 1, "***");
        params_from = colon + 1 + 3 + 1;  // after "***@": the user name is not a parameter list
      }
    }
  }
  // "?password=..." or "&password=..." after the userinfo.
  for (std::size_t pos = out.find("password=", params_from); pos != std::string::npos;
       pos = out.find("password=", pos)) {
    const bool starts_param = pos > 0 && (out[pos - 1] == '?' || out[pos - 1] == '&');
    pos += 9;
    if (!starts_param) continue;
    std::size_t end = out.find('&', pos);
    if (end == std::string::npos) end = out.size();
    out.replace(pos, end - pos, "***");
    pos += 3;
  }
  return out;
}

bool parse_label(std::string_view text, std::string& key, std::string& value, std::string& error) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    error = "label " + quote_text(text) + " has no \"=\" (expected key=value)";
    return false;
  }
  if (eq == 0) {
    error = "label " + quote_text(text) + " has an empty key (expected key=value)";
    return false;
  }
  for (const char c : text.substr(0, eq)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) {
      error = "label " + quote_text(text) + ": key may hold only letters, digits and _.-";
      return false;
    }
  }
  if (eq > kMaxLabelKey || text.size() - eq - 1 > kMaxLabelValue) {
    error = "label " + quote_text(text) + " is too long (a key of at most " +
            std::to_string(kMaxLabelKey) + " bytes, a value of at most " +
            std::to_string(kMaxLabelValue) + ")";
    return false;
  }
  if (has_control(text.substr(eq + 1))) {
    error = "label " + quote_text(text) + ": control character in value";
    return false;
  }
  key.assign(text.substr(0, eq));
  value.assign(text.substr(eq + 1));
  return true;
}

bool parse_since(std::string_view text, std::int64_t now_ms, std::int64_t& since_ms,
                 std::string& error) {
  auto fail = [&] {
    error = "cannot parse --since " + quote_text(text) +
            " (expected YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM], or an age such as 90m, 36h, "
            "7d, 2w)";
    return false;
  };
  if (text.empty()) return fail();
  // An age: digits and one unit letter.
  const char last = text.back();
  if ((last == 'm' || last == 'h' || last == 'd' || last == 'w') && text.size() >= 2 &&
      text.size() <= 8) {
    std::int64_t n = 0;
    for (const char c : text.substr(0, text.size() - 1)) {
      if (c < '0' || c > '9') return fail();
      n = n * 10 + (c - '0');
    }
    const std::int64_t unit_ms = last == 'm'   ? 60'000
                                 : last == 'h' ? 3'600'000
                                 : last == 'd' ? 86'400'000
                                               : 604'800'000;
    since_ms = now_ms - n * unit_ms;
    return true;
  }
  std::int64_t ms = 0;
  if (!parse_timestamp(text, ms)) return fail();
  since_ms = ms;
  return true;
}

std::string format_time_ms(std::int64_t unix_ms) {
  std::int64_t secs = unix_ms / 1000;
  std::int64_t ms = unix_ms % 1000;
  if (ms < 0) {
    ms += 1000;
    secs -= 1;
  }
  std::int64_t days = secs / 86400;
  std::int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  // civil_from_days
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t y0 = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = y0 + (m <= 2);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ",
                static_cast<long long>(y), m, d, static_cast<long long>(rem / 3600),
                static_cast<long long>(rem % 3600 / 60), static_cast<long long>(rem % 60),
                static_cast<long long>(ms));
  return buf;
}

}  // namespace zerolab::store
