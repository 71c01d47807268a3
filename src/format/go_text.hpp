// Go's text conventions that the benchmark format and benchstat's output
// depend on: strconv's shortest 'g' formatting (fmt's %v), 'f' formatting
// with Go's spelling of NaN and infinities, ParseFloat/Atoi with Go's grammar
// and errors, UTF-8 decoding and unicode.IsSpace as Go defines them. Shared
// by the harness (zerolab::bench) and the statistics engine (zerolab::stat).
//
// Thread-safety: all functions are pure.
//
// Example:
//   std::string s = zerolab::internal::format_g(1234567.0);  // "1.234567e+06"
#ifndef ZEROLAB_SRC_FORMAT_GO_TEXT_HPP_
#define ZEROLAB_SRC_FORMAT_GO_TEXT_HPP_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace zerolab::internal {

// ---- numbers as text --------------------------------------------------------

// strconv.FormatFloat(v, 'g', -1, 64), which is also fmt's %v.
std::string format_g(double v);
// Appends fmt's %.{prec}f (with '+' when plus): "+Inf", "-Inf", "NaN".
void append_format_f(std::string& out, double v, int prec, bool plus = false);
std::string format_f(double v, int prec, bool plus = false);

enum class NumError { kNone, kSyntax, kRange };

// ParseFloat(s, 64) of benchfmt's bytesconv copy (with its integer fast path).
NumError parse_go_float(std::string_view s, double& out);
// Atoi of benchfmt's bytesconv copy (int is 64 bits).
NumError parse_go_int(std::string_view s, std::int64_t& out);
const char* num_error_text(NumError e);  // "invalid syntax", "value out of range"

// ---- UTF-8 and unicode -------------------------------------------------------

constexpr char32_t kRuneError = 0xFFFD;

// utf8.DecodeRune: the rune at s[0] and its width (RuneError, 1 when invalid).
std::pair<char32_t, std::size_t> decode_rune(std::string_view s);
// utf8.RuneCountInString.
std::size_t rune_count(std::string_view s);
// unicode.IsSpace.
bool is_space(char32_t r);
// unicode.IsUpper / IsLower for Latin, Greek and Cyrillic (others: false).
bool is_upper(char32_t r);
bool is_lower(char32_t r);
// unicode.IsGraphic, approximately (controls, separators Zl/Zp and format
// characters are not graphic).
bool is_graphic(char32_t r);
// Appends r encoded as UTF-8.
void append_rune(std::string& out, char32_t r);
// strings.TrimSpace(s) == "".
bool is_blank(std::string_view s);

// Concatenates parts (GCC 12 warns falsely about `"x" + std::string`).
inline std::string str_cat(std::initializer_list<std::string_view> parts) {
  std::size_t n = 0;
  for (std::string_view p : parts) n += p.size();
  std::string out;
  out.reserve(n);
  for (std::string_view p : parts) out.append(p);
  return out;
}

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_FORMAT_GO_TEXT_HPP_
